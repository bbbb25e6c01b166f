/* test_graph_teg.c: the analyses of a timed event graph (stp_graph_analyze
 * on a graph with tokens): the deterministic period by Howard with the
 * critical cycle in firing order, the exponential throughput from the
 * chain of reachable markings against closed forms (a cycle with one token,
 * a two-transition birth-death chain), graphs that are not strongly
 * connected (min over components, unbounded places between them), the
 * N.B.U.E. bounds and the state cap. */
#include "graphutil.h"
#include "testutil.h"
#include "streamtp_graph.h"

#include <stdio.h>
#include <string.h>

static stp_graph *new_graph(void) { return tg_new(); }

static size_t add(stp_graph *g, double time) { return tg_add(g, NULL, time, NULL); }

static void place(stp_graph *g, size_t a, size_t b, uint64_t tokens) {
  tg_place(g, a, b, tokens);
}

static void analyze(const stp_graph *g, uint64_t max_states, stp_graph_result *r) {
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.max_states = max_states;
  stp_error err = {0};
  cr_assert_eq(stp_graph_analyze(g, &o, r, &err), STP_OK, "%s", err.message);
  cr_assert_eq(r->is_dag, 0);
}

/* Bounds: exp <= det, and they are the result's own values. */
static void check_bounds(const stp_graph_result *r) {
  cr_assert(r->exp_computed, "%s", r->exp_reason);
  cr_assert_str_eq(r->exp_method, "ctmc");
  cr_assert_eq(r->bound_lower, r->exp_value);
  cr_assert_eq(r->bound_upper, r->det_throughput);
  cr_assert(r->exp_value <= r->det_throughput * (1 + 1e-12));
}

Test(graph_teg, two_transition_cycle) {
  stp_graph *g = new_graph();
  size_t a = add(g, 2.0), b = add(g, 3.5);
  place(g, b, a, 1);
  place(g, a, b, 0);
  stp_graph_result r;
  analyze(g, 0, &r);
  assert_close(r.det_period, 5.5, TOL_EXACT);
  assert_close(r.det_throughput, 1 / 5.5, TOL_EXACT);
  cr_assert_eq(r.critical_len, 2);
  cr_assert(r.critical[0] == a && r.critical[1] == b);
  /* one token: one transition runs at a time, the cycle takes the sum of
   * the means */
  check_bounds(&r);
  assert_close(r.exp_value, 1 / 5.5, TOL_SOLVE);
  cr_assert_eq(r.exp_states, 2);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* A cycle of n exponential transitions holding one token: throughput
 * 1 / (sum of the means), as deterministic; n markings. */
Test(graph_teg, cycle_one_token) {
  for (size_t n = 1; n <= 12; n++) {
    stp_graph *g = new_graph();
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
      double t = 0.5 + (double)i;
      sum += t;
      add(g, t);
    }
    for (size_t i = 0; i < n; i++) place(g, i, (i + 1) % n, i + 1 == n);
    stp_graph_result r;
    analyze(g, 0, &r);
    check_bounds(&r);
    assert_close(r.det_throughput, 1 / sum, TOL_EXACT);
    assert_close(r.exp_value, 1 / sum, TOL_SOLVE);
    cr_assert_eq(r.exp_states, n);
    cr_assert_eq(r.critical_len, n == 1 ? 1 : n);
    cr_assert_eq(r.critical[0], 0);
    stp_graph_result_free(&r);
    stp_graph_free(g);
  }
}

/* a -> b holding 2 tokens, b -> a none.  x = tokens on a -> b in {0,1,2};
 * b fires (rate lb) when x >= 1, a (rate la) when x <= 1: a birth-death
 * chain with pi ~ (1, r, r^2), r = la / lb, and the throughput is
 * lb (pi_1 + pi_2) = lb (r + r^2) / (1 + r + r^2).  Deterministic: the
 * cycle a b holds 2 tokens (ratio (ta + tb) / 2) but each single server
 * is a one-token self-loop: period max(ta, tb, (ta + tb) / 2). */
