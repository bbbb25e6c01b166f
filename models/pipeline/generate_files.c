/* generate_files.c: a generated experiment written to a directory
 * (stp_generate_files, streamtp generate -o DIR): mapping k as
 * DIR/PREFIX-0000k.json, whole, with the directory made when missing.  A
 * directory that holds PREFIX-*.json of another run is refused before
 * anything is written (a later batch DIR would mix two experiments), unless
 * the files there are this very run's, which a rerun with the same options
 * leaves as they are. */
#include "streamtp_generate.h"

#include "base/core.h"
#include "base/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void stp_generate_files_options_init(stp_generate_files_options *o) {
  *o = (stp_generate_files_options){.prefix = "map", .count = 1};
}

void stp_generate_files_result_free(stp_generate_files_result *r) {
  if (!r)
    return;
  for (uint64_t k = 0; r->paths && k < r->count; k++)
    free(r->paths[k]);
  free(r->paths);
  free(r->directory);
  free(r->prefix);
  free(r);
}

static int digits(uint64_t x) {
  int d = 1;
  for (; x >= 10; x /= 10)
    d++;
  return d;
}

static bool valid_prefix(const char *p) {
  if (!*p || strlen(p) > 200)
    return false;
  for (; *p; p++)
    if (*p == '/' || (unsigned char)*p < 0x20)
      return false;
  return true;
}

/* The index k of DIR's entry PREFIX-000k.json, 0 when it is no such name. */
static uint64_t entry_index(const char *name, const char *prefix) {
  size_t lp = strlen(prefix), len = strlen(name);
  if (len <= lp + 6 || strncmp(name, prefix, lp) != 0 || name[lp] != '-' ||
      strcmp(name + len - 5, ".json") != 0)
    return UINT64_MAX; /* not ours at all */
  uint64_t k = 0;
  for (const char *c = name + lp + 1; c < name + len - 5; c++) {
    if (*c < '0' || *c > '9' || k > UINT64_MAX / 10)
      return 0;
    k = 10 * k + (uint64_t)(*c - '0');
  }
  return k;
}

/* The text mapping k of the run would have. */
static stp_status mapping_text(const stp_generate_params *p, uint64_t k, const char *name,
                               char **text, size_t *len, stp_error *err) {
  stp_mapping *m = NULL;
  STP_CHECK(stp_generate(p, k, name, &m, err));
  stp_status s = stp_mapping_to_json(m, text, len, err);
  stp_mapping_free(m);
  return s;
}

typedef struct run {
  const stp_generate_params *p;
  const stp_generate_files_options *o;
  int width;
  stp_generate_files_result *r;
} run;

static char *file_name(const run *x, uint64_t k) {
  return stp__asprintf("%s-%0*" PRIu64, x->o->prefix, x->width, k);
}

/* The file DIR/NAME holds exactly what mapping k would be (a rerun). */
static stp_status same_as_ours(const run *x, const char *dir, const char *entry, uint64_t k,
                               bool *same, stp_error *err) {
  *same = false;
  if (k == 0 || k > x->o->count || entry_index(entry, x->o->prefix) != k ||
      (int)(strlen(entry) - strlen(x->o->prefix) - 6) != x->width)
    return STP_OK;
  char *name = file_name(x, k), *path = stp__asprintf("%s/%s", dir, entry);
  char *want = NULL, *have = NULL;
  size_t nwant = 0, nhave = 0;
  stp_error ignored = {0};
  stp_status s = name && path ? mapping_text(x->p, k, name, &want, &nwant, err)
                              : stp__oom(err, "a file name");
  if (s == STP_OK && stp__read_file(path, STP_MAX_FILE_BYTES, &have, &nhave, &ignored) == STP_OK)
    *same = nhave == nwant && memcmp(have, want, nwant) == 0;
  free(name);
  free(path);
  free(want);
  free(have);
  return s;
}

/* Refuse a directory holding PREFIX-*.json of another run. */
static stp_status check_directory(const run *x, stp_error *err) {
  DIR *d = opendir(x->o->directory);
  if (!d)
    return STP_OK; /* missing (made later) or unreadable (said when writing) */
  uint64_t others = 0;
  char first[256] = "";
  stp_status s = STP_OK;
  for (struct dirent *e; s == STP_OK && (e = readdir(d));) {
    uint64_t k = entry_index(e->d_name, x->o->prefix);
    if (k == UINT64_MAX)
      continue;
    bool same;
    s = same_as_ours(x, x->o->directory, e->d_name, k, &same, err);
    if (s == STP_OK && !same && others++ == 0)
      snprintf(first, sizeof first, "%s", e->d_name);
  }
  closedir(d);
  if (s != STP_OK || others == 0 || x->o->force)
    return s;
  return stp__fail(err, STP_EINVAL,
                   "%s already holds %" PRIu64 " file%s %s-*.json (%s%s) from another run: "
                   "writing there would overwrite some and leave the others for a later "
                   "batch of the directory; choose another directory or prefix, or force it",
                   x->o->directory, others, others > 1 ? "s" : "", x->o->prefix, first,
                   others > 1 ? ", ..." : "");
}

