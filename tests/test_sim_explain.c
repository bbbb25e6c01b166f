/* test_sim_explain.c: stp_simulate's utilization and latency
 * (models/pipeline/sim_explain.c) against independent values: under det,
 * each simulated busy fraction is the simulated throughput times the busy
 * time per data set counted over the R paths; under exp on Example A, the
 * exact exponential utilization of eval lies in the simulated intervals;
 * the latency of a tandem whose second stage is the only random one is a
 * D/M/1 sojourn (exponential, closed form) plus the constant first stage;
 * with a source slow enough that data sets never meet, the simulated
 * latencies are the deterministic latencies of the paths. */
#include "engine/montecarlo.h"
#include "models/pipeline/mapping.h"
#include "streamtp_explain.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* 20 groups of 7200 data sets: a multiple of every lcm(R_i) of teams of 1..3
 * (and of the patterns' cyclicities here), so that a det group is whole
 * periods. */
#define DET_DATASETS (20 * 7200)

static stp_sim_result *simulate(const stp_mapping *m, stp_model model, const char *law,
                                uint64_t datasets, int utilization, int latency, double rate) {
  stp_sim_options o;
  stp_sim_options_init(&o);
  stp_law *l = NULL;
  stp_error err = {0};
  if (law)
    cr_assert_eq(stp_law_parse(law, NULL, &l, &err), STP_OK, "%s", err.message);
  o.law = l;
  o.datasets = datasets;
  o.utilization = utilization;
  o.latency = latency;
  o.source_rate = rate;
  stp_sim_result *r = NULL;
  cr_assert_eq(stp_simulate(m, model, &o, &r, &err), STP_OK, "%s", err.message);
  stp_law_free(l);
  return r;
}

/* busy[3 p + port] per data set, by walking the R paths (as test_utilization.c). */
static void busy_by_paths(const stp_mapping *m, double *busy) {
  uint64_t R;
  cr_assert(stp__mapping_lcm(m, &R));
  memset(busy, 0, 3 * m->nprocs * sizeof *busy);
  for (uint64_t j = 0; j < R; j++)
    for (size_t i = 0; i < m->nstages; i++) {
      size_t p = stp__team_member(m, i, (size_t)(j % stp__team_size(m, i)));
      busy[3 * p] += stp__comp_time(m, p) / (double)R;
      if (i + 1 < m->nstages) {
        size_t q = stp__team_member(m, i + 1, (size_t)(j % stp__team_size(m, i + 1)));
        double d = stp__comm_time(m, p, q) / (double)R;
        busy[3 * p + 2] += d;
        busy[3 * q + 1] += d;
      }
    }
}

static double item_busy(const double *busy, const stp_utilization_item *it, stp_model model) {
  size_t p = it->processor;
  return model == STP_MODEL_STRICT ? busy[3 * p] + busy[3 * p + 1] + busy[3 * p + 2]
                                   : busy[3 * p + it->port];
}

Test(sim_explain, det_utilization_is_throughput_times_busy_time) {
  trng rng = {.s = 3201};
  for (int k = 0; k < 24; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 3), .max_team = 3, .homogeneous_links = k % 3 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    double *busy = calloc(3 * m->nprocs, sizeof *busy);
    busy_by_paths(m, busy);
    for (int model = 0; model < 2; model++) {
      stp_sim_result *r = simulate(m, (stp_model)model, "det", DET_DATASETS, 1, 0, 0);
      const stp_utilization *u = r->utilization;
      cr_assert(u && u->n > 0);
      for (size_t q = 0; q < u->n; q++) {
        const stp_utilization_item *it = &u->items[q];
        double expect = r->throughput * item_busy(busy, it, (stp_model)model);
        double h = (it->sim_high - it->sim_low) / 2;
        cr_assert(fabs(it->sim - expect) <= h + TOL_ITER * expect,
                  "mapping %d %s %s: simulated %.17g, throughput x busy %.17g (ci +- %g)", k,
                  stp_model_name((stp_model)model), it->resource, it->sim, expect, h);
        /* and eval's det utilization, the simulated throughput being det's */
        assert_close(it->sim, it->det, TOL_ITER);
        cr_assert(it->sim_low <= it->sim && it->sim <= it->sim_high);
      }
      stp_sim_result_free(r);
    }
    free(busy);
    stp_mapping_free(m);
  }
}

