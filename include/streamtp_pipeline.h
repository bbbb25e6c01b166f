/* streamtp_pipeline.h: the pipeline API of libstreamtp (mappings, their
 * evaluation, simulation and reading); streamtp.h brings in every public
 * header.
 *
 * libstreamtp computes the throughput of a linear streaming pipeline whose
 * stages are replicated on processors of a heterogeneous platform (round-robin
 * teams), under the Overlap or Strict execution model, when computation and
 * communication times are constant, exponential, or follow any other I.I.D.
 * law.  Data flows one way: file -> mapping -> event graph -> components ->
 * solver -> result.
 *
 * Conventions: every fallible function returns an stp_status and writes its
 * outputs through pointers; on failure nothing leaks, *out is NULL and the
 * stp_error passed by the caller holds a message with context.  The library
 * never prints, exits or aborts on bad input.  Free functions accept NULL.
 */
#ifndef STREAMTP_PIPELINE_H
#define STREAMTP_PIPELINE_H

#include "streamtp_base.h"
#include "streamtp_chain.h"
#include "streamtp_graph.h"
#include "streamtp_law.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- execution models --------------------------------------------------- */
typedef enum { STP_MODEL_OVERLAP = 0, STP_MODEL_STRICT = 1 } stp_model;
STP_API const char *stp_model_name(stp_model m);                   /* "overlap" */
STP_API stp_status stp_model_parse(const char *s, stp_model *out); /* EINVAL if unknown */

/* ---- mappings ------------------------------------------------------------- */
typedef struct stp_mapping stp_mapping;

/* Read a mapping file (docs/format.md).  Errors name the file, line and column.
 * path "-" reads standard input to its end (named "<stdin>" in messages). */
STP_API stp_status stp_mapping_load_file(const char *path, stp_mapping **out, stp_error *err);
/* Same from memory; label names the input in messages and is the default name. */
STP_API stp_status stp_mapping_load_string(const char *text, size_t len, const char *label,
                                   stp_mapping **out, stp_error *err);
STP_API void stp_mapping_free(stp_mapping *m);

STP_API const char *stp_mapping_name(const stp_mapping *m);
STP_API const char *stp_mapping_file(const stp_mapping *m); /* label given at load time */
STP_API stp_model stp_mapping_model(const stp_mapping *m);  /* the file's "model" */
STP_API size_t stp_mapping_stage_count(const stp_mapping *m);
STP_API size_t stp_mapping_processor_count(const stp_mapping *m);
STP_API const char *stp_mapping_stage_name(const stp_mapping *m, size_t i);
STP_API const char *stp_mapping_processor_name(const stp_mapping *m, size_t p);
STP_API size_t stp_mapping_team_size(const stp_mapping *m, size_t i);
/* Processor index of team_i[k]. */
STP_API size_t stp_mapping_team_member(const stp_mapping *m, size_t i, size_t k);
/* Number of paths R = lcm of the team sizes; STP_ELIMIT when it exceeds 2^64. */
STP_API stp_status stp_mapping_paths(const stp_mapping *m, uint64_t *out, stp_error *err);

/* ---- results -------------------------------------------------------------- */
typedef enum { STP_COMPONENT_COMPUTE = 0, STP_COMPONENT_TRANSFER = 1 } stp_component_kind;

/* One independent component of the Overlap event graph (docs/design.md 4). */
typedef struct stp_component_result {
  stp_component_kind kind;
  size_t stage;       /* computed stage, or sending stage of the transfer */
  size_t index;       /* j in 0..g-1 */
  size_t g, u, v;     /* copies and folded pattern size (1, 1 for computations) */
  size_t *senders;    /* u processor indices (the processor for computations) */
  size_t *receivers;  /* v processor indices (NULL for computations) */
  double det_throughput;  /* bound on the data set rate from this component */
  double exp_throughput;  /* same with exponential times; NaN when not computed */
  const char *exp_method; /* "closed-form", "ctmc", or NULL */
  uint64_t states;        /* Markov chain states solved (0 for closed forms) */
  double residual;        /* scaled residual of that solve (0 when none) */
  int limits_det, limits_exp; /* 1 when this component attains the minimum */
  double law_throughput;  /* with the phase-type law of stp_result.exact_law; NaN when not computed */
} stp_component_result;

/* The exact throughput when the times follow phase-type laws (exp, erlang,
 * hyperexp, coxian, ph; docs/design.md, "Phase-type laws") with the
 * mapping's means: the law of each column is the file's "laws" entry for
 * it, else the options' law, else the file's default, else exp. */
