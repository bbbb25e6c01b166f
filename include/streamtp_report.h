/* streamtp_report.h: every result as its record, and every record in
 * every output format, written once, by the library.
 *
 * A record is one JSON object of docs/format.md (an evaluation, a
 * simulation, a graph's analysis, ...).  The producers (stp_*_json, in
 * this header and beside each result's own) turn a result into its
 * record; stp_record_json writes it as one line of JSON, with "version"
 * and "limits", every real in its shortest round-trip form; a sink writes
 * a stream of records as text (the human report), JSON lines, CSV (each
 * column a JSON path: "bounds.lower") or an aligned table.  The CLI and
 * the Python module print nothing of their own: what they show comes from
 * here, so the words and the numbers are the same everywhere.
 *
 * Ownership: a record belongs to the caller (stp_record_free); text
 * handed out (char **) is malloc'd, to be released with stp_free.  Records
 * do not refer to the results they were made from.
 */
#ifndef STREAMTP_REPORT_H
#define STREAMTP_REPORT_H

#include "streamtp_pipeline.h"
#include "streamtp_batch.h"
#include "streamtp_chain.h"
#include "streamtp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stp_record stp_record;

/* ---- the envelope -------------------------------------------------------------
 * What a run was limited by: the "limits" object of every record.  A
 * member that is 0 (has_seed 0) was not a limit of the run and is left
 * out. */
typedef struct stp_run_limits {
  uint64_t max_transitions; /* full event graphs */
  uint64_t max_states;      /* Markov chains */
  uint64_t max_memory;      /* bytes, the default resolved */
  int has_seed;
  uint64_t seed;            /* Monte Carlo and the optimiser's search */
} stp_run_limits;

/* The limits an evaluation with options o ran under: max_transitions,
 * max_states and the memory budget (its default resolved). */
STP_API stp_run_limits stp_run_limits_of(const stp_options *o);

/* sizeof the public structure of that name ("stp_options", ...), 0 when
 * there is none: bindings that fill option structures themselves check
 * their layout against the library they loaded. */
STP_API size_t stp_struct_size(const char *name);

/* ---- records ------------------------------------------------------------------ */
STP_API void stp_record_free(stp_record *r);
/* Text from the library (records, reports) is released with this. */
STP_API void stp_free(void *p);
/* What the record is: "eval", "simulate", "graph", ... (the text report
 * and the sink's default columns follow from it). */
STP_API const char *stp_record_kind(const stp_record *r);
/* The status the record reports ("status": STP_OK for a result). */
STP_API stp_status stp_record_status(const stp_record *r);
/* The record as one JSON object on one line (no line break), ending with
 * "version" and "limits" (limits NULL: only the record's own limits, if
 * any).  *len may be NULL. */
STP_API stp_status stp_record_json(const stp_record *r, const stp_run_limits *limits,
                                   char **text, size_t *len, stp_error *err);
/* The human report of the record, as `streamtp COMMAND` prints it (an
 * error record: the empty string; the CLI shows the error on stderr). */
STP_API stp_status stp_record_text(const stp_record *r, char **text, size_t *len,
                                   stp_error *err);

/* A record read back from its JSON text (a line of stp_record_json, sent
 * between processes): STP_EINVAL when it is not a JSON object. */
STP_API stp_status stp_record_parse(const char *kind, const char *text, size_t len,
                                    stp_record **out, stp_error *err);

/* The record of an input that failed before it had a result: "file",
 * "name" (of mapping, when it could be read; NULL otherwise), "model"
 * (NULL: unknown), "status" and "error" from err; kind as the records of
 * the command ("eval", "simulate", ...). */
STP_API stp_status stp_error_json(const char *kind, const char *file, const stp_mapping *mapping,
                                  const char *model, const stp_error *failure, stp_record **out,
                                  stp_error *err);

/* ---- results as records ----------------------------------------------------------- */
/* An evaluation (streamtp eval --json): file, name, model, replication,
 * paths, deterministic, exponential, bounds, exact_law (when a law was
 * asked), components (Overlap), seconds, status, error. */
STP_API stp_status stp_result_json(const stp_mapping *m, const stp_result *r, stp_record **out,
                                   stp_error *err);
/* A row of batch: the evaluation's record without its components, with the
 * row's seconds, status and error (kind "eval"). */
STP_API stp_status stp_batch_row_json(const stp_batch_row *row, stp_record **out, stp_error *err);

