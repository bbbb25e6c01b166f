/* chain_adjoint.h: the derivatives of a chain's long-run reward with
 * respect to the rates of its transitions, from one adjoint (Poisson
 * equation) solve whatever the number of transitions (chain_adjoint.c;
 * docs/design.md, "Sensitivities").
 *
 * With pi Q = 0 and the reward rho = pi rbar, rbar(s) = sum over the moves
 * e out of s of weight[event e] x rate(e), and h solving Q h = rho 1 - rbar
 * (pi h = 0): d rho = pi d rbar + pi dQ h, so the derivative with respect
 * to the log of the rate mu_t of transition t is
 *   sum over the moves e = s -> s' of t of pi_s mu_t (h_s' - h_s + weight_t). */
#ifndef STP_CHAIN_ADJOINT_H
#define STP_CHAIN_ADJOINT_H

#include "engine/chain.h"

typedef struct stp_adjoint_info {
  double residual;    /* ||Q h - b|| / (||Q|| ||h|| + ||b||), infinity norms */
  size_t sweeps;      /* Gauss-Seidel sweeps */
  uint32_t period;    /* levels of the chain seen by the sweep order */
  double seconds;
} stp_adjoint_info;

/* *value = pi rbar and grad[t] = d value / d log mu_t for every event t of
 * c (nevents entries), pi the chain's stationary distribution (from
 * stp__chain_solve), weight[t] the reward of one firing of t (0: none).
 * The Poisson equation is solved by Gauss-Seidel swept against the moves'
 * direction, level by level (the chain's period read off a breadth-first
 * search from state 0), deflated to pi h = 0 after each sweep.
 * STP_ENUMERIC when the residual stays above o->solver_tolerance;
 * STP_EINTERRUPTED (o->control.cancel, per sweep); STP_ENOMEM.
 * Time O(sweeps * moves); memory 4 vectors of n. */
stp_status stp__chain_reward_gradient(const stp_chain *c, const double *pi, const double *weight,
                                      const stp_options *o, double *value, double *grad,
                                      stp_adjoint_info *info, stp_error *err);

#endif /* STP_CHAIN_ADJOINT_H */
