/* digraph.h: a directed multigraph in compressed sparse row form, with two
 * weights per edge (a duration and a token count).  Event graphs, folded
 * component patterns and benchmark graphs all reach the cycle-ratio solver
 * through this one type. */
#ifndef STP_DIGRAPH_H
#define STP_DIGRAPH_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

typedef struct stp_digraph {
  uint32_t n;    /* nodes */
  uint64_t m;    /* edges */
  uint64_t *off; /* n + 1: out-edges of u are off[u] .. off[u+1]-1 */
  uint32_t *src; /* m (kept: the Markov-chain and simulation code walk edges) */
  uint32_t *dst; /* m */
  double *w;     /* m: duration, the firing time of the source transition */
  uint32_t *tok; /* m: tokens (initial marking of the place) */
} stp_digraph;

#define STP_DIGRAPH_MAX_NODES UINT32_C(4000000000)

/* Edge list builder (triplet-like): append, then compress. */
typedef struct stp_edge_list {
  uint64_t m, cap;
  uint32_t *src, *dst, *tok;
  double *w;
} stp_edge_list;

stp_status stp__edges_reserve(stp_edge_list *el, uint64_t cap, stp_error *err);
/* Appends without checking capacity: reserve first. */
static inline void stp__edges_push(stp_edge_list *el, uint32_t s, uint32_t d, double w,
                                   uint32_t tok) {
  el->src[el->m] = s;
  el->dst[el->m] = d;
  el->w[el->m] = w;
  el->tok[el->m] = tok;
  el->m++;
}
void stp__edges_free(stp_edge_list *el);

/* Compress an edge list into CSR (edges keep their relative order per
 * source).  The list is consumed (freed) whether or not this succeeds. */
stp_status stp__digraph_from_edges(uint32_t n, stp_edge_list *el, stp_digraph **out, stp_error *err);
/* The same graph with every edge reversed (in-adjacency); weights follow. */
stp_status stp__digraph_transpose(const stp_digraph *g, stp_digraph **out, stp_error *err);
void stp__digraph_free(stp_digraph *g);

#endif /* STP_DIGRAPH_H */
