/* run.c: `streamtp bcast` as one library call per mode: stp_bcast_run (a
 * platform: each heuristic's schedule, the analyses of its DAG, Monte
 * Carlo), stp_bcast_model_run (Table 1) and stp_bcast_partition_run
 * (Lowekamp's clusters of a latency matrix). */
#include "streamtp_bcast.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

void stp_bcast_run_options_init(stp_bcast_run_options *o) {
  memset(o, 0, sizeof *o);
  o->root = SIZE_MAX;
  o->intra = STP_BCAST_INTRA_BINOMIAL;
  o->inter = STP_BCAST_INTER_ALL;
  o->seed = 1;
}

size_t stp_bcast_result_count(const stp_bcast_result *r) { return r ? r->count : 0; }

void stp_bcast_result_free(stp_bcast_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->count; i++) {
    stp_graph_result_free(&r->heuristics[i].analysis);
    stp_bcast_schedule_free(&r->heuristics[i].schedule);
  }
  free(r->heuristics);
  free(r->law);
  free(r);
}

/* The schedule options of a run. */
static stp_bcast_options schedule_options(const stp_bcast_run_options *o) {
  return (stp_bcast_options){.size = o->size, .has_size = o->has_size, .root = o->root,
                             .intra = o->intra, .control = o->control};
}

/* The law of the exact value: the law alone, or with a simulation when it
 * is phase-type (a law meant for the simulation only gives no "not
 * phase-type" reason). */
static const stp_law *exact_law(const stp_bcast_run_options *o) {
  return o->law && (!o->simulate || stp_law_phases(o->law) > 0) ? o->law : NULL;
}

static stp_status check(const stp_bcast_platform *p, const stp_bcast_run_options *o,
                        stp_error *err) {
  if (!o->has_size && stp_bcast_platform_needs_size(p))
    return stp__fail(err, STP_EINVAL, "size: required, since a gap in %s depends on the "
                     "message size", stp_bcast_platform_file(p));
  if (o->has_size && !(o->size >= 1 && o->size <= STP_TIME_MAX))
    return stp__fail(err, STP_EINVAL, "size: %g is out of range [1, %g]", o->size, STP_TIME_MAX);
  if (o->root != SIZE_MAX && o->root >= stp_bcast_cluster_count(p))
    return stp__fail(err, STP_EINVAL, "root: no cluster %zu in %s", o->root,
                     stp_bcast_platform_file(p));
  if (o->inter != STP_BCAST_INTER_ALL && (o->inter < 0 || o->inter >= STP_BCAST_HEURISTIC_COUNT))
    return stp__fail(err, STP_EINVAL, "unknown heuristic %d", o->inter);
  return STP_OK;
}

static stp_status run_one(const stp_bcast_platform *p, const stp_bcast_run_options *o,
                          stp_bcast_result *r, stp_bcast_heuristic h, stp_error *err) {
  stp_bcast_heuristic_result *x = &r->heuristics[r->count];
  double t0 = stp__now();
  stp_bcast_options so = schedule_options(o);
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 1;
  go.max_states = o->max_states ? o->max_states : STP_GRAPH_DEFAULT_MAX_STATES;
  go.control = o->control;
  go.law = exact_law(o);
  memset(x, 0, sizeof *x);
  stp_status s = stp_bcast_schedule_compute(p, &so, h, &x->schedule, err);
  if (s != STP_OK)
    return s;
  r->count++; /* from here on freed with r */
  s = stp_bcast_schedule_analyze(p, &so, &x->schedule, &go, &x->analysis, err);
  if (s == STP_OK && o->simulate) {
    stp_graph_sim_options sim;
    stp_graph_sim_options_init(&sim);
    sim.runs = o->simulate;
    sim.seed = o->seed;
    sim.law = o->law;
    sim.control = o->control;
    s = stp_bcast_schedule_simulate(p, &so, &x->schedule, &sim, &x->sim, err);
    x->simulated = s == STP_OK;
  }
  x->seconds = stp__now() - t0;
  return s;
}

