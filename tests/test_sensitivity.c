/* test_sensitivity.c: the elasticities of streamtp_explain.h against
 * independent computations: one-sided and central differences of separate
 * evaluations on random mappings (det: exact where no kink lies within the
 * step; exp: central differences to 1e-6), Euler's identity (scaling every
 * time by a scales the throughput by 1/a), closed forms on one resource, a
 * tandem and a homogeneous transfer pattern (Theorem 4), and kinks where
 * two resources tie. */
#include "models/pipeline/mapping.h"
#include "streamtp_explain.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static stp_sensitivity_result *sens(const stp_mapping *m, stp_model model) {
  stp_sensitivity_result *r = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_sensitivity_compute(m, model, NULL, &r, &err), STP_OK, "%s", err.message);
  return r;
}

/* The parameter behind item it, to perturb in place. */
static double *param_ptr(stp_mapping *m, const stp_sensitivity *it) {
  switch (it->kind) {
  case STP_PARAM_SPEED: return &m->procs[it->index].speed;
  case STP_PARAM_BANDWIDTH:
    return it->index == SIZE_MAX ? &m->bandwidth : &m->links[it->index].bandwidth;
  case STP_PARAM_WORK: return &m->stages[it->index].work;
  case STP_PARAM_OUTPUT: return &m->stages[it->index].output;
  }
  return NULL;
}

typedef struct rates {
  double det, exp;
} rates;

static rates eval_at(stp_mapping *m, stp_model model, double *p, double value) {
  double keep = *p;
  *p = value;
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, NULL, &r, &err), STP_OK, "%s", err.message);
  cr_assert(r->exp_available, "%s", r->exp_reason);
  rates out = {r->det_throughput, r->exp_throughput};
  stp_result_free(r);
  *p = keep;
  return out;
}

/* Finite differences in log space: forward, backward and central. */
static void check_item(stp_mapping *m, stp_model model, const stp_sensitivity *it, rates at,
                       int k, const char *what) {
  double *p = param_ptr(m, it), v = *p;
  const double hdet = 1e-7, hexp = 1e-5;
  rates up = eval_at(m, model, p, v * exp(hdet)), down = eval_at(m, model, p, v * exp(-hdet));
  double fwd = log(up.det / at.det) / hdet, bwd = log(at.det / down.det) / hdet;
  /* det is piecewise linear in log space only to first order: 1e-6 covers
   * the curvature of log over the step */
  cr_assert(fabs(fwd - it->det.right) < 1e-6, "%s #%d %s %s: det right %.12g, forward %.12g",
            what, k, stp_param_kind_name(it->kind), it->of, it->det.right, fwd);
  cr_assert(fabs(bwd - it->det.left) < 1e-6, "%s #%d %s %s: det left %.12g, backward %.12g",
            what, k, stp_param_kind_name(it->kind), it->of, it->det.left, bwd);
  cr_assert(it->det.elasticity == it->det.right);
  up = eval_at(m, model, p, v * exp(hexp));
  down = eval_at(m, model, p, v * exp(-hexp));
  double central = log(up.exp / down.exp) / (2 * hexp);
  if (stp__close(it->exp.left, it->exp.right, 1e-9, 1e-12)) /* a smooth point */
    cr_assert(fabs(central - it->exp.elasticity) < 1e-6,
              "%s #%d %s %s: exp %.12g, central difference %.12g", what, k,
              stp_param_kind_name(it->kind), it->of, it->exp.elasticity, central);
}

static void check_mapping(stp_mapping *m, stp_model model, int k, const char *what) {
  stp_sensitivity_result *r = sens(m, model);
  cr_assert(r->exp_available, "%s", r->exp_reason);
  rates at = eval_at(m, model, &m->stages[0].work, m->stages[0].work);
  assert_close(r->det_throughput, at.det, TOL_EXACT);
  assert_close(r->exp_throughput, at.exp, TOL_SOLVE); /* Strict: solved apart */
  double times_exp = 0, rates_exp = 0;
  bool smooth = true;
  for (size_t q = 0; q < r->n; q++) {
    const stp_sensitivity *it = &r->items[q];
    check_item(m, model, it, at, k, what);
    bool is_time = it->kind == STP_PARAM_WORK || it->kind == STP_PARAM_OUTPUT;
    *(is_time ? &times_exp : &rates_exp) += it->exp.elasticity;
    smooth = smooth && stp__close(it->exp.left, it->exp.right, 1e-9, 1e-12);
  }
  /* Euler: the throughput is homogeneous of degree -1 in the times (works,
   * outputs) and of degree 1 in the rates (speeds, bandwidths), where it
   * is smooth */
  if (smooth) {
    assert_close(times_exp, -1, 1e-9);
    assert_close(rates_exp, 1, 1e-9);
  }
  stp_sensitivity_result_free(r);
}

