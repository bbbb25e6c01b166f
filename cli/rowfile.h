/* rowfile.h: the rows a `batch` wrote (CSV or JSON lines), read back for
 * --resume and --merge: per row its input file, model and status, and where
 * its text lies, so that rows are copied byte for byte and never re-encoded.
 * Only the fields "file", "model" and "status" are read, and the keys a
 * caller names (the options a row was made with: rowfile_read_keys): the
 * others may be renamed (docs/format.md) without breaking a campaign in
 * progress.  The
 * reader streams: it holds one record at a time (at most ROWFILE_MAX_RECORD
 * bytes), hands each row to the caller, and reads only regular files. */
#ifndef STP_ROWFILE_H
#define STP_ROWFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ROWFILE_GUESS = -1, ROWFILE_CSV = 0, ROWFILE_JSONL = 1 };
enum { ROW_MODEL_NONE = 0, ROW_MODEL_OVERLAP, ROW_MODEL_STRICT, ROW_MODEL_OTHER };
/* What a row's status says: it stands (ok, or failed for good), or an
 * interrupt cut it short (EINTERRUPTED: the input is to be done again). */
enum { ROW_OK = 0, ROW_INPUT_ERROR, ROW_INTERNAL_ERROR, ROW_CUT };

/* The longest record read: a row of the largest mapping (100,000 stages,
 * a path of 4096 bytes, an error message) takes a few MiB. */
#define ROWFILE_MAX_RECORD ((size_t)16 << 20)
/* The first bytes kept of an incomplete last record (to tell the start of
 * a row from anything else: its file field). */
#define ROWFILE_TAIL_MAX 16384

/* The keys a row's options are read from, at most. */
#define ROWFILE_MAX_KEYS 12

typedef struct rowfile_row {
  const char *file; /* the "file" field (valid during the call of the sink) */
  uint8_t model;    /* ROW_MODEL_* ("model" null or empty: NONE) */
  uint8_t status;   /* ROW_* */
  uint64_t offset;  /* of the record's first byte */
  uint64_t length;  /* bytes, its final line break included */
  uint64_t line;    /* line where the record starts, from 1 */
  /* The keys asked for (rowfile_read_keys), valid during the call of the
   * sink: the value as CSV writes it ("*" for a JSON object or array),
   * NULL when null, empty or absent; known[k] false when a CSV header has
   * no such column (nothing can be said). */
  const char *values[ROWFILE_MAX_KEYS];
  bool known[ROWFILE_MAX_KEYS];
} rowfile_row;

typedef struct rowfile {
  char *path;
  int format;        /* ROWFILE_CSV or ROWFILE_JSONL */
  char *header;      /* CSV: the header record, line break included; else NULL */
  size_t nrows;      /* rows read (the header aside) */
  uint64_t complete; /* bytes up to the end of the last complete record */
  uint64_t size;     /* of the file: more than `complete` when its last record
                        was cut short (a run killed while writing) */
  char tail[ROWFILE_TAIL_MAX]; /* the first bytes of that incomplete record */
  size_t ntail;
} rowfile;

/* Called with each row in file order; false stops the reading (msg says
 * why: the rows are not those of the campaign). */
typedef bool (*rowfile_sink)(void *ctx, const rowfile *rf, const rowfile_row *row, char *msg,
                             size_t n);

/* Reads path ("format": ROWFILE_GUESS takes a file whose first byte is '{'
 * for JSON lines, any other for CSV; an empty file is of the format asked,
 * CSV when guessing), handing each row to sink.  A file is rows of `batch`
 * when its first record is complete and is the CSV header with the file,
 * model and status columns, or a JSON object with those keys; a last
 * record without its line break (or inside a quoted CSV field) is left
 * out, its start kept in tail.  A file holding only an incomplete record is
 * rows only when that record is the start of csv_header (a run killed while
 * writing its header; csv_header NULL: never).  Returns CLI_OK; CLI_USAGE
 * with msg ("PATH:LINE: what") when the file is not rows of a batch (not a
 * regular file, a NUL byte, a record beyond ROWFILE_MAX_RECORD, a record
 * that is not a row) or the sink refused a row; CLI_FAILURE on a read
 * error or out of memory.  rf is filled in every case (rowfile_free). */
int rowfile_read(const char *path, int format, const char *csv_header, rowfile_sink sink,
                 void *ctx, rowfile *rf, char *msg, size_t n);
/* The same, reading also the fields at the JSON paths keys (NULL-terminated,
 * at most ROWFILE_MAX_KEYS; NULL: none) of every row: a CSV column of that
 * name, a member of a JSON line. */
int rowfile_read_keys(const char *path, int format, const char *csv_header,
                      const char *const *keys, rowfile_sink sink, void *ctx, rowfile *rf,
                      char *msg, size_t n);
void rowfile_free(rowfile *rf);

/* The status of a row as its "status" field names it. */
uint8_t rowfile_status(const char *name);
/* "overlap", "strict", "" (no model) or "another model". */
const char *rowfile_model_name(uint8_t model);

#endif /* STP_ROWFILE_H */
