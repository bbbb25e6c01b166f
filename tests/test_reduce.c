/* test_reduce.c: the reduction trees of RR-7898 (Canon & Antoniu) against
 * independent computations (tests/support/reduce_ref.c): exhaustive search
 * over trees and reception orders, the dynamic programme of the optimal
 * length in integers, the closed forms of Propositions 13 and 16, the
 * paper's Figure 1, and the errata of Proposition 2, Algorithm 2 (line 14)
 * and Proposition 8.  The exponential and Monte Carlo values of the DAG are
 * in test_reduce_graph.c. */
#include "models/reduce/schedule.h"
#include "reduce_ref.h"
#include "streamtp_reduce.h"
#include "testutil.h"

#include <stdlib.h>

static stp_reduce *build(uint64_t n, double d, double c, stp_reduce_tree tree,
                         stp_reduce_algorithm alg, uint64_t K) {
  stp_reduce_spec s;
  stp_reduce_spec_init(&s, n, d, c);
  s.tree = tree;
  s.algorithm = alg;
  s.K = K;
  stp_reduce *r;
  stp_error err = {0};
  stp_status st = stp_reduce_build(&s, &r, &err);
  cr_assert_eq(st, STP_OK, "build n=%llu d=%g c=%g: %s", (unsigned long long)n, d, c,
               err.message);
  return r;
}

static double opt(uint64_t n, double d, double c) {
  stp_reduce *r = build(n, d, c, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0);
  double m = stp_reduce_makespan(r);
  stp_reduce_free(r);
  return m;
}

static const double COSTS[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 0}, {0, 1}, {3, 1},
                                  {1, 3}, {2, 3}, {3, 2}, {5, 2}};
#define NCOSTS (sizeof COSTS / sizeof COSTS[0])

/* ---- Figure 1 and the reference sequence ----------------------------------- */

Test(reduce, figure_1) {
  /* n = 4, d = c: children 1, 1, 1; transfers start at 2d, d, 0; length 4d. */
  for (double d = 0.5; d <= 2; d *= 2) {
    stp_reduce *r = build(4, d, d, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0);
    for (uint64_t i = 2; i <= 4; i++)
      cr_assert_eq(stp_reduce_child(r, i), 1);
    assert_close(stp_reduce_transfer_start(r, 2), 2 * d, TOL_EXACT);
    assert_close(stp_reduce_transfer_start(r, 3), d, TOL_EXACT);
    cr_assert_eq(stp_reduce_transfer_start(r, 4), 0);
    assert_close(stp_reduce_makespan(r), 4 * d, TOL_EXACT);
    cr_assert_eq(stp_reduce_reception(r, 1, 0), 4); /* equal ready times: larger first */
    cr_assert_eq(stp_reduce_reception(r, 1, 2), 2);
    stp_reduce_free(r);
  }
}

Test(reduce, reference_sequence_d_eq_c) {
  /* d = c = 1, n = 1..40 (the sequence: 0 2 3 4 4 5 5 5 6 6 6 6 6,
   * then 7 eight times, 8 thirteen times, 9 six times). */
  int want[41] = {0, 0, 2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6};
  int n = 14;
  for (int v = 7, reps[] = {8, 13, 6}, k = 0; k < 3; k++, v++)
    for (int j = 0; j < reps[k]; j++)
      want[n++] = v;
  cr_assert_eq(n, 41);
  for (uint64_t i = 1; i <= 40; i++)
    cr_assert_eq(opt(i, 1, 1), (double)want[i], "n = %llu", (unsigned long long)i);
}

/* ---- optimality -------------------------------------------------------------- */