Test(sensitivity, finite_differences_on_random_overlap_mappings) {
  trng rng = {.s = 41};
  for (int k = 0; k < 60; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 4, .homogeneous_links = k % 3 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    check_mapping(m, STP_MODEL_OVERLAP, k, "overlap");
    stp_mapping_free(m);
  }
}

Test(sensitivity, finite_differences_on_random_strict_mappings) {
  trng rng = {.s = 42};
  for (int k = 0; k < 40; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 3), .max_team = 3, .homogeneous_links = k % 3 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    check_mapping(m, STP_MODEL_STRICT, k, "strict");
    stp_mapping_free(m);
  }
}

static const stp_sensitivity *item(const stp_sensitivity_result *r, stp_param_kind kind,
                                   const char *of) {
  for (size_t k = 0; k < r->n; k++)
    if (r->items[k].kind == kind && strcmp(r->items[k].of, of) == 0)
      return &r->items[k];
  cr_assert_fail("no %s of %s", stp_param_kind_name(kind), of);
  return NULL;
}

static void assert_slope(stp_slope s, double left, double right) {
  assert_close(s.left, left, 1e-9);
  assert_close(s.right, right, 1e-9);
  assert_close(s.elasticity, right, 1e-9);
}

Test(sensitivity, one_resource_is_speed_over_work) {
  stp_mapping *m = load_json("{\"stages\": [{\"name\": \"T1\", \"work\": 6, \"output\": 1}],"
                             " \"processors\": [{\"name\": \"P1\", \"speed\": 2}],"
                             " \"mapping\": [[\"P1\"]]}");
  for (int model = 0; model < 2; model++) {
    stp_sensitivity_result *r = sens(m, (stp_model)model);
    cr_assert_eq(r->n, 2); /* speed P1, work T1 (no output: the last stage) */
    assert_slope(item(r, STP_PARAM_SPEED, "P1")->det, 1, 1);
    assert_slope(item(r, STP_PARAM_SPEED, "P1")->exp, 1, 1);
    assert_slope(item(r, STP_PARAM_WORK, "T1")->det, -1, -1);
    assert_slope(item(r, STP_PARAM_WORK, "T1")->exp, -1, -1);
    stp_sensitivity_result_free(r);
  }
  stp_mapping_free(m);
}

/* A tandem whose second processor is the bottleneck (Overlap: every
 * component in isolation, so exp has the same bottleneck). */
Test(sensitivity, tandem_bottleneck_and_a_tie) {
  const char *fmt = "{\"stages\": [{\"name\": \"T1\", \"work\": %g, \"output\": 1},"
                    " {\"name\": \"T2\", \"work\": 8, \"output\": 1}],"
                    " \"processors\": [{\"name\": \"P1\", \"speed\": 2},"
                    " {\"name\": \"P2\", \"speed\": 2}], \"bandwidth\": 100,"
                    " \"mapping\": [[\"P1\"], [\"P2\"]]}";
  char text[512];
  snprintf(text, sizeof text, fmt, 4.0);
  stp_mapping *m = load_json(text);
  stp_sensitivity_result *r = sens(m, STP_MODEL_OVERLAP);
  assert_slope(item(r, STP_PARAM_SPEED, "P2")->det, 1, 1);
  assert_slope(item(r, STP_PARAM_SPEED, "P1")->det, 0, 0);
  assert_slope(item(r, STP_PARAM_WORK, "T2")->exp, -1, -1);
  assert_slope(item(r, STP_PARAM_BANDWIDTH, "default")->exp, 0, 0);
  stp_sensitivity_result_free(r);
  stp_mapping_free(m);
  /* works 8 and 8: both processors tie; a faster P1 buys nothing, a slower
   * one costs all (left 1, right 0), under det and exp alike */
  snprintf(text, sizeof text, fmt, 8.0);
  m = load_json(text);
  r = sens(m, STP_MODEL_OVERLAP);
  assert_slope(item(r, STP_PARAM_SPEED, "P1")->det, 1, 0);
  assert_slope(item(r, STP_PARAM_SPEED, "P2")->det, 1, 0);
  assert_slope(item(r, STP_PARAM_SPEED, "P1")->exp, 1, 0);
  assert_slope(item(r, STP_PARAM_WORK, "T1")->det, 0, -1);
  stp_sensitivity_result_free(r);
  stp_mapping_free(m);
}

