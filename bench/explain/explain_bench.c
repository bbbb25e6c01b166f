/* explain_bench.c: the time of the sensitivities (stp_sensitivity_compute)
 * against one evaluation (stp_evaluate) of the same mapping, in the same
 * process, and their agreement with central differences of separate
 * evaluations (bench/README.md, "Explaining a throughput").
 *
 *   explain_bench FILE [--model M] [--runs K] [--fd N] [--sweep P]
 *
 * prints one JSON line: eval and sensitivity seconds (medians of K runs),
 * their ratio, the parameters, the chain states and the adjoint residual,
 * and, with --fd N, the largest difference between the exp and det
 * elasticities and central differences (log step 1e-5 for exp, one-sided
 * steps 1e-7 for det) over the N parameters of largest |elasticity|; with
 * --sweep P, the time of a sweep of P points (stp_sweep_point_eval) of the
 * speed of the processor of largest speed elasticity, from half to twice
 * its value on a log scale. */
#include "models/pipeline/mapping.h"
#include "streamtp_explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, const stp_error *err) {
  fprintf(stderr, "explain_bench: %s: %s\n", what, err->message);
  exit(1);
}

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

static void eval_at(stp_mapping *m, stp_model model, const stp_options *o, double *p, double v,
                    double *det, double *ex) {
  double keep = *p;
  *p = v;
  stp_result *r;
  stp_error err = {0};
  if (stp_evaluate(m, model, o, &r, &err) != STP_OK)
    die("evaluate", &err);
  *det = r->det_throughput;
  *ex = r->exp_available ? r->exp_throughput : NAN;
  stp_result_free(r);
  *p = keep;
}

static int cmp_abs_exp(const void *a, const void *b) {
  const stp_sensitivity *x = a, *y = b;
  double ax = fabs(x->exp.elasticity), ay = fabs(y->exp.elasticity);
  if (isnan(ax))
    ax = fabs(x->det.elasticity);
  if (isnan(ay))
    ay = fabs(y->det.elasticity);
  return (ax < ay) - (ax > ay);
}

int main(int argc, char **argv) {
  const char *file = NULL;
  stp_model model = STP_MODEL_OVERLAP;
  int runs = 3, fd = 0, model_set = 0, sweep = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--model") && a + 1 < argc) {
      stp_model_parse(argv[++a], &model);
      model_set = 1;
    } else if (!strcmp(argv[a], "--runs") && a + 1 < argc)
      runs = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--fd") && a + 1 < argc)
      fd = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--sweep") && a + 1 < argc)
      sweep = atoi(argv[++a]);
    else
      file = argv[a];
  }
  if (!file || runs < 1 || runs > 99) {
    fprintf(stderr, "usage: explain_bench FILE [--model M] [--runs K] [--fd N]\n");
    return 2;
  }
  stp_error err = {0};
  stp_mapping *m;
  if (stp_mapping_load_file(file, &m, &err) != STP_OK)
    die(file, &err);
  if (!model_set)
    model = stp_mapping_model(m);
  stp_options o;
  stp_options_init(&o);
  o.max_states = UINT64_C(50000000);
  double te[99], ts[99];
  stp_sensitivity_result *s = NULL;
  for (int k = 0; k < runs; k++) {
    double t0 = now();
    stp_result *r;
    if (stp_evaluate(m, model, &o, &r, &err) != STP_OK)
      die("evaluate", &err);
    te[k] = now() - t0;
    stp_result_free(r);
    stp_sensitivity_result_free(s);
    t0 = now();
    if (stp_sensitivity_compute(m, model, &o, &s, &err) != STP_OK)
      die("sensitivity", &err);
    ts[k] = now() - t0;
  }
  double e = median(te, runs), t = median(ts, runs);
  printf("{\"file\": \"%s\", \"model\": \"%s\", \"parameters\": %zu, \"eval_s\": %.6g, "
         "\"sensitivity_s\": %.6g, \"ratio\": %.3g, \"exp\": %s, \"states\": %llu, "
         "\"adjoint_residual\": %.3g, \"adjoint_sweeps\": %zu",
         file, stp_model_name(model), s->n, e, t, t / e, s->exp_available ? "true" : "false",
         (unsigned long long)s->exp_states, s->exp_residual, s->exp_sweeps);
  if (fd > 0) {
    qsort(s->items, s->n, sizeof *s->items, cmp_abs_exp);
    double worst_exp = 0, worst_det = 0, rd, re, ud, ue, dd, de;
    eval_at(m, model, &o, &m->stages[0].work, m->stages[0].work, &rd, &re);
    int n = fd < (int)s->n ? fd : (int)s->n;
    for (int k = 0; k < n; k++) {
      const stp_sensitivity *it = &s->items[k];
      double *p = param_ptr(m, it), v = *p;
      eval_at(m, model, &o, p, v * exp(1e-5), &ud, &ue);
      eval_at(m, model, &o, p, v * exp(-1e-5), &dd, &de);
      if (s->exp_available && it->exp.left == it->exp.right)
        worst_exp = fmax(worst_exp, fabs(log(ue / de) / 2e-5 - it->exp.elasticity));
      eval_at(m, model, &o, p, v * exp(1e-7), &ud, &ue);
      eval_at(m, model, &o, p, v * exp(-1e-7), &dd, &de);
      worst_det = fmax(worst_det, fabs(log(ud / rd) / 1e-7 - it->det.right));
      worst_det = fmax(worst_det, fabs(log(rd / dd) / 1e-7 - it->det.left));
    }
    printf(", \"fd_checked\": %d, \"fd_max_diff_exp\": %.3g, \"fd_max_diff_det\": %.3g", n,
           worst_exp, worst_det);
  }
  if (sweep > 0) {
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < s->n; k++)
      if (s->items[k].kind == STP_PARAM_SPEED &&
          (best == SIZE_MAX || fabs(s->items[k].det.left) > fabs(s->items[best].det.left)))
        best = k;
    char spec[512];
    snprintf(spec, sizeof spec, "speed:%s=%.17g..%.17g:%d:log", s->items[best].of,
             s->items[best].value / 2, s->items[best].value * 2, sweep);
    stp_vary *v;
    if (stp_vary_parse(spec, &v, &err) != STP_OK)
      die("vary", &err);
    const stp_vary *vs[1] = {v};
    size_t changes = 0;
    char *prev = NULL;
    double t0 = now();
    for (size_t k = 0; k < v->n; k++) {
      stp_sweep_point p;
      if (stp_sweep_point_eval(m, model, vs, 1, &k, &o, NULL, &p, &err) != STP_OK)
        die("sweep", &err);
      if (k && (!prev != !p.critical || (prev && strcmp(prev, p.critical))))
        changes++;
      free(prev);
      prev = p.critical ? strdup(p.critical) : NULL;
      stp_sweep_point_clear(&p);
    }
    free(prev);
    printf(", \"sweep\": \"%s\", \"sweep_points\": %d, \"sweep_s\": %.6g, "
           "\"sweep_per_eval\": %.3g, \"critical_changes\": %zu",
           spec, sweep, now() - t0, (now() - t0) / sweep / e, changes);
    stp_vary_free(v);
  }
  printf("}\n");
  stp_sensitivity_result_free(s);
  stp_mapping_free(m);
  return 0;
}
