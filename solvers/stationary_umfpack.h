/* stationary_umfpack.h: the direct stationary solver (stationary_umfpack.c),
 * UMFPACK loaded at run time. */
#ifndef STP_STATIONARY_UMFPACK_H
#define STP_STATIONARY_UMFPACK_H

#include "solvers/sparse.h"

/* The direct solver alone (solvers/stationary_umfpack.c): pi from the
 * system with the balance equation of state 0 replaced by pi[0] = 1, then
 * normalised.  The chain must be irreducible. */
stp_status stp__stationary_umfpack(const stp_csr *moves, double *pi, stp_error *err);

/* The same in two steps, so that the cost of the factorisation is known
 * before it is paid: stp__umfpack_analyse assembles the reduced system and
 * runs UMFPACK's symbolic analysis (an ordering: about the cost of a few
 * passes over the moves), whose estimates fill *est; stp__umfpack_solve
 * factorises and solves into pi (length moves->nrows); stp__umfpack_free
 * releases the analysis (NULL: nothing). */
typedef struct stp_umfpack_lu stp_umfpack_lu;
typedef struct stp_umfpack_estimate {
  double flops;   /* of the numeric factorisation (UMFPACK_FLOPS_ESTIMATE) */
  double bytes;   /* peak memory of analysis and factors (UMFPACK_PEAK_MEMORY_ESTIMATE) */
  double entries; /* nonzeros of L and U (their estimates, upper bounds) */
} stp_umfpack_estimate;
stp_status stp__umfpack_analyse(const stp_csr *moves, stp_umfpack_lu **lu,
                                stp_umfpack_estimate *est, stp_error *err);
stp_status stp__umfpack_solve(stp_umfpack_lu *lu, double *pi, stp_error *err);
void stp__umfpack_free(stp_umfpack_lu *lu);

#endif /* STP_STATIONARY_UMFPACK_H */