typedef struct stp_law_result {
  int asked;              /* 0: no law given (neither options nor file): the rest is empty */
  int available;          /* 1: throughput holds; 0: see reason */
  char *law;              /* the default law's spec */
  size_t ncolumns;        /* 2N - 1 */
  char **column_law;      /* the law of each column of the event graph */
  double throughput, period;
  char *method;           /* "closed-form", "ctmc", "closed-form+ctmc" */
  uint64_t states;        /* largest chain solved: markings with the phases */
  double residual;        /* largest scaled residual of the solves */
  const char *solver;     /* stationary solver of the largest chain, or NULL */
  size_t sweeps;          /* its sweeps (0: direct solver or no chain) */
  char *reason;           /* why the value is missing, else NULL */
  stp_limit limit;        /* the limit it is beyond, if that is why (streamtp_base.h) */
  int fitted;             /* 1: the default law is a fit (ph:fit=FILE), of quality fit */
  stp_law_fit fit;
  const char *solver_reason; /* why `solver` ran (static string), NULL when no choice was
                                made (a chain with levels): docs/format.md, solver_reason */
} stp_law_result;

typedef struct stp_result {
  stp_model model;
  size_t nstages;
  size_t *replication;   /* team sizes R_i */
  uint64_t paths;        /* R = lcm(R_i); 0 when it exceeds 2^64 */
  /* deterministic (constant times) */
  double det_throughput;
  double det_period;
  double max_cycle_time;   /* M_ct */
  size_t ncritical;        /* resources attaining the period (0: no critical resource) */
  char **critical;         /* "P1 out", "P2 in", "P3" (computation), or a Strict processor */
  char *mct_resource;      /* resource attaining M_ct, whether or not it is critical */
  /* exponential times with the same means */
  int exp_available;       /* 0: see exp_reason */
  double exp_throughput;
  double exp_period;
  char *exp_method;        /* "closed-form", "ctmc", "closed-form+ctmc", ... */
  uint64_t exp_states;     /* largest chain solved (0: closed forms only) */
  double exp_residual;     /* largest scaled residual of the solves */
  const char *exp_solver;  /* stationary solver of the largest chain (static string), or NULL */
  size_t exp_sweeps;       /* its sweeps, Gauss-Seidel and BiCGSTAB (0: direct solver or no chain) */
  char *exp_reason;        /* why exp is unavailable, else NULL */
  stp_limit exp_limit;     /* the limit it is beyond, if that is why (streamtp_base.h) */
  /* N.B.U.E. bounds [lower, upper] (lower = exponential, upper = deterministic) */
  double lower, upper;
  /* Overlap components (ncomponents = 0 for Strict) */
  size_t ncomponents;
  stp_component_result *components;
  double seconds;          /* wall time of the evaluation */
  stp_law_result exact_law; /* under phase-type laws, when a law is given */
  /* Strict without a critical resource: the resources on the critical
   * cycles of the event graph (streamtp_explain.h, stp_critical_cycle_compute),
   * what limits such a mapping; else 0 and NULL */
  size_t ncycle_resources;
  char **cycle_resources;
  const char *exp_solver_reason; /* why exp_solver ran (static string), NULL when no choice
                                    was made (a chain with levels): docs/format.md */
} stp_result;

/* Evaluate a mapping under model `model`: deterministic throughput, M_ct,
 * critical resource, (unless exp_method is STP_EXP_NONE) the exponential
 * throughput and N.B.U.E. bounds, and, when opts->law is set or the file
 * has "laws", the exact throughput under those laws (exact_law; a law that
 * is not phase-type or a chain beyond the limits gives a reason, not an
 * error).  opts may be NULL for the defaults. */
STP_API stp_status stp_evaluate(const stp_mapping *m, stp_model model, const stp_options *opts,
                        stp_result **out, stp_error *err);
STP_API void stp_result_free(stp_result *r);

/* ---- looking inside: the event graph and its Markov chains ------------------ */
/* Size of the full event graph of m under model (DESIGN: R rows of 2N-1
 * transitions); STP_ELIMIT beyond max_transitions transitions.  model and
 * seconds (the time it took) say what the summary is of, for its record
 * (stp_teg_json, streamtp_report.h). */
typedef struct stp_teg_summary {
  uint64_t rows, columns, transitions, places, tokens;
  stp_model model;
  double seconds;
} stp_teg_summary;
STP_API stp_status stp_mapping_teg_summary(const stp_mapping *m, stp_model model,
                                           uint64_t max_transitions, stp_teg_summary *out,
                                           stp_error *err);
