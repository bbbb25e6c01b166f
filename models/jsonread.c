/* jsonread.c: checking JSON input files value by value, with the file,
 * line and column of every offending value (found again by base/jsonpos.c)
 * and "did you mean" hints on unknown keys.  Shared by the readers of the
 * model families (graph files, broadcast platforms). */
#include "models/jsonread.h"

#include "base/core.h"
#include "base/fileio.h"
#include "base/inputrules.h"
#include "base/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


stp_status stp__jr_vreport(const stp_jreader *r, const stp_jpath *path, bool at_key, const char *fmt,
                          va_list ap) {
  char what[STP_ERROR_MAX];
  stp__vsnprintf(what, sizeof what, fmt, ap); /* "2.5", never "2,5", under any locale */
  int line, col;
  if (path && stp__json_locate(r->text, r->len, path, at_key, &line, &col))
    return stp__fail(r->err, STP_EINVAL, "%s:%d:%d: %s", r->label, line, col, what);
  return stp__fail(r->err, STP_EINVAL, "%s: %s", r->label, what);
}

/* Report a problem with the value at `path` (or its key when at_key). */
stp_status stp__jr_report(const stp_jreader *r, stp_jpath path, bool at_key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  stp_status s = stp__jr_vreport(r, &path, at_key, fmt, ap);
  va_end(ap);
  return s;
}

const char *stp__jr_json_type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER:
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  default: return "null";
  }
}

/* Levenshtein distance, for "did you mean" hints on unknown keys. */
size_t stp__jr_edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64)
    return SIZE_MAX;
  size_t row[65];
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* "Did you mean": keep `candidate` as the hint when it is the closest to
 * `name` so far, and closer than STP_JR_HINT_DISTANCE edits. */
void stp__jr_consider_hint(const char *name, const char *candidate, size_t *best,
                          const char **hint) {
  size_t d = stp__jr_edit_distance(name, candidate);
  if (d < *best) {
    *best = d;
    *hint = candidate;
  }
}

/* "unknown key ... (allowed: "a", "b")": the list, for readers that ask. */
static stp_status unknown_key_listed(const stp_jreader *r, stp_jpath path, const char *key,
                                     const char *const *allowed, const char *where) {
  char list[256] = "";
  for (const char *const *a = allowed; *a; a++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", a == allowed ? "" : ", ",
             *a);
  return stp__jr_report(r, stp__jpath_key(path, key), true,
                        "unknown key \"%s\" in %s (allowed: %s)", key, where, list);
}

/* The kinds of input file, each known by the key no other kind has. */
static const struct {
  const char *kind, *key, *what, *command;
} kinds[] = {
    {"mapping", "stages", "a mapping file", "streamtp eval, simulate, batch, optimize, teg, ctmc"},
    {"graph", "transitions", "an event graph file", "streamtp graph"},
    {"platform", "clusters", "a broadcast platform file", "streamtp bcast"},
};

stp_status stp__jr_check_kind(const stp_jreader *r, const json_t *root, const char *kind) {
  size_t n = sizeof kinds / sizeof kinds[0], want = n;
  for (size_t k = 0; k < n; k++)
    if (strcmp(kinds[k].kind, kind) == 0)
      want = k;
  if (want == n || !json_is_object(root) || json_object_get(root, kinds[want].key))
    return STP_OK; /* its own kind, even with mistakes: the key checks say which */
  for (size_t k = 0; k < n; k++)
    if (k != want && json_object_get(root, kinds[k].key))
      return stp__jr_report(r, (stp_jpath){0}, false,
                            "this is %s (it has \"%s\"), not %s: it is read by %s",
                            kinds[k].what, kinds[k].key, kinds[want].what, kinds[k].command);
  return STP_OK;
}

/* Every key of obj must be in `allowed` (NULL-terminated). */
stp_status stp__jr_check_keys(const stp_jreader *r, const json_t *obj, stp_jpath path,
                             const char *const *allowed, const char *where) {
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)obj, key, val) {
    const char *hint = NULL;
    size_t best = STP_JR_HINT_DISTANCE;
    bool ok = false;
    for (const char *const *a = allowed; *a; a++) {
      if (strcmp(key, *a) == 0)
        ok = true;
      stp__jr_consider_hint(key, *a, &best, &hint);
    }
    if (ok)
      continue;
    if (r->list_allowed)
      return unknown_key_listed(r, path, key, allowed, where);
    if (hint)
      return stp__jr_report(r, stp__jpath_key(path, key), true,
                    "unknown key \"%s\" in %s (did you mean \"%s\"?)", key, where, hint);
    return stp__jr_report(r, stp__jpath_key(path, key), true, "unknown key \"%s\" in %s", key, where);
  }
  return STP_OK;
}

