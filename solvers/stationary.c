/* stationary.c: the stationary-distribution driver (checks, levels,
 * choice of solver, residual) and the iterative solver, Gauss-Seidel swept
 * level by level.
 *
 * Levels: the period d of an irreducible chain is the gcd, over its moves
 * s -> t, of depth(s) + 1 - depth(t) (breadth-first depths from state 0),
 * and level = depth mod d grows by one along every move.  Chains of event
 * graphs have d = the number of transitions of each connected part (a
 * marking comes back only after every transition has fired equally often).
 * In level order, the balance equation of a state of level l+1 only
 * involves states of level l, so a sweep leaves every level but 0 exactly
 * balanced, and maps the restriction of pi to level 0 through one full turn
 * of the cycle: it is the power method on the chain observed once per turn,
 * which is aperiodic and mixes fast where the plain jump chain has period
 * d.  The same fact gives the residual of the current iterate for free:
 * only level 0 can be out of balance. */
#include "solvers/stationary.h"

#include "engine/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sweep until the estimated residual is this fraction of the tolerance:
 * sweeps are cheap and a smaller residual buys digits of the throughput. */
#define STP_GS_TARGET 1e-4
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

/* ---- residual --------------------------------------------------------------- */

stp_status stp__stationary_residual(const stp_csr *moves, const double *pi, double *residual,
                                    stp_error *err) {
  int64_t n = moves->nrows;
  double *r = stp__calloc((size_t)n, sizeof *r);   /* (pi Q)_j */
  double *col = stp__calloc((size_t)n, sizeof *col); /* column sums of |Q| */
  if (!r || !col) {
    free(r);
    free(col);
    return stp__oom(err, "computing a residual");
  }
  double pmax = 0;
  for (int64_t s = 0; s < n; s++) {
    pmax = fmax(pmax, fabs(pi[s]));
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++) {
      int64_t j = moves->j[e];
      if (j == s)
        continue;
      double q = moves->x[e];
      r[j] += pi[s] * q;
      r[s] -= pi[s] * q;
      col[j] += fabs(q);
      col[s] += fabs(q);
    }
  }
  double rmax = 0, qnorm = 0;
  for (int64_t s = 0; s < n; s++) {
    rmax = fmax(rmax, fabs(r[s]));
    qnorm = fmax(qnorm, col[s]);
  }
  free(r);
  free(col);
  /* A chain without moves (one state) has Q = 0: any pi balances it. */
  *residual = rmax == 0 ? 0 : rmax / (qnorm * pmax);
  return STP_OK;
}

/* ---- reachability, irreducibility and levels ------------------------------------ */

/* Breadth-first search from state 0 along a's rows (moves back to a state
 * ignored): the number of states reached, one state not reached (or -1),
 * and, when depth is non-NULL, the depth of every state reached. */
static stp_status bfs_from_0(const stp_csr *a, int64_t *depth, int64_t *reached,
                             int64_t *missing, stp_error *err) {
  int64_t n = a->nrows;
  int64_t *queue = stp__malloc_array((size_t)n, sizeof *queue);
  unsigned char *seen = stp__calloc((size_t)n, 1);
  if (!queue || !seen) {
    free(queue);
    free(seen);
    return stp__oom(err, "exploring the Markov chain");
  }
  int64_t head = 0, tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  if (depth)
    depth[0] = 0;
  while (head < tail) {
    int64_t s = queue[head++];
    for (int64_t e = a->p[s]; e < a->p[s + 1]; e++) {
      int64_t t = a->j[e];
      if (seen[t])
        continue;
      seen[t] = 1;
      if (depth)
        depth[t] = depth[s] + 1;
      queue[tail++] = t;
    }
  }
  *reached = tail;
  *missing = -1;
  for (int64_t s = 0; s < n && tail < n; s++)
    if (!seen[s]) {
      *missing = s;
      break;
    }
  free(queue);
  free(seen);
  return STP_OK;
}

static stp_status unreachable(int64_t missing, int64_t reached, int64_t n, stp_error *err) {
  return stp__fail(err, STP_ENUMERIC,
                   "the Markov chain is not irreducible: state %lld cannot be reached from "
                   "state 0 (%lld of %lld states can)",
                   (long long)missing, (long long)reached, (long long)n);
}

/* Period and levels from the depths (all states reached). */
static void levels_from_depths(const stp_csr *moves, const int64_t *depth, uint32_t *level,
                               uint32_t *period) {
  uint64_t d = 0;
  for (int64_t s = 0; s < moves->nrows; s++)
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++) {
      int64_t t = moves->j[e];
      if (t == s)
        continue;
      int64_t gap = depth[s] + 1 - depth[t];
      d = stp__gcd_u64(d, (uint64_t)(gap < 0 ? -gap : gap));
    }
  if (d == 0 || d > UINT32_MAX) /* no moves at all, or no usable structure */
    d = 1;
  *period = (uint32_t)d;
  for (int64_t s = 0; s < moves->nrows; s++)
    level[s] = (uint32_t)((uint64_t)depth[s] % d);
}

