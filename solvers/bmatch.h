/* bmatch.h: maximum-weight matching in a bipartite graph (any size, not
 * necessarily perfect), by successive shortest augmenting paths with
 * potentials (Dijkstra on reduced costs).  Weights are pairs compared
 * lexicographically (major first), so that a caller can ask for "as many
 * marked vertices covered as possible, then the heaviest" without a big-M
 * constant that could overflow.  Integers throughout: the result is exact. */
#ifndef STP_BMATCH_H
#define STP_BMATCH_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

/* A weight: (major, minor), compared lexicographically, added componentwise. */
typedef struct stp_w2 {
  int64_t major, minor;
} stp_w2;

/* Edges k = 0..ne-1 join left vertex u[k] < nl and right vertex v[k] < nr
 * with weight w[k].  On success chosen[k] = 1 for the edges of a matching of
 * maximum total weight (lexicographic), 0 for the others; *total holds its
 * weight when total is not NULL.  Sums of |weights| over any nl + nr edges
 * must fit in int64 (the caller bounds them); EINVAL on out-of-range
 * endpoints, ENOMEM, EINTERRUPTED when cancel (may be NULL) says so
 * (checked before each augmenting path).  Time O(k (ne + nl + nr) log(nl +
 * nr)) for a matching of k edges; Dijkstra stops at the first free right
 * vertex it settles. */
stp_status stp__bmatch_max_weight(size_t nl, size_t nr, size_t ne, const uint32_t *u,
                                  const uint32_t *v, const stp_w2 *w, const stp_cancel *cancel,
                                  unsigned char *chosen, stp_w2 *total, stp_error *err);

#endif /* STP_BMATCH_H */
