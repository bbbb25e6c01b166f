/* evaluate.h: internal pieces of the evaluation driver (stp_evaluate):
 * resource cycle-times, the deterministic throughput of each model, and the
 * exponential evaluation hook. */
#ifndef STP_EVALUATE_H
#define STP_EVALUATE_H

#include "engine/components.h"
#include "models/mapping.h"

/* Per-processor cycle-times per data set (DESIGN.md 3). */
typedef struct stp_cycle_times {
  double in, comp, out;
} stp_cycle_times;

/* ct[p] for every processor (zero for processors outside every team). */
stp_status stp__cycle_times(const stp_mapping *m, const stp_component_set *cs,
                            stp_cycle_times **ct, stp_error *err);

/* Deterministic throughput: Overlap from the components, Strict from the
 * full event graph (Howard). */
stp_status stp__det_overlap(const stp_mapping *m, const stp_component_set *cs,
                            const stp_options *o, double *comp_rho, double *rho, stp_error *err);
stp_status stp__det_strict(const stp_mapping *m, const stp_options *o, double *rho,
                           stp_error *err);

/* Exponential throughput and the N.B.U.E. bounds into r (whose
 * deterministic part and components are filled); results beyond the limits
 * are recorded as unavailable with a reason. */
stp_status stp__exp_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err);

#endif /* STP_EVALUATE_H */
