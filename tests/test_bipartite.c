/* test_bipartite.c: the bipartite solvers against brute force on small
 * random graphs: maximum-weight matching (every subset of edges that is a
 * matching), edge colouring with the maximum degree (validity), the
 * degree-interval subgraph (every subset of edges); and the expected
 * maximum of independent exponentials: harmonic numbers, the order
 * statistics recursion and quadrature against each other, inclusion-
 * exclusion on small sets, and Monte Carlo within a sigma band. */
#include "solvers/bcolour.h"
#include "solvers/bdegree.h"
#include "solvers/bmatch.h"
#include "solvers/expmax.h"
#include "support/testutil.h"

#include <stdlib.h>

typedef struct graph {
  size_t nl, nr, ne;
  uint32_t u[16], v[16];
  stp_w2 w[16];
} graph;

static void random_graph(trng *g, graph *G, size_t max_e, int64_t maxw, int64_t maxmajor) {
  G->nl = trng_int(g, 1, 5);
  G->nr = trng_int(g, 1, 5);
  G->ne = trng_int(g, 0, max_e);
  for (size_t k = 0; k < G->ne; k++) { /* parallel edges allowed */
    G->u[k] = (uint32_t)trng_int(g, 0, G->nl - 1);
    G->v[k] = (uint32_t)trng_int(g, 0, G->nr - 1);
    G->w[k] = (stp_w2){(int64_t)trng_int(g, 0, (size_t)maxmajor),
                       (int64_t)trng_int(g, 1, (size_t)maxw)};
  }
}

static bool is_matching(const graph *G, unsigned mask) {
  unsigned l = 0, r = 0;
  for (size_t k = 0; k < G->ne; k++)
    if (mask >> k & 1) {
      if ((l >> G->u[k] & 1) || (r >> G->v[k] & 1))
        return false;
      l |= 1u << G->u[k];
      r |= 1u << G->v[k];
    }
  return true;
}

static int w2cmp(stp_w2 a, stp_w2 b) {
  if (a.major != b.major)
    return a.major < b.major ? -1 : 1;
  return a.minor < b.minor ? -1 : a.minor > b.minor;
}

Test(bipartite, max_weight_matching_against_brute_force) {
  trng g = {3};
  for (int it = 0; it < 3000; it++) {
    graph G;
    random_graph(&g, &G, 12, it % 3 ? 9 : 1000000, it % 2 ? 2 : 0);
    stp_w2 best = {0, 0};
    for (unsigned mask = 0; mask < 1u << G.ne; mask++) {
      if (!is_matching(&G, mask))
        continue;
      stp_w2 s = {0, 0};
      for (size_t k = 0; k < G.ne; k++)
        if (mask >> k & 1)
          s = (stp_w2){s.major + G.w[k].major, s.minor + G.w[k].minor};
      if (w2cmp(s, best) > 0)
        best = s;
    }
    unsigned char chosen[16];
    stp_w2 total;
    stp_error err = {0};
    cr_assert_eq(stp__bmatch_max_weight(G.nl, G.nr, G.ne, G.u, G.v, G.w, NULL, chosen, &total, &err),
                 STP_OK, "%s", err.message);
    unsigned mask = 0;
    for (size_t k = 0; k < G.ne; k++)
      mask |= (unsigned)chosen[k] << k;
    cr_assert(is_matching(&G, mask), "case %d: not a matching", it);
    cr_assert_eq(w2cmp(total, best), 0, "case %d: (%lld, %lld), brute force (%lld, %lld)", it,
                 (long long)total.major, (long long)total.minor, (long long)best.major,
                 (long long)best.minor);
  }
}

Test(bipartite, edge_colouring_uses_max_degree_colours) {
  trng g = {4};
  for (int it = 0; it < 2000; it++) {
    graph G;
    random_graph(&g, &G, 16, 1, 0);
    size_t deg[10] = {0}, D = 0;
    for (size_t k = 0; k < G.ne; k++) {
      D = ++deg[G.u[k]] > D ? deg[G.u[k]] : D;
      D = ++deg[5 + G.v[k]] > D ? deg[5 + G.v[k]] : D;
    }
    uint32_t col[16];
    stp_error err = {0};
    cr_assert_eq(stp__bcolour_edges(G.nl, G.nr, G.ne, G.u, G.v, D, col, &err), STP_OK, "%s",
                 err.message);
    for (size_t a = 0; a < G.ne; a++) {
      cr_assert_lt(col[a], D);
      for (size_t b = a + 1; b < G.ne; b++)
        if (G.u[a] == G.u[b] || G.v[a] == G.v[b])
          cr_assert_neq(col[a], col[b], "case %d: edges %zu and %zu share a vertex and a colour",
                        it, a, b);
    }
    if (D > 0) /* one colour fewer is impossible */
      cr_assert_eq(stp__bcolour_edges(G.nl, G.nr, G.ne, G.u, G.v, D - 1, col, &err), STP_EINVAL);
  }
}

