/* test_exponential.c: the exponential part of stp_evaluate (engine/
 * exponential.c with the Markov chains behind it): the N.B.U.E. ordering
 * exponential <= deterministic on hundreds of random mappings, component by
 * component; forced Markov chains against Theorem 4; the method and state
 * counts reported; what the closed-form method and the limit on states do. */
#include "models/pipeline/pattern_chain.h"
#include "support/testutil.h"

#include <stdlib.h>

static stp_result *evaluate(const stp_mapping *m, stp_model model, const stp_options *o) {
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, o, &r, &err), STP_OK, "%s", err.message);
  return r;
}

Test(exponential, overlap_exponential_is_below_deterministic_per_component) {
  trng rng = {41};
  for (int round = 0; round < 300; round++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 6,
              .homogeneous_links = round % 3 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_result *r = evaluate(m, STP_MODEL_OVERLAP, NULL);
    cr_assert(r->exp_available, "%s", r->exp_reason);
    cr_assert_leq(r->exp_throughput, r->det_throughput * (1 + 1e-12));
    assert_close(r->lower, r->exp_throughput, TOL_EXACT);
    assert_close(r->upper, r->det_throughput, TOL_EXACT);
    double low = INFINITY;
    for (size_t k = 0; k < r->ncomponents; k++) {
      const stp_component_result *c = &r->components[k];
      cr_assert_leq(c->exp_throughput, c->det_throughput * (1 + 1e-12),
                    "component %zu (%zux%zu): %.17g > %.17g", k, c->u, c->v, c->exp_throughput,
                    c->det_throughput);
      low = fmin(low, c->exp_throughput);
      uint64_t s;
      if (c->exp_method && strcmp(c->exp_method, "ctmc") == 0) {
        cr_assert(stp__pattern_state_count(c->u, c->v, &s));
        cr_assert_eq(c->states, s);
        cr_assert_leq(c->residual, 1e-9);
      }
    }
    assert_close(r->exp_throughput, low, TOL_EXACT);
    stp_result_free(r);
    stp_mapping_free(m);
  }
}

/* Homogeneous links, chains forced: every transfer component matches
 * g * u*v*lambda / (u+v-1). */
Test(exponential, forced_chains_match_theorem_4) {
  trng rng = {42};
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_CTMC;
  for (int round = 0; round < 30; round++) {
    size_t teams[3] = {trng_int(&rng, 1, 7), trng_int(&rng, 1, 8), trng_int(&rng, 1, 6)};
    stp_mapping *m = tgen_mapping_teams(&rng, teams, 3, true);
    stp_result *r = evaluate(m, STP_MODEL_OVERLAP, &o);
    cr_assert(r->exp_available, "%s", r->exp_reason);
    for (size_t k = 0; k < r->ncomponents; k++) {
      const stp_component_result *c = &r->components[k];
      if (c->kind != STP_COMPONENT_TRANSFER)
        continue;
      double lambda = m->bandwidth / m->stages[c->stage].output;
      double want = (double)(c->g * c->u * c->v) * lambda / (double)(c->u + c->v - 1);
      assert_close(c->exp_throughput, want, 1e-10);
      cr_assert_str_eq(c->exp_method, "ctmc");
    }
    stp_result_free(r);
    stp_mapping_free(m);
  }
}

static const char *heterogeneous_2x3 =
    "{\"stages\": [{\"name\": \"A\", \"work\": 1, \"output\": 1}, {\"name\": \"B\", \"work\": 1}],"
    " \"processors\": [{\"name\": \"S0\", \"speed\": 100}, {\"name\": \"S1\", \"speed\": 100},"
    " {\"name\": \"R0\", \"speed\": 100}, {\"name\": \"R1\", \"speed\": 100},"
    " {\"name\": \"R2\", \"speed\": 100}],"
    " \"bandwidth\": 1, \"links\": [{\"from\": \"S1\", \"to\": \"R2\", \"bandwidth\": 0.5}],"
    " \"mapping\": [[\"S0\", \"S1\"], [\"R0\", \"R1\", \"R2\"]]}";

