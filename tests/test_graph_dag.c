/* test_graph_dag.c: the analyses of an activity DAG (stp_graph_analyze on a
 * graph without tokens): the deterministic makespan and its critical path,
 * the exact E[makespan] with exponential times by the order-ideal chain
 * against closed forms and against an independent brute force that walks
 * every race order with exact rationals (GMP), the N.B.U.E. bounds, and the
 * state cap with its reason. */
#include "graphutil.h"
#include "testutil.h"
#include "streamtp_graph.h"

#include <gmp.h>
#include <stdio.h>
#include <string.h>

static stp_graph *new_graph(void) { return tg_new(); }

static size_t add(stp_graph *g, double time) { return tg_add(g, NULL, time, NULL); }

static void edge(stp_graph *g, size_t a, size_t b) { tg_place(g, a, b, 0); }

static void analyze(const stp_graph *g, uint64_t max_states, stp_graph_result *r) {
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.max_states = max_states;
  stp_error err = {0};
  cr_assert_eq(stp_graph_analyze(g, &o, r, &err), STP_OK, "%s", err.message);
  cr_assert_eq(r->is_dag, 1);
}

static double exp_makespan(const stp_graph *g) {
  stp_graph_result r;
  analyze(g, 0, &r);
  cr_assert(r.exp_computed, "%s", r.exp_reason);
  cr_assert_str_eq(r.exp_method, "dag-ctmc");
  double v = r.exp_value;
  cr_assert_eq(r.bound_lower, r.det_makespan);
  cr_assert_eq(r.bound_upper, v);
  cr_assert(r.bound_lower <= r.bound_upper * (1 + 1e-15));
  stp_graph_result_free(&r);
  return v;
}

/* n independent exponential transitions of rate 1: the maximum of n
 * exponentials, H_n = 1 + 1/2 + ... + 1/n; 2^n ideals. */
Test(graph_dag, parallel_is_harmonic) {
  for (size_t n = 1; n <= 16; n++) {
    stp_graph *g = new_graph();
    for (size_t i = 0; i < n; i++) add(g, 1.0);
    double h = 0;
    for (size_t k = 1; k <= n; k++) h += 1.0 / (double)k;
    stp_graph_result r;
    analyze(g, 0, &r);
    assert_close(r.exp_value, h, TOL_EXACT);
    cr_assert_eq(r.exp_states, UINT64_C(1) << n);
    assert_close(r.det_makespan, 1.0, TOL_EXACT);
    cr_assert_eq(r.critical_len, 1);
    stp_graph_result_free(&r);
    stp_graph_free(g);
  }
}

/* A series of n: the sum of n means, n + 1 ideals; the critical path is
 * the whole chain. */
Test(graph_dag, series_is_sum) {
  for (size_t n = 1; n <= 40; n++) {
    stp_graph *g = new_graph();
    for (size_t i = 0; i < n; i++) {
      add(g, 1.0);
      if (i) edge(g, i - 1, i);
    }
    stp_graph_result r;
    analyze(g, 0, &r);
    assert_close(r.exp_value, (double)n, TOL_EXACT);
    assert_close(r.det_makespan, (double)n, TOL_EXACT);
    cr_assert_eq(r.exp_states, n + 1);
    cr_assert_eq(r.critical_len, n);
    for (size_t i = 0; i < n; i++) cr_assert_eq(r.critical[i], i);
    stp_graph_result_free(&r);
    stp_graph_free(g);
  }
}

/* Two parallel branches a1 -> a2 and b1 -> b2, rate 1 each.  With (i, j)
 * the finished counts of each branch and E(i, j) the expected remaining
 * time: E(2,2) = 0; one task running: E(2,1) = E(1,2) = 1, E(2,0) =
 * E(0,2) = 2; two running (total rate 2, each wins with 1/2):
 * E(1,1) = (1 + E(2,1) + E(1,2)) / 2 = 3/2,
 * E(1,0) = E(0,1) = (1 + E(2,0) + E(1,1)) / 2 = 9/4,
 * E(0,0) = (1 + E(1,0) + E(0,1)) / 2 = 11/4.  9 ideals. */
