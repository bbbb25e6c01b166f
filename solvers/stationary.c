/* stationary.c: the stationary-distribution driver (checks, choice of
 * solver, final residual) and the iterative solver, Gauss-Seidel swept
 * level by level (levels: solvers/generator.h).
 *
 * In level order, the balance equation of a state of level l+1 only
 * involves states of level l, so a sweep leaves every level but 0 exactly
 * balanced, and maps the restriction of pi to level 0 through one full turn
 * of the cycle: it is the power method on the chain observed once per turn,
 * which is aperiodic and mixes fast where the plain jump chain has period
 * d.  The same fact gives the residual of the current iterate for free:
 * only level 0 can be out of balance. */
#include "solvers/stationary.h"

#include "base/core.h"
#include "solvers/generator.h"
#include "solvers/stationary_krylov.h"
#include "solvers/stationary_umfpack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below the tolerance, an estimate that has not decreased in STP_GS_FLOOR
 * sweeps has met rounding: stop.  Slow but steady progress goes on (up to
 * max_sweeps) unless the estimate has not halved in STP_GS_STUCK sweeps.
 * The final residual check then decides. */
#define STP_GS_FLOOR 10
#define STP_GS_STUCK 500

void stp__stationary_options_init(stp_stationary_options *o) {
  memset(o, 0, sizeof *o);
  o->method = STP_STATIONARY_AUTO;
  o->tolerance = 1e-9;
  o->direct_max_states = STP_STATIONARY_DIRECT_MAX;
  o->max_sweeps = 5000;
}

/* ---- Gauss-Seidel in level order -------------------------------------------------- */

/* The iteration runs on states renumbered in level order ("positions"):
 * a sweep then reads the inflow rows one after the other, and the states
 * they read (the previous level) are a small contiguous slice that stays
 * in cache; this halves the time of a sweep on large chains. */
typedef struct gs_work {
  stp_csr *in;     /* row q: the moves into position q (from other states), by position */
  double *out;     /* rate out of each position (moves back to it excluded) */
  double *x;       /* the iterate, by position */
  int64_t *order;  /* order[q] = state at position q */
  int64_t *start;  /* period + 1 offsets of the levels */
  uint32_t period;
  double qnorm;    /* ||Q||_1 */
} gs_work;

/* Frees and clears (so that a second call does nothing). */
static void gs_work_free(gs_work *w) {
  stp__csr_free(w->in);
  free(w->out);
  free(w->x);
  free(w->order);
  free(w->start);
  memset(w, 0, sizeof *w);
}

/* Inflow into position q: sum over its moves of x[from] * rate. */
static inline double inflow(const stp_csr *in, const double *x, int64_t q) {
  double sum = 0;
  for (int64_t e = in->p[q]; e < in->p[q + 1]; e++)
    sum += x[in->j[e]] * in->x[e];
  return sum;
}

/* order and start: a counting sort of the states by level; pos = inverse. */
static void sort_by_level(const uint32_t *level, int64_t n, gs_work *w, int64_t *pos) {
  for (int64_t s = 0; s < n; s++)
    w->start[level[s] + 1]++;
  for (uint32_t l = 0; l < w->period; l++)
    w->start[l + 1] += w->start[l];
  for (int64_t s = 0; s < n; s++) /* pos as the cursor of each level first */
    pos[s] = w->start[level[s]]++;
  for (uint32_t l = w->period; l > 0; l--) /* undo the cursors */
    w->start[l] = w->start[l - 1];
  w->start[0] = 0;
  for (int64_t s = 0; s < n; s++)
    w->order[pos[s]] = s;
}

/* The inflow matrix by position (a transpose with renumbering), the out
 * rates and ||Q||_1. */
static void fill_inflow(const stp_csr *moves, const int64_t *pos, gs_work *w, int64_t *next) {
  int64_t n = moves->nrows;
  stp_csr *in = w->in;
  for (int64_t s = 0; s < n; s++)
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++)
      if (moves->j[e] != s)
        in->p[pos[moves->j[e]] + 1]++;
  for (int64_t q = 0; q < n; q++)
    in->p[q + 1] += in->p[q];
  memcpy(next, in->p, (size_t)n * sizeof *next);
  for (int64_t s = 0; s < n; s++)
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++) {
      int64_t t = moves->j[e];
      if (t == s)
        continue;
      int64_t at = next[pos[t]]++;
      in->j[at] = pos[s];
      in->x[at] = moves->x[e];
      w->out[pos[s]] += moves->x[e];
    }
  for (int64_t q = 0; q < n; q++) {
    double col = w->out[q];
    for (int64_t e = in->p[q]; e < in->p[q + 1]; e++)
      col += in->x[e];
    if (col > w->qnorm)
      w->qnorm = col;
  }
}

