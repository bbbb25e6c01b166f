/* writer.c: stp_mapping -> mapping-file text (docs/format.md), the inverse of
 * reader.c.  The layout puts one stage, processor or link per line so that
 * generated files stay readable and diffable; every number is written with
 * the fewest significant digits that read back to the same double, so a
 * written mapping reads back to exactly the same times. */
#include "base/core.h"
#include "models/pipeline/mapping.h"
#include "streamtp_generate.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest of %.15g, %.16g, %.17g that round-trips, in any locale. */
static void put_number(FILE *f, double x) {
  char buf[40];
  stp_format_double(x, buf, sizeof buf);
  fputs(buf, f);
}

/* A JSON string literal (jansson does the escaping). */
static int put_string(FILE *f, const char *s) {
  json_t *j = json_string(s);
  int rc = j ? json_dumpf(j, f, JSON_ENCODE_ANY) : -1;
  json_decref(j);
  return rc;
}

static int put_stages(FILE *f, const stp_mapping *m) {
  int rc = 0;
  fputs("  \"stages\": [\n", f);
  for (size_t i = 0; i < m->nstages && rc == 0; i++) {
    fputs("    {\"name\": ", f);
    rc = put_string(f, m->stages[i].name);
    fputs(", \"work\": ", f);
    put_number(f, m->stages[i].work);
    if (i + 1 < m->nstages || m->stages[i].output > 0) { /* the last may omit it */
      fputs(", \"output\": ", f);
      put_number(f, m->stages[i].output);
    }
    fputs(i + 1 < m->nstages ? "},\n" : "}\n", f);
  }
  fputs("  ],\n", f);
  return rc;
}

static int put_processors(FILE *f, const stp_mapping *m) {
  int rc = 0;
  fputs("  \"processors\": [\n", f);
  for (size_t p = 0; p < m->nprocs && rc == 0; p++) {
    fputs("    {\"name\": ", f);
    rc = put_string(f, m->procs[p].name);
    fputs(", \"speed\": ", f);
    put_number(f, m->procs[p].speed);
    fputs(p + 1 < m->nprocs ? "},\n" : "}\n", f);
  }
  fputs("  ],\n", f);
  return rc;
}

static int put_links(FILE *f, const stp_mapping *m) {
  int rc = 0;
  if (m->bandwidth > 0) {
    fputs("  \"bandwidth\": ", f);
    put_number(f, m->bandwidth);
    fputs(",\n", f);
  }
  if (m->nlinks == 0)
    return 0;
  fputs("  \"links\": [\n", f);
  for (size_t k = 0; k < m->nlinks && rc == 0; k++) {
    const stp_link *l = &m->links[k];
    fputs("    {\"from\": ", f);
    rc = put_string(f, m->procs[l->from].name);
    fputs(", \"to\": ", f);
    if (rc == 0)
      rc = put_string(f, m->procs[l->to].name);
    fputs(", \"bandwidth\": ", f);
    put_number(f, l->bandwidth);
    fputs(k + 1 < m->nlinks ? "},\n" : "}\n", f);
  }
  fputs("  ],\n", f);
  return rc;
}

static int put_teams(FILE *f, const stp_mapping *m) {
  int rc = 0;
  fputs("  \"mapping\": [", f);
  for (size_t i = 0; i < m->nstages && rc == 0; i++) {
    fputs(i ? ",\n              [" : "[", f);
    for (size_t k = 0; k < stp__team_size(m, i) && rc == 0; k++) {
      if (k)
        fputs(", ", f);
      rc = put_string(f, m->procs[stp__team_member(m, i, k)].name);
    }
    fputc(']', f);
  }
  fputs("]\n", f);
  return rc;
}

static int put_mapping(FILE *f, const stp_mapping *m) {
  fputs("{\n  \"name\": ", f);
  int rc = put_string(f, m->name);
  fprintf(f, ",\n  \"model\": \"%s\",\n", stp_model_name(m->model));
  if (rc == 0)
    rc = put_stages(f, m);
  if (rc == 0)
    rc = put_processors(f, m);
  if (rc == 0)
    rc = put_links(f, m);
  if (rc == 0)
    rc = put_teams(f, m);
  fputs("}\n", f);
  return rc;
}

stp_status stp_mapping_to_json(const stp_mapping *m, char **text, size_t *len, stp_error *err) {
  if (!text)
    return stp__fail(err, STP_EINVAL, "stp_mapping_to_json: text is NULL");
  *text = NULL;
  if (len)
    *len = 0;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_mapping_to_json: mapping is NULL");
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f)
    return stp__oom(err, "writing a mapping");
  int rc = put_mapping(f, m);
  if (fclose(f) != 0 || rc != 0) {
    free(buf);
    return stp__oom(err, "writing a mapping");
  }
  *text = buf;
  if (len)
    *len = n;
  return STP_OK;
}

stp_status stp_mapping_save_file(const stp_mapping *m, const char *path, stp_error *err) {
  if (!path)
    return stp__fail(err, STP_EINVAL, "stp_mapping_save_file: path is NULL");
  char *text;
  size_t len;
  STP_CHECK(stp_mapping_to_json(m, &text, &len, err));
  /* written whole: a failed write or a kill leaves the old file */
  stp_atomic_file *a;
  FILE *f;
  stp_status s = stp_atomic_open(path, &a, &f, err);
  if (s == STP_OK && fwrite(text, 1, len, f) != len) {
    s = stp__fail(err, STP_EIO, "%s: cannot write: %s", path, strerror(errno));
    stp_atomic_abort(a);
  } else if (s == STP_OK) {
    s = stp_atomic_commit(a, err);
  }
  free(text);
  return s;
}
