/* streamtp_optimize.h: choose the mapping, not only evaluate it.
 *
 * A problem is a mapping file (docs/format.md) whose "mapping" is optional:
 * the stages, the processors and the links.  stp_optimize searches the
 * one-to-many mappings of it (every stage gets a non-empty ordered team, a
 * processor serves at most one stage, processors may stay unused) for the
 * best throughput under an objective: the deterministic throughput, or the
 * exponential one, the throughput guaranteed for every I.I.D. N.B.U.E. law
 * with the same means (docs/design.md, "Choosing the mapping").  Finding it
 * is NP-complete (RR-7510, section 8): the exact method proves the optimum
 * on small problems by branch and bound, the heuristic searches large ones
 * within a time budget; every answer carries an upper bound on the optimum.
 * Example, from C without files:
 *
 *   stp_build_spec spec;                 // stages, processors, links as for
 *   stp_build_spec_init(&spec);          // stp_mapping_build; team_sizes and
 *   ...                                  // teams NULL: no starting mapping
 *   stp_problem *pb; stp_optimize_result *res; stp_error err;
 *   stp_optimize_options o;
 *   stp_optimize_options_init(&o);
 *   o.objective = STP_OBJECTIVE_EXP;
 *   if (stp_problem_build(&spec, &pb, &err) == STP_OK &&
 *       stp_optimize(pb, &o, &res, &err) == STP_OK)
 *     printf("%g (%s)\n", res->value, res->optimal ? "optimal" : "best found");
 */
#ifndef STREAMTP_OPTIMIZE_H
#define STREAMTP_OPTIMIZE_H

#include "streamtp_pipeline.h"
#include "streamtp_build.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- problems --------------------------------------------------------------- */
typedef struct stp_problem stp_problem;

/* A mapping file whose "mapping" may be absent (every other rule and message
 * of stp_mapping_load_file holds); when present it is the starting point. */
STP_API stp_status stp_problem_load_file(const char *path, stp_problem **out, stp_error *err);
STP_API stp_status stp_problem_load_string(const char *text, size_t len, const char *label,
                                           stp_problem **out, stp_error *err);
/* From arrays (streamtp_build.h); spec->team_sizes and spec->teams both NULL
 * for no starting mapping.  Everything is copied. */
STP_API stp_status stp_problem_build(const stp_build_spec *spec, stp_problem **out,
                                     stp_error *err);
STP_API void stp_problem_free(stp_problem *p);

STP_API const char *stp_problem_name(const stp_problem *p);
STP_API const char *stp_problem_file(const stp_problem *p);
STP_API stp_model stp_problem_model(const stp_problem *p); /* the file's "model" */
STP_API size_t stp_problem_stage_count(const stp_problem *p);
STP_API size_t stp_problem_processor_count(const stp_problem *p);
/* The starting mapping, or NULL when the problem has none. */
STP_API const stp_mapping *stp_problem_start(const stp_problem *p);

/* ---- options ---------------------------------------------------------------- */
typedef enum {
  STP_OBJECTIVE_DET = 0, /* deterministic throughput (the N.B.U.E. upper bound) */
  STP_OBJECTIVE_EXP = 1, /* exponential throughput: guaranteed for every N.B.U.E. law */
  STP_OBJECTIVE_LAW = 2  /* the exact throughput under the phase-type law eval.law (and the
                            file's "laws"), as stp_evaluate's exact_law gives it */
} stp_objective;
STP_API const char *stp_objective_name(stp_objective o);   /* "det", "exp", "law" */
/* "det", "exp" or "law" (the law itself is the options' eval.law); EINVAL. */
STP_API stp_status stp_objective_parse(const char *s, stp_objective *out);

typedef enum {
  STP_OPTIMIZE_AUTO = 0,  /* exact when the problem is small enough, else heuristic */
  STP_OPTIMIZE_EXACT,     /* branch and bound: the optimum with a proof */
  STP_OPTIMIZE_HEURISTIC, /* local search from a constructive start, with restarts */
  STP_OPTIMIZE_RANDOM     /* the best of random mappings (a baseline) */
} stp_optimize_method;
STP_API const char *stp_optimize_method_name(stp_optimize_method m);
STP_API stp_status stp_optimize_method_parse(const char *s, stp_optimize_method *out);

/* What the search has reached, for a progress line (called from the
 * searching thread about ten times a second). */
