/* reader.c: mapping files (FORMAT.md) -> stp_mapping.
 *
 * Jansson parses the text (and reports syntax errors with line and column);
 * this file checks every key and value, and reports each problem with the
 * file, the line and column of the offending value (found again by jsonpos.c)
 * and what is wrong.  Anything not accepted here never reaches the engine. */
#include "base/core.h"
#include "models/jsonread.h"
#include "solvers/laws.h"
#include "models/pipeline/mapping.h"
#include "models/pipeline/reader.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef stp_jreader reader;

/* ---- name lookup: processor names sorted once, then binary search --------
 * Records carry their own keys so that qsort needs no context (the reader
 * runs in several threads at once under `batch --jobs`). */
typedef struct name_rec {
  const char *name;
  size_t index;
} name_rec;

typedef struct name_index {
  size_t n;
  name_rec *rec;
} name_index;

static int name_rec_cmp(const void *a, const void *b) {
  const name_rec *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

static size_t name_lookup(const name_index *ix, const char *name) {
  name_rec key = {.name = name, .index = 0};
  size_t lo = 0, hi = ix->n;
  while (lo < hi) { /* first record whose name is >= name */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(ix->rec[mid].name, key.name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ix->n && strcmp(ix->rec[lo].name, name) == 0 ? ix->rec[lo].index : SIZE_MAX;
}

typedef struct link_rec {
  size_t from, to, index;
} link_rec;

static int link_rec_cmp(const void *a, const void *b) {
  const link_rec *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* ---- sections -------------------------------------------------------------- */
static stp_status read_stages(const reader *r, const json_t *arr, stp_mapping *m) {
  static const char *const keys[] = {"name", "work", "output", NULL};
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "stages");
  size_t n = m->nstages;
  for (size_t i = 0; i < n; i++) {
    json_t *st = json_array_get(arr, i), *v;
    stp_jpath p = stp__jpath_index(base, i);
    STP_CHECK(stp__jr_want_type(r, st, p, JSON_OBJECT, "a stage"));
    STP_CHECK(stp__jr_check_keys(r, st, p, keys, "a stage"));
    if ((v = json_object_get(st, "name")))
      STP_CHECK(stp__jr_get_name(r, v, stp__jpath_key(p, "name"), "a stage name", &m->stages[i].name));
    else if (!(m->stages[i].name = stp__asprintf("T%zu", i + 1)))
      return stp__oom(r->err, "naming a stage");
    STP_CHECK(stp__jr_get_member(r, st, p, "work", "a stage", &v));
    STP_CHECK(stp__jr_get_positive(r, v, stp__jpath_key(p, "work"), "work", false, &m->stages[i].work));
    bool last = i + 1 == n;
    v = json_object_get(st, "output");
    if (!v && !last)
      return stp__jr_report(r, p, false,
                    "missing required key \"output\" in stage %zu (only the last stage may omit it)",
                    i + 1);
    if (v)
      STP_CHECK(stp__jr_get_positive(r, v, stp__jpath_key(p, "output"), "output", last,
                             &m->stages[i].output));
  }
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < i; k++)
      if (strcmp(m->stages[i].name, m->stages[k].name) == 0)
        return stp__jr_report(r, stp__jpath_index(base, i), false,
                      "stage name \"%s\" is used twice (stages[%zu] and stages[%zu])",
                      m->stages[i].name, k, i);
  return STP_OK;
}

static stp_status read_processors(const reader *r, const json_t *arr, stp_mapping *m,
                                  name_index *ix) {
  static const char *const keys[] = {"name", "speed", NULL};
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "processors");
  for (size_t p = 0; p < m->nprocs; p++) {
    json_t *pr = json_array_get(arr, p), *v;
    stp_jpath path = stp__jpath_index(base, p);
    STP_CHECK(stp__jr_want_type(r, pr, path, JSON_OBJECT, "a processor"));
    STP_CHECK(stp__jr_check_keys(r, pr, path, keys, "a processor"));
    STP_CHECK(stp__jr_get_member(r, pr, path, "name", "a processor", &v));
    STP_CHECK(stp__jr_get_name(r, v, stp__jpath_key(path, "name"), "a processor name",
                       &m->procs[p].name));
    STP_CHECK(stp__jr_get_member(r, pr, path, "speed", "a processor", &v));
    STP_CHECK(stp__jr_get_positive(r, v, stp__jpath_key(path, "speed"), "speed", false,
                           &m->procs[p].speed));
  }
  ix->n = m->nprocs;
  ix->rec = stp__malloc_array(m->nprocs, sizeof *ix->rec);
  if (!ix->rec)
    return stp__oom(r->err, "indexing processor names");
  for (size_t p = 0; p < m->nprocs; p++)
    ix->rec[p] = (name_rec){.name = m->procs[p].name, .index = p};
  qsort(ix->rec, m->nprocs, sizeof *ix->rec, name_rec_cmp);
  for (size_t k = 1; k < m->nprocs; k++) {
    const name_rec *a = &ix->rec[k - 1], *b = &ix->rec[k];
    if (strcmp(a->name, b->name) == 0) /* sorted by index among equals */
      return stp__jr_report(r, stp__jpath_key(stp__jpath_index(base, b->index), "name"), false,
                    "processor name \"%s\" is declared twice (processors[%zu] and processors[%zu])",
                    a->name, a->index, b->index);
  }
  return STP_OK;
}

static stp_status lookup_proc(const reader *r, const name_index *ix, const json_t *v,
                              stp_jpath path, const char *what, size_t *out) {
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_STRING, what));
  *out = name_lookup(ix, json_string_value(v));
  if (*out != SIZE_MAX)
    return STP_OK;
  char p[256];
  stp__jpath_format(&path, p, sizeof p);
  return stp__jr_report(r, path, false, "processor \"%s\" in %s is not declared", json_string_value(v), p);
}

