/* mcr_ref.h: reference algorithms for the maximum cycle ratio, independent
 * of Howard, used only to check it: brute-force enumeration of elementary
 * cycles (exact, tiny graphs), Karp's algorithm (exact, one token per edge),
 * and Lawler's parametric search with Bellman-Ford (any tokens, bisection). */
#ifndef STP_MCR_REF_H
#define STP_MCR_REF_H

#include "solvers/digraph.h"

#include <stdbool.h>

/* Max over elementary cycles of w/tok; -INFINITY when acyclic.  Returns
 * false if a cycle with no token exists. */
bool mcr_brute_force(const stp_digraph *g, double *ratio);
/* Max cycle mean (every edge must hold exactly one token). */
double mcr_karp(const stp_digraph *g);
/* Bisection on lambda to relative width rtol. */
double mcr_lawler(const stp_digraph *g, double rtol);

/* Random graph with n nodes and about m edges, durations in [1, 10], tokens
 * 0 or 1; token-free edges only go from a lower to a higher node in a random
 * order, so that every cycle holds a token. */
struct trng;
stp_digraph *random_graph(struct trng *r, uint32_t n, uint64_t m, double p_token,
                        uint32_t max_tokens);

#endif /* STP_MCR_REF_H */