Test(reduce, alg1_equals_dynamic_programme) {
  /* OPT(n) = min_k max(OPT(n-k) + max(d,c), OPT(k) + d + c) in integers. */
  static int64_t dp[401];
  for (int64_t d = 0; d <= 4; d++)
    for (int64_t c = 0; c <= 4; c++) {
      if (d + c == 0)
        continue;
      ref_opt_dp(400, d, c, dp);
      for (uint64_t n = 1; n <= 400; n++)
        cr_assert_eq(opt(n, (double)d, (double)c), (double)dp[n], "n=%llu d=%lld c=%lld",
                     (unsigned long long)n, (long long)d, (long long)c);
    }
}

Test(reduce, rational_costs_tie_like_integers) {
  /* d = a/10, c = b/10 are not exact doubles: the ties of Algorithm 1 and
   * of the reception orders must still be those of (a, b). */
  static int64_t dp[301];
  const int64_t ab[][2] = {{1, 3}, {3, 1}, {1, 1}, {2, 3}, {7, 3}};
  for (size_t k = 0; k < 5; k++) {
    ref_opt_dp(300, ab[k][0], ab[k][1], dp);
    for (uint64_t n = 1; n <= 300; n++) {
      stp_reduce *x = build(n, ab[k][0] / 10.0, ab[k][1] / 10.0, STP_REDUCE_OPTIMAL,
                            STP_REDUCE_ALG1, 0);
      stp_reduce *y = build(n, (double)ab[k][0], (double)ab[k][1], STP_REDUCE_OPTIMAL,
                            STP_REDUCE_ALG1, 0);
      for (uint64_t i = 2; i <= n; i++) {
        cr_assert_eq(stp_reduce_child(x, i), stp_reduce_child(y, i));
        assert_close(10 * stp_reduce_transfer_start(x, i), stp_reduce_transfer_start(y, i),
                     1e-12);
      }
      assert_close(10 * stp_reduce_makespan(x), (double)dp[n], 1e-12);
      stp_reduce_free(x);
      stp_reduce_free(y);
    }
  }
}

Test(reduce, trees_equal_the_printed_algorithms) {
  /* Algorithms 1 and 3 with a linear argmin in integers (the library uses
   * two queues), the library given d/10 and c/10 to exercise its ties. */
  static uint64_t want[1501];
  const int64_t ab[][2] = {{1, 1}, {1, 3}, {3, 1}, {2, 3}, {1, 0}, {0, 1}, {7, 2}};
  const size_t Ks[] = {0, 1, 2, 5, 40};
  for (size_t j = 0; j < 7; j++)
    for (size_t q = 0; q < 5; q++) {
      ref_greedy(1500, ab[j][0], ab[j][1], Ks[q], want);
      stp_reduce *r = build(1500, ab[j][0] / 10.0, ab[j][1] / 10.0, STP_REDUCE_OPTIMAL,
                            Ks[q] ? STP_REDUCE_ALG3 : STP_REDUCE_ALG1, Ks[q]);
      for (uint64_t i = 2; i <= 1500; i++)
        cr_assert_eq(stp_reduce_child(r, i), want[i], "d=%lld c=%lld K=%zu i=%llu",
                     (long long)ab[j][0], (long long)ab[j][1], Ks[q], (unsigned long long)i);
      stp_reduce_free(r);
    }
}

Test(reduce, alg1_optimal_by_exhaustive_search) {
  /* Every tree (child[v] < v covers every shape, Lemma 1) with every
   * reception order at every machine. */
  for (size_t k = 0; k < NCOSTS; k++)
    for (size_t n = 1; n <= 8; n++) {
      double d = COSTS[k][0], c = COSTS[k][1];
      cr_assert_eq(opt(n, d, c), ref_opt_exhaustive(n, d, c, 0), "n=%zu d=%g c=%g", n, d, c);
    }
}

/* Calls fn on every tree child[2..n], child[v] in [1, v - 1]. */
static void each_tree(size_t n, uint64_t *child, size_t v, void (*fn)(size_t, uint64_t *, void *),
                      void *data) {
  if (v > n) {
    fn(n, child, data);
    return;
  }
  for (uint64_t u = 1; u < v; u++) {
    child[v] = u;
    each_tree(n, child, v + 1, fn, data);
  }
}

