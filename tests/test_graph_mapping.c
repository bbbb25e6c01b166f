/* test_graph_mapping.c: a mapping evaluated directly (stp_evaluate) and
 * through its exported generic graph (stp_mapping_graph + stp_graph_analyze)
 * gives the same deterministic throughput (1e-12 relative) under both
 * models and, under Strict, the same exponential throughput (1e-9): the
 * generic core and the pipeline agree, on the examples and on seeded random
 * mappings. */
#include "testutil.h"
#include "streamtp_graph.h"

#include <stdio.h>
#include <string.h>

static void cross_check(const stp_mapping *m, stp_model model, bool with_exp) {
  stp_options o;
  stp_options_init(&o);
  if (!with_exp) o.exp_method = STP_EXP_NONE;
  stp_result *res = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, &o, &res, &err), STP_OK, "%s", err.message);
  stp_graph *g = NULL;
  cr_assert_eq(stp_mapping_graph(m, model, &g, &err), STP_OK, "%s", err.message);
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = with_exp;
  go.max_states = STP_DEFAULT_MAX_STATES;
  stp_graph_result r;
  cr_assert_eq(stp_graph_analyze(g, &go, &r, &err), STP_OK, "%s", err.message);
  cr_assert_eq(r.is_dag, 0);
  assert_close(r.det_throughput, res->det_throughput, TOL_EXACT);
  if (with_exp) {
    cr_assert(res->exp_available, "%s", res->exp_reason ? res->exp_reason : "");
    cr_assert(r.exp_computed, "%s", r.exp_reason);
    assert_close(r.exp_value, res->exp_throughput, TOL_SOLVE);
  }
  /* the names follow the pipeline's rows, stages and processors */
  size_t t;
  cr_assert_eq(stp_graph_find(g, "r0:" , &t, &err), STP_EINVAL);
  cr_assert(strncmp(stp_graph_transition_name(g, 0), "r0:", 3) == 0);
  cr_assert(strchr(stp_graph_transition_name(g, 0), '@'));
  stp_graph_result_free(&r);
  stp_graph_free(g);
  stp_result_free(res);
}

static stp_mapping *load_example(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s", STP_SOURCE_DIR, name);
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(path, &m, &err), STP_OK, "%s", err.message);
  return m;
}

Test(graph_mapping, examples) {
  const char *files[] = {"example-a.json", "homogeneous-2x3.json", "no-replication.json",
                         "strict-no-critical.json"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    stp_mapping *m = load_example(files[i]);
    cross_check(m, STP_MODEL_OVERLAP, false);
    cross_check(m, STP_MODEL_STRICT, true);
    stp_mapping_free(m);
  }
}

/* big-teams.json has 1.8e13 paths: its graph is refused with a reason. */
Test(graph_mapping, too_big) {
  stp_mapping *m = load_example("big-teams.json");
  stp_graph *g = (stp_graph *)1;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_graph(m, STP_MODEL_STRICT, &g, &err), STP_ELIMIT);
  cr_assert_null(g);
  cr_assert(strstr(err.message, "transitions"), "%s", err.message);
  stp_mapping_free(m);
}

Test(graph_mapping, random_mappings) {
  trng rng = {.s = 77};
  for (int k = 0; k < 40; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 3,
              .homogeneous_links = trng_int(&rng, 0, 1)};
    stp_mapping *m = tgen_mapping(&rng, &p);
    cross_check(m, STP_MODEL_OVERLAP, false);
    cross_check(m, STP_MODEL_STRICT, true);
    stp_mapping_free(m);
  }
}

/* The exported graph is the event graph: R rows x (2N-1) columns, the
 * last column of each row an output. */
Test(graph_mapping, shape_and_names) {
  stp_mapping *m = load_example("example-a.json");
  stp_teg_summary sum;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_teg_summary(m, STP_MODEL_STRICT, STP_DEFAULT_MAX_TRANSITIONS, &sum,
                                       &err), STP_OK);
  stp_graph *g;
  cr_assert_eq(stp_mapping_graph(m, STP_MODEL_STRICT, &g, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp_graph_transition_count(g), sum.transitions);
  cr_assert_eq(stp_graph_place_count(g), sum.places);
  cr_assert_eq(stp_graph_output_count(g), sum.rows);
  uint64_t tokens = 0;
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    uint64_t k;
    stp_graph_place(g, p, NULL, NULL, &k);
    tokens += k;
  }
  cr_assert_eq(tokens, sum.tokens);
  for (size_t t = 0; t < stp_graph_transition_count(g); t++) {
    const char *name = stp_graph_transition_name(g, t);
    size_t col = t % sum.columns;
    cr_assert(col % 2 == 0 ? strchr(name, '@') != NULL : strstr(name, "->") != NULL, "%s", name);
    cr_assert_eq(stp_graph_transition_is_output(g, t), col + 1 == sum.columns);
  }
  stp_graph_free(g);
  stp_mapping_free(m);
}
