/* reduce_ref.h: reference computations for the reduction trees of RR-7898,
 * written apart from models/reduce/ so the tests compare two independent
 * programs: exhaustive search over trees and reception orders, the
 * closed-form recursion of Propositions 2-3, the O(n^2) dynamic programme
 * of the optimal length, and the expected makespan with exponential times
 * by enumeration of race orders. */
#ifndef STP_REDUCE_REF_H
#define STP_REDUCE_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REF_MAX_N 12

/* Time at which machine u is ready (end of its last reduction) when it
 * receives from its senders (ready at r[0..m-1]) in the given order, one
 * transfer at a time, reducing each after its arrival and the previous
 * reduction. */
double ref_receive(const double *r, size_t m, double d, double c);
/* The same, minimised over all m! orders. */
double ref_receive_best(const double *r, size_t m, double d, double c);
/* Proposition 3 with the erratum of Proposition 2: max_j (r_(j) + d +
 * (m - j) max(d, c) + c), r_(j) the j-th smallest (largest: the printed
 * statement). */
double ref_prop3(const double *r, size_t m, double d, double c, bool smallest);

/* Makespan of the tree child[2..n] (child[v] < v) where every machine picks
 * its best reception order (ref_receive_best), or uses Proposition 3. */
double ref_tree_best(size_t n, const uint64_t *child, double d, double c);
double ref_tree_prop3(size_t n, const uint64_t *child, double d, double c, bool smallest);

/* Minimum of ref_tree_best over every tree child[v] in [1, v - 1] with at
 * most max_receivers machines that receive (0: no limit); n <= 9. */
double ref_opt_exhaustive(size_t n, double d, double c, size_t max_receivers);

/* OPT(n) = min_k max(OPT(n - k) + max(d, c), OPT(k) + d + c), OPT(1) = 0,
 * in exact integers (d, c integers >= 0): out[1..nmax]. */
void ref_opt_dp(size_t nmax, int64_t d, int64_t c, int64_t *out);

/* Algorithms 1 (K = 0) and 3 as printed, with a linear argmin over exact
 * integer times (ties: smallest j): child[2..n]. */
void ref_greedy(size_t n, int64_t d, int64_t c, size_t K, uint64_t *child);

/* E[makespan] of the activity DAG of a tree with the reception orders
 * given by order[u][k] (senders of u), times exponential with means d and
 * c (0: instantaneous), by recursion over every race order (no memo);
 * 2(n - 1) <= 16 activities. */
double ref_exp_makespan(size_t n, const uint64_t *child, const uint64_t order[][REF_MAX_N],
                        const size_t *count, double d, double c);

#endif /* STP_REDUCE_REF_H */
