/* test_sweep.c: what-if sweeps (streamtp_explain.h): the parsing of
 * --vary and its errors, the points' values, each point against the
 * evaluation of the same mapping written with that value, the critical
 * resource changing where the closed form says, a law range, and the
 * caller's mapping left alone. */
#include "streamtp_explain.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static stp_vary *vary(const char *spec) {
  stp_vary *v;
  stp_error err = {0};
  cr_assert_eq(stp_vary_parse(spec, &v, &err), STP_OK, "%s: %s", spec, err.message);
  return v;
}

static const char *vary_error(const char *spec) {
  static stp_error err;
  stp_vary *v = NULL;
  cr_assert_eq(stp_vary_parse(spec, &v, &err), STP_EINVAL, "%s accepted", spec);
  cr_assert_null(v);
  return err.message;
}

Test(sweep, parses_ranges_and_values) {
  stp_vary *v = vary("speed:P1=1..10");
  cr_assert(!v->is_law && v->kind == STP_PARAM_SPEED && strcmp(v->name, "P1") == 0);
  cr_assert_eq(v->n, 11);
  cr_assert(stp_vary_value(v, 0) == 1 && stp_vary_value(v, 10) == 10);
  assert_close(stp_vary_value(v, 3), 1 + 0.3 * 9, TOL_EXACT);
  stp_vary_free(v);
  v = vary("bandwidth:P2->P3=1..8:4:log");
  cr_assert(v->kind == STP_PARAM_BANDWIDTH && strcmp(v->name, "P2->P3") == 0 && v->log);
  cr_assert_eq(v->n, 4);
  assert_close(stp_vary_value(v, 1), 2, TOL_EXACT);
  assert_close(stp_vary_value(v, 2), 4, TOL_EXACT);
  cr_assert(strcmp(v->label, "bandwidth:P2->P3") == 0);
  stp_vary_free(v);
  v = vary("law=erlang:k=1..8");
  cr_assert(v->is_law && strcmp(v->law_family, "erlang") == 0 && strcmp(v->law_param, "k") == 0);
  cr_assert_eq(v->n, 8);
  cr_assert(stp_vary_value(v, 7) == 8);
  stp_vary_free(v);
  cr_assert(strstr(vary_error("speed:P1"), "KIND:NAME=FROM..TO"));
  cr_assert(strstr(vary_error("speed:P1=1-10"), "FROM..TO"));
  cr_assert(strstr(vary_error("colour:P1=1..2"), "not speed, bandwidth"));
  cr_assert(strstr(vary_error("speed:P1=0..2:log"), "> 0"));
  cr_assert(strstr(vary_error("speed:P1=1..2:lin"), "neither a number"));
  cr_assert(strstr(vary_error("law=erlang:k=1..2.5"), "integers"));
  cr_assert(strstr(vary_error("law=erlang"), "law=FAMILY:PARAM"));
}

static const char *tandem =
    "{\"stages\": [{\"name\": \"T1\", \"work\": 8, \"output\": 1},"
    " {\"name\": \"T2\", \"work\": 8, \"output\": 1}],"
    " \"processors\": [{\"name\": \"P1\", \"speed\": %.17g}, {\"name\": \"P2\", \"speed\": 4}],"
    " \"bandwidth\": 100, \"mapping\": [[\"P1\"], [\"P2\"]]}";

