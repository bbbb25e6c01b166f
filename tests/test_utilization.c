/* test_utilization.c: the busy fractions of streamtp_explain.h against a
 * count over the R paths of random mappings (each path is one data set in
 * R: a resource's busy time per data set is its time summed over the paths
 * that use it, over R), the critical resource at 1 under det, and the
 * latency's public form against its paths. */
#include "models/pipeline/mapping.h"
#include "streamtp_explain.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static stp_result *evaluate(const stp_mapping *m, stp_model model) {
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, NULL, &r, &err), STP_OK, "%s", err.message);
  return r;
}

/* busy[3 p + port] per data set, by walking the paths. */
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

Test(utilization, busy_times_equal_a_count_over_the_paths) {
  trng rng = {.s = 51};
  for (int k = 0; k < 100; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 3), .max_team = 3, .homogeneous_links = k % 4 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    double *busy = calloc(3 * m->nprocs, sizeof *busy);
    busy_by_paths(m, busy);
    for (int model = 0; model < 2; model++) {
      stp_result *r = evaluate(m, (stp_model)model);
      stp_utilization *u;
      stp_error err = {0};
      cr_assert_eq(stp_utilization_compute(m, r, &u, &err), STP_OK, "%s", err.message);
      size_t expect = 0, saturated = 0;
      for (size_t q = 0; q < m->nprocs; q++) {
        size_t i = m->procs[q].stage;
        expect += model ? 1 : 1 + (i > 0) + (i + 1 < m->nstages);
      }
      cr_assert_eq(u->n, expect);
      for (size_t q = 0; q < u->n; q++) {
        const stp_utilization_item *it = &u->items[q];
        double b = model ? busy[3 * it->processor] + busy[3 * it->processor + 1] +
                               busy[3 * it->processor + 2]
                         : busy[3 * it->processor + it->port];
        assert_close(it->busy, b, 1e-12);
        assert_close(it->det, r->det_throughput * b, 1e-12);
        assert_close(it->exp, r->exp_throughput * b, 1e-12);
        cr_assert(it->det <= 1 + 1e-9 && it->exp <= it->det * (1 + 1e-9));
        saturated += it->saturated;
      }
      /* a critical resource is saturated, and only those are */
      cr_assert_eq(saturated, r->ncritical, "%zu saturated, %zu critical", saturated,
                   r->ncritical);
      stp_utilization_free(u);
      stp_result_free(r);
    }
    free(busy);
    stp_mapping_free(m);
  }
}

Test(utilization, latency_lists_each_path) {
  trng rng = {.s = 52};
  tgen p = {.nstages = 3, .max_team = 4};
  stp_mapping *m = tgen_mapping(&rng, &p);
  stp_latency_result *l;
  stp_error err = {0};
  cr_assert_eq(stp_latency_compute(m, 1000, &l, &err), STP_OK, "%s", err.message);
  cr_assert(l->nlisted == l->paths && l->max_exact && l->has_argmax);
  double mx = -INFINITY, sum = 0;
  for (size_t j = 0; j < l->nlisted; j++) {
    mx = fmax(mx, l->path[j]);
    sum += l->path[j];
  }
  assert_close(l->max, mx, TOL_EXACT);
  assert_close(l->mean, sum / (double)l->nlisted, TOL_EXACT);
  assert_close(l->path[l->argmax], mx, TOL_EXACT);
  stp_latency_result_free(l);
  cr_assert_eq(stp_latency_compute(m, 0, &l, &err), STP_OK);
  cr_assert(l->nlisted == 0 && !l->path);
  stp_latency_result_free(l);
  stp_mapping_free(m);
}

static bool listed(const stp_critical_cycle *c, const char *name) {
  for (size_t k = 0; k < c->nresources; k++)
    if (strcmp(c->resources[k], name) == 0)
      return true;
  return false;
}

/* Strict: a processor off every critical cycle is never worth speeding up
 * or costs when slowed (speed elasticities 0; finite differences check
 * those in test_sensitivity), and one whose slowing costs is on one.  (A
 * processor on a cycle only through its transfers may have speed
 * elasticity 0: the link sets those times.) */
Test(utilization, critical_cycle_resources_are_those_whose_slowing_costs) {
  trng rng = {.s = 53};
  int ons = 0;
  for (int k = 0; k < 40; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 3};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_options o;
    stp_options_init(&o);
    o.exp_method = STP_EXP_NONE;
    stp_critical_cycle *c;
    stp_sensitivity_result *s;
    stp_result *r;
    stp_error err = {0};
    cr_assert_eq(stp_critical_cycle_compute(m, STP_MODEL_STRICT, &o, &c, &err), STP_OK, "%s",
                 err.message);
    cr_assert_eq(stp_sensitivity_compute(m, STP_MODEL_STRICT, &o, &s, &err), STP_OK, "%s",
                 err.message);
    cr_assert_eq(stp_evaluate(m, STP_MODEL_STRICT, &o, &r, &err), STP_OK);
    assert_close(c->period, r->det_period, TOL_EXACT);
    cr_assert(c->nresources > 0 && c->ntransitions > 0 && c->cycle_tokens > 0);
    size_t on = 0;
    for (size_t q = 0; q < s->n; q++) {
      const stp_sensitivity *it = &s->items[q];
      if (it->kind != STP_PARAM_SPEED || m->procs[it->index].stage == STP_NO_STAGE)
        continue;
      if (!listed(c, it->of))
        cr_assert(it->det.left == 0 && it->det.right == 0, "%s off the cycle", it->of);
      else
        on += it->det.left > 1e-9;
    }
    ons += on > 0;
    /* and under Overlap, every critical resource is on a critical cycle */
    stp_critical_cycle *co;
    stp_result *ro;
    cr_assert_eq(stp_critical_cycle_compute(m, STP_MODEL_OVERLAP, &o, &co, &err), STP_OK);
    cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, &o, &ro, &err), STP_OK);
    for (size_t q = 0; q < ro->ncritical; q++)
      cr_assert(listed(co, ro->critical[q]), "%s", ro->critical[q]);
    stp_result_free(ro);
    stp_critical_cycle_free(co);
    stp_result_free(r);
    stp_sensitivity_result_free(s);
    stp_critical_cycle_free(c);
    stp_mapping_free(m);
  }
  cr_assert(ons > 30, "only %d mappings with a listed processor whose slowing costs", ons);
}
