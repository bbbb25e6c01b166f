/* explain.c: the explain members of an evaluation's record and their text
 * (streamtp_explain_report.h; docs/format.md, "Explaining a throughput"):
 * "sensitivity" (ranked), "sensitivity_solve", "utilization", "latency"
 * and "critical_cycle"; and the record of one point of a sweep (kind
 * "sweep") with its text line. */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"
#include "streamtp_explain_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the members ----------------------------------------------------------------------- */
static json_t *slope_json(const stp_slope *s) {
  return json_pack("{s:o,s:o,s:o}", "elasticity", stp__jnum(s->elasticity), "left",
                   stp__jnum(s->left), "right", stp__jnum(s->right));
}

static json_t *sensitivity_json(const stp_sensitivity_result *r, size_t top) {
  json_t *a = json_array();
  size_t n = top && top < r->n ? top : r->n;
  for (size_t k = 0; a && k < n; k++) {
    const stp_sensitivity *it = &r->items[k];
    json_t *o = json_object();
    stp__jset(o, "parameter", json_string(stp_param_kind_name(it->kind)));
    stp__jset(o, "of", stp__jstr(it->of));
    stp__jset(o, "value", stp__jnum(it->value));
    stp__jset(o, "deterministic", slope_json(&it->det));
    if (r->exp_available)
      stp__jset(o, "exponential", slope_json(&it->exp));
    if (r->law_available)
      stp__jset(o, "law", slope_json(&it->law));
    json_array_append_new(a, o);
  }
  return a;
}

static const char *rank_name(stp_rank_by by) {
  return by == STP_RANK_LAW ? "law" : by == STP_RANK_EXP ? "exp" : "det";
}

/* How the values were found: the adjoint solves, or why a value is missing. */
static json_t *solve_json(const stp_sensitivity_result *r) {
  json_t *o = json_object();
  stp__jset(o, "rank_by", json_string(rank_name(r->ranked_by)));
  stp__jset(o, "parameters", stp__ju64(r->n));
  if (r->exp_available)
    stp__jset(o, "exponential",
              json_pack("{s:o,s:o,s:o}", "states", stp__ju64(r->exp_states), "residual",
                        stp__jnum(r->exp_residual), "sweeps", stp__ju64(r->exp_sweeps)));
  else
    stp__jset(o, "exponential_reason", stp__jstr(r->exp_reason));
  if (r->law_available)
    stp__jset(o, "law", json_pack("{s:o}", "residual", stp__jnum(r->law_residual)));
  else if (r->law_reason)
    stp__jset(o, "law_reason", stp__jstr(r->law_reason));
  stp__jset(o, "seconds", stp__jnum(r->seconds));
  return o;
}

/* {"mean", "ci95": [lo, hi]} */
static json_t *mean_ci_json(double mean, double lo, double hi) {
  return json_pack("{s:o,s:[o,o]}", "mean", stp__jnum(mean), "ci95", stp__jnum(lo),
                   stp__jnum(hi));
}

json_t *stp__utilization_json(const stp_utilization *u) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < u->n; k++) {
    const stp_utilization_item *it = &u->items[k];
    json_t *o = json_object();
    stp__jset(o, "resource", stp__jstr(it->resource));
    stp__jset(o, "busy", stp__jnum(it->busy));
    stp__jset(o, "deterministic", stp__jnum(it->det));
    if (isfinite(it->exp))
      stp__jset(o, "exponential", stp__jnum(it->exp));
    if (isfinite(it->law))
      stp__jset(o, "law", stp__jnum(it->law));
    if (isfinite(it->sim))
      stp__jset(o, "simulation", mean_ci_json(it->sim, it->sim_low, it->sim_high));
    stp__jset(o, "saturated", json_boolean(it->saturated));
    json_array_append_new(a, o);
  }
  return a;
}

json_t *stp__utilization_csv(const json_t *rec) {
  const json_t *a = stp__jget(rec, "utilization"), *top = NULL;
  if (!json_is_array(a))
    return NULL;
  size_t saturated = 0;
  for (size_t k = 0; k < json_array_size(a); k++) {
    const json_t *it = json_array_get(a, k);
    if (!top || stp__jgetd(it, "busy") > stp__jgetd(top, "busy"))
      top = it;
    saturated += json_is_true(stp__jget(it, "saturated"));
  }
  json_t *o = json_object();
  if (top)
    stp__jset(o, "utilization_max", json_incref((json_t *)top));
  stp__jset(o, "utilization_saturated", stp__ju64(saturated));
  return o;
}