static void check_order(size_t n, uint64_t *child, void *data) {
  const double *dc = data;
  stp__schedule s;
  stp_error err = {0};
  cr_assert_eq(stp__schedule_eval(n, child, (stp__rcost){dc[0], dc[1]}, &s, &err), STP_OK);
  double got = s.makespan.v;
  cr_assert_eq(got, ref_tree_best(n, child, dc[0], dc[1]), "n=%zu d=%g c=%g", n, dc[0], dc[1]);
  cr_assert_eq(got, ref_tree_prop3(n, child, dc[0], dc[1], true));
  stp__schedule_free(&s);
}

Test(reduce, reception_order_is_best_on_every_tree) {
  /* Erratum, Proposition 2: the recursion holds with t_i^j the j-th
   * *smallest* ready time of i's senders (the paper says largest).  On
   * every tree the library's order (increasing ready time) is the best of
   * all orders and agrees with the corrected recursion. */
  uint64_t child[REF_MAX_N + 1] = {0};
  for (size_t k = 0; k < NCOSTS; k++)
    for (size_t n = 2; n <= 7; n++)
      each_tree(n, child, 2, check_order, (void *)COSTS[k]);
}

Test(reduce, proposition_2_erratum_example) {
  /* Machine 1 receives from 3 (a leaf, ready at 0) and 2 (which reduced 4's
   * element, ready at d + c = 2); d = c = 1.  Taking 3 first, the makespan
   * is 4; the printed Proposition 2 (j-th largest) would give 5. */
  uint64_t child[5] = {0, 0, 1, 1, 2};
  stp__schedule s;
  stp_error err = {0};
  cr_assert_eq(stp__schedule_eval(4, child, (stp__rcost){1, 1}, &s, &err), STP_OK);
  cr_assert_eq(s.makespan.v, 4);
  cr_assert_eq(s.recv[s.first[1]], 3);
  cr_assert_eq(ref_tree_prop3(4, child, 1, 1, true), 4);
  cr_assert_eq(ref_tree_prop3(4, child, 1, 1, false), 5);
  stp__schedule_free(&s);
}

/* ---- binomial and Fibonacci trees --------------------------------------------- */

/* Order of a binomial tree rooted at u (Definition 12), -1 when it is not one:
 * the senders' subtrees are binomial of orders 0..k-1. */
static int binomial_order(const stp_reduce *r, uint64_t u) {
  uint64_t m = stp_reduce_reception_count(r, u);
  bool seen[64] = {0};
  for (uint64_t k = 0; k < m; k++) {
    int o = binomial_order(r, stp_reduce_reception(r, u, k));
    if (o < 0 || o >= 64 || seen[o])
      return -1;
    seen[o] = true;
  }
  for (uint64_t k = 0; k < m; k++)
    if (!seen[k])
      return -1;
  return (int)m;
}

Test(reduce, proposition_13_binomial_trees) {
  /* 2^k elements in k (d + c), any (d, c); Theorem 14: with min(d, c) = 0
   * Algorithm 1 gives that length, only binomial trees reach it, and 2^k + 1
   * elements take longer. */
  for (size_t j = 0; j < NCOSTS; j++)
    for (int k = 0; k <= 15; k++) {
      double d = COSTS[j][0], c = COSTS[j][1];
      uint64_t n = UINT64_C(1) << k;
      stp_reduce *r = build(n, d, c, STP_REDUCE_BINOMIAL, STP_REDUCE_ALG1, 0);
      cr_assert_eq(binomial_order(r, 1), k);
      cr_assert_eq(stp_reduce_makespan(r), k * (d + c), "k=%d d=%g c=%g", k, d, c);
      stp_reduce_free(r);
      if (fmin(d, c) == 0) {
        r = build(n, d, c, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0);
        cr_assert_eq(stp_reduce_makespan(r), k * (d + c));
        cr_assert_eq(binomial_order(r, 1), k);
        stp_reduce_free(r);
        cr_assert_gt(opt(n + 1, d, c), k * (d + c));
      }
    }
}