static stp_status read_links(const reader *r, const json_t *arr, stp_mapping *m,
                             const name_index *ix) {
  static const char *const keys[] = {"from", "to", "bandwidth", NULL};
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "links");
  for (size_t k = 0; k < m->nlinks; k++) {
    json_t *l = json_array_get(arr, k), *v;
    stp_jpath p = stp__jpath_index(base, k);
    stp_link *lk = &m->links[k];
    STP_CHECK(stp__jr_want_type(r, l, p, JSON_OBJECT, "a link"));
    STP_CHECK(stp__jr_check_keys(r, l, p, keys, "a link"));
    STP_CHECK(stp__jr_get_member(r, l, p, "from", "a link", &v));
    STP_CHECK(lookup_proc(r, ix, v, stp__jpath_key(p, "from"), "a link's \"from\"", &lk->from));
    STP_CHECK(stp__jr_get_member(r, l, p, "to", "a link", &v));
    STP_CHECK(lookup_proc(r, ix, v, stp__jpath_key(p, "to"), "a link's \"to\"", &lk->to));
    if (lk->from == lk->to)
      return stp__jr_report(r, p, false, "link from \"%s\" to itself", m->procs[lk->from].name);
    STP_CHECK(stp__jr_get_member(r, l, p, "bandwidth", "a link", &v));
    STP_CHECK(stp__jr_get_positive(r, v, stp__jpath_key(p, "bandwidth"), "bandwidth", false,
                           &lk->bandwidth));
  }
  link_rec *rec = stp__malloc_array(m->nlinks, sizeof *rec);
  if (!rec)
    return stp__oom(r->err, "checking links");
  for (size_t k = 0; k < m->nlinks; k++)
    rec[k] = (link_rec){.from = m->links[k].from, .to = m->links[k].to, .index = k};
  qsort(rec, m->nlinks, sizeof *rec, link_rec_cmp);
  stp_status s = STP_OK;
  for (size_t k = 1; k < m->nlinks && s == STP_OK; k++)
    if (rec[k].from == rec[k - 1].from && rec[k].to == rec[k - 1].to)
      s = stp__jr_report(r, stp__jpath_index(base, rec[k].index), false,
                 "the link \"%s\" -> \"%s\" is declared twice (links[%zu] and links[%zu])",
                 m->procs[rec[k].from].name, m->procs[rec[k].to].name, rec[k - 1].index,
                 rec[k].index);
  free(rec);
  return s;
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
  STP_CHECK(stp__jr_want_type(r, arr, base, JSON_ARRAY, "\"mapping\""));
  size_t n = json_array_size(arr);
  if (n != nstages)
    return stp__jr_report(r, base, false, "\"mapping\" has %zu team%s but the pipeline has %zu stage%s", n,
                  n == 1 ? "" : "s", nstages, nstages == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++) {
    json_t *team = json_array_get(arr, i);
    stp_jpath p = stp__jpath_index(base, i);
    STP_CHECK(stp__jr_want_type(r, team, p, JSON_ARRAY, "a team"));
    if (json_array_size(team) == 0)
      return stp__jr_report(r, p, false, "the team of stage %zu (mapping[%zu]) is empty", i + 1, i);
  }
  return STP_OK;
}

