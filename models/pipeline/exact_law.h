/* exact_law.h: the throughput of a mapping when its times follow
 * phase-type laws (exact_law.c; docs/design.md, "Phase-type laws"). */
#ifndef STP_EXACT_LAW_H
#define STP_EXACT_LAW_H

#include "models/pipeline/components.h"
#include "models/pipeline/mapping.h"

/* r->exact_law (and each component's law_throughput) when o->law is set or
 * the file has "laws"; r's deterministic and exponential parts are filled.
 * A law that is not phase-type or a chain beyond the limits of o is
 * recorded as unavailable with a reason, not as an error. */
stp_status stp__law_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err);

/* Frees what r->exact_law holds (not r). */
void stp__law_result_clear(stp_law_result *lr);

#endif /* STP_EXACT_LAW_H */
