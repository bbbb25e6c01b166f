/* bdegree.h: does a bipartite graph have a spanning subgraph whose degree at
 * every vertex lies in a given interval [lo, hi]?  A flow with lower bounds
 * (circulation) answers exactly; used as a relaxation by exact searches. */
#ifndef STP_BDEGREE_H
#define STP_BDEGREE_H

#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Edges k = 0..ne-1 join left u[k] < nl and right v[k] < nr.  lo and hi
 * hold nl + nr bounds (left vertices first).  *feasible = whether some
 * subset F of the edges has lo[x] <= deg_F(x) <= hi[x] for every vertex x;
 * when it has and chosen is not NULL, chosen[k] = 1 for the edges of one
 * such F.  ENOMEM only.  Time O(ne sqrt(nl + nr)) (Dinic on unit arcs). */
stp_status stp__bdegree_feasible(size_t nl, size_t nr, size_t ne, const uint32_t *u,
                                 const uint32_t *v, const int64_t *lo, const int64_t *hi,
                                 bool *feasible, unsigned char *chosen, stp_error *err);

#endif /* STP_BDEGREE_H */