/* The full event graph in Graphviz dot format: one rank per column, rows in
 * order, one edge per place (red with its token count when marked). */
STP_API stp_status stp_mapping_write_dot(const stp_mapping *m, stp_model model,
                                         uint64_t max_transitions, FILE *f, stp_error *err);

/* The full event graph of m under model as a generic graph
 * (streamtp_graph.h), for `streamtp teg --graph-json` and any analysis of
 * streamtp_graph.h.  Transitions are named "r3:T2@P4" (row 3 computes stage
 * T2 on processor P4) and "r3:T2:P4->P7" (row 3 sends T2's output from P4
 * to P7); the last column of every row is marked as an output, so that the
 * graph's throughput is the mapping's.  STP_ELIMIT beyond
 * STP_GRAPH_MAX_TRANSITIONS transitions. */
STP_API stp_status stp_mapping_graph(const stp_mapping *m, stp_model model, stp_graph **out,
                                     stp_error *err);

/* What stp_mapping_chain built. */
typedef struct stp_chain_about {
  stp_model model;
  long component;      /* Overlap: the transfer component; Strict: -1 */
  size_t stage;        /* Overlap: its sending stage */
  size_t g, u, v;      /* Overlap: copies and pattern size */
} stp_chain_about;

/* One Markov chain of m with exponential times: under Overlap the folded
 * pattern of transfer component `component` (its index among the
 * components of stp_result, from 0), whose chain throughput is g x rate;
 * under Strict (component -1) the chain of the whole event graph.  Errors
 * name the transfer components when the index is missing or wrong; the
 * limits of opts apply (STP_ELIMIT beyond them). */
STP_API stp_status stp_mapping_chain(const stp_mapping *m, stp_model model, long component,
                                     const stp_options *opts, stp_chain **out,
                                     stp_chain_about *about, stp_error *err);

/* The chain stp_mapping_chain would build, solved across the ranks of an
 * MPI job without building it in one process (streamtp_distributed.h;
 * collective: every rank makes the same call): about and out as
 * stp_mapping_chain and stp_chain_solve fill them (out->levels 0), and
 * *states and *moves the chain's counts (moves back to their state
 * included), *seconds_build the wall time of its enumeration (out->seconds
 * that of the solve).  STP_EINVAL in a library built without PETSc. */
STP_API stp_status stp_mapping_chain_solve_distributed(const stp_mapping *m, stp_model model,
                                                       long component, const stp_options *opts,
                                                       stp_chain_about *about,
                                                       stp_chain_solution *out, int64_t *states,
                                                       int64_t *moves, double *seconds_build,
                                                       stp_error *err);

/* ---- Monte Carlo simulation (any I.I.D. law) -------------------------------- */
typedef struct stp_sim_options {
  const stp_law *law;          /* default law; NULL: the file's "laws" default, else exp */
  const stp_law *resource_law; /* associated case: speed/bandwidth factor; NULL: det */
  int associated;              /* 0: independent times; 1: associated (paper 2.4) */
  uint64_t datasets;           /* data sets measured after warm-up, in total */
  uint64_t warmup;             /* data sets discarded per run; STP_SIM_AUTO: 1/10 of a run */
  uint32_t batches;            /* batch means over one run (when replications < 2) */
  uint32_t replications;       /* >= 2: independent runs instead of batch means */
  uint64_t seed;
  int bounds;                  /* 1: exact bounds from stp_evaluate (with `eval`) */
  stp_options eval;            /* the bounds' limits (eval.control stops them) */
  stp_control control;         /* cancel and progress of the runs */
  int utilization;             /* 1: the busy fraction of every resource (result's utilization) */
  int latency;                 /* 1: the steady-state latency under a throttled source */
  double source_rate;          /* latency: data sets released per time unit, below the
                                  throughput; 0: 0.95 x the simulated throughput */
} stp_sim_options;

#define STP_SIM_AUTO UINT64_MAX
STP_API void stp_sim_options_init(stp_sim_options *o); /* 1e6 data sets, 20 batches, seed 1 */

/* The steady-state latency of a data set (the start of its first
 * computation to the end of its last) when the source releases one data
 * set every 1 / rate time units (a deterministic source), measured over
 * the same data sets and groups as the throughput. */
