/* streamtp_bcast.h: broadcast on a grid of clusters (Steffenel 2006,
 * inria-00116897).  A platform file gives clusters (size, pLogP latency L and
 * gap g) and the inter-cluster L and g matrices; a heuristic orders the
 * sends between cluster coordinators; each cluster then broadcasts inside
 * (binomial, flat or chain tree).  The schedule compiles into the generic
 * event graph (streamtp_graph.h) for its exact exponential makespan, its
 * N.B.U.E. interval and Monte Carlo.  Also: the paper's Table 1 (printed
 * formulas against the (max,+) value of each intra-cluster tree) and
 * Lowekamp's partition of a latency matrix into clusters.  The file format
 * and the `bcast` command: docs/format.md; the model: docs/design.md. */
#ifndef STREAMTP_BCAST_H
#define STREAMTP_BCAST_H

#include "streamtp_base.h"
#include "streamtp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits (stated in docs/format.md), those that a file within the readers'
 * 64 MiB can reach: a platform of C clusters holds two C x C matrices, at
 * least 4 C^2 bytes (61 MiB at 4000); a latency matrix of N machines at
 * least 2 N^2 (48 MiB at 5000). */
#define STP_BCAST_MAX_CLUSTERS 4000
#define STP_BCAST_MAX_MACHINES 5000 /* rows of a latency matrix */
#define STP_BCAST_MAX_CLUSTER_SIZE (UINT64_C(1) << 53) /* machines of one cluster */

/* ---- platforms ------------------------------------------------------------ */

typedef struct stp_bcast_platform stp_bcast_platform;

/* Read a platform file (JSON).  Errors name file:line:col. */
STP_API stp_status stp_bcast_platform_load_file(const char *path, stp_bcast_platform **out,
                                                stp_error *err);
STP_API stp_status stp_bcast_platform_load_string(const char *text, size_t len,
                                                  const char *label, stp_bcast_platform **out,
                                                  stp_error *err);
STP_API void stp_bcast_platform_free(stp_bcast_platform *p);

STP_API const char *stp_bcast_platform_file(const stp_bcast_platform *p);
STP_API size_t stp_bcast_cluster_count(const stp_bcast_platform *p);
STP_API const char *stp_bcast_cluster_name(const stp_bcast_platform *p, size_t j);
STP_API uint64_t stp_bcast_cluster_size(const stp_bcast_platform *p, size_t j);
/* Index of the cluster called `name`; STP_EINVAL (naming it) when none. */
STP_API stp_status stp_bcast_cluster_find(const stp_bcast_platform *p, const char *name,
                                          size_t *j, stp_error *err);
/* 1 when some g depends on the message size ({"g0", "per_byte"}). */
STP_API int stp_bcast_platform_needs_size(const stp_bcast_platform *p);

/* ---- schedules -------------------------------------------------------------- */

typedef enum {
  STP_BCAST_FLAT = 0,
  STP_BCAST_FEF,
  STP_BCAST_ECEF,
  STP_BCAST_ECEF_LA,
  STP_BCAST_ECEF_LAT,     /* the paper's ECEF-LAt: min lookahead */
  STP_BCAST_ECEF_LAT_MAX, /* the paper's ECEF-LAT: max lookahead */
  STP_BCAST_BOTTOMUP,
  STP_BCAST_HEURISTIC_COUNT
} stp_bcast_heuristic;

/* "flat", "fef", "ecef", "ecef-la", "ecef-lat", "ecef-lat-max", "bottomup". */
STP_API const char *stp_bcast_heuristic_name(stp_bcast_heuristic h);
STP_API stp_status stp_bcast_heuristic_parse(const char *s, stp_bcast_heuristic *h);

typedef enum { STP_BCAST_INTRA_BINOMIAL = 0, STP_BCAST_INTRA_FLAT, STP_BCAST_INTRA_CHAIN } stp_bcast_intra;
STP_API const char *stp_bcast_intra_name(stp_bcast_intra a);
STP_API stp_status stp_bcast_intra_parse(const char *s, stp_bcast_intra *a);

