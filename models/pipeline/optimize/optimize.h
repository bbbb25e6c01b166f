/* optimize.h: the optimiser's one internal header (stp_optimize,
 * include/streamtp_optimize.h; docs/design.md, "Choosing the mapping").
 * Its parts, in the order a reader needs them:
 *
 *   space    the problem space: stages, processors, what may serve where,
 *            the times (space.c; immutable once set up)
 *   cand     a candidate: an ordered team per stage (space.c)
 *   eval     the evaluator: a candidate's items under the objective, with
 *            its cache, scratch and chain cap (evaluate.c)
 *   run      one run: deadline, budget, best so far, bound, progress
 *            (run.c)
 *   bound    upper bounds on every mapping (bound.c)
 *   methods  exact (exact.c), heuristic and random (search.c)
 *
 * A candidate is evaluated as (platform, teams): the problem's platform,
 * never modified, and the candidate's teams (stp_teams, mapping.h). */
#ifndef STP_OPTIMIZE_INTERNAL_H
#define STP_OPTIMIZE_INTERNAL_H

#include "models/pipeline/exact_law.h"
#include "models/pipeline/latency.h"
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
/* The largest problem searched: the space holds tables of stages x
 * processors. */
#define STP_OPT_MAX_CELLS 50000000

/* ---- the problem space ------------------------------------------------------
 * Which processors may serve which stage (--use, --fix, times within
 * range), the largest team, the computation times and (up to
 * STP_OPT_DENSE_BW_MAX processors) a dense table of bandwidths.  Set up
 * once by stp__opt_space_init, read-only afterwards. */
#define STP_OPT_DENSE_BW_MAX 1024

typedef struct stp_opt_space {
  const stp_problem *pb;
  const stp_mapping *plat;   /* the platform (its teams are not read) */
  stp_model model;
  size_t N, M, kmax;
  unsigned char *allowed;    /* N * M: p may serve stage i */
  size_t *fixed_off;         /* N + 1: fixed[fixed_off[i] ..] is stage i's fixed team */
  size_t *fixed;             /* (an empty range: a free stage) */
  size_t *reserved;          /* M: the fixed stage holding p, else STP_OPT_NONE */
  double *comp;              /* N * M: work_i / speed_p */
  double *bw;                /* M * M bandwidths (0: none), or NULL above DENSE_BW_MAX */
} stp_opt_space;

/* The space of problem pb under options o: constraints parsed and checked
 * (EINVAL with the option's words), tables filled; ELIMIT beyond
 * STP_OPT_MAX_CELLS.  cancel, when it returns nonzero while the tables are
 * filled, stops the set-up with EINTERRUPTED. */
stp_status stp__opt_space_init(stp_opt_space *sp, const stp_problem *pb,
                               const stp_optimize_options *o, const stp_cancel *cancel,
                               stp_error *err);
void stp__opt_space_free(stp_opt_space *sp);
static inline size_t stp__opt_fixed_size(const stp_opt_space *sp, size_t i) {
  return sp->fixed_off[i + 1] - sp->fixed_off[i];
}
/* Time of the output of stage i on p -> q, or -1 when that link may not
 * carry it (no bandwidth, or a time outside the range). */
double stp__opt_link_time(const stp_opt_space *sp, size_t i, size_t p, size_t q);
/* Whether the link p -> q may carry the output of stage i. */
bool stp__opt_link_ok(const stp_opt_space *sp, size_t i, size_t p, size_t q);

/* ---- candidates -------------------------------------------------------------
 * The team of stage i is mem[i * kmax .. i * kmax + size[i]). */
typedef struct stp_opt_cand {
  size_t *size;  /* N */
  size_t *mem;   /* N * kmax */
  size_t *owner; /* M: the stage p serves, STP_OPT_NONE */
} stp_opt_cand;

