/* rtime.c: exact-count times p d + q c and their comparison (rtime.h). */
#include "models/reduce/rtime.h"

#include <math.h>

/* Relative width of a tie: far above the rounding of p d + q c (a few ulps)
 * and far below any real difference of two schedules' times. */
#define RTIME_TIE 1e-12

double stp__rtime_value(stp__rcost k, stp__rtime a) {
  /* 0 * d is skipped so that a zero count never meets an infinite cost. */
  double x = a.p ? (double)a.p * k.d : 0.0;
  double y = a.q ? (double)a.q * k.c : 0.0;
  return x + y;
}

int stp__rtime_cmp(stp__rcost k, stp__rtime a, stp__rtime b) {
  if (a.p == b.p && a.q == b.q)
    return 0;
  double x = stp__rtime_value(k, a), y = stp__rtime_value(k, b);
  if (fabs(x - y) <= RTIME_TIE * fmax(fabs(x), fabs(y)))
    return 0;
  return x < y ? -1 : 1;
}

stp__rtime stp__rtime_max(stp__rcost k, stp__rtime a, stp__rtime b) {
  return stp__rtime_cmp(k, a, b) >= 0 ? a : b;
}