Test(sweep, points_equal_the_mapping_written_with_the_value) {
  char text[1024];
  snprintf(text, sizeof text, tandem, 1.0);
  stp_mapping *m = load_json(text);
  stp_vary *v = vary("speed:P1=1..8:8:log");
  const stp_vary *vs[1] = {v};
  const char *expect[8] = {"P1", "P1", "P1", "P1", "P1", "P2", "P2", "P2"};
  for (size_t k = 0; k < v->n; k++) {
    stp_sweep_point p;
    stp_error err = {0};
    cr_assert_eq(stp_sweep_point_eval(m, STP_MODEL_OVERLAP, vs, 1, &k, NULL, NULL, &p, &err),
                 STP_OK, "%s", err.message);
    double s = stp_vary_value(v, k);
    snprintf(text, sizeof text, tandem, s);
    stp_mapping *w = load_json(text);
    stp_result *r;
    cr_assert_eq(stp_evaluate(w, STP_MODEL_OVERLAP, NULL, &r, &err), STP_OK);
    cr_assert(p.result->det_throughput == r->det_throughput);
    cr_assert(p.result->exp_throughput == r->exp_throughput);
    /* speeds 1, 2, 4, 8 (log steps of 2^(3/7)): P1 limits below 4, P2 above,
     * both at 4 exactly (not a point here) */
    assert_close(p.result->det_throughput, fmin(s, 4) / 8, TOL_EXACT);
    cr_assert(p.critical && strcmp(p.critical, expect[k]) == 0, "point %zu (speed %g): %s", k,
              s, p.critical);
    cr_assert(p.vary[0] == s && p.nvary == 1 && !p.sim);
    stp_result_free(r);
    stp_mapping_free(w);
    stp_sweep_point_clear(&p);
  }
  /* the caller's mapping keeps its values */
  cr_assert(stp_mapping_processor_count(m) == 2);
  snprintf(text, sizeof text, tandem, 1.0);
  stp_mapping *again = load_json(text);
  stp_result *a, *b;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, NULL, &a, &err), STP_OK);
  cr_assert_eq(stp_evaluate(again, STP_MODEL_OVERLAP, NULL, &b, &err), STP_OK);
  cr_assert(a->det_throughput == b->det_throughput);
  stp_result_free(a);
  stp_result_free(b);
  stp_mapping_free(again);
  stp_vary_free(v);
  stp_mapping_free(m);
}

Test(sweep, two_varies_a_law_and_errors) {
  char text[1024];
  snprintf(text, sizeof text, tandem, 2.0);
  stp_mapping *m = load_json(text);
  stp_vary *a = vary("work:T2=4..16:3"), *l = vary("law=erlang:k=1..3");
  const stp_vary *vs[2] = {a, l};
  stp_error err = {0};
  for (size_t i = 0; i < a->n; i++)
    for (size_t j = 0; j < l->n; j++) {
      size_t idx[2] = {i, j};
      stp_sweep_point p;
      cr_assert_eq(stp_sweep_point_eval(m, STP_MODEL_STRICT, vs, 2, idx, NULL, NULL, &p, &err),
                   STP_OK, "%s", err.message);
      cr_assert(p.result->exact_law.available, "%s", p.result->exact_law.reason);
      if (j == 0) /* erlang:k=1 is exp */
        assert_close(p.result->exact_law.throughput, p.result->exp_throughput, TOL_SOLVE);
      else /* more phases, less variance: closer to det (N.B.U.E.) */
        cr_assert(p.result->exact_law.throughput >= p.result->exp_throughput);
      cr_assert(p.vary[0] == stp_vary_value(a, i) && p.vary[1] == j + 1);
      stp_sweep_point_clear(&p);
    }
  stp_vary *bad = vary("speed:P9=1..2"), *last = vary("output:T2=1..2"),
           *link = vary("bandwidth:P1->P2=1..2");
  size_t zero = 0;
  stp_sweep_point p;
  const stp_vary *b1[1] = {bad}, *b2[1] = {last}, *b3[1] = {link};
  cr_assert_eq(stp_sweep_point_eval(m, STP_MODEL_OVERLAP, b1, 1, &zero, NULL, NULL, &p, &err),
               STP_EINVAL);
  cr_assert(strstr(err.message, "no processor \"P9\""), "%s", err.message);
  cr_assert_eq(stp_sweep_point_eval(m, STP_MODEL_OVERLAP, b2, 1, &zero, NULL, NULL, &p, &err),
               STP_EINVAL);
  cr_assert(strstr(err.message, "last stage"), "%s", err.message);
  cr_assert_eq(stp_sweep_point_eval(m, STP_MODEL_OVERLAP, b3, 1, &zero, NULL, NULL, &p, &err),
               STP_EINVAL);
  cr_assert(strstr(err.message, "bandwidth:default"), "%s", err.message);
  stp_vary_free(bad);
  stp_vary_free(last);
  stp_vary_free(link);
  stp_vary_free(a);
  stp_vary_free(l);
  stp_mapping_free(m);
}