/* Intra-cluster broadcast time of n machines with latency L and gap g:
 * binomial ceil(log2 n) g + floor(log2 n) L, flat L + (n-1) g, chain
 * (n-1)(g + L); 0 when n = 1. */
STP_API double stp_bcast_intra_time(stp_bcast_intra a, uint64_t n, double L, double g);

typedef struct stp_bcast_options {
  double size;           /* message size in bytes (used by affine gaps) */
  int has_size;          /* 0: no --size; refused when some g needs it */
  size_t root;           /* SIZE_MAX: the first cluster */
  stp_bcast_intra intra; /* intra-cluster algorithm */
  stp_control control;   /* cancel and progress of the heuristics (stp_control) */
} stp_bcast_options;
STP_API void stp_bcast_options_init(stp_bcast_options *o);

typedef struct stp_bcast_send {
  size_t from, to;       /* cluster indices */
  double start, arrival; /* the send holds `from` g, then the message lands L later */
} stp_bcast_send;

typedef struct stp_bcast_schedule {
  stp_bcast_heuristic heuristic;
  size_t root, nclusters;
  double *T;             /* [nclusters] intra-cluster broadcast times */
  double *ready;         /* [nclusters] final RT_j: after j's last send */
  stp_bcast_send *sends; /* [nclusters - 1] in round order */
  double makespan;       /* max_j (ready_j + T_j) */
} stp_bcast_schedule;

/* Run heuristic h on the platform.  STP_EINVAL when the root is unknown or
 * a gap needs the size and o->has_size is 0.  Time O(C^3) for C clusters
 * (the lookahead heuristics), O(C^2) for the others. */
STP_API stp_status stp_bcast_schedule_compute(const stp_bcast_platform *p,
                                              const stp_bcast_options *o, stp_bcast_heuristic h,
                                              stp_bcast_schedule *out, stp_error *err);
STP_API void stp_bcast_schedule_free(stp_bcast_schedule *s);

/* The schedule as an activity DAG: send S_i_j (time g_ij) chained on i in
 * send order, delay D_i_j (time L_ij) after it, activity T_j after j's last
 * send (or its arrival; the root's at time 0).  Zero times are omitted (their
 * successors wait on their predecessor instead).  *out is NULL when every
 * time is zero (makespan 0). */
STP_API stp_status stp_bcast_schedule_graph(const stp_bcast_platform *p,
                                            const stp_bcast_options *o,
                                            const stp_bcast_schedule *s, stp_graph **out,
                                            stp_error *err);

/* The graph's analyses (stp_graph_analyze): deterministic makespan (= the
 * schedule's), exact E[makespan] with exponential times, the N.B.U.E.
 * interval.  With every time zero: 0 everywhere, one state. */
STP_API stp_status stp_bcast_schedule_analyze(const stp_bcast_platform *p,
                                              const stp_bcast_options *o,
                                              const stp_bcast_schedule *s,
                                              const stp_graph_options *go, stp_graph_result *r,
                                              stp_error *err);
/* Monte Carlo of the graph (stp_graph_simulate), any law. */
STP_API stp_status stp_bcast_schedule_simulate(const stp_bcast_platform *p,
                                               const stp_bcast_options *o,
                                               const stp_bcast_schedule *s,
                                               const stp_graph_sim_options *so,
                                               stp_graph_sim_result *r, stp_error *err);

/* ---- Table 1: intra-cluster models --------------------------------------------- */

