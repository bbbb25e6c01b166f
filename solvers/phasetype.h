/* phasetype.h: phase-type laws in the one form the exact chains use, the
 * Coxian form (docs/design.md, "Phase-type laws"): phases 0, 1, ..., n-1
 * visited in order from phase 0; phase i lasts an exponential time of rate
 * rate[i], after which the time goes on to phase i+1 with probability
 * next[i] and ends otherwise (next[n-1] = 0).  Every acyclic phase-type law
 * (any initial vector, any acyclic sub-generator) has such a form of no
 * more phases (Cumani's canonical form CF1 read backwards), so one start
 * phase serves every law: a transition enabled starts in phase 0, and a
 * chain state needs no choice of initial phase.
 *
 * Also here: the moments of a Coxian law, its distribution function (by
 * uniformization, for the Kolmogorov-Smirnov distance of a fit), and the
 * fit of samples by a mixture of two Erlang laws of a common order that
 * matches their first three moments (Johnson and Taaffe, 1989). */
#ifndef STP_PHASETYPE_H
#define STP_PHASETYPE_H

#include "streamtp_law.h"

#include <stddef.h>
#include <stdint.h>

/* Most phases of a law held in Coxian form (an Erlang law with more phases
 * stays a law for simulation, without an exact value); explicit lists
 * (hyperexp, coxian, ph) take at most STP_PH_MAX_LIST phases. */
#define STP_PH_MAX_PHASES 1024
#define STP_PH_MAX_LIST 64

typedef struct stp_coxian {
  uint32_t n;   /* phases, >= 1 */
  double *rate; /* n: the rate out of phase i */
  double *next; /* n: probability of going on to phase i + 1 (next[n-1] = 0) */
} stp_coxian;

void stp__coxian_free(stp_coxian *c);
stp_status stp__coxian_alloc(stp_coxian *c, uint32_t n, stp_error *err);
stp_status stp__coxian_copy(const stp_coxian *from, stp_coxian *to, stp_error *err);

/* Erlang-k of mean 1: k phases of rate k, each going on with probability 1. */
stp_status stp__coxian_erlang(uint32_t k, stp_coxian *out, stp_error *err);

/* The acyclic phase-type law (alpha, T) of n phases (alpha: n
 * probabilities summing to 1; T: n x n row-major sub-generator, diagonal
 * < 0, off-diagonal >= 0, row sums <= 0, no cycle among the phases) in
 * Coxian form, by the spectral polynomial algorithm: with the diagonal
 * rates mu_1 <= ... <= mu_n, the weight of the series of phases k..n is
 * beta_k = alpha prod_{j>k} (I + T/mu_j) t / mu_k (t = -T 1), and read from
 * its fastest phase the series is a Coxian law.  The result is checked
 * against the first 2n - 1 moments of (alpha, T) (STP_ENUMERIC when they
 * differ by more than 1e-8 relative).  STP_EINVAL names what is wrong with
 * (alpha, T) (`what` prefixes the message).  Not scaled: see
 * stp__coxian_scale_to_mean. */
stp_status stp__coxian_from_aph(size_t n, const double *alpha, const double *T, stp_coxian *out,
                                const char *what, stp_error *err);

/* Mean of c. */
double stp__coxian_mean(const stp_coxian *c);
/* Multiplies every rate by the mean, so that the law has mean 1. */
void stp__coxian_scale_to_mean(stp_coxian *c);
/* STP_EINVAL ("law \"SPEC\": phase I has the rate R at mean 1 ...") unless
 * every rate of c (scaled to mean 1) lies in [STP_TIME_MIN, STP_TIME_MAX]:
 * a time of the model times 1 / rate then stays in range, and the chains'
 * rates finite (coxian:rate=1e300/1e-300 gave "rate inf" only later). */
stp_status stp__coxian_check_rates(const stp_coxian *c, const char *spec, stp_error *err);
/* E[X^j] for j = 1..m into out[0..m-1]. */
void stp__coxian_moments(const stp_coxian *c, int m, double *out);
/* Squared coefficient of variation. */
double stp__coxian_cv2(const stp_coxian *c);

/* The distribution function F(t) at t[0..n-1], sorted increasing and >= 0,
 * into F (uniformization, carried from one point to the next; accurate to
 * about 1e-13).  Time O(n + rate_max * t[n-1]) vector steps. */
stp_status stp__coxian_cdf(const stp_coxian *c, const double *t, size_t n, double *F,
                           stp_error *err);

/* v <- v P, P = I + T / L the uniformized chain of c (L >= every rate),
 * in place; nonnegative terms only. */
void stp__coxian_times_p(const stp_coxian *c, double L, double *v);

/* ---- fitting samples ------------------------------------------------------ */

/* Most Erlang order a fit uses (2 x this many phases). */
#define STP_PH_FIT_MAX_ORDER 200

/* Fits x[0..n-1] (>= 0, mean > 0, scaled here to mean 1) by the mixture
 * p Erlang(k, rate[0]) + (1 - p) Erlang(k, rate[1]) whose first three
 * moments are the samples': the smallest k with 1/k < cv^2 and
 * m1 m3 / m2^2 >= (k + 2) / (k + 1) (m_j the moments), which makes the
 * normalised moments m_j / (k (k+1) ... (k+j-1)) those of a two-point law
 * (its points the branches' mean phase times).  STP_EINVAL when the
 * samples allow none (constant samples, or k above STP_PH_FIT_MAX_ORDER:
 * the times are almost constant; their message says so). */
stp_status stp__ph_fit(const double *x, size_t n, stp_coxian *out, stp_law_fit *info,
                       stp_error *err);

#endif /* STP_PHASETYPE_H */
