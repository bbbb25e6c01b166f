/* rowfile.c: reading back batch rows (rowfile.h).  A record is a line, or
 * for CSV the lines up to the one that closes every quoted field (RFC 4180
 * allows line breaks inside quotes).  A record cut short by a killed run
 * (no final line break, or an open quote at the end) is not a row: the
 * caller truncates the file there before appending, once it has seen that
 * the rest is rows of its campaign.  Read through a buffer of its own (no
 * getline: a line of /dev/zero's length is refused at ROWFILE_MAX_RECORD). */
#include "cli/rowfile.h"

#include "streamtp_base.h"

#include "cli/run.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* msg filled, rc returned (CLI_USAGE: not rows of a batch, CLI_FAILURE: a
 * read error or out of memory). */
static int failc(int rc, char *msg, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int failc(int rc, char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return rc;
}

uint8_t rowfile_status(const char *name) {
  if (!name || strcasecmp(name, "OK") == 0)
    return name ? ROW_OK : ROW_INTERNAL_ERROR;
  if (strcasecmp(name, "EINTERRUPTED") == 0 || strcasecmp(name, "interrupted") == 0)
    return ROW_CUT;
  for (int s = 0; s < STP_STATUS_COUNT_; s++)
    if (strcmp(name, stp_status_name((stp_status)s)) == 0)
      return stp_status_is_input_error((stp_status)s) ? ROW_INPUT_ERROR : ROW_INTERNAL_ERROR;
  return ROW_INTERNAL_ERROR; /* a failure this streamtp does not name: not the input's fault */
}

static uint8_t model_code(const char *s) {
  if (!s || !*s)
    return ROW_MODEL_NONE;
  return strcmp(s, "overlap") == 0 ? ROW_MODEL_OVERLAP
         : strcmp(s, "strict") == 0 ? ROW_MODEL_STRICT
                                    : ROW_MODEL_OTHER;
}

const char *rowfile_model_name(uint8_t model) {
  static const char *const names[] = {"", "overlap", "strict", "another model"};
  return names[model < 4 ? model : 3];
}

/* ---- records ------------------------------------------------------------------ */

typedef struct reader {
  int fd;
  char buf[1 << 16];
  size_t pos, end;
  bool eof;
  char *rec; /* the record: one or more lines */
  size_t len, rec_cap;
  uint64_t at, line_no; /* offset and line of the next record */
} reader;

enum { READ_EOF = 0, READ_LINE = 1, READ_ERROR = -1, READ_OOM = -2, READ_TOO_LONG = -3 };

static bool append(reader *r, const char *s, size_t n) {
  if (r->len + n + 1 > r->rec_cap) {
    size_t cap = r->rec_cap ? 2 * r->rec_cap : 256;
    while (cap < r->len + n + 1)
      cap *= 2;
    char *p = realloc(r->rec, cap);
    if (!p)
      return false;
    r->rec = p;
    r->rec_cap = cap;
  }
  memcpy(r->rec + r->len, s, n);
  r->len += n;
  r->rec[r->len] = '\0';
  return true;
}

/* Fill the buffer when it is empty: false at the end of the file or on a
 * read error (errno set). */
static bool fill(reader *r) {
  while (r->pos == r->end && !r->eof) {
    ssize_t got = read(r->fd, r->buf, sizeof r->buf);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return false;
    r->eof = got == 0;
    r->pos = 0;
    r->end = (size_t)got;
  }
  errno = 0;
  return r->pos < r->end;
}

/* Append the next line, its line break included, to the record (no more
 * than ROWFILE_MAX_RECORD bytes in all): READ_* */
static int read_line(reader *r) {
  for (;;) {
    if (!fill(r))
      return errno ? READ_ERROR : READ_EOF;
    const char *from = r->buf + r->pos, *nl = memchr(from, '\n', r->end - r->pos);
    size_t take = nl ? (size_t)(nl - from) + 1 : r->end - r->pos;
    if (r->len + take > ROWFILE_MAX_RECORD)
      return READ_TOO_LONG;
    if (!append(r, from, take))
      return READ_OOM;
    r->pos += take;
    if (nl)
      return READ_LINE;
  }
}

/* The next record into r->rec: READ_LINE complete, READ_EOF at the end of
 * the file (r->len > 0: an incomplete record was left), or an error. */
static int next_record(reader *r, bool csv, uint64_t *lines) {
  r->len = 0;
  *lines = 0;
  bool open_quote = false;
  for (;;) {
    size_t from = r->len;
    int got = read_line(r);
    if (got != READ_LINE)
      return got;
    ++*lines;
    if (csv)
      for (size_t k = from; k < r->len; k++)
        open_quote ^= r->rec[k] == '"';
    if (!open_quote)
      return READ_LINE;
  }
}

/* ---- CSV fields ---------------------------------------------------------------- */

/* Field number `want` of a CSV record, unquoted, into a new string (NULL
 * when out of memory or when the record has fewer fields: *missing). */
static char *csv_field(const char *rec, size_t len, size_t want, bool *missing) {
  size_t field = 0, k = 0;
  *missing = false;
  while (field < want) { /* skip a field */
    bool quoted = k < len && rec[k] == '"';
    for (k += quoted; k < len; k++) {
      if (quoted && rec[k] == '"' && k + 1 < len && rec[k + 1] == '"')
        k++;
      else if (quoted && rec[k] == '"')
        quoted = false;
      else if (!quoted && (rec[k] == ',' || rec[k] == '\n' || rec[k] == '\r'))
        break;
    }
    if (k >= len || rec[k] != ',') {
      *missing = true;
      return NULL;
    }
    k++;
    field++;
  }
  char *out = malloc(len - k + 1), *o = out;
  if (!out)
    return NULL;
  bool quoted = k < len && rec[k] == '"';
  for (k += quoted; k < len; k++) {
    if (quoted && rec[k] == '"' && k + 1 < len && rec[k + 1] == '"')
      k++;
    else if (quoted && rec[k] == '"') {
      quoted = false;
      continue;
    } else if (!quoted && (rec[k] == ',' || rec[k] == '\n' || rec[k] == '\r'))
      break;
    *o++ = rec[k];
  }
  *o = '\0';
  return out;
}

/* The column numbers of file, model and status in the header, then of the
 * keys (SIZE_MAX: no such column). */
static bool csv_columns(const char *rec, size_t len, const char *const *keys,
                        size_t col[3 + ROWFILE_MAX_KEYS]) {
  static const char *const names[3] = {"file", "model", "status"};
  bool found[3] = {false, false, false};
  for (size_t k = 0; k < ROWFILE_MAX_KEYS; k++)
    col[3 + k] = SIZE_MAX;
  for (size_t c = 0;; c++) {
    bool missing;
    char *name = csv_field(rec, len, c, &missing);
    if (!name)
      break;
    for (int k = 0; k < 3; k++)
      if (!found[k] && strcmp(name, names[k]) == 0) {
        col[k] = c;
        found[k] = true;
      }
    for (size_t k = 0; keys && keys[k] && k < ROWFILE_MAX_KEYS; k++)
      if (col[3 + k] == SIZE_MAX && strcmp(name, keys[k]) == 0)
        col[3 + k] = c;
    free(name);
  }
  return found[0] && found[1] && found[2];
}

/* ---- the keys of a row ----------------------------------------------------------- */

/* The member at a JSON path "a.b" of o, or NULL. */
static json_t *json_path(json_t *o, const char *path) {
  char key[128];
  while (o && json_is_object(o)) {
    size_t n = strcspn(path, ".");
    if (n >= sizeof key)
      return NULL;
    memcpy(key, path, n);
    key[n] = '\0';
    o = json_object_get(o, key);
    if (!path[n])
      return o;
    path += n + 1;
  }
  return NULL;
}

/* A value as CSV writes it, "*" for an object or an array, NULL for null
 * or an empty string; *oom when out of memory. */
static char *json_text(const json_t *v, bool *oom) {
  char buf[64];
  const char *t = NULL;
  if (json_is_string(v))
    t = json_string_value(v);
  else if (json_is_integer(v))
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v)), t = buf;
  else if (json_is_real(v))
    snprintf(buf, sizeof buf, "%.17g", json_real_value(v)), t = buf;
  else if (json_is_boolean(v))
    t = json_is_true(v) ? "true" : "false";
  else if (json_is_object(v) || json_is_array(v))
    t = "*";
  if (!t || !*t)
    return NULL;
  char *out = strdup(t);
  *oom = !out;
  return out;
}

