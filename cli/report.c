/* report.c: the human report and the JSON object of an evaluation, and how
 * every record leaves the program: JSON lines (numbers in their shortest
 * round-trip form, with "version" and "limits"), CSV and aligned tables,
 * each record written whole (cli_write_record).  The JSON keys are the
 * contract of docs/format.md: extend, never rename. */
#include "cli/report.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

json_t *report_number(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none:
 * shortest forms only, no surrogates, nothing above U+10FFFF. */
static size_t utf8_sequence(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || len > n)
    return 0;
  unsigned cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; k++) {
    if ((p[k] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (p[k] & 0x3F);
  }
  static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

json_t *report_string(const char *s) {
  if (!s)
    return json_null();
  json_t *v = json_string(s);
  if (v)
    return v;
  /* not UTF-8 (a file name is any bytes): each byte outside a valid
   * sequence is kept as the four characters \xNN, as Python's
   * backslashreplace writes it, rather than the key vanishing */
  size_t n = strlen(s), at = 0;
  char *out = malloc(4 * n + 1);
  if (!out)
    return NULL;
  for (size_t i = 0; i < n;) {
    size_t len = utf8_sequence((const unsigned char *)s + i, n - i);
    if (len == 0) {
      at += (size_t)sprintf(out + at, "\\x%02x", (unsigned char)s[i]);
      i++;
      continue;
    }
    memcpy(out + at, s + i, len);
    at += len;
    i += len;
  }
  out[at] = '\0';
  v = json_string(out);
  free(out);
  return v;
}

json_t *report_exponential(const char *key, double value, uint64_t states, const char *method,
                           const char *reason) {
  json_t *e = json_object();
  if (reason) {
    json_object_set_new(e, key, json_null());
    json_object_set_new(e, "reason", report_string(reason));
    if (method)
      json_object_set_new(e, "method", json_string(method));
    return e;
  }
  json_object_set_new(e, key, report_number(value));
  json_object_set_new(e, "states", json_integer((json_int_t)states));
  json_object_set_new(e, "method", json_string(method));
  return e;
}

json_t *report_law(const char *law, const char *key, double value, const char *reason) {
  json_t *o = json_object();
  json_object_set_new(o, "law", report_string(law));
  json_object_set_new(o, key, report_number(reason ? NAN : value));
  if (reason)
    json_object_set_new(o, "reason", report_string(reason));
  return o;
}

json_t *report_graph_law(const stp_graph_result *r, const char *law) {
  json_t *o = report_law(law, r->is_dag ? "makespan" : "throughput", r->law_value,
                         r->law_computed ? NULL : r->law_reason);
  if (!r->law_computed)
    return o;
  if (!r->is_dag)
    json_object_set_new(o, "period", report_number(1 / r->law_value));
  json_object_set_new(o, "method", json_string(r->law_method));
  json_object_set_new(o, "states", json_integer((json_int_t)r->law_states));
  if (r->law_solver) {
    json_object_set_new(o, "solver", json_string(r->law_solver));
    json_object_set_new(o, "sweeps", json_integer((json_int_t)r->law_sweeps));
    json_object_set_new(o, "residual", report_number(r->law_residual));
  }
  return o;
}

void report_law_text(FILE *f, const char *law, int width, const char *key, double value,
                     const char *reason, const char *detail) {
  char label[64];
  int n = snprintf(label, sizeof label, "law %s", law);
  if (n >= width)
    fprintf(f, "  %s\n  %-*s", label, width, "");
  else
    fprintf(f, "  %-*s", width, label);
  if (reason)
    fprintf(f, "not computed: %s\n", reason);
  else
    fprintf(f, "%-10s %-14.8g (%s)\n", key, value, detail);
}

void report_graph_law_text(FILE *f, const stp_graph_result *r, const char *law, int width) {
  char detail[256];
  int n = snprintf(detail, sizeof detail, "%s, %llu states", r->law_computed ? r->law_method : "",
                   (unsigned long long)r->law_states);
  if (r->law_solver && n > 0 && (size_t)n < sizeof detail)
    n += snprintf(detail + n, sizeof detail - (size_t)n, ", residual %.1e, %s", r->law_residual,
                  r->law_solver);
  if (r->law_solver && r->law_sweeps && n > 0 && (size_t)n < sizeof detail)
    snprintf(detail + n, sizeof detail - (size_t)n, ", %zu sweeps", r->law_sweeps);
  report_law_text(f, law, width, r->is_dag ? "makespan" : "throughput", r->law_value,
                  r->law_computed ? NULL : r->law_reason, detail);
}

/* A 64-bit unsigned integer, exactly (Jansson's integers are signed: a seed
 * from 2^63 on printed negative): above INT64_MAX, its digits after a NUL,
 * which put_json and csv_value write bare (the library's convention,
 * report/json.c). */
static json_t *u64_json(uint64_t x) {
  if (x <= (uint64_t)INT64_MAX)
    return json_integer((json_int_t)x);
  char digits[24];
  int n = snprintf(digits + 1, sizeof digits - 1, "%llu", (unsigned long long)x);
  digits[0] = '\0';
  return json_stringn(digits, (size_t)n + 1);
}

static const char *big_u64(const json_t *v) {
  return json_is_string(v) && json_string_length(v) > 1 && json_string_value(v)[0] == '\0'
             ? json_string_value(v) + 1
             : NULL;
}

json_t *report_bounds(double lower, double upper) {
  return json_pack("{s:o,s:o}", "lower", report_number(lower), "upper", report_number(upper));
}

const char *report_sim_law(const stp_graph_sim_options *o) {
  return o->law ? stp_law_spec(o->law) : "exp";
}

json_t *report_simulation(const stp_graph_sim_options *o, const stp_graph_sim_result *r,
                          bool dag) {
  json_t *s = json_pack("{s:s,s:I,s:o}", "law", report_sim_law(o), "runs", (json_int_t)r->runs,
                        "seed", u64_json(o->seed));
  if (!s)
    return NULL;
  if (dag) {
    json_object_set_new(s, "makespan", report_number(r->mean));
  } else {
    json_object_set_new(s, "throughput", report_number(r->mean));
    json_object_set_new(s, "period", report_number(r->mean > 0 ? 1 / r->mean : NAN));
  }
  json_object_set_new(s, "ci95", json_pack("[o,o]", report_number(r->ci95_lo),
                                           report_number(r->ci95_hi)));
  return s;
}

double report_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

static json_t *component_json(const stp_mapping *m, const stp_component_result *c, bool law) {
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
  if (law)
    json_object_set_new(o, "exact_law", report_number(c->law_throughput));
  return o;
}

json_t *report_head(const char *file, const stp_mapping *m, const char *model) {
  json_t *o = json_object();
  if (!o)
    return NULL;
  json_object_set_new(o, "file", report_string(file));
  json_object_set_new(o, "name", m ? report_string(stp_mapping_name(m)) : json_null());
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

json_t *report_fit(const stp_law_fit *fit) {
  return json_pack("{s:I,s:I,s:I,s:o,s:[o,o],s:[o,o,o],s:[o,o,o],s:o,s:o}", "samples",
                   (json_int_t)fit->samples, "order", (json_int_t)fit->order, "phases",
                   (json_int_t)fit->phases, "p", report_number(fit->p), "rates",
                   report_number(fit->rate[0]), report_number(fit->rate[1]), "sample_moments",
                   report_number(fit->sample_moments[0]), report_number(fit->sample_moments[1]),
                   report_number(fit->sample_moments[2]), "law_moments",
                   report_number(fit->law_moments[0]), report_number(fit->law_moments[1]),
                   report_number(fit->law_moments[2]), "moment_error",
                   report_number(fit->moment_error), "ks", report_number(fit->ks));
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
} chain_fields;

static void chain_value(json_t *o, const chain_fields *f) {
  json_object_set_new(o, "throughput", report_number(f->available ? f->throughput : NAN));
  if (!f->available) {
    json_object_set_new(o, "reason", report_string(f->reason ? f->reason : "unknown"));
    return;
  }
  json_object_set_new(o, "period", report_number(f->period));
  json_object_set_new(o, "method", json_string(f->method));
  json_object_set_new(o, "states", json_integer((json_int_t)f->states));
  json_object_set_new(o, "residual", report_number(f->residual));
  if (f->solver) {
    json_object_set_new(o, "solver", json_string(f->solver));
    json_object_set_new(o, "sweeps", json_integer((json_int_t)f->sweeps));
  }
}

/* Some column has another law than the default. */
static bool mixed_laws(const stp_law_result *lr) {
  for (size_t c = 0; c < lr->ncolumns; c++)
    if (strcmp(lr->column_law[c], lr->law) != 0)
      return true;
  return false;
}

/* "exact_law" (docs/format.md): the value and its chain as "exponential"'s,
 * or null and the reason; the columns' laws when the file sets some. */
static json_t *law_json(const stp_mapping *m, const stp_law_result *lr) {
  json_t *o = json_object();
  json_object_set_new(o, "law", report_string(lr->law));
  chain_value(o, &(chain_fields){lr->available, lr->throughput, lr->period, lr->method,
                                 lr->states, lr->residual, lr->solver, lr->sweeps, lr->reason});
  if (mixed_laws(lr)) {
    json_t *stages = json_object(), *transfers = json_object();
    for (size_t c = 0; c < lr->ncolumns; c++)
      json_object_set_new(c % 2 ? transfers : stages, stp_mapping_stage_name(m, c / 2),
                          report_string(lr->column_law[c]));
    json_object_set_new(o, "laws", json_pack("{s:o,s:o}", "stages", stages, "transfers",
                                             transfers));
  }
  if (lr->fitted)
    json_object_set_new(o, "fit", report_fit(&lr->fit));
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
  chain_value(ex, &(chain_fields){r->exp_available, r->exp_throughput, r->exp_period,
                                  r->exp_method, r->exp_states, r->exp_residual, r->exp_solver,
                                  r->exp_sweeps, r->exp_reason});
  json_object_set_new(o, "exponential", ex);
  json_object_set_new(o, "bounds", json_pack("{s:o,s:o}", "lower",
                                             report_number(r->exp_available ? r->lower : NAN),
                                             "upper", report_number(r->upper)));
  if (r->exact_law.asked)
    json_object_set_new(o, "exact_law", law_json(m, &r->exact_law));
  if (r->ncomponents) {
    json_t *cs = json_array();
    for (size_t k = 0; k < r->ncomponents; k++)
      json_array_append_new(cs, component_json(m, &r->components[k], r->exact_law.asked));
    json_object_set_new(o, "components", cs);
  }
  json_object_set_new(o, "seconds", report_number(r->seconds));
  return o;
}

/* ---- records of several inputs: status and error ----------------------------
 * Every record of a command that takes several inputs says whether it
 * succeeded (docs/format.md, "Glossary"): "status" is "OK" or the error
 * kind, "error" the message or null.  A bad input gives a record too. */
void report_status(json_t *o, stp_status status, const char *message) {
  json_object_set_new(o, "status", json_string(stp_status_name(status)));
  json_object_set_new(o, "error", message ? report_string(message) : json_null());
}

json_t *report_error_record(const char *file, const char *model, const stp_error *err) {
  json_t *o = report_head(file, NULL, model);
  if (o)
    report_status(o, err->status, err->message);
  return o;
}

/* Path lookup: "a.b" is o["a"]["b"]; a key that holds a '.' itself is never
 * written, so the split is unambiguous. */
json_t *report_get(const json_t *o, const char *path) {
  char key[128];
  while (o && json_is_object(o)) {
    size_t n = strcspn(path, ".");
    if (n >= sizeof key)
      return NULL;
    memcpy(key, path, n);
    key[n] = '\0';
    o = json_object_get(o, key);
    if (!path[n])
      return (json_t *)o;
    path += n + 1;
  }
  return NULL;
}

/* ---- batch rows: the eval object, and its flat aliases ----------------------
 * A row of batch (and of eval --format csv) is the object of eval --json
 * without the component list, with its seconds, status and error.  The flat
 * keys that batch wrote before the glossary (det_throughput, lower, ...)
 * follow it as aliases, in JSON lines and in CSV, for one release (NEWS.md). */
typedef struct row_alias {
  const char *name; /* the old flat key */
  const char *path; /* where its value sits now */
} row_alias;

static const row_alias row_aliases[] = {
    {"det_throughput", "deterministic.throughput"},
    {"det_period", "deterministic.period"},
    {"exp_throughput", "exponential.throughput"},
    {"exp_period", "exponential.period"},
    {"lower", "bounds.lower"},
    {"upper", "bounds.upper"},
    {"max_cycle_time", "deterministic.max_cycle_time"},
    {"max_cycle_time_resource", "deterministic.max_cycle_time_resource"},
    {"critical_resource", "deterministic.critical_resource"},
    {"method", "exponential.method"},
    {"states", "exponential.states"},
    {"exp_reason", "exponential.reason"},
};
#define ROW_ALIASES (sizeof row_aliases / sizeof row_aliases[0])

/* The CSV columns of a row: JSON paths, then the aliases. */
static const char *const row_columns[] = {
    "file", "name", "model", "replication", "paths",
    "deterministic.throughput", "deterministic.period", "deterministic.max_cycle_time",
    "deterministic.max_cycle_time_resource", "deterministic.critical_resource",
    "exponential.throughput", "exponential.period", "exponential.method", "exponential.states",
    "exponential.solver", "exponential.sweeps", "exponential.residual", "exponential.reason",
    "bounds.lower", "bounds.upper", "exact_law.law", "exact_law.throughput",
    "exact_law.period", "exact_law.method", "exact_law.states", "exact_law.solver",
    "exact_law.sweeps", "exact_law.residual", "exact_law.reason", "seconds", "status", "error",
    "det_throughput", "det_period", "exp_throughput", "exp_period", "lower", "upper",
    "max_cycle_time", "max_cycle_time_resource", "critical_resource", "method", "states",
    "exp_reason", NULL};
#define ROW_COLUMNS (sizeof row_columns / sizeof row_columns[0] - 1)

const char *const *report_row_columns(void) { return row_columns; }

json_t *report_row(const stp_batch_row *row) {
  const char *model = row->model_known ? stp_model_name(row->model) : NULL;
  json_t *o = row->result ? report_json(row->mapping, row->result)
                          : report_head(row->path, row->mapping, model);
  if (!o)
    return NULL;
  json_object_del(o, "components"); /* a row stays one short line */
  json_object_set_new(o, "seconds", report_number(row->seconds));
  report_status(o, row->status, row->message);
  for (size_t k = 0; k < ROW_ALIASES; k++) {
    json_t *v = report_get(o, row_aliases[k].path);
    json_object_set_new(o, row_aliases[k].name, v ? json_incref(v) : json_null());
  }
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
  if (!v) /* a column this record lacks: an empty field */
    return;
  switch (json_typeof(v)) {
  case JSON_STRING:
    big_u64(v) ? (void)fputs(big_u64(v), f) : csv_string(f, json_string_value(v));
    break;
  case JSON_INTEGER: fprintf(f, "%lld", (long long)json_integer_value(v)); break;
  case JSON_REAL: {
    char num[40];
    stp_format_double(json_real_value(v), num, sizeof num);
    fputs(num, f);
    break;
  }
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

/* ---- records out: whole, or not at all ------------------------------------------- */
/* Render with `put` into memory, then write the record in one go. */
static int emit(FILE *f, void (*put)(FILE *, const void *), const void *arg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem)
    return -1;
  put(mem, arg);
  int bad = ferror(mem);
  if (fclose(mem) != 0 || bad) {
    free(buf);
    return -1;
  }
  int rc = cli_write_record(f, buf, len) ? 0 : -1;
  free(buf);
  return rc;
}

static void put_csv_header(FILE *f, const void *arg) {
  (void)arg;
  for (size_t c = 0; c < ROW_COLUMNS; c++)
    fprintf(f, "%s%s", c ? "," : "", row_columns[c]);
  fputc('\n', f);
}

int report_csv_header(FILE *f) { return emit(f, put_csv_header, NULL); }

char *report_csv_header_text(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem)
    return NULL;
  put_csv_header(mem, NULL);
  if (fclose(mem) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void put_csv_row(FILE *f, const void *arg) {
  const json_t *row = arg;
  for (size_t c = 0; c < ROW_COLUMNS; c++) {
    if (c)
      fputc(',', f);
    csv_value(f, report_get(row, row_columns[c]));
  }
  fputc('\n', f);
}

int report_csv_row(FILE *f, const json_t *row) {
  return row ? emit(f, put_csv_row, row) : -1;
}

/* A JSON value, compact, every real in its shortest round-trip form (Jansson
 * prints 17 digits: 0.20000000000000001).  A real keeps a '.' or an exponent
 * so that it reads back as a real.  Members keep their insertion order. */
static void put_json(FILE *f, const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    const char *key;
    json_t *val;
    bool first = true;
    fputc('{', f);
    json_object_foreach((json_t *)v, key, val) {
      if (!first)
        fputc(',', f);
      first = false;
      json_t *k = json_string(key);
      json_dumpf(k, f, JSON_ENCODE_ANY);
      json_decref(k);
      fputc(':', f);
      put_json(f, val);
    }
    fputc('}', f);
    break;
  }
  case JSON_ARRAY:
    fputc('[', f);
    for (size_t k = 0; k < json_array_size(v); k++) {
      if (k)
        fputc(',', f);
      put_json(f, json_array_get(v, k));
    }
    fputc(']', f);
    break;
  case JSON_STRING:
    if (big_u64(v))
      fputs(big_u64(v), f);
    else
      json_dumpf(v, f, JSON_ENCODE_ANY);
    break;
  case JSON_REAL: {
    char num[40];
    double x = json_real_value(v);
    if (!isfinite(x)) { /* JSON has no inf or nan */
      fputs("null", f);
      break;
    }
    stp_format_double(x, num, sizeof num);
    fputs(num, f);
    if (!num[strcspn(num, ".eE")])
      fputs(".0", f);
    break;
  }
  default:
    json_dumpf(v, f, JSON_ENCODE_ANY); /* strings, integers, true, false, null */
  }
}

json_t *report_limits(void) {
  const cli_limits *l = &cli_run_limits;
  json_t *o = json_object();
  if (!o)
    return NULL;
  if (l->eval)
    json_object_set_new(o, "max_transitions", json_integer((json_int_t)l->max_transitions));
  if (l->eval || l->states)
    json_object_set_new(o, "max_states", json_integer((json_int_t)l->max_states));
  if (l->max_memory)
    json_object_set_new(o, "max_memory", json_integer((json_int_t)l->max_memory));
  if (l->has_seed)
    json_object_set_new(o, "seed", u64_json(l->seed));
  return o;
}

static void put_json_line(FILE *f, const void *arg) {
  put_json(f, arg);
  fputc('\n', f);
}

int report_json_line(FILE *f, json_t *v) {
  if (!v)
    return -1;
  if (json_is_object(v)) { /* every line says which streamtp wrote it, under what limits */
    if (!json_object_get(v, "version"))
      json_object_set_new(v, "version", json_string(STP_VERSION));
    if (!json_object_get(v, "limits"))
      json_object_set_new(v, "limits", report_limits());
  }
  return emit(f, put_json_line, v);
}

/* ---- records as CSV and tables ----------------------------------------------------
 * A sink's columns are JSON paths ("bounds.lower"): the CSV header names
 * them, each field is the value at that path (report_get), so that a CSV
 * column and a JSON key can never disagree. */
static void sink_columns(report_sink *s) {
  s->keys = json_array();
  for (const char *const *c = s->columns; *c; c++)
    json_array_append_new(s->keys, json_string(*c));
}

typedef struct csv_line {
  const json_t *keys, *rec; /* rec NULL: the header */
} csv_line;

static void put_csv_line(FILE *f, const void *arg) {
  const csv_line *l = arg;
  for (size_t c = 0; c < json_array_size(l->keys); c++) {
    const char *name = json_string_value(json_array_get(l->keys, c));
    if (c)
      fputc(',', f);
    if (l->rec)
      csv_value(f, report_get(l->rec, name));
    else
      csv_string(f, name);
  }
  fputc('\n', f);
}

/* A value as a table cell: CSV's text without the quoting, reals to 8
 * significant digits as in the text reports (tables are for reading; CSV
 * and JSON keep every digit). */
static char *cell_text(const json_t *v) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem)
    return NULL;
  if (v && json_is_string(v)) {
    fputs(json_string_value(v), mem);
  } else if (v && json_is_real(v)) {
    fprintf(mem, "%.8g", json_real_value(v));
  } else if (v && json_is_array(v)) { /* an interval: [lo, hi] */
    for (size_t k = 0; k < json_array_size(v); k++) {
      char *t = cell_text(json_array_get(v, k));
      fprintf(mem, "%s%s", k ? ", " : "[", t ? t : "");
      free(t);
    }
    fputc(']', mem);
  } else if (v) {
    csv_value(mem, v);
  }
  fclose(mem);
  return buf;
}

int report_sink_put(report_sink *s, FILE *f, const json_t *rec) {
  if (!rec)
    return -1;
  if (!s->keys) {
    sink_columns(s);
    if (s->format == CLI_FORMAT_CSV &&
        emit(f, put_csv_line, &(csv_line){.keys = s->keys, .rec = NULL}) != 0)
      return -1;
  }
  if (s->format == CLI_FORMAT_CSV)
    return emit(f, put_csv_line, &(csv_line){.keys = s->keys, .rec = rec});
  if (!s->rows)
    s->rows = json_array();
  return json_array_append(s->rows, (json_t *)rec); /* a table waits for its widths */
}

static void put_table(FILE *f, const void *arg) {
  const report_sink *s = arg;
  size_t ncol = json_array_size(s->keys), nrow = json_array_size(s->rows);
  size_t *width = calloc(ncol ? ncol : 1, sizeof *width);
  char **cell = calloc((nrow + 1) * (ncol ? ncol : 1), sizeof *cell);
  if (!width || !cell) {
    free(width);
    free(cell);
    return;
  }
  for (size_t c = 0; c < ncol; c++) {
    const char *name = json_string_value(json_array_get(s->keys, c));
    cell[c] = strdup(s->labels ? s->labels[c] : name);
    for (size_t r = 0; r < nrow; r++)
      cell[(r + 1) * ncol + c] = cell_text(report_get(json_array_get(s->rows, r), name));
  }
  for (size_t k = 0; k < (nrow + 1) * ncol; k++) {
    size_t w = cell[k] ? strlen(cell[k]) : 0;
    if (w > width[k % ncol])
      width[k % ncol] = w;
  }
  for (size_t r = 0; r <= nrow; r++)
    for (size_t c = 0; c < ncol; c++) {
      /* an input that failed: its error after the first column, not blanks */
      const char *error = r ? json_string_value(json_object_get(json_array_get(s->rows, r - 1),
                                                                "error"))
                            : NULL;
      if (error && c == 1 && ncol > 1) {
        fprintf(f, "error: %s\n", error);
        break;
      }
      const char *t = cell[r * ncol + c] ? cell[r * ncol + c] : "";
      if (c + 1 < ncol)
        fprintf(f, "%-*s  ", (int)width[c], t);
      else
        fprintf(f, "%s\n", t);
    }
  for (size_t k = 0; k < (nrow + 1) * ncol; k++)
    free(cell[k]);
  free(cell);
  free(width);
}

int report_sink_close(report_sink *s, FILE *f) {
  int rc = 0;
  if (s->format == CLI_FORMAT_TABLE && s->keys && json_array_size(s->rows))
    rc = emit(f, put_table, s);
  json_decref(s->rows);
  json_decref(s->keys);
  s->rows = s->keys = NULL;
  return rc;
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

/* A component's name ("T2", "T2->T3") and processors ("P1 P2 -> P3 P4"),
 * whole: the table's columns widen to the longest. */
static char *component_name(const stp_mapping *m, const stp_component_result *c) {
  char *out = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&out, &len);
  if (!mem)
    return NULL;
  if (c->kind == STP_COMPONENT_COMPUTE)
    fputs(stp_mapping_stage_name(m, c->stage), mem);
  else
    fprintf(mem, "%s->%s", stp_mapping_stage_name(m, c->stage),
            stp_mapping_stage_name(m, c->stage + 1));
  fclose(mem);
  return out;
}

static char *component_procs(const stp_mapping *m, const stp_component_result *c) {
  char *out = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&out, &len);
  if (!mem)
    return NULL;
  names_text(mem, m, c->senders, c->u, 4);
  if (c->receivers) {
    fputs(" -> ", mem);
    names_text(mem, m, c->receivers, c->v, 4);
  }
  fclose(mem);
  return out;
}

