/* pipeline.c: the record of an evaluation (streamtp eval, batch rows) and
 * its text report: the objects "deterministic", "exponential", "bounds",
 * "exact_law" and "components" of docs/format.md. */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"
#include "streamtp_explain_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the record ------------------------------------------------------------------ */
static json_t *names(const stp_mapping *m, const size_t *procs, size_t n) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < n; k++)
    json_array_append_new(a, stp__jstr(stp_mapping_processor_name(m, procs[k])));
  return a;
}

json_t *stp__record_head(const char *file, const stp_mapping *m, const char *model) {
  json_t *o = json_object();
  if (!o)
    return NULL;
  stp__jset(o, "file", stp__jstr(file));
  stp__jset(o, "name", m ? stp__jstr(stp_mapping_name(m)) : json_null());
  stp__jset(o, "model", model ? json_string(model) : json_null());
  if (!m)
    return o;
  json_t *rep = json_array();
  for (size_t i = 0; rep && i < stp_mapping_stage_count(m); i++)
    json_array_append_new(rep, stp__ju64(stp_mapping_team_size(m, i)));
  stp__jset(o, "replication", rep);
  uint64_t paths;
  stp__jset(o, "paths", stp_mapping_paths(m, &paths, NULL) == STP_OK ? stp__ju64(paths)
                                                                      : json_null());
  return o;
}

/* The components attain the law's value at the smallest law bound (the
 * value is the minimum over the components, as det and exp). */
static bool limits_law(const stp_result *r, const stp_component_result *c) {
  double low = INFINITY;
  for (size_t k = 0; k < r->ncomponents; k++)
    if (r->components[k].law_throughput < low)
      low = r->components[k].law_throughput;
  return isfinite(low) && c->law_throughput <= low * (1 + 1e-12);
}

static json_t *component_json(const stp_mapping *m, const stp_result *r,
                              const stp_component_result *c, bool law) {
  bool transfer = c->kind == STP_COMPONENT_TRANSFER;
  json_t *o = json_object();
  stp__jset(o, "kind", json_string(transfer ? "transfer" : "computation"));
  stp__jset(o, "stage", stp__jstr(stp_mapping_stage_name(m, c->stage)));
  stp__jset(o, "index", stp__ju64(c->index));
  stp__jset(o, "g", stp__ju64(c->g));
  stp__jset(o, "u", stp__ju64(c->u));
  stp__jset(o, "v", stp__ju64(c->v));
  json_t *procs = names(m, c->senders, c->u);
  if (transfer) {
    json_t *rcv = names(m, c->receivers, c->v);
    if (procs && rcv)
      json_array_extend(procs, rcv); /* increments references: rcv is still ours */
    stp__jset(o, "senders", names(m, c->senders, c->u));
    stp__jset(o, "receivers", rcv);
  }
  stp__jset(o, "processors", procs);
  stp__jset(o, "states", stp__ju64(c->states));
  stp__jset(o, "residual", stp__jnum(c->residual));
  stp__jset(o, "deterministic", stp__jnum(c->det_throughput));
  stp__jset(o, "exponential", stp__jnum(c->exp_throughput));
  stp__jset(o, "method", c->exp_method ? json_string(c->exp_method) : json_null());
  json_t *limits = json_pack("{s:b,s:b}", "deterministic", c->limits_det, "exponential",
                              c->limits_exp);
  if (law)
    stp__jset(limits, "exact_law", json_boolean(limits_law(r, c)));
  stp__jset(o, "limits", limits);
  if (law)
    stp__jset(o, "exact_law", stp__jnum(c->law_throughput));
  return o;
}

json_t *stp__fit_json(const stp_law_fit *fit) {
  return json_pack("{s:o,s:o,s:o,s:o,s:[o,o],s:[o,o,o],s:[o,o,o],s:o,s:o}", "samples",
                   stp__ju64(fit->samples), "order", stp__ju64(fit->order), "phases",
                   stp__ju64(fit->phases), "p", stp__jnum(fit->p), "rates",
                   stp__jnum(fit->rate[0]), stp__jnum(fit->rate[1]), "sample_moments",
                   stp__jnum(fit->sample_moments[0]), stp__jnum(fit->sample_moments[1]),
                   stp__jnum(fit->sample_moments[2]), "law_moments",
                   stp__jnum(fit->law_moments[0]), stp__jnum(fit->law_moments[1]),
                   stp__jnum(fit->law_moments[2]), "moment_error",
                   stp__jnum(fit->moment_error), "ks", stp__jnum(fit->ks));
}