static void free_values(rowfile_row *row) {
  for (size_t k = 0; k < ROWFILE_MAX_KEYS; k++) {
    free((char *)row->values[k]);
    row->values[k] = NULL;
  }
}

/* ---- rows ---------------------------------------------------------------------- */

/* The three fields of a JSON line; false when it is not a batch row
 * (row->file then NULL) or out of memory (*oom). */
static bool json_row(const char *rec, size_t len, const char *const *keys, rowfile_row *row,
                     char **file, bool *oom) {
  json_t *o = json_loadb(rec, len, 0, NULL);
  for (size_t k = 0; o && keys && keys[k] && k < ROWFILE_MAX_KEYS; k++) {
    row->values[k] = json_text(json_path(o, keys[k]), oom);
    row->known[k] = true;
  }
  json_t *f = json_object_get(o, "file"), *model = json_object_get(o, "model");
  json_t *status = json_object_get(o, "status");
  bool ok = json_is_string(f) && (!model || json_is_null(model) || json_is_string(model)) &&
            json_is_string(status);
  if (ok) {
    *file = strdup(json_string_value(f));
    row->model = model_code(json_string_value(model));
    row->status = rowfile_status(json_string_value(status));
    *oom = !*file;
  }
  json_decref(o);
  return ok;
}

