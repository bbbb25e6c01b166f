/* test_graph_sim.c: Monte Carlo of event graphs (stp_graph_simulate of
 * include/streamtp_graph.h) against closed forms:
 * - DAG, constant times: every run gives the longest path, stddev 0;
 * - n parallel Exp(1): H_n; a series of n: n; two parallel branches of two
 *   Exp(1) each: 11/4 (derived below); all within the 99.9 % interval;
 * - TEG, constant times: a 2-transition cycle with one token has period
 *   t1 + t2; a fast component feeding a slow one runs at the slow rate;
 * - TEG, exponential ring with one token: 1 / (sum of means);
 * - instantaneous transitions (mean 0), per-transition laws over the
 *   default, the seed, cancellation, errors. */
#include "graphutil.h"
#include "testutil.h"
#include "streamtp_graph.h"

#include <string.h>

#define Z999 3.2905 /* two-sided 99.9 % normal quantile */

static stp_law *law_of(const char *spec) {
  stp_law *law = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse(spec, NULL, &law, &err), STP_OK, "%s", err.message);
  return law;
}

static stp_graph *new_graph(void) { return tg_new(); }

static size_t add(stp_graph *g, const char *name, double time, stp_law *law) {
  return tg_add(g, name, time, law);
}

static void place(stp_graph *g, size_t a, size_t b, uint64_t tokens) {
  tg_place(g, a, b, tokens);
}

static stp_graph_sim_result simulate(const stp_graph *g, uint64_t runs, const char *law,
                                     uint64_t seed) {
  stp_graph_sim_options o;
  stp_graph_sim_options_init(&o);
  o.runs = runs;
  o.seed = seed;
  stp_law *l = law ? law_of(law) : NULL;
  o.law = l;
  stp_graph_sim_result r;
  stp_error err = {0};
  cr_assert_eq(stp_graph_simulate(g, &o, &r, &err), STP_OK, "%s", err.message);
  stp_law_free(l);
  cr_assert_eq(r.runs, runs);
  assert_close(r.ci95_hi - r.mean, 1.96 * r.stddev / sqrt((double)runs), TOL_EXACT);
  assert_close(r.mean - r.ci95_lo, 1.96 * r.stddev / sqrt((double)runs), TOL_EXACT);
  return r;
}

static void assert_within(const stp_graph_sim_result *r, double exact, const char *what) {
  double half = Z999 * r->stddev / sqrt((double)r->runs);
  cr_assert(fabs(r->mean - exact) <= half, "%s: simulated %.6g, exact %.6g, 99.9%% half-width "
            "%.3g", what, r->mean, exact, half);
}

Test(graph_sim, deterministic_dag_gives_the_longest_path) {
  /* a(2) -> b(3) -> d(1), a -> c(7) -> d, e(4) alone: longest a c d = 10 */
  stp_graph *g = new_graph();
  size_t a = add(g, "a", 2, NULL), b = add(g, "b", 3, NULL), c = add(g, "c", 7, NULL);
  size_t d = add(g, "d", 1, NULL);
  add(g, "e", 4, NULL);
  place(g, a, b, 0);
  place(g, b, d, 0);
  place(g, a, c, 0);
  place(g, c, d, 0);
  stp_graph_sim_result r = simulate(g, 5, "det", 1);
  cr_assert_eq(r.mean, 10);
  cr_assert_eq(r.stddev, 0);
  stp_graph_free(g);
}

Test(graph_sim, exponential_dags_closed_forms) {
  /* n parallel: E[max of n Exp(1)] = H_n. */
  stp_graph *g = new_graph();
  const size_t n = 6;
  double h = 0;
  char name[16];
  for (size_t v = 0; v < n; v++) {
    snprintf(name, sizeof name, "p%zu", v);
    add(g, name, 1, NULL);
    h += 1.0 / (double)(v + 1);
  }
  stp_graph_sim_result r = simulate(g, 20000, NULL, 2); /* default law: exp */
  assert_within(&r, h, "parallel");
  stp_graph_free(g);
  /* a series of n: E = n */
  g = new_graph();
  for (size_t v = 0; v < n; v++) {
    snprintf(name, sizeof name, "s%zu", v);
    size_t t = add(g, name, 1, NULL);
    if (v > 0)
      place(g, t - 1, t, 0);
  }
  r = simulate(g, 20000, "exp", 3);
  assert_within(&r, (double)n, "series");
  stp_graph_free(g);
  /* two branches a1 -> a2 and b1 -> b2, all Exp(1): the makespan is the max
   * of two independent Erlang(2).  P(Erlang(2) <= t) = 1 - (1 + t) e^-t, so
   * E[max] = int_0^inf 1 - (1 - (1 + t) e^-t)^2 dt
   *        = 2 int (1 + t) e^-t dt - int (1 + t)^2 e^-2t dt
   *        = 2 * 2 - (1/2 + 2/4 + 2/8) = 4 - 5/4 = 11/4. */
  g = new_graph();
  size_t a1 = add(g, "a1", 1, NULL), a2 = add(g, "a2", 1, NULL);
  size_t b1 = add(g, "b1", 1, NULL), b2 = add(g, "b2", 1, NULL);
  place(g, a1, a2, 0);
  place(g, b1, b2, 0);
  r = simulate(g, 20000, "exp", 4);
  assert_within(&r, 11.0 / 4, "two branches");
  stp_graph_free(g);
  /* a mean of 0 is instantaneous, whatever the law */
  g = new_graph();
  size_t z = add(g, "zero", 0, NULL), o = add(g, "one", 1, NULL);
  place(g, z, o, 0);
  r = simulate(g, 20000, "exp", 5);
  assert_within(&r, 1, "zero then one");
  stp_graph_free(g);
  g = new_graph();
  add(g, "zero", 0, NULL);
  r = simulate(g, 10, "exp", 5);
  cr_assert_eq(r.mean, 0);
  stp_graph_free(g);
}

