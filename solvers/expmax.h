/* expmax.h: the expected maximum of independent exponential random
 * variables, given as groups (count k_j of variables with mean mu_j).  Three
 * exact-to-rounding methods: the harmonic number mu H_k for one group, the
 * order-statistics recursion over the counts still running (a positive
 * recursion, no cancellation) while the state space is small, and adaptive
 * Gauss-Legendre quadrature of P(max > t) otherwise. */
#ifndef STP_EXPMAX_H
#define STP_EXPMAX_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

/* Largest state space of the order-statistics recursion (product of k_j + 1). */
#define STP_EXPMAX_MAX_STATES UINT64_C(1000000)

typedef enum {
  STP_EXPMAX_NONE,       /* no variable, or every mean 0: the maximum is 0 */
  STP_EXPMAX_HARMONIC,   /* one group */
  STP_EXPMAX_RECURSION,  /* order statistics */
  STP_EXPMAX_QUADRATURE  /* integral of 1 - prod_j (1 - exp(-t/mu_j))^k_j */
} stp_expmax_method;

/* E[max] of sum_j count[j] independent exponentials, count[j] of them with
 * mean mean[j] (finite, >= 0; mean 0 means the variable is 0).  Picks the
 * method as described above; *method (may be NULL) says which.  EINVAL on a
 * negative or non-finite mean, ENOMEM. */
stp_status stp__expmax(size_t n, const double *mean, const uint64_t *count, double *out,
                       stp_expmax_method *method, stp_error *err);

/* The two general methods on their own (tests compare them).  The
 * recursion returns ELIMIT beyond STP_EXPMAX_MAX_STATES states. */
stp_status stp__expmax_recursion(size_t n, const double *mean, const uint64_t *count,
                                 double *out, stp_error *err);
stp_status stp__expmax_quadrature(size_t n, const double *mean, const uint64_t *count,
                                  double *out, stp_error *err);

#endif /* STP_EXPMAX_H */
