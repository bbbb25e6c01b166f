/* streamtp_explain.h: why a mapping has its throughput, and what to change
 * (docs/design.md, "Explaining a throughput"): the exact elasticities of
 * the throughput with respect to every speed, bandwidth, work and output
 * size; the busy fraction of every resource; the latency of a data set
 * alone in the pipeline.  Same conventions as streamtp.h. */
#ifndef STREAMTP_EXPLAIN_H
#define STREAMTP_EXPLAIN_H

#include "streamtp_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sensitivities ----------------------------------------------------------- */
typedef enum {
  STP_PARAM_SPEED = 0, /* of a processor */
  STP_PARAM_BANDWIDTH, /* of a link with its own entry, or the default bandwidth */
  STP_PARAM_WORK,      /* of a stage */
  STP_PARAM_OUTPUT     /* of a stage (not the last) */
} stp_param_kind;
STP_API const char *stp_param_kind_name(stp_param_kind k); /* "speed", ... */

/* Elasticities: (d rho / rho) / (d theta / theta).  right: theta
 * increasing (the `elasticity`), left: decreasing; they differ where two
 * critical cycles (or components) tie.  NaN where not computed. */
typedef struct stp_slope {
  double elasticity, left, right;
} stp_slope;

typedef struct stp_sensitivity {
  stp_param_kind kind;
  char *of;      /* "P1", "P2->P3", "default", "T2" */
  size_t index;  /* the processor, the link (file order), the stage; SIZE_MAX: default */
  double value;  /* the parameter's value in the file */
  stp_slope det, exp, law;
} stp_sensitivity;

typedef enum { STP_RANK_DET = 0, STP_RANK_EXP, STP_RANK_LAW } stp_rank_by;

typedef struct stp_sensitivity_result {
  stp_model model;
  size_t n;
  stp_sensitivity *items;   /* in parameter order until stp_sensitivity_rank */
  double det_throughput;
  int exp_available;        /* 0: see exp_reason */
  char *exp_reason;
  double exp_throughput;
  uint64_t exp_states;      /* largest chain differentiated */
  double exp_residual;      /* largest scaled residual of the adjoint solves */
  size_t exp_sweeps;        /* their sweeps, in all */
  int law_available;        /* 0: see law_reason (no law asked: law_reason NULL) */
  char *law_reason;
  double law_throughput;
  double law_residual;
  double seconds;
  stp_rank_by ranked_by;    /* the order of items: STP_RANK_DET until stp_sensitivity_rank */
} stp_sensitivity_result;

/* The elasticities of the throughput of m under model with respect to every
 * processor's speed, the default bandwidth (when the file gives one), every
 * link entry's bandwidth, every stage's work and every output but the
 * last: det exact from the critical cycles (both one-sided values), exp
 * (unless opts->exp_method is STP_EXP_NONE) and, when opts->law is set or
 * the file has "laws", under those laws, from one adjoint solve per Markov
 * chain whatever the number of parameters.  A chain beyond the limits gives
 * a reason, not an error.  opts may be NULL. */
STP_API stp_status stp_sensitivity_compute(const stp_mapping *m, stp_model model,
                                           const stp_options *opts,
                                           stp_sensitivity_result **out, stp_error *err);
/* Sorts the items by decreasing elasticity under `by` (ties, and items
 * without that value, in parameter order); r->ranked_by says which was
 * used: a law not computed ranks by exp, exp not computed by det. */
STP_API void stp_sensitivity_rank(stp_sensitivity_result *r, stp_rank_by by);
STP_API void stp_sensitivity_result_free(stp_sensitivity_result *r);

/* ---- utilization --------------------------------------------------------------- */
typedef enum { STP_PORT_COMPUTE = 0, STP_PORT_IN, STP_PORT_OUT } stp_port;

typedef struct stp_utilization_item {
  char *resource;    /* "P1" (computation; Strict: the processor), "P1 in", "P1 out" */
  size_t processor;
  stp_port port;     /* STP_PORT_COMPUTE for a Strict processor */
  double busy;       /* mean busy time per data set */
  double det, exp, law; /* throughput x busy; NaN where that throughput is missing */
  int saturated;     /* det is 1 to rounding */
  double sim, sim_low, sim_high; /* simulated (stp_simulate): mean, 95% interval; else NaN */
} stp_utilization_item;

typedef struct stp_utilization {
  size_t n;
  stp_utilization_item *items; /* processors in file order, then compute, in, out */
} stp_utilization;

/* The busy fraction in the long run of every resource of m that works
 * (Overlap: the computation and the in and out ports that carry data;
 * Strict: the processor) from r = stp_evaluate(m, r->model, ...). */
