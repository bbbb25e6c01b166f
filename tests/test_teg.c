/* test_teg.c: the event graph compiler (docs/design.md section 2): sizes, token
 * counts, firing times, place rules, acyclicity of token-free places, and
 * size/overflow limits. */
#include "models/pipeline/teg.h"
#include "solvers/scc.h"
#include "testutil.h"

#include <stdlib.h>

static stp_teg *build(const stp_mapping *m, stp_model model) {
  stp_teg *t;
  stp_error err = {0};
  cr_assert_eq(stp__teg_build(m, model, UINT64_C(10000000), &t, &err), STP_OK, "%s", err.message);
  return t;
}

static uint64_t tokens(const stp_teg *t) {
  uint64_t k = 0;
  for (uint64_t e = 0; e < t->g->m; e++) {
    cr_assert_leq(t->g->tok[e], 1);
    k += t->g->tok[e];
  }
  return k;
}

/* In-degree of every transition, to check the place rules by counting. */
static uint32_t *in_degrees(const stp_teg *t) {
  uint32_t *d = calloc(t->g->n, sizeof *d);
  for (uint64_t e = 0; e < t->g->m; e++)
    d[t->g->dst[e]]++;
  return d;
}

Test(teg, overlap_sizes_tokens_and_place_rules) {
  trng rng = {.s = 21};
  for (int k = 0; k < 100; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 5), .max_team = 5};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_teg *t = build(m, STP_MODEL_OVERLAP);
    uint64_t rows;
    cr_assert(stp__mapping_lcm(m, &rows));
    size_t n = m->nstages;
    cr_assert_eq(t->nrows, rows);
    cr_assert_eq(t->g->n, rows * (2 * n - 1));
    uint64_t want_tok = 0;
    for (size_t i = 0; i < n; i++) /* one closing place per processor and port */
      want_tok += stp__team_size(m, i) * (1 + (i > 0) + (i + 1 < n));
    cr_assert_eq(tokens(t), want_tok);
    uint32_t *deg = in_degrees(t);
    for (uint32_t v = 0; v < t->g->n; v++) {
      uint32_t col = v % t->ncols;
      /* computation: previous column + processor cycle; transfer: computation
       * + emission cycle + reception cycle */
      uint32_t want = col % 2 ? 3 : (col > 0 ? 2 : 1);
      cr_assert_eq(deg[v], want, "transition %u (column %u) has %u input places", v, col, deg[v]);
    }
    free(deg);
    uint32_t *cycle;
    size_t len;
    cr_assert_not(stp__find_token_free_cycle(t->g, &cycle, &len));
    stp__teg_free(t);
    stp_mapping_free(m);
  }
}

Test(teg, strict_sizes_tokens_and_chains) {
  trng rng = {.s = 22};
  for (int k = 0; k < 100; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 5), .max_team = 5};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_teg *t = build(m, STP_MODEL_STRICT);
    uint64_t want_tok = 0;
    for (size_t i = 0; i < m->nstages; i++)
      want_tok += stp__team_size(m, i); /* one closing place per processor */
    cr_assert_eq(tokens(t), want_tok);
    cr_assert_eq(t->g->m, t->nrows * (t->ncols - 1) + t->nrows * m->nstages);
    /* every chain place leaves a processor's last action and enters the
     * same processor's first action on a later row (or wraps with a token) */
    for (uint64_t e = 0; e < t->g->m; e++) {
      uint32_t s = t->g->src[e], d = t->g->dst[e];
      if (s / t->ncols == d / t->ncols && d == s + 1 && t->g->tok[e] == 0)
        continue; /* row order */
      cr_assert_eq(t->g->tok[e] == 1, d / t->ncols <= s / t->ncols);
    }
    uint32_t *cycle;
    size_t len;
    cr_assert_not(stp__find_token_free_cycle(t->g, &cycle, &len));
    stp__teg_free(t);
    stp_mapping_free(m);
  }
}

Test(teg, firing_times_follow_round_robin) {
  static const size_t teams[] = {2, 3, 1};
  trng rng = {.s = 23};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 3, false);
  stp_teg *t = build(m, STP_MODEL_OVERLAP);
  cr_assert_eq(t->nrows, 6);
  for (uint64_t j = 0; j < 6; j++) {
    size_t p0 = stp__team_member(m, 0, j % 2), p1 = stp__team_member(m, 1, j % 3);
    size_t p2 = stp__team_member(m, 2, 0);
    const double *x = t->time + j * 5;
    assert_close(x[0], m->stages[0].work / m->procs[p0].speed, TOL_EXACT);
    assert_close(x[1], m->stages[0].output / stp__link_bandwidth(m, p0, p1), TOL_EXACT);
    assert_close(x[2], m->stages[1].work / m->procs[p1].speed, TOL_EXACT);
    assert_close(x[3], m->stages[1].output / stp__link_bandwidth(m, p1, p2), TOL_EXACT);
    assert_close(x[4], m->stages[2].work / m->procs[p2].speed, TOL_EXACT);
  }
  char label[128];
  stp__teg_label(t, 1 * 5 + 1, label, sizeof label);
  cr_assert_str_eq(label, "row 1: P1 -> P3 (output of T1)");
  stp__teg_free(t);
  stp_mapping_free(m);
}

Test(teg, size_limit_and_lcm_overflow) {
  /* eleven primes from 47 to 97: lcm ~ 1.8e20 > 2^64 */
  static const size_t teams[] = {97, 89, 83, 79, 73, 71, 67, 61, 59, 53, 47};
  trng rng = {.s = 24};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 11, true);
  uint64_t paths = 7;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_paths(m, &paths, &err), STP_ELIMIT);
  cr_assert_eq(paths, 0);
  cr_assert(strstr(err.message, "exceeds 2^64"), "%s", err.message);
  stp_teg *t = NULL;
  cr_assert_eq(stp__teg_build(m, STP_MODEL_STRICT, UINT64_MAX, &t, &err), STP_ELIMIT);
  cr_assert_null(t);
  cr_assert(strstr(err.message, "more than 2^64 transitions"), "%s", err.message);
  /* Overlap needs no R: it is still answered */
  stp_result *r;
  cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, NULL, &r, &err), STP_OK, "%s", err.message);
  cr_assert_eq(r->paths, 0);
  cr_assert(isfinite(r->det_throughput) && r->det_throughput > 0);
  stp_result_free(r);
  stp_mapping_free(m);

  static const size_t small[] = {4, 6};
  m = tgen_mapping_teams(&rng, small, 2, true);
  cr_assert_eq(stp__teg_build(m, STP_MODEL_OVERLAP, 35, &t, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "36 transitions (12 paths x 3 columns), above the limit of 35"),
            "%s", err.message);
  cr_assert_eq(stp__teg_build(m, STP_MODEL_OVERLAP, 36, &t, &err), STP_OK);
  stp__teg_free(t);
  stp_mapping_free(m);
}
