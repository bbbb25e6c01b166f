/* streamtp_law.h: random laws of firing times, as unit-mean shapes that
 * multiply the mean times a model gives (so that every law shares the means
 * of the exact methods).  Used by every simulation of streamtp. */
#ifndef STREAMTP_LAW_H
#define STREAMTP_LAW_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A random law, as a shape: times are the mapping's means times a unit-mean
 * draw.  Specs: det, exp, uniform:spread=X, gamma:cv=X, weibull:cv=X,
 * lognormal:cv=X, normal:cv=X, beta:a=X,b=Y, erlang:k=K, hyperexp:cv=X,
 * hyperexp:p=P1/P2/...,rate=R1/R2/..., coxian:rate=R1/R2/...,next=Q1/...,
 * ph:alpha=A1/A2/...,T=T11/T12/.../Tnn, ph:fit=FILE, empirical:FILE (FILE
 * relative to base_dir when base_dir is non-NULL).  Lists are separated by
 * '/'; rates give the shape only (every law is scaled to mean 1). */
typedef struct stp_law stp_law;
STP_API stp_status stp_law_parse(const char *spec, const char *base_dir, stp_law **out, stp_error *err);
STP_API const char *stp_law_spec(const stp_law *law);
STP_API void stp_law_free(stp_law *law);
/* The spec as a file in to_dir must write it: the FILE of empirical:FILE
 * and ph:fit=FILE, relative to from_dir, rewritten relative to to_dir (or
 * absolute when the two share nothing), so that both name the same
 * samples; an absolute FILE and the other specs are copied as they are.
 * NULL dirs are the current directory.  *out is released with free(). */
STP_API stp_status stp_law_spec_rebase(const char *spec, const char *from_dir,
                                       const char *to_dir, char **out, stp_error *err);

/* Phase-type laws (exp, erlang, hyperexp, coxian, ph), whose exact values
 * come from Markov chains (docs/design.md, "Phase-type laws"): the number
 * of phases of the law's Coxian form, 0 when the law is not phase-type
 * (or an Erlang law of more than 1024 phases). */
STP_API size_t stp_law_phases(const stp_law *law);

/* The quality of a fit (ph:fit=FILE): the samples' first three moments and
 * the law's, both with the samples scaled to mean 1, their largest
 * relative difference, and the Kolmogorov-Smirnov distance between the law
 * and the samples' empirical distribution.  The law is the mixture
 * p Erlang(order, rate[0]) + (1 - p) Erlang(order, rate[1]) (mean 1). */
typedef struct stp_law_fit {
  size_t samples;
  uint32_t order;   /* Erlang order of both branches */
  uint32_t phases;  /* of the law's Coxian form */
  double p;         /* weight of the first branch */
  double rate[2];   /* phase rates of the two branches */
  double sample_moments[3];
  double law_moments[3];
  double moment_error;
  double ks;
} stp_law_fit;
/* 1 and *out filled when law is a fit, else 0. */
STP_API int stp_law_fit_quality(const stp_law *law, stp_law_fit *out);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_LAW_H */
