/* fileio.c: reading whole input files with a size limit, so that a huge or
 * special file (a FIFO, /dev/zero, a directory) is refused instead of read;
 * the NUL byte check every text reader makes before parsing (Jansson
 * stops at a NUL without saying where, a CSV reader would misread it); and
 * the writer of files written whole (stp_atomic_*: a temporary beside the
 * file, renamed over it once complete); and a file's path as seen from
 * another directory (an answer written elsewhere names the same samples). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include "base/fileio.h"

#include "base/core.h"
#include "base/jsonpos.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
  /* O_NONBLOCK: opening a FIFO does not wait for a writer (Ctrl-C would be
   * lost in the wait); fstat then refuses it, as anything but a file */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return stp__fail(err, STP_EIO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  stp_status s = STP_OK;
  if (fstat(fd, &st) != 0)
    s = stp__fail(err, STP_EIO, "%s: cannot open: %s", path, strerror(errno));
  else if (S_ISDIR(st.st_mode))
    s = stp__fail(err, STP_EIO, "%s: is a directory", path);
  else if (!S_ISREG(st.st_mode))
    s = stp__fail(err, STP_EIO, "%s: not a regular file", path);
  else if ((size_t)st.st_size > max_bytes)
    s = stp__fail(err, STP_EINVAL, "%s: the file is %lld bytes; the limit is %zu MiB", path,
                  (long long)st.st_size, max_bytes >> 20);
  FILE *f = s == STP_OK ? fdopen(fd, "rb") : NULL;
  if (s == STP_OK && !f)
    s = stp__oom(err, "reading a file");
  if (!f) {
    close(fd);
    return s;
  }
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

/* ---- files written whole (streamtp_base.h, stp_atomic_*) ------------------------ */
struct stp_atomic_file {
  FILE *f;
  char *path; /* what is replaced (a symbolic link resolved) or written directly */
  char *tmp;  /* the temporary beside it; NULL: a direct write */
};

static void atomic_free(stp_atomic_file *a) {
  if (!a)
    return;
  free(a->path);
  free(a->tmp);
  free(a);
}

/* Devices, FIFOs and the links to the process's own descriptors
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N) are written in place: renaming
 * over them would replace a name, not write to what it stands for (a
 * shell's '>> log' behind /dev/stdout would lose the log). */
static bool written_in_place(const char *path, const struct stat *st, bool exists) {
  if (exists && (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)))
    return true;
  struct stat lst;
  return exists && (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0) &&
         lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
}

static stp_status open_in_place(stp_atomic_file *a, stp_error *err) {
  /* a FIFO's open waits for a reader; a signal handler without SA_RESTART
   * ends the wait (EINTR), so that Ctrl-C is not lost in it */
  int fd = open(a->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return errno == EINTR ? stp__fail(err, STP_EINTERRUPTED, "%s: interrupted while opening", a->path)
                          : stp__fail(err, STP_EIO, "%s: cannot create: %s", a->path, strerror(errno));
  if (!(a->f = fdopen(fd, "w"))) {
    close(fd);
    return stp__oom(err, "opening a file");
  }
  return STP_OK;
}

/* DIR/.NAME.stp-XXXXXX beside path, created exclusively with `mode` (the
 * umask applies to a new file's 0666; an old file's bits are set exactly). */
static stp_status open_temporary(stp_atomic_file *a, mode_t mode, bool exact_mode,
                                 stp_error *err) {
  static _Atomic unsigned long counter;
  const char *slash = strrchr(a->path, '/');
  int dirlen = slash ? (int)(slash - a->path + 1) : 0;
  const char *name = a->path + dirlen;
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned long r = (unsigned long)getpid() * 2654435761u ^ (unsigned long)(stp__now() * 1e9) ^
                      (atomic_fetch_add(&counter, 1) * 40503u);
    char tag[7];
    for (int k = 0; k < 6; k++, r /= 36)
      tag[k] = "0123456789abcdefghijklmnopqrstuvwxyz"[r % 36];
    tag[6] = '\0';
    free(a->tmp);
    /* at most 200 bytes of the name: the temporary's must fit NAME_MAX too */
    if (!(a->tmp = stp__asprintf("%.*s.%.200s.stp-%s", dirlen, a->path, name, tag)))
      return stp__oom(err, "naming a temporary file");
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exact_mode ? 0600 : 0666);
    if (fd < 0 && errno == EEXIST)
      continue;
    if (fd < 0) {
      stp_status s = errno == ENOENT || errno == ENOTDIR
                         ? stp__fail(err, STP_EIO, "%s: cannot create: %s", a->path,
                                     strerror(errno))
                         : stp__fail(err, STP_EIO, "%s: cannot create a temporary file beside "
                                     "it: %s", a->path, strerror(errno));
      free(a->tmp);
      a->tmp = NULL;
      return s;
    }
    if ((exact_mode && fchmod(fd, mode & 07777) != 0) || !(a->f = fdopen(fd, "w"))) {
      stp_status s = stp__fail(err, STP_EIO, "%s: cannot set up a temporary file: %s", a->path,
                               strerror(errno));
      close(fd);
      unlink(a->tmp);
      return s;
    }
    return STP_OK;
  }
  return stp__fail(err, STP_EIO, "%s: no free name for a temporary file beside it", a->path);
}

