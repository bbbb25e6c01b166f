/* reader.c: mapping files (docs/format.md) -> stp_mapping.
 *
 * Jansson parses the text (and reports syntax errors with line and column);
 * this file checks every key and type, fills the mapping, and leaves the
 * rules of the values to validate.c (shared with the C builder, build.c).
 * Each problem is reported with the file, the line and column of the
 * offending value (found again by jsonpos.c) and what is wrong.  Anything
 * not accepted here never reaches the engine. */
#include "base/core.h"
#include "base/fileio.h"
#include "base/jsonpos.h"
#include "solvers/laws.h"
#include "models/jsonread.h"
#include "models/pipeline/mapping.h"
#include "models/pipeline/reader.h"
#include "models/pipeline/validate.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  stp_jreader jr;      /* label, text, err: the helpers of jsonread.c */
  stp_check_sink sink; /* ctx: this reader */
  bool teams_optional; /* an optimisation problem: "mapping" may be absent */
} reader;

/* The sink of validate.c: the path becomes the file's line and column,
 * exactly as jsonread.c reports its own findings. */
static stp_status locate_and_fail(const stp_check_sink *s, const stp_jpath *path, bool at_key,
                                  const char *what) {
  const reader *r = s->ctx;
  if (!path)
    return stp__fail(r->jr.err, STP_EINVAL, "%s: %s", r->jr.label, what);
  return stp__jr_report(&r->jr, *path, at_key, "%s", what);
}

/* Report a problem with the value at `path` (or its key when at_key). */
#define report(r, ...) stp__check_fail(&(r)->sink, __VA_ARGS__)

/* Keys, types and members are jsonread.c's (the messages of every reader of
 * streamtp); the rules of the values are validate.c's (shared with the C
 * builder, so that a file and arrays get the same message). */
#define check_keys(r, ...) stp__jr_check_keys(&(r)->jr, __VA_ARGS__)
#define want_type(r, ...) stp__jr_want_type(&(r)->jr, __VA_ARGS__)
#define get_member(r, ...) stp__jr_get_member(&(r)->jr, __VA_ARGS__)

/* A number that must be finite and > 0 (or >= 0 when allow_zero). */
static stp_status get_positive(const reader *r, const json_t *v, stp_jpath path,
                               const char *what, bool allow_zero, double *out) {
  STP_CHECK(want_type(r, v, path, JSON_REAL, what));
  double x = json_number_value(v);
  STP_CHECK(stp__check_positive(&r->sink, x, path, what, allow_zero));
  *out = x;
  return STP_OK;
}

static stp_status get_name(const reader *r, const json_t *v, stp_jpath path, const char *what,
                           char **out) {
  STP_CHECK(want_type(r, v, path, JSON_STRING, what));
  const char *s = json_string_value(v);
  STP_CHECK(stp__check_name(&r->sink, s, json_string_length(v), path, what));
  *out = stp__strdup(s);
  return *out ? STP_OK : stp__oom(r->jr.err, "reading a name");
}

/* ---- sections -------------------------------------------------------------- */
static stp_status read_stages(const reader *r, const json_t *arr, stp_mapping *m) {
  static const char *const keys[] = {"name", "work", "output", NULL};
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "stages");
  size_t n = m->nstages;
  for (size_t i = 0; i < n; i++) {
    json_t *st = json_array_get(arr, i), *v;
    stp_jpath p = stp__jpath_index(base, i);
    STP_CHECK(want_type(r, st, p, JSON_OBJECT, "a stage"));
    STP_CHECK(check_keys(r, st, p, keys, "a stage"));
    if ((v = json_object_get(st, "name")))
      STP_CHECK(get_name(r, v, stp__jpath_key(p, "name"), "a stage name", &m->stages[i].name));
    else if (!(m->stages[i].name = stp__asprintf("T%zu", i + 1)))
      return stp__oom(r->jr.err, "naming a stage");
    STP_CHECK(get_member(r, st, p, "work", "a stage", &v));
    STP_CHECK(get_positive(r, v, stp__jpath_key(p, "work"), "work", false, &m->stages[i].work));
    bool last = i + 1 == n;
    v = json_object_get(st, "output");
    if (!v && !last)
      return report(r, p, false,
                    "missing required key \"output\" in stage %zu (only the last stage may omit it)",
                    i + 1);
    if (v)
      STP_CHECK(get_positive(r, v, stp__jpath_key(p, "output"), "output", last,
                             &m->stages[i].output));
  }
  return stp__check_stage_names(&r->sink, m);
}

