/* streamtp_explain_report.h: the explain results as records
 * (report/explain.c; docs/format.md, "Explaining a throughput"): members
 * of an evaluation's record, and the record of a point of a sweep (kind
 * "sweep": its text line, JSON line and CSV row come from the sinks of
 * streamtp_report.h). */
#ifndef STREAMTP_EXPLAIN_REPORT_H
#define STREAMTP_EXPLAIN_REPORT_H

#include "streamtp_explain.h"
#include "streamtp_report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to add to an eval record; NULL members are left out. */
typedef struct stp_explain_members {
  const stp_sensitivity_result *sensitivity; /* in its order (stp_sensitivity_rank) */
  size_t top;                                /* the first top items (0: all) */
  const stp_utilization *utilization;
  const stp_latency_result *latency;
  const stp_critical_cycle *critical_cycle;
} stp_explain_members;

/* Adds "critical_cycle", "sensitivity" and "sensitivity_solve",
 * "utilization" and "latency" to rec (of kind "eval", from
 * stp_result_json), before its "seconds", "status" and "error"; its text
 * report then shows them after the components.  EINVAL for another kind. */
STP_API stp_status stp_record_add_explain(stp_record *rec, const stp_explain_members *x,
                                          stp_error *err);

/* A point of a sweep of m (stp_sweep_point_eval) as a record of kind
 * "sweep": file, name, model, "vary" (LABEL -> value), the
 * "deterministic", "exponential", "exact_law" and "bounds" objects of
 * eval, "critical" (null: none) and "simulation" when simulated. */
STP_API stp_status stp_sweep_point_json(const stp_mapping *m, const stp_vary *const *vary,
                                        size_t nvary, const stp_sweep_point *p,
                                        stp_record **out, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_EXPLAIN_REPORT_H */
