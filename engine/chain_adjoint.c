/* chain_adjoint.c: the reward gradient of a Markov chain by one Poisson
 * solve (chain_adjoint.h).
 *
 * The chains of event graphs are periodic: every firing moves level l to
 * level l+1 mod p.  h_s depends on the h of its successors, so the sweep
 * runs the levels backwards (p-1 down to 0) and, inside a level, the
 * states by decreasing depth: one sweep is then one step of the chain
 * watched once per turn of its cycle, backwards, and converges as fast as
 * the stationary sweeps do forwards (stationary.h). */
#include "engine/chain_adjoint.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sweep until the residual is this far below the tolerance, then stop at
 * the first sweep that does not halve it (as the stationary sweeps do). */
#define TARGET_FRACTION 1e-4
#define MAX_SWEEPS 20000
#define STALL_SWEEPS 20

/* Breadth-first depths from state 0 (states 0 cannot reach stay at
 * UINT64_MAX), the period, and the order of the sweep. */
static bool sweep_order(const stp_csr *mv, int64_t *order, uint32_t *period) {
  int64_t n = mv->nrows;
  uint64_t *depth = stp__malloc_array((size_t)n, sizeof *depth);
  int64_t *queue = stp__malloc_array((size_t)n, sizeof *queue);
  if (!depth || !queue) {
    free(depth);
    free(queue);
    return false;
  }
  for (int64_t s = 0; s < n; s++)
    depth[s] = UINT64_MAX;
  int64_t head = 0, tail = 0;
  depth[0] = 0;
  queue[tail++] = 0;
  uint64_t p = 0, maxd = 0;
  while (head < tail) {
    int64_t s = queue[head++];
    for (int64_t e = mv->p[s]; e < mv->p[s + 1]; e++) {
      int64_t j = mv->j[e];
      if (j == s)
        continue;
      if (depth[j] == UINT64_MAX) {
        depth[j] = depth[s] + 1;
        maxd = depth[j] > maxd ? depth[j] : maxd;
        queue[tail++] = j;
      } else {
        uint64_t a = depth[s] + 1, b = depth[j];
        p = stp__gcd_u64(p, a > b ? a - b : b - a);
      }
    }
  }
  if (p == 0)
    p = maxd + 1; /* a tree-like chain: no cycle seen (cannot happen when irreducible) */
  /* counting sort: key (level, depth) decreasing; unreached states last */
  for (int64_t s = 0; s < n; s++)
    if (depth[s] == UINT64_MAX)
      depth[s] = 0;
  uint64_t nkeys = maxd + 1;
  uint64_t *count = stp__calloc((size_t)nkeys + 1, sizeof *count);
  if (!count) {
    free(depth);
    free(queue);
    return false;
  }
  /* rank of a depth d: levels p-1 .. 0, and in each level depths
   * decreasing; the key encodes (level, depth) and sorts in that order */
  uint64_t *rank = stp__malloc_array((size_t)nkeys, sizeof *rank);
  if (!rank) {
    free(depth);
    free(queue);
    free(count);
    return false;
  }
  for (uint64_t d = 0; d <= maxd; d++)
    rank[d] = (p - 1 - d % p) * nkeys + (maxd - d);
  qsort(rank, (size_t)nkeys, sizeof *rank, stp__cmp_u64);
  for (uint64_t k = 0; k < nkeys; k++)
    count[k] = maxd - rank[k] % nkeys; /* the depth of rank k, kept in count for now */
  for (uint64_t k = 0; k < nkeys; k++)
    rank[count[k]] = k;
  memset(count, 0, ((size_t)nkeys + 1) * sizeof *count);
  for (int64_t s = 0; s < n; s++)
    count[rank[depth[s]] + 1]++;
  for (uint64_t k = 0; k < nkeys; k++)
    count[k + 1] += count[k];
  for (int64_t s = 0; s < n; s++)
    order[count[rank[depth[s]]]++] = s;
  *period = p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
  free(rank);
  free(count);
  free(depth);
  free(queue);
  return true;
}

/* ||Q h - b||_inf / (||Q||_inf ||h||_inf + ||b||_inf). */
static double residual(const stp_csr *mv, const double *h, const double *b) {
  double worst = 0, qn = 0, hn = 0, bn = 0;
  for (int64_t s = 0; s < mv->nrows; s++) {
    double acc = 0, q = 0;
    for (int64_t e = mv->p[s]; e < mv->p[s + 1]; e++)
      if (mv->j[e] != s) {
        acc += mv->x[e] * (h[mv->j[e]] - h[s]);
        q += mv->x[e];
      }
    worst = fmax(worst, fabs(acc - b[s]));
    qn = fmax(qn, 2 * q);
    hn = fmax(hn, fabs(h[s]));
    bn = fmax(bn, fabs(b[s]));
  }
  double scale = qn * hn + bn;
  return scale > 0 ? worst / scale : 0;
}

static void deflate(int64_t n, const double *pi, double *h) {
  double c = 0;
  for (int64_t s = 0; s < n; s++)
    c += pi[s] * h[s];
  for (int64_t s = 0; s < n; s++)
    h[s] -= c;
}

