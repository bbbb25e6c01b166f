/* latency_csv.c: latency matrices for Lowekamp's partition from CSV text:
 * N lines of N comma-separated numbers (finite, >= 0), symmetric; the
 * diagonal is ignored and may be a number, empty or "-".  Errors name
 * file:line:col of the offending field. */
#include "base/core.h"
#include "base/fileio.h"
#include "base/numfmt.h"
#include "streamtp_bcast.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv {
  const char *label, *s;
  size_t len, pos;
  int line, col0; /* line of pos, and the byte offset where it starts */
  stp_error *err;
} csv;

static int col_of(const csv *c, size_t at) { return (int)(at - (size_t)c->col0) + 1; }

/* The fields of one line: [start, end) offsets, trimmed of blanks. */
static size_t split_line(csv *c, size_t *beg, size_t *end, size_t max, size_t *count) {
  size_t e = c->pos;
  while (e < c->len && c->s[e] != '\n')
    e++;
  size_t stop = e > c->pos && c->s[e - 1] == '\r' ? e - 1 : e;
  size_t n = 0, f = c->pos;
  for (;;) {
    size_t g = f;
    while (g < stop && c->s[g] != ',')
      g++;
    if (n < max) {
      size_t a = f, b = g;
      while (a < b && (c->s[a] == ' ' || c->s[a] == '\t'))
        a++;
      while (b > a && (c->s[b - 1] == ' ' || c->s[b - 1] == '\t'))
        b--;
      beg[n] = a;
      end[n] = b;
    }
    n++;
    if (g >= stop)
      break;
    f = g + 1;
  }
  *count = n;
  return e; /* the newline (or the end) */
}

static stp_status field_error(const csv *c, size_t at, const char *what, size_t i, size_t j) {
  return stp__fail(c->err, STP_EINVAL, "%s:%d:%d: entry [%zu][%zu] %s", c->label, c->line,
                   col_of(c, at), i, j, what);
}

static stp_status parse_field(const csv *c, size_t a, size_t b, size_t i, size_t j,
                              double *out) {
  *out = 0;
  if (i == j && (a == b || (b - a == 1 && c->s[a] == '-')))
    return STP_OK;
  if (a == b)
    return field_error(c, a, "is empty", i, j);
  char buf[64];
  if (b - a >= sizeof buf)
    return field_error(c, a, "is not a number", i, j);
  memcpy(buf, c->s + a, b - a);
  buf[b - a] = '\0';
  char *endp;
  errno = 0;
  double x = stp__strtod(buf, &endp);
  if (*endp != '\0' || endp == buf)
    return field_error(c, a, "is not a number", i, j);
  if (errno == ERANGE || !isfinite(x) || x < 0 || (x != 0 && (x < STP_TIME_MIN || x > STP_TIME_MAX))) {
    char what[96];
    snprintf(what, sizeof what, "must be 0 or a number within [%g, %g]", STP_TIME_MIN,
             STP_TIME_MAX);
    return field_error(c, a, what, i, j);
  }
  *out = x;
  return STP_OK;
}

/* The line from c->pos to its end `nl` holds only blanks (a CR included). */
static bool blank_line(const csv *c, size_t nl) {
  for (size_t k = c->pos; k < nl; k++)
    if (c->s[k] != ' ' && c->s[k] != '\t' && c->s[k] != '\r')
      return false;
  return true;
}

static stp_status read_rows(csv *c, double *w, size_t n, size_t *beg, size_t *end) {
  for (size_t i = 0; i < n; i++) {
    if (c->pos >= c->len)
      return stp__fail(c->err, STP_EINVAL, "%s:%d:1: %zu rows for %zu columns; the matrix must "
                       "be square", c->label, c->line, i, n);
    size_t count, nl = split_line(c, beg, end, n, &count);
    if (count == 1 && beg[0] == end[0] && (n > 1 || blank_line(c, nl)))
      return stp__fail(c->err, STP_EINVAL, "%s:%d:1: a blank line where row %zu of %zu should "
                       "be (a row of one machine is \"-\" or a number)", c->label, c->line, i, n);
    if (count != n)
      return stp__fail(c->err, STP_EINVAL, "%s:%d:1: row %zu has %zu entries; the matrix must "
                       "be %zu x %zu", c->label, c->line, i, count, n, n);
    for (size_t j = 0; j < n; j++) {
      STP_CHECK(parse_field(c, beg[j], end[j], i, j, &w[i * n + j]));
      if (j < i && w[i * n + j] != w[j * n + i]) {
        char what[128]; /* two 20-digit indices and the text: never truncated */
        snprintf(what, sizeof what, "differs from its mirror [%zu][%zu]: the matrix must be "
                 "symmetric", j, i);
        return field_error(c, beg[j], what, i, j);
      }
    }
    c->pos = nl + 1;
    c->line++;
    c->col0 = (int)c->pos;
  }
  while (c->pos < c->len && (c->s[c->pos] == '\n' || c->s[c->pos] == '\r' ||
                             c->s[c->pos] == ' ' || c->s[c->pos] == '\t'))
    c->line += c->s[c->pos++] == '\n';
  if (c->pos < c->len)
    return stp__fail(c->err, STP_EINVAL, "%s:%d:1: more than %zu rows; the matrix must be "
                     "square", c->label, c->line, n);
  return STP_OK;
}

stp_status stp_bcast_latency_load_string(const char *text, size_t len, const char *label,
                                         double **w, size_t *n, stp_error *err) {
  if (!w || !n || !text)
    return stp__fail(err, STP_EINVAL, "stp_bcast_latency_load_string: bad arguments");
  *w = NULL;
  *n = 0;
  csv c = {.label = label ? label : "<input>", .s = text, .len = len, .line = 1, .err = err};
  STP_CHECK(stp__reject_nul(text, len, c.label, "CSV", err));
  if (len == 0)
    return stp__fail(err, STP_EINVAL, "%s: empty file; expected N rows of N latencies", c.label);
  size_t cols, b0, e0;
  split_line(&c, &b0, &e0, 1, &cols);
  if (cols > STP_BCAST_MAX_MACHINES)
    return stp__fail(err, STP_EINVAL, "%s:1:1: %zu columns; the limit is %d machines", c.label,
                     cols, STP_BCAST_MAX_MACHINES);
  double *m = stp__malloc_array(cols * cols, sizeof *m);
  size_t *beg = stp__malloc_array(cols, sizeof *beg), *end = stp__malloc_array(cols, sizeof *end);
  stp_status s = m && beg && end ? read_rows(&c, m, cols, beg, end)
                                 : stp__oom(err, "reading a latency matrix");
  free(beg);
  free(end);
  if (s != STP_OK) {
    free(m);
    return s;
  }
  *w = m;
  *n = cols;
  return STP_OK;
}

stp_status stp_bcast_latency_load_file(const char *path, double **w, size_t *n,
                                       stp_error *err) {
  if (!w || !n || !path)
    return stp__fail(err, STP_EINVAL, "stp_bcast_latency_load_file: bad arguments");
  *w = NULL;
  char *text;
  size_t len;
  STP_CHECK(stp__read_file(path, STP_MAX_FILE_BYTES, &text, &len, err));
  stp_status s = stp_bcast_latency_load_string(text, len, path, w, n, err);
  free(text);
  return s;
}
