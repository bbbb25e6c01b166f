/* streamtp_graph.h: the generic event graph of libstreamtp, and every
 * analysis of it.  A graph has transitions (a name, a mean time, an optional
 * law) and places (from, to, tokens).  With no token anywhere it is an
 * activity DAG (one run: a makespan); with tokens it is a timed event graph
 * (a stream of runs: a throughput).  Every domain (pipeline mappings, graph
 * files, reduction trees, redistributions, broadcasts) compiles into this
 * one type; the analyses never know which domain they serve.  The model and
 * the methods: docs/design.md; the file format and the `graph` command:
 * docs/format.md.
 */
#ifndef STREAMTP_GRAPH_H
#define STREAMTP_GRAPH_H

#include <stdio.h>

#include "streamtp_base.h"
#include "streamtp_law.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size limits of one graph (checked by the builder, stated in docs). */
#define STP_GRAPH_MAX_TRANSITIONS UINT64_C(100000000)
#define STP_GRAPH_MAX_TOKENS UINT64_C(1000000000)
#define STP_GRAPH_DEFAULT_MAX_STATES UINT64_C(1000000)

typedef struct stp_graph stp_graph;

/* ---- building ------------------------------------------------------------- */

/* An empty graph named `name` (copied; NULL = ""). */
STP_API stp_status stp_graph_new(const char *name, stp_graph **out, stp_error *err);
STP_API void stp_graph_free(stp_graph *g);

/* Adds a transition; its index (0, 1, ... in order of addition) goes to
 * *index when index is not NULL.  name: unique, non-empty (copied).
 * time: finite, >= 0 (the mean of the law).  law: NULL = none (the
 * analyses' default applies); the graph takes ownership of it, also on
 * failure. */
STP_API stp_status stp_graph_add_transition(stp_graph *g, const char *name, double time,
                                            stp_law *law, size_t *index, stp_error *err);

/* Adds a place from transition `from` to transition `to` holding `tokens`
 * initial tokens (<= STP_GRAPH_MAX_TOKENS).  from == to is a self-loop. */
STP_API stp_status stp_graph_add_place(stp_graph *g, size_t from, size_t to, uint64_t tokens,
                                       stp_error *err);

/* Marks transition t as an output: each of its firings completes one run
 * (a data set).  A timed event graph's throughput counts completed runs:
 * (number of outputs) x the long-run firing rate, so that a graph of R
 * interleaved rows (a replicated pipeline) with its R last transitions
 * marked delivers the pipeline's own throughput.  With no output marked,
 * the throughput is the firing rate itself (one output).  Marking twice is
 * harmless. */
STP_API stp_status stp_graph_set_output(stp_graph *g, size_t t, stp_error *err);
/* Outputs marked (0: none, the throughput is the firing rate). */
STP_API size_t stp_graph_output_count(const stp_graph *g);
STP_API int stp_graph_transition_is_output(const stp_graph *g, size_t t);

/* Names the resource transition t occupies (a processor, a link, a
 * machine): Gantt charts draw one row per resource, a transition without
 * one in a row of its own.  Copied; transitions share a resource by name.
 * NULL or "": none.  The analyses ignore resources. */
STP_API stp_status stp_graph_set_resource(stp_graph *g, size_t t, const char *resource,
                                          stp_error *err);
/* Distinct resources, in order of first use, and the index of t's
 * (SIZE_MAX: none). */
STP_API size_t stp_graph_resource_count(const stp_graph *g);
STP_API const char *stp_graph_resource_name(const stp_graph *g, size_t r);
STP_API size_t stp_graph_transition_resource(const stp_graph *g, size_t t);

/* Checks what the analyses need: at least one transition; DAG mode (no
 * token): acyclic, else STP_EDEADLOCK naming a cycle's transitions;
 * TEG mode: every cycle holds a token (else STP_EDEADLOCK naming a
 * token-free cycle) and every time > 0.  The analyses call it too. */
STP_API stp_status stp_graph_check(const stp_graph *g, stp_error *err);