static json_t *sim_latency_json(const stp_sim_latency *l) {
  json_t *o = mean_ci_json(l->mean, l->ci_low, l->ci_high);
  stp__jset(o, "quantiles", json_pack("{s:o,s:o,s:o}", "0.5", stp__jnum(l->q50), "0.9",
                                      stp__jnum(l->q90), "0.99", stp__jnum(l->q99)));
  stp__jset(o, "source", json_string("throttled"));
  stp__jset(o, "rate", stp__jnum(l->rate));
  stp__jset(o, "rate_from", json_string(l->rate_given ? "given" : "0.95 x simulated throughput"));
  stp__jset(o, "throughput", stp__jnum(l->throughput));
  stp__jset(o, "datasets", stp__ju64(l->datasets));
  return o;
}

json_t *stp__latency_json(const stp_latency_result *l, const stp_sim_latency *sim) {
  json_t *d = json_object();
  stp__jset(d, "max", stp__jnum(l->max));
  stp__jset(d, "mean", stp__jnum(l->mean));
  stp__jset(d, "exact", json_boolean(l->max_exact));
  if (!l->max_exact)
    stp__jset(d, "max_bounds", json_pack("[o,o]", stp__jnum(l->max_lower), stp__jnum(l->max_upper)));
  if (l->has_argmax)
    stp__jset(d, "max_path", stp__ju64(l->argmax));
  json_t *paths = json_array();
  for (size_t j = 0; paths && j < l->nlisted; j++)
    json_array_append_new(paths, json_pack("{s:o,s:o}", "path", stp__ju64(j), "latency",
                                           stp__jnum(l->path[j])));
  stp__jset(d, "paths", paths);
  json_t *o = json_pack("{s:o}", "deterministic", d);
  if (o && sim)
    stp__jset(o, "simulation", sim_latency_json(sim));
  return o;
}

static json_t *critical_cycle_json(const stp_critical_cycle *c) {
  return json_pack("{s:o,s:o,s:o}", "resources", stp__jstrs(c->resources, c->nresources),
                   "transitions", stp__jstrs(c->transitions, c->ntransitions), "tokens",
                   stp__ju64(c->cycle_tokens));
}

stp_status stp_record_add_explain(stp_record *rec, const stp_explain_members *x,
                                  stp_error *err) {
  if (!rec || !x || strcmp(stp_record_kind(rec), "eval") != 0)
    return stp__fail(err, STP_EINVAL, "stp_record_add_explain: an eval record and members");
  json_t *o = rec->obj;
  /* before "seconds", "status" and "error", which end a record */
  json_t *tail = json_object();
  static const char *const last[] = {"seconds", "status", "error"};
  for (int k = 0; tail && k < 3; k++) {
    json_t *v = json_object_get(o, last[k]);
    if (v) {
      json_object_set(tail, last[k], v);
      json_object_del(o, last[k]);
    }
  }
  if (x->critical_cycle)
    stp__jset(o, "critical_cycle", critical_cycle_json(x->critical_cycle));
  if (x->sensitivity) {
    stp__jset(o, "sensitivity", sensitivity_json(x->sensitivity, x->top));
    stp__jset(o, "sensitivity_solve", solve_json(x->sensitivity));
  }
  if (x->utilization)
    stp__jset(o, "utilization", stp__utilization_json(x->utilization));
  if (x->latency)
    stp__jset(o, "latency", stp__latency_json(x->latency, NULL));
  if (!tail)
    return stp__oom(err, "a record");
  json_object_update(o, tail);
  json_decref(tail);
  return STP_OK;
}

/* ---- their text ------------------------------------------------------------------------- */
static void slope_cell(FILE *f, const json_t *s) {
  if (!s) {
    fprintf(f, " %9s", "-");
    return;
  }
  double e = stp__jgetd(s, "elasticity"), l = stp__jgetd(s, "left");
  stp__fprintf(f, " %+9.4f", e);
  if (!stp__close(e, l, 1e-9, 1e-12))
    stp__fprintf(f, " (%+.4f below)", l);
}