/* A throughput from a Markov chain ("exponential", "exact_law"): the value,
 * its period and chain, or null and the reason. */
typedef struct chain_fields {
  int available;
  double throughput, period;
  const char *method;
  uint64_t states;
  double residual;
  const char *solver;
  size_t sweeps;
  const char *reason;
  const char *solver_reason;
} chain_fields;

static void chain_value(json_t *o, const chain_fields *f) {
  stp__jset(o, "throughput", stp__jnum(f->available ? f->throughput : NAN));
  if (!f->available) {
    stp__jset(o, "reason", stp__jstr(f->reason ? f->reason : "unknown"));
    return;
  }
  stp__jset(o, "period", stp__jnum(f->period));
  stp__jset(o, "method", stp__jstr(f->method));
  stp__jset(o, "states", stp__ju64(f->states));
  stp__jset(o, "residual", stp__jnum(f->residual));
  if (f->solver) {
    stp__jset(o, "solver", json_string(f->solver));
    stp__jset(o, "sweeps", stp__ju64(f->sweeps));
    if (f->solver_reason)
      stp__jset(o, "solver_reason", json_string(f->solver_reason));
  }
}

/* Some column has another law than the default. */
static bool mixed_laws(const stp_law_result *lr) {
  for (size_t c = 0; c < lr->ncolumns; c++)
    if (strcmp(lr->column_law[c], lr->law) != 0)
      return true;
  return false;
}

/* "exact_law": the value and its chain as "exponential"'s, or null and the
 * reason; the columns' laws when the file sets some; a fit's quality. */
static json_t *law_json(const stp_mapping *m, const stp_result *r) {
  const stp_law_result *lr = &r->exact_law;
  json_t *o = json_object();
  stp__jset(o, "law", stp__jstr(lr->law));
  chain_value(o, &(chain_fields){lr->available, lr->throughput, lr->period, lr->method,
                                 lr->states, lr->residual, lr->solver, lr->sweeps, lr->reason,
                                 lr->solver_reason});
  if (lr->available) /* the N.B.U.E. bounds hold for N.B.U.E. laws only */
    stp__jset(o, "position", json_string(stp_interval_position(
                                 lr->throughput, lr->throughput,
                                 r->exp_available ? r->lower : NAN, r->upper)));
  if (mixed_laws(lr))
    stp__jset(o, "laws", stp__laws_json(m, lr->column_law, lr->ncolumns));
  if (lr->fitted)
    stp__jset(o, "fit", stp__fit_json(&lr->fit));
  return o;
}

json_t *stp__result_object(const stp_mapping *m, const stp_result *r, bool components) {
  json_t *o = stp__record_head(stp_mapping_file(m), m, stp_model_name(r->model));
  if (!o)
    return NULL;
  json_t *det = json_object();
  stp__jset(det, "throughput", stp__jnum(r->det_throughput));
  stp__jset(det, "period", stp__jnum(r->det_period));
  stp__jset(det, "max_cycle_time", stp__jnum(r->max_cycle_time));
  stp__jset(det, "critical_resource", r->ncritical ? stp__jstr(r->critical[0]) : json_null());
  stp__jset(det, "critical_resources", stp__jstrs(r->critical, r->ncritical));
  stp__jset(det, "max_cycle_time_resource", stp__jstr(r->mct_resource));
  if (r->ncycle_resources)
    stp__jset(det, "critical_cycle_resources",
              stp__jstrs(r->cycle_resources, r->ncycle_resources));
  stp__jset(o, "deterministic", det);
  json_t *ex = json_object();
  chain_value(ex, &(chain_fields){r->exp_available, r->exp_throughput, r->exp_period,
                                  r->exp_method, r->exp_states, r->exp_residual, r->exp_solver,
                                  r->exp_sweeps, r->exp_reason, r->exp_solver_reason});
  stp__jset(o, "exponential", ex);
  stp__jset(o, "bounds", json_pack("{s:o,s:o}", "lower",
                                   stp__jnum(r->exp_available ? r->lower : NAN), "upper",
                                   stp__jnum(r->upper)));
  if (r->exact_law.asked)
    stp__jset(o, "exact_law", law_json(m, r));
  if (components && r->ncomponents) {
    json_t *cs = json_array();
    for (size_t k = 0; cs && k < r->ncomponents; k++)
      json_array_append_new(cs, component_json(m, r, &r->components[k], r->exact_law.asked));
    stp__jset(o, "components", cs);
  }
  stp__jset(o, "seconds", stp__jnum(r->seconds));
  return o;
}