/* One sweep; returns the largest change times its row's rate, which is
 * the residual the row had when its turn came (an estimate of the next
 * residual that costs nothing), and the largest |h| in *hmax. */
static double sweep(const stp_csr *mv, const int64_t *order, const double *b, double *h,
                    double *hmax) {
  double est = 0, hm = 0;
  for (int64_t k = 0; k < mv->nrows; k++) {
    int64_t s = order[k];
    double acc = 0, q = 0;
    for (int64_t e = mv->p[s]; e < mv->p[s + 1]; e++)
      if (mv->j[e] != s) {
        acc += mv->x[e] * h[mv->j[e]];
        q += mv->x[e];
      }
    if (q > 0) {
      double next = (acc - b[s]) / q;
      est = fmax(est, fabs(next - h[s]) * q);
      h[s] = next;
    }
    hm = fmax(hm, fabs(h[s]));
  }
  *hmax = hm;
  return est;
}

/* ||Q||_inf and ||b||_inf, for the scale of the estimates. */
static void norms(const stp_csr *mv, const double *b, double *qn, double *bn) {
  *qn = *bn = 0;
  for (int64_t s = 0; s < mv->nrows; s++) {
    double q = 0;
    for (int64_t e = mv->p[s]; e < mv->p[s + 1]; e++)
      q += mv->j[e] != s ? mv->x[e] : 0;
    *qn = fmax(*qn, 2 * q);
    *bn = fmax(*bn, fabs(b[s]));
  }
}

/* Q h = b by the sweeps: until the sweeps' estimate is TARGET_FRACTION of
 * the tolerance, or has not halved in STALL_SWEEPS sweeps (rounding), and
 * the exact residual is within the tolerance. */
static stp_status poisson(const stp_csr *mv, const double *pi, const double *b, const int64_t *order,
                          const stp_options *o, double *h, stp_adjoint_info *info,
                          stp_error *err) {
  int64_t n = mv->nrows;
  double tol = o->solver_tolerance > 0 ? o->solver_tolerance : 1e-9;
  double target = tol * TARGET_FRACTION, low = INFINITY, res = INFINITY;
  size_t low_at = 0, it = 0;
  double qn, bn, hmax;
  norms(mv, b, &qn, &bn);
  memset(h, 0, (size_t)n * sizeof *h);
  while (it < MAX_SWEEPS) {
    if (stp__cancelled(&o->control.cancel))
      return stp__fail(err, STP_EINTERRUPTED, "interrupted in the adjoint solve");
    double est = sweep(mv, order, b, h, &hmax);
    deflate(n, pi, h);
    it++;
    est /= qn * hmax + bn > 0 ? qn * hmax + bn : 1;
    if (est < low / 2) {
      low = est;
      low_at = it;
    }
    bool stalled = it - low_at >= STALL_SWEEPS;
    if (est <= target || stalled || (est <= tol && it - low_at >= 3)) {
      res = residual(mv, h, b);
      if (res <= tol || stalled)
        break;
    }
  }
  info->residual = res;
  info->sweeps = it;
  if (!(res <= tol))
    return stp__fail(err, STP_ENUMERIC,
                     "the adjoint (Poisson) solve stopped at a residual of %.3g after %zu sweeps "
                     "(tolerance %.3g)",
                     res, it, tol);
  return STP_OK;
}

stp_status stp__chain_reward_gradient(const stp_chain *c, const double *pi, const double *weight,
                                      const stp_options *o, double *value, double *grad,
                                      stp_adjoint_info *info, stp_error *err) {
  double t0 = stp__now();
  const stp_csr *mv = c->moves;
  int64_t n = mv->nrows;
  memset(info, 0, sizeof *info);
  double *b = stp__malloc_array((size_t)n, sizeof *b);
  double *h = stp__malloc_array((size_t)n, sizeof *h);
  int64_t *order = stp__malloc_array((size_t)n, sizeof *order);
  if (!b || !h || !order || !sweep_order(mv, order, &info->period)) {
    free(b);
    free(h);
    free(order);
    return stp__oom(err, "allocating the adjoint solve");
  }
  double rho = 0;
  for (int64_t s = 0; s < n; s++) {
    double r = 0;
    for (int64_t e = mv->p[s]; e < mv->p[s + 1]; e++)
      r += weight[c->event[e]] * mv->x[e];
    b[s] = r;
    rho += pi[s] * r;
  }
  for (int64_t s = 0; s < n; s++)
    b[s] = rho - b[s];
  stp_status st = poisson(mv, pi, b, order, o, h, info, err);
  if (st == STP_OK) {
    memset(grad, 0, c->nevents * sizeof *grad);
    for (int64_t s = 0; s < n; s++)
      for (int64_t e = mv->p[s]; e < mv->p[s + 1]; e++) {
        uint32_t t = c->event[e];
        grad[t] += pi[s] * mv->x[e] * (h[mv->j[e]] - h[s] + weight[t]);
      }
    *value = rho;
  }
  info->seconds = stp__now() - t0;
  free(b);
  free(h);
  free(order);
  return st;
}