/* heterogeneous_2x3 with a second slow link: its 12-state chain's
 * Gauss-Seidel fixed point leaves a residual of a few ulps, where that of
 * heterogeneous_2x3 can balance every state exactly (residual 0, which
 * meets any tolerance) depending on the order of the sums. */
static const char *heterogeneous_2x3_two_links =
    "{\"stages\": [{\"name\": \"A\", \"work\": 1, \"output\": 1}, {\"name\": \"B\", \"work\": 1}],"
    " \"processors\": [{\"name\": \"S0\", \"speed\": 100}, {\"name\": \"S1\", \"speed\": 100},"
    " {\"name\": \"R0\", \"speed\": 100}, {\"name\": \"R1\", \"speed\": 100},"
    " {\"name\": \"R2\", \"speed\": 100}],"
    " \"bandwidth\": 1, \"links\": [{\"from\": \"S1\", \"to\": \"R2\", \"bandwidth\": 0.5},"
    " {\"from\": \"S0\", \"to\": \"R1\", \"bandwidth\": 0.3}],"
    " \"mapping\": [[\"S0\", \"S1\"], [\"R0\", \"R1\", \"R2\"]]}";

Test(exponential, closed_form_only_is_refused_on_heterogeneous_links) {
  stp_mapping *m = load_json(heterogeneous_2x3);
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_CLOSED_FORM;
  stp_result *r = evaluate(m, STP_MODEL_OVERLAP, &o);
  cr_assert_eq(r->exp_available, 0);
  cr_assert(strstr(r->exp_reason, "no closed form for the heterogeneous transfer component 0 "
                                  "after stage \"A\""), "%s", r->exp_reason);
  stp_result_free(r);
  o.exp_method = STP_EXP_AUTO;
  r = evaluate(m, STP_MODEL_OVERLAP, &o);
  cr_assert(r->exp_available);
  cr_assert_str_eq(r->exp_method, "closed-form+ctmc");
  cr_assert_eq(r->exp_states, 12); /* S(2, 3) = 3 * C(4, 1) */
  stp_result_free(r);
  stp_mapping_free(m);
}

Test(exponential, state_limit_makes_the_pattern_unavailable) {
  stp_mapping *m = load_json(heterogeneous_2x3);
  stp_options o;
  stp_options_init(&o);
  o.max_states = 11;
  stp_result *r = evaluate(m, STP_MODEL_OVERLAP, &o);
  cr_assert_eq(r->exp_available, 0);
  cr_assert(strstr(r->exp_reason, "transfer component 0 after stage \"A\": the 2 x 3 pattern's "
                                  "Markov chain has 12 states, above the limit of 11"),
            "%s", r->exp_reason);
  cr_assert_eq(r->exp_limit.kind, STP_LIMIT_STATES); /* S(2, 3) = 3 * C(4, 1) = 12 */
  cr_assert_eq(r->exp_limit.needed, 12);
  cr_assert_eq(r->exp_limit.allowed, 11);
  cr_assert(r->det_throughput > 0);
  stp_result_free(r);
  stp_mapping_free(m);
}

/* A tolerance no solver can meet: the evaluation fails, naming the
 * component and the residual reached, rather than returning a number. */
Test(exponential, unreachable_tolerance_fails_loudly) {
  stp_mapping *m = load_json(heterogeneous_2x3_two_links);
  stp_options o;
  stp_options_init(&o);
  o.solver_tolerance = 1e-30;
  stp_result *r = (stp_result *)1;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_ENUMERIC);
  cr_assert_null(r);
  cr_assert(strstr(err.message, "transfer component 0 after stage \"A\": the stationary solve "
                                "(umfpack (gauss-seidel stalled), "), "%s", err.message);
  cr_assert(strstr(err.message, "above the tolerance 1e-30"), "%s", err.message);
  stp_mapping_free(m);
}