stp_status stp_result_json(const stp_mapping *m, const stp_result *r, stp_record **out,
                           stp_error *err) {
  json_t *o = stp__result_object(m, r, true);
  if (o)
    stp__record_status(o, STP_OK, NULL);
  return stp__record_new("eval", o, out, err);
}

/* A row of a Monte Carlo batch: the record of `simulate --json`, or the
 * failure of its input (kind "simulate"). */
static stp_status sim_row_json(const stp_batch_row *row, stp_record **out, stp_error *err) {
  if (row->sim)
    return stp_sim_result_json(row->mapping, row->sim, out, err);
  json_t *o = stp__record_head(row->path, row->mapping,
                               row->model_known ? stp_model_name(row->model) : NULL);
  if (o) {
    stp__jset(o, "seconds", stp__jnum(row->seconds));
    stp__record_status(o, row->status, row->message);
  }
  return stp__record_new("simulate", o, out, err);
}

stp_status stp_batch_row_json(const stp_batch_row *row, stp_record **out, stp_error *err) {
  if (row->simulated)
    return sim_row_json(row, out, err);
  const char *model = row->model_known ? stp_model_name(row->model) : NULL;
  json_t *o = row->result ? stp__result_object(row->mapping, row->result, false)
                          : stp__record_head(row->path, row->mapping, model);
  if (o) {
    stp__jset(o, "seconds", stp__jnum(row->seconds));
    stp__record_status(o, row->status, row->message);
  }
  STP_CHECK(stp__record_new("eval", o, out, err));
  stp_explain_members x = {.sensitivity = row->sensitivity, .top = row->top,
                           .utilization = row->utilization, .latency = row->latency};
  if (!row->result || (!x.sensitivity && !x.utilization && !x.latency))
    return STP_OK;
  stp_status s = stp_record_add_explain(*out, &x, err);
  if (s != STP_OK) {
    stp_record_free(*out);
    *out = NULL;
  }
  return s;
}

stp_status stp_batch_summary_json(const stp_batch_summary *s, stp_record **out, stp_error *err) {
  json_t *o = json_object();
  stp__jset(o, "inputs", stp__ju64(s->inputs));
  stp__jset(o, "inputs_done", stp__ju64(s->inputs_done));
  stp__jset(o, "rows", stp__ju64(s->rows));
  stp__jset(o, "failed_rows", stp__ju64(s->failed_rows));
  stp__jset(o, "input_errors", stp__ju64(s->input_errors));
  stp__jset(o, "internal_errors", stp__ju64(s->internal_errors));
  stp__jset(o, "interrupted", json_boolean(s->interrupted));
  stp__jset(o, "seconds", stp__jnum(s->seconds));
  stp__record_status(o, s->interrupted ? STP_EINTERRUPTED : STP_OK, NULL);
  return stp__record_new("batch-summary", o, out, err);
}

/* The CSV columns of eval and batch: JSON paths. */
const char *const stp__eval_csv[] = {
    "file", "name", "model", "replication", "paths",
    "deterministic.throughput", "deterministic.period", "deterministic.max_cycle_time",
    "deterministic.max_cycle_time_resource", "deterministic.critical_resource",
    "exponential.throughput", "exponential.period", "exponential.method", "exponential.states",
    "exponential.solver", "exponential.sweeps", "exponential.residual", "exponential.reason",
    "bounds.lower", "bounds.upper", "exact_law.law", "exact_law.throughput",
    "exact_law.period", "exact_law.method", "exact_law.states", "exact_law.solver",
    "exact_law.sweeps", "exact_law.residual", "exact_law.reason", "seconds", "status", "error",
    NULL};