Test(graph_dag, two_parallel_chains) {
  stp_graph *g = new_graph();
  size_t a1 = add(g, 1), a2 = add(g, 1), b1 = add(g, 1), b2 = add(g, 1);
  edge(g, a1, a2);
  edge(g, b1, b2);
  stp_graph_result r;
  analyze(g, 0, &r);
  assert_close(r.exp_value, 11.0 / 4.0, TOL_EXACT);
  cr_assert_eq(r.exp_states, 9);
  assert_close(r.det_makespan, 2.0, TOL_EXACT);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* Deterministic longest path on a fork-join: s -> {a (5), b (2)} -> j. */
Test(graph_dag, critical_path_fork_join) {
  stp_graph *g = new_graph();
  size_t s = add(g, 1), b = add(g, 2), a = add(g, 5), j = add(g, 0.5), z = add(g, 3);
  edge(g, s, b);
  edge(g, s, a);
  edge(g, b, j);
  edge(g, a, j);
  (void)z; /* an isolated transition shorter than the path */
  stp_graph_result r;
  analyze(g, 0, &r);
  assert_close(r.det_makespan, 6.5, TOL_EXACT);
  cr_assert_eq(r.critical_len, 3);
  cr_assert(r.critical[0] == s && r.critical[1] == a && r.critical[2] == j);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* Zero-time transitions are instantaneous: a join of time 0 adds nothing,
 * and a zero-time source in front changes nothing. */
Test(graph_dag, zero_times) {
  stp_graph *g = new_graph();
  size_t z = add(g, 0), a = add(g, 1), b = add(g, 1), j = add(g, 0);
  edge(g, z, a);
  edge(g, z, b);
  edge(g, a, j);
  edge(g, b, j);
  cr_assert_float_eq(exp_makespan(g), 1.5, 1e-13);
  stp_graph_free(g);
  g = new_graph();
  add(g, 0);
  cr_assert_eq(exp_makespan(g), 0);
  stp_graph_free(g);
}

/* Beyond the cap: exit 0 with a null value and a reason; the deterministic
 * part still holds.  20 independent transitions: 2^20 ideals, refused up
 * front (an antichain of 20). */
Test(graph_dag, state_cap) {
  stp_graph *g = new_graph();
  for (int i = 0; i < 20; i++) add(g, 1.0);
  stp_graph_result r;
  analyze(g, 1000, &r);
  cr_assert_eq(r.exp_computed, 0);
  cr_assert(strstr(r.exp_reason, "1000"), "%s", r.exp_reason);
  cr_assert(isnan(r.bound_upper));
  assert_close(r.det_makespan, 1.0, TOL_EXACT);
  stp_graph_result_free(&r);
  stp_graph_free(g);
  /* a ladder with no wide antichain but more ideals than the cap */
  g = new_graph();
  for (size_t i = 0; i < 60; i++) {
    add(g, 1.0);
    if (i >= 2) edge(g, i - 2, i);
    if (i >= 3 && i % 2 == 1) edge(g, i - 3, i);
  }
  analyze(g, 50, &r);
  cr_assert_eq(r.exp_computed, 0);
  cr_assert(strstr(r.exp_reason, "50"), "%s", r.exp_reason);
  stp_graph_result_free(&r);
  analyze(g, 0, &r);
  cr_assert(r.exp_computed, "%s", r.exp_reason);
  cr_assert_gt(r.exp_states, 50);
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

/* ---- brute force over race orders, exact rationals -----------------------
 * A race order is the sequence in which the transitions finish.  From a set
 * S of finished ones, a ready zero-time transition finishes at once (the
 * first such: the order among instantaneous ones does not matter); else
 * the running ones race: a wins with probability rate_a / R and the step
 * lasts 1/R on average (R = total rate).  E[makespan] = sum over the
 * complete orders of P(order) x (sum of its steps' 1/R).  Nothing is
 * memoised: every order is walked, unlike the chain over ideals. */
typedef struct bf {
  size_t n;
  unsigned rate[10];  /* 0 = instantaneous */
  unsigned pred[10];  /* predecessor bitmask */
  mpq_t acc;
} bf;

static void bf_walk(bf *b, unsigned done, const mpq_t prob, const mpq_t time) {
  unsigned full = (1u << b->n) - 1;
  if (done == full) {
    mpq_t x;
    mpq_init(x);
    mpq_mul(x, prob, time);
    mpq_add(b->acc, b->acc, x);
    mpq_clear(x);
    return;
  }
  unsigned ready = 0, R = 0;
  for (size_t t = 0; t < b->n; t++)
    if (!(done >> t & 1) && (b->pred[t] & ~done) == 0) {
      if (b->rate[t] == 0) {
        bf_walk(b, done | 1u << t, prob, time);
        return;
      }
      ready |= 1u << t;
      R += b->rate[t];
    }
  mpq_t p2, t2, step;
  mpq_inits(p2, t2, step, NULL);
  mpq_set_ui(step, 1, R);
  mpq_add(t2, time, step);
  for (size_t t = 0; t < b->n; t++)
    if (ready >> t & 1) {
      mpq_set_ui(step, b->rate[t], R);
      mpq_canonicalize(step);
      mpq_mul(p2, prob, step);
      bf_walk(b, done | 1u << t, p2, t2);
    }
  mpq_clears(p2, t2, step, NULL);
}

Test(graph_dag, brute_force_random_dags) {
  trng rng = {.s = 20260901};
  size_t checked = 0;
  for (int k = 0; k < 200; k++) {
    bf b = {.n = trng_int(&rng, 1, 10)};
    double p = trng_uniform(&rng, 0.15, 0.6);
    /* transitions added in a shuffled order, so that the index order is
     * not a topological order */
    size_t perm[10];
    for (size_t i = 0; i < b.n; i++) perm[i] = i;
    for (size_t i = b.n; i > 1; i--) {
      size_t j = trng_int(&rng, 0, i - 1), x = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = x;
    }
    stp_graph *g = new_graph();
    for (size_t i = 0; i < b.n; i++) {
      b.rate[i] = trng_uniform(&rng, 0, 1) < 0.1 ? 0 : (unsigned)trng_int(&rng, 1, 4);
      add(g, b.rate[i] ? 1.0 / b.rate[i] : 0.0);
    }
    for (size_t i = 0; i < b.n; i++)
      for (size_t j = i + 1; j < b.n; j++)
        if (trng_uniform(&rng, 0, 1) < p) {
          b.pred[perm[j]] |= 1u << perm[i];
          edge(g, perm[i], perm[j]);
        }
    mpq_t one, zero;
    mpq_inits(b.acc, one, zero, NULL);
    mpq_set_ui(one, 1, 1);
    bf_walk(&b, 0, one, zero);
    double ref = mpq_get_d(b.acc);
    mpq_clears(b.acc, one, zero, NULL);
    double got = exp_makespan(g);
    if (ref == 0)
      cr_assert_eq(got, 0);
    else
      assert_close(got, ref, TOL_EXACT);
    checked++;
    stp_graph_free(g);
  }
  cr_assert_eq(checked, 200);
}

/* The exact E[makespan] against Monte Carlo (stp_graph_simulate, exponential
 * law, fixed seeds) on 20 random DAGs of up to 12 transitions: the exact
 * value lies within the 99.9 % interval mean -+ 3.29 s / sqrt(R) of each
 * estimate (20 intervals: all hold with probability 98 %, and the seeds are
 * fixed, so the outcome is reproducible). */
Test(graph_dag, monte_carlo_agrees) {
  trng rng = {.s = 4242};
  for (int k = 0; k < 20; k++) {
    size_t n = trng_int(&rng, 2, 12);
    stp_graph *g = new_graph();
    for (size_t i = 0; i < n; i++) add(g, trng_uniform(&rng, 0.2, 3.0));
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++)
        if (trng_uniform(&rng, 0, 1) < 0.3) edge(g, i, j);
    double exact = exp_makespan(g);
    stp_graph_sim_options o;
    stp_graph_sim_options_init(&o);
    o.runs = 40000;
    o.seed = (uint64_t)k + 1;
    stp_graph_sim_result r;
    stp_error err = {0};
    cr_assert_eq(stp_graph_simulate(g, &o, &r, &err), STP_OK, "%s", err.message);
    double half = 3.29 * r.stddev / sqrt((double)r.runs);
    cr_assert(fabs(r.mean - exact) <= half, "DAG %d: exact %.6g, Monte Carlo %.6g +- %.3g", k,
              exact, r.mean, half);
    stp_graph_free(g);
  }
}
