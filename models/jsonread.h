/* jsonread.h: checking JSON input files value by value (jsonread.c).
 * Jansson parses; these helpers check keys, types and values and report
 * each problem as "label:line:col: what" at the offending value (or its key),
 * so that every reader of streamtp speaks alike. */
#ifndef STP_JSONREAD_H
#define STP_JSONREAD_H

#include "base/core.h"
#include "base/jsonpos.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>

/* The text being read: label names it in messages ("file.json").
 * list_allowed: an unknown key is answered with the list of the allowed
 * keys (readers whose objects have few, short keys) instead of the closest
 * one ("did you mean"). */
typedef struct stp_jreader {
  const char *label;
  const char *text;
  size_t len;
  stp_error *err;
  bool list_allowed;
} stp_jreader;

#define STP_JR_HINT_DISTANCE 3 /* "did you mean" only within this many edits */

/* STP_EINVAL with "label:line:col: message" at the value at path (at its
 * key when at_key), or "label: message" when the path is not found. */
stp_status stp__jr_vreport(const stp_jreader *r, const stp_jpath *path, bool at_key,
                           const char *fmt, va_list ap);
stp_status stp__jr_report(const stp_jreader *r, stp_jpath path, bool at_key, const char *fmt,
                          ...) STP_PRINTF(4, 5);
/* "an object", "a number", ... */
const char *stp__jr_json_type_name(const json_t *v);
/* Levenshtein distance (SIZE_MAX beyond 64 bytes). */
size_t stp__jr_edit_distance(const char *a, const char *b);
/* Keeps candidate as *hint when it is the closest to name so far. */
void stp__jr_consider_hint(const char *name, const char *candidate, size_t *best,
                           const char **hint);
/* The top-level object of a file of another kind (a graph given where a
 * mapping is read, ...) is named as such, with the command that reads it,
 * instead of failing on its first key.  kind: "mapping", "graph" or
 * "platform", what the caller reads. */
stp_status stp__jr_check_kind(const stp_jreader *r, const json_t *root, const char *kind);
/* Every key of obj must be in allowed (NULL-terminated); where = "a stage". */
stp_status stp__jr_check_keys(const stp_jreader *r, const json_t *obj, stp_jpath path,
                              const char *const *allowed, const char *where);
/* v must have type t (JSON_REAL accepts any number); what names it. */
stp_status stp__jr_want_type(const stp_jreader *r, const json_t *v, stp_jpath path, json_type t,
                             const char *what);
stp_status stp__jr_get_member(const stp_jreader *r, const json_t *obj, stp_jpath path,
                              const char *key, const char *where, json_t **out);
/* A finite number > 0 (>= 0 when allow_zero). */
stp_status stp__jr_get_positive(const stp_jreader *r, const json_t *v, stp_jpath path,
                                const char *what, bool allow_zero, double *out);
/* A time: a number that passes stp__rule_time (0 when allow_zero, else
 * within [STP_TIME_MIN, STP_TIME_MAX]). */
stp_status stp__jr_get_time(const stp_jreader *r, const json_t *v, stp_jpath path,
                            const char *what, bool allow_zero, double *out);
/* A name that passes stp__rule_name (base/inputrules.h), copied into *out. */
stp_status stp__jr_get_name(const stp_jreader *r, const json_t *v, stp_jpath path,
                            const char *what, char **out);
/* An integer in [0, max] (a number with a fraction is refused). */
stp_status stp__jr_get_count(const stp_jreader *r, const json_t *v, stp_jpath path,
                             const char *what, uint64_t max, uint64_t *out);
/* STP_EINVAL at the first NUL byte of the text (Jansson would stop there
 * or misreport it). */
stp_status stp__jr_reject_nul(const stp_jreader *r);
/* The checks before any value: at most STP_MAX_FILE_BYTES, no NUL byte,
 * well-formed JSON without duplicate keys (malformed JSON reported at
 * Jansson's line and column).  *root is the parsed document (the caller
 * json_decref's it), NULL on failure. */
stp_status stp__jr_parse(const stp_jreader *r, json_t **root);

#endif /* STP_JSONREAD_H */
