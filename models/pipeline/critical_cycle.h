/* critical_cycle.h: the resources on the critical cycles of a mapping's
 * deterministic event graph (critical_cycle.c), for stp_evaluate under
 * Strict without a critical resource. */
#ifndef STP_CRITICAL_CYCLE_H
#define STP_CRITICAL_CYCLE_H

#include "models/pipeline/mapping.h"

/* The names (allocated, in processor order) of the resources on the
 * critical cycles of m's full event graph under model: Strict, the
 * processors; Overlap, "P", "P in", "P out".  The limits of o apply. */
stp_status stp__critical_cycle_resources(const stp_mapping *m, stp_model model,
                                         const stp_options *o, char ***names, size_t *n,
                                         stp_error *err);

#endif /* STP_CRITICAL_CYCLE_H */
