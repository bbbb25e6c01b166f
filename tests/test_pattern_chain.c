/* test_pattern_chain.c: the Young-diagram chain of a u x v transfer
 * pattern.  References: the paper's double sum for S(u, v); the markings of
 * the pattern's event graph (stp__pattern_graph) enumerated naively, which
 * must be the same labelled chain; closed forms (Theorem 4 for homogeneous
 * links, the single sender or receiver, u = v = 1); and the deterministic
 * rate (Howard) as an upper bound. */
#include "models/pipeline/components.h"
#include "models/pipeline/pattern_chain.h"
#include "solvers/mcr_howard.h"
#include "support/chainref.h"
#include "support/testutil.h"

#include <stdlib.h>

static double binomial(unsigned n, unsigned k) {
  double c = 1;
  for (unsigned i = 0; i < k; i++)
    c = c * (n - i) / (i + 1);
  return c;
}

/* The paper's count: sum over i < u, j < v of C(i+j, i) C(u+v-2-i-j, u-1-i). */
static double paper_count(unsigned u, unsigned v) {
  double s = 0;
  for (unsigned i = 0; i < u; i++)
    for (unsigned j = 0; j < v; j++)
      s += binomial(i + j, i) * binomial(u + v - 2 - i - j, u - 1 - i);
  return s;
}

static stp_chain *chain_of(size_t u, size_t v, const double *times) {
  stp_chain *c;
  stp_error err = {0};
  cr_assert_eq(stp__pattern_chain(u, v, times, UINT64_C(1000000), &c, &err), STP_OK, "%s",
               err.message);
  return c;
}

static double *random_times(trng *r, size_t n, double lo, double hi) {
  double *t = malloc(n * sizeof *t);
  cr_assert(t);
  for (size_t k = 0; k < n; k++)
    t[k] = trng_uniform(r, lo, hi);
  return t;
}

static double solve_rate(const stp_chain *c, stp_stationary_method method) {
  stp_options o;
  stp_options_init(&o);
  double *pi, rate;
  stp_ctmc_info info;
  stp_error err = {0};
  cr_assert_eq(stp__chain_solve(c, &o, method, &pi, &rate, &info, &err), STP_OK, "%s",
               err.message);
  cr_assert_leq(info.residual, o.solver_tolerance);
  free(pi);
  return rate;
}

Test(pattern_chain, state_counts_follow_the_paper) {
  trng rng = {1};
  for (size_t u = 1; u <= 12; u++)
    for (size_t v = 1; v <= 12; v++) {
      if (stp__gcd_u64(u, v) != 1)
        continue;
      /* An integer below 2^53, so exact in a double. */
      uint64_t want = (uint64_t)llround(paper_count((unsigned)u, (unsigned)v));
      uint64_t count;
      cr_assert(stp__pattern_state_count(u, v, &count));
      cr_assert_eq(count, want, "S(%zu, %zu) = %llu, the paper's sum gives %llu", u, v,
                   (unsigned long long)count, (unsigned long long)want);
      if (want > 60000)
        continue;
      double *t = random_times(&rng, u * v, 1, 2);
      stp_chain *c = chain_of(u, v, t);
      cr_assert_eq((uint64_t)c->moves->nrows, want, "%zu x %zu: %lld states", u, v,
                   (long long)c->moves->nrows);
      /* Every state is entered and left (the ranking is onto its range). */
      char *entered = calloc((size_t)c->moves->nrows, 1);
      for (int64_t s = 0; s < c->moves->nrows; s++) {
        cr_assert_gt(c->moves->p[s + 1], c->moves->p[s]);
        for (int64_t e = c->moves->p[s]; e < c->moves->p[s + 1]; e++) {
          cr_assert(c->moves->j[e] >= 0 && c->moves->j[e] < c->moves->nrows);
          entered[c->moves->j[e]] = 1;
        }
      }
      for (int64_t s = 0; s < c->moves->nrows; s++)
        cr_assert(entered[s], "%zu x %zu: state %lld is never entered", u, v, (long long)s);
      free(entered);
      free(t);
      stp__chain_free(c);
    }
}

