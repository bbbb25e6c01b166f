/* bound.c: per-processor busy times and the bounds on the throughput of
 * every mapping of a problem (optimize.h, "bounds"; docs/design.md,
 * "Choosing the mapping"): counting, capacity, size profiles; the root
 * bound is the smallest of these and the team bound (bound_teams.c). */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double counting_bound(const stp_opt_space *sp, const stp_opt_bound *b,
                             const stp_cancel *cancel);

void stp__opt_bound_free(stp_opt_bound *b) {
  free(b->in);
  free(b->out);
  free(b->t);
  free(b->order);
  free(b->norder);
  memset(b, 0, sizeof *b);
}

/* The fastest transfer of stage i's output from p (to a processor allowed
 * at stage i + 1) or into p (from one allowed at stage i - 1); INFINITY
 * when there is none.  Without a dense bandwidth table (very large
 * platforms) 0, a weaker bound. */
static double fastest(const stp_opt_space *sp, size_t i, size_t p, bool into) {
  if (!sp->bw)
    return 0;
  size_t other = into ? i - 1 : i + 1, stage = into ? i - 1 : i;
  double best = INFINITY;
  for (size_t q = 0; q < sp->M; q++) {
    if (q == p || !sp->allowed[other * sp->M + q])
      continue;
    double bw = into ? sp->bw[q * sp->M + p] : sp->bw[p * sp->M + q];
    if (bw > 0 && sp->plat->stages[stage].output / bw < best &&
        stp__opt_link_ok(sp, stage, into ? q : p, into ? p : q))
      best = sp->plat->stages[stage].output / bw;
  }
  return best;
}

typedef struct keyed {
  double t;
  size_t p;
} keyed;

static int by_time(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->p > y->p) - (x->p < y->p);
}

/* The fixed teams: their computations and members' cycle-times. */
static double fixed_bound(const stp_opt_space *sp, const stp_opt_bound *b) {
  double bound = INFINITY;
  for (size_t i = 0; i < sp->N; i++) {
    size_t r = stp__opt_fixed_size(sp, i);
    for (size_t k = sp->fixed_off[i]; k < sp->fixed_off[i + 1]; k++) {
      double v = (double)r / b->t[i * sp->M + sp->fixed[k]];
      if (v < bound)
        bound = v;
    }
  }
  return bound;
}

stp_status stp__opt_bound_init(const stp_opt_space *sp, stp_opt_bound *b, const stp_cancel *cancel,
                               stp_error *err) {
  size_t N = sp->N, M = sp->M;
  memset(b, 0, sizeof *b);
  b->in = stp__calloc(N * M, sizeof *b->in);
  b->out = stp__calloc(N * M, sizeof *b->out);
  b->t = stp__calloc(N * M, sizeof *b->t);
  b->order = stp__calloc(N * M, sizeof *b->order);
  b->norder = stp__calloc(N, sizeof *b->norder);
  if (!b->in || !b->out || !b->t || !b->order || !b->norder) {
    stp__opt_bound_free(b);
    return stp__oom(err, "bounding the throughput");
  }
  keyed *ks = stp__malloc_array(M, sizeof *ks);
  if (!ks) {
    stp__opt_bound_free(b);
    return stp__oom(err, "bounding the throughput");
  }
  bool strict = sp->model == STP_MODEL_STRICT;
  for (size_t i = 0; i < N; i++) {
    /* a stage at a time: M log M, or M^2 with the dense bandwidths */
    if (stp__cancelled(cancel)) {
      free(ks);
      stp__opt_bound_free(b);
      return stp__fail(err, STP_EINTERRUPTED, "%s: interrupted while bounding the throughput",
                       sp->plat->file);
    }
    for (size_t p = 0; p < M; p++) {
      size_t at = i * M + p;
      if (!sp->allowed[at]) {
        b->t[at] = INFINITY;
        continue;
      }
      double c = sp->comp[at];
      b->in[at] = i > 0 ? fastest(sp, i, p, true) : 0;
      b->out[at] = i + 1 < N ? fastest(sp, i, p, false) : 0;
      b->t[at] = strict ? c + b->in[at] + b->out[at] : fmax(c, fmax(b->in[at], b->out[at]));
      if (isfinite(b->t[at]))
        ks[b->norder[i]++] = (keyed){b->t[at], p};
    }
    qsort(ks, b->norder[i], sizeof *ks, by_time);
    for (size_t k = 0; k < b->norder[i]; k++)
      b->order[i * M + k] = ks[k].p;
  }
  free(ks);
  for (size_t p = 0; p < M; p++) {
    if (sp->reserved[p] != STP_OPT_NONE)
      continue;
    for (size_t i = 0; i < N; i++)
      if (isfinite(b->t[i * M + p]) && !stp__opt_fixed_size(sp, i)) {
        b->nfree++;
        break;
      }
  }
  b->fixed = fixed_bound(sp, b);
  return STP_OK;
}