/* A 2 x 3 transfer with one bandwidth as the bottleneck: Theorem 4 makes
 * the exp rate u v lambda / (u + v - 1), proportional to the bandwidth,
 * whatever the solve (the adjoint sees a heterogeneous-looking chain). */
Test(sensitivity, homogeneous_transfer_pattern_closed_form) {
  stp_mapping *m = load_json(
      "{\"stages\": [{\"name\": \"T1\", \"work\": 1, \"output\": 50},"
      " {\"name\": \"T2\", \"work\": 1, \"output\": 1}],"
      " \"processors\": [{\"name\": \"A\", \"speed\": 10}, {\"name\": \"B\", \"speed\": 10},"
      " {\"name\": \"C\", \"speed\": 10}, {\"name\": \"D\", \"speed\": 10},"
      " {\"name\": \"E\", \"speed\": 10}], \"bandwidth\": 1,"
      " \"mapping\": [[\"A\", \"B\"], [\"C\", \"D\", \"E\"]]}");
  stp_sensitivity_result *r = sens(m, STP_MODEL_OVERLAP);
  assert_slope(item(r, STP_PARAM_BANDWIDTH, "default")->exp, 1, 1);
  assert_slope(item(r, STP_PARAM_OUTPUT, "T1")->exp, -1, -1);
  assert_slope(item(r, STP_PARAM_SPEED, "A")->exp, 0, 0);
  assert_slope(item(r, STP_PARAM_BANDWIDTH, "default")->det, 1, 1);
  cr_assert(r->exp_states > 0 && r->exp_residual < 1e-9);
  stp_sensitivity_result_free(r);
  stp_mapping_free(m);
}

Test(sensitivity, ranking_puts_the_largest_gain_first) {
  trng rng = {.s = 43};
  tgen p = {.nstages = 3, .max_team = 3};
  stp_mapping *m = tgen_mapping(&rng, &p);
  stp_sensitivity_result *r = sens(m, STP_MODEL_OVERLAP);
  stp_sensitivity_rank(r, STP_RANK_EXP);
  for (size_t k = 1; k < r->n; k++)
    cr_assert(r->items[k - 1].exp.elasticity >= r->items[k].exp.elasticity);
  stp_sensitivity_rank(r, STP_RANK_DET);
  for (size_t k = 1; k < r->n; k++)
    cr_assert(r->items[k - 1].det.elasticity >= r->items[k].det.elasticity);
  stp_sensitivity_result_free(r);
  stp_mapping_free(m);
}

/* Ties inside one event graph: equal processors of one Strict team (two
 * processor cycles of the same ratio, and under exp two rows that share no
 * processor), and equal senders of an Overlap pattern whose links have
 * entries of their own (two sender cycles of 3 d each). */
Test(sensitivity, kinks_inside_one_graph_match_one_sided_differences) {
  stp_mapping *m = load_json("{\"stages\": [{\"name\": \"T1\", \"work\": 6, \"output\": 1}],"
                             " \"processors\": [{\"name\": \"P1\", \"speed\": 2},"
                             " {\"name\": \"P2\", \"speed\": 2}],"
                             " \"mapping\": [[\"P1\", \"P2\"]]}");
  stp_sensitivity_result *r = sens(m, STP_MODEL_STRICT);
  assert_slope(item(r, STP_PARAM_SPEED, "P1")->det, 1, 0);
  assert_slope(item(r, STP_PARAM_SPEED, "P1")->exp, 1, 0);
  assert_slope(item(r, STP_PARAM_WORK, "T1")->det, -1, -1);
  stp_sensitivity_result_free(r);
  check_mapping(m, STP_MODEL_STRICT, 0, "strict tie");
  stp_mapping_free(m);

  char links[2048] = "";
  const char *snd[] = {"A", "B"}, *rcv[] = {"C", "D", "E"};
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      snprintf(links + strlen(links), sizeof links - strlen(links),
               "%s{\"from\": \"%s\", \"to\": \"%s\", \"bandwidth\": 1}", a + b ? ", " : "",
               snd[a], rcv[b]);
  char text[4096];
  snprintf(text, sizeof text,
           "{\"stages\": [{\"name\": \"T1\", \"work\": 1, \"output\": 50},"
           " {\"name\": \"T2\", \"work\": 1, \"output\": 1}],"
           " \"processors\": [{\"name\": \"A\", \"speed\": 10}, {\"name\": \"B\", \"speed\": 10},"
           " {\"name\": \"C\", \"speed\": 10}, {\"name\": \"D\", \"speed\": 10},"
           " {\"name\": \"E\", \"speed\": 10}], \"links\": [%s],"
           " \"mapping\": [[\"A\", \"B\"], [\"C\", \"D\", \"E\"]]}",
           links);
  m = load_json(text);
  r = sens(m, STP_MODEL_OVERLAP);
  assert_slope(item(r, STP_PARAM_BANDWIDTH, "A->C")->det, 1.0 / 3, 0);
  stp_sensitivity_result_free(r);
  check_mapping(m, STP_MODEL_OVERLAP, 0, "overlap pattern tie");
  stp_mapping_free(m);
}

