/* exponential.h: throughput of a mapping when every time is exponential
 * (exponential.c). */
#ifndef STP_EXPONENTIAL_H
#define STP_EXPONENTIAL_H

#include "engine/chain.h"
#include "models/pipeline/components.h"
#include "models/pipeline/mapping.h"

/* Exponential throughput and the N.B.U.E. bounds into r (whose
 * deterministic part and components are filled); results beyond the limits
 * are recorded as unavailable with a reason. */
stp_status stp__exp_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err);

/* Inner exponential rate of a u x v transfer pattern whose transition k has
 * mean times[k]: Theorem 4's closed form when every link has the same rate
 * (unless o->exp_method is STP_EXP_CTMC), else the pattern's Markov chain
 * (info filled).  *method: "closed-form" or "ctmc" (static).  STP_ELIMIT
 * beyond the limits of o, or for a heterogeneous pattern under
 * STP_EXP_CLOSED_FORM. */
stp_status stp__pattern_exp_value(size_t u, size_t v, const double *times, const stp_options *o,
                                  double *rate, const char **method, stp_ctmc_info *info,
                                  stp_error *err);

#endif /* STP_EXPONENTIAL_H */
