/* exponential.h: throughput of a mapping when every time is exponential
 * (exponential.c). */
#ifndef STP_EXPONENTIAL_H
#define STP_EXPONENTIAL_H

#include "models/pipeline/components.h"
#include "models/pipeline/mapping.h"

/* Exponential throughput and the N.B.U.E. bounds into r (whose
 * deterministic part and components are filled); results beyond the limits
 * are recorded as unavailable with a reason. */
stp_status stp__exp_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err);

#endif /* STP_EXPONENTIAL_H */
