/* ctmc.h: exponential throughputs from continuous-time Markov chains
 * (DESIGN.md section 4, paper section 5): the folded transfer pattern of an
 * Overlap component (states = pairs of Young diagrams), and the reachable
 * markings of the full Strict event graph. */
#ifndef STP_CTMC_H
#define STP_CTMC_H

#include "models/mapping.h"

typedef struct stp_ctmc_info {
  uint64_t states;
  uint64_t nonzeros;      /* off-diagonal generator entries */
  double residual;        /* ||pi Q|| / (||Q|| ||pi||) */
  const char *solver;     /* static string naming the stationary solver */
  size_t iterations;      /* iterative solvers; 0 for direct */
  double seconds_build;
  double seconds_solve;
} stp_ctmc_info;

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