static stp_status gs_work_init(const stp_csr *moves, const uint32_t *level, uint32_t period,
                               gs_work *w, stp_error *err) {
  int64_t n = moves->nrows;
  memset(w, 0, sizeof *w);
  w->period = period;
  w->out = stp__calloc((size_t)n, sizeof *w->out);
  w->x = stp__malloc_array((size_t)n, sizeof *w->x);
  w->order = stp__malloc_array((size_t)n, sizeof *w->order);
  w->start = stp__calloc((size_t)period + 1, sizeof *w->start);
  int64_t *pos = stp__malloc_array((size_t)n, sizeof *pos);
  stp_status s = w->out && w->x && w->order && w->start && pos
                     ? stp__csr_alloc(n, n, stp__csr_nnz(moves), &w->in, err)
                     : stp__oom(err, "preparing the iterative solver");
  if (s == STP_OK) {
    sort_by_level(level, n, w, pos);
    int64_t *next = stp__malloc_array((size_t)n + 1, sizeof *next);
    if (next)
      fill_inflow(moves, pos, w, next);
    else
      s = stp__oom(err, "preparing the iterative solver");
    free(next);
  }
  free(pos);
  if (s != STP_OK)
    gs_work_free(w);
  return s;
}

/* Every state reaches state 0: a search from state 0 along the inflow
 * rows (that state 0 reaches every state is checked with the levels). */
static stp_status check_reaches_0(const gs_work *w, stp_error *err) {
  int64_t n = w->in->nrows, root = 0, reached = 0, missing = -1;
  while (w->order[root] != 0)
    root++;
  STP_CHECK(stp__generator_bfs(w->in, root, NULL, &reached, &missing, err));
  if (missing >= 0)
    return stp__fail(err, STP_ENUMERIC,
                     "the Markov chain is not irreducible: state %lld cannot reach state 0 "
                     "(%lld of %lld states can); it has an absorbing class",
                     (long long)w->order[missing], (long long)reached, (long long)n);
  return STP_OK;
}

/* The level-order estimate of the scaled residual of the iterate: the
 * imbalance of level 0 (every other level is balanced by the last sweep). */
static double level0_residual(const gs_work *w) {
  double rmax = 0, pmax = 0;
  for (int64_t q = w->start[0]; q < w->start[1]; q++) {
    double r = fabs(inflow(w->in, w->x, q) - w->x[q] * w->out[q]);
    if (r > rmax)
      rmax = r;
  }
  for (int64_t q = 0; q < w->start[w->period]; q++)
    if (w->x[q] > pmax)
      pmax = w->x[q];
  return w->qnorm * pmax > 0 ? rmax / (w->qnorm * pmax) : 0;
}

/* One sweep in level order, then normalisation to sum 1. */
static stp_status gs_sweep(const gs_work *w, stp_error *err) {
  int64_t n = w->start[w->period];
  double sum = 0;
  for (int64_t q = 0; q < n; q++) {
    w->x[q] = inflow(w->in, w->x, q) / w->out[q];
    sum += w->x[q];
  }
  if (!(sum > 0) || !isfinite(sum))
    return stp__fail(err, STP_ENUMERIC, "the Gauss-Seidel iterate has sum %g", sum);
  for (int64_t q = 0; q < n; q++)
    w->x[q] /= sum;
  return STP_OK;
}

/* When to stop sweeping (STP_GS_TARGET, STP_GS_FLOOR, STP_GS_STUCK). */
void stp__gs_progress_init(stp_gs_progress *p) {
  *p = (stp_gs_progress){INFINITY, INFINITY, 0, 0};
}

bool stp__gs_done(stp_gs_progress *p, double est, size_t it, const stp_stationary_options *o) {
  if (est < p->low) {
    p->low = est;
    p->low_at = it;
  }
  if (est < 0.5 * p->halved) {
    p->halved = est;
    p->halved_at = it;
  }
  return est <= o->tolerance * STP_GS_TARGET || it >= o->max_sweeps ||
         it - p->halved_at >= STP_GS_STUCK ||
         (est <= o->tolerance && it - p->low_at >= STP_GS_FLOOR);
}

