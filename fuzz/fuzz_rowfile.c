/* fuzz_rowfile.c: libFuzzer target of the row-file reader of `batch
 * --resume` and `--merge` (cli/rowfile.c, CLI code: fuzz/CMakeLists.txt
 * builds it in from the CLI's objects).  The first byte picks the format
 * asked (guess, CSV, JSON lines) and whether the caller knows batch's CSV
 * header (--resume does, --merge does not); the rest is the file.  The
 * reader must give whole rows or a refusal (issue 34), checked against the
 * bytes themselves rather than against the reader's own parse:
 *   - a refusal has a message naming the file;
 *   - accepted, the rows tile the file: the header (CSV), then each row
 *     starting where the previous one ended, every row ending in its line
 *     break, `complete` the end of the last one and `size` the file's size;
 *     a CSV row closes every quote it opens; a JSON row is one JSON object
 *     (read again here) whose "file" is the row's file;
 *   - what lies past `complete` holds no line break outside CSV quotes (it
 *     is the one incomplete record) and its first bytes are kept in tail;
 *   - a file with no complete record and a non-empty tail is accepted only
 *     when that tail is the start of the header. */
#include "cli/run.h"
#include "cli/rowfile.h"
#include "streamtp_report.h"
#include "fuzz_check.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static char *header; /* batch's CSV header (the eval sink's, as batch --resume takes it) */

static void remove_file(void) {
  unlink(path);
  stp_free(header);
}

typedef struct seen {
  const uint8_t *data;
  size_t size;
  uint64_t next; /* where the next row must start */
  size_t rows;
} seen;

/* A CSV record closes every quote it opens. */
static int quotes_closed(const uint8_t *p, size_t n) {
  int open = 0;
  for (size_t k = 0; k < n; k++)
    open ^= p[k] == '"';
  return !open;
}

static bool check_row(void *ctx, const rowfile *rf, const rowfile_row *row, char *msg, size_t n) {
  (void)msg, (void)n;
  seen *s = ctx;
  if (s->rows == 0) /* the first row follows the header */
    s->next = rf->header ? strlen(rf->header) : 0;
  if (row->offset != s->next)
    fuzz_fail("rowfile: a row does not start where the previous one ended", (double)row->offset,
              (double)s->next);
  if (row->length == 0 || row->offset + row->length > s->size)
    fuzz_fail("rowfile: a row beyond the file", (double)row->offset, (double)row->length);
  const uint8_t *rec = s->data + row->offset;
  if (rec[row->length - 1] != '\n')
    fuzz_fail("rowfile: a row without its line break", (double)row->offset, (double)row->length);
  if (memchr(rec, '\0', row->length))
    fuzz_fail("rowfile: a row with a NUL byte", (double)row->offset, 0);
  if (!row->file)
    fuzz_fail("rowfile: a row without its file", (double)row->offset, 0);
  if (row->model > ROW_MODEL_OTHER || row->status > ROW_CUT)
    fuzz_fail("rowfile: a model or status out of range", row->model, row->status);
  if (rf->format == ROWFILE_CSV) {
    if (!quotes_closed(rec, row->length))
      fuzz_fail("rowfile: a CSV row with an open quote", (double)row->offset, 0);
    /* one line unless quotes hold the line breaks */
    const uint8_t *nl = memchr(rec, '\n', row->length);
    if (nl != rec + row->length - 1 && !memchr(rec, '"', row->length))
      fuzz_fail("rowfile: two lines in one unquoted CSV row", (double)row->offset, 0);
  } else {
    if (memchr(rec, '\n', row->length) != rec + row->length - 1)
      fuzz_fail("rowfile: two lines in one JSON row", (double)row->offset, 0);
    json_t *o = json_loadb((const char *)rec, row->length, 0, NULL);
    json_t *f = json_object_get(o, "file");
    if (!json_is_string(f) || strcmp(json_string_value(f), row->file) != 0)
      fuzz_fail("rowfile: a JSON row whose \"file\" is not the row's", (double)row->offset, 0);
    if (!json_is_string(json_object_get(o, "status")))
      fuzz_fail("rowfile: a JSON row without a status string", (double)row->offset, 0);
    json_decref(o);
  }
  s->next = row->offset + row->length;
  s->rows++;
  return true;
}