/* The columns of eval (kind 0) or simulate (1) before "seconds": where
 * the batch's own columns go. */
static size_t base_columns(int kind, const char **out, size_t cap) {
  const char *const *cols = kind ? stp__sim_csv : stp__eval_csv;
  size_t n = 0;
  for (size_t k = 0; cols[k] && strcmp(cols[k], "seconds") != 0; k++, n++)
    if (n < cap)
      out[n] = cols[k];
  return n;
}

static size_t add_columns(const char *const *cols, const char **out, size_t n, size_t cap) {
  for (size_t k = 0; cols[k]; k++, n++)
    if (n < cap)
      out[n] = cols[k];
  return n;
}

size_t stp_batch_csv_columns(const stp_batch_config *cfg, const char **out, size_t cap) {
  static const char *const sens[] = {
      "sensitivity.0.parameter", "sensitivity.0.of", "sensitivity.0.value",
      "sensitivity.0.deterministic.elasticity", "sensitivity.0.deterministic.left",
      "sensitivity.0.exponential.elasticity", "sensitivity.0.law.elasticity",
      "sensitivity_solve.rank_by", NULL};
  static const char *const util[] = {
      "utilization_max.resource", "utilization_max.busy", "utilization_max.deterministic",
      "utilization_max.exponential", "utilization_max.law", NULL};
  static const char *const util_sim[] = {"utilization_max.simulation.mean",
                                         "utilization_max.simulation.ci95", NULL};
  static const char *const saturated[] = {"utilization_saturated", NULL};
  static const char *const lat[] = {"latency.deterministic.max", "latency.deterministic.mean",
                                    NULL};
  static const char *const lat_sim[] = {"latency.simulation.mean", "latency.simulation.ci95",
                                        "latency.simulation.rate", NULL};
  static const char *const tail[] = {"seconds", "status", "error", NULL};
  if (!out)
    cap = 0;
  else if (cap)
    cap--; /* room for the NULL */
  bool sim = cfg && cfg->simulate;
  size_t n = base_columns(sim, out, cap);
  if (cfg && cfg->sensitivity && !sim)
    n = add_columns(sens, out, n, cap);
  if (cfg && (sim ? cfg->simulate->utilization : cfg->utilization)) {
    n = add_columns(util, out, n, cap);
    if (sim)
      n = add_columns(util_sim, out, n, cap);
    n = add_columns(saturated, out, n, cap);
  }
  if (cfg && (sim ? cfg->simulate->latency : cfg->latency)) {
    n = add_columns(lat, out, n, cap);
    if (sim)
      n = add_columns(lat_sim, out, n, cap);
  }
  n = add_columns(tail, out, n, cap);
  if (out)
    out[n < cap ? n : cap] = NULL;
  return n;
}

/* ---- the text report -------------------------------------------------------------- */
static void names_text(FILE *f, const json_t *procs, size_t n, size_t max) {
  for (size_t k = 0; k < n && k < max; k++)
    fprintf(f, "%s%s", k ? " " : "", json_string_value(json_array_get(procs, k)));
  if (n > max)
    fprintf(f, " ... (%zu)", n);
}

#define TABLE_MAX_ROWS 40

static bool limits_any(const json_t *c) {
  return json_is_true(stp__jget(c, "limits.deterministic")) ||
         json_is_true(stp__jget(c, "limits.exponential")) ||
         json_is_true(stp__jget(c, "limits.exact_law"));
}

/* A component's name ("T2", "T2->T3") and processors ("P1 P2 -> P3 P4"),
 * whole: the table's columns widen to the longest.  Components come in
 * column order, so the stage a transfer feeds is that of the next
 * computation component. */
static char *component_name(const json_t *cs, size_t k) {
  const json_t *c = json_array_get(cs, k);
  const char *stage = stp__jgets(c, "stage"), *next = "?";
  if (strcmp(stp__jgets(c, "kind"), "transfer") != 0)
    return stp__strdup(stage);
  for (size_t j = k + 1; j < json_array_size(cs); j++)
    if (strcmp(stp__jgets(json_array_get(cs, j), "kind"), "computation") == 0) {
      next = stp__jgets(json_array_get(cs, j), "stage");
      break;
    }
  return stp__asprintf("%s->%s", stage, next);
}