stp_status stp__opt_cand_alloc(const stp_opt_space *sp, stp_opt_cand *c, stp_error *err);
void stp__opt_cand_free(stp_opt_cand *c);
void stp__opt_cand_copy(const stp_opt_space *sp, stp_opt_cand *dst, const stp_opt_cand *src);
void stp__opt_cand_clear(const stp_opt_space *sp, stp_opt_cand *c);
/* Put p at position y of stage i (shifting the later members), or take
 * the member at position y out (returns it). */
void stp__opt_cand_insert(const stp_opt_space *sp, stp_opt_cand *c, size_t i, size_t y, size_t p);
size_t stp__opt_cand_remove(const stp_opt_space *sp, stp_opt_cand *c, size_t i, size_t y);
static inline size_t *stp__opt_team(const stp_opt_space *sp, const stp_opt_cand *c, size_t i) {
  return c->mem + i * sp->kmax;
}
/* The fixed teams in place, every other team empty. */
void stp__opt_cand_fixed(const stp_opt_space *sp, stp_opt_cand *c);
/* Whether c keeps every constraint (teams non-empty, allowed, sizes). */
bool stp__opt_cand_valid(const stp_opt_space *sp, const stp_opt_cand *c);
/* Whether the transfer i -> i+1 of c has every link it needs. */
bool stp__opt_transfer_ok(const stp_opt_space *sp, const stp_opt_cand *c, size_t i);

/* ---- the evaluator ----------------------------------------------------------
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
typedef struct stp_opt_cache stp_opt_cache;

typedef struct stp_opt_vals {
  double *item;   /* 2N - 1 (Strict: item[0]) */
  double value;   /* the objective (<= threshold when !exact) */
  bool exact;
  size_t at_min;  /* items equal to value (Overlap) */
  double second;  /* smallest item above value (INFINITY: none) */
} stp_opt_vals;

typedef struct stp_opt_eval {
  const stp_opt_space *sp;
  stp_objective objective;
  size_t nitems;          /* 2N - 1 for Overlap, 1 for Strict */
  stp_options opts;       /* each evaluation's limits and cancellation (the run's) */
  uint64_t chain_cap;     /* heuristic: chains of more states (a pattern's, a Strict
                             mapping's) are not solved, the candidate is dropped; 0: only
                             the limits of opts */
  bool capped_now;        /* the last ELIMIT came from chain_cap */
  uint64_t evaluated;     /* candidates evaluated */
  /* the law objective: each column's law (the file's "laws", else opts.law) */
  stp_law_columns lc;
  /* the latency constraint: candidates whose deterministic latency exceeds
   * max_latency are infeasible (value -INFINITY); 0: none */
  double max_latency;
  uint64_t too_slow;      /* candidates valued but refused for their latency */
  double least_latency;   /* the smallest latency among those (INFINITY: none) */
  stp_opt_cache *cache;
  /* scratch */
  size_t *team_off, *team; /* N + 1, M: the candidate's teams (stp_teams) for Strict */
  unsigned char *touched;  /* nitems */
  double *times;
  size_t times_cap;
  size_t *snd, *rcv;
  double *sums;            /* M: a pattern's senders' and receivers' busy times */
  uint32_t *key;
  /* an optional trace of the candidates evaluated (tests: the same seed
   * gives the same sequence) */
  void (*trace)(const stp_opt_space *sp, const stp_opt_cand *c, void *data);
  void *trace_data;
} stp_opt_eval;

/* The evaluator of candidates of sp under objective obj with the limits of
 * opts (copied; its progress is not used); under the law objective the
 * columns' laws are resolved (EINVAL: one is not phase-type). */
stp_status stp__opt_eval_init(stp_opt_eval *ev, const stp_opt_space *sp, stp_objective obj,
                              const stp_options *opts, stp_error *err);
void stp__opt_eval_free(stp_opt_eval *ev);