Test(bipartite, degree_interval_subgraph_against_brute_force) {
  trng g = {5};
  for (int it = 0; it < 3000; it++) {
    graph G;
    random_graph(&g, &G, 12, 1, 0);
    int64_t lo[10], hi[10];
    for (size_t x = 0; x < G.nl + G.nr; x++) {
      lo[x] = (int64_t)trng_int(&g, 0, 2) - 1;
      hi[x] = lo[x] + (int64_t)trng_int(&g, 0, 2);
    }
    bool want = false;
    for (unsigned mask = 0; mask < 1u << G.ne && !want; mask++) {
      int64_t d[10] = {0};
      for (size_t k = 0; k < G.ne; k++)
        if (mask >> k & 1) {
          d[G.u[k]]++;
          d[G.nl + G.v[k]]++;
        }
      bool ok = true;
      for (size_t x = 0; x < G.nl + G.nr; x++)
        ok = ok && d[x] >= lo[x] && d[x] <= hi[x];
      want = ok;
    }
    bool got;
    unsigned char chosen[16];
    stp_error err = {0};
    cr_assert_eq(stp__bdegree_feasible(G.nl, G.nr, G.ne, G.u, G.v, lo, hi, &got, chosen, &err),
                 STP_OK);
    cr_assert_eq(got, want, "case %d", it);
    if (got) { /* the witness satisfies the bounds */
      int64_t d[10] = {0};
      for (size_t k = 0; k < G.ne; k++)
        if (chosen[k]) {
          d[G.u[k]]++;
          d[G.nl + G.v[k]]++;
        }
      for (size_t x = 0; x < G.nl + G.nr; x++)
        cr_assert(d[x] >= lo[x] && d[x] <= hi[x]);
    }
  }
}

/* ---- E[max of independent exponentials] -------------------------------------- */

/* Inclusion-exclusion over the subsets of the variables (exact, small n):
 * E[max] = sum_{S nonempty} (-1)^(|S|+1) / sum_{i in S} rate_i. */
static double incl_excl(const double *mu, size_t n) {
  double e = 0;
  for (unsigned S = 1; S < 1u << n; S++) {
    double rate = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++)
      if (S >> i & 1) {
        rate += 1 / mu[i];
        bits++;
      }
    e += (bits % 2 ? 1 : -1) / rate;
  }
  return e;
}

Test(expmax, harmonic_numbers) {
  double mean = 3.5, out;
  uint64_t count = 16;
  stp_expmax_method m;
  cr_assert_eq(stp__expmax(1, &mean, &count, &out, &m, NULL), STP_OK);
  cr_assert_eq(m, STP_EXPMAX_HARMONIC);
  /* H_16 = 2436559 / 720720 */
  assert_close(out, 3.5 * 2436559.0 / 720720.0, TOL_EXACT);
  count = 0;
  cr_assert_eq(stp__expmax(1, &mean, &count, &out, &m, NULL), STP_OK);
  cr_assert_eq(m, STP_EXPMAX_NONE);
  cr_assert_eq(out, 0);
}

Test(expmax, three_methods_agree) {
  trng g = {8};
  for (int it = 0; it < 300; it++) {
    size_t n = trng_int(&g, 1, 4);
    double mean[4];
    uint64_t count[4];
    double flat[16];
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
      mean[j] = trng_uniform(&g, 0.1, 10);
      count[j] = trng_int(&g, 1, 3);
      for (uint64_t c = 0; c < count[j]; c++)
        flat[k++] = mean[j];
    }
    double a, b, c;
    cr_assert_eq(stp__expmax_recursion(n, mean, count, &a, NULL), STP_OK);
    cr_assert_eq(stp__expmax_quadrature(n, mean, count, &b, NULL), STP_OK);
    c = incl_excl(flat, k);
    assert_close(a, c, 1e-11); /* inclusion-exclusion cancels: its own error ~1e-13 */
    assert_close(b, a, TOL_EXACT);
  }
  /* many variables: recursion against quadrature where inclusion-exclusion
   * is hopeless */
  double mean[3] = {1, 2.5, 7};
  uint64_t count[3] = {200, 50, 30};
  double a, b;
  cr_assert_eq(stp__expmax_recursion(3, mean, count, &a, NULL), STP_OK);
  cr_assert_eq(stp__expmax_quadrature(3, mean, count, &b, NULL), STP_OK);
  assert_close(a, b, TOL_EXACT);
}

Test(expmax, monte_carlo) {
  double mean[3] = {3, 2, 1};
  uint64_t count[3] = {5, 40, 100};
  double exact;
  cr_assert_eq(stp__expmax(3, mean, count, &exact, NULL, NULL), STP_OK);
  trng g = {12};
  const int runs = 200000;
  double s = 0, s2 = 0;
  for (int r = 0; r < runs; r++) {
    double m = 0;
    for (int j = 0; j < 3; j++)
      for (uint64_t c = 0; c < count[j]; c++) {
        double u = trng_uniform(&g, 0, 1);
        double x = -mean[j] * log1p(-u);
        m = x > m ? x : m;
      }
    s += m;
    s2 += m * m;
  }
  double avg = s / runs, sd = sqrt((s2 / runs - avg * avg) / runs);
  cr_assert(fabs(avg - exact) < 5 * sd, "Monte Carlo %g +- %g, exact %g", avg, sd, exact);
}

Test(expmax, beyond_the_recursion_limit) {
  /* 5 groups of 30: 31^5 > 10^6 states: quadrature, checked against the
   * recursion on the same groups merged pairwise into fewer states is not
   * possible, so against the bounds max_j mu_j H_k_j <= E <= mu_max H_total */
  double mean[5] = {1, 1.5, 2, 2.5, 3};
  uint64_t count[5] = {30, 30, 30, 30, 30};
  double e;
  stp_expmax_method m;
  cr_assert_eq(stp__expmax(5, mean, count, &e, &m, NULL), STP_OK);
  cr_assert_eq(m, STP_EXPMAX_QUADRATURE);
  double h30 = 0, h150 = 0;
  for (int i = 1; i <= 150; i++) {
    h150 += 1.0 / i;
    if (i <= 30)
      h30 += 1.0 / i;
  }
  cr_assert(e > 3 * h30 && e < 3 * h150, "%g", e);
}