bool stp__gs_slow(const stp_gs_progress *p, double est, size_t it,
                  const stp_stationary_options *o) {
  return o->method == STP_STATIONARY_AUTO && est > o->tolerance &&
         it - p->halved_at >= STP_GS_SLOW;
}

/* The scaled residual of the iterate after `it` sweeps (pi: scratch for
 * the iterate in state order): once a sweep has been made in level order,
 * only level 0 can be out of balance. */
static stp_status gs_estimate(const gs_work *w, const stp_csr *moves, double *pi, size_t it,
                              double *est, stp_error *err) {
  if (w->period > 1 && it > 0) {
    *est = level0_residual(w);
    return STP_OK;
  }
  for (int64_t q = 0; q < moves->nrows; q++)
    pi[w->order[q]] = w->x[q];
  return stp__generator_residual(moves, pi, est, err);
}

/* A Gauss-Seidel run that can pause after a number of sweeps and go on
 * (the trial of the solver choice): the iterate is w->x, `est` the
 * estimate of the iterate after `it` sweeps when `fresh`. */
typedef struct gs_run {
  stp_gs_progress prog;
  size_t it;
  double est;
  bool fresh;   /* est belongs to the current iterate */
  bool stopped; /* the stopping rule (stp__gs_done, stp__gs_slow) said stop */
} gs_run;

static void gs_start(gs_work *w, gs_run *r) {
  int64_t n = w->start[w->period];
  for (int64_t q = 0; q < n; q++)
    w->x[q] = 1.0 / (double)n;
  *r = (gs_run){.it = 0};
  stp__gs_progress_init(&r->prog);
}

/* Sweep until the stopping rule says stop or `cap` sweeps are made in all;
 * pi (state order) then holds the iterate. */
static stp_status gs_continue(gs_work *w, const stp_csr *moves, const stp_stationary_options *o,
                              gs_run *r, size_t cap, double *pi, stp_error *err) {
  stp_status s = STP_OK;
  while (!r->stopped) {
    if (!r->fresh) {
      if ((s = gs_estimate(w, moves, pi, r->it, &r->est, err)) != STP_OK)
        break;
      r->fresh = true;
      if (stp__gs_done(&r->prog, r->est, r->it, o) || stp__gs_slow(&r->prog, r->est, r->it, o)) {
        r->stopped = true;
        break;
      }
    }
    if (r->it >= cap)
      break;
    if (stp__cancelled(&o->cancel)) {
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted after %zu Gauss-Seidel sweeps", r->it);
      break;
    }
    if ((s = gs_sweep(w, err)) != STP_OK)
      break;
    r->it++;
    r->fresh = false;
  }
  for (int64_t q = 0; q < moves->nrows; q++)
    pi[w->order[q]] = w->x[q];
  return s;
}

static stp_status gauss_seidel(gs_work *w, const stp_csr *moves, const stp_stationary_options *o,
                               double *pi, stp_stationary_info *info, stp_error *err) {
  gs_run r;
  gs_start(w, &r);
  stp_status s = gs_continue(w, moves, o, &r, SIZE_MAX, pi, err);
  info->iterations = r.it;
  return s;
}

/* ---- BiCGSTAB on the sweep, where Gauss-Seidel is too slow (stationary_krylov.h) --- */

/* The vector BiCGSTAB works on: the values of level 0 (positions start[0]
 * .. start[1]); one sweep computes every other level from them.  Without
 * levels (period 1) that is the whole iterate, and T one sweep in place. */
static void gs_apply(void *ctx, const double *v, double *tv) {
  const gs_work *w = ctx;
  int64_t n0 = w->start[1], n = w->start[w->period];
  memcpy(w->x, v, (size_t)n0 * sizeof *v);
  for (int64_t q = w->period > 1 ? n0 : 0; q < n; q++)
    w->x[q] = inflow(w->in, w->x, q) / w->out[q];
  if (w->period == 1) {
    memcpy(tv, w->x, (size_t)n * sizeof *tv);
    memcpy(w->x, v, (size_t)n * sizeof *v); /* the iterate is v, whose residual is estimated */
    return;
  }
  for (int64_t q = 0; q < n0; q++)
    tv[q] = inflow(w->in, w->x, q) / w->out[q];
}

/* The scaled residual of v: with levels, level 0's imbalance (the others
 * are balanced by the sweep); without, every state's. */
