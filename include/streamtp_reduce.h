/* streamtp_reduce.h: reduction trees of Canon and Antoniu (INRIA RR-7898):
 * n elements on n machines are combined by an associative operator; a
 * transfer costs d, a reduction c, and a machine sends, receives and
 * computes at once (one transfer at a time).  The library builds the
 * paper's trees (Algorithm 1, the binomial and Fibonacci strategies,
 * Algorithm 2 with at most K concurrent transfers, Algorithm 3 with at most
 * K reducers), schedules them with fixed reception orders, and compiles the
 * schedule into the generic activity DAG of streamtp_graph.h, where every
 * analysis (exact exponential makespan, Monte Carlo) comes from.  The
 * model and its errata: docs/design.md; the `reduce` command: docs/format.md.
 *
 * Machines are numbered 1..n as in the paper; machine 1 is the sink.
 */
#ifndef STREAMTP_REDUCE_H
#define STREAMTP_REDUCE_H

#include "streamtp_base.h"
#include "streamtp_graph.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest n accepted.  Memory: the tree and its schedule take about
 * STP_REDUCE_BYTES_PER_MACHINE per machine (measured: 88), checked against
 * spec.control's budget before building; the DAG of stp_reduce_graph about
 * stp_graph_memory_estimate(2(n - 1), 3(n - 1), ...) more. */
#define STP_REDUCE_MAX_N UINT64_C(100000000)
#define STP_REDUCE_BYTES_PER_MACHINE 96

typedef enum {
  STP_REDUCE_OPTIMAL = 0, /* Algorithm 1 with the real (d, c) */
  STP_REDUCE_BINOMIAL,    /* Algorithm 1 with (max(d, c), 0) */
  STP_REDUCE_FIBONACCI    /* Algorithm 1 with (1, 1) */
} stp_reduce_tree;

typedef enum {
  STP_REDUCE_ALG1 = 1, /* no limit */
  STP_REDUCE_ALG2 = 2, /* at most K concurrent transfers (optimal tree only) */
  STP_REDUCE_ALG3 = 3  /* at most K reducers */
} stp_reduce_algorithm;

typedef struct stp_reduce_spec {
  uint64_t n;                     /* machines, 1 <= n <= STP_REDUCE_MAX_N */
  double d, c;                    /* transfer and reduction times: >= 0, d + c > 0 */
  stp_reduce_tree tree;
  stp_reduce_algorithm algorithm;
  uint64_t K;                     /* the limit of Algorithms 2 and 3 (>= 1); else ignored */
  /* Not part of the problem: how its builds run (cancel, memory budget of
   * the tree and its schedule; stp_control).  Zero: the defaults. */
  stp_control control;
} stp_reduce_spec;

/* Algorithm 1 with no limit, the optimal tree. */
STP_API void stp_reduce_spec_init(stp_reduce_spec *s, uint64_t n, double d, double c);
/* "optimal", "binomial", "fibonacci"; "alg1", "alg2", "alg3". */
STP_API const char *stp_reduce_tree_name(stp_reduce_tree t);
STP_API const char *stp_reduce_algorithm_name(stp_reduce_algorithm a);
STP_API stp_status stp_reduce_tree_parse(const char *s, stp_reduce_tree *out);

/* A built tree and its schedule. */
typedef struct stp_reduce stp_reduce;

/* Builds the tree of spec and schedules it.  Errors: STP_EINVAL (n = 0,
 * d or c negative, not finite or both zero, K = 0 for Algorithms 2 and 3,
 * Algorithm 2 with a tree other than optimal), STP_ELIMIT (n too large),
 * STP_ENOMEM.  Time O(n log n), memory O(n). */
STP_API stp_status stp_reduce_build(const stp_reduce_spec *spec, stp_reduce **out,
                                    stp_error *err);
STP_API void stp_reduce_free(stp_reduce *r);

