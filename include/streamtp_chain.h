/* streamtp_chain.h: one continuous-time Markov chain of an event graph with
 * exponential firing times, to inspect, solve and export.  The analyses
 * build and solve their chains themselves; this interface is for users (and
 * `streamtp ctmc`) who want to look at one: how many states and moves it
 * has, how the stationary solve went, and the generator itself for other
 * tools.  Chains come from a model: stp_mapping_chain (streamtp.h). */
#ifndef STREAMTP_CHAIN_H
#define STREAMTP_CHAIN_H

#include "streamtp_base.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stp_chain stp_chain;

STP_API void stp_chain_free(stp_chain *c);
STP_API int64_t stp_chain_states(const stp_chain *c);
/* Moves (firings) between states, moves back to the same state included. */
STP_API int64_t stp_chain_moves(const stp_chain *c);
/* Wall time of the enumeration that built the chain. */
STP_API double stp_chain_build_seconds(const stp_chain *c);
/* What the chain is of, e.g. "a.json (a): Markov chain of the Strict event
 * graph" (never NULL). */
STP_API const char *stp_chain_description(const stp_chain *c);

typedef enum {
  STP_SOLVER_AUTO = 0,  /* Gauss-Seidel in level order, UMFPACK for small chains */
  STP_SOLVER_DIRECT,    /* UMFPACK (LU) */
  STP_SOLVER_ITERATIVE  /* Gauss-Seidel swept level by level */
} stp_solver;

typedef struct stp_chain_solution {
  double rate;        /* long-run rate of the chain's counted firings */
  double throughput;  /* what the chain bounds: rate times the chain's scale (docs) */
  double residual;    /* scaled residual ||pi Q|| / (||Q|| ||pi||) of the solve */
  const char *solver; /* static name of the solver that ran */
  size_t iterations;  /* sweeps (0 for the direct solver) */
  uint32_t levels;    /* period of the chain: the level-order sweep's cycle */
  double seconds;
} stp_chain_solution;

/* Stationary distribution and rate, with o->solver_tolerance as the
 * accepted residual (o may be NULL).  STP_ENUMERIC when the solve does not
 * reach it, or when the chain is reducible (the message names a state). */
STP_API stp_status stp_chain_solve(const stp_chain *c, const stp_options *o, stp_solver method,
                                   stp_chain_solution *out, stp_error *err);

/* The generator Q (rows sum to 0) in MatrixMarket coordinate format, states
 * numbered from 1, after `comment` as % lines (may be NULL).  STP_EIO on a
 * write error. */
STP_API stp_status stp_chain_write_mtx(const stp_chain *c, FILE *f, const char *comment,
                                       stp_error *err);
/* One CSV line per state (from 0): its level, the rate of its counted
 * firings, and the event-graph transitions it enables. */
STP_API stp_status stp_chain_write_states(const stp_chain *c, FILE *f, stp_error *err);

/* For probabilistic model checkers (docs/format.md, "ctmc exports"): the
 * chain as a CTMC of rates between distinct states (moves back to the same
 * state left out, parallel moves summed: the generator of
 * stp_chain_write_mtx), state 0 labelled "init", and the state reward
 * "throughput" (the rate of completed data sets in that state, whose
 * long-run average is the chain's rate).  STP_EIO on a write error. */
/* PRISM's explicit files: transitions (.tra), states (.sta: variables s and
 * level), labels (.lab) and state rewards (.srew); a NULL file is skipped. */
STP_API stp_status stp_chain_write_prism(const stp_chain *c, FILE *tra, FILE *sta, FILE *lab,
                                         FILE *srew, stp_error *err);
/* Storm's explicit DRN format, after `comment` as // lines (may be NULL). */
STP_API stp_status stp_chain_write_drn(const stp_chain *c, FILE *f, const char *comment,
                                       stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_CHAIN_H */
