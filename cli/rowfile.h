/* rowfile.h: the rows a `batch` wrote (CSV or JSON lines), read back for
 * --resume and --merge: per row its input file, model and status, and where
 * its text lies, so that rows are copied byte for byte and never re-encoded.
 * Only the fields "file", "model" and "status" are read: the others may be
 * renamed (docs/format.md) without breaking a campaign in progress. */
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

typedef struct rowfile_row {
  char *file;      /* the "file" field */
  uint8_t model;   /* ROW_MODEL_* ("model" null or empty: NONE) */
  uint8_t status;  /* ROW_* */
  uint64_t offset; /* of the record's first byte */
  uint64_t length; /* bytes, its final line break included */
  uint64_t line;   /* line where the record starts, from 1 */
} rowfile_row;

typedef struct rowfile {
  char *path;
  int format;      /* ROWFILE_CSV or ROWFILE_JSONL */
  char *header;    /* CSV: the header record, line break included; else NULL */
  size_t nrows, cap;
  rowfile_row *rows;
  uint64_t complete; /* bytes up to the end of the last complete record */
  uint64_t size;     /* of the file: more than `complete` when its last record
                        was cut short (a run killed while writing) */
} rowfile;

/* Reads path ("format": ROWFILE_GUESS takes a file whose first byte is '{'
 * for JSON lines, any other for CSV; an empty file is of the format asked,
 * CSV when guessing).  A last record without its line break (or inside a
 * quoted CSV field) is left out and counted in size - complete.  Returns
 * false with msg filled ("PATH:LINE: what") on a read error, a record that
 * is not a batch row, or a CSV without the file, model and status columns. */
bool rowfile_read(const char *path, int format, rowfile *rf, char *msg, size_t n);
void rowfile_free(rowfile *rf);

/* The status of a row as its "status" field names it. */
uint8_t rowfile_status(const char *name);
/* "overlap", "strict", "" (no model) or "another model". */
const char *rowfile_model_name(uint8_t model);

#endif /* STP_ROWFILE_H */