/* About the bytes a graph of `transitions` and `places` takes once built,
 * with the simulation kernel that stp_graph_simulate compiles from it when
 * `simulate` (measured on barrier schedules of 10^6 to 4 10^6 messages:
 * ~120 bytes per transition and ~30 per place, twice that with the
 * kernel): what a builder compares with a memory budget before it builds. */
STP_API double stp_graph_memory_estimate(uint64_t transitions, uint64_t places, int simulate);

/* ---- reading back ------------------------------------------------------------ */

STP_API const char *stp_graph_name(const stp_graph *g);
STP_API size_t stp_graph_transition_count(const stp_graph *g);
STP_API size_t stp_graph_place_count(const stp_graph *g);
STP_API const char *stp_graph_transition_name(const stp_graph *g, size_t t);
STP_API double stp_graph_transition_time(const stp_graph *g, size_t t);
STP_API const stp_law *stp_graph_transition_law(const stp_graph *g, size_t t); /* NULL: none */
STP_API void stp_graph_place(const stp_graph *g, size_t p, size_t *from, size_t *to,
                             uint64_t *tokens);
/* 1 when no place holds a token (DAG mode), 0 otherwise. */
STP_API int stp_graph_is_dag(const stp_graph *g);
/* Index of the transition called `name`; STP_EINVAL when there is none. */
STP_API stp_status stp_graph_find(const stp_graph *g, const char *name, size_t *t,
                                  stp_error *err);

/* ---- exact analyses ------------------------------------------------------------- */

typedef struct stp_graph_options {
  uint64_t max_states;      /* chain size cap; 0 = STP_GRAPH_DEFAULT_MAX_STATES */
  int exponential;          /* 1 = compute the exponential value, 0 = skip it */
  /* Cancel, progress, and the memory budget of the exponential chain (order
   * ideals or markings): beyond it the value is missing with a reason, as
   * beyond max_states. */
  stp_control control;
  /* The exact value under phase-type laws (docs/design.md, "Phase-type
   * laws"): the law of transitions without their own (NULL: exp).  It is
   * computed when law is set, or when some transitions have their own laws
   * and all of these are phase-type. */
  const stp_law *law;
  int distributed;          /* nonzero: the chains across MPI ranks (streamtp_distributed.h) */
} stp_graph_options;
STP_API void stp_graph_options_init(stp_graph_options *o);

typedef struct stp_graph_result {
  int is_dag;               /* 1: makespans; 0: throughputs */
  /* deterministic (every time constant) */
  double det_makespan;      /* DAG */
  double det_period;        /* TEG: 1 / det_throughput (the max cycle ratio
                               when at most one output is marked) */
  double det_throughput;    /* TEG: max(1, outputs) / max cycle ratio */
  size_t *critical;         /* DAG: critical path, source to sink; TEG:
                               critical cycle in firing order */
  size_t critical_len;
  /* exponential (every time exponential with its mean; 0 = instantaneous) */
  int exp_computed;         /* 1: exp_value holds; 0: see exp_reason */
  double exp_value;         /* DAG: E[makespan]; TEG: throughput (counted
                               like det_throughput) */
  uint64_t exp_states;      /* order ideals (DAG) or reachable markings (TEG,
                               the largest component's chain) */
  const char *exp_method;   /* "dag-ctmc" or "ctmc" */
  char exp_reason[256];     /* why exp_value is missing ("" when present) */
  stp_limit exp_limit;      /* the limit it is beyond, if that is why (streamtp_base.h) */
  /* N.B.U.E. interval: DAG [det, exp] on E[makespan]; TEG [exp, det] on
   * the throughput.  upper (DAG) / lower (TEG) is NaN when exp is missing. */
  double bound_lower, bound_upper;
  /* exact under the phase-type laws of the transitions (their own, else
   * stp_graph_options.law, else exp); law_asked 0: neither was given */
  int law_asked;
  int law_computed;         /* 1: law_value holds; 0: see law_reason */
  double law_value;         /* DAG: E[makespan]; TEG: throughput */
  uint64_t law_states;      /* states: ideals or markings with their phases */
  const char *law_method;   /* "dag-ctmc" or "ctmc" */
  const char *law_solver;   /* TEG: stationary solver of the largest chain; DAG: NULL */
  size_t law_sweeps;        /* its sweeps (0: direct, or DAG) */
  double law_residual;      /* its scaled residual (0: DAG, exact recursion) */
  char law_reason[256];     /* why law_value is missing ("" when present) */
  stp_limit law_limit;      /* the limit it is beyond, if that is why */
} stp_graph_result;