stp_status stp__opt_vals_alloc(const stp_opt_eval *ev, stp_opt_vals *v, stp_error *err);
void stp__opt_vals_free(stp_opt_vals *v);
void stp__opt_vals_copy(const stp_opt_eval *ev, stp_opt_vals *dst, const stp_opt_vals *src);

/* Evaluate c: its items and objective, or stop once it is <= threshold
 * (-INFINITY: evaluate fully).  cur and changed (N flags) make it
 * incremental: items of stages not flagged, and of transfers between two
 * of them, are taken from cur (the values of a candidate that differs from c
 * only in the flagged stages); cur NULL: every item is computed.  An
 * infeasible candidate (a link without bandwidth that would carry data)
 * has value -INFINITY.  STP_ELIMIT (no message kept): its value is beyond
 * the limits (the caller counts it); EINTERRUPTED; ENOMEM.  Counts one
 * evaluation. */
stp_status stp__opt_evaluate(stp_opt_eval *ev, const stp_opt_cand *c, const stp_opt_vals *cur,
                             const unsigned char *changed, double threshold, stp_opt_vals *out,
                             stp_error *err);
/* Whether c keeps the latency constraint (always true without one): its
 * deterministic latency over the lcm paths (latency.h, the code of
 * stp_latency_compute) is at most max_latency, the largest path exactly or,
 * beyond the program's cap, its upper bound; *latency the value compared.
 * A refusal is counted in too_slow and least_latency. */
stp_status stp__opt_latency_ok(stp_opt_eval *ev, const stp_opt_cand *c, bool *ok,
                               double *latency, stp_error *err);
/* One Overlap item (column col of the event graph) of c, with the same
 * threshold rule; the teams it reads must be complete.  Used by the exact
 * search as columns complete. */
stp_status stp__opt_item(stp_opt_eval *ev, const stp_opt_cand *c, size_t col, double threshold,
                         double *value, stp_error *err);
/* Component j of the transfer i -> i+1 of c alone, the teams having the
 * shape (g, u, v) (their final sizes g u and g v: only component j's
 * members need be in place), same rule. */
stp_status stp__opt_component(stp_opt_eval *ev, const stp_opt_cand *c, size_t i, size_t j,
                              size_t g, size_t u, size_t v, double threshold, double *value,
                              stp_error *err);
/* Strict: the throughput of stages 0..n-1 of c alone (the pipeline cut
 * after stage n-1), an upper bound of the throughput of every candidate
 * that extends them, with constant times as with any law (docs/design.md,
 * "Choosing the mapping"): the deterministic one, and under the exp
 * objective when that exceeds threshold also the exponential one (n < N;
 * where it is beyond the limits the deterministic bound stands). */
stp_status stp__opt_strict_prefix(stp_opt_eval *ev, const stp_opt_cand *c, size_t n,
                                  double threshold, double *value, stp_error *err);

/* ---- a run ------------------------------------------------------------------
 * What one call of stp_optimize has: the space and the evaluator, its
 * budget (deadline, evaluations, cancellation), the best mapping so far,
 * the bound proved so far, and its progress line. */
typedef enum {
  STP_OPT_RUNNING = 0, STP_OPT_DONE, STP_OPT_TIME, STP_OPT_EVALS, STP_OPT_CANCEL
} stp_opt_stop;

typedef struct stp_opt_run {
  const stp_opt_space *sp;
  stp_opt_eval *ev;
  const stp_optimize_options *opts;
  stp_cancel user_cancel;  /* the caller's eval.control.cancel */
  stp_progress shown;      /* the caller's eval.control.progress: the search reports there */
  double t0, deadline, last_progress;
  uint64_t max_evals;      /* 0: no limit */
  uint64_t skipped;        /* candidates (or nodes) beyond the limits */
  uint64_t capped;         /* candidates dropped for the evaluator's chain_cap */
  uint64_t capped_at;      /* the cap they were dropped at */
  uint64_t nodes;          /* exact: partial mappings visited */
  stp_opt_stop stop;
  stp_opt_cand best;
  double best_value;       /* -INFINITY: none yet */
  double upper_bound;      /* proved so far */
  /* exact: before each progress report, refresh(run, refresh_data) brings
   * upper_bound down to what the open nodes allow and sets closed, the
   * estimated share of the tree closed (NaN: not the exact method) */
  void (*refresh)(struct stp_opt_run *run, void *data);
  void *refresh_data;
  double closed;
} stp_opt_run;

