/* generator.h: a continuous-time Markov chain given by its moves (the
 * off-diagonal rates of its generator Q, row = source state; solvers/sparse.h):
 * the rate out of a state, the scaled residual of a stationary vector, and
 * the chain's levels (generator.c). */
#ifndef STP_GENERATOR_H
#define STP_GENERATOR_H

#include "solvers/sparse.h"

#include <stdint.h>

/* Rate out of state s in the generator (moves back to s do not count). */
static inline double stp__generator_out_rate(const stp_csr *moves, int64_t s) {
  double out = 0;
  for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++)
    if (moves->j[e] != s)
      out += moves->x[e];
  return out;
}

/* Scaled residual ||pi Q||_inf / (||Q||_1 ||pi||_inf) of the generator whose
 * moves are given (||Q||_1: largest column sum of |Q|, so the value lies in
 * [0, 1]).  O(n + nnz) time, O(n) scratch. */
stp_status stp__generator_residual(const stp_csr *moves, const double *pi, double *residual,
                                    stp_error *err);

/* Breadth-first search from root along a's rows: the number of states
 * reached, one state not reached (or -1), and, when depth is non-NULL, the
 * depth of every state reached.  O(n + nnz). */
stp_status stp__generator_bfs(const stp_csr *a, int64_t root, int64_t *depth, int64_t *reached,
                              int64_t *missing, stp_error *err);

/* The period d of the chain and level[s] in 0..d-1 (allocated), growing by
 * one along every move (moves back to a state ignored).  STP_ENUMERIC when
 * a state cannot be reached from state 0.  O(n + nnz). */
stp_status stp__generator_levels(const stp_csr *moves, uint32_t **level, uint32_t *period,
                                  stp_error *err);

#endif /* STP_GENERATOR_H */
