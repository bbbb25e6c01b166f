/* optimal.h: a schedule of minimum total cost (ties: fewest steps), with at
 * most a given number of steps, proven optimal by an exact search. */
#ifndef STP_REDIST_OPTIMAL_H
#define STP_REDIST_OPTIMAL_H

#include "models/redistribute/grid.h"

typedef struct stp__redist_search {
  uint64_t lower_bound; /* sum over length levels of (w_t - w_t+1) Delta_t */
  uint64_t profiles;    /* cost profiles examined */
  uint64_t nodes;       /* search nodes over all profiles */
} stp__redist_search;

/* inc_step / inc_ns / inc_tc: a known schedule (the incumbent, e.g. stepwise)
 * with inc_ns <= max_steps; the search returns it when nothing beats it.
 * Fills step[] and *ns with the optimum.  ELIMIT beyond o->max_nodes search
 * nodes or too many profiles; EINTERRUPTED on cancellation. */
stp_status stp__redist_optimal(const stp_redist *rd, const stp_redist_options *o,
                               const uint32_t *inc_step, uint64_t inc_ns, uint64_t inc_tc,
                               uint32_t *step, uint64_t *ns, stp__redist_search *stats,
                               stp_error *err);

#endif /* STP_REDIST_OPTIMAL_H */
