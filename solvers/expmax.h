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

/* EINVAL unless every mean is finite and >= 0 (the message names the
 * first that is not); every expected maximum, phmax.h's too, checks this. */
stp_status stp__expmax_check_means(size_t n, const double *mean, stp_error *err);

/* The two general methods on their own (tests compare them).  The
 * recursion returns ELIMIT beyond STP_EXPMAX_MAX_STATES states. */
stp_status stp__expmax_recursion(size_t n, const double *mean, const uint64_t *count,
                                 double *out, stp_error *err);
stp_status stp__expmax_quadrature(size_t n, const double *mean, const uint64_t *count,
                                  double *out, stp_error *err);

/* Adaptive Gauss-Legendre quadrature (20 points; a piece is split in two
 * until the halves agree with the whole within its share of the
 * tolerance), for any smooth integrand: here P(max > t), and in phmax.c
 * the same under phase-type laws.  error: the sum over the accepted pieces
 * of |halves - whole|, a conservative estimate of the error (the halves'
 * sum is kept, far more accurate than the difference says); evals: the
 * integrand's calls so far; max_evals (0: none): past it, pieces are
 * accepted as they are (their differences still go into error). */
#define STP_GL_N 20
typedef struct stp_quad {
  double (*f)(void *ctx, double t);
  void *ctx;
  double x[STP_GL_N], w[STP_GL_N];
  double error;
  uint64_t evals, max_evals;
} stp_quad;
void stp__quad_init(stp_quad *q, double (*f)(void *ctx, double t), void *ctx);
/* The integral of q->f over [a, b], absolute tolerance tol. */
double stp__quad(stp_quad *q, double a, double b, double tol);

#endif /* STP_EXPMAX_H */