static stp_status read_processors(const reader *r, const json_t *arr, stp_mapping *m,
                                  stp_name_index *ix) {
  static const char *const keys[] = {"name", "speed", NULL};
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "processors");
  for (size_t p = 0; p < m->nprocs; p++) {
    json_t *pr = json_array_get(arr, p), *v;
    stp_jpath path = stp__jpath_index(base, p);
    STP_CHECK(want_type(r, pr, path, JSON_OBJECT, "a processor"));
    STP_CHECK(check_keys(r, pr, path, keys, "a processor"));
    STP_CHECK(get_member(r, pr, path, "name", "a processor", &v));
    STP_CHECK(get_name(r, v, stp__jpath_key(path, "name"), "a processor name",
                       &m->procs[p].name));
    STP_CHECK(get_member(r, pr, path, "speed", "a processor", &v));
    STP_CHECK(get_positive(r, v, stp__jpath_key(path, "speed"), "speed", false,
                           &m->procs[p].speed));
  }
  STP_CHECK(stp__name_index_build_procs(ix, m, r->jr.err));
  return stp__check_processor_names(&r->sink, m, ix);
}

static stp_status lookup_proc(const reader *r, const stp_name_index *ix, const json_t *v,
                              stp_jpath path, const char *what, size_t *out) {
  STP_CHECK(want_type(r, v, path, JSON_STRING, what));
  *out = stp__name_index_find(ix, json_string_value(v));
  if (*out != SIZE_MAX)
    return STP_OK;
  char p[256];
  stp__jpath_format(&path, p, sizeof p);
  return report(r, path, false, "processor \"%s\" in %s is not declared", json_string_value(v), p);
}

static stp_status read_links(const reader *r, const json_t *arr, stp_mapping *m,
                             const stp_name_index *ix) {
  static const char *const keys[] = {"from", "to", "bandwidth", NULL};
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "links");
  for (size_t k = 0; k < m->nlinks; k++) {
    json_t *l = json_array_get(arr, k), *v;
    stp_jpath p = stp__jpath_index(base, k);
    stp_link *lk = &m->links[k];
    STP_CHECK(want_type(r, l, p, JSON_OBJECT, "a link"));
    STP_CHECK(check_keys(r, l, p, keys, "a link"));
    STP_CHECK(get_member(r, l, p, "from", "a link", &v));
    STP_CHECK(lookup_proc(r, ix, v, stp__jpath_key(p, "from"), "a link's \"from\"", &lk->from));
    STP_CHECK(get_member(r, l, p, "to", "a link", &v));
    STP_CHECK(lookup_proc(r, ix, v, stp__jpath_key(p, "to"), "a link's \"to\"", &lk->to));
    STP_CHECK(stp__check_link(&r->sink, m, k));
    STP_CHECK(get_member(r, l, p, "bandwidth", "a link", &v));
    STP_CHECK(get_positive(r, v, stp__jpath_key(p, "bandwidth"), "bandwidth", false,
                           &lk->bandwidth));
  }
  return stp__check_links_unique(&r->sink, m);
}

/* Team sizes, to allocate the mapping before the members are checked
 * (read_teams reports shape errors, after the stages and processors). */
static size_t count_members(const json_t *arr) {
  size_t total = 0;
  for (size_t i = 0; i < json_array_size(arr); i++)
    total += json_array_size(json_array_get(arr, i)); /* 0 for non-arrays */
  return total;
}

