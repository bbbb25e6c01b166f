/* sink.c: a stream of records in one format (streamtp_report.h): the text
 * reports one after the other, JSON lines, CSV whose columns are JSON
 * paths (the header names them, each field is the value there, so that a
 * column and a key can never disagree), or a table aligned after the last
 * record. */
#include "report/record.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

struct stp_sink {
  const stp__record_kind *kind;
  stp_format fmt;
  int has_limits;
  stp_run_limits limits;
  char **columns, **labels; /* NULL-terminated; labels may be NULL */
  size_t count;             /* records put */
  int header_done;          /* CSV: the header is out */
  json_t *rows;             /* a table's records (a summary's), until the end */
};

static const char *const format_names[] = {"text", "jsonl", "csv", "table"};

const char *stp_format_name(stp_format f) {
  return (unsigned)f < 4 ? format_names[f] : "?";
}

stp_status stp_format_parse(const char *s, stp_format *out) {
  for (int k = 0; s && k < 4; k++)
    if (strcmp(s, format_names[k]) == 0) {
      *out = (stp_format)k;
      return STP_OK;
    }
  return STP_EINVAL;
}

static void strings_free(char **s) {
  for (size_t k = 0; s && s[k]; k++)
    free(s[k]);
  free(s);
}

static char **strings_copy(const char *const *s) {
  size_t n = 0;
  while (s && s[n])
    n++;
  char **c = s ? calloc(n + 1, sizeof *c) : NULL;
  for (size_t k = 0; c && k < n; k++)
    if (!(c[k] = stp__strdup(s[k]))) {
      strings_free(c);
      return NULL;
    }
  return c;
}

void stp_sink_free(stp_sink *s) {
  if (!s)
    return;
  strings_free(s->columns);
  strings_free(s->labels);
  json_decref(s->rows);
  free(s);
}

stp_status stp_sink_columns(stp_sink *s, const char *const *columns, const char *const *labels,
                            stp_error *err) {
  char **c = strings_copy(columns), **l = labels ? strings_copy(labels) : NULL;
  if ((columns && !c) || (labels && !l)) {
    strings_free(c);
    strings_free(l);
    return stp__oom(err, "the columns of a sink");
  }
  strings_free(s->columns);
  strings_free(s->labels);
  s->columns = c;
  s->labels = l;
  return STP_OK;
}

stp_status stp_sink_new(const char *kind, stp_format fmt, const stp_run_limits *limits,
                        stp_sink **out, stp_error *err) {
  *out = NULL;
  const stp__record_kind *k = stp__kind_find(kind);
  if (!k)
    return stp__fail(err, STP_EINVAL, "no record kind \"%s\"", kind ? kind : "(null)");
  const char *const *cols = fmt == STP_FORMAT_CSV ? k->csv : fmt == STP_FORMAT_TABLE ? k->table : NULL;
  if ((fmt == STP_FORMAT_CSV || fmt == STP_FORMAT_TABLE) && !cols)
    return stp__fail(err, STP_EINVAL, "%s records have no %s output", kind, stp_format_name(fmt));
  if ((unsigned)fmt > STP_FORMAT_TABLE)
    return stp__fail(err, STP_EINVAL, "no output format %d", (int)fmt);
  stp_sink *s = calloc(1, sizeof *s);
  if (!s)
    return stp__oom(err, "a sink");
  s->kind = k;
  s->fmt = fmt;
  if (limits) {
    s->has_limits = 1;
    s->limits = *limits;
  }
  stp_status st = cols ? stp_sink_columns(s, cols, fmt == STP_FORMAT_TABLE ? k->labels : NULL,
                                          err)
                       : STP_OK;
  if (st != STP_OK) {
    stp_sink_free(s);
    return st;
  }
  *out = s;
  return STP_OK;
}

typedef struct csv_line {
  char *const *columns;
  const json_t *rec; /* NULL: the header */
} csv_line;

static void put_csv_line(FILE *f, const void *arg) {
  const csv_line *l = arg;
  for (size_t c = 0; l->columns[c]; c++) {
    if (c)
      fputc(',', f);
    if (l->rec)
      stp__jcsv(f, stp__jget(l->rec, l->columns[c]));
    else
      stp__jcsv_string(f, l->columns[c]);
  }
  fputc('\n', f);
}

/* The line of one record, after the header when it is not out yet. */
typedef struct csv_record {
  csv_line line;
  bool header;
} csv_record;

static void put_csv_record(FILE *f, const void *arg) {
  const csv_record *r = arg;
  if (r->header)
    put_csv_line(f, &(csv_line){r->line.columns, NULL});
  put_csv_line(f, &r->line);
}

static void put_json_line(FILE *f, const void *arg) {
  stp__jwrite(f, arg);
  fputc('\n', f);
}


static stp_status empty(char **text, size_t *len, stp_error *err) {
  *text = calloc(1, 1);
  if (len)
    *len = 0;
  return *text ? STP_OK : stp__oom(err, "a record's text");
}

stp_status stp_sink_header(stp_sink *s, char **text, size_t *len, stp_error *err) {
  *text = NULL;
  if (s->fmt != STP_FORMAT_CSV)
    return empty(text, len, err);
  s->header_done = 1;
  return stp__render(put_csv_line, &(csv_line){s->columns, NULL}, text, len, err);
}