stp_status stp_atomic_open(const char *path, stp_atomic_file **out, FILE **f, stp_error *err) {
  if (out)
    *out = NULL;
  if (f)
    *f = NULL;
  if (!path || !out || !f)
    return stp__fail(err, STP_EINVAL, "stp_atomic_open: NULL argument");
  if (!*path)
    return stp__fail(err, STP_EINVAL, "an empty file name");
  if (strcmp(path, "-") == 0)
    return stp__fail(err, STP_EINVAL, "'-' is standard output: the caller writes it");
  stp_atomic_file *a = calloc(1, sizeof *a);
  if (!a)
    return stp__oom(err, "opening a file");
  struct stat st;
  bool exists = stat(path, &st) == 0;
  stp_status s = STP_OK;
  if (!exists && errno != ENOENT)
    s = stp__fail(err, STP_EIO, "%s: cannot create: %s", path, strerror(errno));
  else if (exists && S_ISDIR(st.st_mode))
    s = stp__fail(err, STP_EIO, "%s: is a directory", path);
  else if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
    s = stp__fail(err, STP_EIO, "%s: not a regular file, a character device or a FIFO", path);
  else if (!(a->path = stp__strdup(path)))
    s = stp__oom(err, "opening a file");
  if (s == STP_OK && written_in_place(path, &st, exists)) {
    s = open_in_place(a, err);
  } else if (s == STP_OK) {
    struct stat lst;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
      char *real = realpath(path, NULL); /* replace the file, keep the link */
      if (!real) {
        s = stp__fail(err, STP_EIO, "%s: cannot resolve the link: %s", path, strerror(errno));
      } else {
        free(a->path);
        a->path = real;
      }
    }
    if (s == STP_OK)
      s = open_temporary(a, exists ? st.st_mode : 0666, exists, err);
  }
  if (s != STP_OK) {
    atomic_free(a);
    return s;
  }
  *out = a;
  *f = a->f;
  return STP_OK;
}

/* Best effort: the rename itself reaches the disk with the directory. */
static void sync_directory(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? stp__asprintf("%.*s", slash == path ? 1 : (int)(slash - path), path)
                    : stp__strdup(".");
  int fd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  free(dir);
}

