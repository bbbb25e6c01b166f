/* test_deterministic.c: deterministic throughput of both models.  The Overlap
 * decomposition must equal Howard on the full event graph (1e-12), both must
 * match a plain (max,+) replay, cycle-times must match sums over the full
 * graph, and hand-checked mappings give their closed forms. */
#include "models/pipeline/components.h"
#include "models/pipeline/deterministic.h"
#include "models/pipeline/teg.h"
#include "maxplus_ref.h"
#include "solvers/mcr_howard.h"
#include "testutil.h"

#include <stdlib.h>

static stp_result *evaluate(const stp_mapping *m, stp_model model) {
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_NONE;
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, &o, &r, &err), STP_OK, "%s", err.message);
  return r;
}

/* R / lambda* of the full event graph. */
static double full_graph_throughput(const stp_mapping *m, stp_model model) {
  stp_teg *t;
  stp_error err = {0};
  cr_assert_eq(stp__teg_build(m, model, UINT64_C(50000000), &t, &err), STP_OK, "%s",
               err.message);
  stp_mcr_result r;
  cr_assert_eq(stp__mcr_howard(t->g, NULL, &r, &err), STP_OK, "%s", err.message);
  double rho = (double)t->nrows / r.ratio;
  stp__mcr_result_clear(&r);
  stp__teg_free(t);
  return rho;
}

Test(deterministic, overlap_decomposition_equals_full_graph) {
  trng rng = {.s = 11};
  for (int k = 0; k < 300; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 5), .max_team = 6,
              .homogeneous_links = k % 4 == 0};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_result *r = evaluate(m, STP_MODEL_OVERLAP);
    assert_close(r->det_throughput, full_graph_throughput(m, STP_MODEL_OVERLAP), TOL_EXACT);
    stp_result_free(r);
    stp_mapping_free(m);
  }
}

Test(deterministic, both_models_match_a_maxplus_replay) {
  trng rng = {.s = 12};
  for (int k = 0; k < 60; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 4};
    stp_mapping *m = tgen_mapping(&rng, &p);
    for (int model = 0; model < 2; model++) {
      stp_result *r = evaluate(m, (stp_model)model);
      /* after 50000 data sets these small systems are periodic; over whole
       * periods the replay's rate is the cycle-time ratio up to rounding */
      double rate = maxplus_rate(m, (stp_model)model, 50000, 1);
      assert_close(r->det_throughput, rate, 1e-9);
      stp_result_free(r);
    }
    stp_mapping_free(m);
  }
}

/* C_in, C_comp, C_out summed over the R rows of the full graph. */
static void full_graph_cycle_times(const stp_mapping *m, stp_cycle_times *ct) {
  stp_teg *t;
  stp_error err;
  cr_assert_eq(stp__teg_build(m, STP_MODEL_OVERLAP, UINT64_C(50000000), &t, &err), STP_OK);
  for (uint64_t j = 0; j < t->nrows; j++)
    for (uint32_t c = 0; c < t->ncols; c++) {
      size_t q, p = stp__teg_processor(&t->teams, j, c, &q);
      double x = t->time[j * t->ncols + c] / (double)t->nrows;
      if (c % 2 == 0) {
        ct[p].comp += x;
      } else {
        ct[p].out += x;
        ct[q].in += x;
      }
    }
  stp__teg_free(t);
}

Test(deterministic, cycle_times_match_full_graph_sums) {
  trng rng = {.s = 13};
  for (int k = 0; k < 100; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 5), .max_team = 6};
    stp_mapping *m = tgen_mapping(&rng, &p);
    stp_component_set cs;
    stp_cycle_times *got;
    stp_error err;
    cr_assert_eq(stp__components_build(m, &cs, &err), STP_OK);
    cr_assert_eq(stp__cycle_times(m, &cs, &got, &err), STP_OK);
    stp_cycle_times *want = calloc(m->nprocs, sizeof *want);
    full_graph_cycle_times(m, want);
    for (size_t q = 0; q < m->nprocs; q++) {
      assert_close(got[q].in, want[q].in, TOL_EXACT);
      assert_close(got[q].comp, want[q].comp, TOL_EXACT);
      assert_close(got[q].out, want[q].out, TOL_EXACT);
    }
    free(want);
    free(got);
    stp__components_free(&cs);
    stp_mapping_free(m);
  }
}

Test(deterministic, period_is_at_least_max_cycle_time) {
  trng rng = {.s = 14};
  for (int k = 0; k < 200; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 5), .max_team = 5};
    stp_mapping *m = tgen_mapping(&rng, &p);
    for (int model = 0; model < 2; model++) {
      stp_result *r = evaluate(m, (stp_model)model);
      cr_assert_geq(r->det_period, r->max_cycle_time * (1 - 1e-12), "period %.17g < M_ct %.17g",
                    r->det_period, r->max_cycle_time);
      /* a critical resource is reported exactly when the period equals M_ct */
      cr_assert_eq(r->ncritical > 0,
                   stp__close(r->det_period, r->max_cycle_time, 1e-9, 0));
      stp_result_free(r);
    }
    stp_mapping_free(m);
  }
}

Test(deterministic, no_replication_means_a_critical_resource) {
  /* paper section 2.3: without replication the period is M_ct, both models */
  trng rng = {.s = 15};
  for (int k = 0; k < 100; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 8), .max_team = 1};
    stp_mapping *m = tgen_mapping(&rng, &p);
    for (int model = 0; model < 2; model++) {
      stp_result *r = evaluate(m, (stp_model)model);
      assert_close(r->det_period, r->max_cycle_time, TOL_EXACT);
      cr_assert_gt(r->ncritical, 0);
      stp_result_free(r);
    }
    stp_mapping_free(m);
  }
}