stp_status stp__stationary_levels(const stp_csr *moves, uint32_t **level, uint32_t *period,
                                  stp_error *err) {
  *level = NULL;
  int64_t n = moves->nrows, reached = 0, missing = -1;
  int64_t *depth = stp__malloc_array((size_t)n, sizeof *depth);
  uint32_t *lv = stp__malloc_array((size_t)n, sizeof *lv);
  stp_status s = depth && lv ? bfs_from_0(moves, depth, &reached, &missing, err)
                             : stp__oom(err, "computing the levels of the Markov chain");
  if (s == STP_OK && missing >= 0)
    s = unreachable(missing, reached, n, err);
  if (s == STP_OK) {
    levels_from_depths(moves, depth, lv, period);
    *level = lv;
    lv = NULL;
  }
  free(depth);
  free(lv);
  return s;
}

/* Every state reaches state 0 (that 0 reaches every state is checked by
 * stp__stationary_levels). */
static stp_status check_reaches_0(const stp_csr *moves_t, stp_error *err) {
  int64_t reached = 0, missing = -1;
  STP_CHECK(bfs_from_0(moves_t, NULL, &reached, &missing, err));
  if (missing >= 0)
    return stp__fail(err, STP_ENUMERIC,
                     "the Markov chain is not irreducible: state %lld cannot reach state 0 "
                     "(%lld of %lld states can); it has an absorbing class",
                     (long long)missing, (long long)reached, (long long)moves_t->nrows);
  return STP_OK;
}

/* ---- Gauss-Seidel in level order -------------------------------------------------- */

typedef struct gs_work {
  const stp_csr *mt;  /* transpose of the moves: row s lists the moves into s */
  double *out;        /* rate out of each state (moves back to it excluded) */
  int64_t *order;     /* states sorted by level */
  int64_t *start;     /* period + 1 offsets of the levels in order */
  uint32_t period;
  double qnorm;       /* ||Q||_1 */
} gs_work;

static void gs_work_free(gs_work *w) {
  free(w->out);
  free(w->order);
  free(w->start);
}

/* Inflow into s: sum over moves s' -> s (s' != s) of pi[s'] q. */
static inline double inflow(const stp_csr *mt, const double *pi, int64_t s) {
  double in = 0;
  for (int64_t e = mt->p[s]; e < mt->p[s + 1]; e++)
    if (mt->j[e] != s)
      in += pi[mt->j[e]] * mt->x[e];
  return in;
}

static stp_status gs_work_init(const stp_csr *moves, const stp_csr *mt, const uint32_t *level,
                               uint32_t period, gs_work *w, stp_error *err) {
  int64_t n = moves->nrows;
  memset(w, 0, sizeof *w);
  w->mt = mt;
  w->period = period;
  w->out = stp__calloc((size_t)n, sizeof *w->out);
  w->order = stp__malloc_array((size_t)n, sizeof *w->order);
  w->start = stp__calloc((size_t)w->period + 1, sizeof *w->start);
  if (!w->out || !w->order || !w->start) {
    gs_work_free(w);
    return stp__oom(err, "preparing the iterative solver");
  }
  for (int64_t s = 0; s < n; s++) {
    double in = 0;
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++)
      if (moves->j[e] != s)
        w->out[s] += moves->x[e];
    for (int64_t e = mt->p[s]; e < mt->p[s + 1]; e++)
      if (mt->j[e] != s)
        in += mt->x[e];
    w->qnorm = fmax(w->qnorm, w->out[s] + in);
  }
  /* Counting sort of the states by level. */
  for (int64_t s = 0; s < n; s++)
    w->start[level[s] + 1]++;
  for (uint32_t l = 0; l < w->period; l++)
    w->start[l + 1] += w->start[l];
  int64_t *next = stp__malloc_array(w->period, sizeof *next);
  if (!next) {
    gs_work_free(w);
    return stp__oom(err, "preparing the iterative solver");
  }
  memcpy(next, w->start, w->period * sizeof *next);
  for (int64_t s = 0; s < n; s++)
    w->order[next[level[s]]++] = s;
  free(next);
  return STP_OK;
}

/* The level-order estimate of the scaled residual of pi: the imbalance of
 * level 0 (every other level is balanced by the previous sweep). */
static double level0_residual(const gs_work *w, const double *pi) {
  double rmax = 0, pmax = 0;
  for (int64_t q = w->start[0]; q < w->start[1]; q++) {
    int64_t s = w->order[q];
    rmax = fmax(rmax, fabs(inflow(w->mt, pi, s) - pi[s] * w->out[s]));
  }
  for (int64_t q = 0; q < w->start[w->period]; q++)
    pmax = fmax(pmax, pi[q]);
  return rmax == 0 ? 0 : rmax / (w->qnorm * pmax);
}

