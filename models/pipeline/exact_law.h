/* exact_law.h: the throughput of a mapping when its times follow
 * phase-type laws (exact_law.c; docs/design.md, "Phase-type laws"). */
#ifndef STP_EXACT_LAW_H
#define STP_EXACT_LAW_H

#include "models/pipeline/components.h"
#include "models/pipeline/mapping.h"
#include "solvers/phasetype.h"
#include "streamtp_graph.h"

/* r->exact_law (and each component's law_throughput) when o->law is set or
 * the file has "laws"; r's deterministic and exponential parts are filled.
 * A law that is not phase-type or a chain beyond the limits of o is
 * recorded as unavailable with a reason, not as an error. */
stp_status stp__law_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err);

/* The Coxian form of each column's law (docs/design.md 2: column 2i the
 * computations of stage i, 2i + 1 its transfers) as stp__law_evaluate
 * resolves them; ncols 0 when no law is asked (neither o->law nor
 * phase-type "laws" in the file); STP_EINVAL naming the column of a law
 * that is not phase-type.  For the sensitivities under a law. */
typedef struct stp_law_columns {
  size_t ncols;
  const stp_coxian **cox; /* ncols (freed by stp__law_columns_free) */
  stp_law exp_law;        /* the columns without a law point here */
  double one, zero;
} stp_law_columns;
stp_status stp__law_columns_resolve(const stp_mapping *m, const stp_options *o,
                                    stp_law_columns *lc, stp_error *err);
void stp__law_columns_free(stp_law_columns *lc);

/* A transfer pattern as an event graph: transition k the pattern's k-th
 * (time times[k], an output), the places of stp__pattern_graph. */
stp_status stp__pattern_event_graph(const stp_component *c, const double *times, stp_graph **out,
                                    stp_error *err);

/* The optimiser's law objective (optimize/evaluate.c), one value at a
 * time with the code of stp__law_evaluate: the inner rate of a u x v
 * transfer pattern of mean times `times` (as stp__pattern_times lays them
 * out) under the law cox on every transition; and the throughput of the
 * Strict mapping m, each column under lc's law.  ELIMIT beyond the limits
 * of o (the message says which). */
stp_status stp__law_pattern_rate(size_t u, size_t v, const double *times, const stp_coxian *cox,
                                 const stp_options *o, double *rate, stp_error *err);
stp_status stp__law_strict_rate(const stp_mapping *m, const stp_law_columns *lc,
                                const stp_options *o, double *rate, stp_error *err);

/* Frees what r->exact_law holds (not r). */
void stp__law_result_clear(stp_law_result *lr);

#endif /* STP_EXACT_LAW_H */
