/* reader.c: graph files (docs/format.md, "graph") -> stp_graph.
 *
 * Jansson parses the text; every key and value is then checked here and a
 * problem is reported at its own line and column (models/jsonread.h):
 * unknown keys, duplicate or undeclared names, times that are not finite
 * and >= 0 (> 0 in a graph with tokens), tokens that are not integers
 * >= 0, an empty graph, and a cycle without a token (named, at "places").
 * NUL bytes are refused before parsing. */
#include "base/fileio.h"
#include "models/jsonread.h"
#include "solvers/laws.h"
#include "streamtp_graph_file.h"

#include <stdlib.h>
#include <string.h>

/* Directory of the file, against which empirical:FILE laws resolve. */
static char *label_dir(const char *label) {
  const char *slash = strrchr(label, '/');
  if (!slash) return NULL;
  size_t n = slash == label ? 1 : (size_t)(slash - label);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, label, n);
    d[n] = '\0';
  }
  return d;
}

/* "dir/fork-join.json" -> "fork-join": the default graph name. */
static char *label_stem(const char *label) {
  const char *b = strrchr(label, '/');
  b = b ? b + 1 : label;
  size_t n = strlen(b);
  if (n > 5 && strcmp(b + n - 5, ".json") == 0) n -= 5;
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, b, n);
    s[n] = '\0';
  }
  return s;
}

static stp_status read_law(const stp_jreader *r, const json_t *v, stp_jpath path, stp_law **out) {
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_STRING, "a law"));
  char *dir = label_dir(r->label);
  stp_error lerr = {0};
  stp_status s = stp__law_parse(json_string_value(v), dir, out, &lerr);
  free(dir);
  if (s == STP_OK) return STP_OK;
  if (lerr.status == STP_ENOMEM) return stp__oom(r->err, "reading a law");
  return stp__jr_report(r, path, false, "law: %s", lerr.message);
}

static stp_status read_transition(const stp_jreader *r, const json_t *tr, stp_jpath p,
                                  stp_graph *g) {
  static const char *const keys[] = {"name", "time", "law", "output", "resource", NULL};
  STP_CHECK(stp__jr_want_type(r, tr, p, JSON_OBJECT, "a transition"));
  STP_CHECK(stp__jr_check_keys(r, tr, p, keys, "a transition"));
  json_t *v;
  STP_CHECK(stp__jr_get_member(r, tr, p, "name", "a transition", &v));
  char *name;
  STP_CHECK(stp__jr_get_name(r, v, stp__jpath_key(p, "name"), "a transition name", &name));
  size_t first;
  if (stp_graph_find(g, name, &first, NULL) == STP_OK) {
    stp_status s = stp__jr_report(r, stp__jpath_key(p, "name"), false,
                                  "transition name \"%s\" is used twice (transitions[%zu] and "
                                  "transitions[%zu])",
                                  name, first, stp_graph_transition_count(g));
    free(name);
    return s;
  }
  double time = 0;
  stp_law *law = NULL;
  stp_status s = stp__jr_get_member(r, tr, p, "time", "a transition", &v);
  if (s == STP_OK) s = stp__jr_get_time(r, v, stp__jpath_key(p, "time"), "time", true, &time);
  if (s == STP_OK && (v = json_object_get(tr, "law")))
    s = read_law(r, v, stp__jpath_key(p, "law"), &law);
  bool output = false;
  if (s == STP_OK && (v = json_object_get(tr, "output"))) {
    if (!json_is_boolean(v))
      s = stp__jr_report(r, stp__jpath_key(p, "output"), false,
                         "\"output\" must be true or false, not %s", stp__jr_json_type_name(v));
    output = json_is_true(v);
  }
  const char *resource = NULL;
  if (s == STP_OK && (v = json_object_get(tr, "resource"))) {
    if (!json_is_string(v) || !*json_string_value(v))
      s = stp__jr_report(r, stp__jpath_key(p, "resource"), false,
                         "\"resource\" must be a non-empty string, not %s",
                         json_is_string(v) ? "an empty one" : stp__jr_json_type_name(v));
    else
      resource = json_string_value(v);
  }
  size_t t;
  if (s == STP_OK)
    s = stp_graph_add_transition(g, name, time, law, &t, r->err); /* takes the law */
  else
    stp_law_free(law);
  if (s == STP_OK && output) s = stp_graph_set_output(g, t, r->err);
  if (s == STP_OK && resource) s = stp_graph_set_resource(g, t, resource, r->err);
  free(name);
  return s;
}

/* The index of the transition named by the string at path. */
static stp_status lookup(const stp_jreader *r, const stp_graph *g, const json_t *v, stp_jpath path,
                         const char *what, size_t *t) {
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_STRING, what));
  const char *name = json_string_value(v);
  if (stp_graph_find(g, name, t, NULL) == STP_OK) return STP_OK;
  /* a hint costs a pass over the names: only for graphs written by hand */
  const char *hint = NULL;
  size_t best = STP_JR_HINT_DISTANCE, n = stp_graph_transition_count(g);
  for (size_t k = 0; n <= 10000 && k < n; k++)
    stp__jr_consider_hint(name, stp_graph_transition_name(g, k), &best, &hint);
  if (hint)
    return stp__jr_report(r, path, false, "%s \"%s\" is not a declared transition (did you mean "
                          "\"%s\"?)", what, name, hint);
  return stp__jr_report(r, path, false, "%s \"%s\" is not a declared transition", what, name);
}

