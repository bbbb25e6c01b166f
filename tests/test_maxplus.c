/* test_maxplus.c: the (max,+) simulation kernel (engine/maxplus.h) and the
 * Monte Carlo groups over it (engine/montecarlo.h), against closed forms
 * and an independent replay:
 * - deterministic DAGs: makespan = longest path (dynamic programming here);
 * - deterministic timed event graphs: every firing date against a plain
 *   replay of x_t(k) = time + max(x_t(k-1)?, max x_u(k - m)) that keeps the
 *   whole history (no window, no padding, no chain register);
 * - n parallel Exp(1) transitions: E[makespan] = H_n within the 99.9 %
 *   interval; an exponential cycle of n transitions and 1 token: throughput
 *   1 / (sum of means) within the 99.9 % interval; a deterministic cycle:
 *   exactly 1 / period;
 * - reproducibility for a seed, independence of the runs, cancellation,
 *   deadlocks and the history limit. */
#include "engine/maxplus.h"
#include "engine/montecarlo.h"
#include "solvers/laws.h"
#include "support/testutil.h"

#include <stdlib.h>
#include <string.h>

#define Z999 3.2905 /* two-sided 99.9 % normal quantile */

static stp_law *law_of(const char *spec) {
  stp_law *law = NULL;
  stp_error err = {0};
  cr_assert_eq(stp__law_parse(spec, NULL, &law, &err), STP_OK, "%s", err.message);
  return law;
}

/* A graph description the tests build kernels and replays from. */
typedef struct tgraph {
  size_t n, np;
  double time[64];
  size_t from[256], to[256];
  uint64_t tok[256];
} tgraph;

static void add(tgraph *t, size_t from, size_t to, uint64_t tokens) {
  cr_assert_lt(t->np, 256);
  t->from[t->np] = from;
  t->to[t->np] = to;
  t->tok[t->np++] = tokens;
}

/* Kernel graph of t plus a completion transition n fed by every transition;
 * law (NULL: deterministic) for every transition with a positive time. */
static void build(const tgraph *t, const stp_law *law, uint64_t rows, stp_mp_graph *g) {
  stp_error err = {0};
  cr_assert_eq(stp__mp_graph_init(g, t->n + 1, &err), STP_OK);
  for (size_t v = 0; v < t->n; v++) {
    cr_assert_eq(stp__mp_set_means(g, v, &t->time[v], 1, &err), STP_OK);
    if (law && t->time[v] > 0)
      stp__mp_set_sampler(g, v, (stp_mp_sampler){.law = law});
    cr_assert_eq(stp__mp_add_place(g, v, t->n, 0, &err), STP_OK);
  }
  for (size_t p = 0; p < t->np; p++)
    cr_assert_eq(stp__mp_add_place(g, t->from[p], t->to[p], t->tok[p], &err), STP_OK);
  cr_assert_eq(stp__mp_graph_compile(g, rows, t->n, &err), STP_OK, "%s", err.message);
}

/* A random DAG on n transitions whose index order is shuffled (so that the
 * kernel has to find an order), times integer in 0..9. */
static void random_dag(trng *r, size_t n, tgraph *t) {
  memset(t, 0, sizeof *t);
  t->n = n;
  size_t perm[64];
  for (size_t v = 0; v < n; v++)
    perm[v] = v;
  for (size_t v = n; v > 1; v--) {
    size_t w = trng_int(r, 0, v - 1), x = perm[v - 1];
    perm[v - 1] = perm[w];
    perm[w] = x;
  }
  for (size_t v = 0; v < n; v++)
    t->time[v] = (double)trng_int(r, 0, 9);
  for (size_t b = 1; b < n; b++) /* level b has edges from lower levels */
    for (size_t a = 0; a < b; a++)
      if (trng_uniform(r, 0, 1) < 0.3 && t->np < 256)
        add(t, perm[a], perm[b], 0);
}

/* Longest path by dynamic programming over a topological order found by
 * repeated relaxation (n passes: no order needed). */
static double longest_path(const tgraph *t) {
  double fin[64];
  for (size_t v = 0; v < t->n; v++)
    fin[v] = t->time[v];
  for (size_t pass = 0; pass < t->n; pass++)
    for (size_t p = 0; p < t->np; p++)
      if (fin[t->from[p]] + t->time[t->to[p]] > fin[t->to[p]])
        fin[t->to[p]] = fin[t->from[p]] + t->time[t->to[p]];
  double best = 0;
  for (size_t v = 0; v < t->n; v++)
    best = fin[v] > best ? fin[v] : best;
  return best;
}

