/* test_strict_chain.c: the Markov chain of the Strict event graph.
 * References: chains solved by hand (one processor; independent
 * processors; two processors and one link, four markings), the naive
 * enumeration of tests/support/chainref.c (token vectors, linear search,
 * dense elimination) on random small mappings and on the example, and the
 * state limit. */
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/teg.h"
#include "support/chainref.h"
#include "support/testutil.h"

#include <stdio.h>
#include <stdlib.h>

static double strict_rate(const stp_mapping *m, stp_ctmc_info *info) {
  stp_options o;
  stp_options_init(&o);
  double rho;
  stp_error err = {0};
  cr_assert_eq(stp__strict_exp_throughput(m, &o, &rho, info, &err), STP_OK, "%s", err.message);
  cr_assert_leq(info->residual, o.solver_tolerance);
  return rho;
}

/* One stage on one processor: a single transition on a one-token loop. */
Test(strict_chain, one_processor_runs_at_its_rate) {
  stp_mapping *m = load_json("{\"stages\": [{\"name\": \"T\", \"work\": 6}],"
                             " \"processors\": [{\"name\": \"P\", \"speed\": 1.5}],"
                             " \"mapping\": [[\"P\"]]}");
  stp_ctmc_info info;
  assert_close(strict_rate(m, &info), 1.5 / 6, TOL_SOLVE);
  cr_assert_eq(info.states, 1);
  stp_mapping_free(m);
}

/* One stage on three processors: independent loops, one marking.  Data
 * sets leave in order, so the slowest processor sets the pace: 3 x its rate. */
Test(strict_chain, replicated_single_stage_goes_at_the_slowest_pace) {
  stp_mapping *m = load_json("{\"stages\": [{\"name\": \"T\", \"work\": 2}],"
                             " \"processors\": [{\"name\": \"A\", \"speed\": 1},"
                             " {\"name\": \"B\", \"speed\": 3}, {\"name\": \"C\", \"speed\": 0.5}],"
                             " \"mapping\": [[\"A\", \"B\", \"C\"]]}");
  stp_ctmc_info info;
  assert_close(strict_rate(m, &info), 3 * 0.5 / 2, TOL_SOLVE);
  cr_assert_eq(info.states, 1);
  stp_mapping_free(m);
}

/* P0 computes T1 (rate a), sends to P1 (rate b), P1 computes T2 (rate c).
 * Strict: P0 cannot compute again before its send is done, P1 cannot
 * receive before its computation is done.  Markings, by hand:
 *   s0 -a-> s1 -b-> s2,  s2 -c-> s0,  s2 -a-> s3,  s3 -c-> s1.
 * Balance with pi2 = 1: pi0 = c/a, pi3 = a/c, pi1 = (a+c)/b; the
 * throughput is c (pi2 + pi3) / sum(pi) = (a + c) / (c/a + (a+c)/b + 1 + a/c). */
Test(strict_chain, two_processors_and_a_link_match_the_hand_solution) {
  trng rng = {31};
  for (int round = 0; round < 20; round++) {
    double w1 = trng_uniform(&rng, 1, 10), w2 = trng_uniform(&rng, 1, 10);
    double s0 = trng_uniform(&rng, 1, 10), s1 = trng_uniform(&rng, 1, 10);
    double out = trng_uniform(&rng, 1, 10), bw = trng_uniform(&rng, 1, 10);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"stages\": [{\"name\": \"T1\", \"work\": %.17g, \"output\": %.17g},"
             " {\"name\": \"T2\", \"work\": %.17g}],"
             " \"processors\": [{\"name\": \"P0\", \"speed\": %.17g},"
             " {\"name\": \"P1\", \"speed\": %.17g}],"
             " \"bandwidth\": %.17g, \"mapping\": [[\"P0\"], [\"P1\"]]}",
             w1, out, w2, s0, s1, bw);
    stp_mapping *m = load_json(json);
    double a = s0 / w1, b = bw / out, c = s1 / w2;
    double want = (a + c) / (c / a + (a + c) / b + 1 + a / c);
    stp_ctmc_info info;
    assert_close(strict_rate(m, &info), want, TOL_SOLVE);
    cr_assert_eq(info.states, 4);
    stp_mapping_free(m);
  }
}