static stp_status read_place(const stp_jreader *r, const json_t *pl, stp_jpath p, stp_graph *g,
                             uint64_t *tokens) {
  static const char *const keys[] = {"from", "to", "tokens", NULL};
  STP_CHECK(stp__jr_want_type(r, pl, p, JSON_OBJECT, "a place"));
  STP_CHECK(stp__jr_check_keys(r, pl, p, keys, "a place"));
  json_t *v;
  size_t from, to;
  STP_CHECK(stp__jr_get_member(r, pl, p, "from", "a place", &v));
  STP_CHECK(lookup(r, g, v, stp__jpath_key(p, "from"), "\"from\"", &from));
  STP_CHECK(stp__jr_get_member(r, pl, p, "to", "a place", &v));
  STP_CHECK(lookup(r, g, v, stp__jpath_key(p, "to"), "\"to\"", &to));
  *tokens = 0;
  if ((v = json_object_get(pl, "tokens")))
    STP_CHECK(stp__jr_get_count(r, v, stp__jpath_key(p, "tokens"), "tokens",
                                STP_GRAPH_MAX_TOKENS, tokens));
  return stp_graph_add_place(g, from, to, *tokens, r->err);
}

/* A graph with tokens is a timed event graph: its times must be > 0.
 * Checked here rather than by stp_graph_check to point at the time. */
static stp_status teg_times(const stp_jreader *r, const stp_graph *g) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "transitions");
  for (size_t t = 0; t < stp_graph_transition_count(g); t++)
    if (stp_graph_transition_time(g, t) == 0) {
      return stp__jr_report(r, stp__jpath_key(stp__jpath_index(base, t), "time"), false,
                            "transition \"%s\": time 0 in a graph with tokens (a timed event "
                            "graph needs times > 0)",
                            stp_graph_transition_name(g, t));
    }
  return STP_OK;
}

static stp_status read_root(const stp_jreader *r, const json_t *root, stp_graph *g) {
  static const char *const keys[] = {"name", "transitions", "places", NULL};
  stp_jpath top = {0};
  if (!json_is_object(root))
    return stp__jr_report(r, top, false, "the top level must be an object, not %s",
                          stp__jr_json_type_name(root));
  STP_CHECK(stp__jr_check_kind(r, root, "graph"));
  STP_CHECK(stp__jr_check_keys(r, root, top, keys, "a graph"));
  json_t *trs, *pls = json_object_get(root, "places");
  STP_CHECK(stp__jr_get_member(r, root, top, "transitions", "a graph", &trs));
  stp_jpath tp = stp__jpath_key(top, "transitions"), pp = stp__jpath_key(top, "places");
  STP_CHECK(stp__jr_want_type(r, trs, tp, JSON_ARRAY, "\"transitions\""));
  if (json_array_size(trs) == 0)
    return stp__jr_report(r, tp, false, "the graph has no transition");
  if (json_array_size(trs) > STP_GRAPH_MAX_TRANSITIONS)
    return stp__jr_report(r, tp, false, "more than %llu transitions",
                          (unsigned long long)STP_GRAPH_MAX_TRANSITIONS);
  for (size_t i = 0; i < json_array_size(trs); i++)
    STP_CHECK(read_transition(r, json_array_get(trs, i), stp__jpath_index(tp, i), g));
  uint64_t marked = 0;
  if (pls) {
    STP_CHECK(stp__jr_want_type(r, pls, pp, JSON_ARRAY, "\"places\""));
    for (size_t i = 0; i < json_array_size(pls); i++) {
      uint64_t tokens;
      STP_CHECK(read_place(r, json_array_get(pls, i), stp__jpath_index(pp, i), g, &tokens));
      marked += tokens > 0;
    }
  }
  if (marked) STP_CHECK(teg_times(r, g));
  stp_error cerr = {0};
  stp_status s = stp_graph_check(g, &cerr);
  if (s == STP_OK) return STP_OK;
  if (!stp_status_is_input_error(s)) {
    *r->err = cerr;
    return s;
  }
  stp__jr_report(r, pls ? pp : tp, pls != NULL, "%s", cerr.message);
  if (r->err) r->err->status = s;
  return s;
}

stp_status stp_graph_read_string(const char *text, size_t len, const char *label,
                                 stp_graph **out, stp_error *err) {
  if (!out) return stp__fail(err, STP_EINVAL, "stp_graph_read_string: out is NULL");
  *out = NULL;
  if (!text) return stp__fail(err, STP_EINVAL, "stp_graph_read_string: text is NULL");
  stp_jreader r = {.label = label ? label : "<input>", .text = text, .len = len, .err = err};
  json_t *root;
  STP_CHECK(stp__jr_parse(&r, &root));
  char *name = NULL;
  json_t *v = json_is_object(root) ? json_object_get(root, "name") : NULL;
  stp_status s = v ? stp__jr_get_name(&r, v, stp__jpath_key((stp_jpath){0}, "name"),
                                      "the graph name", &name)
                   : ((name = label_stem(r.label)) ? STP_OK : stp__oom(err, "reading a graph"));
  stp_graph *g = NULL;
  if (s == STP_OK) s = stp_graph_new(name, &g, err);
  if (s == STP_OK) s = read_root(&r, root, g);
  free(name);
  json_decref(root);
  if (s != STP_OK) {
    stp_graph_free(g);
    return s;
  }
  *out = g;
  return STP_OK;
}

stp_status stp_graph_read_file(const char *path, stp_graph **out, stp_error *err) {
  if (!out) return stp__fail(err, STP_EINVAL, "stp_graph_read_file: out is NULL");
  *out = NULL;
  if (!path) return stp__fail(err, STP_EINVAL, "stp_graph_read_file: path is NULL");
  char *text = NULL;
  size_t len = 0;
  STP_CHECK(stp__read_file(path, STP_MAX_FILE_BYTES, &text, &len, err));
  stp_status s = stp_graph_read_string(text, len, path, out, err);
  free(text);
  return s;
}
