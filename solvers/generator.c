/* generator.c: facts about a Markov-chain generator given by its moves:
 * the scaled residual of a candidate stationary vector, and the levels
 * (cyclic structure) of the chain, which the level-order Gauss-Seidel of
 * stationary.c and the state export of engine/chain.c both use.
 *
 * Levels: the period d of an irreducible chain is the gcd, over its moves
 * s -> t, of depth(s) + 1 - depth(t) (breadth-first depths from state 0),
 * and level = depth mod d grows by one along every move.  Chains of event
 * graphs have d = the number of transitions of each connected part (a
 * marking comes back only after every transition has fired equally often). */
#include "solvers/generator.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- residual --------------------------------------------------------------- */

stp_status stp__generator_residual(const stp_csr *moves, const double *pi, double *residual,
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
    if (fabs(pi[s]) > pmax)
      pmax = fabs(pi[s]);
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
    if (fabs(r[s]) > rmax)
      rmax = fabs(r[s]);
    if (col[s] > qnorm)
      qnorm = col[s];
  }
  free(r);
  free(col);
  /* A chain without moves (one state) has Q = 0: any pi balances it. */
  *residual = qnorm * pmax > 0 ? rmax / (qnorm * pmax) : 0;
  return STP_OK;
}

/* ---- reachability, irreducibility and levels ------------------------------------ */

stp_status stp__generator_bfs(const stp_csr *a, int64_t root, int64_t *depth, int64_t *reached,
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
  queue[tail++] = root;
  seen[root] = 1;
  if (depth)
    depth[root] = 0;
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

stp_status stp__generator_levels(const stp_csr *moves, uint32_t **level, uint32_t *period,
                                  stp_error *err) {
  *level = NULL;
  int64_t n = moves->nrows, reached = 0, missing = -1;
  int64_t *depth = stp__malloc_array((size_t)n, sizeof *depth);
  uint32_t *lv = stp__malloc_array((size_t)n, sizeof *lv);
  stp_status s = depth && lv ? stp__generator_bfs(moves, 0, depth, &reached, &missing, err)
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
