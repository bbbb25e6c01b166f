/* reduce_ref.c: reference computations for the reduction-tree tests
 * (reduce_ref.h).  Plain and slow on purpose: no heap, no exact-count
 * times, no shared code with models/reduce/. */
#include "reduce_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double ref_receive(const double *r, size_t m, double d, double c) {
  double port = 0, done = 0;
  for (size_t k = 0; k < m; k++) {
    double arrive = fmax(r[k], port) + d;
    port = arrive;
    done = fmax(arrive, done) + c;
  }
  return done;
}

static double permute(double *r, size_t m, size_t k, double d, double c) {
  if (k == m)
    return ref_receive(r, m, d, c);
  double best = INFINITY;
  for (size_t j = k; j < m; j++) {
    double t = r[k];
    r[k] = r[j];
    r[j] = t;
    best = fmin(best, permute(r, m, k + 1, d, c));
    r[j] = r[k];
    r[k] = t;
  }
  return best;
}

double ref_receive_best(const double *r, size_t m, double d, double c) {
  double tmp[REF_MAX_N];
  memcpy(tmp, r, m * sizeof *r);
  return permute(tmp, m, 0, d, c);
}

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ref_prop3(const double *r, size_t m, double d, double c, bool smallest) {
  double s[REF_MAX_N];
  memcpy(s, r, m * sizeof *r);
  qsort(s, m, sizeof *s, ascending);
  double best = 0;
  for (size_t j = 1; j <= m; j++) {
    double tj = smallest ? s[j - 1] : s[m - j];
    best = fmax(best, tj + d + (double)(m - j) * fmax(d, c) + c);
  }
  return best;
}

/* ready(u) from the sink down, by recursion (independent of the index
 * order the library relies on). */
static double ready(size_t n, const uint64_t *child, size_t u, double d, double c, int how) {
  double r[REF_MAX_N] = {0};
  size_t m = 0;
  for (size_t v = 2; v <= n; v++)
    if (child[v] == u)
      r[m++] = ready(n, child, v, d, c, how);
  if (how == 0)
    return ref_receive_best(r, m, d, c);
  return ref_prop3(r, m, d, c, how == 1);
}

double ref_tree_best(size_t n, const uint64_t *child, double d, double c) {
  return ready(n, child, 1, d, c, 0);
}

double ref_tree_prop3(size_t n, const uint64_t *child, double d, double c, bool smallest) {
  return ready(n, child, 1, d, c, smallest ? 1 : 2);
}

static double all_trees(size_t n, uint64_t *child, size_t v, double d, double c, size_t lim) {
  if (v > n) {
    if (lim) {
      bool receives[REF_MAX_N + 1] = {0};
      size_t count = 0;
      for (size_t w = 2; w <= n; w++)
        if (!receives[child[w]])
          receives[child[w]] = true, count++;
      if (count > lim)
        return INFINITY;
    }
    return ref_tree_best(n, child, d, c);
  }
  double best = INFINITY;
  for (uint64_t u = 1; u < v; u++) {
    child[v] = u;
    best = fmin(best, all_trees(n, child, v + 1, d, c, lim));
  }
  return best;
}

double ref_opt_exhaustive(size_t n, double d, double c, size_t max_receivers) {
  uint64_t child[REF_MAX_N + 1] = {0};
  return n <= 1 ? 0 : all_trees(n, child, 2, d, c, max_receivers);
}

void ref_opt_dp(size_t nmax, int64_t d, int64_t c, int64_t *out) {
  int64_t mx = d > c ? d : c;
  out[1] = 0;
  for (size_t n = 2; n <= nmax; n++) {
    int64_t best = INT64_MAX;
    for (size_t k = 1; k < n; k++) {
      int64_t a = out[n - k] + mx, b = out[k] + d + c;
      int64_t v = a > b ? a : b;
      if (v < best)
        best = v;
    }
    out[n] = best;
  }
}

void ref_greedy(size_t n, int64_t d, int64_t c, size_t K, uint64_t *child) {
  int64_t *s = calloc(n + 1, sizeof *s), mx = d > c ? d : c;
  for (size_t i = 2; i <= n; i++) {
    size_t last = K && K < i - 1 ? K : i - 1, M = 1;
    for (size_t j = 2; j <= last; j++)
      if (s[j] < s[M])
        M = j;
    s[i] = s[M] + c + d;
    s[M] += mx;
    child[i] = M;
  }
  free(s);
}

/* ---- exponential times, by race orders ----------------------------------- */

typedef struct dag {
  size_t count;
  double mean[16];
  uint32_t pred[16]; /* bit mask of predecessors */
} dag;

static double race(const dag *g, uint32_t done) {
  uint32_t all = (1u << g->count) - 1;
  if (done == all)
    return 0;
  double rate = 0;
  uint32_t running = 0;
  for (size_t a = 0; a < g->count; a++)
    if (!(done >> a & 1) && (g->pred[a] & done) == g->pred[a]) {
      if (g->mean[a] == 0) /* instantaneous: completes before any race */
        return race(g, done | 1u << a);
      running |= 1u << a;
      rate += 1 / g->mean[a];
    }
  double e = 1 / rate;
  for (size_t a = 0; a < g->count; a++)
    if (running >> a & 1)
      e += (1 / g->mean[a]) / rate * race(g, done | 1u << a);
  return e;
}

double ref_exp_makespan(size_t n, const uint64_t *child, const uint64_t order[][REF_MAX_N],
                        const size_t *count, double d, double c) {
  dag g = {0};
  size_t X[REF_MAX_N + 1], C[REF_MAX_N + 1][REF_MAX_N];
  for (size_t v = 2; v <= n; v++) {
    X[v] = g.count;
    g.mean[g.count++] = d;
  }
  for (size_t u = 1; u <= n; u++)
    for (size_t k = 0; k < count[u]; k++) {
      C[u][k] = g.count;
      g.mean[g.count++] = c;
    }
  for (size_t u = 1; u <= n; u++)
    for (size_t k = 0; k < count[u]; k++) {
      size_t v = order[u][k];
      g.pred[C[u][k]] |= 1u << X[v];
      if (k > 0) {
        g.pred[C[u][k]] |= 1u << C[u][k - 1];
        g.pred[X[v]] |= 1u << X[order[u][k - 1]];
      }
      if (count[v] > 0)
        g.pred[X[v]] |= 1u << C[v][count[v] - 1];
    }
  (void)child;
  return race(&g, 0);
}
