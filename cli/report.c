/* report.c: the human report and the JSON object of an evaluation.  The JSON
 * keys are the contract of FORMAT.md: extend, never rename. */
#include "cli/report.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

json_t *report_number(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *report_names(const stp_mapping *m, const size_t *procs, size_t n) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < n; k++)
    json_array_append_new(a, json_string(stp_mapping_processor_name(m, procs[k])));
  return a;
}

static json_t *strings(char *const *s, size_t n) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < n; k++)
    json_array_append_new(a, json_string(s[k]));
  return a;
}

static json_t *component_json(const stp_mapping *m, const stp_component_result *c) {
  bool transfer = c->kind == STP_COMPONENT_TRANSFER;
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(transfer ? "transfer" : "computation"));
  json_object_set_new(o, "stage", json_string(stp_mapping_stage_name(m, c->stage)));
  json_object_set_new(o, "index", json_integer((json_int_t)c->index));
  json_object_set_new(o, "g", json_integer((json_int_t)c->g));
  json_object_set_new(o, "u", json_integer((json_int_t)c->u));
  json_object_set_new(o, "v", json_integer((json_int_t)c->v));
  json_t *procs = report_names(m, c->senders, c->u);
  if (transfer) {
    json_t *rcv = report_names(m, c->receivers, c->v);
    json_array_extend(procs, rcv); /* increments references: rcv is still ours */
    json_object_set_new(o, "senders", report_names(m, c->senders, c->u));
    json_object_set_new(o, "receivers", rcv);
  }
  json_object_set_new(o, "processors", procs);
  json_object_set_new(o, "states", json_integer((json_int_t)c->states));
  json_object_set_new(o, "residual", report_number(c->residual));
  json_object_set_new(o, "deterministic", report_number(c->det_throughput));
  json_object_set_new(o, "exponential", report_number(c->exp_throughput));
  json_object_set_new(o, "method", c->exp_method ? json_string(c->exp_method) : json_null());
  json_object_set_new(o, "limits", json_pack("{s:b,s:b}", "deterministic", c->limits_det,
                                             "exponential", c->limits_exp));
  return o;
}

json_t *report_head(const char *file, const stp_mapping *m, const char *model) {
  json_t *o = json_object();
  if (!o)
    return NULL;
  json_object_set_new(o, "file", json_string(file));
  json_object_set_new(o, "name", m ? json_string(stp_mapping_name(m)) : json_null());
  json_object_set_new(o, "model", model ? json_string(model) : json_null());
  if (!m)
    return o;
  json_t *rep = json_array();
  for (size_t i = 0; i < stp_mapping_stage_count(m); i++)
    json_array_append_new(rep, json_integer((json_int_t)stp_mapping_team_size(m, i)));
  json_object_set_new(o, "replication", rep);
  uint64_t paths;
  json_object_set_new(o, "paths", stp_mapping_paths(m, &paths, NULL) == STP_OK &&
                                          paths <= (uint64_t)INT64_MAX
                                      ? json_integer((json_int_t)paths)
                                      : json_null());
  return o;
}

json_t *report_json(const stp_mapping *m, const stp_result *r) {
  json_t *o = report_head(stp_mapping_file(m), m, stp_model_name(r->model));
  if (!o)
    return NULL;
  json_t *det = json_object();
  json_object_set_new(det, "throughput", report_number(r->det_throughput));
  json_object_set_new(det, "period", report_number(r->det_period));
  json_object_set_new(det, "max_cycle_time", report_number(r->max_cycle_time));
  json_object_set_new(det, "critical_resource",
                      r->ncritical ? json_string(r->critical[0]) : json_null());
  json_object_set_new(det, "critical_resources", strings(r->critical, r->ncritical));
  json_object_set_new(det, "max_cycle_time_resource", json_string(r->mct_resource));
  json_object_set_new(o, "deterministic", det);
  json_t *ex = json_object();
  json_object_set_new(ex, "throughput", report_number(r->exp_available ? r->exp_throughput : NAN));
  if (r->exp_available) {
    json_object_set_new(ex, "period", report_number(r->exp_period));
    json_object_set_new(ex, "method", json_string(r->exp_method));
    json_object_set_new(ex, "states", json_integer((json_int_t)r->exp_states));
    json_object_set_new(ex, "residual", report_number(r->exp_residual));
    if (r->exp_solver) {
      json_object_set_new(ex, "solver", json_string(r->exp_solver));
      json_object_set_new(ex, "sweeps", json_integer((json_int_t)r->exp_sweeps));
    }
  } else {
    json_object_set_new(ex, "reason", json_string(r->exp_reason ? r->exp_reason : "unknown"));
  }
  json_object_set_new(o, "exponential", ex);
  json_object_set_new(o, "bounds", json_pack("{s:o,s:o}", "lower",
                                             report_number(r->exp_available ? r->lower : NAN),
                                             "upper", report_number(r->upper)));
  if (r->ncomponents) {
    json_t *cs = json_array();
    for (size_t k = 0; k < r->ncomponents; k++)
      json_array_append_new(cs, component_json(m, &r->components[k]));
    json_object_set_new(o, "components", cs);
  }
  json_object_set_new(o, "seconds", report_number(r->seconds));
  return o;
}