static uint64_t fib(int k) { /* F_1 = F_2 = 1 */
  uint64_t a = 0, b = 1;
  for (int i = 0; i < k; i++) {
    uint64_t t = a + b;
    a = b;
    b = t;
  }
  return a;
}

/* Order of a Fibonacci tree rooted at u (Definition 15: order k is an order
 * k-1 tree whose sink receives, last, from the sink of an order k-2 tree;
 * the paper's "parent" is the sender), -1 when it is not one; a single node
 * (order -1 or 0) gives 0.  m: how many of u's receptions count. */
static int fib_order(const stp_reduce *r, uint64_t u, uint64_t m) {
  if (m == 0)
    return 0;
  uint64_t last = stp_reduce_reception(r, u, m - 1);
  int a = fib_order(r, last, stp_reduce_reception_count(r, last)); /* order k-2 */
  int b = fib_order(r, u, m - 1);                                  /* order k-1 */
  if (a < 0 || b < 0)
    return -1;
  if (b == a + 1 || (a == 0 && b == 0))
    return b + 1;
  return -1;
}

Test(reduce, proposition_16_fibonacci_trees) {
  /* F_{k+2} elements in d + (k-1) max(d, c) + c; Theorem 17: with d = c,
   * Algorithm 1 reaches it and F_{k+2} + 1 elements take longer. */
  for (size_t j = 0; j < NCOSTS; j++)
    for (int k = 1; k <= 15; k++) {
      double d = COSTS[j][0], c = COSTS[j][1];
      uint64_t n = fib(k + 2);
      double want = d + (k - 1) * fmax(d, c) + c;
      stp_reduce *r = build(n, d, c, STP_REDUCE_FIBONACCI, STP_REDUCE_ALG1, 0);
      cr_assert_eq(stp_reduce_makespan(r), want, "k=%d d=%g c=%g", k, d, c);
      cr_assert_eq(fib_order(r, 1, stp_reduce_reception_count(r, 1)), k);
      stp_reduce_free(r);
      if (d == c) {
        cr_assert_eq(opt(n, d, c), want);
        cr_assert_gt(opt(n + 1, d, c), want);
      }
    }
}

Test(reduce, approximation_ratios_theorems_18_19) {
  for (size_t j = 0; j < NCOSTS; j++)
    for (uint64_t n = 1; n <= 600; n++) {
      double d = COSTS[j][0], c = COSTS[j][1], o = opt(n, d, c);
      stp_reduce *b = build(n, d, c, STP_REDUCE_BINOMIAL, STP_REDUCE_ALG1, 0);
      stp_reduce *f = build(n, d, c, STP_REDUCE_FIBONACCI, STP_REDUCE_ALG1, 0);
      cr_assert_geq(stp_reduce_makespan(b), o);
      cr_assert_geq(stp_reduce_makespan(f), o);
      cr_assert_leq(stp_reduce_makespan(b), (1 + fmin(d, c) / fmax(d, c)) * o + 1e-9);
      cr_assert_leq(stp_reduce_makespan(f), 2 * o + 1e-9);
      stp_reduce_free(b);
      stp_reduce_free(f);
    }
}

/* ---- bounds -------------------------------------------------------------------- */