static void sensitivity_text(FILE *f, const json_t *rec) {
  const json_t *a = stp__jget(rec, "sensitivity"), *solve = stp__jget(rec, "sensitivity_solve");
  fprintf(f, "  sensitivity     elasticities (%% of throughput per %% of the parameter), by %s\n",
          stp__jgets(solve, "rank_by"));
  size_t width = 9;
  for (size_t k = 0; k < json_array_size(a); k++) {
    const json_t *it = json_array_get(a, k);
    size_t w = strlen(stp__jgets(it, "parameter")) + 1 + strlen(stp__jgets(it, "of"));
    width = w > width ? w : width;
  }
  fprintf(f, "    %-*s %9s %9s %9s\n", (int)width, "parameter", "det", "exp", "law");
  for (size_t k = 0; k < json_array_size(a); k++) {
    const json_t *it = json_array_get(a, k);
    char name[512];
    snprintf(name, sizeof name, "%s %s", stp__jgets(it, "parameter"), stp__jgets(it, "of"));
    fprintf(f, "    %-*s", (int)width, name);
    slope_cell(f, stp__jget(it, "deterministic"));
    slope_cell(f, stp__jget(it, "exponential"));
    slope_cell(f, stp__jget(it, "law"));
    fputc('\n', f);
  }
  const json_t *first = json_array_get(a, 0);
  if (first && isfinite(stp__jgetd(first, "deterministic.elasticity"))) {
    stp__fprintf(f, "    first order: %s %s +10 %%: %+.3g %% det", stp__jgets(first, "parameter"),
                 stp__jgets(first, "of"), 10 * stp__jgetd(first, "deterministic.elasticity"));
    if (stp__jget(first, "exponential"))
      stp__fprintf(f, ", %+.3g %% exp", 10 * stp__jgetd(first, "exponential.elasticity"));
    if (stp__jget(first, "law"))
      stp__fprintf(f, ", %+.3g %% law", 10 * stp__jgetd(first, "law.elasticity"));
    fputc('\n', f);
  }
  if (stp__jgets(solve, "exponential_reason"))
    fprintf(f, "    exp not computed: %s\n", stp__jgets(solve, "exponential_reason"));
  else
    stp__fprintf(f, "    exp from one adjoint solve per chain (largest %llu states, residual %.1e)\n",
                 (unsigned long long)stp__jgetu(solve, "exponential.states"),
                 stp__jgetd(solve, "exponential.residual"));
  if (stp__jgets(solve, "law_reason"))
    fprintf(f, "    law not computed: %s\n", stp__jgets(solve, "law_reason"));
}

