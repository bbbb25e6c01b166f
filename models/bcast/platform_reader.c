/* platform_reader.c: broadcast platform files (docs/format.md, "bcast")
 * -> stp_bcast_platform.  Jansson parses; every key and value is checked
 * here and each problem is reported as file:line:col (the position found
 * again by base/jsonpos.c) with what is wrong.  The generic checks (keys,
 * types, names, the parse itself) are models/jsonread's; what is left here
 * is what a platform means: times, gaps, the symmetric matrices. */
#include "models/bcast/platform.h"

#include "base/core.h"
#include "base/fileio.h"
#include "models/jsonread.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static stp_jpath key(stp_jpath p, const char *k) { return stp__jpath_key(p, k); }
static stp_jpath idx(stp_jpath p, size_t i) { return stp__jpath_index(p, i); }

/* A time: 0, or a number within [STP_TIME_MIN, STP_TIME_MAX]. */
static stp_status get_time(const stp_jreader *r, const json_t *v, stp_jpath path, const char *what,
                           double *out) {
  return stp__jr_get_time(r, v, path, what, true, out);
}

/* A gap: a number, or {"g0": a, "per_byte": b} meaning a + b * size. */
static stp_status get_gap(const stp_jreader *r, const json_t *v, stp_jpath path, const char *what,
                          stp__bcast_gap *out, bool *needs_size) {
  *out = (stp__bcast_gap){0};
  if (!json_is_object(v)) {
    if (!json_is_number(v)) {
      char p[256];
      stp__jpath_format(&path, p, sizeof p);
      return stp__jr_report(r, path, false,
                            "%s (%s) must be a number or {\"g0\": a, \"per_byte\": b}, not %s",
                            what, p, stp__jr_json_type_name(v));
    }
    return get_time(r, v, path, what, &out->g0);
  }
  static const char *const keys[] = {"g0", "per_byte", NULL};
  STP_CHECK(stp__jr_check_keys(r, v, path, keys, "an affine gap"));
  json_t *x;
  STP_CHECK(stp__jr_get_member(r, v, path, "g0", "an affine gap", &x));
  STP_CHECK(get_time(r, x, key(path, "g0"), "g0", &out->g0));
  STP_CHECK(stp__jr_get_member(r, v, path, "per_byte", "an affine gap", &x));
  STP_CHECK(get_time(r, x, key(path, "per_byte"), "per_byte", &out->per_byte));
  out->affine = true;
  *needs_size = true;
  return STP_OK;
}

/* jsonread's name checks, and no "->" (it separates the clusters of a send). */
static stp_status get_name(const stp_jreader *r, const json_t *v, stp_jpath path, char **out) {
  STP_CHECK(stp__jr_get_name(r, v, path, "a cluster name", out));
  if (!strstr(*out, "->"))
    return STP_OK;
  free(*out);
  *out = NULL;
  return stp__jr_report(r, path, false, "a cluster name must not contain \"->\" (it names sends)");
}

static stp_status read_cluster(const stp_jreader *r, const json_t *c, stp_jpath p,
                               stp_bcast_platform *pf, size_t j) {
  static const char *const keys[] = {"name", "size", "L", "g", NULL};
  json_t *v;
  STP_CHECK(stp__jr_want_type(r, c, p, JSON_OBJECT, "a cluster"));
  STP_CHECK(stp__jr_check_keys(r, c, p, keys, "a cluster"));
  STP_CHECK(stp__jr_get_member(r, c, p, "name", "a cluster", &v));
  STP_CHECK(get_name(r, v, key(p, "name"), &pf->names[j]));
  for (size_t k = 0; k < j; k++)
    if (strcmp(pf->names[k], pf->names[j]) == 0)
      return stp__jr_report(r, key(p, "name"), false,
                            "cluster name \"%s\" is used twice (clusters[%zu] and clusters[%zu])",
                            pf->names[j], k, j);
  STP_CHECK(stp__jr_get_member(r, c, p, "size", "a cluster", &v));
  /* an integer, written as one or not (4.0, 4e0): the number is what counts */
  if (stp__jr_get_count(r, v, key(p, "size"), "the size of a cluster", STP_BCAST_MAX_CLUSTER_SIZE,
                        &pf->sizes[j]) != STP_OK ||
      pf->sizes[j] < 1)
    return stp__jr_report(r, key(p, "size"), false,
                          "the size of cluster \"%s\" must be an integer in 1..%llu (machines)",
                          pf->names[j], (unsigned long long)STP_BCAST_MAX_CLUSTER_SIZE);
  STP_CHECK(stp__jr_get_member(r, c, p, "L", "a cluster", &v));
  STP_CHECK(get_time(r, v, key(p, "L"), "the latency L", &pf->L[j]));
  STP_CHECK(stp__jr_get_member(r, c, p, "g", "a cluster", &v));
  return get_gap(r, v, key(p, "g"), "the gap g", &pf->g[j], &pf->needs_size);
}