Test(reduce, lemma_5_and_proposition_6) {
  /* ceil(log2 n) max(d, c) <= OPT(n) <= ceil(log2 n) (d + c), n <= 10^4
   * (OPT from the sweep, which equals independent builds: see below). */
  for (size_t j = 0; j < NCOSTS; j++) {
    double d = COSTS[j][0], c = COSTS[j][1];
    stp_reduce_spec s;
    stp_reduce_spec_init(&s, 10000, d, c);
    stp_reduce_sweep *sw;
    stp_error err = {0};
    cr_assert_eq(stp_reduce_sweep_new(&s, &sw, &err), STP_OK);
    uint64_t n;
    double o;
    while (stp_reduce_sweep_next(sw, &n, &o)) {
      int lg = 0;
      while ((UINT64_C(1) << lg) < n)
        lg++;
      cr_assert_eq(stp_reduce_opt_lower(n, d, c), lg * fmax(d, c));
      cr_assert_eq(stp_reduce_opt_upper(n, d, c), lg * (d + c));
      cr_assert_leq(stp_reduce_opt_lower(n, d, c), o, "n=%llu", (unsigned long long)n);
      cr_assert_geq(stp_reduce_opt_upper(n, d, c), o, "n=%llu", (unsigned long long)n);
    }
    stp_reduce_sweep_free(sw);
  }
}

/* ---- Algorithm 2: at most K concurrent transfers --------------------------------- */

typedef struct span {
  double at;
  int delta;
} span;

static int by_time(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  return x->delta - y->delta; /* an end before a start at the same time */
}

/* Replays Algorithm 2's schedule from its transfer starts alone and checks
 * it: one transfer at a time into a machine, a machine sends after its
 * last reduction, never more than K transfers at once.  Returns the end of
 * the sink's last reduction. */
static double replay_alg2(const stp_reduce *r, uint64_t n, double d, double c, uint64_t K) {
  double *ready = calloc(n + 1, sizeof *ready);
  for (uint64_t u = n; u >= 1; u--) {
    double port = -INFINITY, done = 0;
    for (uint64_t k = 0; k < stp_reduce_reception_count(r, u); k++) {
      uint64_t v = stp_reduce_reception(r, u, k);
      double s = stp_reduce_transfer_start(r, v);
      cr_assert_geq(s + 1e-9, port, "transfers into %llu overlap", (unsigned long long)u);
      cr_assert_geq(s + 1e-9, ready[v], "%llu sends before it is ready", (unsigned long long)v);
      port = s + d;
      done = fmax(done, port) + c;
    }
    ready[u] = done;
  }
  span *ev = calloc(2 * n, sizeof *ev);
  size_t m = 0;
  for (uint64_t v = 2; v <= n && d > 0; v++) {
    ev[m++] = (span){stp_reduce_transfer_start(r, v), 1};
    ev[m++] = (span){stp_reduce_transfer_start(r, v) + d, -1};
  }
  qsort(ev, m, sizeof *ev, by_time);
  int64_t live = 0;
  for (size_t k = 0; k < m; k++) {
    live += ev[k].delta;
    cr_assert_leq(live, (int64_t)K, "more than K = %llu transfers at %g",
                  (unsigned long long)K, ev[k].at);
  }
  double end = ready[1];
  free(ready);
  free(ev);
  return end;
}

Test(reduce, proposition_8_counterexample) {
  /* Proposition 8 as printed, (floor(log2 K + 1) + ceil(n/K - 2)) (d + c),
   * is 4 for n = 6, K = 3, d = c = 1; Algorithm 2 takes 5, which the
   * corrected bound (floor(log2 K) + 1 + ceil((n - 2^(floor(log2 K)+1))/K))
   * (d + c) = 6 covers. */
  stp_reduce *r = build(6, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG2, 3);
  cr_assert_eq(stp_reduce_makespan(r), 5);
  double printed = (floor(log2(3) + 1) + ceil(6.0 / 3 - 2)) * 2;
  cr_assert_eq(printed, 4);
  cr_assert_eq(stp_reduce_length_bound(stp_reduce_get_spec(r)), 6);
  /* Hand run of lines 5-12: t = 2, 3, 4, 4, 5 (machines 2..6), children
   * 1, 1, 1, 2, 1. */
  const uint64_t child[] = {1, 1, 1, 2, 1};
  for (uint64_t i = 2; i <= 6; i++)
    cr_assert_eq(stp_reduce_child(r, i), child[i - 2]);
  stp_reduce_free(r);
}