/* The simulated busy fraction "0.8123 [0.8101, 0.8145]", when there is one. */
static void sim_cell(FILE *f, const json_t *sim) {
  const json_t *ci = stp__jget(sim, "ci95");
  stp__fprintf(f, "  %9.4f [%.4f, %.4f]", stp__jgetd(sim, "mean"),
               json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
}

void stp__utilization_text(FILE *f, const json_t *a) {
  bool simulated = stp__jget(json_array_get(a, 0), "simulation") != NULL;
  fputs("  utilization     busy fraction in the long run\n", f);
  fprintf(f, "    %-14s %9s %9s %9s", "resource", "det", "exp", "law");
  fputs(simulated ? "  simulation (95% CI)\n" : "\n", f);
  for (size_t k = 0; k < json_array_size(a); k++) {
    const json_t *it = json_array_get(a, k);
    fprintf(f, "    %-14s", stp__jgets(it, "resource"));
    static const char *const keys[] = {"deterministic", "exponential", "law"};
    for (int j = 0; j < 3; j++) {
      double v = stp__jgetd(it, keys[j]);
      if (isfinite(v))
        stp__fprintf(f, " %9.4f", v);
      else
        fprintf(f, " %9s", "-");
    }
    if (stp__jget(it, "simulation"))
      sim_cell(f, stp__jget(it, "simulation"));
    fputs(json_is_true(stp__jget(it, "saturated")) ? "  saturated\n" : "\n", f);
  }
}

static void sim_latency_text(FILE *f, const json_t *s) {
  const json_t *ci = stp__jget(s, "ci95"), *q = stp__jget(s, "quantiles");
  stp__fprintf(f, "  latency (sim)   mean %.8g, 95%% CI [%.8g, %.8g]; quantiles 0.5 %.8g, "
                  "0.9 %.8g, 0.99 %.8g\n",
               stp__jgetd(s, "mean"), json_number_value(json_array_get(ci, 0)),
               json_number_value(json_array_get(ci, 1)), json_number_value(json_object_get(q, "0.5")),
               json_number_value(json_object_get(q, "0.9")),
               json_number_value(json_object_get(q, "0.99")));
  stp__fprintf(f, "                  source throttled to %.8g data sets per time unit (%s), "
                  "%llu data sets\n",
               stp__jgetd(s, "rate"), stp__jgets(s, "rate_from"),
               (unsigned long long)stp__jgetu(s, "datasets"));
}

void stp__latency_text(FILE *f, const json_t *l) {
  const json_t *d = stp__jget(l, "deterministic");
  if (json_is_true(stp__jget(d, "exact")))
    stp__fprintf(f, "  latency         max %.8g", stp__jgetd(d, "max"));
  else
    stp__fprintf(f, "  latency         max in [%.8g, %.8g] (too many residues to be exact)",
                 json_real_value(json_array_get(stp__jget(d, "max_bounds"), 0)),
                 json_real_value(json_array_get(stp__jget(d, "max_bounds"), 1)));
  if (stp__jget(d, "max_path"))
    fprintf(f, " (path %llu)", (unsigned long long)stp__jgetu(d, "max_path"));
  stp__fprintf(f, ", mean %.8g over the paths, one data set alone\n", stp__jgetd(d, "mean"));
  if (stp__jget(l, "simulation"))
    sim_latency_text(f, stp__jget(l, "simulation"));
}

static void critical_cycle_text(FILE *f, const json_t *c) {
  const json_t *r = stp__jget(c, "resources");
  fputs("  critical cycle  ", f);
  for (size_t k = 0; k < json_array_size(r); k++)
    fprintf(f, "%s%s", k ? ", " : "", json_string_value(json_array_get(r, k)));
  uint64_t tokens = stp__jgetu(c, "tokens");
  fprintf(f, " (a cycle of %zu transitions and %llu token%s)\n",
          json_array_size(stp__jget(c, "transitions")), (unsigned long long)tokens,
          tokens == 1 ? "" : "s");
}

void stp__text_explain(FILE *f, const json_t *rec) {
  if (stp__jget(rec, "critical_cycle"))
    critical_cycle_text(f, stp__jget(rec, "critical_cycle"));
  if (stp__jget(rec, "sensitivity"))
    sensitivity_text(f, rec);
  if (stp__jget(rec, "utilization"))
    stp__utilization_text(f, stp__jget(rec, "utilization"));
  if (stp__jget(rec, "latency"))
    stp__latency_text(f, stp__jget(rec, "latency"));
}

/* ---- a point of a sweep ------------------------------------------------------------------ */
stp_status stp_sweep_point_json(const stp_mapping *m, const stp_vary *const *vary, size_t nvary,
                                const stp_sweep_point *p, stp_record **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_sweep_point_json: out is NULL");
  *out = NULL;
  if (!m || !p || !p->result)
    return stp__fail(err, STP_EINVAL, "stp_sweep_point_json: a mapping and an evaluated point");
  stp_record *ev;
  STP_CHECK(stp_result_json(m, p->result, &ev, err));
  json_t *o = json_object(), *v = json_object();
  stp__jset(o, "file", json_incref(json_object_get(ev->obj, "file")));
  stp__jset(o, "name", json_incref(json_object_get(ev->obj, "name")));
  stp__jset(o, "model", json_incref(json_object_get(ev->obj, "model")));
  for (size_t j = 0; j < nvary; j++)
    stp__jset(v, vary[j]->label, stp__jnum(p->vary[j]));
  stp__jset(o, "vary", v);
  static const char *const keys[] = {"deterministic", "exponential", "exact_law", "bounds"};
  for (int k = 0; k < 4; k++) {
    json_t *x = json_object_get(ev->obj, keys[k]);
    if (x)
      stp__jset(o, keys[k], json_incref(x));
  }
  stp__jset(o, "critical", stp__jstr(p->critical));
  if (p->sim)
    stp__jset(o, "simulation",
              json_pack("{s:o,s:o,s:[o,o]}", "throughput", stp__jnum(p->sim->throughput),
                        "period", stp__jnum(p->sim->period), "ci95", stp__jnum(p->sim->ci_low),
                        stp__jnum(p->sim->ci_high)));
  stp_record_free(ev);
  stp__record_status(o, STP_OK, NULL);
  return stp__record_new("sweep", o, out, err);
}

void stp__text_sweep(FILE *f, const json_t *rec, size_t index) {
  if (index == 0)
    fprintf(f, "%s: %s, %s model\n", stp__jgets(rec, "file"), stp__jgets(rec, "name"),
            stp__jgets(rec, "model"));
  const json_t *v = stp__jget(rec, "vary");
  const char *key;
  json_t *val;
  fputs(" ", f);
  json_object_foreach((json_t *)v, key, val) stp__fprintf(f, " %s=%.6g", key, json_real_value(val));
  stp__fprintf(f, "  det %.8g", stp__jgetd(rec, "deterministic.throughput"));
  double e = stp__jgetd(rec, "exponential.throughput");
  if (isfinite(e))
    stp__fprintf(f, "  exp %.8g", e);
  double l = stp__jgetd(rec, "exact_law.throughput");
  if (isfinite(l))
    stp__fprintf(f, "  law %.8g", l);
  double s = stp__jgetd(rec, "simulation.throughput");
  const json_t *ci = stp__jget(rec, "simulation.ci95");
  if (isfinite(s))
    stp__fprintf(f, "  sim %.8g [%.8g, %.8g]", s, json_real_value(json_array_get(ci, 0)),
                 json_real_value(json_array_get(ci, 1)));
  fprintf(f, "  critical %s\n", stp__jgets(rec, "critical") ? stp__jgets(rec, "critical") : "none");
}

/* The CLI puts a column "vary.LABEL" per varied quantity after "model". */
const char *const stp__sweep_csv[] = {"file", "model", "deterministic.throughput",
                                      "exponential.throughput", "exact_law.throughput",
                                      "bounds.lower", "bounds.upper", "simulation.throughput",
                                      "critical", NULL};