static void component_table(FILE *f, const stp_mapping *m, const stp_result *r) {
  bool law = r->exact_law.asked;
  size_t n = r->ncomponents, rows = 0, hidden = 0, wname = 12, wprocs = 30;
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
    if (!(show[k] = shown(r, k, &rows))) {
      hidden++;
      continue;
    }
    name[k] = component_name(m, &r->components[k]);
    procs[k] = component_procs(m, &r->components[k]);
    if (name[k] && strlen(name[k]) > wname)
      wname = strlen(name[k]);
    if (procs[k] && strlen(procs[k]) > wprocs)
      wprocs = strlen(procs[k]);
  }
  fprintf(f, "\n  %-4s %-*s %-*s %7s %5s %13s %13s%s %s\n", "", (int)wname, "component",
          (int)wprocs, "processors", "u x v", "g", "det bound", "exp bound",
          law ? "     law bound" : "", "states");
  for (size_t k = 0; k < n; k++) {
    const stp_component_result *c = &r->components[k];
    if (!show[k])
      continue;
    const char *mark = c->limits_det && c->limits_exp ? "*de"
                       : c->limits_det               ? "*d"
                       : c->limits_exp               ? "*e"
                                                     : "";
    char uv[48];
    snprintf(uv, sizeof uv, "%zux%zu", c->u, c->v);
    char expv[32] = "-", lawv[32] = "";
    if (isfinite(c->exp_throughput))
      snprintf(expv, sizeof expv, "%.6g", c->exp_throughput);
    if (law && isfinite(c->law_throughput))
      snprintf(lawv, sizeof lawv, " %13.6g", c->law_throughput);
    else if (law)
      snprintf(lawv, sizeof lawv, " %13s", "-");
    fprintf(f, "  %-4s %-*s %-*s %7s %5zu %13.6g %13s%s %llu\n", mark, (int)wname,
            name[k] ? name[k] : "?", (int)wprocs, procs[k] ? procs[k] : "?", uv, c->g,
            c->det_throughput, expv, lawv, (unsigned long long)c->states);
    free(name[k]);
    free(procs[k]);
  }
  free(name);
  free(procs);
  free(show);
  if (hidden)
    fprintf(f, "  ... %zu more components (--json lists them all)\n", hidden);
  fputs("  (*d limits the deterministic throughput, *e the exponential one)\n", f);
}