STP_API stp_status stp_graph_analyze(const stp_graph *g, const stp_graph_options *o,
                                     stp_graph_result *r, stp_error *err);
STP_API void stp_graph_result_free(stp_graph_result *r);

/* ---- Monte Carlo, any law -------------------------------------------------------- */

typedef struct stp_graph_sim_options {
  uint64_t runs;            /* independent runs, >= 1 */
  uint64_t seed;            /* default 1 */
  uint64_t firings;         /* TEG: firings of transition 0 counted per run
                               (after a warm-up of firings/10); default 10000 */
  const stp_law *law;       /* law of transitions without one; NULL = exp */
  stp_control control;      /* cancel and progress (the runs' memory is the graph's) */
} stp_graph_sim_options;
STP_API void stp_graph_sim_options_init(stp_graph_sim_options *o);

typedef struct stp_graph_sim_result {
  uint64_t runs;
  double mean;              /* DAG: mean makespan; TEG: mean throughput */
  double stddev;            /* sample standard deviation over the runs */
  double ci95_lo, ci95_hi;  /* mean -+ 1.96 stddev / sqrt(runs) */
} stp_graph_sim_result;

STP_API stp_status stp_graph_simulate(const stp_graph *g, const stp_graph_sim_options *o,
                                      stp_graph_sim_result *r, stp_error *err);

/* ---- the earliest schedule, firing by firing --------------------------------------- */

typedef struct stp_graph_trace_options {
  uint64_t rounds;          /* TEG: firings of every transition (>= 1); a DAG fires once */
  int random;               /* 0: every time is its mean; 1: its mean x a unit-mean draw */
  const stp_law *law;       /* random: law of transitions without one; NULL = exp */
  uint64_t seed;            /* random: the seed (default 1) */
  double pace;              /* > 0: firing k of a transition starts at least pace after
                               its firing k - 1 starts (0: no such bound).  With the
                               period of the graph (its max cycle ratio) as pace, the
                               earliest schedule becomes the periodic steady state at
                               that period, where parts that could go faster (a
                               pipeline's upstream stages) keep pace instead of running
                               ahead without bound. */
} stp_graph_trace_options;
STP_API void stp_graph_trace_options_init(stp_graph_trace_options *o);

/* Every firing of the earliest schedule (the (max,+) recurrence of the
 * analyses, played out): for round k (0 .. rounds - 1; a DAG has one) and
 * transition t, at index i = k n + t (n transitions),
 *   start[i] = the latest end among what firing k of t waits for: firing
 *              k - m of u for each place u -> t of m tokens (nothing when
 *              k - m < 0: initial tokens are there at time 0), and, in a
 *              timed event graph, firing k - 1 of t (single server), and
 *              pace after the start of firing k - 1 of t;
 *   end[i]   = start[i] + its time (the mean, or mean x a draw);
 *   cause[i] = the index of the firing whose end is start[i] (the first one
 *              in the order above when several tie), SIZE_MAX when start[i]
 *              is 0 with nothing to wait for.  cause may be NULL.
 * Following cause back from a firing gives its critical chain.  Arrays of
 * rounds x n, the caller's.  STP_ELIMIT above 10^8 firings. */
STP_API stp_status stp_graph_trace(const stp_graph *g, const stp_graph_trace_options *o,
                                   double *start, double *end, size_t *cause, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_GRAPH_H */