static char *component_procs(const json_t *c) {
  char *out = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&out, &len);
  if (!mem)
    return NULL;
  bool transfer = strcmp(stp__jgets(c, "kind"), "transfer") == 0;
  const json_t *snd = transfer ? stp__jget(c, "senders") : stp__jget(c, "processors");
  names_text(mem, snd, json_array_size(snd), 4);
  if (transfer) {
    const json_t *rcv = stp__jget(c, "receivers");
    fputs(" -> ", mem);
    names_text(mem, rcv, json_array_size(rcv), 4);
  }
  fclose(mem);
  return out;
}

static void component_row(FILE *f, const json_t *c, size_t index, const char *name,
                          const char *procs, int wname, int wprocs, bool law) {
  bool d = json_is_true(stp__jget(c, "limits.deterministic"));
  bool e = json_is_true(stp__jget(c, "limits.exponential"));
  bool l = json_is_true(stp__jget(c, "limits.exact_law"));
  char mark[8], uv[48], expv[32] = "-", lawv[32] = "";
  snprintf(mark, sizeof mark, "%s%s%s%s", d || e || l ? "*" : "", d ? "d" : "", e ? "e" : "",
           l ? "l" : "");
  snprintf(uv, sizeof uv, "%llux%llu", (unsigned long long)stp__jgetu(c, "u"),
           (unsigned long long)stp__jgetu(c, "v"));
  double x = stp__jgetd(c, "exponential"), lv = stp__jgetd(c, "exact_law");
  if (isfinite(x))
    stp__snprintf(expv, sizeof expv, "%.6g", x);
  if (law && isfinite(lv))
    stp__snprintf(lawv, sizeof lawv, " %13.6g", lv);
  else if (law)
    snprintf(lawv, sizeof lawv, " %13s", "-");
  stp__fprintf(f, "  %-4s %3zu %-*s %-*s %7s %5llu %13.6g %13s%s %llu\n", mark, index, wname,
               name ? name : "?", wprocs, procs ? procs : "?", uv,
               (unsigned long long)stp__jgetu(c, "g"), stp__jgetd(c, "deterministic"), expv,
               lawv, (unsigned long long)stp__jgetu(c, "states"));
}

static void component_table(FILE *f, const json_t *cs, bool law) {
  size_t n = json_array_size(cs), rows = 0, hidden = 0, wname = 12, wprocs = 30;
  char **name = calloc(n ? n : 1, sizeof *name), **procs = calloc(n ? n : 1, sizeof *procs);
  bool *show = calloc(n ? n : 1, sizeof *show);
  if (!name || !procs || !show) {
    free(name);
    free(procs);
    free(show);
    fputs("\n  (no memory left for the component table)\n", f);
    return;
  }
  for (size_t k = 0; k < n; k++) {
    const json_t *c = json_array_get(cs, k);
    if (!(show[k] = limits_any(c) || rows < TABLE_MAX_ROWS)) {
      hidden++;
      continue;
    }
    rows++;
    name[k] = component_name(cs, k);
    procs[k] = component_procs(c);
    if (name[k] && strlen(name[k]) > wname)
      wname = strlen(name[k]);
    if (procs[k] && strlen(procs[k]) > wprocs)
      wprocs = strlen(procs[k]);
  }
  fprintf(f, "\n  %-4s %3s %-*s %-*s %7s %5s %13s %13s%s %s\n", "", "#", (int)wname, "component",
          (int)wprocs, "processors", "u x v", "g", "det bound", "exp bound",
          law ? "     law bound" : "", "states");
  for (size_t k = 0; k < n; k++) {
    if (!show[k])
      continue;
    component_row(f, json_array_get(cs, k), k, name[k], procs[k], (int)wname, (int)wprocs, law);
    free(name[k]);
    free(procs[k]);
  }
  free(name);
  free(procs);
  free(show);
  if (hidden)
    fprintf(f, "  ... %zu more components (--json lists them all)\n", hidden);
  fprintf(f, "  (*d limits the deterministic throughput, *e the exponential one%s; # is the\n"
             "  component's number, as `ctmc --component` takes it)\n",
          law ? ", *l the law's" : "");
}

