/* rtime.h: times of a reduction schedule as exact combinations p d + q c.
 * Every time of the paper's algorithms and of a schedule is a sum of
 * transfer and reduction times, so carrying the integer counts (p, q)
 * instead of a rounded sum keeps ties exact: the tie-breaks of Algorithm 1
 * and of the reception orders (docs/format.md, `reduce`) then do not depend
 * on the order in which floating-point sums were taken.  Two times whose
 * values differ by at most 1e-12 relative are equal, so that d = 0.1 and
 * c = 0.3 give the trees of d = 1 and c = 3. */
#ifndef STP_REDUCE_RTIME_H
#define STP_REDUCE_RTIME_H

#include <stdint.h>

typedef struct stp__rtime {
  int64_t p, q; /* the time p d + q c */
} stp__rtime;

/* The costs that give rtimes their values. */
typedef struct stp__rcost {
  double d, c;
} stp__rcost;

static inline stp__rtime stp__rtime_add(stp__rtime a, int64_t p, int64_t q) {
  return (stp__rtime){a.p + p, a.q + q};
}

double stp__rtime_value(stp__rcost k, stp__rtime a);
/* -1, 0 or 1 as a is before, equal to (within 1e-12 relative) or after b. */
int stp__rtime_cmp(stp__rcost k, stp__rtime a, stp__rtime b);
/* The later of a and b (a when equal). */
stp__rtime stp__rtime_max(stp__rcost k, stp__rtime a, stp__rtime b);

#endif /* STP_REDUCE_RTIME_H */