static stp_status check_team_shapes(const reader *r, const json_t *arr, size_t nstages) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  STP_CHECK(want_type(r, arr, base, JSON_ARRAY, "\"mapping\""));
  size_t n = json_array_size(arr);
  STP_CHECK(stp__check_team_count(&r->sink, n, nstages));
  for (size_t i = 0; i < n; i++) {
    json_t *team = json_array_get(arr, i);
    STP_CHECK(want_type(r, team, stp__jpath_index(base, i), JSON_ARRAY, "a team"));
    STP_CHECK(stp__check_team_size(&r->sink, i, json_array_size(team)));
  }
  return STP_OK;
}

static stp_status read_teams(const reader *r, const json_t *arr, stp_mapping *m,
                             const stp_name_index *ix) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  STP_CHECK(check_team_shapes(r, arr, m->nstages));
  size_t at = 0;
  for (size_t i = 0; i < m->nstages; i++) {
    json_t *team = json_array_get(arr, i);
    m->team_off[i] = at;
    for (size_t k = 0; k < json_array_size(team); k++) {
      stp_jpath p = stp__jpath_index(stp__jpath_index(base, i), k);
      STP_CHECK(lookup_proc(r, ix, json_array_get(team, k), p, "a team member", &m->team[at++]));
    }
  }
  m->team_off[m->nstages] = at;
  return stp__check_teams(&r->sink, m);
}

/* ---- "laws": {"default": SPEC, "stages": {STAGE: SPEC}, "transfers": {STAGE: SPEC}}
 * Stages are named as in "stages"; a transfer is named by the stage whose
 * output it carries (the file F_i of stage T_i), like the stage's "output". */

/* Directory of the mapping file, against which empirical:FILE resolves
 * (NULL: the current directory). */
static char *label_dir(const char *label) {
  const char *slash = strrchr(label, '/');
  if (!slash)
    return NULL;
  size_t n = slash == label ? 1 : (size_t)(slash - label);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, label, n);
    d[n] = '\0';
  }
  return d;
}

static stp_status read_law(const reader *r, const json_t *v, stp_jpath path, const char *what,
                           const char *dir, stp_law **out) {
  STP_CHECK(want_type(r, v, path, JSON_STRING, what));
  stp_error lerr = {0};
  if (stp__law_parse(json_string_value(v), dir, out, &lerr) == STP_OK)
    return STP_OK;
  if (lerr.status == STP_ENOMEM)
    return stp__oom(r->jr.err, "reading a law");
  return report(r, path, false, "%s: %s", what, lerr.message);
}

static stp_status unknown_stage(const reader *r, const stp_mapping *m, stp_jpath path,
                                const char *name, const char *where) {
  const char *hint = NULL;
  size_t best = STP_JR_HINT_DISTANCE;
  for (size_t i = 0; i < m->nstages; i++)
    stp__jr_consider_hint(name, m->stages[i].name, &best, &hint);
  if (hint)
    return report(r, path, true, "unknown stage \"%s\" in %s (did you mean \"%s\"?)", name,
                  where, hint);
  return report(r, path, true, "unknown stage \"%s\" in %s", name, where);
}

/* One of "stages" / "transfers": stage name -> law, into slots[i]. */
static stp_status read_law_map(const reader *r, const json_t *obj, stp_jpath path,
                               const stp_mapping *m, const stp_name_index *stages, bool transfers,
                               const char *dir, stp_law **slots) {
  const char *where = transfers ? "\"laws\".\"transfers\"" : "\"laws\".\"stages\"";
  STP_CHECK(want_type(r, obj, path, JSON_OBJECT, where));
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)obj, key, val) {
    stp_jpath at = stp__jpath_key(path, key);
    size_t i = stp__name_index_find(stages, key);
    if (i == SIZE_MAX)
      return unknown_stage(r, m, at, key, where);
    if (transfers && i + 1 == m->nstages)
      return report(r, at, true,
                    "\"%s\" is the last stage: its output is not transferred, so it takes no "
                    "transfer law", key);
    char what[STP_MAX_NAME + 64];
    snprintf(what, sizeof what, transfers ? "the law of the transfers after stage \"%s\""
                                          : "the law of stage \"%s\"", key);
    STP_CHECK(read_law(r, val, at, what, dir, &slots[i]));
  }
  return STP_OK;
}

