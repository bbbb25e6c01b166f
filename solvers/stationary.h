/* stationary.h: stationary distribution pi of a continuous-time Markov
 * chain, pi Q = 0 with sum(pi) = 1, for any chain given as its moves (the
 * off-diagonal rates, row = source state; solvers/sparse.h).
 *
 * Two solvers.  The iterative one is Gauss-Seidel swept level by level.
 * The chains of event graphs are cyclic: every firing moves the chain from
 * level l to level l+1 mod p (l = firings since the start mod p; the period
 * p is read off the chain itself).  Plain power or Gauss-Seidel iterations
 * then oscillate; swept in level order, one sweep is exactly one step of
 * the chain watched once per turn of its cycle, which mixes fast: 5 to 20
 * sweeps reach a residual of 1e-13 on every pattern and Strict chain
 * measured (bench/ctmc).  The direct one is UMFPACK
 * (64-bit); on these chains its LU factors fill in badly (a 45,045-state
 * pattern: 16 s and 1 GB, against 0.01 s iteratively), so AUTO never uses
 * it on a chain with levels but as the fallback when Gauss-Seidel stalls on
 * a chain small enough to factorise.  On a chain without levels of at most
 * direct_max_states states, AUTO chooses by cost: UMFPACK's symbolic
 * analysis estimates the factorisation, a trial of STP_CHOICE_TRIAL sweeps
 * the iterative solve (its rate of decrease, extrapolated), and the cheaper
 * goes on (a 19,580-state hyperexponential Strict chain: 7-14 s and 334 MB
 * factorised; bench/solver-choice).  On a larger chain where
 * Gauss-Seidel stalls (one that mixes slowly), BiCGSTAB accelerates the same
 * sweeps (stationary_krylov.h).  Every solve is judged by its
 * scaled residual and fails loudly above the tolerance; reducible chains are
 * reported, not solved. */
#ifndef STP_STATIONARY_H
#define STP_STATIONARY_H

#include "solvers/sparse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  STP_STATIONARY_AUTO = 0,  /* see above */
  STP_STATIONARY_DIRECT,    /* UMFPACK */
  STP_STATIONARY_ITERATIVE  /* Gauss-Seidel in level order, alone */
} stp_stationary_method;

typedef struct stp_stationary_options {
  stp_stationary_method method;
  double tolerance;          /* accepted scaled residual */
  int64_t direct_max_states; /* AUTO never factorises larger chains */
  double max_factor_bytes;   /* AUTO never factorises where UMFPACK estimates more (0: no limit) */
  size_t max_sweeps;         /* the iterative solver gives up after this many */
  stp_cancel cancel;         /* checked once per sweep */
} stp_stationary_options;

/* Defaults: AUTO, tolerance 1e-9, factorisation up to
 * STP_STATIONARY_DIRECT_MAX states, at most 5000 sweeps. */
#define STP_STATIONARY_DIRECT_MAX INT64_C(20000)
void stp__stationary_options_init(stp_stationary_options *o);

/* Why the solver was chosen (stp_stationary_info.reason, static strings;
 * docs/format.md lists them as the member solver_reason). */
#define STP_REASON_ASKED "asked for"
#define STP_REASON_TOO_LARGE "no levels, too large to factorise"
#define STP_REASON_FACTORS_CHEAP "the factorisation costs less than the trial sweeps"
#define STP_REASON_TRIAL_CONVERGED "the sweeps converged within the trial"
#define STP_REASON_SWEEPS_CHEAPER "the sweeps are estimated cheaper than the factorisation"
#define STP_REASON_FACTORS_CHEAPER "the factorisation is estimated cheaper than the sweeps"
#define STP_REASON_FACTORS_OVER_BUDGET "the factors would exceed the memory budget"

/* The sweeps the choice tries before extrapolating. */
#define STP_CHOICE_TRIAL 10

typedef struct stp_stationary_info {
  const char *solver;  /* "umfpack", "gauss-seidel (level order)", ... */
  const char *reason;  /* why (STP_REASON_*), NULL on a chain with levels under AUTO */
  double factor_flops, factor_bytes; /* UMFPACK's estimates where the choice asked (else 0) */
  double sweep_moves;      /* the cost of one sweep in moves visited, idem */
  double predicted_sweeps; /* the trial's estimate of the sweeps in all (0: no trial) */
  double residual;     /* scaled residual of the returned pi */
  size_t iterations;   /* sweeps, Gauss-Seidel's and BiCGSTAB's (0: direct) */
  uint32_t period;     /* levels of the chain (1: none) */
  double seconds;
} stp_stationary_info;

/* pi (allocated into *pi_out, length moves->nrows) with pi Q = 0,
 * sum(pi) = 1.  Moves from a state to itself are allowed and ignored.
 * Errors: STP_EINVAL for a rate that is not finite and positive;
 * STP_ENUMERIC for a reducible chain (naming a state that breaks it), a
 * singular factorisation, or a residual above o->tolerance; STP_ENOMEM;
 * STP_EINTERRUPTED.
 * Time: direct, that of UMFPACK; iterative, O(sweeps * (n + nnz)).
 * Memory: iterative, a renumbered transpose of moves and 5 vectors of n. */
stp_status stp__stationary_solve(const stp_csr *moves, const stp_stationary_options *o,
                                 double **pi_out, stp_stationary_info *info, stp_error *err);

/* The stopping rule of the Gauss-Seidel sweeps (stationary.c says why),
 * shared by the solvers that sweep in level order (stationary_bands.h):
 * call stp__gs_done with the estimated scaled residual of the iterate
 * after `it` sweeps; true: stop. */
/* Sweep until the estimated residual is this fraction of the tolerance:
 * sweeps are cheap and a smaller residual buys digits of the throughput. */
#define STP_GS_TARGET 1e-4
typedef struct stp_gs_progress {
  double low, halved; /* smallest estimate; last one that halved the previous */
  size_t low_at, halved_at;
} stp_gs_progress;
void stp__gs_progress_init(stp_gs_progress *p);
bool stp__gs_done(stp_gs_progress *p, double est, size_t it, const stp_stationary_options *o);

/* Gauss-Seidel is too slow to be worth going on with: its estimate is
 * above the tolerance and has not halved in STP_GS_SLOW sweeps (a rate of
 * convergence above 0.986 per sweep, 1,600 sweeps for ten digits).  AUTO
 * then hands the iterate over to BiCGSTAB (stationary_krylov.h); the chains
 * of event graphs measured never come near (5 to 20 sweeps in all). */
#define STP_GS_SLOW 50
bool stp__gs_slow(const stp_gs_progress *p, double est, size_t it,
                  const stp_stationary_options *o);

#endif /* STP_STATIONARY_H */