/* The exact value under a phase-type law: "law SPEC" in the label column
 * (on its own line when the spec is longer), the value as the exponential
 * one's; the columns' laws when the file sets some; a fit's quality. */
static void law_text(FILE *f, const stp_mapping *m, const stp_law_result *lr) {
  char label[32];
  int n = snprintf(label, sizeof label, "law %s", lr->law);
  if (n >= 16)
    fprintf(f, "  law %s\n  %-16s", lr->law, "");
  else
    fprintf(f, "  %-16s", label);
  if (!lr->available) {
    fprintf(f, "not computed: %s\n", lr->reason ? lr->reason : "unknown");
  } else {
    fprintf(f, "throughput %-14.8g period %.8g (%s", lr->throughput, lr->period, lr->method);
    if (lr->states)
      fprintf(f, ", largest chain %llu states, residual %.1e", (unsigned long long)lr->states,
              lr->residual);
    if (lr->solver)
      fprintf(f, ", %s", lr->solver);
    if (lr->solver && lr->sweeps)
      fprintf(f, ", %zu sweeps", lr->sweeps);
    fputs(")\n", f);
  }
  if (mixed_laws(lr)) {
    fputs("  laws            ", f);
    for (size_t c = 0; c < lr->ncolumns; c++)
      fprintf(f, "%s%s%s %s", c ? ", " : "", stp_mapping_stage_name(m, c / 2),
              c % 2 ? " out" : "", lr->column_law[c]);
    fputc('\n', f);
  }
  if (lr->fitted)
    fprintf(f, "  fit             %u phases (Erlang-%u mixture, p %.4g), 3 moments matched to "
               "%.1e, KS distance %.3g (%zu samples)\n",
            lr->fit.phases, lr->fit.order, lr->fit.p, lr->fit.moment_error, lr->fit.ks,
            lr->fit.samples);
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
    if (r->exp_solver)
      fprintf(f, "  solver          %s, %zu sweeps\n", r->exp_solver, r->exp_sweeps);
  } else {
    fprintf(f, "  exponential     not computed: %s\n", r->exp_reason);
  }
  if (r->exact_law.asked)
    law_text(f, m, &r->exact_law);
  if (r->exp_available)
    fprintf(f, "  N.B.U.E. bounds [%.8g, %.8g] for any I.I.D. N.B.U.E. law with these means\n",
            r->lower, r->upper);
  if (r->ncomponents)
    component_table(f, m, r);
}

typedef struct text_args {
  const stp_mapping *m;
  const stp_result *r;
} text_args;

static void put_text(FILE *f, const void *arg) {
  const text_args *t = arg;
  report_text(f, t->m, t->r);
}

int report_text_record(FILE *f, const stp_mapping *m, const stp_result *r) {
  return emit(f, put_text, &(text_args){m, r});
}