/* "(method, largest chain N states, residual R" of a chain's value. */
static void chain_text(FILE *f, const json_t *v) {
  stp__fprintf(f, "throughput %-14.8g period %.8g (%s", stp__jgetd(v, "throughput"),
               stp__jgetd(v, "period"), stp__jgets(v, "method"));
  if (stp__jgetu(v, "states"))
    stp__fprintf(f, ", largest chain %llu states, residual %.1e",
                 (unsigned long long)stp__jgetu(v, "states"), stp__jgetd(v, "residual"));
}

void stp__laws_text(FILE *f, const char *label, const json_t *laws) {
  const json_t *st = stp__jget(laws, "stages"), *tr = stp__jget(laws, "transfers");
  const char *key;
  json_t *val;
  size_t c = 0;
  fputs(label, f);
  json_object_foreach((json_t *)st, key, val) {
    fprintf(f, "%s%s %s", c++ ? ", " : "", key, json_string_value(val));
    if (json_object_get(tr, key))
      fprintf(f, ", %s out %s", key, stp__jgets(tr, key));
  }
  fputc('\n', f);
}

bool stp__laws_mixed(const json_t *laws, const char *law) {
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)stp__jget(laws, "stages"), key, val)
    if (strcmp(json_string_value(val), law) != 0)
      return true;
  json_object_foreach((json_t *)stp__jget(laws, "transfers"), key, val)
    if (strcmp(json_string_value(val), law) != 0)
      return true;
  return false;
}

json_t *stp__laws_json(const stp_mapping *m, char *const *column_law, size_t ncolumns) {
  json_t *stages = json_object(), *transfers = json_object();
  for (size_t c = 0; c < ncolumns; c++)
    stp__jset(c % 2 ? transfers : stages, stp_mapping_stage_name(m, c / 2),
              stp__jstr(column_law[c]));
  return json_pack("{s:o,s:o}", "stages", stages, "transfers", transfers);
}

/* The exact value under a phase-type law: "law SPEC" in the label column
 * (on its own line when the spec is longer), the value as the exponential
 * one's; the columns' laws when the file sets some; a fit's quality. */
static void law_text(FILE *f, const json_t *lr) {
  const char *law = stp__jgets(lr, "law"), *where = stp__jgets(lr, "position");
  /* a file whose columns have laws of their own: its laws, listed below */
  bool file = stp__jget(lr, "laws") != NULL;
  if (file)
    fprintf(f, "  %-16s", "law of the file");
  else if (strlen(law) + 4 >= 16) /* the value on the next line */
    fprintf(f, "  law %s\n  %-16s", law, "");
  else
    fprintf(f, "  law %-12s", law);
  if (json_is_null(stp__jget(lr, "throughput"))) {
    fprintf(f, "not computed: %s\n", stp__jgets(lr, "reason"));
  } else {
    chain_text(f, lr);
    if (stp__jgets(lr, "solver"))
      fprintf(f, ", %s", stp__jgets(lr, "solver"));
    if (stp__jgets(lr, "solver") && stp__jgetu(lr, "sweeps"))
      fprintf(f, ", %llu sweep%s", (unsigned long long)stp__jgetu(lr, "sweeps"),
              stp__jgetu(lr, "sweeps") == 1 ? "" : "s");
    fputs(")\n", f);
    if (stp__jgets(lr, "solver_reason"))
      fprintf(f, "                  solver choice: %s\n", stp__jgets(lr, "solver_reason"));
  }
  if (where && (strcmp(where, "below") == 0 || strcmp(where, "above") == 0))
    fprintf(f, "                  %s the N.B.U.E. bounds: these laws are not N.B.U.E. (the "
               "bounds hold for N.B.U.E. laws only)\n", where);
  if (stp__jget(lr, "laws"))
    stp__laws_text(f, "  laws            ", stp__jget(lr, "laws"));
  const json_t *fit = stp__jget(lr, "fit");
  if (fit)
    stp__fprintf(f, "  fit             %llu phases (Erlang-%llu mixture, p %.4g), 3 moments "
                    "matched to %.1e, KS distance %.3g (%llu samples)\n",
                 (unsigned long long)stp__jgetu(fit, "phases"),
                 (unsigned long long)stp__jgetu(fit, "order"), stp__jgetd(fit, "p"),
                 stp__jgetd(fit, "moment_error"), stp__jgetd(fit, "ks"),
                 (unsigned long long)stp__jgetu(fit, "samples"));
}