static stp_mapping *example_a(void) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(STP_SOURCE_DIR "/examples/example-a.json", &m, &err), STP_OK,
               "%s", err.message);
  return m;
}

/* 19 resources (Overlap) and 7 (Strict), each against its 95% interval
 * widened by 1.7: about 3.4 of Student's standard errors at 19 degrees of
 * freedom, a family-wise 95% over 19 intervals (Bonferroni), seed 1. */
Test(sim_explain, exp_utilization_agrees_with_eval_on_example_a) {
  stp_mapping *m = example_a();
  for (int model = 0; model < 2; model++) {
    stp_sim_result *r = simulate(m, (stp_model)model, "exp", 400000, 1, 0, 0);
    const stp_utilization *u = r->utilization;
    cr_assert_eq(u->n, model ? 7u : 19u);
    for (size_t q = 0; q < u->n; q++) {
      const stp_utilization_item *it = &u->items[q];
      double h = 1.7 * (it->sim_high - it->sim_low) / 2;
      cr_assert(isfinite(it->exp) && fabs(it->sim - it->exp) <= h,
                "%s %s: simulated %.6g +- %.3g, exact exponential %.6g",
                stp_model_name((stp_model)model), it->resource, it->sim, h, it->exp);
    }
    stp_sim_result_free(r);
  }
  stp_mapping_free(m);
}

/* Observing the busy times leaves the run's dates alone: the same throughput
 * to the last bit, with and without. */
Test(sim_explain, utilization_does_not_change_the_throughput) {
  stp_mapping *m = example_a();
  for (int model = 0; model < 2; model++) {
    stp_sim_result *a = simulate(m, (stp_model)model, "gamma:cv=0.7", 50000, 0, 0, 0);
    stp_sim_result *b = simulate(m, (stp_model)model, "gamma:cv=0.7", 50000, 1, 0, 0);
    cr_assert(a->throughput == b->throughput && a->ci_low == b->ci_low &&
              a->ci_high == b->ci_high, "%.17g vs %.17g", a->throughput, b->throughput);
    cr_assert_null(a->utilization);
    stp_sim_result_free(a);
    stp_sim_result_free(b);
  }
  stp_mapping_free(m);
}

/* T1 (det 0.25) on P0, its output (det 0.25) to P1, T2 (exp, mean 1) on P1;
 * the source releases a data set every 2 (rate 0.5).  P1 then receives a
 * data set every 2 exactly (a constant server faster than the source
 * passes the source's rhythm on) and queues them without a bound (Overlap:
 * reception does not wait for the computation): a D/M/1 queue, whose
 * sojourn is exponential with rate mu (1 - s), s in (0, 1) the root of
 * s = exp(-mu (1 - s) / lambda).  Latency = 0.25 + 0.25 + sojourn. */
static const char *const TANDEM =
    "{\"name\": \"dm1\", \"stages\": [{\"name\": \"T1\", \"work\": 0.25, \"output\": 0.25},"
    " {\"name\": \"T2\", \"work\": 1}], \"processors\": [{\"name\": \"P0\", \"speed\": 1},"
    " {\"name\": \"P1\", \"speed\": 1}], \"bandwidth\": 1, \"mapping\": [[\"P0\"], [\"P1\"]],"
    " \"laws\": {\"default\": \"exp\", \"stages\": {\"T1\": \"det\"}, \"transfers\": {\"T1\": \"det\"}}}";

static double dm1_root(double lambda, double mu) {
  double s = 0.5;
  for (int k = 0; k < 200; k++) /* a contraction on (0, 1) for lambda < mu */
    s = exp(-mu * (1 - s) / lambda);
  return s;
}

