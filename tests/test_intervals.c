/* test_intervals.c: stp_simulate_intervals, the intervals between the
 * in-order completions of consecutive data sets (simulate --histogram).
 * Checked against what they must be: constant times give a constant
 * interval equal to the deterministic period when there is one path, and
 * a cycle of R intervals summing to R periods otherwise; one stage on one
 * processor with exponential times gives i.i.d. exponential intervals of
 * mean work / speed. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static stp_law *law(const char *spec) {
  stp_law *l = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse(spec, NULL, &l, &err), STP_OK, "%s", err.message);
  return l;
}

static double det_period(const stp_mapping *m, stp_model model) {
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, NULL, &r, &err), STP_OK, "%s", err.message);
  double p = r->det_period;
  stp_result_free(r);
  return p;
}

Test(intervals, constant_times_one_path) {
  stp_mapping *m = load_json("{\"stages\":[{\"work\":20,\"output\":50},{\"work\":80,\"output\":60},"
                             "{\"work\":30}],\"processors\":[{\"name\":\"A\",\"speed\":1},"
                             "{\"name\":\"B\",\"speed\":1},{\"name\":\"C\",\"speed\":1}],"
                             "\"bandwidth\":1,\"mapping\":[[\"A\"],[\"B\"],[\"C\"]]}");
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.law = law("det");
  double x[500];
  stp_error err = {0};
  for (int model = 0; model < 2; model++) {
    cr_assert_eq(stp_simulate_intervals(m, model, &o, 500, x, &err), STP_OK, "%s", err.message);
    double p = det_period(m, model);
    for (int k = 0; k < 500; k++)
      assert_close(x[k], p, TOL_SOLVE);
  }
  stp_law_free((stp_law *)o.law);
  stp_mapping_free(m);
}

Test(intervals, constant_times_many_paths_average_the_period) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(STP_SOURCE_DIR "/examples/example-a.json", &m, &err), STP_OK);
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.law = law("det");
  enum { N = 6 * 500 }; /* whole rounds of R = 6 paths */
  double *x = malloc(N * sizeof *x);
  for (int model = 0; model < 2; model++) {
    cr_assert_eq(stp_simulate_intervals(m, model, &o, N, x, &err), STP_OK, "%s", err.message);
    double p = det_period(m, model), round = 0;
    for (int k = N - 6; k < N; k++) /* the last round, far from the start */
      round += x[k];
    assert_close(round, 6 * p, TOL_SOLVE);
    for (int k = 0; k < N; k++)
      cr_assert(x[k] >= 0, "interval %d is %g", k, x[k]);
  }
  free(x);
  stp_law_free((stp_law *)o.law);
  stp_mapping_free(m);
}

/* One processor, one stage: the completions are a renewal process whose
 * intervals are the computation times themselves, exponential of mean 4. */
Test(intervals, exponential_single_server) {
  stp_mapping *m = load_json("{\"stages\":[{\"work\":8}],\"processors\":[{\"name\":\"A\","
                             "\"speed\":2}],\"mapping\":[[\"A\"]]}");
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.law = law("exp");
  o.seed = 11;
  enum { N = 200000 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  stp_error err = {0};
  cr_assert_eq(stp_simulate_intervals(m, STP_MODEL_OVERLAP, &o, N, x, &err), STP_OK, "%s",
               err.message);
  double sum = 0, sq = 0;
  for (int k = 0; k < N; k++)
    sum += x[k], sq += x[k] * x[k];
  double mean = sum / N, var = sq / N - mean * mean;
  /* 5 standard errors: sd of the mean 4 / sqrt(N); of the variance about 4 * 16 / sqrt(N). */
  cr_assert(fabs(mean - 4) < 5 * 4 / sqrt(N), "mean %g, expected 4", mean);
  cr_assert(fabs(var - 16) < 5 * 64 / sqrt(N), "variance %g, expected 16", var);
  /* Same seed, same intervals. */
  cr_assert_eq(stp_simulate_intervals(m, STP_MODEL_OVERLAP, &o, N, y, &err), STP_OK);
  cr_assert(memcmp(x, y, N * sizeof *x) == 0, "the same seed gave other intervals");
  free(x);
  free(y);
  stp_law_free((stp_law *)o.law);
  stp_mapping_free(m);
}

Test(intervals, errors) {
  stp_mapping *m = load_json("{\"stages\":[{\"work\":8}],\"processors\":[{\"name\":\"A\","
                             "\"speed\":2}],\"mapping\":[[\"A\"]]}");
  double x[1];
  stp_error err = {0};
  cr_assert_eq(stp_simulate_intervals(m, STP_MODEL_OVERLAP, NULL, 0, x, &err), STP_EINVAL);
  cr_assert_eq(stp_simulate_intervals(m, STP_MODEL_OVERLAP, NULL, 1, NULL, &err), STP_EINVAL);
  stp_mapping_free(m);
}