Test(graph_teg, birth_death) {
  double ta = 1.5, tb = 4.0;
  stp_graph *g = new_graph();
  size_t a = add(g, ta), b = add(g, tb);
  place(g, a, b, 2);
  place(g, b, a, 0);
  stp_graph_result r;
  analyze(g, 0, &r);
  check_bounds(&r);
  double la = 1 / ta, lb = 1 / tb, q = la / lb;
  assert_close(r.exp_value, lb * (q + q * q) / (1 + q + q * q), TOL_SOLVE);
  cr_assert_eq(r.exp_states, 3);
  assert_close(r.det_period, 4.0, TOL_EXACT);
  cr_assert_eq(r.critical_len, 1);
  cr_assert_eq(r.critical[0], b);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* Two components joined by a token-free place: the whole runs at the rate
 * of the slower one; the place between them is unbounded and stays out of
 * every chain (exp_states is the larger component's). */
Test(graph_teg, components_min) {
  stp_graph *g = new_graph();
  size_t a = add(g, 1), b = add(g, 2);     /* cycle 3, one token */
  size_t c = add(g, 0.5), d = add(g, 0.25); /* cycle 0.75, one token */
  size_t e = add(g, 7);                    /* alone: its own server */
  place(g, a, b, 0);
  place(g, b, a, 1);
  place(g, c, d, 0);
  place(g, d, c, 1);
  place(g, b, c, 0);
  place(g, d, e, 0);
  stp_graph_result r;
  analyze(g, 0, &r);
  check_bounds(&r);
  assert_close(r.det_period, 7, TOL_EXACT);
  cr_assert(r.critical_len == 1 && r.critical[0] == e);
  assert_close(r.exp_value, 1.0 / 7, TOL_SOLVE);
  stp_graph_result_free(&r);
  /* without e, the first cycle (sum 3) is the slowest */
  stp_graph *h = new_graph();
  a = add(h, 1), b = add(h, 2), c = add(h, 0.5), d = add(h, 0.25);
  place(h, a, b, 0);
  place(h, b, a, 1);
  place(h, c, d, 0);
  place(h, d, c, 1);
  place(h, b, c, 0);
  analyze(h, 0, &r);
  check_bounds(&r);
  assert_close(r.det_period, 3, TOL_EXACT);
  assert_close(r.exp_value, 1.0 / 3, TOL_SOLVE);
  cr_assert_eq(r.exp_states, 2);
  cr_assert(r.critical_len == 2 && r.critical[0] == a && r.critical[1] == b);
  stp_graph_result_free(&r);
  stp_graph_free(h);
  stp_graph_free(g);
}

/* Outputs: a graph whose 3 marked transitions each complete a run counts
 * 3 runs per firing round. */
Test(graph_teg, outputs_scale) {
  stp_graph *g = new_graph();
  size_t a = add(g, 1), b = add(g, 2), c = add(g, 3);
  place(g, a, b, 0);
  place(g, b, c, 0);
  place(g, c, a, 1);
  stp_error err = {0};
  for (size_t t = 0; t < 3; t++) cr_assert_eq(stp_graph_set_output(g, t, &err), STP_OK);
  cr_assert_eq(stp_graph_set_output(g, 0, &err), STP_OK);
  cr_assert_eq(stp_graph_output_count(g), 3);
  stp_graph_result r;
  analyze(g, 0, &r);
  check_bounds(&r);
  assert_close(r.det_throughput, 3.0 / 6, TOL_EXACT);
  assert_close(r.exp_value, 3.0 / 6, TOL_SOLVE);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* A ring of 6 transitions with 3 tokens has C(8,3) = 56 markings (tokens
 * on 6 places, total 3): over a cap of 20 the exponential value is
 * missing with a reason, the deterministic one stays. */
Test(graph_teg, state_cap) {
  stp_graph *g = new_graph();
  for (size_t i = 0; i < 6; i++) add(g, 1);
  for (size_t i = 0; i < 6; i++) place(g, i, (i + 1) % 6, i % 2 == 0);
  stp_graph_result r;
  analyze(g, 20, &r);
  cr_assert_eq(r.exp_computed, 0);
  cr_assert(strstr(r.exp_reason, "20"), "%s", r.exp_reason);
  cr_assert(isnan(r.bound_lower));
  assert_close(r.det_period, 2, TOL_EXACT);
  stp_graph_result_free(&r);
  analyze(g, 0, &r);
  check_bounds(&r);
  cr_assert_eq(r.exp_states, 56);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* The analysis finds a token-free cycle itself (Howard) and names it as
 * stp_graph_check does. */
Test(graph_teg, deadlock_named_by_analyze) {
  stp_graph *g = new_graph();
  size_t a = add(g, 1), b = add(g, 2), c = add(g, 3);
  place(g, a, b, 1);
  place(g, b, c, 0);
  place(g, c, b, 0);
  stp_graph_options o;
  stp_graph_options_init(&o);
  stp_graph_result r;
  stp_error err = {0}, check = {0};
  cr_assert_eq(stp_graph_analyze(g, &o, &r, &err), STP_EDEADLOCK);
  cr_assert_eq(stp_graph_check(g, &check), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "deadlock: the cycle ") && strstr(err.message, "t1") &&
                strstr(err.message, "t2") && !strstr(err.message, "t0"),
            "%s", err.message);
  cr_assert_null(r.critical);
  stp_graph_free(g);
}
