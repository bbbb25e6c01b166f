/* ideals.h: the exact expected makespan of an activity DAG whose times are
 * exponential, by the Markov chain over its order ideals (docs/design.md,
 * "Beyond pipelines"): a state is the set of finished transitions, closed
 * under predecessors; the running ones are its ready frontier; E[T(S)] =
 * (1 + sum_a rate_a E[T(S + a)]) / sum_a rate_a, solved backwards from the
 * full set, one cardinality level at a time (no linear system, and only two
 * levels in memory).  A zero-time transition finishes the moment it is
 * ready: E[T(S)] = E[T(S + t)] for a ready t of time 0. */
#ifndef STP_IDEALS_H
#define STP_IDEALS_H

#include "engine/graph.h"
#include "solvers/phasetype.h"

typedef struct stp_ideals_stats {
  uint64_t states;      /* order ideals visited, empty and full set included */
  uint64_t peak_level;  /* ideals of the largest cardinality level */
  uint64_t peak_bytes;  /* memory of the two levels held at once, at most */
} stp_ideals_stats;

/* E[makespan] of the DAG g (no token; stp_graph_check passed) into *makespan.
 * STP_ELIMIT (message = the reason, for stp_graph_result.exp_reason) when
 * there are more than max_states ideals (refused up front when an antichain
 * of the DAG already implies it); STP_EINTERRUPTED when cancelled.  stats
 * may be NULL.  Time O(states * n) word operations for n transitions. */
stp_status stp__ideals_makespan(const stp_graph *g, uint64_t max_states, const stp_control *control,
                                double *makespan, stp_ideals_stats *stats, stp_error *err);

/* The same when the time of transition t is its mean times a draw of the
 * law ph[t] (mean 1, Coxian form, solvers/phasetype.h; ph or ph[t] NULL:
 * exponential): a state is an ideal and the phase of each running task
 * (docs/design.md, "Phase-type laws").  states counts them all; the limits
 * and the budget apply to them. */
stp_status stp__ideals_makespan_ph(const stp_graph *g, uint64_t max_states,
                                   const stp_control *control, const stp_coxian *const *ph,
                                   double *makespan, stp_ideals_stats *stats, stp_error *err);

#endif /* STP_IDEALS_H */