typedef enum {
  STP_BCAST_ALG_FLAT = 0,
  STP_BCAST_ALG_FLAT_RDV,
  STP_BCAST_ALG_SEG_FLAT,
  STP_BCAST_ALG_CHAIN,
  STP_BCAST_ALG_CHAIN_RDV,
  STP_BCAST_ALG_SEG_CHAIN,
  STP_BCAST_ALG_BINARY,
  STP_BCAST_ALG_BINOMIAL,
  STP_BCAST_ALG_BINOMIAL_RDV,
  STP_BCAST_ALG_SEG_BINOMIAL,
  STP_BCAST_ALG_SCATTER_COLLECT,
  STP_BCAST_ALG_COUNT
} stp_bcast_alg;

STP_API const char *stp_bcast_alg_name(stp_bcast_alg a);

typedef struct stp_bcast_model_params {
  uint64_t P; /* processes, >= 2 */
  double L;   /* latency */
  double g;   /* gap of the whole message g(m) */
  uint64_t k; /* segments, >= 1 */
  double gs;  /* gap of one segment g(s) */
  double g1;  /* gap of a 1-byte message g(1) (rendez-vous) */
} stp_bcast_model_params;

/* Table 1 as printed (binary tree: its upper bound). */
STP_API double stp_bcast_model_formula(stp_bcast_alg a, const stp_bcast_model_params *q);
/* The (max,+) makespan of the algorithm's tree, where a send holds the
 * sender g (gs per segment) and lands L after it ends, and a process
 * forwards what it has fully received: flat, seg-flat, chain, seg-chain and
 * binomial (MPICH, largest subtree first); NaN for the other algorithms.
 * Time and memory O(P k); STP_ELIMIT when P k exceeds 10^7. */
STP_API stp_status stp_bcast_model_dag(stp_bcast_alg a, const stp_bcast_model_params *q,
                                       double *out, stp_error *err);

/* ---- Lowekamp's partition --------------------------------------------------------- */

typedef struct stp_bcast_partition {
  size_t n;          /* machines */
  size_t nclusters;
  size_t *sizes;     /* [nclusters], nonincreasing */
  size_t *offsets;   /* [nclusters + 1]: cluster c is nodes[offsets[c] .. offsets[c+1]) */
  size_t *nodes;     /* [n] 0-based machine indices, ascending within a cluster */
} stp_bcast_partition;

/* A latency matrix from a CSV file: N rows of N numbers, finite, >= 0,
 * symmetric (the diagonal is ignored).  Errors name file:line:col. */
STP_API stp_status stp_bcast_latency_load_file(const char *path, double **w, size_t *n,
                                               stp_error *err);
STP_API stp_status stp_bcast_latency_load_string(const char *text, size_t len, const char *label,
                                                 double **w, size_t *n, stp_error *err);
/* Lowekamp's Algorithm 1 with factor 1 + rho on the n x n matrix w (row
 * major).  Time O(n^2 log n). */
STP_API stp_status stp_bcast_partition_compute(const double *w, size_t n, double rho,
                                               stp_bcast_partition *out, stp_error *err);
STP_API void stp_bcast_partition_free(stp_bcast_partition *p);

/* ---- the command: one call per mode (streamtp bcast, streamtp.bcast, ...) ----------- */

/* inter of stp_bcast_run_options besides one heuristic: all seven, in order. */
#define STP_BCAST_INTER_ALL (-1)

struct stp_bcast_result;
/* Called as each heuristic of a run is done, with its index k in the
 * result (its record: stp_bcast_json(r, k)).  Nonzero stops the run
 * (STP_EINTERRUPTED). */
typedef int (*stp_bcast_each)(const struct stp_bcast_result *r, size_t k, void *data);

