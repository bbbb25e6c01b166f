/* rtime.h: times of a reduction schedule as exact combinations p d + q c.
 * Every time of the paper's algorithms and of a schedule is a sum of
 * transfer and reduction times, so carrying the integer counts (p, q)
 * next to the value keeps ties exact: the tie-breaks of Algorithm 1 and of
 * the reception orders (docs/format.md, `reduce`) then do not depend on the
 * order in which floating-point sums were taken.  The value is computed
 * afresh from (p, q), never accumulated; two times whose values differ by at
 * most 1e-12 relative are equal, so that d = 0.1 and c = 0.3 give the trees
 * of d = 1 and c = 3. */
#ifndef STP_REDUCE_RTIME_H
#define STP_REDUCE_RTIME_H

#include <math.h>
#include <stdint.h>

typedef struct stp__rtime {
  int64_t p, q; /* the time p d + q c */
  double v;     /* its value */
} stp__rtime;

/* The costs that give rtimes their values. */
typedef struct stp__rcost {
  double d, c;
} stp__rcost;

/* Relative width of a tie: far above the rounding of p d + q c (a few ulps)
 * and far below any real difference of two schedules' times. */
#define STP__RTIME_TIE 1e-12

stp__rtime stp__rtime_make(stp__rcost k, int64_t p, int64_t q);

static inline stp__rtime stp__rtime_add(stp__rcost k, stp__rtime a, int64_t p, int64_t q) {
  return stp__rtime_make(k, a.p + p, a.q + q);
}

/* -1, 0 or 1 as a is before, equal to (within the tie width) or after b. */
static inline int stp__rtime_cmp(stp__rtime a, stp__rtime b) {
  if (a.v == b.v || fabs(a.v - b.v) <= STP__RTIME_TIE * fmax(fabs(a.v), fabs(b.v)))
    return 0;
  return a.v < b.v ? -1 : 1;
}

/* The later of a and b (a when equal). */
static inline stp__rtime stp__rtime_max(stp__rtime a, stp__rtime b) {
  return stp__rtime_cmp(a, b) >= 0 ? a : b;
}

#endif /* STP_REDUCE_RTIME_H */
