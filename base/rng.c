/* rng.c: seeding of the xoshiro256** generator, its wrapping as a GSL
 * generator type (so that gsl_ran_* samplers draw from the same stream as the
 * inlined fast paths), and the Student t quantile.  One of the two files that
 * include GSL headers (with laws.c). */
#include "base/rng.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

/* The GSL state is a pointer to our generator: GSL asks for numbers, we
 * advance the one stream.  get() returns 32 bits so that the type's range is
 * the same where unsigned long has 32 bits. */
static void gsl_state_set(void *state, unsigned long seed) {
  (void)state; /* seeding happens in stp__rng_alloc */
  (void)seed;
}
static unsigned long gsl_state_get(void *state) {
  return (unsigned long)(stp__rng_next(*(stp_rng **)state) >> 32);
}
static double gsl_state_get_double(void *state) {
  return stp__rng_uniform(*(stp_rng **)state);
}

static const gsl_rng_type xoshiro_type = {
    "stp-xoshiro256**", 0xffffffffUL, 0, sizeof(stp_rng *),
    gsl_state_set,      gsl_state_get, gsl_state_get_double};

void stp__rng_seed(stp_rng *r, uint64_t seed, uint64_t stream) {
  /* Streams are spaced by an odd constant before splitmix64 scrambles them
   * (not stp__xoshiro_seed's mix: simulate's outputs for a seed stay those
   * it has always printed). */
  uint64_t x = seed + stream * UINT64_C(0xD1B54A32D192ED03);
  for (int k = 0; k < 4; k++)
    r->x.s[k] = stp__splitmix64(&x);
}

/* The generator, the gsl_rng that wraps it, and the wrapper's state (a
 * pointer back) in one block: built by hand rather than by gsl_rng_alloc,
 * whose failure would call GSL's process-wide error handler (abort by
 * default), and which the library must neither rely on nor replace. */
typedef struct rng_block {
  stp_rng r; /* first: a stp_rng * is the block's address */
  gsl_rng g;
  stp_rng *self;
} rng_block;

stp_rng *stp__rng_alloc(uint64_t seed, uint64_t stream) {
  rng_block *b = malloc(sizeof *b);
  if (!b)
    return NULL;
  stp_rng *r = &b->r;
  stp__rng_seed(r, seed, stream);
  b->self = r;
  b->g = (gsl_rng){.type = &xoshiro_type, .state = &b->self};
  r->gsl = &b->g;
  return r;
}

void stp__rng_free(stp_rng *r) { free(r); } /* the whole block */

/* Callers pass p in (0, 1) and dof >= 1 (batch or replication counts), where
 * GSL's inversion needs no error report: checked here all the same, so that
 * GSL's handler is never reached from a bad argument. */
double stp__t_quantile(double p, double dof) {
  if (!(p > 0 && p < 1 && dof >= 1))
    return NAN;
  return gsl_cdf_tdist_Pinv(p, dof);
}