Test(reduce, algorithm_2_line_14_erratum) {
  /* Line 14 prints t_i <- t_n - t_i + c; the starts are t_n - t_i: with the
   * + c, machine 2 (t_2 = d + c, the last transfer into the sink) would
   * start at t_n - d, and the length would exceed t_n by c.  Same example
   * as above: starts 3, 2, 1, 1, 0, and the replay ends at t_n = 5. */
  stp_reduce *r = build(6, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG2, 3);
  const double want[] = {3, 2, 1, 1, 0};
  for (uint64_t i = 2; i <= 6; i++)
    cr_assert_eq(stp_reduce_transfer_start(r, i), want[i - 2]);
  cr_assert_eq(replay_alg2(r, 6, 1, 1, 3), 5);
  stp_reduce_free(r);
}

Test(reduce, algorithm_2_feasible_and_bounded) {
  for (size_t j = 0; j < NCOSTS; j++)
    for (uint64_t n = 2; n <= 120; n++)
      for (uint64_t K = 1; K <= n; K++) {
        double d = COSTS[j][0], c = COSTS[j][1];
        stp_reduce *r = build(n, d, c, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG2, K);
        double len = stp_reduce_makespan(r), end = replay_alg2(r, n, d, c, K);
        assert_close(end, len, TOL_EXACT);
        cr_assert_geq(len + 1e-9, opt(n, d, c)); /* a limit never helps */
        double bound = stp_reduce_length_bound(stp_reduce_get_spec(r));
        if (K <= n / 2)
          cr_assert_leq(len, bound + 1e-9, "n=%llu K=%llu d=%g c=%g: %g > %g",
                        (unsigned long long)n, (unsigned long long)K, d, c, len, bound);
        else
          cr_assert(isnan(bound));
        stp_reduce_free(r);
      }
}

/* ---- Algorithm 3: at most K reducers -------------------------------------------- */

Test(reduce, algorithm_3_optimal_by_exhaustive_search) {
  /* Theorem 9, on every tree with at most K machines that receive. */
  for (size_t j = 0; j < NCOSTS; j++)
    for (size_t n = 2; n <= 8; n++)
      for (uint64_t K = 1; K <= n; K++) {
        double d = COSTS[j][0], c = COSTS[j][1];
        stp_reduce *r = build(n, d, c, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG3, K);
        cr_assert_eq(stp_reduce_makespan(r), ref_opt_exhaustive(n, d, c, K),
                     "n=%zu K=%llu d=%g c=%g", n, (unsigned long long)K, d, c);
        stp_reduce_free(r);
      }
}

Test(reduce, algorithm_3_limit_and_corollary_11) {
  for (size_t j = 0; j < NCOSTS; j++)
    for (uint64_t n = 2; n <= 150; n++)
      for (uint64_t K = 1; K <= n; K++) {
        double d = COSTS[j][0], c = COSTS[j][1];
        stp_reduce *r = build(n, d, c, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG3, K);
        uint64_t receivers = 0;
        for (uint64_t u = 1; u <= n; u++)
          receivers += stp_reduce_reception_count(r, u) > 0;
        cr_assert_leq(receivers, K);
        double len = stp_reduce_makespan(r);
        double bound = stp_reduce_length_bound(stp_reduce_get_spec(r));
        if (K <= n / 2)
          cr_assert_leq(len, bound + 1e-9, "n=%llu K=%llu d=%g c=%g: %g > %g",
                        (unsigned long long)n, (unsigned long long)K, d, c, len, bound);
        else
          cr_assert(isnan(bound));
        if (K >= n)
          cr_assert_eq(len, opt(n, d, c));
        stp_reduce_free(r);
      }
}