static bool csv_row(const char *rec, size_t len, const size_t col[3 + ROWFILE_MAX_KEYS],
                    rowfile_row *row, char **file, bool *oom) {
  for (size_t k = 0; k < ROWFILE_MAX_KEYS; k++) {
    bool missing = false;
    char *v = col[3 + k] == SIZE_MAX ? NULL : csv_field(rec, len, col[3 + k], &missing);
    *oom = *oom || (col[3 + k] != SIZE_MAX && !v && !missing);
    row->known[k] = col[3 + k] != SIZE_MAX && !missing;
    if (v && !*v) {
      free(v);
      v = NULL;
    }
    row->values[k] = v;
  }
  bool missing[3], keys_oom = *oom;
  char *f[3];
  for (int k = 0; k < 3; k++)
    f[k] = csv_field(rec, len, col[k], &missing[k]);
  bool ok = f[0] && f[1] && f[2];
  *oom = keys_oom || (!ok && !missing[0] && !missing[1] && !missing[2]);
  if (ok) {
    *file = f[0];
    row->model = model_code(f[1]);
    row->status = rowfile_status(f[2]);
  } else {
    free(f[0]);
  }
  free(f[1]);
  free(f[2]);
  return ok;
}

typedef struct read_job {
  reader *r;
  rowfile *rf;
  const char *csv_header;
  const char *const *keys;
  rowfile_sink sink;
  void *ctx;
  size_t col[3 + ROWFILE_MAX_KEYS];
  char *msg;
  size_t n;
} read_job;

/* One complete record: the CSV header, or a row for the sink. */
static int take_record(read_job *j) {
  reader *r = j->r;
  rowfile *rf = j->rf;
  bool csv = rf->format == ROWFILE_CSV;
  if (memchr(r->rec, '\0', r->len))
    return failc(CLI_USAGE, j->msg, j->n, "%s:%llu: a NUL byte: not rows of `streamtp batch`",
                 rf->path, (unsigned long long)r->line_no);
  if (csv && !rf->header) {
    if (!csv_columns(r->rec, r->len, j->keys, j->col))
      return failc(CLI_USAGE, j->msg, j->n, "%s:1: not rows of `streamtp batch`: the CSV "
                   "header has no file, model and status columns", rf->path);
    if (!(rf->header = strdup(r->rec)))
      return failc(CLI_FAILURE, j->msg, j->n, "%s: out of memory", rf->path);
    return CLI_OK;
  }
  rowfile_row row = {.offset = r->at, .length = r->len, .line = r->line_no};
  char *file = NULL;
  bool oom = false;
  bool ok = csv ? csv_row(r->rec, r->len, j->col, &row, &file, &oom)
                : json_row(r->rec, r->len, j->keys, &row, &file, &oom);
  if (oom || !ok)
    free_values(&row);
  if (oom) {
    free(file);
    return failc(CLI_FAILURE, j->msg, j->n, "%s: out of memory", rf->path);
  }
  if (!ok)
    return failc(CLI_USAGE, j->msg, j->n, "%s:%llu: not a row of `streamtp batch` (%s)",
                 rf->path, (unsigned long long)r->line_no,
                 csv ? "too few fields" : "a JSON object with file, model and status");
  row.file = file;
  rf->nrows++;
  ok = !j->sink || j->sink(j->ctx, rf, &row, j->msg, j->n);
  free_values(&row);
  free(file);
  return ok ? CLI_OK : CLI_USAGE;
}

