/* rtime.c: exact-count times p d + q c (rtime.h). */
#include "models/reduce/rtime.h"

stp__rtime stp__rtime_make(stp__rcost k, int64_t p, int64_t q) {
  /* A zero count adds nothing, whatever the cost. */
  double x = p ? (double)p * k.d : 0.0;
  double y = q ? (double)q * k.c : 0.0;
  return (stp__rtime){p, q, x + y};
}