/* One sweep in level order, then normalisation to sum 1. */
static stp_status gs_sweep(const gs_work *w, double *pi, stp_error *err) {
  int64_t n = w->start[w->period];
  double sum = 0;
  for (int64_t q = 0; q < n; q++) {
    int64_t s = w->order[q];
    pi[s] = inflow(w->mt, pi, s) / w->out[s];
    sum += pi[s];
  }
  if (!(sum > 0) || !isfinite(sum))
    return stp__fail(err, STP_ENUMERIC, "the Gauss-Seidel iterate has sum %g", sum);
  for (int64_t s = 0; s < n; s++)
    pi[s] /= sum;
  return STP_OK;
}

static stp_status gauss_seidel(const stp_csr *moves, const stp_csr *mt, const uint32_t *level,
                               uint32_t period, const stp_stationary_options *o, double *pi,
                               stp_stationary_info *info, stp_error *err) {
  gs_work w;
  STP_CHECK(gs_work_init(moves, mt, level, period, &w, err));
  int64_t n = moves->nrows;
  for (int64_t s = 0; s < n; s++)
    pi[s] = 1.0 / (double)n;
  stp_status s = STP_OK;
  double low = INFINITY, halved = INFINITY;
  size_t it = 0, low_at = 0, halved_at = 0;
  for (;;) {
    double est;
    if (w.period > 1)
      est = level0_residual(&w, pi);
    else if ((s = stp__stationary_residual(moves, pi, &est, err)) != STP_OK)
      break;
    if (est < low) {
      low = est;
      low_at = it;
    }
    if (est < 0.5 * halved) {
      halved = est;
      halved_at = it;
    }
    if (est <= o->tolerance * STP_GS_TARGET || it >= o->max_sweeps ||
        it - halved_at >= STP_GS_STUCK || (est <= o->tolerance && it - low_at >= STP_GS_FLOOR))
      break;
    if (o->interrupt && *o->interrupt) {
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted after %zu Gauss-Seidel sweeps", it);
      break;
    }
    if ((s = gs_sweep(&w, pi, err)) != STP_OK)
      break;
    it++;
  }
  info->iterations = it;
  gs_work_free(&w);
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

/* Which solver AUTO starts with: the iterative one whenever the chain has
 * levels (it is faster at every size measured), else UMFPACK while small. */
static bool start_direct(const stp_csr *moves, uint32_t period, const stp_stationary_options *o) {
  if (o->method != STP_STATIONARY_AUTO)
    return o->method == STP_STATIONARY_DIRECT;
  return period == 1 && moves->nrows <= o->direct_max_states;
}

/* Run the chosen solver; AUTO falls back to UMFPACK when Gauss-Seidel
 * stalls above the tolerance on a chain small enough to factorise. */
static stp_status run_solver(const stp_csr *moves, stp_csr **mt, const uint32_t *level,
                             uint32_t period, const stp_stationary_options *o, double *pi,
                             stp_stationary_info *info, stp_error *err) {
  if (!start_direct(moves, period, o)) {
    info->solver = "gauss-seidel (level order)";
    STP_CHECK(gauss_seidel(moves, *mt, level, period, o, pi, info, err));
    STP_CHECK(stp__stationary_residual(moves, pi, &info->residual, err));
    if (info->residual <= o->tolerance || o->method != STP_STATIONARY_AUTO ||
        moves->nrows > o->direct_max_states)
      return STP_OK;
    info->solver = "umfpack (gauss-seidel stalled)";
  } else {
    info->solver = "umfpack";
  }
  stp__csr_free(*mt); /* the factors need the room */
  *mt = NULL;
  STP_CHECK(stp__stationary_umfpack(moves, pi, err));
  return stp__stationary_residual(moves, pi, &info->residual, err);
}

stp_status stp__stationary_solve(const stp_csr *moves, const stp_stationary_options *o,
                                 double **pi_out, stp_stationary_info *info, stp_error *err) {
  *pi_out = NULL;
  memset(info, 0, sizeof *info);
  double t0 = stp__now();
  STP_CHECK(check_rates(moves, err));
  stp_csr *mt = NULL;
  uint32_t *level = NULL;
  double *pi = stp__malloc_array((size_t)moves->nrows, sizeof *pi);
  stp_status s = pi ? stp__stationary_levels(moves, &level, &info->period, err)
                    : stp__oom(err, "allocating the stationary distribution");
  if (s == STP_OK)
    s = stp__csr_transpose(moves, &mt, err);
  if (s == STP_OK)
    s = check_reaches_0(mt, err);
  if (s == STP_OK)
    s = run_solver(moves, &mt, level, info->period, o, pi, info, err);
  stp__csr_free(mt);
  free(level);
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