typedef struct stp_bcast_run_options {
  double size;           /* message size in bytes (affine gaps) */
  int has_size;          /* 0: none; refused when some g needs it */
  size_t root;           /* SIZE_MAX: the file's root, else the first cluster */
  stp_bcast_intra intra; /* intra-cluster algorithm */
  int inter;             /* a stp_bcast_heuristic, or STP_BCAST_INTER_ALL */
  uint64_t max_states;   /* the exponential chain's cap; 0: STP_GRAPH_DEFAULT_MAX_STATES */
  /* The law of the times: the exact makespan under it when it is
   * phase-type (or when there is no simulation: else its reason), and the
   * law of the simulation (NULL: exp, no exact value). */
  const stp_law *law;
  uint64_t simulate;     /* Monte Carlo runs of each schedule's DAG; 0: none */
  uint64_t seed;         /* of the runs (default 1) */
  stp_bcast_each each;   /* may be NULL */
  void *each_data;
  stp_control control;   /* cancel, progress and memory budget of everything */
} stp_bcast_run_options;
STP_API void stp_bcast_run_options_init(stp_bcast_run_options *o);

/* One heuristic's schedule and its analyses. */
typedef struct stp_bcast_heuristic_result {
  stp_bcast_schedule schedule;
  stp_graph_result analysis; /* deterministic, exponential, bounds, exact law */
  int simulated;
  stp_graph_sim_result sim;
  double seconds;            /* wall time of this heuristic */
} stp_bcast_heuristic_result;

typedef struct stp_bcast_result {
  const stp_bcast_platform *platform; /* borrowed: it must outlive the result */
  stp_bcast_run_options options;      /* as run, law NULL (see law) */
  char *law;                          /* the law's spec, or NULL */
  size_t count;                       /* heuristics done, in the order run */
  stp_bcast_heuristic_result *heuristics;
} stp_bcast_result;

/* Everything `streamtp bcast PLATFORM` computes: each heuristic asked for,
 * its schedule, the analyses of its DAG and its Monte Carlo.  Checks first
 * (the size when a gap needs it, the root, the heuristic): *out is NULL
 * when one fails.  A heuristic that fails (beyond the memory budget, an
 * interrupt) stops the run with its error, prefixed with its name, *out
 * holding the heuristics done before it: the caller frees *out in every
 * case. */
STP_API stp_status stp_bcast_run(const stp_bcast_platform *p, const stp_bcast_run_options *o,
                                 stp_bcast_result **out, stp_error *err);
STP_API void stp_bcast_result_free(stp_bcast_result *r);
/* r->count, for bindings that do not read the structure. */
STP_API size_t stp_bcast_result_count(const stp_bcast_result *r);

/* --model: Table 1 as printed and the (max,+) value of each algorithm. */
typedef struct stp_bcast_model_options {
  stp_bcast_model_params params;
  stp_control control;   /* cancel between the algorithms, memory budget of the trees */
} stp_bcast_model_options;

typedef struct stp_bcast_model_result {
  stp_bcast_model_params params;
  double formula[STP_BCAST_ALG_COUNT]; /* stp_bcast_model_formula */
  double dag[STP_BCAST_ALG_COUNT];     /* stp_bcast_model_dag (NaN: no tree) */
  uint64_t max_memory;                 /* the budget it ran under */
} stp_bcast_model_result;

STP_API stp_status stp_bcast_model_run(const stp_bcast_model_options *o,
                                       stp_bcast_model_result **out, stp_error *err);
STP_API void stp_bcast_model_result_free(stp_bcast_model_result *r);

/* --partition: Lowekamp's clusters of a latency matrix read from a CSV
 * file, or from text (then named `file`). */
typedef struct stp_bcast_partition_options {
  const char *file;      /* the CSV file, or the name of text */
  const char *text;      /* NULL: read file */
  size_t len;            /* of text */
  double rho;            /* the tolerance, >= 0 */
  stp_control control;   /* memory budget of the matrix's edges, cancel */
} stp_bcast_partition_options;

typedef struct stp_bcast_partition_result {
  char *file;
  double rho;
  stp_bcast_partition partition;
  uint64_t max_memory;   /* the budget it ran under */
} stp_bcast_partition_result;

STP_API stp_status stp_bcast_partition_run(const stp_bcast_partition_options *o,
                                           stp_bcast_partition_result **out, stp_error *err);
STP_API void stp_bcast_partition_result_free(stp_bcast_partition_result *r);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_BCAST_H */