typedef struct stp_optimize_progress_info {
  double best;        /* objective of the best mapping so far (NaN: none yet) */
  double upper_bound; /* proved so far */
  double gap;         /* (upper_bound - best) / upper_bound */
  uint64_t evaluated; /* candidates evaluated */
  uint64_t nodes;     /* exact: partial mappings visited */
  double seconds;
} stp_optimize_progress_info;

typedef struct stp_optimize_options {
  stp_model model;
  stp_objective objective;
  stp_optimize_method method;
  size_t max_team;         /* largest team; 0: no limit */
  const char *use;         /* "P1,P3,...": only these processors; NULL: all */
  const char *const *fix;  /* nfix entries "STAGE=P,...": keep that team, in that order */
  size_t nfix;
  double time_limit;       /* seconds; <= 0: none (exact runs to its proof) */
  uint64_t max_evaluations; /* candidates; 0: no limit */
  uint64_t seed;           /* heuristic and random: same seed, same sequence of candidates */
  double max_latency;      /* > 0: only candidates whose deterministic latency (the longest
                              path of one data set alone, stp_latency_compute's max) is at
                              most this; 0 or INFINITY: no constraint (the command line
                              and Python refuse 0: there it is a time) */
  stp_options eval;        /* limits of each evaluation (eval.law: the law of the law
                              objective, which must be phase-type), and the run's control: the search
                              stops on eval.control.cancel, and reports to
                              eval.control.progress ten times a second a line "optimizing:
                              best B, bound U, gap G %, candidates" (done: the count) */
  void (*progress)(const stp_optimize_progress_info *info, void *data); /* the same, as numbers */
  void *progress_data;
} stp_optimize_options;

/* Overlap, det, auto, no constraints, no time limit, seed 1, stp_options_init. */
STP_API void stp_optimize_options_init(stp_optimize_options *o);

/* ---- results ---------------------------------------------------------------- */
typedef struct stp_optimize_result {
  stp_mapping *mapping;    /* the best mapping found (its "model" the one optimised) */
  stp_result *eval;        /* stp_evaluate of it: det, exp, bounds, components */
  stp_model model;
  stp_objective objective;
  const char *method;      /* what ran: "exact", "heuristic" or "random" (static) */
  double value;            /* its objective: eval's det, exp or exact_law throughput */
  int optimal;             /* 1: proved optimal (no mapping better by 1e-9 relative) */
  double upper_bound;      /* no mapping has a larger objective */
  double gap;              /* (upper_bound - value) / upper_bound, 0 when optimal */
  uint64_t evaluated;      /* complete candidates whose objective was computed */
  uint64_t nodes;          /* exact: partial mappings the search visited */
  uint64_t skipped;        /* exp: candidates whose exponential value is beyond the limits */
  double start;            /* objective of the problem's mapping; NaN when it has none */
  double constructive;     /* heuristic: objective of its constructive start; else NaN */
  int interrupted;         /* 1: stopped by eval.cancel (the best so far is returned) */
  int timed_out;           /* 1: stopped by time_limit or max_evaluations */
  char *note;              /* why optimal is 0 when that is not only the method, else NULL */
  double max_latency;      /* the options' constraint (0: none) */
  double latency;          /* the answer's deterministic latency: its max over the paths
                              (NaN beyond stp_latency_compute's program) */
  double latency_mean;     /* and its mean over the paths */
  double seconds;
} stp_optimize_result;

/* Search the mappings of problem p for the best objective under o (NULL:
 * defaults).  The answer is never worse than the problem's own mapping when
 * that mapping keeps the constraints.  Stopping early (time limit,
 * evaluations, cancellation) is not an error: the best mapping so far is
 * returned with optimal = 0 and the bound proved so far.  Errors: EINVAL
 * (bad constraints: an unknown processor or stage, a fixed team breaking a
 * rule; no mapping satisfies them; a latency constraint no mapping meets; a
 * law objective whose law is not phase-type), ELIMIT (exp, law: no
 * candidate's value is within the limits), EINTERRUPTED (cancelled before any mapping
 * was evaluated), ENOMEM. */
STP_API stp_status stp_optimize(const stp_problem *p, const stp_optimize_options *o,
                                stp_optimize_result **out, stp_error *err);
STP_API void stp_optimize_result_free(stp_optimize_result *r);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_OPTIMIZE_H */