static double gs_apply_estimate(void *ctx, const double *v, const double *tv) {
  (void)v;
  (void)tv;
  const gs_work *w = ctx;
  if (w->period > 1)
    return level0_residual(w);
  double rmax = 0, pmax = 0;
  for (int64_t q = 0; q < w->start[1]; q++) {
    rmax = fmax(rmax, fabs(inflow(w->in, w->x, q) - w->x[q] * w->out[q]));
    pmax = fmax(pmax, fabs(w->x[q]));
  }
  return w->qnorm * pmax > 0 ? rmax / (w->qnorm * pmax) : 0;
}

/* BiCGSTAB from the Gauss-Seidel iterate (pi, in state order); pi is its
 * result. */
static stp_status bicgstab(gs_work *w, const stp_csr *moves, const stp_stationary_options *o,
                           double *pi, stp_stationary_info *info, stp_error *err) {
  int64_t n = moves->nrows, n0 = w->start[1];
  stp_sweep_map f = {.n = (size_t)n0, .ctx = w, .apply = gs_apply,
                     .estimate = gs_apply_estimate};
  double *v = stp__malloc_array((size_t)n0, sizeof *v);
  if (!v)
    return stp__oom(err, "preparing the BiCGSTAB fallback of the stationary solve");
  for (int64_t q = 0; q < n0; q++)
    v[q] = pi[w->order[q]];
  size_t sweeps;
  double est;
  stp_status s = stp__bicgstab_fixed_point(&f, v, o, &sweeps, &est, err);
  info->iterations += sweeps;
  free(v);
  if (s != STP_OK)
    return s;
  double sum = 0; /* the last sweep computed x from the returned v */
  for (int64_t q = 0; q < n; q++)
    sum += w->x[q];
  for (int64_t q = 0; q < n; q++)
    pi[w->order[q]] = w->x[q] / sum;
  return STP_OK;
}

/* ---- the choice between the factorisation and the sweeps (AUTO) ------------------- */

/* The costs are counted in moves visited by a sweep; an LU flop (UMFPACK's
 * dense frontal kernels) is weighted 1/STP_CHOICE_FLOPS_PER_MOVE of one, a
 * rough weight against the scattered reads of a sweep (the cases of
 * bench/solver-choice are 600 times apart, far from depending on it).  A
 * sweep of a chain without levels visits each move twice: the sweep, then
 * the residual that judges it. */
#define STP_CHOICE_FLOPS_PER_MOVE 4.0

/* The sweeps that stand in for a factorisation (exact to rounding) aim at
 * a residual this much smaller than the other sweeps: the values then
 * agree with the factorisation's to 1e-12 (bench/solver-choice). */
#define STP_CHOICE_DEEPER 1e-3

static double sweep_cost(const gs_work *w) {
  double visits = (double)w->in->p[w->in->nrows] + (double)w->in->nrows;
  return w->period > 1 ? visits : 2 * visits;
}

/* Sweeps still needed from the trial's estimates: the rate of decrease over
 * the second half of the trial, extrapolated to the target of
 * stp__gs_done (INFINITY where the estimate did not decrease). */
static double sweeps_to_go(const gs_run *r, double mid_est, size_t mid_it,
                           const stp_stationary_options *o) {
  double target = o->tolerance * STP_GS_TARGET;
  if (r->est <= target)
    return 0;
  if (!(r->est < mid_est) || r->it <= mid_it)
    return INFINITY;
  double per_sweep = log(r->est / mid_est) / (double)(r->it - mid_it);
  return ceil(log(target / r->est) / per_sweep);
}

/* The factorisation, from its analysis (the iterative work is freed first:
 * the factors need the room); the sweeps made before stay counted. */
static stp_status factorise(gs_work *w, stp_umfpack_lu *lu, const stp_csr *moves, double *pi,
                            stp_stationary_info *info, stp_error *err) {
  gs_work_free(w);
  STP_CHECK(stp__umfpack_solve(lu, pi, err));
  return stp__generator_residual(moves, pi, &info->residual, err);
}

/* Gauss-Seidel, given the choice: on to its end from the trial, then the
 * factorisation where it stalled above o->tolerance (the deeper one: on a
 * nearly decomposable chain a residual of 1e-10 may leave the masses of
 * the blocks wrong in the fifth digit, which the factorisation would not). */