/* The event graph of the pattern, whose markings the reference enumerates. */
static ref_chain reference(size_t u, size_t v, const double *times) {
  stp_component comp = {.kind = STP_COMPONENT_TRANSFER, .g = 1, .u = u, .v = v};
  stp_digraph *g;
  stp_error err = {0};
  cr_assert_eq(stp__pattern_graph(&comp, times, &g, &err), STP_OK, "%s", err.message);
  ref_chain r = ref_enumerate(g, times, 5000);
  stp__digraph_free(g);
  return r;
}

static const size_t small_patterns[][2] = {{1, 1}, {1, 4}, {4, 1}, {2, 3}, {3, 2}, {2, 5},
                                           {5, 2}, {3, 4}, {4, 3}, {3, 5}, {5, 3}, {4, 5},
                                           {5, 4}, {2, 7}, {5, 6}};

Test(pattern_chain, is_the_chain_of_the_pattern_markings) {
  trng rng = {2};
  for (size_t k = 0; k < sizeof small_patterns / sizeof *small_patterns; k++) {
    size_t u = small_patterns[k][0], v = small_patterns[k][1];
    double *t = random_times(&rng, u * v, 1, 10);
    ref_chain r = reference(u, v, t);
    stp_chain *c = chain_of(u, v, t);
    ref_assert_isomorphic(&r, c);
    ref_chain_free(&r);
    stp__chain_free(c);
    free(t);
  }
}

Test(pattern_chain, heterogeneous_rate_matches_the_dense_reference) {
  trng rng = {3};
  for (size_t k = 0; k < sizeof small_patterns / sizeof *small_patterns; k++) {
    size_t u = small_patterns[k][0], v = small_patterns[k][1];
    double *t = random_times(&rng, u * v, 0.1, 10);
    ref_chain r = reference(u, v, t);
    double *pi = ref_stationary(&r);
    double want = ref_rate(&r, pi, NULL);
    stp_chain *c = chain_of(u, v, t);
    assert_close(solve_rate(c, STP_STATIONARY_ITERATIVE), want, TOL_SOLVE);
    assert_close(solve_rate(c, STP_STATIONARY_DIRECT), want, TOL_SOLVE);
    free(pi);
    ref_chain_free(&r);
    stp__chain_free(c);
    free(t);
  }
}

/* Theorem 4: all links at rate lambda give u*v*lambda / (u+v-1), up to the
 * 7 x 9 pattern (45045 states), through the Markov chain. */
Test(pattern_chain, homogeneous_chain_matches_theorem_4) {
  stp_options o;
  stp_options_init(&o);
  for (size_t u = 1; u <= 9; u++)
    for (size_t v = 1; v <= 9; v++) {
      uint64_t count;
      if (stp__gcd_u64(u, v) != 1 || !stp__pattern_state_count(u, v, &count) || count > 45045)
        continue;
      double mean = 0.25 + (double)(u + v) / 7, lambda = 1 / mean;
      double *t = malloc(u * v * sizeof *t);
      for (size_t k = 0; k < u * v; k++)
        t[k] = mean;
      double rate;
      stp_ctmc_info info;
      stp_error err = {0};
      cr_assert_eq(stp__pattern_exp_rate(u, v, t, &o, &rate, &info, &err), STP_OK, "%s",
                   err.message);
      assert_close(rate, (double)(u * v) * lambda / (double)(u + v - 1), 1e-10);
      cr_assert_eq(info.states, count);
      if (count <= 5000) {
        stp_chain *c = chain_of(u, v, t);
        assert_close(solve_rate(c, STP_STATIONARY_DIRECT),
                     (double)(u * v) * lambda / (double)(u + v - 1), 1e-10);
        stp__chain_free(c);
      }
      free(t);
    }
}

/* One sender: its v transfers run one after the other, v data sets per
 * sum of the means; likewise one receiver.  u = v = 1: the link's rate. */
Test(pattern_chain, single_sender_or_receiver_is_a_sequence) {
  trng rng = {4};
  for (size_t n = 1; n <= 9; n++) {
    double *t = random_times(&rng, n, 0.5, 5), sum = 0;
    for (size_t k = 0; k < n; k++)
      sum += t[k];
    for (int side = 0; side < 2; side++) {
      stp_chain *c = side ? chain_of(n, 1, t) : chain_of(1, n, t);
      cr_assert_eq(c->moves->nrows, (int64_t)n);
      assert_close(solve_rate(c, STP_STATIONARY_AUTO), (double)n / sum, TOL_SOLVE);
      stp__chain_free(c);
    }
    free(t);
  }
}