typedef struct stp_sim_latency {
  double rate;              /* data sets released per time unit */
  int rate_given;           /* 1: stp_sim_options.source_rate; 0: 0.95 x the throughput */
  double mean, ci_low, ci_high; /* 95% interval of the mean (Student over the groups) */
  double q50, q90, q99;     /* quantiles of the data sets' latencies */
  double throughput;        /* of the throttled run: the rate, to sampling error */
  uint64_t datasets;        /* latencies measured */
} stp_sim_latency;

struct stp_utilization;    /* streamtp_explain.h */
struct stp_latency_result; /* streamtp_explain.h */

typedef struct stp_sim_result {
  stp_model model;
  double throughput, period;
  double ci_low, ci_high;    /* 95% confidence interval of the throughput */
  double stddev;             /* of the batch (or replication) throughputs */
  uint32_t groups;           /* batches, or replications */
  int replicated;            /* 1: groups are independent replications */
  uint64_t datasets;         /* measured (rounded down to a multiple of groups) */
  uint64_t warmup;           /* discarded per run */
  uint64_t simulated;        /* all data sets simulated, warm-up included */
  uint64_t firings;          /* transitions fired (one per column and data set) */
  uint64_t seed;
  int associated;
  char *law;                 /* default law spec */
  char *resource_law;        /* associated case, else NULL */
  size_t ncolumns;           /* 2N - 1 */
  char **column_law;         /* effective law spec of each column of the event graph */
  int nbue;                  /* 1 all laws N.B.U.E., 0 some are not, -1 unknown */
  /* exact bounds [lower = exponential, upper = deterministic]; NaN when unknown */
  double lower, upper;
  char *bounds_reason;       /* why a bound is missing, else NULL */
  stp_limit bounds_limit;    /* the limit it is beyond, if that is why (streamtp_base.h) */
  const char *position;      /* "below", "within", "above" the bounds (95%), or "unknown" */
  double relative;           /* (throughput - lower) / (upper - lower), NaN when unknown */
  double seconds;            /* simulation wall time (bounds excluded) */
  double cpu_seconds;        /* its CPU time: firings / cpu_seconds is the rate per core */
  double bounds_seconds;
  /* With the bounds, when the laws are phase-type and the times
   * independent: the exact throughput under the same laws (stp_result's
   * exact_law), to compare with the interval; NaN when not computed. */
  double law_exact;
  uint64_t law_states;     /* its largest chain */
  /* opts->utilization: eval's items (stp_utilization_compute, from the
   * bounds above) with the simulated busy fractions (sim, sim_low,
   * sim_high); else NULL. */
  struct stp_utilization *utilization;
  /* opts->latency: the deterministic latency (stp_latency_compute) and the
   * simulated one (sim_latency); else NULL. */
  struct stp_latency_result *latency;
  stp_sim_latency sim_latency;
} stp_sim_result;

/* Simulate the event graph of m under `model` with random firing times and
 * estimate the throughput with a confidence interval.  Memory does not
 * depend on the number of paths or of data sets; time is linear in
 * datasets x (2N - 1).  Same seed, same result.  opts may be NULL.
 * Errors: EINVAL (fewer than 2 groups, fewer data sets than groups),
 * ELIMIT (more than 2^24 link times between two teams, 2^64 firings),
 * EINTERRUPTED, ENOMEM.  Missing bounds are not errors (bounds_reason).
 * opts->utilization observes the same run (the throughput does not
 * change); opts->latency adds a second run with the source throttled,
 * EINVAL when the rate is not below the simulated throughput (a saturated
 * source lets data sets pile up: the latency grows without bound), ELIMIT
 * beyond 2^27 data sets (a latency is kept per data set for the
 * quantiles). */
STP_API stp_status stp_simulate(const stp_mapping *m, stp_model model, const stp_sim_options *opts,
                        stp_sim_result **out, stp_error *err);
STP_API void stp_sim_result_free(stp_sim_result *r);

/* The law of the period, not only its mean: one run of m under `model`
 * with the laws, associated case and seed of opts (the rest of opts is not
 * used; opts->warmup STP_SIM_AUTO: n/10 data sets discarded first), and
 * out[k] = C(w+k+1) - C(w+k), the time between the in-order completions of
 * consecutive data sets (>= 0; its mean over a long run is the period).
 * out holds n doubles.  Errors as stp_simulate. */
STP_API stp_status stp_simulate_intervals(const stp_mapping *m, stp_model model,
                                          const stp_sim_options *opts, uint64_t n, double *out,
                                          stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_PIPELINE_H */