/* A run on sp with evaluator ev under o; the evaluator's cancellation
 * becomes the run's (the caller's cancel and the deadline), so that a long
 * evaluation stops at the deadline too. */
stp_status stp__opt_run_init(stp_opt_run *run, const stp_opt_space *sp, stp_opt_eval *ev,
                             const stp_optimize_options *o, double t0, stp_error *err);
void stp__opt_run_free(stp_opt_run *run);
/* Record c (value v, exact) as the best if it beats it. */
void stp__opt_offer(stp_opt_run *run, const stp_opt_cand *c, double v);
/* Whether the search must stop now (cancel, time, evaluations); reports
 * progress about ten times a second. */
bool stp__opt_stopping(stp_opt_run *run);
/* After an evaluation returned EINTERRUPTED: the run's stop (cancel or
 * time) is set, and the search ends with its best so far. */
void stp__opt_interrupted(stp_opt_run *run);
/* Whether the best so far reaches the bound (then proved optimal). */
bool stp__opt_reached_bound(const stp_opt_run *run);

/* ---- bounds -----------------------------------------------------------------
 * A processor p serving stage i in a team of R_i handles every R_i-th data
 * set: per data set of its own it computes for c_i(p), receives for at
 * least in_i(p) (its fastest possible sender) and sends for at least
 * out_i(p) (its fastest possible receiver).  Its resource cycle-time
 * (docs/design.md 3) is then at least t_i(p) / R_i with t_i(p) the largest
 * of the three (Overlap) or their sum (Strict), and no throughput, with
 * constant or N.B.U.E. times, exceeds R_i / t_i(p) (bound.c). */
typedef struct stp_opt_bound {
  double *in, *out, *t;  /* N * M: in_i(p), out_i(p) (0 where none applies), t_i(p) */
  size_t *order;         /* N * M: the processors allowed at stage i by increasing t_i */
  size_t *norder;        /* N: how many */
  size_t nfree;          /* processors allowed at some stage, in no fixed team */
  double fixed;          /* the bound from the fixed teams alone (INFINITY: none) */
} stp_opt_bound;

/* cancel (the run's: the caller's and the deadline) is checked at each
 * stage: EINTERRUPTED. */
stp_status stp__opt_bound_init(const stp_opt_space *sp, stp_opt_bound *b, const stp_cancel *cancel,
                               stp_error *err);
void stp__opt_bound_free(stp_opt_bound *b);
/* The bound on every mapping of the problem: the smallest of the counting,
 * capacity and team bounds; cancelled, a weaker one (still a bound). */
double stp__opt_bound_root(const stp_opt_space *sp, const stp_opt_bound *b,
                           const stp_cancel *cancel);
/* The counting and capacity bounds alone (bound.c; the root bound before
 * the team bound). */
double stp__opt_bound_resources(const stp_opt_space *sp, const stp_opt_bound *b,
                                const stp_cancel *cancel);
/* The team bound (bound_teams.c, where the proof is): the largest over
 * every vector of team sizes R of the largest theta at which each stage i
 * finds R_i distinct processors whose resource cycle-time allows theta,
 * their senders and receivers counted as R fixes them (the sum of their
 * u or v fastest partners); at most cap.  cap itself when it is not
 * computed (no dense bandwidths, tables too large, the enumeration beyond
 * its budget, or cancelled). */
double stp__opt_bound_teams(const stp_opt_space *sp, const stp_opt_bound *b, double cap,
                            const stp_cancel *cancel);
