/* jsonpos.h: find where a value sits in a JSON text, by path.
 *
 * Jansson reports line and column for syntax errors only; once a document is
 * parsed, positions are gone.  Semantic errors are rare, so instead of
 * recording a position for every value we walk the (already validated) text
 * again, on demand, along the path of the offending value. */
#ifndef STP_JSONPOS_H
#define STP_JSONPOS_H

#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>

#define STP_JPATH_MAX 8

typedef struct stp_jpath {
  size_t depth;
  struct {
    const char *key; /* object member name, or NULL for an array index */
    size_t index;
  } seg[STP_JPATH_MAX];
} stp_jpath;

/* Path builders (they ignore segments beyond STP_JPATH_MAX). */
stp_jpath stp__jpath_key(stp_jpath p, const char *key);
stp_jpath stp__jpath_index(stp_jpath p, size_t index);
/* "mapping[2][1]", "stages[0].work", or "top level" for the empty path. */
void stp__jpath_format(const stp_jpath *p, char *buf, size_t n);

/* Line and column (1-based, columns in characters) of the value at `path`
 * in `text`, or of its member name when `want_key` is set and the last
 * segment is a key.  The text must be valid JSON.  Returns false when the
 * path does not exist. */
bool stp__json_locate(const char *text, size_t len, const stp_jpath *path, bool want_key,
                      int *line, int *col);

/* Line and column (1-based, columns in characters) of byte offset `off`. */
void stp__text_position(const char *text, size_t off, int *line, int *col);

#endif /* STP_JSONPOS_H */