/* The CSV columns (JSON paths) of the rows of a batch run with cfg (NULL:
 * the defaults): eval's (simulate's for a Monte Carlo batch), then the
 * summary columns of what cfg adds before "seconds", "status" and "error"
 * (docs/guide/batch.md): the first sensitivity ("sensitivity.0.*": the
 * top-ranked), the resource of the largest busy time ("utilization_max.*",
 * an item of "utilization") and the number of saturated resources
 * ("utilization_saturated"), which the CSV of a record with "utilization"
 * derives from it, and the latency's max and mean.  Writes at most cap - 1
 * of them and a NULL into out (static strings); returns how many there
 * are. */
STP_API size_t stp_batch_csv_columns(const stp_batch_config *cfg, const char **out, size_t cap);

/* How far a batch got (its progress, its end): inputs, inputs_done, rows,
 * failed_rows, input_errors, internal_errors, interrupted, seconds. */
STP_API stp_status stp_batch_summary_json(const stp_batch_summary *s, stp_record **out,
                                          stp_error *err);

/* A Monte Carlo run (streamtp simulate --json): file, name, model, law,
 * laws (of every column), associated, resource_law, nbue, simulation,
 * bounds (with position and relative), exact_law (when computed), the
 * times, status, error. */
STP_API stp_status stp_sim_result_json(const stp_mapping *m, const stp_sim_result *r,
                                       stp_record **out, stp_error *err);

/* A generated experiment written to a directory (streamtp generate --json):
 * directory, prefix, count, written, unchanged, files (their paths). */
struct stp_generate_files_result;
STP_API stp_status stp_generate_files_json(const struct stp_generate_files_result *r,
                                           stp_record **out, stp_error *err);

/* The answer of the optimiser (streamtp optimize --json): file, name, model,
 * mapping (the teams by name), objective, value, optimal, upper_bound,
 * gap, evaluated, nodes, skipped, method, seconds, start, constructive,
 * interrupted, timed_out, note, then the evaluation's replication, paths,
 * deterministic, exponential, bounds, components; status, error. */
struct stp_optimize_result;
STP_API stp_status stp_optimize_result_json(const struct stp_optimize_result *res,
                                            stp_record **out, stp_error *err);

/* ---- the event graph of a mapping ------------------------------------------------------
 * The size of a mapping's full timed event graph (streamtp teg --json,
 * kind "teg"): file, name, model, replication, paths, rows, columns,
 * transitions, places, tokens, seconds (those of t, from
 * stp_mapping_teg_summary). */
STP_API stp_status stp_teg_json(const stp_mapping *m, const stp_teg_summary *t,
                                stp_record **out, stp_error *err);

/* One Markov chain of a mapping (streamtp ctmc --json, kind "ctmc"): file,
 * name, model, component (null under Strict; else also stage, g, u, v),
 * states, moves, seconds_build, and when solved (sol not NULL) levels,
 * solver, sweeps, residual, seconds_solve, rate, throughput, period; then
 * seconds, and iterations (the old name of sweeps) when solved.  c and
 * about: as stp_mapping_chain made them; the text report begins with the
 * chain's description. */
STP_API stp_status stp_chain_json(const stp_mapping *m, const stp_chain *c,
                                  const stp_chain_about *about, const stp_chain_solution *sol,
                                  stp_record **out, stp_error *err);
/* The same of a chain solved across MPI ranks
 * (stp_mapping_chain_solve_distributed: its counts, about and solution;
 * "levels" null); description: the text report's first line. */
STP_API stp_status stp_chain_distributed_json(const stp_mapping *m, const char *description,
                                              int64_t states, int64_t moves,
                                              double seconds_build, const stp_chain_about *about,
                                              const stp_chain_solution *sol, stp_record **out,
                                              stp_error *err);

/* ---- graph ----------------------------------------------------------------------------
 * The analysis of a graph file (streamtp graph --json, kind "graph"): file,
 * name, transitions, mode, deterministic, exponential, exact_law (when
 * asked), bounds, simulation (sim and sr given), seconds, status, error;
 * law: the law asked (NULL: exp), which names exact_law and the
 * simulation; its own "limits": max_states and max_memory (of opt), seed
 * (a simulation).  The text report also shows the places and tokens of g. */
STP_API stp_status stp_graph_result_json(const char *file, const stp_graph *g,
                                         const stp_graph_options *opt, const stp_graph_result *r,
                                         const stp_law *law, const stp_graph_sim_options *sim,
                                         const stp_graph_sim_result *sr, double seconds,
                                         stp_record **out, stp_error *err);
/* The record of a graph file that failed (kind "graph"): file, name (of g,
 * when it could be read; NULL otherwise: null), status, error. */
STP_API stp_status stp_graph_error_json(const char *file, const stp_graph *g,
                                        const stp_error *failure, stp_record **out,
                                        stp_error *err);

