/* bcolour.h: edge colouring of a bipartite multigraph with as many colours
 * as its maximum degree (Konig's theorem), by alternating-path swaps: each
 * colour class is a matching. */
#ifndef STP_BCOLOUR_H
#define STP_BCOLOUR_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

/* Edges k = 0..ne-1 join left u[k] < nl and right v[k] < nr.  Writes
 * colour[k] in 0..ncolours-1 so that edges sharing a vertex differ.
 * EINVAL when a vertex has more than ncolours edges (then no such colouring
 * exists) or an endpoint is out of range; ENOMEM.
 * Time O(ne (ncolours + nl + nr)), memory O((nl + nr) ncolours). */
stp_status stp__bcolour_edges(size_t nl, size_t nr, size_t ne, const uint32_t *u,
                              const uint32_t *v, size_t ncolours, uint32_t *colour,
                              stp_error *err);

#endif /* STP_BCOLOUR_H */