stp_status stp__jr_want_type(const stp_jreader *r, const json_t *v, stp_jpath path, json_type t,
                            const char *what) {
  bool ok = json_typeof(v) == t || (t == JSON_REAL && json_is_number(v));
  if (ok)
    return STP_OK;
  const char *wanted = t == JSON_OBJECT  ? "an object"
                       : t == JSON_ARRAY ? "an array"
                       : t == JSON_STRING ? "a string"
                                          : "a number";
  char p[256];
  stp__jpath_format(&path, p, sizeof p);
  return stp__jr_report(r, path, false, "%s (%s) must be %s, not %s", what, p, wanted, stp__jr_json_type_name(v));
}

stp_status stp__jr_get_member(const stp_jreader *r, const json_t *obj, stp_jpath path, const char *key,
                             const char *where, json_t **out) {
  *out = json_object_get(obj, key);
  if (*out)
    return STP_OK;
  return stp__jr_report(r, path, false, "missing required key \"%s\" in %s", key, where);
}

typedef bool (*number_rule)(double x, bool allow_zero, const char *what, const char *where,
                            char *msg, size_t cap);

/* A number that passes rule; the path is formatted only for the message (a
 * 1500 x 1500 matrix of times took 20 s formatting paths no message used). */
static stp_status get_number(const stp_jreader *r, const json_t *v, stp_jpath path,
                             const char *what, bool allow_zero, number_rule rule, double *out) {
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_REAL, what));
  double x = json_number_value(v);
  char p[256], msg[STP_ERROR_MAX];
  if (!rule(x, allow_zero, what, "", msg, sizeof msg)) {
    stp__jpath_format(&path, p, sizeof p);
    rule(x, allow_zero, what, p, msg, sizeof msg);
    return stp__jr_report(r, path, false, "%s", msg);
  }
  *out = x;
  return STP_OK;
}

/* A number that must be finite and > 0 (or >= 0 when allow_zero). */
stp_status stp__jr_get_positive(const stp_jreader *r, const json_t *v, stp_jpath path,
                               const char *what, bool allow_zero, double *out) {
  return get_number(r, v, path, what, allow_zero, stp__rule_positive, out);
}

stp_status stp__jr_get_time(const stp_jreader *r, const json_t *v, stp_jpath path,
                            const char *what, bool allow_zero, double *out) {
  return get_number(r, v, path, what, allow_zero, stp__rule_time, out);
}

stp_status stp__jr_get_name(const stp_jreader *r, const json_t *v, stp_jpath path, const char *what,
                           char **out) {
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_STRING, what));
  char msg[STP_ERROR_MAX];
  if (!stp__rule_name(json_string_value(v), json_string_length(v), what, msg, sizeof msg))
    return stp__jr_report(r, path, false, "%s", msg);
  *out = stp__strdup(json_string_value(v));
  return *out ? STP_OK : stp__oom(r->err, "reading a name");
}

stp_status stp__jr_get_count(const stp_jreader *r, const json_t *v, stp_jpath path,
                             const char *what, uint64_t max, uint64_t *out) {
  char p[256];
  stp__jpath_format(&path, p, sizeof p);
  if (json_is_real(v)) {
    double x = json_real_value(v);
    if (x != floor(x) || x < 0 || x > (double)max)
      return stp__jr_report(r, path, false, "%s (%s) must be an integer in 0..%llu, got %g", what,
                            p, (unsigned long long)max, x);
    *out = (uint64_t)x;
    return STP_OK;
  }
  STP_CHECK(stp__jr_want_type(r, v, path, JSON_INTEGER, what));
  json_int_t x = json_integer_value(v);
  if (x < 0 || (uint64_t)x > max)
    return stp__jr_report(r, path, false, "%s (%s) must be an integer in 0..%llu, got %lld", what,
                          p, (unsigned long long)max, (long long)x);
  *out = (uint64_t)x;
  return STP_OK;
}

stp_status stp__jr_reject_nul(const stp_jreader *r) {
  return stp__reject_nul(r->text, r->len, r->label, "JSON", r->err);
}

stp_status stp__jr_parse(const stp_jreader *r, json_t **root) {
  *root = NULL;
  if (r->len > STP_MAX_FILE_BYTES)
    return stp__fail(r->err, STP_EINVAL, "%s: the file is %zu bytes; the limit is %d MiB",
                     r->label, r->len, STP_MAX_FILE_BYTES >> 20);
  STP_CHECK(stp__jr_reject_nul(r));
  json_error_t je;
  *root = json_loadb(r->text, r->len, JSON_REJECT_DUPLICATES, &je);
  /* Jansson refuses integers of 2^63 or more while it takes 1e22 as a real:
   * read every number as a real then, so that the value's own check names
   * what is wrong with it ("tokens ... must be an integer in 0..1e9") */
  if (!*root && json_error_code(&je) == json_error_numeric_overflow)
    *root = json_loadb(r->text, r->len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &je);
  if (!*root) /* Jansson's column is 0 right after a line break; ours count from 1 */
    return stp__fail(r->err, STP_EINVAL, "%s:%d:%d: malformed JSON: %s", r->label, je.line,
                     je.column < 1 ? 1 : je.column, je.text);
  return STP_OK;
}
