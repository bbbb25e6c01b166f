/* heuristics.h: the paper's schedules (class, stepwise, greedy) and the
 * caterpillar baseline.  Each writes a step number per message. */
#ifndef STP_REDIST_HEURISTICS_H
#define STP_REDIST_HEURISTICS_H

#include "models/redistribute/grid.h"

/* Each fills step[k] for every message k of rd and *ns (the number of step
 * numbers used; some may be empty only for the caterpillar). */
stp_status stp__redist_class(const stp_redist *rd, uint32_t *step, uint64_t *ns, stp_error *err);
stp_status stp__redist_caterpillar(const stp_redist *rd, uint32_t *step, uint64_t *ns,
                                   stp_error *err);
/* saturate = 1: stepwise (every vertex of maximum degree is matched at each
 * step, so NS = ns_opt); 0: greedy. */
stp_status stp__redist_matchings(const stp_redist *rd, int saturate, const stp_control *control,
                                 uint32_t *step, uint64_t *ns, stp_error *err);

#endif /* STP_REDIST_HEURISTICS_H */
