/* batch_collect.c: the input list of a batch (stp_batch_collect): file
 * arguments as given, directories expanded to the "*.json" files below them,
 * sorted so that the row order does not depend on the file system.  A
 * directory that cannot be read becomes an input carrying its error, so that
 * the batch reports it as a row instead of stopping. */
#include "base/core.h"
#include "streamtp_batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Deeper than this is a mistake (or a bind-mount loop), not a data set. */
#define STP_BATCH_MAX_DEPTH 256

typedef struct input_list {
  stp_batch_input *v;
  size_t n, cap;
} input_list;

void stp_batch_inputs_free(stp_batch_input *in, size_t n) {
  if (!in)
    return;
  for (size_t k = 0; k < n; k++) {
    free(in[k].path);
    free(in[k].message);
  }
  free(in);
}

/* Append path (copied); message (taken over) may be NULL. */
static stp_status push(input_list *l, const char *path, stp_status status, char *message,
                       stp_error *err) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    stp_batch_input *v = cap <= SIZE_MAX / sizeof *v ? realloc(l->v, cap * sizeof *v) : NULL;
    if (!v) {
      free(message);
      return stp__oom(err, "listing input files");
    }
    l->v = v;
    l->cap = cap;
  }
  char *p = stp__strdup(path);
  if (!p || (status != STP_OK && !message)) {
    free(p);
    free(message);
    return stp__oom(err, "listing input files");
  }
  l->v[l->n++] = (stp_batch_input){.path = p, .status = status, .message = message};
  return STP_OK;
}

static bool is_json_name(const char *name) {
  size_t n = strlen(name);
  return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir);
  return stp__asprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

static stp_status walk(input_list *l, const char *dir, int depth, stp_error *err);

/* One directory entry: recurse into directories (not through symbolic
 * links), keep the *.json files. */
static stp_status visit(input_list *l, const char *dir, const char *name, int depth,
                        stp_error *err) {
  char *path = join(dir, name);
  if (!path)
    return stp__oom(err, "listing input files");
  struct stat st;
  stp_status s = STP_OK;
  if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
    s = walk(l, path, depth + 1, err);
  else if (is_json_name(name)) /* unreadable ones are reported by their row */
    s = push(l, path, STP_OK, NULL, err);
  free(path);
  return s;
}

static stp_status walk(input_list *l, const char *dir, int depth, stp_error *err) {
  if (depth > STP_BATCH_MAX_DEPTH)
    return push(l, dir, STP_ELIMIT,
                stp__asprintf("%s: more than %d nested directories", dir, STP_BATCH_MAX_DEPTH),
                err);
  DIR *d = opendir(dir);
  if (!d)
    return push(l, dir, STP_EIO,
                stp__asprintf("%s: cannot open directory: %s", dir, strerror(errno)), err);
  stp_status s = STP_OK;
  struct dirent *e;
  errno = 0;
  while (s == STP_OK && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      s = visit(l, dir, e->d_name, depth, err);
    errno = 0;
  }
  if (s == STP_OK && errno != 0)
    s = push(l, dir, STP_EIO,
             stp__asprintf("%s: cannot read directory: %s", dir, strerror(errno)), err);
  closedir(d);
  return s;
}

static int input_cmp(const void *a, const void *b) {
  return strcmp(((const stp_batch_input *)a)->path, ((const stp_batch_input *)b)->path);
}

stp_status stp_batch_collect(const char *const *args, size_t nargs, stp_batch_input **out,
                             size_t *n, stp_error *err) {
  if (!out || !n)
    return stp__fail(err, STP_EINVAL, "stp_batch_collect: out or n is NULL");
  *out = NULL;
  *n = 0;
  if (nargs && !args)
    return stp__fail(err, STP_EINVAL, "stp_batch_collect: args is NULL");
  input_list l = {0};
  stp_status s = STP_OK;
  for (size_t k = 0; k < nargs && s == STP_OK; k++) {
    struct stat st;
    if (stat(args[k], &st) == 0 && S_ISDIR(st.st_mode)) {
      size_t first = l.n;
      s = walk(&l, args[k], 0, err);
      if (s == STP_OK && l.n > first) /* qsort wants a non-null base */
        qsort(l.v + first, l.n - first, sizeof *l.v, input_cmp);
    } else {
      s = push(&l, args[k], STP_OK, NULL, err);
    }
  }
  if (s != STP_OK) {
    stp_batch_inputs_free(l.v, l.n);
    return s;
  }
  *out = l.v;
  *n = l.n;
  return STP_OK;
}
