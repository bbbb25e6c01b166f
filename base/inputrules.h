/* inputrules.h: the two rules every reader applies to what it is given, a
 * positive number and a name, stated once so that a mapping file, a graph
 * file, a broadcast platform and arrays handed to the C API refuse the same
 * values with the same words.  Each rule returns true when the value is
 * fine; otherwise it writes why into msg and returns false, and the caller
 * adds the context it knows (a file position, a path). */
#ifndef STP_INPUTRULES_H
#define STP_INPUTRULES_H

#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>

#define STP_MAX_NAME 256 /* longest name, in bytes */

/* x finite and > 0 (>= 0 when allow_zero); `what` and `where` name the value
 * in the message ("work (stages[2].work) must be > 0, got -1"). */
bool stp__rule_positive(double x, bool allow_zero, const char *what, const char *where,
                        char *msg, size_t cap);

/* A time (or a quantity times are made of): finite and 0 (when allow_zero)
 * or within [STP_TIME_MIN, STP_TIME_MAX] (streamtp_base.h). */
bool stp__rule_time(double x, bool allow_zero, const char *what, const char *where, char *msg,
                    size_t cap);

/* A name of n bytes: non-empty, at most STP_MAX_NAME bytes, no control
 * characters. */
bool stp__rule_name(const char *name, size_t n, const char *what, char *msg, size_t cap);

#endif
