/* record.h: what a record is inside the library (record.c), and the table
 * of record kinds: for each, its text report and the columns of its CSV
 * and table outputs (kinds.c). */
#ifndef STP_REPORT_RECORD_H
#define STP_REPORT_RECORD_H

#include "streamtp_explain.h"
#include "streamtp_graph.h"
#include "streamtp_report.h"
#include "report/json.h"

#include <stdio.h>

struct stp_record {
  const struct stp__record_kind *kind;
  json_t *obj;        /* the JSON object, members in the order written */
  json_t *own_limits; /* the command's own "limits" (after the run's), or NULL */
  /* Members only the text report shows, never written as JSON (graph: its
   * places and tokens, ctmc: the chain's description, which their JSON
   * records never had), or NULL. */
  json_t *text_only;
};

typedef struct stp__record_kind {
  const char *name;
  /* The human report of one record; index: its place in the stream (the
   * reports of several records are separated as the command does it). */
  void (*text)(FILE *f, const json_t *rec, size_t index);
  const char *const *csv;     /* CSV columns (NULL: no CSV) */
  const char *const *table;   /* table columns (NULL: no table) */
  const char *const *labels;  /* their headings (NULL: the paths) */
  /* Optional: the text before a table, from its first record (the problem
   * its records share: redistribute's grid). */
  void (*preamble)(FILE *f, const json_t *first);
  /* Optional: the text after the reports of a stream, from all its records
   * (an array): bcast's comparison of its heuristics. */
  void (*summary)(FILE *f, const json_t *records);
  /* Optional: members the CSV line of a record derives from its JSON (a
   * new object, or NULL: none), for summary columns of what JSON holds as
   * a list (eval's and simulate's "utilization_max"). */
  json_t *(*csv_derived)(const json_t *rec);
} stp__record_kind;

const stp__record_kind *stp__kind_find(const char *name);

/* A record of `kind` holding obj (stolen; NULL means out of memory). */
stp_status stp__record_new(const char *kind, json_t *obj, stp_record **out, stp_error *err);
/* The same with the command's own "limits" (stolen too; may be NULL). */
stp_status stp__record_limited(const char *kind, json_t *obj, json_t *limits, stp_record **out,
                               stp_error *err);
/* "status" and "error" of a record (docs/format.md, Glossary). */
void stp__record_status(json_t *o, stp_status status, const char *message);
/* The record with its envelope ("version", then "limits": the run's and
 * the command's own), as a new reference (NULL when out of memory). */
json_t *stp__record_enveloped(const stp_record *r, const stp_run_limits *limits);
/* The text report of r as the index-th record of a stream. */
stp_status stp__record_text_at(const stp_record *r, size_t index, char **text, size_t *len,
                               stp_error *err);
/* file, name, model, and (m not NULL) replication and paths: how every
 * record of a mapping file begins; m and model may be NULL. */
json_t *stp__record_head(const char *file, const stp_mapping *m, const char *model);
/* Run put(f, arg) into memory and hand the bytes out. */
stp_status stp__render(void (*put)(FILE *, const void *), const void *arg, char **text,
                       size_t *len, stp_error *err);

/* "laws": {"stages": {T: law}, "transfers": {T: law}} of the columns of
 * an event graph (column 2i: stage i, 2i+1: its transfer). */
json_t *stp__laws_json(const stp_mapping *m, char *const *column_law, size_t ncolumns);
/* Some column of "laws" has another law than `law`. */
bool stp__laws_mixed(const json_t *laws, const char *law);
/* The same as a text line after label: "T1 exp, T1 out erlang:k=2, ...". */
void stp__laws_text(FILE *f, const char *label, const json_t *laws);
/* The quality of a fit (ph:fit=FILE): the "fit" object of docs/format.md. */
json_t *stp__fit_json(const stp_law_fit *fit);

/* The object of an evaluation (stp_result_json), with its components or
 * not, without status and error. */
json_t *stp__result_object(const stp_mapping *m, const stp_result *r, bool components);

/* ---- the graph family (graphfamily.c): graph, reduce, redistribute, bcast ---- */
/* "exponential": {key: value, "states", "method"}, or {key: null, "reason"}
 * when reason is not NULL (then "method" too when method is not NULL). */
json_t *stp__exponential_json(const char *key, double value, uint64_t states,
                              const char *method, const char *reason);
/* The head of every "exact_law": {"law", key: value} (the caller adds the
 * rest), or {"law", key: null, "reason"} when reason is not NULL. */
