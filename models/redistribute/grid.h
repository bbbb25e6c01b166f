/* grid.h: the problem of a block-cyclic redistribution and its
 * communication grid: message lengths per period of L elements, the
 * messages as a bipartite edge list, degrees and the minimum number of
 * steps (Konig: the maximum degree). */
#ifndef STP_REDIST_GRID_H
#define STP_REDIST_GRID_H

#include "streamtp_redistribute.h"

#include <stddef.h>
#include <stdint.h>

struct stp_redist {
  uint64_t P, Q, r, s, L, g;
  uint64_t *len;        /* P x Q, row-major */
  size_t nmsg;          /* nonzero entries, row-major: */
  uint32_t *from, *to;  /*   sender, receiver */
  uint64_t *mlen;       /*   length */
  uint32_t *deg_row;    /* P: messages sent */
  uint32_t *deg_col;    /* Q: messages received */
  uint64_t ns_opt;
};

/* Length of the message from p to q: #{0 <= i < L : floor(i/r) mod P = p,
 * floor(i/s) mod Q = q}, counted in O(1) (see grid.c). */
uint64_t stp__redist_count(uint64_t P, uint64_t Q, uint64_t r, uint64_t s, uint64_t g,
                           uint64_t p, uint64_t q);

/* Index of message (p, q) in the edge list, or SIZE_MAX when there is none. */
size_t stp__redist_find(const stp_redist *rd, uint64_t p, uint64_t q);

#endif /* STP_REDIST_GRID_H */
