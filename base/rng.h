/* rng.h: the random source of the simulation: the xoshiro256** generator of
 * models/xoshiro.h, seeded from a 64-bit seed and a stream number, so that a
 * seed gives the same numbers on every machine and independent replications
 * get independent streams.  The same generator is exposed to GSL's samplers
 * (as a gsl_rng type, in rng.c) and used directly for the fast paths
 * (exponential, uniform).  Also the one statistical table the
 * simulation needs: Student's t quantile for confidence intervals. */
#ifndef STP_RNG_H
#define STP_RNG_H

#include "base/xoshiro.h"
#include "streamtp_base.h"

#include <stdint.h>

typedef struct stp_rng {
  stp_xoshiro x;
  void *gsl; /* gsl_rng * drawing from x (rng.c); GSL types stay out of headers */
} stp_rng;

/* A generator for (seed, stream); NULL when out of memory. */
stp_rng *stp__rng_alloc(uint64_t seed, uint64_t stream);
void stp__rng_free(stp_rng *r);
/* Restart r on stream (seed, stream), as stp__rng_alloc would start it. */
void stp__rng_seed(stp_rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t stp__rng_next(stp_rng *r) { return stp__xoshiro_next(&r->x); }

/* Uniform on [0, 1) with 53 random bits. */
static inline double stp__rng_uniform(stp_rng *r) { return stp__xoshiro_unit(&r->x); }

/* Uniform on (0, 1): never 0, so that log() is finite. */
static inline double stp__rng_uniform_pos(stp_rng *r) {
  return ((double)(stp__rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Quantile of Student's t law with dof degrees of freedom (dof >= 1). */
double stp__t_quantile(double p, double dof);

#endif /* STP_RNG_H */
