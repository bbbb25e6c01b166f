/* stationary_umfpack.h: the direct stationary solver (stationary_umfpack.c),
 * UMFPACK loaded at run time. */
#ifndef STP_STATIONARY_UMFPACK_H
#define STP_STATIONARY_UMFPACK_H

#include "solvers/sparse.h"

/* The direct solver alone (solvers/stationary_umfpack.c): pi from the
 * system with the balance equation of state 0 replaced by pi[0] = 1, then
 * normalised.  The chain must be irreducible. */
stp_status stp__stationary_umfpack(const stp_csr *moves, double *pi, stp_error *err);

#endif /* STP_STATIONARY_UMFPACK_H */