static void head_text(FILE *f, const json_t *rec) {
  fprintf(f, "%s: %s, %s model\n", stp__jgets(rec, "file"), stp__jgets(rec, "name"),
          stp__jgets(rec, "model"));
  fputs("  replication     [", f);
  const json_t *rep = stp__jget(rec, "replication");
  for (size_t i = 0; i < json_array_size(rep); i++) {
    uint64_t r = 0;
    stp__jas_u64(json_array_get(rep, i), &r);
    fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)r);
  }
  if (stp__jgetu(rec, "paths"))
    fprintf(f, "], %llu paths\n", (unsigned long long)stp__jgetu(rec, "paths"));
  else
    fputs("], more than 2^64 paths\n", f);
}

static void deterministic_text(FILE *f, const json_t *det) {
  double period = stp__jgetd(det, "period"), mct = stp__jgetd(det, "max_cycle_time");
  stp__fprintf(f, "  deterministic   throughput %-14.8g period %.8g\n",
               stp__jgetd(det, "throughput"), period);
  stp__fprintf(f, "  max cycle-time  %.8g (%s)\n", mct, stp__jgets(det, "max_cycle_time_resource"));
  const json_t *crit = stp__jget(det, "critical_resources");
  if (json_array_size(crit)) {
    fputs("  critical        ", f);
    for (size_t k = 0; k < json_array_size(crit); k++)
      fprintf(f, "%s%s", k ? ", " : "", json_string_value(json_array_get(crit, k)));
    fputs(" (period = max cycle-time)\n", f);
  } else {
    stp__fprintf(f,
                 "  critical        none: the period exceeds every resource cycle-time by %.3g%%\n",
                 100.0 * (period / mct - 1));
    const json_t *cyc = stp__jget(det, "critical_cycle_resources");
    if (json_array_size(cyc)) {
      fputs("  critical cycle  ", f);
      for (size_t k = 0; k < json_array_size(cyc); k++)
        fprintf(f, "%s%s", k ? ", " : "", json_string_value(json_array_get(cyc, k)));
      fputs(" (the resources on the cycles that set the period)\n", f);
    }
  }
}

void stp__text_eval(FILE *f, const json_t *rec, size_t index) {
  if (index)
    fputc('\n', f);
  head_text(f, rec);
  deterministic_text(f, stp__jget(rec, "deterministic"));
  const json_t *ex = stp__jget(rec, "exponential");
  bool available = !json_is_null(stp__jget(ex, "throughput"));
  if (available) {
    fputs("  exponential     ", f);
    chain_text(f, ex);
    fputs(")\n", f);
    if (stp__jgets(ex, "solver")) {
      fprintf(f, "  solver          %s, %llu sweep%s", stp__jgets(ex, "solver"),
              (unsigned long long)stp__jgetu(ex, "sweeps"), stp__jgetu(ex, "sweeps") == 1 ? "" : "s");
      if (stp__jgets(ex, "solver_reason"))
        fprintf(f, " (solver choice: %s)", stp__jgets(ex, "solver_reason"));
      fputc('\n', f);
    }
  } else {
    fprintf(f, "  exponential     not computed: %s\n", stp__jgets(ex, "reason"));
  }
  const json_t *lr = stp__jget(rec, "exact_law");
  if (lr)
    law_text(f, lr);
  if (available)
    stp__fprintf(f, "  N.B.U.E. bounds [%.8g, %.8g] for any I.I.D. N.B.U.E. law with these means\n",
                 stp__jgetd(rec, "bounds.lower"), stp__jgetd(rec, "bounds.upper"));
  const json_t *cs = stp__jget(rec, "components");
  if (json_array_size(cs))
    component_table(f, cs, lr != NULL);
  stp__text_explain(f, rec);
}