/* The deterministic rate of the same pattern (Howard) bounds it above. */
Test(pattern_chain, exponential_rate_is_below_the_deterministic_one) {
  trng rng = {5};
  for (int round = 0; round < 200; round++) {
    size_t u = trng_int(&rng, 1, 6), v = trng_int(&rng, 1, 6);
    if (stp__gcd_u64(u, v) != 1)
      continue;
    double *t = random_times(&rng, u * v, 0.1, 10);
    stp_component comp = {.kind = STP_COMPONENT_TRANSFER, .g = 1, .u = u, .v = v};
    stp_digraph *g;
    stp_mcr_result mcr = {0};
    stp_error err = {0};
    cr_assert_eq(stp__pattern_graph(&comp, t, &g, &err), STP_OK);
    cr_assert_eq(stp__mcr_howard(g, NULL, &mcr, &err), STP_OK, "%s", err.message);
    double det = (double)(u * v) / mcr.ratio;
    stp_chain *c = chain_of(u, v, t);
    double exp_rate = solve_rate(c, STP_STATIONARY_AUTO);
    cr_assert_leq(exp_rate, det * (1 + 1e-12), "%zu x %zu: exponential %.17g > deterministic %.17g",
                  u, v, exp_rate, det);
    stp__mcr_result_clear(&mcr);
    stp__digraph_free(g);
    stp__chain_free(c);
    free(t);
  }
}

Test(pattern_chain, bad_patterns_and_limits_are_reported) {
  double t[200] = {0};
  for (size_t k = 0; k < 200; k++)
    t[k] = 1;
  stp_chain *c = (stp_chain *)1;
  stp_error err = {0};
  cr_assert_eq(stp__pattern_chain(2, 4, t, 1000, &c, &err), STP_EINVAL);
  cr_assert_null(c);
  cr_assert(strstr(err.message, "2 x 4 transfer pattern needs gcd(u, v) = 1"), "%s", err.message);
  cr_assert_eq(stp__pattern_chain(7, 9, t, 45044, &c, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "the 7 x 9 pattern's Markov chain has 4.504e+04 states, above "
                                "the limit of 45044"), "%s", err.message);
  /* S(7, 9) = 9 * C(15, 6) = 45045, exact in the detail */
  cr_assert_eq(err.limit.kind, STP_LIMIT_STATES);
  cr_assert_eq(err.limit.needed, 45045);
  cr_assert_eq(err.limit.allowed, 45044);
  cr_assert_eq(stp__pattern_chain(101, 100, t, 1000000, &c, &err), STP_ELIMIT);
  char want[128]; /* S(101, 100) = 100 * C(200, 100), far beyond 2^64 */
  snprintf(want, sizeof want, "101 x 100 pattern's Markov chain has %.4g states",
           100 * binomial(200, 100));
  cr_assert(strstr(err.message, want), "%s does not contain %s", err.message, want);
  t[5] = 0;
  cr_assert_eq(stp__pattern_chain(3, 2, t, 1000, &c, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "transition 5 of the pattern has mean time 0"), "%s", err.message);
  stp__chain_free(NULL);
}

/* The memory budget is checked from the exact counts before building: the
 * 7 x 9 pattern has 9 * C(15, 6) = 45045 states, at least 40 bytes each. */
Test(pattern_chain, memory_budget_checked_before_building) {
  stp_error err = {0};
  cr_assert_eq(stp__pattern_check_memory(7, 9, UINT64_C(1) << 20, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "(45045 states)"), "%s", err.message);
  cr_assert(strstr(err.message, "above the memory budget of 0.000977 GiB"), "%s", err.message);
  cr_assert_eq(err.limit.kind, STP_LIMIT_MEMORY);
  cr_assert_eq(err.limit.allowed, UINT64_C(1) << 20);
  cr_assert(err.limit.needed >= 45045 * 40, "%llu", (unsigned long long)err.limit.needed);
  cr_assert_eq(stp__pattern_check_memory(7, 9, UINT64_C(1) << 30, &err), STP_OK);
}