/* ---- reduce -------------------------------------------------------------------------
 * The k-th n of a run of reduction trees (streamtp reduce --json): n, d, c,
 * tree, algorithm, K, children and transfer_starts (unless left out),
 * deterministic (makespan, critical_path when the DAG was analysed),
 * exponential, exact_law (a law asked), bounds, opt_bounds, length_bound,
 * simulation (with position and relative), seconds, status, error; its own
 * "limits": max_states, max_memory, seed (a simulation).  STP_EINVAL when
 * k >= r->count. */
struct stp_reduce_result;
STP_API stp_status stp_reduce_json(const struct stp_reduce_result *r, size_t k,
                                   stp_record **out, stp_error *err);

/* ---- redistribute ------------------------------------------------------------------
 * The k-th strategy of a redistribution (streamtp redistribute --json): P,
 * Q, r, s, L, g, M, alpha, beta, grid, messages, ns_opt, strategy, steps,
 * ns, tc, deterministic, exponential, bounds, exact_law (a law asked),
 * max_steps and search (optimal), simulation, seconds, status, error; its
 * own "limits": max_memory, seed (a simulation), max_steps, max_nodes,
 * max_work.  STP_EINVAL when k >= r->count. */
struct stp_redist_result;
STP_API stp_status stp_redist_json(const struct stp_redist_result *r, size_t k,
                                   stp_record **out, stp_error *err);

/* ---- bcast ----------------------------------------------------------------------------
 * The k-th heuristic of a broadcast (streamtp bcast PLATFORM --json, kind
 * "bcast"): file, heuristic, root, T, sends, deterministic, exponential,
 * exact_law (a law asked), bounds, simulation (with its position), seconds,
 * status, error; its own "limits": max_states, max_memory, seed (a
 * simulation).  STP_EINVAL when k >= r->count.  The platform of r must
 * still be loaded. */
struct stp_bcast_result;
STP_API stp_status stp_bcast_json(const struct stp_bcast_result *r, size_t k, stp_record **out,
                                  stp_error *err);
/* Table 1 (streamtp bcast --model --json, kind "bcast-model"): P, L, g, k,
 * gs, g1, algorithms {name: {formula, dag}}, status, error; its own
 * "limits": max_memory. */
struct stp_bcast_model_result;
STP_API stp_status stp_bcast_model_json(const struct stp_bcast_model_result *r,
                                        stp_record **out, stp_error *err);
/* Lowekamp's clusters (streamtp bcast --partition --json, kind
 * "bcast-partition"): file, rho, sizes, clusters, status, error; its own
 * "limits": max_memory. */
struct stp_bcast_partition_result;
STP_API stp_status stp_bcast_partition_json(const struct stp_bcast_partition_result *r,
                                            stp_record **out, stp_error *err);

/* ---- sinks: a stream of records in one format ----------------------------------------
 * stp_sink_put returns the bytes to write for that record (for a table,
 * nothing until stp_sink_end, which aligns the columns); the caller writes
 * them whole.  Columns default to the kind's (eval's CSV: the columns of
 * batch; docs/format.md lists each). */
typedef enum {
  STP_FORMAT_TEXT = 0, /* the human report */
  STP_FORMAT_JSONL,    /* one JSON object per line */
  STP_FORMAT_CSV,      /* a header, then a line per record */
  STP_FORMAT_TABLE     /* aligned columns, after the last record */
} stp_format;
/* "text", "jsonl", "csv", "table"; parse: STP_EINVAL when unknown. */
STP_API const char *stp_format_name(stp_format f);
STP_API stp_status stp_format_parse(const char *s, stp_format *out);

typedef struct stp_sink stp_sink;
/* A sink of records of `kind` in format fmt; limits: the envelope of JSON
 * lines (may be NULL).  STP_EINVAL when the kind has no such format. */
STP_API stp_status stp_sink_new(const char *kind, stp_format fmt, const stp_run_limits *limits,
                                stp_sink **out, stp_error *err);
/* The columns (JSON paths) and optional labels of CSV and tables, instead
 * of the kind's: NULL-terminated, copied. */
STP_API stp_status stp_sink_columns(stp_sink *s, const char *const *columns,
                                    const char *const *labels, stp_error *err);
/* The CSV header line (empty for the other formats); the sink will not
 * write it again (a file appended to has one already). */
STP_API stp_status stp_sink_header(stp_sink *s, char **text, size_t *len, stp_error *err);
STP_API stp_status stp_sink_put(stp_sink *s, const stp_record *r, char **text, size_t *len,
                                stp_error *err);
STP_API stp_status stp_sink_end(stp_sink *s, char **text, size_t *len, stp_error *err);
STP_API void stp_sink_free(stp_sink *s);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_REPORT_H */