json_t *stp__law_json(const char *law, const char *key, double value, const char *reason);
/* "exact_law" of a graph's analysis: {"law", "makespan" or "throughput",
 * "period" (TEG), "method", "states", and for a TEG "solver", "sweeps",
 * "residual"}, or {"law", key: null, "reason"}. */
json_t *stp__graph_law_json(const stp_graph_result *r, const char *law);
/* The "limits" of a graph-family run: max_states (0: the default),
 * max_memory (c's budget), seed (when simulating). */
json_t *stp__graph_limits_json(uint64_t max_states, const stp_control *c, bool simulating,
                               uint64_t seed);
/* "bounds": {"lower", "upper"} (null where not finite). */
json_t *stp__bounds_json(double lower, double upper);
/* "simulation" of a graph's Monte Carlo runs: {"law" (NULL: exp), "runs",
 * "seed", "makespan" (dag) or "throughput" and "period", "ci95"}. */
json_t *stp__graph_sim_json(const char *law, uint64_t seed, const stp_graph_sim_result *r,
                            bool dag);
/* A text line of an exact value under a law: "law SPEC" in a label column
 * of `width` (the value on the next line when the label is wider), then
 * key, value and "(detail)", or "not computed: reason". */
void stp__law_line(FILE *f, const char *law, int width, const char *key, double value,
                   const char *reason, const char *detail);
/* The same line of a graph's "exact_law" object. */
void stp__graph_law_text(FILE *f, const json_t *exact_law, int width);
/* "within the bounds", "below the bounds", ... of a "position". */
const char *stp__position_text(const char *position);
/* "95% CI [lo, hi]" of a "simulation" object's ci95. */
void stp__ci95_text(FILE *f, const json_t *simulation);

/* The text reports (one function per kind, beside the producer). */
void stp__text_eval(FILE *f, const json_t *rec, size_t index);
extern const char *const stp__eval_csv[];
void stp__text_generate(FILE *f, const json_t *rec, size_t index);
void stp__text_optimize(FILE *f, const json_t *rec, size_t index);
void stp__text_simulate(FILE *f, const json_t *rec, size_t index);
extern const char *const stp__sim_csv[], *const stp__sim_table[], *const stp__sim_labels[];
void stp__text_redistribute(FILE *f, const json_t *rec, size_t index);
void stp__preamble_redistribute(FILE *f, const json_t *first);
extern const char *const stp__redistribute_csv[], *const stp__redistribute_table[];
void stp__text_bcast(FILE *f, const json_t *rec, size_t index);
void stp__summary_bcast(FILE *f, const json_t *records);
extern const char *const stp__bcast_csv[], *const stp__bcast_table[];
void stp__text_bcast_model(FILE *f, const json_t *rec, size_t index);
void stp__text_bcast_partition(FILE *f, const json_t *rec, size_t index);
void stp__text_reduce(FILE *f, const json_t *rec, size_t index);
void stp__text_teg(FILE *f, const json_t *rec, size_t index);
void stp__text_graph(FILE *f, const json_t *rec, size_t index);
void stp__text_ctmc(FILE *f, const json_t *rec, size_t index);
extern const char *const stp__reduce_csv[], *const stp__reduce_table[];

/* The explain members of an eval record (explain.c), after its report. */
void stp__text_explain(FILE *f, const json_t *rec);
/* "utilization" (the items' "simulation" when simulated) and "latency"
 * ("simulation" when sim is not NULL) of eval and simulate records. */
json_t *stp__utilization_json(const stp_utilization *u);
json_t *stp__latency_json(const stp_latency_result *l, const stp_sim_latency *sim);
/* Their text, in eval's and simulate's reports. */
void stp__utilization_text(FILE *f, const json_t *utilization);
/* The CSV's summary of a record's "utilization" (NULL without one):
 * "utilization_max", its item of the largest "busy" (the first of them),
 * which has the largest busy fraction under every throughput, and
 * "utilization_saturated", how many items are saturated. */
json_t *stp__utilization_csv(const json_t *rec);
void stp__latency_text(FILE *f, const json_t *latency);
void stp__text_sweep(FILE *f, const json_t *rec, size_t index);
extern const char *const stp__sweep_csv[];
extern const char *const stp__teg_csv[], *const stp__teg_table[];
extern const char *const stp__graph_csv[], *const stp__graph_table[], *const stp__graph_labels[];

#endif /* STP_REPORT_RECORD_H */