static stp_status read_laws_in(const reader *r, const json_t *laws, const stp_mapping *m,
                               const char *dir, stp_law_table *t) {
  static const char *const keys[] = {"default", "stages", "transfers", NULL};
  stp_jpath p = stp__jpath_key((stp_jpath){0}, "laws");
  STP_CHECK(want_type(r, laws, p, JSON_OBJECT, "\"laws\""));
  STP_CHECK(check_keys(r, laws, p, keys, "\"laws\""));
  json_t *v;
  if ((v = json_object_get(laws, "default")))
    STP_CHECK(read_law(r, v, stp__jpath_key(p, "default"), "the default law", dir, &t->dflt));
  stp_name_index ix;
  STP_CHECK(stp__name_index_build_stages(&ix, m, r->jr.err));
  stp_status s = STP_OK;
  if ((v = json_object_get(laws, "stages")))
    s = read_law_map(r, v, stp__jpath_key(p, "stages"), m, &ix, false, dir, t->stage);
  if (s == STP_OK && (v = json_object_get(laws, "transfers")))
    s = read_law_map(r, v, stp__jpath_key(p, "transfers"), m, &ix, true, dir, t->transfer);
  stp__name_index_free(&ix);
  return s;
}

static stp_status read_laws(const reader *r, const json_t *root, stp_mapping *m) {
  json_t *laws = json_object_get(root, "laws");
  if (!laws)
    return STP_OK;
  if (!(m->laws = stp__law_table_alloc(m->nstages)))
    return stp__oom(r->jr.err, "reading laws");
  char *dir = label_dir(r->jr.label);
  if (strrchr(r->jr.label, '/') && !dir)
    return stp__oom(r->jr.err, "reading laws");
  stp_status s = read_laws_in(r, laws, m, dir, m->laws);
  free(dir);
  return s;
}

static char *file_stem(const char *label) {
  const char *base = strrchr(label, '/');
  base = base ? base + 1 : label;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, base, n);
    s[n] = '\0';
  }
  return s;
}

static stp_status read_header(const reader *r, const json_t *root, stp_mapping *m) {
  json_t *v;
  stp_jpath top = {0};
  if ((v = json_object_get(root, "name")))
    STP_CHECK(get_name(r, v, stp__jpath_key(top, "name"), "\"name\"", &m->name));
  else if (!(m->name = file_stem(r->jr.label)))
    return stp__oom(r->jr.err, "naming the mapping");
  m->model = STP_MODEL_OVERLAP;
  if ((v = json_object_get(root, "model"))) {
    stp_jpath p = stp__jpath_key(top, "model");
    STP_CHECK(want_type(r, v, p, JSON_STRING, "\"model\""));
    if (stp_model_parse(json_string_value(v), &m->model) != STP_OK)
      return report(r, p, false, "\"model\" must be \"overlap\" or \"strict\", not \"%s\"",
                    json_string_value(v));
  }
  if ((v = json_object_get(root, "bandwidth")))
    STP_CHECK(get_positive(r, v, stp__jpath_key(top, "bandwidth"), "the default bandwidth", false,
                           &m->bandwidth));
  return STP_OK;
}

/* Check the shape of a top-level array and return its size. */
static stp_status top_array(const reader *r, const json_t *root, const char *key, bool required,
                            size_t max, json_t **arr, size_t *n) {
  stp_jpath p = stp__jpath_key((stp_jpath){0}, key);
  *arr = json_object_get(root, key);
  *n = 0;
  if (!*arr) {
    if (required)
      return report(r, (stp_jpath){0}, false, "missing required key \"%s\" in the top-level object",
                    key);
    return STP_OK;
  }
  char what[64];
  snprintf(what, sizeof what, "\"%s\"", key);
  STP_CHECK(want_type(r, *arr, p, JSON_ARRAY, what));
  *n = json_array_size(*arr);
  return stp__check_count(&r->sink, key, *n, required, max);
}