/* ---- batch rows: the eval object, flattened --------------------------------
 * Each column names where its value sits in the object of report_json, so
 * that a batch row and `eval --json` can never disagree. */
typedef struct row_column {
  const char *name;
  const char *section; /* NULL: a top-level key */
  const char *key;
} row_column;

static const row_column row_columns[] = {
    {"file", NULL, "file"},
    {"name", NULL, "name"},
    {"model", NULL, "model"},
    {"replication", NULL, "replication"},
    {"paths", NULL, "paths"},
    {"det_throughput", "deterministic", "throughput"},
    {"det_period", "deterministic", "period"},
    {"exp_throughput", "exponential", "throughput"},
    {"exp_period", "exponential", "period"},
    {"lower", "bounds", "lower"},
    {"upper", "bounds", "upper"},
    {"max_cycle_time", "deterministic", "max_cycle_time"},
    {"max_cycle_time_resource", "deterministic", "max_cycle_time_resource"},
    {"critical_resource", "deterministic", "critical_resource"},
    {"method", "exponential", "method"},
    {"states", "exponential", "states"},
    {"exp_reason", "exponential", "reason"},
    {"seconds", NULL, "seconds"},
    {"status", NULL, "status"},
    {"error", NULL, "error"},
};
#define ROW_COLUMNS (sizeof row_columns / sizeof row_columns[0])

json_t *report_row(const stp_batch_row *row) {
  const char *model = row->model_known ? stp_model_name(row->model) : NULL;
  json_t *src = row->result ? report_json(row->mapping, row->result)
                            : report_head(row->path, row->mapping, model);
  json_t *o = json_object();
  if (!src || !o) {
    json_decref(src);
    json_decref(o);
    return NULL;
  }
  json_object_set_new(src, "seconds", report_number(row->seconds));
  json_object_set_new(src, "status", json_string(stp_status_name(row->status)));
  json_object_set_new(src, "error", row->message ? json_string(row->message) : json_null());
  for (size_t c = 0; c < ROW_COLUMNS; c++) {
    const row_column *col = &row_columns[c];
    json_t *from = col->section ? json_object_get(src, col->section) : src;
    json_t *v = from ? json_object_get(from, col->key) : NULL;
    json_object_set(o, col->name, v ? v : json_null());
  }
  json_decref(src);
  return o;
}