static stp_status sweep_on(gs_work *w, gs_run *r, stp_umfpack_lu *lu, const stp_csr *moves,
                           const stp_stationary_options *o, double *pi,
                           stp_stationary_info *info, stp_error *err) {
  info->solver = "gauss-seidel (level order)";
  STP_CHECK(gs_continue(w, moves, o, r, o->max_sweeps, pi, err));
  info->iterations = r->it;
  STP_CHECK(stp__generator_residual(moves, pi, &info->residual, err));
  if (info->residual <= o->tolerance)
    return STP_OK;
  info->solver = "umfpack (gauss-seidel stalled)";
  return factorise(w, lu, moves, pi, info, err);
}

/* Gauss-Seidel where the factors may not be made, BiCGSTAB on its sweeps
 * where it stalls above `accept` (as on a chain too large to factorise). */
static stp_status sweeps_alone(gs_work *w, const stp_csr *moves, const stp_stationary_options *o,
                               double accept, double *pi, stp_stationary_info *info,
                               stp_error *err) {
  info->solver = "gauss-seidel (level order)";
  STP_CHECK(gauss_seidel(w, moves, o, pi, info, err));
  STP_CHECK(stp__generator_residual(moves, pi, &info->residual, err));
  if (info->residual <= accept)
    return STP_OK;
  info->solver = "bicgstab on level-order sweeps (gauss-seidel stalled)";
  STP_CHECK(bicgstab(w, moves, o, pi, info, err));
  return stp__generator_residual(moves, pi, &info->residual, err);
}

/* The trial sweeps, the estimate of the sweeps still to go from their
 * rate of decrease, then the cheaper route (direct: the factorisation's
 * cost, in moves visited). */
static stp_status trial_then_cheaper(gs_work *w, stp_umfpack_lu *lu, const stp_csr *moves,
                                     const stp_stationary_options *o, double direct, double *pi,
                                     stp_stationary_info *info, stp_error *err) {
  gs_run r;
  gs_start(w, &r);
  STP_CHECK(gs_continue(w, moves, o, &r, STP_CHOICE_TRIAL / 2, pi, err));
  double mid_est = r.est;
  size_t mid_it = r.it;
  if (!r.stopped)
    STP_CHECK(gs_continue(w, moves, o, &r, STP_CHOICE_TRIAL, pi, err));
  info->predicted_sweeps =
      (double)r.it + (r.stopped ? 0 : sweeps_to_go(&r, mid_est, mid_it, o));
  if (r.stopped)
    info->reason = STP_REASON_TRIAL_CONVERGED;
  else if ((info->predicted_sweeps - (double)r.it) * info->sweep_moves < direct)
    info->reason = STP_REASON_SWEEPS_CHEAPER;
  else {
    info->reason = STP_REASON_FACTORS_CHEAPER;
    info->solver = "umfpack";
    return factorise(w, lu, moves, pi, info, err);
  }
  return sweep_on(w, &r, lu, moves, o, pi, info, err);
}

/* AUTO on a chain without levels small enough to factorise: UMFPACK's
 * symbolic analysis estimates the factorisation's flops; where they cost
 * more than STP_CHOICE_TRIAL sweeps, the sweeps run that many and their
 * rate of decrease, extrapolated, estimates the iterative solve; the
 * cheaper one goes on. */
static stp_status choose_by_cost(gs_work *w, const stp_csr *moves, const stp_stationary_options *ao,
                                 double *pi, stp_stationary_info *info, stp_error *err) {
  /* o: the sweeps' options, aiming STP_CHOICE_DEEPER below the caller's
   * tolerance (ao) */
  stp_stationary_options deeper = *ao, *o = &deeper;
  deeper.tolerance *= STP_CHOICE_DEEPER;
  stp_umfpack_lu *lu;
  stp_umfpack_estimate est;
  STP_CHECK(stp__umfpack_analyse(moves, &lu, &est, err));
  double sweep = sweep_cost(w), direct = est.flops / STP_CHOICE_FLOPS_PER_MOVE + est.entries;
  info->factor_flops = est.flops;
  info->factor_bytes = est.bytes;
  info->sweep_moves = sweep;
  stp_status s;
  if (o->max_factor_bytes > 0 && est.bytes > o->max_factor_bytes) {
    info->reason = STP_REASON_FACTORS_OVER_BUDGET;
    stp__umfpack_free(lu); /* the room is the sweeps' */
    lu = NULL;
    s = sweeps_alone(w, moves, o, ao->tolerance, pi, info, err);
  } else if (direct <= STP_CHOICE_TRIAL * sweep) {
    info->reason = STP_REASON_FACTORS_CHEAP;
    info->solver = "umfpack";
    s = factorise(w, lu, moves, pi, info, err);
  } else {
    s = trial_then_cheaper(w, lu, moves, o, direct, pi, info, err);
  }
  stp__umfpack_free(lu);
  return s;
}

