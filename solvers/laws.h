/* laws.h: random laws of computation and communication times for the
 * simulation (docs/design.md 5).  A law is a shape only: every law is sampled as
 * a unit-mean factor that the caller multiplies by the mean time the mapping
 * gives (w_i / s_p or delta_i / b_pq), so that all laws share the means of
 * the exact methods.  Specs are text ("gamma:cv=0.5"); they come from the
 * command line or from an input file. */
#ifndef STP_LAWS_H
#define STP_LAWS_H

#include "base/rng.h"
#include "solvers/phasetype.h"
#include "streamtp_law.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
  STP_LAW_DET,       /* constant 1 */
  STP_LAW_EXP,       /* exponential */
  STP_LAW_UNIFORM,   /* uniform on [1 - spread, 1 + spread] */
  STP_LAW_GAMMA,     /* shape 1/cv^2 */
  STP_LAW_WEIBULL,   /* shape solved from cv */
  STP_LAW_LOGNORMAL, /* sigma^2 = log(1 + cv^2) */
  STP_LAW_NORMAL,    /* N(1, cv^2) conditioned on > 0, rescaled to mean 1 */
  STP_LAW_BETA,      /* Beta(a, b) scaled by (a + b) / a */
  STP_LAW_ERLANG,    /* k exponential phases */
  STP_LAW_HYPEREXP,  /* two phases with balanced means, cv > 1 */
  STP_LAW_EMPIRICAL, /* samples drawn uniformly, rescaled to mean 1 */
  STP_LAW_PH         /* hyperexp/coxian/ph lists and fits: drawn in Coxian form */
} stp_law_kind;

struct stp_law {
  stp_law_kind kind;
  char *spec;       /* the text it was parsed from */
  double param[2];  /* as given: spread | cv | a, b | k */
  double c[3];      /* constants of the unit-mean sampler (laws.c) */
  size_t nsamples;  /* empirical: samples, normalised to mean 1 */
  double *samples;
  stp_coxian ph;    /* phase-type laws: the Coxian form of mean 1 (ph.n = 0: none) */
  stp_law_fit *fit; /* ph:fit=FILE: the quality of the fit, else NULL */
};

/* Parse a law spec.  A relative empirical:FILE path is taken relative to
 * base_dir when base_dir is non-NULL.  Errors name the law and parameter. */
stp_status stp__law_parse(const char *spec, const char *base_dir, stp_law **out,
                          stp_error *err);
void stp__law_free(stp_law *law);

/* n unit-mean draws into buf.  Time: O(n); no allocation. */
void stp__law_fill(const stp_law *law, stp_rng *rng, double *buf, size_t n);
/* The same draws, each times its mean: buf[k] = mean[k] * draw (cycled) or
 * mean[0] * draw, the products stp__law_fill and a multiplication would give
 * (exponential times in one pass over the buffer). */
void stp__law_fill_times(const stp_law *law, stp_rng *rng, double *buf, size_t n,
                         const double *mean, bool cycled);

static inline bool stp__law_is_det(const stp_law *law) { return law->kind == STP_LAW_DET; }

/* 1 when the law is N.B.U.E. (so the bounds of docs/design.md 5 hold), 0 when it
 * is not, -1 when unknown (empirical samples, beta with a or b < 1). */
int stp__law_nbue(const stp_law *law);

/* The Coxian form of mean 1 of a phase-type law into *out (owned by the
 * law); STP_EINVAL saying why when the law has none (`what` names where
 * the law is used: "the law of stage \"T2\""). */
/* laws_ph.c, for the parser of laws.c: the specs that list phases
 * (hyperexp:p=..., coxian:..., ph:alpha=...), into law->ph scaled to mean
 * 1; and law->ph for exp, erlang and hyperexp:cv once their constants are
 * set (nothing for the other laws). */
stp_status stp__law_parse_lists(stp_law *law, const char *name, const char *params,
                                stp_error *err);
stp_status stp__law_set_coxian(stp_law *law, stp_error *err);

stp_status stp__law_coxian(const stp_law *law, const char *what, const stp_coxian **out,
                           stp_error *err);

#endif /* STP_LAWS_H */
