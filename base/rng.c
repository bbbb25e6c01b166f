/* rng.c: seeding of the xoshiro256** generator, its wrapping as a GSL
 * generator type (so that gsl_ran_* samplers draw from the same stream as the
 * inlined fast paths), and the Student t quantile.  One of the two files that
 * include GSL headers (with laws.c). */
#include "base/rng.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
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

stp_rng *stp__rng_alloc(uint64_t seed, uint64_t stream) {
  gsl_set_error_handler_off();
  stp_rng *r = malloc(sizeof *r);
  if (!r)
    return NULL;
  stp__rng_seed(r, seed, stream);
  gsl_rng *g = gsl_rng_alloc(&xoshiro_type);
  if (!g) {
    free(r);
    return NULL;
  }
  *(stp_rng **)g->state = r;
  r->gsl = g;
  return r;
}

void stp__rng_free(stp_rng *r) {
  if (!r)
    return;
  gsl_rng_free(r->gsl);
  free(r);
}

double stp__t_quantile(double p, double dof) {
  gsl_set_error_handler_off();
  return gsl_cdf_tdist_Pinv(p, dof);
}