static stp_status read_root(const reader *r, const json_t *root, stp_mapping **out) {
  static const char *const keys[] = {"name",  "model", "stages",  "processors",
                                     "bandwidth", "links", "mapping", "laws", NULL};
  stp_jpath top = {0};
  if (!json_is_object(root))
    return report(r, top, false, "the top level must be an object, not %s",
                  stp__jr_json_type_name(root));
  STP_CHECK(stp__jr_check_kind(&r->jr, root, "mapping"));
  STP_CHECK(check_keys(r, root, top, keys, "the top-level object"));
  json_t *stages, *procs, *links, *teams;
  size_t ns, np, nl;
  STP_CHECK(top_array(r, root, "stages", true, STP_MAX_STAGES, &stages, &ns));
  STP_CHECK(top_array(r, root, "processors", true, STP_MAX_PROCESSORS, &procs, &np));
  STP_CHECK(top_array(r, root, "links", false, STP_MAX_LINKS, &links, &nl));
  if (!(teams = json_object_get(root, "mapping")) && !r->teams_optional)
    return report(r, top, false, "missing required key \"mapping\" in the top-level object");
  stp_mapping *m;
  STP_CHECK(stp__mapping_alloc(ns, np, nl, teams ? count_members(teams) : 0, &m, r->jr.err));
  stp_name_index ix = {0};
  stp_status s = read_header(r, root, m);
  if (s == STP_OK)
    s = read_stages(r, stages, m);
  if (s == STP_OK)
    s = read_processors(r, procs, m, &ix);
  if (s == STP_OK)
    s = read_links(r, links, m, &ix);
  if (s == STP_OK && teams)
    s = read_teams(r, teams, m, &ix);
  if (s == STP_OK) {
    stp__mapping_finalize(m);
    if (teams) /* without teams no link carries data yet (stp__problem_read) */
      s = stp__check_times(&r->sink, m);
  }
  if (s == STP_OK)
    s = read_laws(r, root, m);
  if (s == STP_OK && !(m->file = stp__strdup(r->jr.label)))
    s = stp__oom(r->jr.err, "reading a mapping");
  stp__name_index_free(&ix);
  if (s != STP_OK) {
    stp_mapping_free(m);
    return s;
  }
  *out = m;
  return STP_OK;
}

static stp_status load_string(const char *text, size_t len, const char *label,
                              bool teams_optional, stp_mapping **out, stp_error *err) {
  reader r = {.jr = {.label = label ? label : "<input>", .text = text, .len = len, .err = err},
              .teams_optional = teams_optional};
  r.sink = (stp_check_sink){.report = locate_and_fail, .ctx = &r, .err = err};
  /* the size limit, NUL bytes (where Jansson would stop or take "1\0" for
   * 1), malformed JSON and integers beyond 2^63 (read as reals) */
  json_t *root;
  STP_CHECK(stp__jr_parse(&r.jr, &root));
  stp_status s = read_root(&r, root, out);
  json_decref(root);
  return s;
}

stp_status stp_mapping_load_string(const char *text, size_t len, const char *label,
                                   stp_mapping **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_mapping_load_string: out is NULL");
  *out = NULL;
  if (!text)
    return stp__fail(err, STP_EINVAL, "stp_mapping_load_string: text is NULL");
  return load_string(text, len, label, false, out, err);
}

stp_status stp__problem_read(const char *text, size_t len, const char *label, stp_mapping **out,
                             bool *has_teams, stp_error *err) {
  *out = NULL;
  STP_CHECK(load_string(text, len, label, true, out, err));
  *has_teams = (*out)->team_off[(*out)->nstages] > 0;
  return STP_OK;
}

stp_status stp_mapping_load_file(const char *path, stp_mapping **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_mapping_load_file: out is NULL");
  *out = NULL;
  if (!path)
    return stp__fail(err, STP_EINVAL, "stp_mapping_load_file: path is NULL");
  char *text = NULL;
  size_t len = 0;
  STP_CHECK(stp__read_file(path, STP_MAX_FILE_BYTES, &text, &len, err));
  /* "-" is standard input (stp__read_file reads it); messages name it so */
  stp_status s = stp_mapping_load_string(text, len, strcmp(path, "-") ? path : "<stdin>", out,
                                         err);
  free(text);
  return s;
}
