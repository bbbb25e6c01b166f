/* rowfile.c: reading back batch rows (rowfile.h).  A record is a line, or
 * for CSV the lines up to the one that closes every quoted field (RFC 4180
 * allows line breaks inside quotes).  A record cut short by a killed run
 * (no final line break, or an open quote at the end) is not a row: the
 * caller truncates the file there before appending. */
#include "cli/rowfile.h"

#include "streamtp_base.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool fail(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return false;
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
  FILE *f;
  char *line;
  size_t cap;
  char *rec; /* the record: one or more lines */
  size_t len, rec_cap;
  uint64_t at, line_no; /* offset and line of the next record */
} reader;

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

/* The next record into r->rec: 1 complete, 0 end of file (r->len > 0: an
 * incomplete record was left), -1 out of memory or read error. */
static int next_record(reader *r, bool csv, uint64_t *lines) {
  r->len = 0;
  *lines = 0;
  bool open_quote = false;
  for (;;) {
    ssize_t got = getline(&r->line, &r->cap, r->f);
    if (got < 0)
      return ferror(r->f) ? -1 : 0;
    if (!append(r, r->line, (size_t)got))
      return -1;
    ++*lines;
    if (csv)
      for (ssize_t k = 0; k < got; k++)
        open_quote ^= r->line[k] == '"';
    if (r->line[got - 1] != '\n')
      return 0; /* the file ends inside this line */
    if (!open_quote)
      return 1;
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

/* The column numbers of file, model and status in the header. */
static bool csv_columns(const char *rec, size_t len, size_t col[3]) {
  static const char *const names[3] = {"file", "model", "status"};
  bool found[3] = {false, false, false};
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
    free(name);
  }
  return found[0] && found[1] && found[2];
}

/* ---- rows ---------------------------------------------------------------------- */

static bool push_row(rowfile *rf, const rowfile_row *row) {
  if (rf->nrows == rf->cap) {
    size_t cap = rf->cap ? 2 * rf->cap : 64;
    rowfile_row *p = realloc(rf->rows, cap * sizeof *p);
    if (!p)
      return false;
    rf->rows = p;
    rf->cap = cap;
  }
  rf->rows[rf->nrows++] = *row;
  return true;
}

/* The three fields of a JSON line; false when it is not a batch row. */
static bool json_row(const char *rec, size_t len, rowfile_row *row, bool *oom) {
  json_t *o = json_loadb(rec, len, JSON_DISABLE_EOF_CHECK, NULL);
  json_t *file = json_object_get(o, "file"), *model = json_object_get(o, "model");
  json_t *status = json_object_get(o, "status");
  bool ok = json_is_string(file) && (!model || json_is_null(model) || json_is_string(model)) &&
            json_is_string(status);
  if (ok) {
    row->file = strdup(json_string_value(file));
    row->model = model_code(json_string_value(model));
    row->status = rowfile_status(json_string_value(status));
    *oom = !row->file;
  }
  json_decref(o);
  return ok;
}

static bool csv_row(const char *rec, size_t len, const size_t col[3], rowfile_row *row,
                    bool *oom) {
  bool missing[3];
  char *f[3];
  for (int k = 0; k < 3; k++)
    f[k] = csv_field(rec, len, col[k], &missing[k]);
  bool ok = f[0] && f[1] && f[2];
  *oom = !ok && !missing[0] && !missing[1] && !missing[2];
  if (ok) {
    row->file = f[0];
    row->model = model_code(f[1]);
    row->status = rowfile_status(f[2]);
  } else {
    free(f[0]);
  }
  free(f[1]);
  free(f[2]);
  return ok;
}

static bool read_records(reader *r, rowfile *rf, char *msg, size_t n) {
  bool csv = rf->format == ROWFILE_CSV;
  size_t col[3];
  for (;;) {
    uint64_t lines;
    int got = next_record(r, csv, &lines);
    if (got < 0)
      return fail(msg, n, "%s: cannot read: %s", rf->path, errno ? strerror(errno) : "out of memory");
    if (got == 0)
      return true; /* what is left (r->len bytes) is an incomplete record */
    rowfile_row row = {.offset = r->at, .length = r->len, .line = r->line_no};
    bool oom = false, ok;
    if (csv && !rf->header) {
      if (!csv_columns(r->rec, r->len, col))
        return fail(msg, n, "%s:1: not rows of `streamtp batch`: the CSV header has no file, "
                    "model and status columns", rf->path);
      if (!(rf->header = strdup(r->rec)))
        return fail(msg, n, "%s: out of memory", rf->path);
      ok = true;
    } else {
      ok = csv ? csv_row(r->rec, r->len, col, &row, &oom) : json_row(r->rec, r->len, &row, &oom);
      if (ok && !push_row(rf, &row)) {
        free(row.file);
        oom = true;
      }
      if (!ok && !oom)
        return fail(msg, n, "%s:%llu: not a row of `streamtp batch` (%s)", rf->path,
                    (unsigned long long)r->line_no,
                    csv ? "too few fields" : "a JSON object with file, model and status");
    }
    if (oom)
      return fail(msg, n, "%s: out of memory", rf->path);
    r->at += r->len;
    r->line_no += lines;
    rf->complete = r->at;
  }
}

bool rowfile_read(const char *path, int format, rowfile *rf, char *msg, size_t n) {
  memset(rf, 0, sizeof *rf);
  if (!(rf->path = strdup(path)))
    return fail(msg, n, "%s: out of memory", path);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(msg, n, "%s: cannot open: %s", path, strerror(errno));
  int c = getc(f);
  if (format == ROWFILE_GUESS)
    format = c == '{' ? ROWFILE_JSONL : ROWFILE_CSV;
  rf->format = format;
  if (c != EOF)
    ungetc(c, f);
  reader r = {.f = f, .line_no = 1};
  bool ok = read_records(&r, rf, msg, n);
  if (ok && fseeko(f, 0, SEEK_END) == 0)
    rf->size = (uint64_t)ftello(f);
  free(r.line);
  free(r.rec);
  fclose(f);
  return ok;
}

void rowfile_free(rowfile *rf) {
  for (size_t k = 0; k < rf->nrows; k++)
    free(rf->rows[k].file);
  free(rf->rows);
  free(rf->header);
  free(rf->path);
  memset(rf, 0, sizeof *rf);
}
