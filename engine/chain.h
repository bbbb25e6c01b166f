/* chain.h: the continuous-time Markov chain of an event graph with
 * exponential firing times (docs/design.md): its moves between markings,
 * each labelled with the transition that fires, solved by
 * solvers/stationary.h for the long-run rate of the counted transitions,
 * and written for other tools.  Whoever builds a chain (a pattern, a
 * reachability enumeration) hands it over as an stp_chain. */
#ifndef STP_CHAIN_H
#define STP_CHAIN_H

#include "streamtp_chain.h"
#include "solvers/sparse.h"
#include "solvers/stationary.h"

#include <stdio.h>

typedef struct stp_ctmc_info {
  uint64_t states;
  uint64_t nonzeros;      /* off-diagonal generator entries */
  uint64_t moves;         /* moves, those back to their state included (the
                             distributed route fills it; 0 elsewhere) */
  double residual;        /* ||pi Q|| / (||Q|| ||pi||) */
  const char *solver;     /* static string naming the stationary solver */
  const char *solver_reason; /* why it was chosen (static, solvers/stationary.h), or NULL */
  size_t iterations;      /* iterative solvers; 0 for direct */
  uint32_t period;        /* levels of the chain (solvers/stationary.h) */
  double seconds_build;
  double seconds_solve;
} stp_ctmc_info;

/* The Markov chain of the markings of an event graph with exponential
 * firing times.  Row s of `moves` lists the firings possible in state s:
 * moves->j[e] is the next state, moves->x[e] the rate, event[e] the
 * transition that fires.  A move may lead back to s (a one-transition
 * cycle); it counts for the firing rates but not in the generator.
 * The data-set rate is ncounted x (the smallest long-run firing rate of a
 * counted transition): in a connected event graph every transition fires
 * equally often, and the parts of a disconnected one (independent rows of
 * a Strict mapping) deliver in order only as fast as the slowest. */
typedef struct stp_chain {
  stp_csr *moves;
  uint32_t *event;     /* per move */
  uint32_t nevents;    /* transitions of the event graph */
  uint8_t *counted;    /* per transition: 1 when its firing completes a data set */
  double seconds_build;
  double scale;        /* what the chain bounds = scale x its data-set rate (builders set it) */
  char *description;   /* for stp_chain_description; NULL: generic */
} stp_chain;

void stp__chain_free(stp_chain *c);

/* Rate at which state s completes data sets: the sum of the rates of its
 * moves that fire a counted transition (a state reward for other tools). */
double stp__chain_counted_rate(const stp_chain *c, int64_t s);

/* Stationary distribution of the chain (allocated into *pi) and the rate of
 * completed data sets under it (see stp_chain), by the given solver
 * (STP_STATIONARY_AUTO normally).
 * STP_ENUMERIC when the solve does not reach o->solver_tolerance, with the
 * residual in the message. */
stp_status stp__chain_solve(const stp_chain *c, const stp_options *o, stp_stationary_method method,
                            double **pi, double *rate, stp_ctmc_info *info, stp_error *err);

/* The generator Q (diagonal included) in MatrixMarket coordinate format,
 * 1-based, one entry per line.  STP_EIO on a write error. */
stp_status stp__chain_write_mtx(const stp_chain *c, FILE *f, const char *comment,
                                stp_error *err);
/* One CSV line per state: index, level, rate of the counted firings in
 * that state, and the transitions enabled there. */
stp_status stp__chain_write_states(const stp_chain *c, FILE *f, stp_error *err);

#endif /* STP_CHAIN_H */