/* What is left after the last complete record: nothing, the start of a
 * record (kept in tail), or, alone in the file, not rows at all. */
static int take_tail(read_job *j) {
  reader *r = j->r;
  rowfile *rf = j->rf;
  rf->size = r->at + r->len;
  rf->ntail = r->len < ROWFILE_TAIL_MAX ? r->len : ROWFILE_TAIL_MAX;
  memcpy(rf->tail, r->rec ? r->rec : "", rf->ntail);
  bool header_start = j->csv_header && rf->format == ROWFILE_CSV && r->len > 0 && /* rec NULL */
                      r->len < strlen(j->csv_header) && memcmp(r->rec, j->csv_header, r->len) == 0;
  if (r->len == 0 || rf->complete > 0 || header_start)
    return CLI_OK;
  return failc(CLI_USAGE, j->msg, j->n,
               "%s: not rows of `streamtp batch`: no line break in its %llu bytes", rf->path,
               (unsigned long long)r->len);
}

static int read_records(read_job *j) {
  reader *r = j->r;
  rowfile *rf = j->rf;
  for (;;) {
    uint64_t lines;
    int got = next_record(r, rf->format == ROWFILE_CSV, &lines);
    if (got == READ_EOF)
      return take_tail(j);
    if (got == READ_TOO_LONG)
      return failc(CLI_USAGE, j->msg, j->n, "%s:%llu: a record of more than %zu MiB: not rows "
                   "of `streamtp batch`", rf->path, (unsigned long long)r->line_no,
                   ROWFILE_MAX_RECORD >> 20);
    if (got != READ_LINE)
      return failc(CLI_FAILURE, j->msg, j->n, "%s: cannot read: %s", rf->path,
                   got == READ_OOM ? "out of memory" : strerror(errno));
    int rc = take_record(j);
    if (rc != CLI_OK)
      return rc;
    r->at += r->len;
    r->line_no += lines;
    rf->complete = r->at;
  }
}

static const char *file_kind(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

/* Open a regular file only: O_NONBLOCK so that a FIFO's open does not wait
 * for a writer (and Ctrl-C is not lost in the wait). */
static int open_regular(const char *path, char *msg, size_t n) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return failc(-1, msg, n, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    failc(-1, msg, n, "%s: cannot read: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return failc(-1, msg, n, "%s: not a regular file (%s): rows are read from regular files only",
                 path, file_kind(st.st_mode));
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags != -1)
    (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

int rowfile_read(const char *path, int format, const char *csv_header, rowfile_sink sink,
                 void *ctx, rowfile *rf, char *msg, size_t n) {
  return rowfile_read_keys(path, format, csv_header, NULL, sink, ctx, rf, msg, n);
}

int rowfile_read_keys(const char *path, int format, const char *csv_header,
                      const char *const *keys, rowfile_sink sink, void *ctx, rowfile *rf,
                      char *msg, size_t n) {
  memset(rf, 0, offsetof(rowfile, tail));
  rf->ntail = 0;
  if (!(rf->path = strdup(path)))
    return failc(CLI_FAILURE, msg, n, "%s: out of memory", path);
  reader *r = calloc(1, sizeof *r);
  if (!r)
    return failc(CLI_FAILURE, msg, n, "%s: out of memory", path);
  r->line_no = 1;
  if ((r->fd = open_regular(path, msg, n)) < 0) {
    free(r);
    return CLI_USAGE;
  }
  int rc = CLI_OK;
  bool any = fill(r);
  if (!any && errno)
    rc = failc(CLI_FAILURE, msg, n, "%s: cannot read: %s", path, strerror(errno));
  if (format == ROWFILE_GUESS)
    format = any && r->buf[0] == '{' ? ROWFILE_JSONL : ROWFILE_CSV;
  rf->format = format;
  read_job j = {.r = r, .rf = rf, .csv_header = csv_header, .keys = keys, .sink = sink,
                .ctx = ctx, .msg = msg, .n = n};
  if (rc == CLI_OK)
    rc = read_records(&j);
  close(r->fd);
  free(r->rec);
  free(r);
  return rc;
}

void rowfile_free(rowfile *rf) {
  free(rf->header);
  free(rf->path);
  rf->header = rf->path = NULL;
}
