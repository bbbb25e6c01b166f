/* greedy.h: the tree-building algorithms of RR-7898: Algorithm 1 (optimal
 * greedy, section 5), Algorithm 2 (at most K concurrent transfers, 6.1) and
 * Algorithm 3 (at most K reducers, 6.2).  Each adds machines 2..n in turn
 * and gives machine i the child M = argmin s_j (ties: smallest j) over the
 * candidates, as the paper does with time reversed: O(1) a step for
 * Algorithms 1 and 3, O(log n) for Algorithm 2 (a heap). */
#ifndef STP_REDUCE_GREEDY_H
#define STP_REDUCE_GREEDY_H

#include "models/reduce/rtime.h"
#include "streamtp_reduce.h"

#include <stddef.h>
#include <stdint.h>

typedef struct stp__greedy {
  uint64_t n;
  uint64_t *child;   /* child[i] = c_i for i = 2..n; child[0] = child[1] = 0 */
  stp__rtime *t;     /* Algorithm 2 only: t[i] of its line 8 (reversed time),
                        i = 2..n; NULL for the others */
  stp__rtime length; /* Algorithms 1 and 3: max_i s_i after the last step
                        (the schedule length the algorithm promises);
                        Algorithm 2: max_i t_i */
} stp__greedy;

/* Runs Algorithm 1 (K = 0) or 3 (K >= 1: candidates j <= min(i - 1, K))
 * with the costs k of the construction. */
stp_status stp__greedy_alg13(uint64_t n, stp__rcost k, uint64_t K, stp__greedy *out,
                             stp_error *err);
/* Runs Algorithm 2 with the limit K >= 1 (t_j = 0 for j < 2). */
stp_status stp__greedy_alg2(uint64_t n, stp__rcost k, uint64_t K, stp__greedy *out,
                            stp_error *err);
void stp__greedy_free(stp__greedy *g);

/* Checks a specification (the errors of stp_reduce_build). */
stp_status stp__reduce_check(const stp_reduce_spec *spec, stp_error *err);
/* ELIMIT when the tree and schedule of spec->n machines exceed the memory
 * budget of spec->control (STP_REDUCE_BYTES_PER_MACHINE each). */
stp_status stp__reduce_check_memory(const stp_reduce_spec *spec, stp_error *err);
/* The tree of a checked specification: its algorithm, with the costs of its
 * tree (optimal: (d, c); binomial: (max(d, c), 0); fibonacci: (1, 1);
 * Algorithm 2 always with (d, c)). */
stp_status stp__greedy_build(const stp_reduce_spec *spec, stp__greedy *out, stp_error *err);

#endif /* STP_REDUCE_GREEDY_H */