/* RFC 4180: quote a field holding a separator, a quote or a line break. */
static void csv_string(FILE *f, const char *s) {
  if (!s[strcspn(s, ",\"\r\n")] && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_value(FILE *f, const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_STRING: csv_string(f, json_string_value(v)); break;
  case JSON_INTEGER: fprintf(f, "%lld", (long long)json_integer_value(v)); break;
  case JSON_REAL: fprintf(f, "%.17g", json_real_value(v)); break;
  case JSON_TRUE: fputs("true", f); break;
  case JSON_FALSE: fputs("false", f); break;
  case JSON_ARRAY: /* the replication: "1 2 3 1" */
    for (size_t k = 0; k < json_array_size(v); k++) {
      if (k)
        fputc(' ', f);
      csv_value(f, json_array_get(v, k));
    }
    break;
  default: break; /* null and objects: an empty field */
  }
}

int report_csv_header(FILE *f) {
  for (size_t c = 0; c < ROW_COLUMNS; c++)
    fprintf(f, "%s%s", c ? "," : "", row_columns[c].name);
  return fputc('\n', f) == EOF ? -1 : 0;
}

int report_csv_row(FILE *f, const json_t *row) {
  if (!row)
    return -1;
  for (size_t c = 0; c < ROW_COLUMNS; c++) {
    if (c)
      fputc(',', f);
    csv_value(f, json_object_get(row, row_columns[c].name));
  }
  return fputc('\n', f) == EOF || ferror(f) ? -1 : 0;
}

int report_json_line(FILE *f, json_t *v) {
  if (!v || json_dumpf(v, f, JSON_COMPACT) != 0)
    return -1;
  return fputc('\n', f) == EOF ? -1 : 0;
}

/* ---- the human report ------------------------------------------------------ */
static void names_text(FILE *f, const stp_mapping *m, const size_t *p, size_t n, size_t max) {
  for (size_t k = 0; k < n && k < max; k++)
    fprintf(f, "%s%s", k ? " " : "", stp_mapping_processor_name(m, p[k]));
  if (n > max)
    fprintf(f, " ... (%zu)", n);
}

#define TABLE_MAX_ROWS 40

static bool shown(const stp_result *r, size_t k, size_t *rows) {
  const stp_component_result *c = &r->components[k];
  if (c->limits_det || c->limits_exp || *rows < TABLE_MAX_ROWS) {
    (*rows)++;
    return true;
  }
  return false;
}

static void component_table(FILE *f, const stp_mapping *m, const stp_result *r) {
  fprintf(f, "\n  %-4s %-12s %-30s %7s %5s %13s %13s %s\n", "", "component", "processors",
          "u x v", "g", "det bound", "exp bound", "states");
  size_t rows = 0, hidden = 0;
  for (size_t k = 0; k < r->ncomponents; k++) {
    const stp_component_result *c = &r->components[k];
    if (!shown(r, k, &rows)) {
      hidden++;
      continue;
    }
    const char *mark = c->limits_det && c->limits_exp ? "*de"
                       : c->limits_det               ? "*d"
                       : c->limits_exp               ? "*e"
                                                     : "";
    char name[64], uv[32], procs[512];
    if (c->kind == STP_COMPONENT_COMPUTE)
      snprintf(name, sizeof name, "%s", stp_mapping_stage_name(m, c->stage));
    else
      snprintf(name, sizeof name, "%s->%s", stp_mapping_stage_name(m, c->stage),
               stp_mapping_stage_name(m, c->stage + 1));
    snprintf(uv, sizeof uv, "%zux%zu", c->u, c->v);
    FILE *mem = fmemopen(procs, sizeof procs, "w");
    if (mem) {
      names_text(mem, m, c->senders, c->u, 4);
      if (c->receivers) {
        fputs(" -> ", mem);
        names_text(mem, m, c->receivers, c->v, 4);
      }
      fclose(mem);
    } else {
      procs[0] = '\0';
    }
    char expv[32] = "-";
    if (isfinite(c->exp_throughput))
      snprintf(expv, sizeof expv, "%.6g", c->exp_throughput);
    fprintf(f, "  %-4s %-12.12s %-30.30s %7s %5zu %13.6g %13s %llu\n", mark, name, procs, uv,
            c->g, c->det_throughput, expv, (unsigned long long)c->states);
  }
  if (hidden)
    fprintf(f, "  ... %zu more components (--json lists them all)\n", hidden);
  fputs("  (*d limits the deterministic throughput, *e the exponential one)\n", f);
}

void report_text(FILE *f, const stp_mapping *m, const stp_result *r) {
  fprintf(f, "%s: %s, %s model\n", stp_mapping_file(m), stp_mapping_name(m),
          stp_model_name(r->model));
  fputs("  replication     [", f);
  for (size_t i = 0; i < r->nstages; i++)
    fprintf(f, "%s%zu", i ? ", " : "", r->replication[i]);
  if (r->paths)
    fprintf(f, "], %llu paths\n", (unsigned long long)r->paths);
  else
    fputs("], more than 2^64 paths\n", f);
  fprintf(f, "  deterministic   throughput %-14.8g period %.8g\n", r->det_throughput,
          r->det_period);
  fprintf(f, "  max cycle-time  %.8g (%s)\n", r->max_cycle_time, r->mct_resource);
  if (r->ncritical) {
    fputs("  critical        ", f);
    for (size_t k = 0; k < r->ncritical; k++)
      fprintf(f, "%s%s", k ? ", " : "", r->critical[k]);
    fputs(" (period = max cycle-time)\n", f);
  } else {
    fprintf(f, "  critical        none: the period exceeds every resource cycle-time by %.3g%%\n",
            100.0 * (r->det_period / r->max_cycle_time - 1));
  }
  if (r->exp_available) {
    fprintf(f, "  exponential     throughput %-14.8g period %.8g (%s", r->exp_throughput,
            r->exp_period, r->exp_method);
    if (r->exp_states)
      fprintf(f, ", largest chain %llu states, residual %.1e", (unsigned long long)r->exp_states,
              r->exp_residual);
    fputs(")\n", f);
    fprintf(f, "  N.B.U.E. bounds [%.8g, %.8g] for any I.I.D. N.B.U.E. law with these means\n",
            r->lower, r->upper);
  } else {
    fprintf(f, "  exponential     not computed: %s\n", r->exp_reason);
  }
  if (r->ncomponents)
    component_table(f, m, r);
}