static double run_once(const stp_mp_graph *g, uint64_t seed, uint64_t rows) {
  stp_mp_run run;
  stp_error err = {0};
  double elapsed = 0;
  cr_assert_eq(stp__mp_run_init(&run, g, seed, 0, &err), STP_OK);
  cr_assert_eq(stp__mp_run_advance(&run, rows, NULL, &elapsed, &err), STP_OK);
  stp__mp_run_clear(&run);
  return elapsed;
}

Test(maxplus, deterministic_dag_is_longest_path) {
  trng r = {42};
  for (int trial = 0; trial < 300; trial++) {
    tgraph t;
    random_dag(&r, trng_int(&r, 1, 40), &t);
    stp_mp_graph g;
    build(&t, NULL, 1, &g);
    double got = run_once(&g, 1, 1);
    cr_assert_eq(got, longest_path(&t), "trial %d: makespan %.17g, longest path %.17g", trial,
                 got, longest_path(&t));
    stp__mp_graph_clear(&g);
  }
}

/* Plain replay of a deterministic TEG with the whole history kept: x[k][v]. */
static void replay(const tgraph *t, size_t rows, double *x) {
  for (size_t k = 0; k < rows; k++) {
    double *row = x + k * t->n;
    for (size_t v = 0; v < t->n; v++)
      row[v] = -1; /* not fired yet */
    for (size_t done = 0; done < t->n;) /* fire what is ready, until all fired */
      for (size_t v = 0; v < t->n; v++) {
        if (row[v] >= 0)
          continue;
        double start = 0;
        bool ready = true;
        for (size_t p = 0; p < t->np && ready; p++) {
          if (t->to[p] != v)
            continue;
          if (t->tok[p] > k) /* an initial token: available at 0 */
            continue;
          double d = x[(k - t->tok[p]) * t->n + t->from[p]];
          if (d < 0)
            ready = false;
          else if (d > start)
            start = d;
        }
        if (ready) {
          row[v] = start + t->time[v];
          done++;
        }
      }
  }
}

/* A random strongly connected-ish TEG: a random DAG plus back places with
 * 1..4 tokens and self-loops with 1..3 tokens; times in 1..9. */
static void random_teg(trng *r, size_t n, tgraph *t) {
  random_dag(r, n, t);
  for (size_t v = 0; v < n; v++) {
    t->time[v] = (double)trng_int(r, 1, 9);
    if (trng_uniform(r, 0, 1) < 0.7)
      add(t, v, v, trng_int(r, 1, 3));
  }
  for (size_t e = 0; e < n; e++)
    add(t, trng_int(r, 0, n - 1), trng_int(r, 0, n - 1), trng_int(r, 1, 4));
}

Test(maxplus, deterministic_teg_matches_a_plain_replay) {
  trng r = {7};
  const size_t rows = 300;
  double *want = malloc(rows * 64 * sizeof *want);
  for (int trial = 0; trial < 100; trial++) {
    tgraph t;
    random_teg(&r, trng_int(&r, 1, 30), &t);
    replay(&t, rows, want);
    stp_mp_graph g;
    build(&t, NULL, rows, &g);
    stp_mp_run run;
    stp_error err = {0};
    cr_assert_eq(stp__mp_run_init(&run, &g, 1, 0, &err), STP_OK);
    double prev = 0; /* C(k - 1): the latest completion of rows before k */
    for (size_t k = 0; k < rows; k++) { /* row by row: compare every completion */
      double elapsed;
      cr_assert_eq(stp__mp_run_advance(&run, 1, NULL, &elapsed, &err), STP_OK);
      double now = prev;
      for (size_t v = 0; v < t.n; v++)
        now = want[k * t.n + v] > now ? want[k * t.n + v] : now;
      /* times are integers: the rebased dates are exact */
      double expect = now - prev;
      prev = now;
      cr_assert_eq(elapsed, expect, "trial %d row %zu: %.17g vs %.17g", trial, k, elapsed,
                   expect);
    }
    stp__mp_run_clear(&run);
    stp__mp_graph_clear(&g);
  }
  free(want);
}