/* Mapping k, written unless the file holds it already. */
static stp_status write_one(run *x, uint64_t k, stp_error *err) {
  char *name = file_name(x, k);
  if (!name)
    return stp__oom(err, "a file name");
  size_t n = strlen(x->o->directory);
  char *path = stp__asprintf("%s%s%s.json", x->o->directory,
                             x->o->directory[n - 1] == '/' ? "" : "/", name);
  char *text = NULL, *have = NULL;
  size_t len = 0, nhave = 0;
  stp_error ignored = {0};
  stp_status s = path ? mapping_text(x->p, k, name, &text, &len, err)
                      : stp__oom(err, "a file name");
  if (s == STP_OK && stp__read_file(path, STP_MAX_FILE_BYTES, &have, &nhave, &ignored) == STP_OK &&
      nhave == len && memcmp(have, text, len) == 0) {
    x->r->unchanged++;
  } else if (s == STP_OK) {
    stp_atomic_file *a;
    FILE *f;
    s = stp_atomic_open(path, &a, &f, err);
    if (s == STP_OK && fwrite(text, 1, len, f) != len) { /* its errno is the reason */
      s = stp__fail(err, STP_EIO, "%s: cannot write: %s", path, strerror(errno));
      stp_atomic_abort(a);
    } else if (s == STP_OK) {
      s = stp_atomic_commit(a, err);
    }
    x->r->written += s == STP_OK;
  }
  if (s == STP_OK) {
    x->r->paths[x->r->count++] = path;
    path = NULL;
  }
  free(name);
  free(path);
  free(text);
  free(have);
  return s;
}

static bool cancelled(const stp_control *c) { return c->cancel.fn && c->cancel.fn(c->cancel.data); }

static stp_status check_options(const stp_generate_files_options *o, stp_error *err) {
  if (!o->directory || !*o->directory)
    return stp__fail(err, STP_EINVAL, "no directory to write the mappings to");
  if (!o->prefix || !valid_prefix(o->prefix))
    return stp__fail(err, STP_EINVAL, "prefix '%s': 1 to 200 characters, without '/'",
                     o->prefix ? o->prefix : "");
  if (o->count == 0 || o->count > STP_GENERATE_MAX_FILES)
    return stp__fail(err, STP_EINVAL, "count %" PRIu64 " is out of range [1, %" PRIu64 "]",
                     o->count, (uint64_t)STP_GENERATE_MAX_FILES);
  return STP_OK;
}

stp_status stp_generate_files(const stp_generate_params *p, const stp_generate_files_options *o,
                              stp_generate_files_result **out, stp_error *err) {
  *out = NULL;
  STP_CHECK(check_options(o, err));
  stp_generate_files_result *r = calloc(1, sizeof *r);
  run x = {p, o, digits(o->count) > 5 ? digits(o->count) : 5, r};
  if (!r || !(r->paths = stp__calloc(o->count, sizeof *r->paths)) ||
      !(r->directory = stp__strdup(o->directory)) || !(r->prefix = stp__strdup(o->prefix))) {
    stp_generate_files_result_free(r);
    return stp__oom(err, "the list of files");
  }
  /* mapping 1 first: an option the generator refuses is said before any
   * directory is made */
  char *probe = NULL;
  size_t plen;
  stp_status s = mapping_text(p, 1, "probe", &probe, &plen, err);
  free(probe);
  if (s == STP_OK)
    s = check_directory(&x, err);
  if (s == STP_OK)
    s = stp_make_dirs(o->directory, err);
  for (uint64_t k = 1; s == STP_OK && k <= o->count; k++)
    s = cancelled(&o->control) ? stp__fail(err, STP_EINTERRUPTED, "interrupted after %" PRIu64
                                           " of %" PRIu64 " files", k - 1, o->count)
                               : write_one(&x, k, err);
  if (s != STP_OK) {
    stp_generate_files_result_free(r);
    return s;
  }
  *out = r;
  return STP_OK;
}
