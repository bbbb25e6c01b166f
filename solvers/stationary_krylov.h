/* stationary_krylov.h: the fallback of the level-order Gauss-Seidel for
 * chains that mix slowly: BiCGSTAB on the fixed point of one sweep.
 *
 * One unnormalised sweep is a linear map T of the iterate (for a chain with
 * levels, of its level-0 values: every other level is computed from them),
 * and pi is its fixed point.  Gauss-Seidel is the power method on T, which
 * crawls when T has eigenvalues near 1 (a nearly decomposable chain, a long
 * chain with drift); BiCGSTAB solves (I - T) v = 0 instead, which is Krylov
 * acceleration of the same sweep (BiCGSTAB preconditioned by Gauss-Seidel),
 * and needs only products v -> T v: no transpose, no factorisation, so it
 * runs on the compact store at any size, with 5 work vectors as long as v.
 * docs/design.md (section 4) says why BiCGSTAB rather than GMRES, and when
 * it takes over. */
#ifndef STP_STATIONARY_KRYLOV_H
#define STP_STATIONARY_KRYLOV_H

#include "solvers/stationary.h"

#include <stddef.h>

/* The sweep as a linear map of vectors of length n, given by its owner. */
typedef struct stp_sweep_map {
  size_t n;
  void *ctx;
  /* tv = T v (v and tv distinct) */
  void (*apply)(void *ctx, const double *v, double *tv);
  /* The scaled residual of v (stationary.h), called right after apply(v)
   * wrote tv, so that the owner may read the sweep's scratch. */
  double (*estimate)(void *ctx, const double *v, const double *tv);
} stp_sweep_map;

/* x: in, the start (the last Gauss-Seidel iterate); out, the fixed point
 * scaled to sum 1.  Stops by the rule of the sweeps (stp__gs_done, counting
 * applications of T as sweeps: two per BiCGSTAB step, one per estimate)
 * with at most o->max_sweeps of them; *sweeps: how many ran, *est: the
 * last estimate.  Memory: 5 vectors of f->n.  STP_ENOMEM,
 * STP_EINTERRUPTED, STP_ENUMERIC if the iterate loses its sign (sum <= 0).
 * Reaching the tolerance is the caller's check. */
stp_status stp__bicgstab_fixed_point(const stp_sweep_map *f, double *x,
                                     const stp_stationary_options *o, size_t *sweeps, double *est,
                                     stp_error *err);

#endif /* STP_STATIONARY_KRYLOV_H */