Test(reduce, length_bound_only_for_the_optimal_tree) {
  /* found by fuzz_params: the Fibonacci tree under Algorithm 3 exceeds Corollary 11 */
  stp_reduce *r = build(9570, 1e-3, 0, STP_REDUCE_FIBONACCI, STP_REDUCE_ALG3, 5);
  assert_close(stp_reduce_makespan(r), 1917e-3, 1e-12);
  cr_assert(isnan(stp_reduce_length_bound(stp_reduce_get_spec(r))));
  stp_reduce_free(r);
  r = build(9570, 1e-3, 0, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG3, 5);
  assert_close(stp_reduce_length_bound(stp_reduce_get_spec(r)), (4 + 1912) * 1e-3, 1e-12);
  cr_assert_leq(stp_reduce_makespan(r), (4 + 1912) * 1e-3 + 1e-12);
  stp_reduce_free(r);
}

/* ---- errors ----------------------------------------------------------------------- */

static stp_status build_error(uint64_t n, double d, double c, stp_reduce_tree tree,
                              stp_reduce_algorithm alg, uint64_t K, stp_error *err) {
  stp_reduce_spec s;
  stp_reduce_spec_init(&s, n, d, c);
  s.tree = tree;
  s.algorithm = alg;
  s.K = K;
  stp_reduce *r = (stp_reduce *)&s; /* must come back NULL */
  stp_status st = stp_reduce_build(&s, &r, err);
  cr_assert_null(r);
  return st;
}

Test(reduce, errors) {
  stp_error e = {0};
  cr_assert_eq(build_error(0, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0, &e), STP_EINVAL);
  cr_assert(strstr(e.message, "n = 0"));
  cr_assert_eq(build_error(4, -1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0, &e), STP_EINVAL);
  cr_assert(strstr(e.message, "d = -1"));
  cr_assert_eq(build_error(4, 1, -2, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0, &e), STP_EINVAL);
  cr_assert(strstr(e.message, "c = -2"));
  cr_assert_eq(build_error(4, 0, 0, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0, &e), STP_EINVAL);
  cr_assert_eq(build_error(4, NAN, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0, &e), STP_EINVAL);
  cr_assert_eq(build_error(4, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG3, 0, &e), STP_EINVAL);
  cr_assert(strstr(e.message, "K = 0"));
  cr_assert_eq(build_error(4, 1, 1, STP_REDUCE_BINOMIAL, STP_REDUCE_ALG2, 2, &e), STP_EINVAL);
  cr_assert_eq(build_error(STP_REDUCE_MAX_N + 1, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0, &e),
               STP_ELIMIT);
}

Test(reduce, single_element) {
  stp_reduce *r = build(1, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0);
  cr_assert_eq(stp_reduce_makespan(r), 0);
  cr_assert_eq(stp_reduce_reception_count(r, 1), 0);
  cr_assert(isnan(stp_reduce_transfer_start(r, 1)));
  cr_assert_eq(stp_reduce_opt_lower(1, 1, 1), 0);
  stp_reduce_free(r);
}

/* ---- sweeps ------------------------------------------------------------------------- */

Test(reduce, sweep_equals_independent_builds) {
  /* The incremental sweep against a fresh build at every n, every tree and
   * algorithm. */
  for (size_t j = 0; j < NCOSTS; j++)
    for (int variant = 0; variant < 6; variant++) {
      stp_reduce_spec s;
      stp_reduce_spec_init(&s, 300, COSTS[j][0], COSTS[j][1]);
      s.tree = variant < 3 ? (stp_reduce_tree)variant : STP_REDUCE_OPTIMAL;
      s.algorithm = variant == 3 ? STP_REDUCE_ALG2 : variant >= 4 ? STP_REDUCE_ALG3
                                                                  : STP_REDUCE_ALG1;
      s.K = variant == 4 ? 3 : 7;
      stp_reduce_sweep *sw;
      stp_error err = {0};
      cr_assert_eq(stp_reduce_sweep_new(&s, &sw, &err), STP_OK, "%s", err.message);
      uint64_t n, count = 0;
      double m;
      while (stp_reduce_sweep_next(sw, &n, &m)) {
        cr_assert_eq(n, ++count);
        stp_reduce *r = build(n, s.d, s.c, s.tree, s.algorithm, s.K);
        cr_assert_eq(m, stp_reduce_makespan(r), "variant %d n=%llu d=%g c=%g", variant,
                     (unsigned long long)n, s.d, s.c);
        stp_reduce_free(r);
      }
      cr_assert_eq(count, 300);
      stp_reduce_sweep_free(sw);
    }
}