/* ---- driver ----------------------------------------------------------------------- */

static stp_status check_rates(const stp_csr *moves, stp_error *err) {
  if (moves->nrows < 1 || moves->nrows != moves->ncols)
    return stp__fail(err, STP_EINVAL, "a Markov chain needs a square generator with states");
  for (int64_t s = 0; s < moves->nrows; s++)
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++)
      if (!(moves->x[e] > 0) || !isfinite(moves->x[e]))
        return stp__fail(err, STP_EINVAL, "the move %lld -> %lld has rate %g", (long long)s,
                         (long long)moves->j[e], moves->x[e]);
  return STP_OK;
}

/* Run the chosen solver.  AUTO: the iterative one whenever the chain has
 * levels (it is faster at every size measured); without levels, the
 * cheaper by choose_by_cost up to direct_max_states, Gauss-Seidel above.
 * Where Gauss-Seidel stalls above the tolerance, AUTO falls back to
 * UMFPACK on a chain small enough to factorise, to BiCGSTAB on a larger
 * one. */
static stp_status run_solver(gs_work *w, const stp_csr *moves, const stp_stationary_options *o,
                             double *pi, stp_stationary_info *info, stp_error *err) {
  bool small = moves->nrows <= o->direct_max_states;
  if (o->method == STP_STATIONARY_AUTO && w->period == 1 && small)
    return choose_by_cost(w, moves, o, pi, info, err);
  if (o->method != STP_STATIONARY_DIRECT) {
    if (o->method != STP_STATIONARY_AUTO)
      info->reason = STP_REASON_ASKED;
    else if (w->period == 1)
      info->reason = STP_REASON_TOO_LARGE;
    info->solver = "gauss-seidel (level order)";
    STP_CHECK(gauss_seidel(w, moves, o, pi, info, err));
    STP_CHECK(stp__generator_residual(moves, pi, &info->residual, err));
    if (info->residual <= o->tolerance || o->method != STP_STATIONARY_AUTO)
      return STP_OK;
    if (!small) {
      info->solver = "bicgstab on level-order sweeps (gauss-seidel stalled)";
      STP_CHECK(bicgstab(w, moves, o, pi, info, err));
      return stp__generator_residual(moves, pi, &info->residual, err);
    }
    info->solver = "umfpack (gauss-seidel stalled)";
  } else {
    info->reason = STP_REASON_ASKED;
    info->solver = "umfpack";
  }
  gs_work_free(w); /* the factors need the room */
  STP_CHECK(stp__stationary_umfpack(moves, pi, err));
  return stp__generator_residual(moves, pi, &info->residual, err);
}

/* The levels, the level-ordered inflow matrix, and irreducibility. */
static stp_status prepare(const stp_csr *moves, gs_work *w, stp_error *err) {
  uint32_t *level, period;
  memset(w, 0, sizeof *w);
  STP_CHECK(stp__generator_levels(moves, &level, &period, err));
  stp_status s = gs_work_init(moves, level, period, w, err);
  free(level);
  if (s == STP_OK)
    s = check_reaches_0(w, err);
  return s;
}

stp_status stp__stationary_solve(const stp_csr *moves, const stp_stationary_options *o,
                                 double **pi_out, stp_stationary_info *info, stp_error *err) {
  *pi_out = NULL;
  memset(info, 0, sizeof *info);
  double t0 = stp__now();
  STP_CHECK(check_rates(moves, err));
  gs_work w = {0};
  double *pi = stp__malloc_array((size_t)moves->nrows, sizeof *pi);
  stp_status s = pi ? prepare(moves, &w, err)
                    : stp__oom(err, "allocating the stationary distribution");
  info->period = w.period;
  if (s == STP_OK)
    s = run_solver(&w, moves, o, pi, info, err);
  gs_work_free(&w);
  if (s == STP_OK && !(info->residual <= o->tolerance))
    s = stp__fail(err, STP_ENUMERIC,
                  "the stationary solve (%s, %zu sweeps) reached a scaled residual of %.3g, above "
                  "the tolerance %.3g",
                  info->solver, info->iterations, info->residual, o->tolerance);
  info->seconds = stp__now() - t0;
  if (s != STP_OK) {
    free(pi);
    return s;
  }
  *pi_out = pi;
  return STP_OK;
}
