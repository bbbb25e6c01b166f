/* eval.c: the evaluation driver behind stp_evaluate: mapping -> components
 * -> deterministic throughput, M_ct and critical resources -> exponential
 * throughput and bounds -> stp_result. */
#include "base/core.h"
#include "models/pipeline/critical_cycle.h"
#include "models/pipeline/deterministic.h"
#include "models/pipeline/exact_law.h"
#include "models/pipeline/exponential.h"
#include "models/pipeline/teg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A resource attains a value when equal within this relative tolerance. */
#define STP_CRITICAL_RTOL 1e-9

void stp_result_free(stp_result *r) {
  if (!r)
    return;
  free(r->replication);
  for (size_t k = 0; k < r->ncritical; k++)
    free(r->critical[k]);
  free(r->critical);
  free(r->mct_resource);
  free(r->exp_method);
  free(r->exp_reason);
  for (size_t k = 0; k < r->ncomponents; k++) {
    free(r->components[k].senders);
    free(r->components[k].receivers);
  }
  free(r->components);
  stp__law_result_clear(&r->exact_law);
  for (size_t k = 0; k < r->ncycle_resources; k++)
    free(r->cycle_resources[k]);
  free(r->cycle_resources);
  free(r);
}

typedef struct resource_value {
  size_t proc;
  const char *suffix; /* "" (computation or Strict processor), " in", " out" */
  double value;
} resource_value;

/* The resources of processor p under the model, in a fixed order. */
static size_t resources_of(stp_model model, size_t p, const stp_cycle_times *t,
                           resource_value out[3]) {
  if (model == STP_MODEL_STRICT) {
    out[0] = (resource_value){p, "", t->in + t->comp + t->out};
    return 1;
  }
  out[0] = (resource_value){p, "", t->comp};
  out[1] = (resource_value){p, " in", t->in};
  out[2] = (resource_value){p, " out", t->out};
  return 3;
}

static char *resource_name(const stp_mapping *m, const resource_value *rv) {
  return stp__asprintf("%s%s", m->procs[rv->proc].name, rv->suffix);
}

/* M_ct, the resource that attains it, and every resource attaining the period. */
static stp_status critical_resources(const stp_mapping *m, stp_model model,
                                     const stp_cycle_times *ct, stp_result *r, stp_error *err) {
  resource_value rv[3], best = {0, "", -1};
  size_t nused = 0;
  for (size_t p = 0; p < m->nprocs; p++) {
    if (m->procs[p].stage == STP_NO_STAGE)
      continue;
    size_t k = resources_of(model, p, &ct[p], rv);
    for (size_t q = 0; q < k; q++)
      if (rv[q].value > best.value)
        best = rv[q];
    nused++;
  }
  r->max_cycle_time = best.value;
  if (!(r->mct_resource = resource_name(m, &best)))
    return stp__oom(err, "naming resources");
  r->critical = stp__calloc(3 * nused, sizeof *r->critical);
  if (!r->critical)
    return stp__oom(err, "naming resources");
  for (size_t p = 0; p < m->nprocs; p++) {
    if (m->procs[p].stage == STP_NO_STAGE)
      continue;
    size_t k = resources_of(model, p, &ct[p], rv);
    for (size_t q = 0; q < k; q++) {
      if (!stp__close(rv[q].value, r->det_period, STP_CRITICAL_RTOL, 0))
        continue;
      if (!(r->critical[r->ncritical] = resource_name(m, &rv[q])))
        return stp__oom(err, "naming resources");
      r->ncritical++;
    }
  }
  return STP_OK;
}

static stp_status copy_components(const stp_component_set *cs, const double *det_rho,
                                  double rho, stp_result *r, stp_error *err) {
  r->components = stp__calloc(cs->n, sizeof *r->components);
  if (!r->components)
    return stp__oom(err, "storing components");
  r->ncomponents = cs->n;
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    stp_component_result *o = &r->components[k];
    *o = (stp_component_result){.kind = c->kind, .stage = c->stage, .index = c->index,
                                .g = c->g, .u = c->u, .v = c->v,
                                .det_throughput = det_rho[k], .exp_throughput = NAN,
                                .law_throughput = NAN,
                                .limits_det = stp__close(det_rho[k], rho, STP_CRITICAL_RTOL, 0)};
    o->senders = stp__malloc_array(c->u, sizeof *o->senders);
    if (!o->senders)
      return stp__oom(err, "storing components");
    memcpy(o->senders, c->snd, c->u * sizeof *c->snd);
    if (c->rcv) {
      o->receivers = stp__malloc_array(c->v, sizeof *o->receivers);
      if (!o->receivers)
        return stp__oom(err, "storing components");
      memcpy(o->receivers, c->rcv, c->v * sizeof *c->rcv);
    }
  }
  return STP_OK;
}