Test(maxplus, deterministic_cycle_has_exactly_its_period) {
  /* a -> b -> c -> a, times 1, 2, 3, 2 tokens on c -> a, single servers:
   * period = max(6 / 2, 3) = 3. */
  tgraph t = {.n = 3, .time = {1, 2, 3}};
  add(&t, 0, 1, 0);
  add(&t, 1, 2, 0);
  add(&t, 2, 0, 2);
  for (size_t v = 0; v < 3; v++)
    add(&t, v, v, 1);
  stp_mp_graph g;
  build(&t, NULL, 11000, &g);
  stp_mc_groups plan = {.groups = 3, .replicated = true, .warmup = 1000, .per_group = 10000,
                        .seed = 1};
  double elapsed[3];
  stp_error err = {0};
  cr_assert_eq(stp__mc_run_groups(&g, &plan, NULL, elapsed, &err), STP_OK);
  for (int k = 0; k < 3; k++)
    cr_assert_eq(10000 / elapsed[k], 1.0 / 3, "throughput %.17g", 10000 / elapsed[k]);
  stp__mp_graph_clear(&g);
}

Test(maxplus, parallel_exponentials_have_mean_makespan_H_n) {
  const size_t n = 8, runs = 20000;
  tgraph t = {.n = n};
  double h = 0;
  for (size_t v = 0; v < n; v++) {
    t.time[v] = 1;
    h += 1.0 / (double)(v + 1);
  }
  stp_law *exp_law = law_of("exp");
  stp_mp_graph g;
  build(&t, exp_law, 1, &g);
  stp_mc_groups plan = {.groups = runs, .replicated = true, .warmup = 0, .per_group = 1,
                        .seed = 3};
  double *x = malloc(runs * sizeof *x);
  stp_error err = {0};
  cr_assert_eq(stp__mc_run_groups(&g, &plan, NULL, x, &err), STP_OK);
  double mean = stp__mc_mean(x, runs), half = Z999 * stp__mc_stddev(x, runs) / sqrt(runs);
  cr_assert(fabs(mean - h) <= half, "mean makespan %.6f, H_%zu = %.6f, 99.9%% half-width %.6f",
            mean, n, h, half);
  free(x);
  stp__mp_graph_clear(&g);
  stp__law_free(exp_law);
}

Test(maxplus, exponential_cycle_has_throughput_one_over_sum) {
  /* n transitions in a ring holding 1 token: one firing at a time, so the
   * cycle time is a sum of independent exponentials: throughput 1 / sum. */
  const size_t n = 5, runs = 200, firings = 10000;
  tgraph t = {.n = n};
  double sum = 0;
  for (size_t v = 0; v < n; v++) {
    t.time[v] = 0.5 + (double)v;
    sum += t.time[v];
    add(&t, v, (v + 1) % n, v + 1 == n ? 1 : 0);
    add(&t, v, v, 1);
  }
  stp_law *exp_law = law_of("exp");
  stp_mp_graph g;
  build(&t, exp_law, firings + firings / 10, &g);
  stp_mc_groups plan = {.groups = runs, .replicated = true, .warmup = firings / 10,
                        .per_group = firings, .seed = 5};
  double x[200];
  stp_error err = {0};
  cr_assert_eq(stp__mc_run_groups(&g, &plan, NULL, x, &err), STP_OK);
  for (size_t k = 0; k < runs; k++)
    x[k] = (double)firings / x[k];
  double mean = stp__mc_mean(x, runs), half = Z999 * stp__mc_stddev(x, runs) / sqrt(runs);
  cr_assert(fabs(mean - 1 / sum) <= half, "throughput %.6g, 1/sum = %.6g, half-width %.3g",
            mean, 1 / sum, half);
  stp__mp_graph_clear(&g);
  stp__law_free(exp_law);
}

