/* stationary_bands.h: the stationary distribution of a chain held in a
 * compact move store (movestore.h) whose states are numbered breadth
 * first, by the level-order Gauss-Seidel of stationary.h, without the
 * renumbered transpose that solver builds.  Every move of such a chain goes
 * from level l to level l+1 mod p (the period), and the level of a state is
 * its depth mod p, so a level is a set of bands and a sweep can push each
 * level's values along its own rows into the next level: the rows are read
 * in order, nothing is renumbered, and the iterate is the stationary vector
 * itself.  The iterates, the stopping rule and the residuals are those of
 * stp__stationary_solve (the sums are taken in the same order), so both
 * give the same numbers.  Where the sweeps stall, BiCGSTAB on the same
 * sweeps takes over (stationary_krylov.h).  Memory: the store, one vector
 * of n doubles, a vector as long as the largest level, one bit per state
 * to check that every state reaches state 0, and, for BiCGSTAB only, 6
 * vectors as long as level 0. */
#ifndef STP_STATIONARY_BANDS_H
#define STP_STATIONARY_BANDS_H

#include "solvers/movestore.h"
#include "solvers/stationary.h"

/* pi (allocated, length ms->nstates) with pi Q = 0 and sum(pi) = 1, by
 * level-order Gauss-Seidel; with o->method AUTO, BiCGSTAB on the sweeps
 * takes over where Gauss-Seidel is slow (stp__gs_slow) or ends above the
 * tolerance, and info->solver says so; any other method: Gauss-Seidel
 * alone.  info->iterations counts the sweeps of both.  STP_ENUMERIC when
 * the chain has no levels (period 1), is reducible (the message names a
 * state that cannot reach state 0), or the solve does not reach
 * o->tolerance: the caller may then turn to stp__stationary_solve, which
 * has a direct fallback for small chains.  STP_ENOMEM, STP_EINTERRUPTED.
 * Time O(sweeps * (n + moves)). */
stp_status stp__bands_solve(const stp_movestore *ms, const stp_stationary_options *o,
                            double **pi_out, stp_stationary_info *info, stp_error *err);

/* For benchmarks (bench/ctmc/sweep_bench.c): the set-up of
 * stp__bands_solve, then `sweeps` steps of its loop from the uniform
 * vector (the estimate and one sweep each, whatever the stopping rule
 * would say), seconds[i] the time of step i by `clock` (seconds); *x_out
 * the iterate then (allocated, normalised), *period the chain's.  Errors
 * as stp__bands_solve's. */
stp_status stp__bands_time_sweeps(const stp_movestore *ms, size_t sweeps, double (*clock)(void),
                                  double *seconds, double **x_out, uint32_t *period,
                                  stp_error *err);

/* Long-run firing rate of each label under pi: fire[l] = sum over the moves
 * labelled l of pi[source] * rate[l] (moves back to their state count). */
void stp__bands_label_rates(const stp_movestore *ms, const double *pi, double *fire);

#endif /* STP_STATIONARY_BANDS_H */