Test(sim_explain, latency_of_a_dm1_tandem) {
  stp_mapping *m = load_json(TANDEM);
  double lambda = 0.5, mu = 1, s = dm1_root(lambda, mu), nu = mu * (1 - s);
  stp_sim_result *r = simulate(m, STP_MODEL_OVERLAP, NULL, 2000000, 0, 1, lambda);
  const stp_sim_latency *l = &r->sim_latency;
  cr_assert_not_null(r->latency);
  cr_assert(l->rate_given && l->rate == lambda);
  double mean = 0.5 + 1 / nu;
  cr_assert(l->ci_low <= mean && mean <= l->ci_high, "mean %.6g, simulated [%.6g, %.6g]", mean,
            l->ci_low, l->ci_high);
  /* quantiles of 2e6 draws: within 1 % (the standard error at 0.99 is 0.7 %) */
  assert_close(l->q50, 0.5 + log(2) / nu, 1e-2);
  assert_close(l->q90, 0.5 + log(10) / nu, 1e-2);
  assert_close(l->q99, 0.5 + log(100) / nu, 1e-2);
  assert_close(l->throughput, lambda, 1e-3); /* the throttled run runs at the source's rate */
  /* the data set alone: 0.25 + 0.25 + 1 */
  assert_close(r->latency->mean, 1.5, TOL_EXACT);
  stp_sim_result_free(r);
  stp_mapping_free(m);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A source ten times slower than the throughput under det: every data set
 * is alone in the pipeline, its latency that of its path; the paths come
 * in turn, so the mean over the data sets is the mean over the paths and
 * the 0.9 and 0.99 quantiles the largest (a sixth of the data sets take
 * it), the median the third path in order. */
Test(sim_explain, det_latency_without_contention_is_evals) {
  stp_mapping *m = example_a();
  for (int model = 0; model < 2; model++) {
    stp_sim_result *r0 = simulate(m, (stp_model)model, "det", 1200, 0, 0, 0);
    double rate = r0->throughput / 10;
    stp_sim_result_free(r0);
    stp_sim_result *r = simulate(m, (stp_model)model, "det", 1200, 0, 1, rate);
    const stp_latency_result *d = r->latency;
    stp_latency_result *ev = NULL;
    stp_error err = {0};
    cr_assert_eq(stp_latency_compute(m, 1000, &ev, &err), STP_OK, "%s", err.message);
    assert_close(d->mean, ev->mean, TOL_EXACT);
    assert_close(r->sim_latency.mean, ev->mean, TOL_SOLVE);
    assert_close(r->sim_latency.q99, ev->max, TOL_SOLVE);
    assert_close(r->sim_latency.q90, ev->max, TOL_SOLVE); /* 0.9 > 5/6 */
    /* the median: the third of the six path latencies in order */
    cr_assert_eq(ev->nlisted, 6u);
    double sorted[6];
    memcpy(sorted, ev->path, sizeof sorted);
    qsort(sorted, 6, sizeof *sorted, cmp_double);
    assert_close(r->sim_latency.q50, sorted[2], TOL_SOLVE);
    assert_close(r->sim_latency.ci_high, r->sim_latency.ci_low, TOL_SOLVE);
    stp_latency_result_free(ev);
    stp_sim_result_free(r);
  }
  stp_mapping_free(m);
}

/* The default source: 0.95 x the simulated throughput, said so. */
Test(sim_explain, default_rate_is_a_share_of_the_throughput) {
  stp_mapping *m = example_a();
  stp_sim_result *r = simulate(m, STP_MODEL_OVERLAP, "erlang:k=2", 40000, 0, 1, 0);
  cr_assert(!r->sim_latency.rate_given);
  assert_close(r->sim_latency.rate, 0.95 * r->throughput, TOL_EXACT);
  cr_assert(r->sim_latency.q50 <= r->sim_latency.q90 && r->sim_latency.q90 <= r->sim_latency.q99);
  stp_sim_result_free(r);
  stp_mapping_free(m);
}

/* A saturated source: refused (EINVAL), saying why, naming no flag. */
Test(sim_explain, a_rate_at_the_throughput_is_refused) {
  stp_mapping *m = example_a();
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.datasets = 20000;
  o.latency = 1;
  o.source_rate = 1; /* far above the throughput, 0.0043 */
  stp_sim_result *r = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_EINVAL);
  cr_assert_null(r);
  cr_assert(strstr(err.message, "grows without bound") && !strstr(err.message, "--"), "%s",
            err.message);
  o.source_rate = -1;
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "positive"), "%s", err.message);
  stp_mapping_free(m);
}