/* Keep r's object until the end of the stream. */
static bool keep(stp_sink *s, const stp_record *r) {
  if (!s->rows && !(s->rows = json_array()))
    return false;
  return json_array_append(s->rows, r->obj) == 0;
}

/* What a CSV line reads: the record, with the members its kind derives
 * for CSV (a new reference; NULL when out of memory). */
static json_t *csv_view(const stp_sink *s, const stp_record *r) {
  json_t *extra = s->kind->csv_derived ? s->kind->csv_derived(r->obj) : NULL;
  if (!extra)
    return json_incref(r->obj);
  json_t *view = json_copy(r->obj); /* shallow: the members are shared */
  if (view && json_object_update(view, extra) != 0) {
    json_decref(view);
    view = NULL;
  }
  json_decref(extra);
  return view;
}

stp_status stp_sink_put(stp_sink *s, const stp_record *r, char **text, size_t *len,
                        stp_error *err) {
  *text = NULL;
  size_t index = s->count++;
  switch (s->fmt) {
  case STP_FORMAT_TEXT:
    if (s->kind->summary && stp_record_status(r) == STP_OK && !keep(s, r))
      return stp__oom(err, "a summary");
    return stp__record_text_at(r, index, text, len, err);
  case STP_FORMAT_JSONL: {
    json_t *o = stp__record_enveloped(r, s->has_limits ? &s->limits : NULL);
    if (!o)
      return stp__oom(err, "a record");
    stp_status st = stp__render(put_json_line, o, text, len, err);
    json_decref(o);
    return st;
  }
  case STP_FORMAT_CSV: {
    json_t *view = csv_view(s, r);
    if (!view)
      return stp__oom(err, "a CSV line");
    csv_record line = {{s->columns, view}, !s->header_done};
    s->header_done = 1;
    stp_status st = stp__render(put_csv_record, &line, text, len, err);
    json_decref(view);
    return st;
  }
  case STP_FORMAT_TABLE:
    if (!keep(s, r)) /* a table waits for its widths */
      return stp__oom(err, "a table");
    return empty(text, len, err);
  }
  return stp__fail(err, STP_EINTERNAL, "no output format %d", (int)s->fmt);
}

/* A column some record has (a table leaves out one that none has: the
 * law's value of an evaluation without a law). */
static bool column_used(const stp_sink *s, size_t c) {
  for (size_t r = 0; r < json_array_size(s->rows); r++)
    if (stp__jget(json_array_get(s->rows, r), s->columns[c]))
      return true;
  return false;
}

static void put_table(FILE *f, const void *arg) {
  const stp_sink *s = arg;
  if (s->kind->preamble)
    s->kind->preamble(f, json_array_get(s->rows, 0));
  size_t ncol = 0, nrow = json_array_size(s->rows), all = 0;
  while (s->columns[all])
    all++;
  size_t *width = calloc(all ? all : 1, sizeof *width), *col = calloc(all ? all : 1, sizeof *col);
  char **cell = calloc((nrow + 1) * (all ? all : 1), sizeof *cell);
  if (!width || !cell || !col) {
    free(width);
    free(cell);
    free(col);
    return;
  }
  for (size_t c = 0; c < all; c++)
    if (column_used(s, c))
      col[ncol++] = c;
  for (size_t c = 0; c < ncol; c++) {
    cell[c] = stp__strdup(s->labels ? s->labels[col[c]] : s->columns[col[c]]);
    for (size_t r = 0; r < nrow; r++)
      cell[(r + 1) * ncol + c] =
          stp__jcell(stp__jget(json_array_get(s->rows, r), s->columns[col[c]]));
  }
  for (size_t k = 0; k < (nrow + 1) * ncol; k++) {
    size_t w = cell[k] ? strlen(cell[k]) : 0;
    if (w > width[k % ncol])
      width[k % ncol] = w;
  }
  for (size_t r = 0; r <= nrow; r++)
    for (size_t c = 0; c < ncol; c++) {
      /* an input that failed: its error after the first column, not blanks */
      const char *error = r ? stp__jgets(json_array_get(s->rows, r - 1), "error") : NULL;
      if (error && c == 1 && ncol > 1) {
        fprintf(f, "error: %s\n", error);
        break;
      }
      const char *t = cell[r * ncol + c] ? cell[r * ncol + c] : "";
      if (c + 1 < ncol)
        fprintf(f, "%-*s  ", (int)width[c], t);
      else
        fprintf(f, "%s\n", t);
    }
  for (size_t k = 0; k < (nrow + 1) * ncol; k++)
    free(cell[k]);
  free(cell);
  free(width);
  free(col);
}

static void put_summary(FILE *f, const void *arg) {
  const stp_sink *s = arg;
  s->kind->summary(f, s->rows);
}

stp_status stp_sink_end(stp_sink *s, char **text, size_t *len, stp_error *err) {
  *text = NULL;
  if (s->fmt == STP_FORMAT_TABLE && json_array_size(s->rows))
    return stp__render(put_table, s, text, len, err);
  if (s->fmt == STP_FORMAT_TEXT && s->kind->summary && json_array_size(s->rows))
    return stp__render(put_summary, s, text, len, err);
  return empty(text, len, err);
}
