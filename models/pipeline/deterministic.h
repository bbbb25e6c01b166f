/* deterministic.h: throughput of a mapping with constant times
 * (deterministic.c): the resource cycle-times that give M_ct and the
 * critical resource, Overlap from the components, Strict from the full
 * event graph. */
#ifndef STP_DETERMINISTIC_H
#define STP_DETERMINISTIC_H

#include "models/pipeline/components.h"
#include "models/pipeline/mapping.h"

/* Per-processor cycle-times per data set (docs/design.md 3). */
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
/* The same on the platform m with the teams tm (stp_teams, mapping.h). */
stp_status stp__det_strict_teams(const stp_mapping *m, const stp_teams *tm, const stp_options *o,
                                 double *rho, stp_error *err);

#endif /* STP_DETERMINISTIC_H */