stp_status stp_bcast_run(const stp_bcast_platform *p, const stp_bcast_run_options *o,
                         stp_bcast_result **out, stp_error *err) {
  *out = NULL;
  STP_CHECK(check(p, o, err));
  int first = o->inter == STP_BCAST_INTER_ALL ? 0 : o->inter;
  int last = o->inter == STP_BCAST_INTER_ALL ? STP_BCAST_HEURISTIC_COUNT - 1 : o->inter;
  stp_bcast_result *r = calloc(1, sizeof *r);
  if (r)
    r->heuristics = calloc((size_t)(last - first + 1), sizeof *r->heuristics);
  if (r && r->heuristics && o->law)
    r->law = stp__strdup(stp_law_spec(o->law));
  if (!r || !r->heuristics || (o->law && !r->law)) {
    stp_bcast_result_free(r);
    return stp__oom(err, "a broadcast");
  }
  r->platform = p;
  r->options = *o;
  r->options.law = NULL;
  *out = r;
  for (int h = first; h <= last; h++) {
    stp_status s = run_one(p, o, r, (stp_bcast_heuristic)h, err);
    if (s == STP_OK && h < last && stp__cancelled(&o->control.cancel))
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
    if (s != STP_OK) {
      stp_error_prefix(err, "%s", stp_bcast_heuristic_name((stp_bcast_heuristic)h));
      return s;
    }
    if (o->each && o->each(r, r->count - 1, o->each_data) != 0)
      return stp__fail(err, STP_EINTERRUPTED, "stopped by the caller");
  }
  return STP_OK;
}

/* ---- --model ------------------------------------------------------------------------ */
void stp_bcast_model_result_free(stp_bcast_model_result *r) { free(r); }

stp_status stp_bcast_model_run(const stp_bcast_model_options *o, stp_bcast_model_result **out,
                               stp_error *err) {
  *out = NULL;
  const stp_bcast_model_params *q = &o->params;
  /* the largest tree: P k arrival times (one segment each, or k) */
  char what[96];
  snprintf(what, sizeof what, "the tree of P = %llu with %llu segments",
           (unsigned long long)q->P, (unsigned long long)q->k);
  STP_CHECK(stp__within_budget(&o->control, what,
                               (double)q->P * (double)(q->k > 1 ? q->k : 1) * sizeof(double),
                               err));
  stp_bcast_model_result *r = calloc(1, sizeof *r);
  if (!r)
    return stp__oom(err, "Table 1");
  r->params = *q;
  r->max_memory = stp_control_memory_budget(&o->control);
  for (int a = 0; a < STP_BCAST_ALG_COUNT; a++) {
    stp_status s = stp__cancelled(&o->control.cancel)
                       ? stp__fail(err, STP_EINTERRUPTED, "interrupted")
                       : stp_bcast_model_dag((stp_bcast_alg)a, q, &r->dag[a], err);
    if (s != STP_OK) {
      free(r);
      return s;
    }
    r->formula[a] = stp_bcast_model_formula((stp_bcast_alg)a, q);
  }
  *out = r;
  return STP_OK;
}

/* ---- --partition ---------------------------------------------------------------------- */
void stp_bcast_partition_result_free(stp_bcast_partition_result *r) {
  if (!r)
    return;
  stp_bcast_partition_free(&r->partition);
  free(r->file);
  free(r);
}

/* The matrix and its n (n - 1) / 2 sorted edges (a weight and two
 * indices each) against the budget. */
static stp_status partition_budget(size_t n, const stp_control *c, stp_error *err) {
  char what[64];
  snprintf(what, sizeof what, "the partition of %zu machines", n);
  return stp__within_budget(c, what,
                            8.0 * (double)n * (double)n + 24.0 * (double)n * ((double)n - 1) / 2,
                            err);
}

stp_status stp_bcast_partition_run(const stp_bcast_partition_options *o,
                                   stp_bcast_partition_result **out, stp_error *err) {
  *out = NULL;
  double *w = NULL;
  size_t n = 0;
  stp_status s = o->text ? stp_bcast_latency_load_string(o->text, o->len, o->file, &w, &n, err)
                         : stp_bcast_latency_load_file(o->file, &w, &n, err);
  if (s != STP_OK)
    return s;
  stp_bcast_partition_result *r = calloc(1, sizeof *r);
  s = r && (r->file = stp__strdup(o->file)) ? partition_budget(n, &o->control, err)
                                            : stp__oom(err, "a partition");
  if (s == STP_OK && stp__cancelled(&o->control.cancel))
    s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
  if (s == STP_OK)
    s = stp_bcast_partition_compute(w, n, o->rho, &r->partition, err);
  free(w);
  if (s != STP_OK) {
    stp_bcast_partition_result_free(r);
    return s;
  }
  r->rho = o->rho;
  r->max_memory = stp_control_memory_budget(&o->control);
  *out = r;
  return STP_OK;
}