static bool same_gap(stp__bcast_gap a, stp__bcast_gap b) {
  return a.g0 == b.g0 && a.per_byte == b.per_byte; /* the same text gives the same double */
}

/* inter.L or inter.g: C rows of C entries, symmetric off the diagonal. */
static stp_status read_matrix(const stp_jreader *r, const json_t *m, stp_jpath p, const char *name,
                              stp_bcast_platform *pf) {
  size_t n = pf->n;
  bool is_gap = strcmp(name, "g") == 0;
  STP_CHECK(stp__jr_want_type(r, m, p, JSON_ARRAY, is_gap ? "inter.g" : "inter.L"));
  if (json_array_size(m) != n)
    return stp__jr_report(r, p, false,
                          "inter.%s has %zu rows; it must be %zu x %zu (one per cluster)", name,
                          json_array_size(m), n, n);
  for (size_t i = 0; i < n; i++) {
    json_t *row = json_array_get(m, i);
    stp_jpath pr = idx(p, i);
    STP_CHECK(stp__jr_want_type(r, row, pr, JSON_ARRAY, "a matrix row"));
    if (json_array_size(row) != n)
      return stp__jr_report(r, pr, false, "row %zu of inter.%s has %zu entries; it must have %zu",
                            i, name, json_array_size(row), n);
    for (size_t j = 0; j < n; j++) {
      json_t *v = json_array_get(row, j);
      if (i == j) { /* ignored: a number or null (a cluster does not send to itself) */
        if (!json_is_number(v) && !json_is_null(v))
          return stp__jr_report(r, idx(pr, j), false,
                                "the diagonal of inter.%s is ignored but must "
                                "be a number or null, not %s",
                                name, stp__jr_json_type_name(v));
        continue;
      }
      const char *what = is_gap ? "inter.g" : "inter.L";
      if (is_gap)
        STP_CHECK(get_gap(r, v, idx(pr, j), what, &pf->ig[i * n + j], &pf->needs_size));
      else
        STP_CHECK(get_time(r, v, idx(pr, j), what, &pf->iL[i * n + j]));
    }
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++) {
      bool same = is_gap ? same_gap(pf->ig[i * n + j], pf->ig[j * n + i])
                         : pf->iL[i * n + j] == pf->iL[j * n + i];
      if (!same)
        return stp__jr_report(
            r, idx(idx(p, i), j), false,
            "inter.%s[%zu][%zu] differs from inter.%s[%zu][%zu]: the matrix must be "
            "symmetric (links are the same both ways)",
            name, i, j, name, j, i);
    }
  return STP_OK;
}