STP_API stp_status stp_utilization_compute(const stp_mapping *m, const stp_result *r,
                                           stp_utilization **out, stp_error *err);
STP_API void stp_utilization_free(stp_utilization *u);

/* ---- the critical cycle ------------------------------------------------------------ */
typedef struct stp_critical_cycle {
  double period;         /* the deterministic period (cycle ratio / R) */
  size_t nresources;
  char **resources;      /* on some critical cycle, in processor order: "P1" (Strict: the
                            processor; Overlap: its computation), "P1 in", "P1 out" */
  size_t ntransitions;
  char **transitions;    /* one critical cycle, in order: "row 0: P1 computes T1" */
  uint64_t cycle_tokens; /* its tokens: the data sets it spans */
} stp_critical_cycle;

/* The resources on the critical cycles of m's full deterministic event
 * graph (every cycle of the critical graph), and one such cycle: under
 * Strict, what limits a mapping that has no critical resource.  STP_ELIMIT
 * beyond opts' max_transitions or memory budget. */
STP_API stp_status stp_critical_cycle_compute(const stp_mapping *m, stp_model model,
                                              const stp_options *opts, stp_critical_cycle **out,
                                              stp_error *err);
STP_API void stp_critical_cycle_free(stp_critical_cycle *c);

/* ---- latency ------------------------------------------------------------------- */
typedef struct stp_latency_result {
  double max;          /* over the paths; NaN when !max_exact */
  double mean;         /* over the paths, exact */
  int max_exact;       /* 0: beyond the program's cap, see the bounds */
  double max_lower, max_upper;
  uint64_t paths;      /* R; 0 beyond 2^64 - 1 */
  int has_argmax;
  uint64_t argmax;     /* a path of latency max */
  size_t nlisted;      /* paths listed: all when R <= max_listed, else none */
  double *path;        /* nlisted latencies, path 0 first */
} stp_latency_result;

/* The deterministic latency of m (either model: a data set alone never
 * waits): the time from the start of its first computation to the end of
 * its last along each of the R = lcm(R_i) paths, the largest and the mean,
 * without enumerating the paths (docs/design.md, "Latency"). */
STP_API stp_status stp_latency_compute(const stp_mapping *m, size_t max_listed,
                                       stp_latency_result **out, stp_error *err);
STP_API void stp_latency_result_free(stp_latency_result *l);

/* ---- what-if sweeps ------------------------------------------------------------- */
/* One varied quantity: "KIND:NAME=FROM..TO[:N][:log]" with KIND speed,
 * bandwidth (NAME "default" or "FROM->TO", a link with an entry of its
 * own), work or output (NAME a stage), or "law=FAMILY:PARAM=FROM..TO[:N]"
 * (a law parameter: erlang:k=1..8, hyperexp:cv=1..4).  N points (default
 * 11; a law's integer parameter k: every integer from FROM to TO), evenly
 * spaced, or geometrically with log (FROM, TO > 0). */
typedef struct stp_vary {
  char *spec;            /* as given */
  char *label;           /* "speed:P1", "law:erlang:k" */
  int is_law;
  stp_param_kind kind;   /* when !is_law */
  char *name;
  char *law_family, *law_param;
  double from, to;
  size_t n;
  int log;
} stp_vary;

/* EINVAL naming what is wrong in spec. */
STP_API stp_status stp_vary_parse(const char *spec, stp_vary **out, stp_error *err);
STP_API void stp_vary_free(stp_vary *v);
/* The k-th value (k < v->n). */
STP_API double stp_vary_value(const stp_vary *v, size_t k);

/* One point of a sweep. */
typedef struct stp_sweep_point {
  size_t nvary;
  double vary[2];        /* the values of the varied quantities */
  stp_result *result;    /* the evaluation there (det, exp, law, bounds, components) */
  char *critical;        /* the critical resources under det, ", " between them; NULL: none */
  stp_sim_result *sim;   /* the simulation there, when asked; else NULL */
} stp_sweep_point;

/* Evaluates m under model with vary[j] at its value index[j] (nvary 1 or
 * 2), with the options o (o->law: the law; a law vary sets it) and, when
 * sim is not NULL, a simulation with those options (its law the point's
 * when a law varies).  EINVAL when a vary names no such parameter (a
 * processor, a stage, a link entry) or makes a value invalid. */
STP_API stp_status stp_sweep_point_eval(const stp_mapping *m, stp_model model,
                                        const stp_vary *const *vary, size_t nvary,
                                        const size_t *index, const stp_options *o,
                                        const stp_sim_options *sim, stp_sweep_point *out,
                                        stp_error *err);
/* Frees what the point holds (not the point). */
STP_API void stp_sweep_point_clear(stp_sweep_point *p);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_EXPLAIN_H */