static stp_status read_teams(const reader *r, const json_t *arr, stp_mapping *m,
                             const name_index *ix) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  STP_CHECK(check_team_shapes(r, arr, m->nstages));
  size_t *where = stp__malloc_array(m->nprocs, sizeof *where); /* team index of each proc */
  if (!where)
    return stp__oom(r->err, "reading the mapping");
  for (size_t p = 0; p < m->nprocs; p++)
    where[p] = SIZE_MAX;
  stp_status s = STP_OK;
  size_t at = 0;
  for (size_t i = 0; i < m->nstages && s == STP_OK; i++) {
    json_t *team = json_array_get(arr, i);
    m->team_off[i] = at;
    for (size_t k = 0; k < json_array_size(team) && s == STP_OK; k++) {
      stp_jpath p = stp__jpath_index(stp__jpath_index(base, i), k);
      size_t q;
      s = lookup_proc(r, ix, json_array_get(team, k), p, "a team member", &q);
      if (s != STP_OK)
        break;
      if (where[q] == i)
        s = stp__jr_report(r, p, false, "processor \"%s\" appears twice in mapping[%zu]",
                   m->procs[q].name, i);
      else if (where[q] != SIZE_MAX)
        s = stp__jr_report(r, p, false,
                   "processor \"%s\" is in two teams (mapping[%zu] and mapping[%zu]); a processor "
                   "runs at most one stage",
                   m->procs[q].name, where[q], i);
      where[q] = i;
      m->team[at++] = q;
    }
  }
  m->team_off[m->nstages] = at;
  free(where);
  return s;
}

/* Every link that carries data (DESIGN.md 4: sender team_i[j+g*a] talks to
 * every receiver team_(i+1)[j+g*b] of its component) needs a bandwidth, and
 * every time derived from the file must be a finite positive number. */
static stp_status check_times(const reader *r, const stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  for (size_t i = 0; i < m->nstages; i++)
    for (size_t k = 0; k < stp__team_size(m, i); k++) {
      size_t p = stp__team_member(m, i, k);
      double c = stp__comp_time(m, p);
      if (!(isfinite(c) && c > 0))
        return stp__jr_report(r, stp__jpath_index(stp__jpath_index(base, i), k), false,
                      "the computation time of stage \"%s\" on \"%s\" (work / speed = %g) is not "
                      "a finite positive number",
                      m->stages[i].name, m->procs[p].name, c);
    }
  for (size_t i = 0; i + 1 < m->nstages; i++) {
    stp_transfer_shape sh = stp__transfer_shape(m, i);
    for (size_t j = 0; j < sh.g; j++)
      for (size_t a = 0; a < sh.u; a++)
        for (size_t b = 0; b < sh.v; b++) {
          size_t p = stp__transfer_sender(m, i, j, sh, a);
          size_t q = stp__transfer_receiver(m, i, j, sh, b);
          stp_jpath at = stp__jpath_index(stp__jpath_index(base, i + 1), j + sh.g * b);
          if (stp__link_bandwidth(m, p, q) == 0)
            return stp__jr_report(r, at, false,
                          "no bandwidth for the link \"%s\" -> \"%s\", which carries the output of "
                          "stage \"%s\": add it to \"links\" or set a default \"bandwidth\"",
                          m->procs[p].name, m->procs[q].name, m->stages[i].name);
          double d = stp__comm_time(m, p, q);
          if (!(isfinite(d) && d > 0))
            return stp__jr_report(r, at, false,
                          "the transfer time from \"%s\" to \"%s\" (output / bandwidth = %g) is "
                          "not a finite positive number",
                          m->procs[p].name, m->procs[q].name, d);
        }
  }
  return STP_OK;
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
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_STRING, what));
  stp_error lerr = {0};
  if (stp__law_parse(json_string_value(v), dir, out, &lerr) == STP_OK)
    return STP_OK;
  if (lerr.status == STP_ENOMEM)
    return stp__oom(r->err, "reading a law");
  return stp__jr_report(r, path, false, "%s: %s", what, lerr.message);
}