stp_status stp_atomic_commit(stp_atomic_file *a, stp_error *err) {
  if (!a)
    return stp__fail(err, STP_EINVAL, "stp_atomic_commit: NULL handle");
  /* an earlier write failed (its errno is gone): flush again for the reason
   * (a full disk says so again), the file is refused either way */
  bool failed_before = ferror(a->f) != 0;
  clearerr(a->f);
  errno = 0;
  bool ok = fflush(a->f) == 0 && !failed_before;
  int e = errno;
  /* the temporary reaches the disk before its name does (a device or a
   * FIFO cannot be synced: EINVAL) */
  if (ok && a->tmp && fsync(fileno(a->f)) != 0) {
    ok = false;
    e = errno;
  }
  errno = 0;
  if (fclose(a->f) != 0 && ok) {
    ok = false;
    e = errno ? errno : EIO;
  }
  a->f = NULL;
  stp_status s = STP_OK;
  if (!ok)
    s = stp__fail(err, STP_EIO, "%s: cannot write: %s", a->path,
                  e ? strerror(e) : "a write failed");
  else if (a->tmp && rename(a->tmp, a->path) != 0)
    s = stp__fail(err, STP_EIO, "%s: cannot replace: %s", a->path, strerror(errno));
  if (s != STP_OK && a->tmp)
    unlink(a->tmp);
  else if (a->tmp)
    sync_directory(a->path);
  atomic_free(a);
  return s;
}

void stp_atomic_abort(stp_atomic_file *a) {
  if (!a)
    return;
  if (a->f)
    fclose(a->f);
  if (a->tmp)
    unlink(a->tmp);
  atomic_free(a);
}

/* ---- directories ------------------------------------------------------------------ */
/* p exists as a directory, or is created as one. */
static stp_status ensure_dir(const char *p, stp_error *err) {
  struct stat st;
  int e = 0;
  if (mkdir(p, 0777) != 0 && errno != EEXIST)
    e = errno;
  else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
    e = ENOTDIR;
  return e ? stp__fail(err, STP_EIO, "%s: cannot create the directory: %s", p, strerror(e))
           : STP_OK;
}

stp_status stp_make_dirs(const char *dir, stp_error *err) {
  if (!dir || !*dir)
    return stp__fail(err, STP_EINVAL, "stp_make_dirs: no directory");
  char *p = stp__strdup(dir);
  if (!p)
    return stp__oom(err, "a directory's name");
  stp_status s = STP_OK;
  for (char *c = strchr(p + 1, '/'); c && s == STP_OK; c = strchr(c + 1, '/')) {
    *c = '\0'; /* each parent in turn */
    s = ensure_dir(p, err);
    *c = '/';
  }
  if (s == STP_OK)
    s = ensure_dir(p, err);
  free(p);
  return s;
}

/* ---- a path seen from another directory ------------------------------------------ */
/* The relative path from the absolute directory dir to the absolute path
 * target (both as realpath gives them: no "." or ".." components, no
 * trailing '/'): "../" for each of dir's components past the prefix they
 * share, then the rest of target. */
static char *relative_to(const char *target, const char *dir) {
  size_t t = 0, d = 0; /* ends of the shared prefix, each at a '/' or the end */
  for (size_t i = 1;; i++) {
    bool tend = target[i] == '/' || !target[i], dend = dir[i] == '/' || !dir[i];
    if (tend && dend)
      t = d = i;
    if (target[i] != dir[i] || !target[i])
      break;
  }
  size_t ups = 0; /* dir's components past d ("/" has none) */
  for (size_t i = d; dir[i] && dir[1]; i++)
    ups += dir[i] == '/';
  const char *rest = target[t] == '/' ? target + t + 1 : target + t;
  char *out = malloc(3 * ups + strlen(rest) + 2);
  if (!out)
    return NULL;
  char *p = out;
  for (size_t k = 0; k < ups; k++, p += 3)
    memcpy(p, "../", 3);
  strcpy(p, rest);
  if (!out[0])
    strcpy(out, ".");
  else if (p > out && !rest[0])
    p[-1] = '\0'; /* "../../" -> "../.." */
  return out;
}

char *stp__path_from(const char *file, const char *from_dir, const char *to_dir) {
  if (file[0] == '/')
    return stp__strdup(file);
  char *full = from_dir && from_dir[0] ? stp__asprintf("%s/%s", from_dir, file) : stp__strdup(file);
  if (!full)
    return NULL;
  char *target = realpath(full, NULL), *dir = realpath(to_dir && to_dir[0] ? to_dir : ".", NULL);
  char *out = target && dir ? relative_to(target, dir) : stp__strdup(target ? target : full);
  free(full);
  free(target);
  free(dir);
  return out;
}