/* The price bound (bound_prices.c, where the proof is): the smallest
 * throughput that prices on the processors prove no disjoint teams reach
 * (a Lagrangian relaxation of the disjointness, bisected), at most cap;
 * cap when it is not computed (too large, cancelled). */
double stp__opt_bound_prices(const stp_opt_space *sp, const stp_opt_bound *b, double cap,
                             const stp_cancel *cancel);
/* A bound in N x M steps without the tables of b (when their set-up was
 * interrupted): stage i with team T runs at most R_i / max c_i(p) <= the
 * sum over T of 1 / c_i(p) <= that sum over every processor allowed. */
double stp__opt_bound_quick(const stp_opt_space *sp);
/* The fewest members stage i needs to exceed theta (to reach it, when
 * !strict) from the processors p with owner[p] == STP_OPT_NONE (owner may
 * be NULL: all), and at most `room`; 0 when it cannot. */
size_t stp__opt_bound_need(const stp_opt_space *sp, const stp_opt_bound *b, size_t i,
                           double theta, bool strict, const size_t *owner, size_t room);
/* The bound on every mapping whose free stages stages[0..nstages) have
 * teams of size[k] members: stage i with R_i members is at most R_i over
 * the R_i-th smallest t_i(p), and at most the fixed teams' bound; 0 when a
 * stage has too few processors. */
double stp__opt_profile_bound(const stp_opt_space *sp, const stp_opt_bound *b,
                              const size_t *stages, size_t nstages, const size_t *size);

/* ---- methods ----------------------------------------------------------------*/
/* Exact (exact.c): search every mapping, starting from the best of run (if
 * any) and keeping it updated.  root is an upper bound of every mapping's
 * value (stp__opt_bound_root).  On return *proved says whether the best of
 * run is optimal (the search ended and dropped nothing for the limits),
 * *upper bounds every mapping's value (the best's when proved).  Stopping
 * early (run->stop) is not an error. */
stp_status stp__opt_exact(stp_opt_run *run, const stp_opt_bound *b, double root, bool *proved,
                          double *upper, stp_error *err);

/* While searching under exp, the heuristic solves no Markov chain of more
 * than max_states / STP_OPT_SEARCH_CHAIN_SHARE states (an Overlap transfer
 * pattern's; 20,000 by default) or max_states / STP_OPT_SEARCH_STRICT_SHARE
 * (a Strict mapping's; 200,000): such candidates (teams of 4 and 35 give a
 * pattern of 295,260 states, most of a second) are left out, and counted;
 * while the search has valued no candidate the cap grows fourfold up to
 * max_states (search.c, grow_cap).  The exact and random methods solve
 * every chain within max_states. */
#define STP_OPT_SEARCH_CHAIN_SHARE 100
#define STP_OPT_SEARCH_STRICT_SHARE 10

/* Random (search.c): the best of random mappings until run stops. */
stp_status stp__opt_random(stp_opt_run *run, stp_error *err);
/* The heuristic (search.c): a constructive start (its value into
 * *constructive, NaN when there is none), then local search and restarts
 * until run stops, the best reaches run->upper_bound, or `budget`
 * evaluations (0: no limit) have been made. */
stp_status stp__opt_heuristic(stp_opt_run *run, const stp_opt_bound *b, uint64_t budget,
                              double *constructive, stp_error *err);
/* The heuristic's sweep of size profiles alone: every vector of team sizes
 * of the free stages, best bound first, a climb on the assignment of each
 * in turn, until run stops, `budget` evaluations (0: no limit), or no
 * profile may beat the best (*proved true: the best is then optimal).
 * *swept false: too many profiles, nothing done. */
stp_status stp__opt_sweep(stp_opt_run *run, const stp_opt_bound *b, uint64_t budget,
                          bool *swept, bool *proved, stp_error *err);

#endif /* STP_OPTIMIZE_INTERNAL_H */
