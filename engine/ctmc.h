/* ctmc.h: exponential throughputs from continuous-time Markov chains
 * (DESIGN.md section 4, paper section 5): the folded transfer pattern of an
 * Overlap component (states = pairs of Young diagrams), and the reachable
 * markings of the full Strict event graph.  Both chains are built as an
 * stp_chain (the moves between markings, each labelled with the transition
 * of the event graph that fires) and solved by solvers/stationary.h. */
#ifndef STP_CTMC_H
#define STP_CTMC_H

#include "models/mapping.h"
#include "solvers/sparse.h"
#include "solvers/stationary.h"

#include <stdio.h>

typedef struct stp_ctmc_info {
  uint64_t states;
  uint64_t nonzeros;      /* off-diagonal generator entries */
  double residual;        /* ||pi Q|| / (||Q|| ||pi||) */
  const char *solver;     /* static string naming the stationary solver */
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
} stp_chain;

void stp__chain_free(stp_chain *c);

/* S(u, v) = v * C(u+v-1, u-1), the number of states of a u x v pattern;
 * false when it exceeds 2^63. */
bool stp__pattern_state_count(size_t u, size_t v, uint64_t *out);

/* The chain of a u x v transfer pattern (gcd(u, v) = 1) whose transition k
 * has an exponential firing time of mean times[k]: S(u, v) states, indexed
 * by ranking the Young-diagram pairs.  STP_ELIMIT above max_states.
 * Time and memory O(S(u, v) * min(u, v)). */
stp_status stp__pattern_chain(size_t u, size_t v, const double *times, uint64_t max_states,
                              stp_chain **out, stp_error *err);

/* The chain of the reachable markings of the Strict event graph of m, by
 * breadth-first enumeration (state 0 is the initial marking).  STP_ELIMIT
 * when the graph exceeds max_transitions or the markings max_states (the
 * message says how far the enumeration got); the memory used is bounded
 * by max_states. */
stp_status stp__strict_chain(const stp_mapping *m, const stp_options *o, stp_chain **out,
                             stp_error *err);

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

/* Inner rate of a u x v transfer pattern (gcd(u, v) = 1) whose transition k
 * has an exponential firing time of mean times[k]: the long-run number of
 * data sets through the pattern per time unit (= u*v times the firing rate
 * of any one transition).  STP_ELIMIT when S(u, v) > o->max_states. */
stp_status stp__pattern_exp_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_ctmc_info *info, stp_error *err);

/* Throughput of the Strict model with exponential times, from the Markov
 * chain of the reachable markings of the full event graph.  STP_ELIMIT when
 * the enumeration exceeds o->max_states (the message says how far it got). */
stp_status stp__strict_exp_throughput(const stp_mapping *m, const stp_options *o, double *rho,
                                      stp_ctmc_info *info, stp_error *err);

#endif /* STP_CTMC_H */
