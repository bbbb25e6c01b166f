/* mcr_ref.c: slow but obviously correct cycle-ratio algorithms (see
 * mcr_ref.h), and the random graphs the Howard tests run on. */
#include "mcr_ref.h"

#include "testutil.h"

#include <math.h>
#include <stdlib.h>

/* ---- brute force: DFS over simple paths from each start s through nodes
 * greater than s, closing back at s (each elementary cycle once). */
typedef struct bf {
  const stp_digraph *g;
  uint32_t start;
  bool *on_path;
  double best;
  bool token_free;
} bf;

static void bf_dfs(bf *b, uint32_t u, double w, uint64_t tok) {
  const stp_digraph *g = b->g;
  for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
    uint32_t v = g->dst[e];
    double w2 = w + g->w[e];
    uint64_t t2 = tok + g->tok[e];
    if (v == b->start) {
      if (t2 == 0)
        b->token_free = true;
      else if (w2 / (double)t2 > b->best)
        b->best = w2 / (double)t2;
    } else if (v > b->start && !b->on_path[v]) {
      b->on_path[v] = true;
      bf_dfs(b, v, w2, t2);
      b->on_path[v] = false;
    }
  }
}

bool mcr_brute_force(const stp_digraph *g, double *ratio) {
  bf b = {.g = g, .best = -INFINITY};
  b.on_path = calloc(g->n, sizeof *b.on_path);
  for (uint32_t s = 0; s < g->n; s++) {
    b.start = s;
    b.on_path[s] = true;
    bf_dfs(&b, s, 0, 0);
    b.on_path[s] = false;
  }
  free(b.on_path);
  *ratio = b.best;
  return !b.token_free;
}

/* ---- Karp: D_k(v) = max weight of a k-edge walk ending at v (from anywhere). */
double mcr_karp(const stp_digraph *g) {
  size_t n = g->n;
  double *d = malloc((n + 1) * n * sizeof *d);
  for (size_t v = 0; v < n; v++)
    d[v] = 0;
  for (size_t k = 1; k <= n; k++) {
    double *prev = d + (k - 1) * n, *cur = d + k * n;
    for (size_t v = 0; v < n; v++)
      cur[v] = -INFINITY;
    for (uint32_t u = 0; u < n; u++) {
      if (prev[u] == -INFINITY)
        continue;
      for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
        if (prev[u] + g->w[e] > cur[g->dst[e]])
          cur[g->dst[e]] = prev[u] + g->w[e];
    }
  }
  double best = -INFINITY;
  for (size_t v = 0; v < n; v++) {
    double dn = d[n * n + v];
    if (dn == -INFINITY)
      continue;
    double worst = INFINITY;
    for (size_t k = 0; k < n; k++)
      if (d[k * n + v] != -INFINITY && (dn - d[k * n + v]) / (double)(n - k) < worst)
        worst = (dn - d[k * n + v]) / (double)(n - k);
    if (worst > best)
      best = worst;
  }
  free(d);
  return best;
}

/* ---- Lawler: lambda < lambda* iff some cycle has w - lambda*tok > 0. */
static bool positive_cycle(const stp_digraph *g, double lambda, double *dist) {
  for (uint32_t v = 0; v < g->n; v++)
    dist[v] = 0;
  for (uint32_t it = 0; it <= g->n; it++) {
    bool changed = false;
    for (uint32_t u = 0; u < g->n; u++)
      for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
        double c = dist[u] + g->w[e] - lambda * g->tok[e];
        if (c > dist[g->dst[e]] + 1e-12 * fabs(c)) {
          dist[g->dst[e]] = c;
          changed = true;
        }
      }
    if (!changed)
      return false;
  }
  return true;
}

double mcr_lawler(const stp_digraph *g, double rtol) {
  double wsum = 0;
  for (uint64_t e = 0; e < g->m; e++)
    wsum += g->w[e];
  double *dist = malloc(g->n * sizeof *dist);
  double lo = 0, hi = wsum + 1;
  while (hi - lo > rtol * hi) {
    double mid = 0.5 * (lo + hi);
    if (positive_cycle(g, mid, dist))
      lo = mid;
    else
      hi = mid;
  }
  free(dist);
  return 0.5 * (lo + hi);
}

stp_digraph *random_graph(struct trng *r, uint32_t n, uint64_t m, double p_token,
                        uint32_t max_tokens) {
  uint32_t *order = malloc(n * sizeof *order); /* a random topological order */
  for (uint32_t i = 0; i < n; i++)
    order[i] = i;
  for (uint32_t i = n; i > 1; i--) {
    uint32_t j = (uint32_t)trng_int(r, 0, i - 1), t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  stp_edge_list el = {0};
  stp_error err;
  cr_assert_eq(stp__edges_reserve(&el, m + n, &err), STP_OK);
  for (uint32_t u = 0; u < n; u++) /* a ring keeps most graphs cyclic */
    stp__edges_push(&el, u, (u + 1) % n, trng_uniform(r, 1, 10), 1);
  for (uint64_t k = 0; k < m; k++) {
    uint32_t u = (uint32_t)trng_int(r, 0, n - 1), v = (uint32_t)trng_int(r, 0, n - 1);
    uint32_t tok = trng_uniform(r, 0, 1) < p_token ? (uint32_t)trng_int(r, 1, max_tokens) : 0;
    if (tok == 0 && order[u] >= order[v])
      tok = 1;
    stp__edges_push(&el, u, v, trng_uniform(r, 1, 10), tok);
  }
  free(order);
  stp_digraph *g;
  cr_assert_eq(stp__digraph_from_edges(n, &el, &g, &err), STP_OK);
  return g;
}
