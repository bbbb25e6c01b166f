/* test_reduce_graph.c: a reduction schedule compiled into the generic
 * activity DAG (stp_reduce_graph) and analysed there: the DAG's longest
 * path is the schedule's makespan, its exact exponential makespan equals a
 * brute force over race orders (tests/support/reduce_ref.c) and a hand
 * computation, and Monte Carlo with exponential times falls within its
 * 99.9% interval of that value. */
#include "reduce_ref.h"
#include "streamtp_reduce.h"
#include "testutil.h"

#include <stdlib.h>

static stp_reduce *build(uint64_t n, double d, double c, stp_reduce_tree tree, uint64_t K) {
  stp_reduce_spec s;
  stp_reduce_spec_init(&s, n, d, c);
  s.tree = tree;
  if (K) {
    s.algorithm = STP_REDUCE_ALG3;
    s.K = K;
  }
  stp_reduce *r;
  stp_error err = {0};
  cr_assert_eq(stp_reduce_build(&s, &r, &err), STP_OK, "%s", err.message);
  return r;
}

static stp_graph *graph_of(const stp_reduce *r) {
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_reduce_graph(r, &g, &err), STP_OK, "%s", err.message);
  return g;
}

static void analyse(const stp_graph *g, stp_graph_result *res) {
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.exponential = 1;
  stp_error err = {0};
  cr_assert_eq(stp_graph_analyze(g, &o, res, &err), STP_OK, "%s", err.message);
}

/* The brute force needs the orders as plain arrays. */
static double brute_exp(const stp_reduce *r, size_t n, double d, double c) {
  uint64_t child[REF_MAX_N + 1] = {0}, order[REF_MAX_N + 1][REF_MAX_N] = {{0}};
  size_t count[REF_MAX_N + 1] = {0};
  for (size_t u = 1; u <= n; u++) {
    child[u] = stp_reduce_child(r, u);
    count[u] = stp_reduce_reception_count(r, u);
    for (size_t k = 0; k < count[u]; k++)
      order[u][k] = stp_reduce_reception(r, u, k);
  }
  return ref_exp_makespan(n, child, (const uint64_t(*)[REF_MAX_N])order, count, d, c);
}

static const double COSTS[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 0}, {0, 1}, {3, 1}, {0.5, 2.5}};

Test(reduce_graph, dag_shape_and_longest_path) {
  for (size_t j = 0; j < 7; j++)
    for (uint64_t n = 2; n <= 200; n += (n < 20 ? 1 : 37))
      for (int tree = 0; tree < 3; tree++) {
        double d = COSTS[j][0], c = COSTS[j][1];
        stp_reduce *r = build(n, d, c, (stp_reduce_tree)tree, 0);
        stp_graph *g = graph_of(r);
        cr_assert_eq(stp_graph_transition_count(g), 2 * (n - 1));
        cr_assert(stp_graph_is_dag(g));
        stp_graph_result res;
        stp_graph_options o;
        stp_graph_options_init(&o);
        o.exponential = 0;
        stp_error err = {0};
        cr_assert_eq(stp_graph_analyze(g, &o, &res, &err), STP_OK, "%s", err.message);
        assert_close(res.det_makespan, stp_reduce_makespan(r), TOL_EXACT);
        double along = 0; /* the critical path's times add up to the makespan */
        for (size_t k = 0; k < res.critical_len; k++)
          along += stp_graph_transition_time(g, res.critical[k]);
        assert_close(along, res.det_makespan, TOL_EXACT);
        stp_graph_result_free(&res);
        stp_graph_free(g);
        stp_reduce_free(r);
      }
}

Test(reduce_graph, exponential_by_hand) {
  /* n = 2: X2 then C1.1, E = d + c.  n = 3 (children 1, 1): X3, then X2 and
   * C1.1 race (E[max] = d + c - dc/(d + c)), then C1.2:
   * E = d + (d + c - dc/(d + c)) + c; 3.5 for d = c = 1. */
  for (size_t j = 0; j < 7; j++) {
    double d = COSTS[j][0], c = COSTS[j][1];
    if (d == 0 || c == 0)
      continue;
    stp_reduce *r = build(2, d, c, STP_REDUCE_OPTIMAL, 0);
    stp_graph *g = graph_of(r);
    stp_graph_result res;
    analyse(g, &res);
    cr_assert(res.exp_computed);
    assert_close(res.exp_value, d + c, TOL_EXACT);
    cr_assert_eq(res.exp_states, 3); /* {}, {X2}, {X2, C1.1} */
    stp_graph_result_free(&res);
    stp_graph_free(g);
    stp_reduce_free(r);
    r = build(3, d, c, STP_REDUCE_OPTIMAL, 0);
    cr_assert_eq(stp_reduce_child(r, 2), 1);
    cr_assert_eq(stp_reduce_child(r, 3), 1);
    g = graph_of(r);
    analyse(g, &res);
    assert_close(res.exp_value, d + (d + c - d * c / (d + c)) + c, TOL_EXACT);
    stp_graph_result_free(&res);
    stp_graph_free(g);
    stp_reduce_free(r);
  }
}

Test(reduce_graph, exponential_against_race_orders) {
  /* Every tree of 2..6 elements the library builds (optimal, binomial,
   * Fibonacci, Algorithm 3 with K = 1, 2), zero times included. */
  for (size_t j = 0; j < 7; j++)
    for (size_t n = 2; n <= 6; n++)
      for (int variant = 0; variant < 5; variant++) {
        double d = COSTS[j][0], c = COSTS[j][1];
        stp_reduce *r = build(n, d, c, variant < 3 ? (stp_reduce_tree)variant
                                                   : STP_REDUCE_OPTIMAL,
                              variant < 3 ? 0 : (uint64_t)(variant - 2));
        stp_graph *g = graph_of(r);
        stp_graph_result res;
        analyse(g, &res);
        cr_assert(res.exp_computed, "%s", res.exp_reason);
        assert_close(res.exp_value, brute_exp(r, n, d, c), TOL_SOLVE);
        cr_assert_leq(res.det_makespan, res.exp_value * (1 + 1e-12)); /* N.B.U.E. */
        stp_graph_result_free(&res);
        stp_graph_free(g);
        stp_reduce_free(r);
      }
}

Test(reduce_graph, monte_carlo_within_interval) {
  /* 99.9% interval: mean +- 3.29 s / sqrt(R), seeded. */
  const uint64_t ns[] = {4, 7, 12};
  for (size_t k = 0; k < 3; k++) {
    stp_reduce *r = build(ns[k], 1, 2, STP_REDUCE_OPTIMAL, 0);
    stp_graph *g = graph_of(r);
    stp_graph_result res;
    analyse(g, &res);
    stp_graph_sim_options o;
    stp_graph_sim_options_init(&o);
    o.runs = 200000;
    o.seed = 11 + k;
    stp_graph_sim_result sim;
    stp_error err = {0};
    cr_assert_eq(stp_graph_simulate(g, &o, &sim, &err), STP_OK, "%s", err.message);
    double half = 3.29 * sim.stddev / sqrt((double)sim.runs);
    cr_assert(fabs(sim.mean - res.exp_value) <= half, "n=%llu: simulated %g, exact %g (+- %g)",
              (unsigned long long)ns[k], sim.mean, res.exp_value, half);
    stp_graph_result_free(&res);
    stp_graph_free(g);
    stp_reduce_free(r);
  }
}