STP_API const stp_reduce_spec *stp_reduce_get_spec(const stp_reduce *r);
/* c_i, the machine that i sends to, for i = 2..n (0 for i = 1). */
STP_API uint64_t stp_reduce_child(const stp_reduce *r, uint64_t i);
/* t_i, the earliest start of the transfer of i (Algorithm 2: t_n - t_i of
 * the algorithm), for i = 2..n (NaN for i = 1). */
STP_API double stp_reduce_transfer_start(const stp_reduce *r, uint64_t i);
/* The machines that send to u, in the order u receives them (increasing
 * time at which the sender is ready; ties: larger index first). */
STP_API uint64_t stp_reduce_reception_count(const stp_reduce *r, uint64_t u);
STP_API uint64_t stp_reduce_reception(const stp_reduce *r, uint64_t u, uint64_t k);
/* The deterministic makespan: the longest path of the schedule's DAG
 * (Algorithm 2: the algorithm's own length, max_i t_i). */
STP_API double stp_reduce_makespan(const stp_reduce *r);

/* A lower bound of the order ideals of stp_reduce_graph's DAG (its
 * exponential chain's states), without building it: with d, c > 0 the
 * transfers that start together in the schedule are independent and every
 * predecessor starts earlier, so each group of w such transfers adds
 * 2^w - 1 ideals (saturating at UINT64_MAX); at least 2(n - 1) + 1 in any
 * case.  What a caller compares with max_states before building the DAG
 * of each n of a range.  Time O(n log n). */
STP_API uint64_t stp_reduce_ideals_lower(const stp_reduce *r);

/* The activity DAG of the schedule (Algorithms 1 and 3): transitions
 * X<v> (transfer v -> c_v, time d) for v = 2..n, then C<u>.<k> (k-th
 * reduction at u, time c) by increasing u and k: 2(n-1) transitions.
 * Algorithm 2 has no such DAG (its transfer limit is not a fixed order):
 * STP_EINVAL with the reason. */
STP_API stp_status stp_reduce_graph(const stp_reduce *r, stp_graph **out, stp_error *err);

/* Deterministic makespans of every n = 1..N at once.  Every algorithm adds
 * machines one at a time, so the tree of n is the tree of N restricted to
 * 1..n; the sweep builds the tree of N once and updates the schedule as
 * each machine joins (only the path from its child to the sink changes),
 * instead of n independent builds.  spec->n is N.  Time O(N log N) for the
 * tree plus, per machine, the degrees along the path it changes. */
typedef struct stp_reduce_sweep stp_reduce_sweep;
STP_API stp_status stp_reduce_sweep_new(const stp_reduce_spec *spec, stp_reduce_sweep **out,
                                        stp_error *err);
/* Adds the next machine (the first call gives n = 1) and returns its n and
 * the makespan of machines 1..n; 0 once n = N was returned. */
STP_API int stp_reduce_sweep_next(stp_reduce_sweep *s, uint64_t *n, double *makespan);
STP_API void stp_reduce_sweep_free(stp_reduce_sweep *s);

/* Bounds of the paper.  Lemma 5 and Proposition 6: ceil(log2 n) max(d, c)
 * <= OPT(n) <= ceil(log2 n) (d + c).  Length bound of the built schedule
 * (NaN for Algorithm 1 or when K > floor(n / 2)): Algorithm 2, corrected
 * Proposition 8, (floor(log2 K) + 1 + ceil((n - 2^(floor(log2 K) + 1)) / K))
 * (d + c); Algorithm 3, Corollary 11, (ceil(log2 K + 1) + ceil(n / K - 2)) (d + c).
 * NaN too for the binomial and Fibonacci trees: the paper's bounds hold for its
 * algorithms with the real (d, c), not for these trees (which can exceed them). */
STP_API double stp_reduce_opt_lower(uint64_t n, double d, double c);
STP_API double stp_reduce_opt_upper(uint64_t n, double d, double c);
STP_API double stp_reduce_length_bound(const stp_reduce_spec *spec);

/* The tree in Graphviz DOT: an edge v -> c_v labelled with v's transfer
 * start, the sink drawn as a double circle (streamtp reduce --dot). */