static stp_status unknown_stage(const reader *r, const stp_mapping *m, stp_jpath path,
                                const char *name, const char *where) {
  const char *hint = NULL;
  size_t best = STP_JR_HINT_DISTANCE;
  for (size_t i = 0; i < m->nstages; i++)
    stp__jr_consider_hint(name, m->stages[i].name, &best, &hint);
  if (hint)
    return stp__jr_report(r, path, true, "unknown stage \"%s\" in %s (did you mean \"%s\"?)", name,
                  where, hint);
  return stp__jr_report(r, path, true, "unknown stage \"%s\" in %s", name, where);
}

/* One of "stages" / "transfers": stage name -> law, into slots[i]. */
static stp_status read_law_map(const reader *r, const json_t *obj, stp_jpath path,
                               const stp_mapping *m, const name_index *stages, bool transfers,
                               const char *dir, stp_law **slots) {
  const char *where = transfers ? "\"laws\".\"transfers\"" : "\"laws\".\"stages\"";
  STP_CHECK(stp__jr_want_type(r, obj, path, JSON_OBJECT, where));
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)obj, key, val) {
    stp_jpath at = stp__jpath_key(path, key);
    size_t i = name_lookup(stages, key);
    if (i == SIZE_MAX)
      return unknown_stage(r, m, at, key, where);
    if (transfers && i + 1 == m->nstages)
      return stp__jr_report(r, at, true,
                    "\"%s\" is the last stage: its output is not transferred, so it takes no "
                    "transfer law", key);
    char what[STP_JR_MAX_NAME + 64];
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
  STP_CHECK(stp__jr_want_type(r, laws, p, JSON_OBJECT, "\"laws\""));
  STP_CHECK(stp__jr_check_keys(r, laws, p, keys, "\"laws\""));
  json_t *v;
  if ((v = json_object_get(laws, "default")))
    STP_CHECK(read_law(r, v, stp__jpath_key(p, "default"), "the default law", dir, &t->dflt));
  name_index ix = {.n = m->nstages, .rec = stp__malloc_array(m->nstages, sizeof *ix.rec)};
  if (!ix.rec)
    return stp__oom(r->err, "indexing stage names");
  for (size_t i = 0; i < m->nstages; i++)
    ix.rec[i] = (name_rec){.name = m->stages[i].name, .index = i};
  qsort(ix.rec, ix.n, sizeof *ix.rec, name_rec_cmp);
  stp_status s = STP_OK;
  if ((v = json_object_get(laws, "stages")))
    s = read_law_map(r, v, stp__jpath_key(p, "stages"), m, &ix, false, dir, t->stage);
  if (s == STP_OK && (v = json_object_get(laws, "transfers")))
    s = read_law_map(r, v, stp__jpath_key(p, "transfers"), m, &ix, true, dir, t->transfer);
  free(ix.rec);
  return s;
}