/* The chain against the naive enumeration of the same event graph. */
static void check_against_reference(const stp_mapping *m, size_t max_states) {
  stp_options o;
  stp_options_init(&o);
  stp_teg *teg;
  stp_chain *c;
  stp_error err = {0};
  cr_assert_eq(stp__teg_build(m, STP_MODEL_STRICT, o.max_transitions, &teg, &err), STP_OK);
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_OK, "%s", err.message);
  ref_chain r = ref_enumerate(teg->g, teg->time, max_states);
  ref_assert_isomorphic(&r, c);
  double *pi = ref_stationary(&r);
  uint8_t *last = calloc(teg->g->n, 1);
  for (uint32_t t = 0; t < teg->g->n; t++)
    last[t] = t % teg->ncols == teg->ncols - 1;
  double want = ref_rate(&r, pi, last);
  stp_ctmc_info info;
  assert_close(strict_rate(m, &info), want, TOL_SOLVE);
  cr_assert_eq(info.states, r.n);
  free(last);
  free(pi);
  ref_chain_free(&r);
  stp__chain_free(c);
  stp__teg_free(teg);
}

Test(strict_chain, random_small_mappings_match_the_naive_enumeration) {
  trng rng = {32};
  for (int round = 0; round < 40; round++) {
    tgen p = {.nstages = trng_int(&rng, 1, 3), .max_team = 2, .model = STP_MODEL_STRICT};
    stp_mapping *m = tgen_mapping(&rng, &p);
    check_against_reference(m, 3000);
    stp_mapping_free(m);
  }
}

static stp_mapping *example_a(void) {
  stp_mapping *m;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(STP_SOURCE_DIR "/examples/example-a.json", &m, &err), STP_OK,
               "%s", err.message);
  return m;
}

Test(strict_chain, example_matches_the_naive_enumeration) {
  stp_mapping *m = example_a();
  check_against_reference(m, 5000);
  stp_mapping_free(m);
}

Test(strict_chain, state_limit_stops_the_enumeration_cleanly) {
  stp_mapping *m = example_a();
  stp_options o;
  stp_options_init(&o);
  o.max_states = 100;
  stp_chain *c = (stp_chain *)1;
  stp_error err = {0};
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_ELIMIT);
  cr_assert_null(c);
  cr_assert(strstr(err.message, "example-a.json: the Strict Markov chain has more than 100 "
                                "reachable markings (enumeration stopped at depth "),
            "%s", err.message);
  cr_assert_eq(err.limit.kind, STP_LIMIT_STATES); /* stopped at the limit: needed is past it */
  cr_assert_eq(err.limit.allowed, 100);
  cr_assert_eq(err.limit.needed, 101);
  /* Through the evaluation: the exponential part is unavailable, with the
   * reason, and the rest of the result stands. */
  stp_result *r;
  cr_assert_eq(stp_evaluate(m, STP_MODEL_STRICT, &o, &r, &err), STP_OK, "%s", err.message);
  cr_assert_eq(r->exp_available, 0);
  cr_assert(strstr(r->exp_reason, "more than 100 reachable markings"), "%s", r->exp_reason);
  cr_assert_eq(r->exp_limit.kind, STP_LIMIT_STATES); /* the detail travels with the reason */
  cr_assert_eq(r->exp_limit.allowed, 100);
  cr_assert(isnan(r->lower));
  cr_assert(r->det_throughput > 0);
  stp_result_free(r);
  stp_mapping_free(m);
}

Test(strict_chain, exponential_is_below_deterministic) {
  trng rng = {33};
  for (int round = 0; round < 100; round++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 3, .model = STP_MODEL_STRICT};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_result *r;
    stp_error err = {0};
    cr_assert_eq(stp_evaluate(m, STP_MODEL_STRICT, NULL, &r, &err), STP_OK, "%s", err.message);
    cr_assert(r->exp_available, "%s", r->exp_reason);
    cr_assert_leq(r->exp_throughput, r->det_throughput * (1 + 1e-12));
    cr_assert_str_eq(r->exp_method, "ctmc");
    stp_result_free(r);
    stp_mapping_free(m);
  }
}