STP_API stp_status stp_reduce_write_dot(const stp_reduce *r, FILE *f, stp_error *err);

/* ---- the command: one call (streamtp reduce, streamtp.reduce) --------------------- */

struct stp_reduce_result;
/* Called as each n of a run is done, with its index k in the result (its
 * record: stp_reduce_json(r, k)): a caller writes it at once.  Nonzero
 * stops the run (STP_EINTERRUPTED). */
typedef int (*stp_reduce_each)(const struct stp_reduce_result *r, size_t k, void *data);

typedef struct stp_reduce_run_options {
  uint64_t n_first, n_last;       /* the n of the run: n_first..n_last (equal: one tree) */
  double d, c;                    /* as stp_reduce_spec */
  stp_reduce_tree tree;
  stp_reduce_algorithm algorithm;
  uint64_t K;
  int exponential;                /* 1 (default): the exact E[makespan], exponential times */
  uint64_t max_states;            /* its order ideals' cap; 0: STP_GRAPH_DEFAULT_MAX_STATES */
  /* The law of the times: the exact makespan under it when it is
   * phase-type (or when there is no simulation: else its reason), and the
   * law of the simulation (NULL: exp, no exact value). */
  const stp_law *law;
  uint64_t simulate;              /* Monte Carlo runs of each tree's DAG; 0: none */
  uint64_t seed;                  /* of the runs (default 1) */
  int brief;                      /* leave out children, transfer starts, critical path */
  stp_reduce_each each;           /* may be NULL */
  void *each_data;
  stp_control control;            /* cancel, progress and memory budget of everything */
} stp_reduce_run_options;
STP_API void stp_reduce_run_options_init(stp_reduce_run_options *o);

/* The values of one n. */
typedef struct stp_reduce_value {
  uint64_t n;
  double makespan;                /* deterministic */
  uint64_t *children;             /* [n - 1]: c_2..c_n; NULL when left out */
  double *starts;                 /* [n - 1]: t_2..t_n; NULL when left out */
  char **critical;                /* the critical path's activities (NULL: not analysed) */
  size_t critical_len;
  double exp_makespan;            /* NaN when missing: exp_reason says why */
  uint64_t exp_states;
  const char *exp_reason;
  int law_asked;
  double law_makespan;            /* NaN when missing: law_reason says why */
  uint64_t law_states;
  const char *law_reason;
  int simulated;
  stp_graph_sim_result sim;
  double seconds;                 /* wall time of this n */
  char *text;                     /* owned text the reasons may point into */
} stp_reduce_value;

typedef struct stp_reduce_result {
  stp_reduce_run_options options; /* as run, law NULL (see law) */
  char *law;                      /* the law's spec, or NULL */
  size_t count;                   /* n done: n_first .. n_first + count - 1 */
  stp_reduce_value *values;       /* [count], or NULL for a sweep: */
  double *makespans;              /* [count]: the makespans of a sweep (nothing else) */
  double *sweep_seconds;          /* [count]: a sweep's time for each n */
  const char *sweep_reason;       /* why a sweep has no exponential value */
} stp_reduce_result;

/* Everything `streamtp reduce` computes for each n of the range: the tree
 * and its schedule, the exact expected makespan with exponential times and
 * under a phase-type law, the paper's bounds, Monte Carlo.  A range
 * without arrays, exponential value, law or simulation is one incremental
 * sweep (stp_reduce_sweep).  Checks first (the specification, Algorithm
 * 2 without simulation, the memory of the arrays kept against the budget):
 * *out is NULL when one fails.  An n that fails (beyond the budget, an
 * interrupt) stops the run with its error, *out holding the n done before
 * it: the caller frees *out in every case. */
STP_API stp_status stp_reduce_run(const stp_reduce_run_options *o, stp_reduce_result **out,
                                  stp_error *err);
STP_API void stp_reduce_result_free(stp_reduce_result *r);
/* r->count, for bindings that do not read the structure. */
STP_API size_t stp_reduce_result_count(const stp_reduce_result *r);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_REDUCE_H */