/* ---- under a phase-type law -------------------------------------------------------------- */
static double law_rate(stp_mapping *m, stp_model model, const stp_options *o, double *p,
                       double value) {
  double keep = *p;
  *p = value;
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, o, &r, &err), STP_OK, "%s", err.message);
  cr_assert(r->exact_law.available, "%s", r->exact_law.reason);
  double rho = r->exact_law.throughput;
  stp_result_free(r);
  *p = keep;
  return rho;
}

static void check_law(stp_mapping *m, stp_model model, const char *spec, int k) {
  stp_law *law;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse(spec, NULL, &law, &err), STP_OK, "%s", err.message);
  stp_options o;
  stp_options_init(&o);
  o.law = law;
  stp_sensitivity_result *r;
  cr_assert_eq(stp_sensitivity_compute(m, model, &o, &r, &err), STP_OK, "%s", err.message);
  cr_assert(r->law_available, "%s", r->law_reason);
  double times = 0, rates = 0;
  bool smooth = true;
  for (size_t q = 0; q < r->n; q++) {
    const stp_sensitivity *it = &r->items[q];
    double *p = param_ptr(m, it), v = *p, h = 1e-5;
    double central = log(law_rate(m, model, &o, p, v * exp(h)) /
                         law_rate(m, model, &o, p, v * exp(-h))) / (2 * h);
    bool here = stp__close(it->law.left, it->law.right, 1e-9, 1e-12);
    smooth = smooth && here;
    if (here)
      cr_assert(fabs(central - it->law.elasticity) < 1e-6,
                "%s #%d %s %s %s: law %.12g, central difference %.12g", spec, k,
                stp_model_name(model), stp_param_kind_name(it->kind), it->of,
                it->law.elasticity, central);
    bool is_time = it->kind == STP_PARAM_WORK || it->kind == STP_PARAM_OUTPUT;
    *(is_time ? &times : &rates) += it->law.elasticity;
  }
  if (smooth) { /* Euler, as for exp */
    assert_close(times, -1, 1e-9);
    assert_close(rates, 1, 1e-9);
  }
  stp_sensitivity_result_free(r);
  stp_law_free(law);
}

Test(sensitivity, finite_differences_under_phase_type_laws) {
  static const char *laws[] = {"erlang:k=2", "hyperexp:cv=2", "erlang:k=3"};
  trng rng = {.s = 44};
  for (int k = 0; k < 24; k++) {
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    tgen p = {.nstages = trng_int(&rng, 1, model ? 2 : 3), .max_team = model ? 2 : 3,
              .homogeneous_links = k % 3 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    check_law(m, model, laws[k % 3], k);
    stp_mapping_free(m);
  }
}

/* erlang:k=1 is the exponential law: the same chain, the same slopes. */
Test(sensitivity, erlang_one_gives_the_exponential_slopes) {
  trng rng = {.s = 45};
  stp_law *law;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse("erlang:k=1", NULL, &law, &err), STP_OK);
  stp_options o;
  stp_options_init(&o);
  o.law = law;
  for (int k = 0; k < 10; k++) {
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    tgen p = {.nstages = trng_int(&rng, 1, 3), .max_team = 3};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_sensitivity_result *r;
    cr_assert_eq(stp_sensitivity_compute(m, model, &o, &r, &err), STP_OK, "%s", err.message);
    cr_assert(r->law_available && r->exp_available);
    assert_close(r->law_throughput, r->exp_throughput, TOL_SOLVE);
    for (size_t q = 0; q < r->n; q++) {
      cr_assert(fabs(r->items[q].law.right - r->items[q].exp.right) < 1e-9);
      cr_assert(fabs(r->items[q].law.left - r->items[q].exp.left) < 1e-9);
    }
    stp_sensitivity_result_free(r);
    stp_mapping_free(m);
  }
  stp_law_free(law);
}