Test(strict_chain, graph_limit_and_interruption_are_reported) {
  stp_mapping *m = example_a();
  stp_options o;
  stp_options_init(&o);
  o.max_transitions = 41; /* 6 paths x 7 columns = 42 transitions */
  stp_chain *c = (stp_chain *)1;
  stp_error err = {0};
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_ELIMIT);
  cr_assert_null(c);
  cr_assert(strstr(err.message, "would have 42 transitions"), "%s", err.message);
  stp_options_init(&o);
  atomic_int stop = 1;
  o.control.cancel = TEST_CANCEL(&stop);
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_EINTERRUPTED);
  cr_assert_null(c);
  cr_assert(strstr(err.message, "interrupted while enumerating the Strict markings"), "%s",
            err.message);
  stp_mapping_free(m);
}

/* Before anything is built: teams 13, 17, 19, 23 give R = 96577 rows; the
 * cycle of a processor of team 2 (receive, compute, send) has 3 R / 17 =
 * 17043 places, each the token's place in a distinct marking; the graph has
 * R (2N - 2) + R N = 965770 places, one bit each in a marking.  Refused at
 * once by --max-states or by the memory budget, without enumerating. */
Test(strict_chain, lower_bound_refuses_before_enumerating) {
  size_t teams[] = {13, 17, 19, 23};
  trng r = {.s = 3};
  stp_mapping *m = tgen_mapping_teams(&r, teams, 4, true);
  stp_options o;
  stp_options_init(&o);
  o.max_states = 17042;
  stp_chain *c = NULL;
  stp_error err = {0};
  double t0 = stp__now();
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "at least 17043 reachable markings"), "%s", err.message);
  o.max_states = 17043;
  o.control.max_memory = UINT64_C(1) << 30; /* 17043 * 965770 / 8 bytes > 1.9 GiB */
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "of 965770 places each"), "%s", err.message);
  cr_assert(strstr(err.message, "memory budget of 1 GiB"), "%s", err.message);
  cr_assert_lt(stp__now() - t0, 5.0, "the refusal must come before any enumeration");
  cr_assert_null(c);
  stp_mapping_free(m);
}

/* Teams 30 and 31: the 30 processors of the first team may each compute
 * their first row or not, independently: at least 2^30 markings, refused
 * at once under the default --max-states (the longest cycle gives only
 * 2 * 930 / 30 = 62). */
Test(strict_chain, first_team_subsets_bound_the_markings) {
  size_t teams[] = {30, 31};
  trng r = {.s = 4};
  stp_mapping *m = tgen_mapping_teams(&r, teams, 2, true);
  stp_options o;
  stp_options_init(&o);
  stp_chain *c = NULL;
  stp_error err = {0};
  cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "at least 1073741824 reachable markings"), "%s", err.message);
  stp_mapping_free(m);
}

/* The bound holds: on small mappings the enumerated chain is at least as
 * large as 2^R_1 and as the longest processor cycle. */
Test(strict_chain, lower_bounds_hold_on_small_chains) {
  size_t cases[][3] = {{3, 2, 0}, {2, 3, 0}, {4, 1, 0}, {2, 3, 2}, {3, 1, 2}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    size_t n = cases[k][2] ? 3 : 2;
    trng r = {.s = 10 + k};
    stp_mapping *m = tgen_mapping_teams(&r, cases[k], n, true);
    stp_options o;
    stp_options_init(&o);
    stp_chain *c = NULL;
    stp_error err = {0};
    cr_assert_eq(stp__strict_chain(m, &o, &c, &err), STP_OK, "%s", err.message);
    uint64_t rows;
    stp__mapping_lcm(m, &rows);
    uint64_t want = UINT64_C(1) << cases[k][0];
    for (size_t i = 0; i < n; i++) {
      uint64_t len = rows / cases[k][i] * (1 + (i > 0) + (i + 1 < n));
      want = len > want ? len : want;
    }
    cr_assert_geq((uint64_t)c->moves->nrows, want, "case %zu: %lld states < bound %llu", k,
                  (long long)c->moves->nrows, (unsigned long long)want);
    stp__chain_free(c);
    stp_mapping_free(m);
  }
}
