/* json.h: the values of a record (docs/format.md) and how they are
 * written: JSON with every real in its shortest round-trip form, CSV
 * fields, table cells, and the JSON path lookup that makes a CSV column
 * and a JSON key the same thing (json.c). */
#ifndef STP_REPORT_JSON_H
#define STP_REPORT_JSON_H

#include "streamtp_base.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A finite double as a JSON real, anything else as null. */
json_t *stp__jnum(double x);
/* An unsigned integer, exactly, even above 2^63 (seeds are any 64 bits;
 * Jansson's integers are signed). */
json_t *stp__ju64(uint64_t x);
/* The value of a JSON integer written by stp__ju64 (or by json_integer). */
bool stp__jas_u64(const json_t *v, uint64_t *out);
/* A string (NULL: null); bytes that are not UTF-8 (a file name can hold
 * any) become the text \xNN instead of the key vanishing. */
json_t *stp__jstr(const char *s);
/* Strings as an array. */
json_t *stp__jstrs(char *const *s, size_t n);
/* Set key of o to v (stealing v; v NULL, out of memory, is ignored). */
void stp__jset(json_t *o, const char *key, json_t *v);
/* The value at a JSON path "a.b.c" (borrowed), or NULL.  A key holding a
 * '.' is never written, so the split is unambiguous; a segment of digits
 * in an array is an index ("sensitivity.0.of": the first item's "of"). */
json_t *stp__jget(const json_t *o, const char *path);
/* Lookups with a default: the number (NaN when null or absent), the
 * string (NULL), the integer (0). */
double stp__jgetd(const json_t *o, const char *path);
const char *stp__jgets(const json_t *o, const char *path);
uint64_t stp__jgetu(const json_t *o, const char *path);

/* v as compact JSON, members in insertion order, reals in their shortest
 * round-trip form with a '.' or an exponent (they read back as reals). */
void stp__jwrite(FILE *f, const json_t *v);
/* v as one CSV field (RFC 4180 quoting; null, absent and objects empty;
 * an array as its elements separated by spaces: "1 2 3 1"). */
void stp__jcsv(FILE *f, const json_t *v);
/* A name as a CSV field (quoted where it must be). */
void stp__jcsv_string(FILE *f, const char *s);
/* v as a table cell (malloc'd): CSV's text unquoted, reals to 8
 * significant digits, an interval as "[lo, hi]". */
char *stp__jcell(const json_t *v);

#endif /* STP_REPORT_JSON_H */