static void check_accepted(const rowfile *rf, const seen *s, const char *csv_header) {
  if (rf->size != s->size)
    fuzz_fail("rowfile: size is not the file's", (double)rf->size, (double)s->size);
  if (rf->nrows != s->rows)
    fuzz_fail("rowfile: rows counted are not the rows handed out", (double)rf->nrows,
              (double)s->rows);
  if (rf->complete != (s->rows ? s->next : rf->header ? strlen(rf->header) : 0))
    fuzz_fail("rowfile: complete is not the end of the last record", (double)rf->complete,
              (double)s->next);
  if (rf->complete > rf->size)
    fuzz_fail("rowfile: complete beyond the file", (double)rf->complete, (double)rf->size);
  if (rf->header) {
    size_t h = strlen(rf->header);
    if (rf->format != ROWFILE_CSV || h > s->size || memcmp(rf->header, s->data, h) != 0 ||
        rf->header[h - 1] != '\n')
      fuzz_fail("rowfile: the header is not the file's first record", (double)h, 0);
  } else if (rf->format == ROWFILE_CSV && rf->complete > 0) {
    fuzz_fail("rowfile: CSV rows without a header", (double)rf->complete, 0);
  }
  /* the incomplete record: no record break in it, its start kept */
  const uint8_t *tail = s->data + rf->complete;
  size_t ntail = (size_t)(rf->size - rf->complete);
  int open = 0;
  for (size_t k = 0; k < ntail; k++) {
    open ^= tail[k] == '"' && rf->format == ROWFILE_CSV;
    if (tail[k] == '\n' && !open)
      fuzz_fail("rowfile: a complete record left in the tail", (double)k, (double)ntail);
  }
  size_t keep = ntail < ROWFILE_TAIL_MAX ? ntail : ROWFILE_TAIL_MAX;
  if (rf->ntail != keep || memcmp(rf->tail, tail, keep) != 0)
    fuzz_fail("rowfile: the tail is not the file's last bytes", (double)rf->ntail, (double)keep);
  if (rf->complete == 0 && ntail > 0 &&
      !(csv_header && rf->format == ROWFILE_CSV && ntail < strlen(csv_header) &&
        memcmp(tail, csv_header, ntail) == 0))
    fuzz_fail("rowfile: a file of one incomplete record taken for rows", (double)ntail, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/stp-fuzz-rowfile-%ld", (long)getpid());
    stp_sink *probe = NULL;
    stp_error e = {0};
    if (stp_sink_new("eval", STP_FORMAT_CSV, NULL, &probe, &e) == STP_OK)
      stp_sink_header(probe, &header, NULL, &e);
    stp_sink_free(probe);
    atexit(remove_file);
  }
  if (size == 0)
    return 0;
  static const int formats[3] = {ROWFILE_GUESS, ROWFILE_CSV, ROWFILE_JSONL};
  int format = formats[data[0] % 3];
  const char *csv_header = data[0] & 4 ? header : NULL;
  data++, size--;
  if (!fuzz_write_file(path, data, size))
    return 0;

  static rowfile rf; /* 16 KiB of tail: not on the stack */
  seen s = {.data = data, .size = size};
  char msg[512] = "";
  int rc = rowfile_read(path, format, csv_header, check_row, &s, &rf, msg, sizeof msg);
  if (rc == CLI_OK) {
    if (format != ROWFILE_GUESS && rf.format != format)
      fuzz_fail("rowfile: read in another format than asked", rf.format, format);
    check_accepted(&rf, &s, csv_header);
  } else if (rc == CLI_USAGE || rc == CLI_FAILURE) {
    if (!msg[0] || !strstr(msg, path))
      fuzz_fail("rowfile: a refusal that does not name the file", rc, 0);
  } else {
    fuzz_fail("rowfile: an exit status other than OK, usage or failure", rc, 0);
  }
  rowfile_free(&rf);
  return 0;
}
