/* fileio.c: reading whole input files with a size limit, so that a huge or
 * special file (a FIFO, /dev/zero, a directory) is refused instead of read;
 * and the NUL byte check every text reader makes before parsing (Jansson
 * stops at a NUL without saying where, a CSV reader would misread it). */
#include "base/fileio.h"

#include "base/core.h"
#include "base/jsonpos.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Standard input, read to its end (it may be a pipe: no size known). */
static stp_status read_stdin(size_t max_bytes, char **text, size_t *len, stp_error *err) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf)
    return stp__oom(err, "reading standard input");
  for (;;) {
    if (n + 1 >= cap) {
      char *bigger = cap > max_bytes + 1 ? NULL : realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        return cap > max_bytes + 1
                   ? stp__fail(err, STP_EINVAL, "<stdin>: more than the limit of %zu MiB",
                               max_bytes >> 20)
                   : stp__oom(err, "reading standard input");
      }
      buf = bigger;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - 1 - n, stdin);
    n += got;
    if (got == 0)
      break;
  }
  if (ferror(stdin)) {
    free(buf);
    return stp__fail(err, STP_EIO, "<stdin>: read error");
  }
  if (n > max_bytes) {
    free(buf);
    return stp__fail(err, STP_EINVAL, "<stdin>: more than the limit of %zu MiB", max_bytes >> 20);
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return STP_OK;
}

stp_status stp__read_file(const char *path, size_t max_bytes, char **text, size_t *len,
                          stp_error *err) {
  *text = NULL;
  *len = 0;
  if (strcmp(path, "-") == 0)
    return read_stdin(max_bytes, text, len, err);
  struct stat st;
  if (stat(path, &st) != 0)
    return stp__fail(err, STP_EIO, "%s: cannot open: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return stp__fail(err, STP_EIO, "%s: is a directory", path);
  if (!S_ISREG(st.st_mode))
    return stp__fail(err, STP_EIO, "%s: not a regular file", path);
  if ((size_t)st.st_size > max_bytes)
    return stp__fail(err, STP_EINVAL, "%s: the file is %lld bytes; the limit is %zu MiB", path,
                     (long long)st.st_size, max_bytes >> 20);
  FILE *f = fopen(path, "rb");
  if (!f)
    return stp__fail(err, STP_EIO, "%s: cannot open: %s", path, strerror(errno));
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    fclose(f);
    return stp__oom(err, "reading a file");
  }
  size_t n = fread(buf, 1, (size_t)st.st_size + 1, f);
  int bad = ferror(f);
  fclose(f);
  if (bad || n > (size_t)st.st_size) { /* read error, or the file grew under us */
    free(buf);
    return stp__fail(err, STP_EIO, "%s: read error", path);
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return STP_OK;
}

stp_status stp__reject_nul(const char *text, size_t len, const char *label, const char *kind,
                           stp_error *err) {
  const char *z = memchr(text, '\0', len);
  if (!z)
    return STP_OK;
  int line, col;
  stp__text_position(text, (size_t)(z - text), &line, &col);
  return stp__fail(err, STP_EINVAL, "%s:%d:%d: a NUL byte; the file must be %s text", label,
                   line, col, kind);
}