static stp_status read_laws(const reader *r, const json_t *root, stp_mapping *m) {
  json_t *laws = json_object_get(root, "laws");
  if (!laws)
    return STP_OK;
  if (!(m->laws = stp__law_table_alloc(m->nstages)))
    return stp__oom(r->err, "reading laws");
  char *dir = label_dir(r->label);
  if (strrchr(r->label, '/') && !dir)
    return stp__oom(r->err, "reading laws");
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
    STP_CHECK(stp__jr_get_name(r, v, stp__jpath_key(top, "name"), "\"name\"", &m->name));
  else if (!(m->name = file_stem(r->label)))
    return stp__oom(r->err, "naming the mapping");
  m->model = STP_MODEL_OVERLAP;
  if ((v = json_object_get(root, "model"))) {
    stp_jpath p = stp__jpath_key(top, "model");
    STP_CHECK(stp__jr_want_type(r, v, p, JSON_STRING, "\"model\""));
    if (stp_model_parse(json_string_value(v), &m->model) != STP_OK)
      return stp__jr_report(r, p, false, "\"model\" must be \"overlap\" or \"strict\", not \"%s\"",
                    json_string_value(v));
  }
  if ((v = json_object_get(root, "bandwidth")))
    STP_CHECK(stp__jr_get_positive(r, v, stp__jpath_key(top, "bandwidth"), "the default bandwidth", false,
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
      return stp__jr_report(r, (stp_jpath){0}, false, "missing required key \"%s\" in the top-level object",
                    key);
    return STP_OK;
  }
  char what[64];
  snprintf(what, sizeof what, "\"%s\"", key);
  STP_CHECK(stp__jr_want_type(r, *arr, p, JSON_ARRAY, what));
  *n = json_array_size(*arr);
  if (required && *n == 0)
    return stp__jr_report(r, p, false, "\"%s\" must not be empty", key);
  if (*n > max)
    return stp__jr_report(r, p, false, "\"%s\" has %zu entries; the limit is %zu", key, *n, max);
  return STP_OK;
}

static stp_status read_root(const reader *r, const json_t *root, stp_mapping **out) {
  static const char *const keys[] = {"name",  "model", "stages",  "processors",
                                     "bandwidth", "links", "mapping", "laws", NULL};
  stp_jpath top = {0};
  if (!json_is_object(root))
    return stp__jr_report(r, top, false, "the top level must be an object, not %s", stp__jr_json_type_name(root));
  STP_CHECK(stp__jr_check_keys(r, root, top, keys, "the top-level object"));
  json_t *stages, *procs, *links, *teams;
  size_t ns, np, nl;
  STP_CHECK(top_array(r, root, "stages", true, STP_MAX_STAGES, &stages, &ns));
  STP_CHECK(top_array(r, root, "processors", true, STP_MAX_PROCESSORS, &procs, &np));
  STP_CHECK(top_array(r, root, "links", false, STP_MAX_LINKS, &links, &nl));
  if (!(teams = json_object_get(root, "mapping")))
    return stp__jr_report(r, top, false, "missing required key \"mapping\" in the top-level object");
  stp_mapping *m;
  STP_CHECK(stp__mapping_alloc(ns, np, nl, count_members(teams), &m, r->err));
  name_index ix = {0};
  stp_status s = read_header(r, root, m);
  if (s == STP_OK)
    s = read_stages(r, stages, m);
  if (s == STP_OK)
    s = read_processors(r, procs, m, &ix);
  if (s == STP_OK)
    s = read_links(r, links, m, &ix);
  if (s == STP_OK)
    s = read_teams(r, teams, m, &ix);
  if (s == STP_OK) {
    stp__mapping_finalize(m);
    s = check_times(r, m);
  }
  if (s == STP_OK)
    s = read_laws(r, root, m);
  if (s == STP_OK && !(m->file = stp__strdup(r->label)))
    s = stp__oom(r->err, "reading a mapping");
  free(ix.rec);
  if (s != STP_OK) {
    stp_mapping_free(m);
    return s;
  }
  *out = m;
  return STP_OK;
}

stp_status stp_mapping_load_string(const char *text, size_t len, const char *label,
                                   stp_mapping **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_mapping_load_string: out is NULL");
  *out = NULL;
  if (!text)
    return stp__fail(err, STP_EINVAL, "stp_mapping_load_string: text is NULL");
  reader r = {.label = label ? label : "<input>", .text = text, .len = len, .err = err};
  if (len > STP_MAX_FILE_BYTES)
    return stp__fail(err, STP_EINVAL, "%s: the file is %zu bytes; the limit is %d MiB", r.label,
                     len, STP_MAX_FILE_BYTES >> 20);
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  if (!root)
    return stp__fail(err, STP_EINVAL, "%s:%d:%d: malformed JSON: %s", r.label, je.line,
                     je.column, je.text);
  stp_status s = read_root(&r, root, out);
  json_decref(root);
  return s;
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
  stp_status s = stp_mapping_load_string(text, len, path, out, err);
  free(text);
  return s;
}
