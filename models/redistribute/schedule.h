/* schedule.h: a redistribution schedule (steps of messages), built from a
 * step number per message, put in the published order (steps by
 * nonincreasing cost, messages by sender) and checked. */
#ifndef STP_REDIST_SCHEDULE_H
#define STP_REDIST_SCHEDULE_H

#include "models/redistribute/grid.h"

#include <stdbool.h>

struct stp_redist_schedule {
  stp_redist_strategy strategy;
  uint64_t ns;
  size_t *start;  /* ns + 1: messages of step k are start[k] .. start[k+1]-1 */
  size_t *msg;    /* nmsg: indices into the problem's message list */
  uint64_t *cost; /* ns: longest message of the step (0 when empty) */
  uint64_t tc;
  const stp_redist *rd;
  uint64_t lower_bound, profiles, nodes; /* optimal: the search (else 0) */
};

/* A schedule from step[k] in 0..ns-1 for every message k of rd.  Steps are
 * sorted by nonincreasing cost (stable) unless keep_order; messages of a
 * step by sender.  The result is checked (EINTERNAL on a broken rule). */
stp_status stp__redist_schedule_from_steps(const stp_redist *rd, stp_redist_strategy strategy,
                                           const uint32_t *step, uint64_t ns, bool keep_order,
                                           stp_redist_schedule **out, stp_error *err);

#endif /* STP_REDIST_SCHEDULE_H */