size_t stp__opt_bound_need(const stp_opt_space *sp, const stp_opt_bound *b, size_t i, double theta,
                           bool strict, const size_t *owner, size_t room) {
  const size_t *ord = b->order + i * sp->M;
  size_t r = 0, cap = room < sp->kmax ? room : sp->kmax;
  for (size_t k = 0; k < b->norder[i] && r < cap; k++) {
    size_t p = ord[k];
    if (owner && owner[p] != STP_OPT_NONE)
      continue;
    r++; /* the r-th fastest free member: a team of r reaches r / t at most */
    double t = b->t[i * sp->M + p];
    /* reaching: r / t as the counting bound's candidates are computed, so
     * that a candidate reaches itself (t x (r / t) may round above r: the
     * bound had fallen to the next candidate, below the optimum) */
    if (strict ? t * theta < (double)r : (double)r / t >= theta)
      return r;
  }
  return 0;
}

/* Whether the free stages can all reach theta with distinct processors. */
static bool enough(const stp_opt_space *sp, const stp_opt_bound *b, double theta) {
  size_t total = 0;
  for (size_t i = 0; i < sp->N; i++) {
    if (stp__opt_fixed_size(sp, i))
      continue;
    size_t n = stp__opt_bound_need(sp, b, i, theta, false, NULL, b->nfree);
    if (n == 0 || (total += n) > b->nfree)
      return false;
  }
  return true;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The capacity bound.  R_i / max t <= sum over the team of 1 / t_i(p), so
 * the throughput theta of the free stages satisfies, for any weights
 * lambda >= 0 summing to 1 over them,
 *   theta = sum_i lambda_i theta <= sum_i lambda_i sum_{p in team i} e_ip
 *         <= sum_p max_i lambda_i e_ip,   e_ip = 1 / t_i(p)
 * (each processor in one team at most).  Every lambda gives a bound; the
 * smallest over lambda is the linear relaxation's (its dual): it is
 * approached by multiplicative weights, keeping the smallest value met. */
#define CAPACITY_ROUNDS 400
/* At most this many cells (stage x processor) visited in all: a round
 * visits N x M of them, 49 million on 7,000 x 7,000, where 400 rounds took
 * minutes.  Any round's value is a bound: fewer rounds, a weaker one. */
#define CAPACITY_WORK 1e8
/* Rounds poll the cancel from this many cells (a round of 0.1 ms less). */
#define CAPACITY_POLL_CELLS 1e5

static double capacity_value(const stp_opt_space *sp, const stp_opt_bound *b, const double *lambda,
                             double *grad) {
  double total = 0;
  for (size_t i = 0; i < sp->N; i++)
    grad[i] = 0;
  for (size_t p = 0; p < sp->M; p++) {
    if (sp->reserved[p] != STP_OPT_NONE)
      continue;
    double best = 0;
    size_t arg = SIZE_MAX;
    for (size_t i = 0; i < sp->N; i++) {
      double t = b->t[i * sp->M + p];
      if (stp__opt_fixed_size(sp, i) || !isfinite(t))
        continue;
      if (lambda[i] / t > best) {
        best = lambda[i] / t;
        arg = i;
      }
    }
    if (arg != SIZE_MAX) {
      total += best;
      grad[arg] += 1 / b->t[arg * sp->M + p];
    }
  }
  return total;
}

static double capacity_bound(const stp_opt_space *sp, const stp_opt_bound *b,
                             const stp_cancel *cancel) {
  size_t nfree = 0;
  for (size_t i = 0; i < sp->N; i++)
    nfree += !stp__opt_fixed_size(sp, i);
  double *lambda = stp__malloc_array(sp->N, sizeof *lambda);
  double *grad = stp__malloc_array(sp->N, sizeof *grad);
  double bound = INFINITY;
  if (!lambda || !grad || nfree == 0) {
    free(lambda);
    free(grad);
    return bound;
  }
  for (size_t i = 0; i < sp->N; i++)
    lambda[i] = stp__opt_fixed_size(sp, i) ? 0 : 1.0 / (double)nfree;
  double cells = (double)sp->N * (double)sp->M;
  int rounds = cells * CAPACITY_ROUNDS <= CAPACITY_WORK ? CAPACITY_ROUNDS
                                                        : (int)fmax(1, CAPACITY_WORK / cells);
  bool poll = cells >= CAPACITY_POLL_CELLS; /* small problems: no poll at each round */
  for (int round = 0; round < rounds && !(poll && round > 0 && stp__cancelled(cancel));
       round++) {
    double v = capacity_value(sp, b, lambda, grad);
    if (v < bound)
      bound = v;
    /* a stage that collects much capacity weighs less next time */
    double top = 0, sum = 0, step = 1.0 / sqrt(1.0 + round);
    for (size_t i = 0; i < sp->N; i++)
      top = fmax(top, grad[i]);
    for (size_t i = 0; i < sp->N && top > 0; i++) {
      lambda[i] *= exp(-step * (grad[i] / top - 0.5));
      sum += lambda[i];
    }
    for (size_t i = 0; i < sp->N && sum > 0; i++)
      lambda[i] /= sum;
  }
  free(lambda);
  free(grad);
  return bound;
}

double stp__opt_bound_resources(const stp_opt_space *sp, const stp_opt_bound *b,
                                const stp_cancel *cancel) {
  return fmin(counting_bound(sp, b, cancel), capacity_bound(sp, b, cancel));
}

double stp__opt_bound_root(const stp_opt_space *sp, const stp_opt_bound *b,
                          const stp_cancel *cancel) {
  double old = stp__opt_bound_resources(sp, b, cancel);
  double teams = stp__opt_bound_teams(sp, b, old, cancel);
  /* the team bound, when it completes, is below the price bound (it knows
   * the partners and matches whole profiles); when it did not, prices */
  return teams < old ? teams : stp__opt_bound_prices(sp, b, old, cancel);
}

/* Above this many candidate values the counting bound is left out (the
 * capacity bound stands): sorting 49 million of them (7,000 x 7,000) took
 * seconds that no deadline could interrupt. */
#define COUNTING_MAX_CANDIDATES ((size_t)1 << 22)

static double counting_bound(const stp_opt_space *sp, const stp_opt_bound *b,
                             const stp_cancel *cancel) {
  /* the bound is one of the values r / t_(r) of some stage: try them in
   * order (feasibility only falls as theta grows) */
  size_t n = 0;
  for (size_t i = 0; i < sp->N; i++)
    if (!stp__opt_fixed_size(sp, i))
      n += b->norder[i] < sp->kmax ? b->norder[i] : sp->kmax;
  if (n == 0 || n > COUNTING_MAX_CANDIDATES || stp__cancelled(cancel))
    return b->fixed;
  double *cand = stp__malloc_array(n, sizeof *cand);
  if (!cand)
    return b->fixed; /* still an upper bound when finite; INFINITY otherwise */
  size_t k = 0;
  for (size_t i = 0; i < sp->N; i++) {
    if (stp__opt_fixed_size(sp, i))
      continue;
    for (size_t r = 1; r <= b->norder[i] && r <= sp->kmax; r++)
      cand[k++] = (double)r / b->t[i * sp->M + b->order[i * sp->M + r - 1]];
  }
  qsort(cand, n, sizeof *cand, by_value);
  size_t lo = 0, hi = n; /* largest index with enough(cand[index]) */
  if (!enough(sp, b, cand[0])) {
    free(cand);
    return 0; /* no mapping at all */
  }
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (enough(sp, b, cand[mid]))
      lo = mid;
    else
      hi = mid;
  }
  double bound = cand[lo];
  free(cand);
  return bound < b->fixed ? bound : b->fixed;
}

double stp__opt_bound_quick(const stp_opt_space *sp) {
  double bound = INFINITY;
  for (size_t i = 0; i < sp->N; i++) {
    double sum = 0;
    for (size_t p = 0; p < sp->M; p++)
      if (sp->allowed[i * sp->M + p])
        sum += 1 / sp->comp[i * sp->M + p];
    bound = fmin(bound, sum);
  }
  return bound;
}

double stp__opt_profile_bound(const stp_opt_space *sp, const stp_opt_bound *b, const size_t *stages,
                              size_t nstages, const size_t *size) {
  double bound = b->fixed;
  for (size_t k = 0; k < nstages; k++) {
    size_t i = stages[k], r = size[k];
    if (r == 0 || r > b->norder[i])
      return 0;
    double v = (double)r / b->t[i * sp->M + b->order[i * sp->M + r - 1]];
    bound = v < bound ? v : bound;
  }
  return bound;
}
