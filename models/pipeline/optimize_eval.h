/* optimize_eval.h: the search space of stp_optimize and its evaluator.
 *
 * A candidate gives every stage an ordered team; the context knows which
 * processors may serve which stage (--use, --fix, times within range), the
 * largest team, and evaluates candidates under the objective with the code
 * of stp_evaluate: the Overlap components (computations, transfer patterns
 * by Howard, closed forms and pattern chains) and the Strict event graph and
 * chain of a view of the platform with the candidate's teams.
 *
 * Items: the Overlap objective is the minimum of 2N - 1 items, one per
 * column of the event graph: item 2i the computation of stage i (R_i over
 * the slowest member's time), item 2i + 1 the transfer i -> i+1 (the
 * smallest of its g components).  A move that changes some teams changes
 * only the items of those stages and their transfers: the others are kept
 * (incremental evaluation).  Strict has one item, the whole mapping.
 *
 * Thresholds: a search only needs to know whether a candidate beats a value
 * t.  Evaluations stop as soon as an item is <= t (an item is bounded
 * first by the deterministic value, exp <= det, so most losers never reach
 * a Markov chain); the value returned is then some upper bound <= t of the
 * true one (vals.exact false).  Component values are cached. */
#ifndef STP_OPTIMIZE_EVAL_H
#define STP_OPTIMIZE_EVAL_H

#include "models/pipeline/mapping.h"
#include "models/pipeline/problem.h"
#include "streamtp_optimize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_OPT_NONE SIZE_MAX
/* Two values closer than this (relative) are equal: the optimum is proved
 * to this precision, and ties do not count as improvements. */
#define STP_OPT_RTOL 1e-9

typedef struct stp_opt_cache stp_opt_cache;

/* A candidate: the team of stage i is mem[i * kmax .. i * kmax + size[i]). */
typedef struct stp_opt_cand {
  size_t *size;  /* N */
  size_t *mem;   /* N * kmax */
  size_t *owner; /* M: the stage p serves, STP_OPT_NONE */
} stp_opt_cand;

/* The items of a candidate and what the search compares. */
typedef struct stp_opt_vals {
  double *item;   /* 2N - 1 (Strict: item[0]) */
  double value;   /* the objective (<= threshold when !exact) */
  bool exact;
  size_t at_min;  /* items equal to value (Overlap) */
  double second;  /* smallest item above value (INFINITY: none) */
} stp_opt_vals;

typedef enum { STP_OPT_RUNNING = 0, STP_OPT_DONE, STP_OPT_TIME, STP_OPT_EVALS, STP_OPT_CANCEL } stp_opt_stop;

typedef struct stp_opt {
  const stp_problem *pb;
  const stp_mapping *base;
  const stp_optimize_options *opts;
  stp_model model;
  stp_objective objective;
  size_t N, M, kmax;
  size_t nitems;          /* 2N - 1 for Overlap, 1 for Strict */
  unsigned char *allowed; /* N * M: p may serve stage i */
  size_t *fixed_off;      /* N + 1: fixed[fixed_off[i] ..] is stage i's fixed team */
  size_t *fixed;          /* (empty range: a free stage) */
  size_t *reserved;       /* M: the fixed stage holding p, else STP_OPT_NONE */
  double *comp;           /* N * M: work_i / speed_p */
  double *bw;             /* M * M bandwidths (0: none), or NULL above DENSE_BW_MAX processors */
  stp_options eval;       /* each evaluation's limits and cancellation */
  stp_progress shown;     /* the caller's control.progress: the search reports there */
  uint64_t chain_cap;     /* heuristic: chains of more states (a pattern's, a Strict
                             mapping's) are not solved, the candidate is dropped; 0: only
                             the limits of eval */
  bool capped_now;        /* the last ELIMIT came from chain_cap */
  uint64_t capped;        /* candidates dropped for chain_cap */
  uint64_t capped_at;     /* the cap they were dropped at */
  stp_opt_cache *cache;
  /* Strict: the platform seen with a candidate's teams */
  stp_mapping view;
  stp_processor *view_procs;
  size_t *view_off, *view_team;
  /* scratch */
  unsigned char *touched; /* nitems */
  double *times;
  size_t times_cap;
  size_t *snd, *rcv;
  uint32_t *key;
  /* budget and outcome */
  double t0, deadline, last_progress;
  uint64_t max_evals, evaluated, skipped, nodes;
  stp_opt_stop stop;
  stp_opt_cand best;
  double best_value;      /* -INFINITY: none yet */
  double upper_bound;     /* proved so far */
} stp_opt;

/* The largest problem searched: the context holds tables of stages x
 * processors. */
#define STP_OPT_MAX_CELLS 50000000