static stp_status read_inter(const stp_jreader *r, const json_t *root, stp_bcast_platform *pf) {
  static const char *const keys[] = {"L", "g", NULL};
  stp_jpath p = key((stp_jpath){0}, "inter");
  json_t *inter, *v;
  STP_CHECK(stp__jr_get_member(r, root, (stp_jpath){0}, "inter", "the top-level object", &inter));
  STP_CHECK(stp__jr_want_type(r, inter, p, JSON_OBJECT, "\"inter\""));
  STP_CHECK(stp__jr_check_keys(r, inter, p, keys, "\"inter\""));
  STP_CHECK(stp__jr_get_member(r, inter, p, "L", "\"inter\"", &v));
  STP_CHECK(read_matrix(r, v, key(p, "L"), "L", pf));
  STP_CHECK(stp__jr_get_member(r, inter, p, "g", "\"inter\"", &v));
  return read_matrix(r, v, key(p, "g"), "g", pf);
}

static stp_status read_root(const stp_jreader *r, const json_t *root, stp_bcast_platform **out) {
  static const char *const keys[] = {"clusters", "inter", "root", NULL};
  stp_jpath top = {0}, pc = key(top, "clusters");
  if (!json_is_object(root))
    return stp__jr_report(r, top, false, "the top level must be an object, not %s",
                          stp__jr_json_type_name(root));
  STP_CHECK(stp__jr_check_kind(r, root, "platform"));
  STP_CHECK(stp__jr_check_keys(r, root, top, keys, "the top-level object"));
  json_t *cl, *v;
  STP_CHECK(stp__jr_get_member(r, root, top, "clusters", "the top-level object", &cl));
  STP_CHECK(stp__jr_want_type(r, cl, pc, JSON_ARRAY, "\"clusters\""));
  size_t n = json_array_size(cl);
  if (n == 0)
    return stp__jr_report(r, pc, false, "\"clusters\" must not be empty");
  if (n > STP_BCAST_MAX_CLUSTERS)
    return stp__jr_report(r, pc, false, "\"clusters\" has %zu entries; the limit is %d", n,
                          STP_BCAST_MAX_CLUSTERS);
  stp_bcast_platform *pf;
  STP_CHECK(stp__bcast_platform_alloc(n, &pf, r->err));
  stp_status s = STP_OK;
  for (size_t j = 0; j < n && s == STP_OK; j++)
    s = read_cluster(r, json_array_get(cl, j), idx(pc, j), pf, j);
  if (s == STP_OK)
    s = read_inter(r, root, pf);
  if (s == STP_OK && (v = json_object_get(root, "root"))) {
    stp_jpath pr = key(top, "root");
    s = stp__jr_want_type(r, v, pr, JSON_STRING, "\"root\"");
    if (s == STP_OK && stp_bcast_cluster_find(pf, json_string_value(v), &pf->root, NULL) != STP_OK)
      s = stp__jr_report(r, pr, false, "\"root\": unknown cluster \"%s\"", json_string_value(v));
  }
  if (s == STP_OK && !(pf->file = stp__strdup(r->label)))
    s = stp__oom(r->err, "reading a platform");
  if (s != STP_OK) {
    stp_bcast_platform_free(pf);
    return s;
  }
  *out = pf;
  return STP_OK;
}

stp_status stp_bcast_platform_load_string(const char *text, size_t len, const char *label,
                                          stp_bcast_platform **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_bcast_platform_load_string: out is NULL");
  *out = NULL;
  if (!text)
    return stp__fail(err, STP_EINVAL, "stp_bcast_platform_load_string: text is NULL");
  stp_jreader r = {.label = label ? label : "<input>", .text = text, .len = len, .err = err,
                   .list_allowed = true};
  json_t *root;
  STP_CHECK(stp__jr_parse(&r, &root));
  stp_status s = read_root(&r, root, out);
  json_decref(root);
  return s;
}

stp_status stp_bcast_platform_load_file(const char *path, stp_bcast_platform **out,
                                        stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_bcast_platform_load_file: out is NULL");
  *out = NULL;
  if (!path)
    return stp__fail(err, STP_EINVAL, "stp_bcast_platform_load_file: path is NULL");
  char *text = NULL;
  size_t len = 0;
  STP_CHECK(stp__read_file(path, STP_MAX_FILE_BYTES, &text, &len, err));
  stp_status s = stp_bcast_platform_load_string(text, len, path, out, err);
  free(text);
  return s;
}