/* The size limits, checked before anything walks the pairs of a component
 * (the cycle-times do: two coprime teams of 50,000 make 2.5e9 pairs). */
static stp_status check_sizes(const stp_mapping *m, stp_model model, const stp_options *o,
                              const stp_component_set *cs, stp_error *err) {
  if (model == STP_MODEL_STRICT)
    return stp__teg_check_size(m, model, o->max_transitions, err);
  for (size_t k = 0; k < cs->n; k++)
    if (cs->c[k].kind != STP_COMPONENT_COMPUTE)
      STP_CHECK(stp__pattern_check_size(m, &cs->c[k], o->max_transitions, err));
  return STP_OK;
}

static stp_status evaluate_det(const stp_mapping *m, stp_model model, const stp_options *o,
                               const stp_component_set *cs, stp_result *r, stp_error *err) {
  stp_cycle_times *ct = NULL;
  double *det_rho = NULL;
  STP_CHECK(check_sizes(m, model, o, cs, err));
  stp_status s = stp__cycle_times(m, cs, &ct, err);
  if (s == STP_OK && model == STP_MODEL_OVERLAP) {
    det_rho = stp__calloc(cs->n, sizeof *det_rho);
    s = det_rho ? stp__det_overlap(m, cs, o, det_rho, &r->det_throughput, err)
                : stp__oom(err, "evaluating components");
  } else if (s == STP_OK) {
    s = stp__det_strict(m, o, &r->det_throughput, err);
  }
  if (s == STP_OK) {
    r->det_period = 1.0 / r->det_throughput;
    s = critical_resources(m, model, ct, r, err);
  }
  if (s == STP_OK && det_rho)
    s = copy_components(cs, det_rho, r->det_throughput, r, err);
  if (s == STP_OK && model == STP_MODEL_STRICT && r->ncritical == 0) { /* what limits it, then */
    stp_error local = {0}; /* a graph beyond the passes only goes without the names */
    s = stp__critical_cycle_resources(m, model, o, &r->cycle_resources, &r->ncycle_resources,
                                      &local);
    if (s == STP_ELIMIT)
      s = STP_OK;
    else if (s != STP_OK && err)
      *err = local;
  }
  free(ct);
  free(det_rho);
  return s;
}

static stp_status result_alloc(const stp_mapping *m, stp_model model, stp_result **out,
                               stp_error *err) {
  stp_result *r = calloc(1, sizeof *r);
  if (!r)
    return stp__oom(err, "allocating a result");
  r->model = model;
  r->nstages = m->nstages;
  r->replication = stp__malloc_array(m->nstages, sizeof *r->replication);
  if (!r->replication) {
    free(r);
    return stp__oom(err, "allocating a result");
  }
  for (size_t i = 0; i < m->nstages; i++)
    r->replication[i] = stp__team_size(m, i);
  if (!stp__mapping_lcm(m, &r->paths))
    r->paths = 0;
  r->exp_throughput = r->exp_period = r->lower = NAN;
  r->exact_law.throughput = r->exact_law.period = NAN;
  *out = r;
  return STP_OK;
}

stp_status stp_evaluate(const stp_mapping *m, stp_model model, const stp_options *opts,
                        stp_result **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_evaluate: out is NULL");
  *out = NULL;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_evaluate: mapping is NULL");
  stp_options defaults;
  if (!opts) {
    stp_options_init(&defaults);
    opts = &defaults;
  }
  double t0 = stp__now();
  stp_result *r = NULL;
  STP_CHECK(result_alloc(m, model, &r, err));
  stp_component_set cs = {0};
  stp_status s = stp__components_build(m, &cs, err);
  if (s == STP_OK)
    s = evaluate_det(m, model, opts, &cs, r, err);
  if (s == STP_OK) {
    r->upper = r->det_throughput;
    s = stp__exp_evaluate(m, model, &cs, opts, r, err);
  }
  if (s == STP_OK)
    s = stp__law_evaluate(m, model, &cs, opts, r, err);
  stp__components_free(&cs);
  if (s != STP_OK) {
    stp_result_free(r);
    return s;
  }
  r->seconds = stp__now() - t0;
  *out = r;
  return STP_OK;
}
