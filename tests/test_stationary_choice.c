/* test_stationary_choice.c: AUTO's choice between UMFPACK and the sweeps
 * on chains without levels (solvers/stationary.h), on chains whose
 * stationary distribution is known in closed form.  The moves are a
 * circulation divided by the wanted distribution: with K permutations
 * sigma_k of the states and weights c_k, the move s -> sigma_k(s) has rate
 * c_k / w[s]; every state then receives and emits the flow sum_k c_k, so
 * pi = w / sum(w) whatever the permutations.  Random permutations give an
 * expander, whose LU factors fill in (the sweeps are cheaper); a weak
 * permutation between two halves makes a nearly decomposable chain, on
 * which the sweeps crawl (the factorisation is cheaper).  Each chain is
 * solved both ways, forced and by AUTO, to the same values within 1e-12. */
#include "solvers/stationary.h"
#include "support/testutil.h"

#include <stdlib.h>
#include <string.h>

/* A random permutation of 0..n-1 (Fisher-Yates). */
static void permutation(trng *rng, int64_t *p, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    p[k] = k;
  for (int64_t k = n - 1; k > 0; k--) {
    int64_t j = (int64_t)(trng_next(rng) % (uint64_t)(k + 1)), t = p[k];
    p[k] = p[j];
    p[j] = t;
  }
}

/* Within each of `blocks` equal blocks of n states, `k` random permutations
 * of weight 1; between the blocks (blocks 2), the shift by n/2 of weight
 * `cross`.  w: the wanted distribution (normalised here), 4 times larger
 * on the second block than on the first (1/5 of the mass in block 0, far
 * from the 1/2 of a uniform start). */
static stp_csr *circulation(int64_t n, int blocks, int k, double cross, double *w, trng *rng) {
  stp_triplet t;
  stp_error err;
  cr_assert_eq(stp__triplet_init(&t, n, n, 0, &err), STP_OK);
  double sum = 0;
  for (int64_t s = 0; s < n; s++)
    sum += w[s] = trng_uniform(rng, 0.5, 2) * (s < n / blocks ? 1 : 4);
  int64_t size = n / blocks, *p = malloc((size_t)size * sizeof *p);
  for (int b = 0; b < blocks; b++)
    for (int j = 0; j < k; j++) {
      permutation(rng, p, size);
      for (int64_t s = 0; s < size; s++)
        stp__triplet_push(&t, b * size + s, b * size + p[s], 1 / w[b * size + s], &err);
    }
  for (int64_t s = 0; blocks > 1 && s < n; s++)
    stp__triplet_push(&t, s, (s + size) % n, cross / w[s], &err);
  free(p);
  for (int64_t s = 0; s < n; s++)
    w[s] /= sum;
  stp_csr *q;
  cr_assert_eq(stp__csr_from_triplet(&t, &q, &err), STP_OK, "%s", err.message);
  stp__triplet_free(&t);
  return q;
}

static double *solve(const stp_csr *q, stp_stationary_options *o, stp_stationary_info *info) {
  double *pi;
  stp_error err = {0};
  cr_assert_eq(stp__stationary_solve(q, o, &pi, info, &err), STP_OK, "%s", err.message);
  cr_assert_leq(info->residual, o->tolerance);
  cr_assert_eq(info->period, 1, "the test chains have no levels (period %u)", info->period);
  return pi;
}

static void assert_distribution(const double *pi, const double *want, int64_t n, double rtol) {
  for (int64_t s = 0; s < n; s++)
    assert_close(pi[s], want[s], rtol);
}

static void options(stp_stationary_options *o, stp_stationary_method m) {
  stp__stationary_options_init(o);
  o->method = m;
}

Test(stationary_choice, an_expander_is_swept_not_factorised) {
  trng rng = {35};
  const int64_t n = 1200;
  double *w = malloc((size_t)n * sizeof *w);
  stp_csr *q = circulation(n, 1, 3, 0, w, &rng);
  stp_stationary_options o;
  stp_stationary_info auto_info, direct_info;
  options(&o, STP_STATIONARY_AUTO);
  double *chosen = solve(q, &o, &auto_info);
  cr_assert_str_eq(auto_info.solver, "gauss-seidel (level order)");
  cr_assert_str_eq(auto_info.reason, STP_REASON_SWEEPS_CHEAPER);
  /* the estimates behind it: the fill of a random graph against tens of sweeps */
  cr_assert_gt(auto_info.factor_flops, 100 * auto_info.predicted_sweeps * auto_info.sweep_moves,
               "flops %g, %g sweeps of %g moves", auto_info.factor_flops,
               auto_info.predicted_sweeps, auto_info.sweep_moves);
  cr_assert_gt(auto_info.iterations, STP_CHOICE_TRIAL);
  cr_assert_leq(auto_info.predicted_sweeps, 3.0 * (double)auto_info.iterations);
  cr_assert_geq(3.0 * auto_info.predicted_sweeps, (double)auto_info.iterations);
  options(&o, STP_STATIONARY_DIRECT);
  double *direct = solve(q, &o, &direct_info);
  cr_assert_str_eq(direct_info.solver, "umfpack");
  cr_assert_str_eq(direct_info.reason, STP_REASON_ASKED);
  assert_distribution(chosen, w, n, TOL_EXACT);
  assert_distribution(direct, w, n, TOL_EXACT);
  assert_distribution(chosen, direct, n, TOL_EXACT);
  free(chosen);
  free(direct);
  free(w);
  stp__csr_free(q);
}