Test(graph_sim, deterministic_cycles) {
  /* a 2-transition cycle with one token: period t1 + t2 */
  stp_graph *g = new_graph();
  size_t a = add(g, "a", 1.5, NULL), b = add(g, "b", 2.25, NULL);
  place(g, a, b, 0);
  place(g, b, a, 1);
  stp_graph_sim_result r = simulate(g, 3, "det", 1);
  assert_close(r.mean, 1 / 3.75, TOL_EXACT);
  stp_graph_free(g);
  /* a fast single server (time 1) feeding a slow one (time 3) through a
   * place with 2 tokens: not strongly connected, throughput 1/3 */
  g = new_graph();
  size_t f = add(g, "fast", 1, NULL), s = add(g, "slow", 3, NULL);
  place(g, f, s, 2);
  r = simulate(g, 2, "det", 1);
  assert_close(r.mean, 1.0 / 3, TOL_EXACT);
  stp_graph_free(g);
}

Test(graph_sim, exponential_ring_has_throughput_one_over_sum) {
  stp_graph *g = new_graph();
  const size_t n = 4;
  double sum = 0;
  char name[16];
  for (size_t v = 0; v < n; v++) {
    snprintf(name, sizeof name, "t%zu", v);
    add(g, name, 1 + (double)v, NULL);
    sum += 1 + (double)v;
  }
  for (size_t v = 0; v < n; v++)
    place(g, v, (v + 1) % n, v + 1 == n ? 1 : 0);
  stp_graph_sim_result r = simulate(g, 200, "exp", 6);
  assert_within(&r, 1 / sum, "ring");
  stp_graph_free(g);
}

Test(graph_sim, transition_laws_override_the_default) {
  /* b's own law is det: with --law det everywhere else too, the makespan is
   * constant; with an exponential a instead, it varies. */
  stp_graph *g = new_graph();
  size_t a = add(g, "a", 1, NULL), b = add(g, "b", 2, law_of("det"));
  place(g, a, b, 0);
  stp_graph_sim_result r = simulate(g, 100, "det", 1);
  cr_assert_eq(r.mean, 3);
  cr_assert_eq(r.stddev, 0);
  r = simulate(g, 20000, "exp", 1);
  cr_assert_gt(r.stddev, 0);
  assert_within(&r, 3, "a exponential, b constant");
  stp_graph_free(g);
}

Test(graph_sim, a_seed_gives_the_same_numbers) {
  stp_graph *g = new_graph();
  size_t a = add(g, "a", 1, NULL), b = add(g, "b", 2, NULL), c = add(g, "c", 0.5, NULL);
  place(g, a, b, 0);
  place(g, b, c, 0);
  place(g, c, a, 2);
  stp_graph_sim_result x = simulate(g, 7, "gamma:cv=0.5", 12);
  stp_graph_sim_result y = simulate(g, 7, "gamma:cv=0.5", 12);
  stp_graph_sim_result z = simulate(g, 7, "gamma:cv=0.5", 13);
  cr_assert_eq(memcmp(&x, &y, sizeof x), 0);
  cr_assert_neq(x.mean, z.mean);
  stp_graph_sim_result one = simulate(g, 1, "exp", 1);
  cr_assert_eq(one.stddev, 0);
  cr_assert_eq(one.ci95_lo, one.mean);
  stp_graph_free(g);
}

Test(graph_sim, cancellation_and_errors) {
  stp_graph *g = new_graph();
  size_t a = add(g, "a", 1, NULL), b = add(g, "b", 1, NULL);
  place(g, a, b, 0);
  stp_graph_sim_options o;
  stp_graph_sim_options_init(&o);
  cr_assert_eq(o.seed, 1);
  cr_assert_eq(o.firings, 10000);
  stp_graph_sim_result r;
  stp_error err = {0};
  atomic_int stop = 1;
  o.control.cancel = TEST_CANCEL(&stop);
  cr_assert_eq(stp_graph_simulate(g, &o, &r, &err), STP_EINTERRUPTED);
  o.control.cancel = (stp_cancel){0};
  o.runs = 0;
  cr_assert_eq(stp_graph_simulate(g, &o, &r, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "runs"), "%s", err.message);
  o.runs = 10;
  cr_assert_eq(stp_graph_simulate(NULL, &o, &r, &err), STP_EINVAL);
  place(g, b, a, 0); /* a token-free cycle */
  cr_assert_eq(stp_graph_simulate(g, &o, &r, &err), STP_EDEADLOCK);
  stp_graph_free(g);
}
