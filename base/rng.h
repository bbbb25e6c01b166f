/* rng.h: the random source of the simulation: eight xoshiro256** generators
 * (base/xoshiro.h) interleaved, seeded from a 64-bit seed and a stream
 * number, so that a seed gives the same numbers on every machine and
 * independent replications get independent streams.  The same stream is
 * exposed to GSL's samplers (as a gsl_rng type, in rng.c) and read directly
 * by the fast paths (exponential, uniform).  Also the one statistical table the
 * simulation needs: Student's t quantile for confidence intervals. */
#ifndef STP_RNG_H
#define STP_RNG_H

#include "base/xoshiro.h"
#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

/* The simulation's stream: STP_RNG_LANES independent xoshiro256** generators
 * stepped together, their outputs interleaved (step t gives the numbers
 * LANES*t .. LANES*t + LANES-1, lane by lane).  Independent lanes let one step
 * run in vector registers (rng.c), a few times faster than the serial chain of
 * a single xoshiro256**, whose every step waits for the previous one.  The
 * numbers are made a buffer at a time; buf[pos..end) are made and unread.
 * The stream is the same whatever reads it and whenever the buffer refills. */
#define STP_RNG_LANES 8
#define STP_RNG_BUF 512 /* a multiple of STP_RNG_LANES */

typedef struct stp_rng {
  uint64_t buf[STP_RNG_BUF];
  size_t pos, end;
  uint64_t s[4][STP_RNG_LANES]; /* state word w of lane l: s[w][l] */
  void *gsl; /* gsl_rng * drawing from this stream (rng.c); GSL types stay out of headers */
} stp_rng;

/* A generator for (seed, stream); NULL when out of memory. */
stp_rng *stp__rng_alloc(uint64_t seed, uint64_t stream);
void stp__rng_free(stp_rng *r);
/* Restart r on stream (seed, stream), as stp__rng_alloc would start it. */
void stp__rng_seed(stp_rng *r, uint64_t seed, uint64_t stream);
/* Move the unread numbers to the front of buf and make new ones after
 * them: afterwards at least STP_RNG_BUF - STP_RNG_LANES + 1 are unread. */
void stp__rng_refill(stp_rng *r);

static inline uint64_t stp__rng_next(stp_rng *r) {
  if (__builtin_expect(r->pos == r->end, 0))
    stp__rng_refill(r);
  return r->buf[r->pos++];
}

/* Uniform on [0, 1) with 53 random bits. */
static inline double stp__rng_uniform(stp_rng *r) {
  return (double)(stp__rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform on (0, 1): never 0, so that log() is finite. */
static inline double stp__rng_uniform_pos(stp_rng *r) {
  return ((double)(stp__rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Quantile of Student's t law with dof degrees of freedom (dof >= 1). */
double stp__t_quantile(double p, double dof);

#endif /* STP_RNG_H */