Test(stationary_choice, a_nearly_decomposable_chain_ends_factorised) {
  trng rng = {36};
  const int64_t n = 600;
  double *w = malloc((size_t)n * sizeof *w);
  stp_csr *q = circulation(n, 2, 3, 1e-7, w, &rng);
  stp_stationary_options o;
  stp_stationary_info info;
  options(&o, STP_STATIONARY_AUTO);
  double *chosen = solve(q, &o, &info);
  /* the trial sees the fast modes within the blocks and chooses the
   * sweeps; they stall on the slow mode between the blocks (their
   * estimate stops halving) and the factorisation takes over */
  cr_assert_str_eq(info.reason, STP_REASON_SWEEPS_CHEAPER, "%s", info.reason);
  cr_assert_str_eq(info.solver, "umfpack (gauss-seidel stalled)", "%g flops, %g sweeps of %g "
                   "moves predicted", info.factor_flops, info.predicted_sweeps, info.sweep_moves);
  cr_assert_gt(info.iterations, 50); /* the sweeps made before, counted */
  /* the chain's condition, about 1/cross = 1e7, bounds any solver's accuracy */
  assert_distribution(chosen, w, n, 1e-8);
  /* forced the other way: Gauss-Seidel alone stalls; given many sweeps
   * (and the BiCGSTAB that AUTO hands them to where it may not factorise)
   * it reaches the same values */
  options(&o, STP_STATIONARY_AUTO);
  o.max_factor_bytes = 1;
  stp_stationary_info swept_info;
  double *swept = solve(q, &o, &swept_info);
  cr_assert_str_eq(swept_info.reason, STP_REASON_FACTORS_OVER_BUDGET);
  cr_assert_str_eq(swept_info.solver, "bicgstab on level-order sweeps (gauss-seidel stalled)");
  assert_distribution(swept, w, n, 1e-8);
  assert_distribution(swept, chosen, n, 1e-8);
  free(swept);
  free(chosen);
  free(w);
  stp__csr_free(q);
}

Test(stationary_choice, sweeps_cut_short_fall_back_to_the_factorisation) {
  trng rng = {37};
  const int64_t n = 1200;
  double *w = malloc((size_t)n * sizeof *w);
  stp_csr *q = circulation(n, 1, 3, 0, w, &rng);
  stp_stationary_options o;
  stp_stationary_info info;
  options(&o, STP_STATIONARY_AUTO);
  o.max_sweeps = STP_CHOICE_TRIAL + 1; /* chosen, then stopped far above the tolerance */
  double *pi = solve(q, &o, &info);
  cr_assert_str_eq(info.reason, STP_REASON_SWEEPS_CHEAPER);
  cr_assert_str_eq(info.solver, "umfpack (gauss-seidel stalled)");
  assert_distribution(pi, w, n, TOL_EXACT);
  free(pi);
  free(w);
  stp__csr_free(q);
}

Test(stationary_choice, a_small_chain_is_factorised_without_a_trial) {
  trng rng = {38};
  const int64_t n = 12;
  double w[12];
  stp_csr *q = circulation(n, 1, 2, 0, w, &rng);
  stp_stationary_options o;
  stp_stationary_info info;
  options(&o, STP_STATIONARY_AUTO);
  double *pi = solve(q, &o, &info);
  cr_assert_str_eq(info.solver, "umfpack");
  cr_assert_str_eq(info.reason, STP_REASON_FACTORS_CHEAP);
  cr_assert_eq(info.predicted_sweeps, 0);
  assert_distribution(pi, w, n, TOL_EXACT);
  free(pi);
  /* above direct_max_states: the sweeps, whatever the cost */
  o.direct_max_states = n - 1;
  pi = solve(q, &o, &info);
  cr_assert_str_eq(info.solver, "gauss-seidel (level order)");
  cr_assert_str_eq(info.reason, STP_REASON_TOO_LARGE);
  assert_distribution(pi, w, n, 1e-9);
  free(pi);
  stp__csr_free(q);
}

Test(stationary_choice, a_chain_with_levels_is_swept_without_a_choice) {
  /* a ring 0 -> 1 -> ... -> 5 -> 0 of rates 1..6: pi proportional to 1/rate */
  stp_triplet t;
  stp_error err;
  cr_assert_eq(stp__triplet_init(&t, 6, 6, 0, &err), STP_OK);
  double want[6], sum = 0;
  for (int64_t s = 0; s < 6; s++) {
    stp__triplet_push(&t, s, (s + 1) % 6, (double)(s + 1), &err);
    sum += want[s] = 1.0 / (double)(s + 1);
  }
  for (int64_t s = 0; s < 6; s++)
    want[s] /= sum;
  stp_csr *q;
  cr_assert_eq(stp__csr_from_triplet(&t, &q, &err), STP_OK);
  stp__triplet_free(&t);
  stp_stationary_options o;
  options(&o, STP_STATIONARY_AUTO);
  double *pi;
  stp_stationary_info info;
  cr_assert_eq(stp__stationary_solve(q, &o, &pi, &info, &err), STP_OK, "%s", err.message);
  cr_assert_eq(info.period, 6);
  cr_assert_str_eq(info.solver, "gauss-seidel (level order)");
  cr_assert_null(info.reason);
  cr_assert_eq(info.factor_flops, 0);
  assert_distribution(pi, want, 6, TOL_EXACT);
  free(pi);
  stp__csr_free(q);
}
