/* report.h: how an evaluation result is shown: a human report, the JSON
 * object of docs/format.md (one per file and model), and the flat rows of batch
 * (CSV or JSON lines). */
#ifndef STP_REPORT_H
#define STP_REPORT_H

#include "cli/cli.h"
#include "streamtp.h"
#include "streamtp_batch.h"
#include "streamtp_graph.h"

#include <jansson.h>
#include <stdio.h>

/* A finite double as a JSON number, anything else as null. */
json_t *report_number(double x);
/* A string as JSON (NULL: null); bytes that are not UTF-8 (a file name can
 * hold any) are written as the text \xNN instead of being lost. */
json_t *report_string(const char *s);
/* Names of processors as a JSON array. */
json_t *report_names(const stp_mapping *m, const size_t *procs, size_t n);
/* file, name, model, replication and paths of the docs/format.md object; m and
 * model may be NULL (a file that could not be read). */
json_t *report_head(const char *file, const stp_mapping *m, const char *model);
/* The docs/format.md object for one file and model (NULL when out of memory). */
json_t *report_json(const stp_mapping *m, const stp_result *r);
/* The blocks every DAG/graph command (graph, reduce, bcast) prints alike:
 * "exponential": {key: value, "states", "method"}, or {key: null, "reason"}
 * when reason is not NULL (then "method" too when method is not NULL); */
json_t *report_exponential(const char *key, double value, uint64_t states, const char *method,
                           const char *reason);
/* The head of every "exact_law" object: {"law", key: value} (the caller
 * adds "method" and the rest), or {"law", key: null, "reason"} when reason
 * is not NULL. */
json_t *report_law(const char *law, const char *key, double value, const char *reason);
/* The same as one text line: "law SPEC" in a label column of `width` (the
 * value on the next line when the label is wider), then key, value and
 * "(detail)", or "not computed: reason". */
void report_law_text(FILE *f, const char *law, int width, const char *key, double value,
                     const char *reason, const char *detail);
/* "exact_law" of the graph commands (graph, reduce, bcast): {"law",
 * "makespan" or "throughput", "period" (TEG), "method", "states", and for
 * a TEG "solver", "sweeps", "residual"}, or {"law", key: null, "reason"}. */
json_t *report_graph_law(const stp_graph_result *r, const char *law);
/* The same as one text line, "law SPEC" in a label column of `width`
 * (the value on the next line when the label is wider). */
void report_graph_law_text(FILE *f, const stp_graph_result *r, const char *law, int width);
/* A fit's quality (ph:fit=FILE) as the "fit" object of docs/format.md. */
json_t *report_fit(const stp_law_fit *fit);
/* "bounds": {"lower", "upper"} (null where not finite); */
json_t *report_bounds(double lower, double upper);
/* "simulation": {"law", "runs", "seed", "makespan" (dag) or "throughput"
 * and "period", "ci95": [lo, hi]}. */
json_t *report_simulation(const stp_graph_sim_options *o, const stp_graph_sim_result *r,
                          bool dag);
/* A monotonic clock, in seconds: the "seconds" of a record. */
double report_now(void);
/* The --law of a Monte Carlo run as given, "exp" by default. */
const char *report_sim_law(const stp_graph_sim_options *o);
/* Write one JSON value on one line. */
int report_json_line(FILE *f, json_t *v);
void report_text(FILE *f, const stp_mapping *m, const stp_result *r);
/* "status" ("OK" or the error kind) and "error" (the message, or null) of a
 * record of a command that takes several inputs (docs/format.md, Glossary). */
void report_status(json_t *o, stp_status status, const char *message);
/* The record of an input that failed: file, name null, model, status, error. */
json_t *report_error_record(const char *file, const char *model, const stp_error *err);
/* The value at a JSON path "a.b.c" (borrowed), or NULL. */
json_t *report_get(const json_t *o, const char *path);
/* A batch row: the eval --json object without its components, with the
 * row's seconds, status and error, then the flat keys of earlier releases
 * as aliases (docs/guide/batch.md lists them). */
json_t *report_row(const stp_batch_row *row);
/* The CSV columns of a row (JSON paths, then the aliases), NULL-terminated. */
const char *const *report_row_columns(void);
/* The same row as CSV (RFC 4180 quoting, empty fields for null, the
 * replication as "1 2 3 1"), after a header line of the column names. */
int report_csv_header(FILE *f);
/* The same header line as a new string (NULL when out of memory). */
char *report_csv_header_text(void);
int report_csv_row(FILE *f, const json_t *row);

/* The "limits" object of the JSON lines (cli_run_limits). */
json_t *report_limits(void);

/* CSV or table output of records (--format csv|table): columns are JSON
 * paths ("bounds.lower", NULL-terminated), each field the value there.  CSV
 * writes a header then one line per record as it comes; a table waits for
 * the last record (report_sink_close) to align its columns, and heads them
 * with labels when given (one per column).  Zero-initialise the rest. */
typedef struct report_sink {
  int format; /* CLI_FORMAT_CSV or CLI_FORMAT_TABLE */
  const char *const *columns;
  const char *const *labels;
  json_t *keys, *rows;
} report_sink;
int report_sink_put(report_sink *s, FILE *f, const json_t *rec);
int report_sink_close(report_sink *s, FILE *f);
/* The human report as one whole record (report_text into memory, then out). */
int report_text_record(FILE *f, const stp_mapping *m, const stp_result *r);

#endif /* STP_REPORT_H */
