/* inputrules.c: the positive-number and name rules shared by every reader
 * (see inputrules.h).  Messages go through stp__snprintf so that numbers
 * print as "2.5" under any locale. */
#include "base/inputrules.h"

#include "base/numfmt.h"

#include <math.h>

bool stp__rule_positive(double x, bool allow_zero, const char *what, const char *where,
                        char *msg, size_t cap) {
  if (!isfinite(x)) {
    stp__snprintf(msg, cap, "%s (%s) must be finite", what, where);
    return false;
  }
  if (x < 0 || (x == 0 && !allow_zero)) {
    stp__snprintf(msg, cap, "%s (%s) must be %s, got %g", what, where,
                  allow_zero ? ">= 0" : "> 0", x);
    return false;
  }
  return true;
}

bool stp__rule_time(double x, bool allow_zero, const char *what, const char *where, char *msg,
                    size_t cap) {
  if (!stp__rule_positive(x, allow_zero, what, where, msg, cap))
    return false;
  if ((x == 0 && allow_zero) || (x >= STP_TIME_MIN && x <= STP_TIME_MAX))
    return true;
  stp__snprintf(msg, cap,
                "%s (%s) = %g is outside [%g, %g]%s: sums of such times would overflow or "
                "underflow; rescale the units",
                what, where, x, STP_TIME_MIN, STP_TIME_MAX, allow_zero ? " (or 0)" : "");
  return false;
}

bool stp__rule_name(const char *name, size_t n, const char *what, char *msg, size_t cap) {
  if (n == 0) {
    stp__snprintf(msg, cap, "%s must not be empty", what);
    return false;
  }
  if (n > STP_MAX_NAME) {
    stp__snprintf(msg, cap, "%s is longer than %d bytes", what, STP_MAX_NAME);
    return false;
  }
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] < 0x20) {
      stp__snprintf(msg, cap, "%s must not contain control characters", what);
      return false;
    }
  return true;
}