Test(deterministic, one_processor) {
  stp_mapping *m = load_json(
      "{\"stages\":[{\"work\":12}],\"processors\":[{\"name\":\"A\",\"speed\":4}],"
      "\"mapping\":[[\"A\"]]}");
  for (int model = 0; model < 2; model++) {
    stp_result *r = evaluate(m, (stp_model)model);
    assert_close(r->det_throughput, 4.0 / 12.0, TOL_EXACT);
    assert_close(r->det_period, 3.0, TOL_EXACT);
    cr_assert_eq(r->ncritical, 1);
    cr_assert_str_eq(r->critical[0], "A");
    cr_assert_eq(r->paths, 1);
    stp_result_free(r);
  }
  stp_mapping_free(m);
}

Test(deterministic, one_link) {
  /* c_A = 2, d_AB = 5, c_B = 3: Overlap period max = 5 (A out and B in);
   * Strict: A does comp+send = 7, B recv+comp = 8: period 8 (B). */
  stp_mapping *m = load_json(
      "{\"stages\":[{\"work\":4,\"output\":10},{\"work\":3}],"
      "\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\",\"speed\":1}],"
      "\"bandwidth\":2,\"mapping\":[[\"A\"],[\"B\"]]}");
  stp_result *r = evaluate(m, STP_MODEL_OVERLAP);
  assert_close(r->det_period, 5.0, TOL_EXACT);
  cr_assert_eq(r->ncritical, 2);
  cr_assert_str_eq(r->critical[0], "A out");
  cr_assert_str_eq(r->critical[1], "B in");
  stp_result_free(r);
  r = evaluate(m, STP_MODEL_STRICT);
  assert_close(r->det_period, 8.0, TOL_EXACT);
  cr_assert_eq(r->ncritical, 1);
  cr_assert_str_eq(r->critical[0], "B");
  stp_result_free(r);
  stp_mapping_free(m);
}

Test(deterministic, homogeneous_2x3_transfer_column) {
  /* u = 2 senders, v = 3 receivers, every link d = 4; computations tiny:
   * throughput min(u, v) / d = 0.5 (a sender port sends 3 of every 6). */
  stp_mapping *m = load_json(
      "{\"stages\":[{\"work\":0.001,\"output\":8},{\"work\":0.001}],"
      "\"processors\":[{\"name\":\"S0\",\"speed\":1},{\"name\":\"S1\",\"speed\":1},"
      "{\"name\":\"R0\",\"speed\":1},{\"name\":\"R1\",\"speed\":1},{\"name\":\"R2\",\"speed\":1}],"
      "\"bandwidth\":2,\"mapping\":[[\"S0\",\"S1\"],[\"R0\",\"R1\",\"R2\"]]}");
  stp_result *r = evaluate(m, STP_MODEL_OVERLAP);
  assert_close(r->det_throughput, 2.0 / 4.0, TOL_EXACT);
  cr_assert_eq(r->paths, 6);
  stp_result_free(r);
  stp_mapping_free(m);
}

Test(deterministic, big_coprime_teams_closed_form) {
  /* Teams of 31..61 processors (1.8e13 paths), equal speeds, one bandwidth:
   * a computation column gives R_i / c, a transfer column min(R_i, R_i+1)/d
   * (homogeneous pattern, coprime team sizes so g = 1). */
  static const size_t teams[] = {31, 37, 41, 43, 47, 53, 59, 61};
  trng rng = {.s = 16};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 8, true);
  for (size_t p = 0; p < m->nprocs; p++)
    m->procs[p].speed = 2.0;
  double want = INFINITY;
  uint64_t paths = 1;
  for (size_t i = 0; i < 8; i++) {
    paths *= teams[i];
    want = fmin(want, (double)teams[i] / (m->stages[i].work / 2.0));
    if (i + 1 < 8)
      want = fmin(want, (double)(teams[i] < teams[i + 1] ? teams[i] : teams[i + 1]) /
                            (m->stages[i].output / m->bandwidth));
  }
  stp_result *r = evaluate(m, STP_MODEL_OVERLAP);
  cr_assert_eq(r->paths, paths);
  assert_close(r->det_throughput, want, TOL_EXACT);
  stp_result_free(r);
  stp_mapping_free(m);
}

Test(deterministic, strict_refuses_huge_graphs) {
  static const size_t teams[] = {31, 37, 41, 43, 47};
  trng rng = {.s = 17};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 5, true);
  stp_options o;
  stp_options_init(&o);
  stp_result *r = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, STP_MODEL_STRICT, &o, &r, &err), STP_ELIMIT);
  cr_assert_null(r);
  /* the limit's detail: 31 37 41 43 47 (primes) paths x 9 columns, the default limit */
  cr_assert_eq(err.limit.kind, STP_LIMIT_TRANSITIONS);
  cr_assert_eq(err.limit.needed, UINT64_C(31) * 37 * 41 * 43 * 47 * 9);
  cr_assert_eq(err.limit.allowed, STP_DEFAULT_MAX_TRANSITIONS);
  cr_assert(strstr(err.message, "above the limit of 20000000"), "%s", err.message);
  stp_mapping_free(m);
}
