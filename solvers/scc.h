/* scc.h: the cycle structure of a directed graph with token counts on its
 * edges (solvers/digraph.h): strongly connected components (iterative
 * Tarjan) and a cycle of token-free edges, the deadlock of an event graph.
 * The analyses use them directly (engine/reach.c, engine/graph.c) and
 * Howard's preparation runs the same Tarjan on its own workspace. */
#ifndef STP_SCC_H
#define STP_SCC_H

#include "solvers/digraph.h"

#include <stdbool.h>

/* Strongly connected components: comp[u] in 0..count-1, in the order
 * Tarjan's algorithm closes them (a component before any that reaches it).
 * Time and memory O(n + m). */
stp_status stp__scc(const stp_digraph *g, uint32_t *comp, uint32_t *count, stp_error *err);

/* Tarjan's record of a node: DFS index, low link and edge cursor, 16 bytes
 * so that a node costs one cache line (Howard lays its own records over
 * these once the components are known). */
typedef struct stp_scc_node {
  uint32_t index, low;
  uint64_t it;
} stp_scc_node;

/* stp__scc on the caller's workspace: t, stack and call of n entries each. */
void stp__scc_run(const stp_digraph *g, uint32_t *comp, uint32_t *count, stp_scc_node *t,
                  uint32_t *stack, uint32_t *call);

/* A cycle of token-free edges, if any: returns true and stores it in
 * *cycle (malloc'ed) / *len.  On allocation failure returns false with
 * *len = SIZE_MAX. */
bool stp__find_token_free_cycle(const stp_digraph *g, uint32_t **cycle, size_t *len);

#endif /* STP_SCC_H */