/* The context for problem pb under options o: constraints parsed and
 * checked (EINVAL with the option's words), tables filled; ELIMIT beyond
 * STP_OPT_MAX_CELLS. */
stp_status stp__opt_init(stp_opt *x, const stp_problem *pb, const stp_optimize_options *o,
                         stp_error *err);
void stp__opt_free(stp_opt *x);

stp_status stp__opt_cand_alloc(const stp_opt *x, stp_opt_cand *c, stp_error *err);
void stp__opt_cand_free(stp_opt_cand *c);
void stp__opt_cand_copy(const stp_opt *x, stp_opt_cand *dst, const stp_opt_cand *src);
void stp__opt_cand_clear(const stp_opt *x, stp_opt_cand *c);
/* Put p at position y of stage i (shifting the later members), or take
 * the member at position y out (returns it). */
void stp__opt_cand_insert(const stp_opt *x, stp_opt_cand *c, size_t i, size_t y, size_t p);
size_t stp__opt_cand_remove(const stp_opt *x, stp_opt_cand *c, size_t i, size_t y);
static inline size_t stp__opt_fixed_size(const stp_opt *x, size_t i) {
  return x->fixed_off[i + 1] - x->fixed_off[i];
}
static inline size_t *stp__opt_team(const stp_opt *x, const stp_opt_cand *c, size_t i) {
  return c->mem + i * x->kmax;
}
/* The fixed teams in place, every other team empty. */
void stp__opt_cand_fixed(const stp_opt *x, stp_opt_cand *c);
/* Whether c keeps every constraint (teams non-empty, allowed, sizes). */
bool stp__opt_cand_valid(const stp_opt *x, const stp_opt_cand *c);

stp_status stp__opt_vals_alloc(const stp_opt *x, stp_opt_vals *v, stp_error *err);
void stp__opt_vals_free(stp_opt_vals *v);
void stp__opt_vals_copy(const stp_opt *x, stp_opt_vals *dst, const stp_opt_vals *src);

/* Evaluate c: its items and objective, or stop once it is <= threshold
 * (-INFINITY: evaluate fully).  cur and changed (N flags) make it
 * incremental: items of stages not flagged, and of transfers between two
 * of them, are taken from cur (the values of a candidate that differs from c
 * only in the flagged stages); cur NULL: every item is computed.  An
 * infeasible candidate (a link without bandwidth that would carry data)
 * has value -INFINITY.  STP_ELIMIT (no message kept): its value is beyond
 * the limits (the caller counts it in skipped); EINTERRUPTED; ENOMEM.
 * Counts one evaluation. */
stp_status stp__opt_evaluate(stp_opt *x, const stp_opt_cand *c, const stp_opt_vals *cur,
                             const unsigned char *changed, double threshold, stp_opt_vals *out,
                             stp_error *err);

/* One Overlap item (column col of the event graph) of c, with the same
 * threshold rule; the teams it reads must be complete.  Used by the exact
 * search as columns complete. */
stp_status stp__opt_item(stp_opt *x, const stp_opt_cand *c, size_t col, double threshold,
                         double *value, stp_error *err);
/* Component j of the transfer i -> i+1 of c alone, the teams having the
 * shape (g, u, v) (their final sizes g u and g v: only component j's
 * members need be in place), same rule. */
stp_status stp__opt_component(stp_opt *x, const stp_opt_cand *c, size_t i, size_t j, size_t g,
                              size_t u, size_t v, double threshold, double *value, stp_error *err);
/* Strict: the throughput of stages 0..n-1 of c alone (the pipeline cut
 * after stage n-1), an upper bound of the throughput of every candidate
 * that extends them, with constant times as with any law (docs/design.md,
 * "Choosing the mapping"): the deterministic one, and under the exp
 * objective when that exceeds threshold also the exponential one (n < N;
 * where it is beyond the limits the deterministic bound stands). */
stp_status stp__opt_strict_prefix(stp_opt *x, const stp_opt_cand *c, size_t n, double threshold,
                                  double *value, stp_error *err);
/* Whether the link p -> q may carry the output of stage i (a bandwidth,
 * and a time within range). */
bool stp__opt_link_ok(const stp_opt *x, size_t i, size_t p, size_t q);
/* Whether the transfer i -> i+1 of c has every link it needs. */
bool stp__opt_transfer_ok(const stp_opt *x, const stp_opt_cand *c, size_t i);

/* Record c (value v, exact) as the best if it beats it. */
void stp__opt_offer(stp_opt *x, const stp_opt_cand *c, double v);
/* Whether the search must stop now (cancel, time, evaluations); reports
 * progress about ten times a second. */
bool stp__opt_stopping(stp_opt *x);

#endif /* STP_OPTIMIZE_EVAL_H */