/* ---- the compiled DAG ---------------------------------------------------------------- */

/* Longest path of a DAG read back through the public accessors, by
 * relaxing every place until nothing changes (Bellman-Ford order, no
 * topological sort): the end time of each transition. */
static double longest_path(const stp_graph *g) {
  size_t nt = stp_graph_transition_count(g), np = stp_graph_place_count(g);
  double *end = calloc(nt, sizeof *end), best = 0;
  for (size_t t = 0; t < nt; t++)
    end[t] = stp_graph_transition_time(g, t);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t p = 0; p < np; p++) {
      size_t a, b;
      uint64_t tok;
      stp_graph_place(g, p, &a, &b, &tok);
      cr_assert_eq(tok, 0);
      double e = end[a] + stp_graph_transition_time(g, b);
      if (e > end[b]) {
        end[b] = e;
        changed = true;
      }
    }
  }
  for (size_t t = 0; t < nt; t++)
    best = fmax(best, end[t]);
  free(end);
  return best;
}

Test(reduce, dag_longest_path_is_the_makespan) {
  for (size_t j = 0; j < NCOSTS; j++)
    for (uint64_t n = 2; n <= 300; n += (n < 30 ? 1 : 41))
      for (int variant = 0; variant < 5; variant++) {
        double d = COSTS[j][0], c = COSTS[j][1];
        stp_reduce *r = build(n, d, c, variant < 3 ? (stp_reduce_tree)variant
                                                   : STP_REDUCE_OPTIMAL,
                              variant < 3 ? STP_REDUCE_ALG1 : STP_REDUCE_ALG3,
                              (uint64_t)(variant - 2));
        stp_graph *g;
        stp_error err = {0};
        cr_assert_eq(stp_reduce_graph(r, &g, &err), STP_OK, "%s", err.message);
        cr_assert_eq(stp_graph_transition_count(g), 2 * (n - 1));
        cr_assert(stp_graph_is_dag(g));
        cr_assert_eq(stp_graph_check(g, &err), STP_OK, "%s", err.message);
        cr_assert_eq(longest_path(g), stp_reduce_makespan(r), "n=%llu variant %d d=%g c=%g",
                     (unsigned long long)n, variant, d, c);
        /* the earliest start of X_v is its end minus d: checked on the sink's senders */
        size_t x;
        cr_assert_eq(stp_graph_find(g, "X2", &x, &err), STP_OK);
        cr_assert_eq(x, 0);
        stp_graph_free(g);
        stp_reduce_free(r);
      }
}

Test(reduce, dag_refused_for_algorithm_2_and_one_element) {
  stp_reduce *r = build(6, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG2, 3);
  stp_graph *g = (stp_graph *)r;
  stp_error err = {0};
  cr_assert_eq(stp_reduce_graph(r, &g, &err), STP_EINVAL);
  cr_assert_null(g);
  cr_assert(strstr(err.message, "transfer limit"));
  stp_reduce_free(r);
  r = build(1, 1, 1, STP_REDUCE_OPTIMAL, STP_REDUCE_ALG1, 0);
  cr_assert_eq(stp_reduce_graph(r, &g, &err), STP_EINVAL);
  stp_reduce_free(r);
}
