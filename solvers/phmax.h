/* phmax.h: the expected maximum of independent phase-type times, given as
 * groups (count k_j of times distributed as mu_j Y, Y one phase-type law of
 * mean 1): E[max] = integral over t >= 0 of 1 - prod_j F(t / mu_j)^k_j.
 * Under the exponential law expmax.h has exact order statistics; a
 * phase-type maximum would need a chain over how many times sit in each
 * phase, so the integral of the distribution functions is taken instead
 * (docs/design.md, "Phase-type laws"): F by uniformization from
 * checkpoints of the law's phase vector, the integral by adaptive
 * Gauss-Legendre on panels that follow the law's scales, the tail beyond
 * the last panel bounded exactly by the expected remaining time of each
 * phase.  One stp_phmax serves every maximum of the same law (its
 * checkpoints are shared). */
#ifndef STP_PHMAX_H
#define STP_PHMAX_H

#include "solvers/phasetype.h"
#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

/* The target of the integral, relative to the largest mean mu_j (a lower
 * bound of E[max]): the panels' tolerances add up to about this. */
#define STP_PHMAX_RTOL 1e-13

typedef struct stp_phmax stp_phmax;

/* For the law c, which must have mean 1 (stp__coxian_scale_to_mean);
 * control (may be NULL) is polled for cancellation while integrating.
 * c is not copied: it must outlive the stp_phmax. */
stp_status stp__phmax_new(const stp_coxian *c, const stp_control *control, stp_phmax **out,
                          stp_error *err);
void stp__phmax_free(stp_phmax *p);

/* E[max] of sum_j count[j] independent times, count[j] of them mean[j] Y
 * (mean finite >= 0; mean 0: the time is 0).  *error: an estimate of
 * |*out - E[max]| (the differences between each accepted panel piece and
 * its halves, plus the bound on the tail), the distribution function's
 * own rounding (about 1e-14 relative) apart.  EINVAL on a bad mean,
 * EINTERRUPTED when control cancels, ENOMEM. */
stp_status stp__phmax(stp_phmax *p, size_t n, const double *mean, const uint64_t *count,
                      double *out, double *error, stp_error *err);

#endif /* STP_PHMAX_H */