Test(maxplus, a_seed_gives_the_same_numbers_and_runs_differ) {
  trng r = {11};
  tgraph t;
  random_teg(&r, 12, &t);
  stp_law *law = law_of("gamma:cv=0.5");
  stp_mp_graph g;
  build(&t, law, 2200, &g);
  stp_mc_groups plan = {.groups = 4, .replicated = true, .warmup = 200, .per_group = 2000,
                        .seed = 9};
  double a[4], b[4], c[4];
  stp_error err = {0};
  cr_assert_eq(stp__mc_run_groups(&g, &plan, NULL, a, &err), STP_OK);
  cr_assert_eq(stp__mc_run_groups(&g, &plan, NULL, b, &err), STP_OK);
  plan.seed = 10;
  cr_assert_eq(stp__mc_run_groups(&g, &plan, NULL, c, &err), STP_OK);
  for (int k = 0; k < 4; k++) {
    cr_assert_eq(memcmp(&a[k], &b[k], sizeof a[k]), 0, "run %d: %.17g vs %.17g", k, a[k], b[k]);
    cr_assert_neq(a[k], c[k], "run %d: another seed gave the same time", k);
    for (int j = 0; j < k; j++)
      cr_assert_neq(a[k], a[j], "runs %d and %d gave the same time", j, k);
  }
  stp__mp_graph_clear(&g);
  stp__law_free(law);
}

Test(maxplus, cancellation_stops_a_run) {
  tgraph t = {.n = 2, .time = {1, 1}};
  add(&t, 0, 1, 0);
  add(&t, 1, 0, 1);
  stp_law *law = law_of("exp");
  stp_mp_graph g;
  build(&t, law, 1000000, &g);
  atomic_int stop = 1;
  stp_control control = {.cancel = TEST_CANCEL(&stop)};
  stp_mc_groups plan = {.groups = 2, .replicated = true, .warmup = 0, .per_group = 1000000,
                        .seed = 1};
  double x[2];
  stp_error err = {0};
  cr_assert_eq(stp__mc_run_groups(&g, &plan, &control, x, &err), STP_EINTERRUPTED);
  cr_assert(strstr(err.message, "interrupted"), "%s", err.message);
  stp__mp_graph_clear(&g);
  stp__law_free(law);
}

Test(maxplus, errors) {
  stp_mp_graph g;
  stp_error err = {0};
  /* a cycle without a token */
  cr_assert_eq(stp__mp_graph_init(&g, 3, &err), STP_OK);
  stp__mp_add_place(&g, 0, 1, 0, &err);
  stp__mp_add_place(&g, 1, 2, 0, &err);
  stp__mp_add_place(&g, 2, 1, 0, &err);
  cr_assert_eq(stp__mp_graph_compile(&g, 10, 0, &err), STP_EDEADLOCK);
  stp__mp_graph_clear(&g);
  /* a token-free self-loop */
  cr_assert_eq(stp__mp_graph_init(&g, 1, &err), STP_OK);
  stp__mp_add_place(&g, 0, 0, 0, &err);
  cr_assert_eq(stp__mp_graph_compile(&g, 10, 0, &err), STP_EDEADLOCK);
  stp__mp_graph_clear(&g);
  /* a history beyond the limit: 10^6 tokens x 300 transitions */
  cr_assert_eq(stp__mp_graph_init(&g, 300, &err), STP_OK);
  stp__mp_add_place(&g, 0, 1, 1000000, &err);
  cr_assert_eq(stp__mp_graph_compile(&g, 10000000, 0, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "1000000 tokens"), "%s", err.message);
  /* ... unless a run is shorter than the tokens: the place never binds */
  cr_assert_eq(stp__mp_graph_compile(&g, 1000000, 0, &err), STP_OK);
  stp__mp_graph_clear(&g);
}

Test(maxplus, periodic_means_and_rounds) {
  /* One transition with a self-loop, means cycling 1, 2, 3 (det): the k-th
   * firing ends at the sum of the first k + 1 means.  With a shared round
   * factor of law det, nothing changes. */
  stp_mp_graph g;
  stp_error err = {0};
  stp_law *det = law_of("det");
  double means[3] = {1, 2, 3};
  cr_assert_eq(stp__mp_graph_init(&g, 1, &err), STP_OK);
  cr_assert_eq(stp__mp_set_means(&g, 0, means, 3, &err), STP_OK);
  stp__mp_set_sampler(&g, 0, (stp_mp_sampler){.round_law = det, .round = 2});
  cr_assert_eq(stp__mp_add_place(&g, 0, 0, 1, &err), STP_OK);
  cr_assert_eq(stp__mp_graph_compile(&g, 100000, 0, &err), STP_OK);
  /* 1000 rows: 333 full cycles of 6 plus the first mean; across several
   * blocks, so the cycle position carries from block to block */
  cr_assert_eq(run_once(&g, 1, 1000), 333 * 6.0 + 1);
  stp__mp_graph_clear(&g);
  stp__law_free(det);
}
