/* xoshiro.h: the random streams of the instance generator: xoshiro256**
 * (Blackman and Vigna, 2018) seeded by splitmix64.  Integer arithmetic only,
 * so a seed gives the same numbers on every machine; no GSL here, because
 * generated files must not depend on a library version. */
#ifndef STP_XOSHIRO_H
#define STP_XOSHIRO_H

#include <stdint.h>

typedef struct stp_xoshiro {
  uint64_t s[4];
} stp_xoshiro;

/* splitmix64: advance *x and return the next output. */
uint64_t stp__splitmix64(uint64_t *x);
/* Stream `index` of family `seed`: the four state words are splitmix64
 * outputs started from a mix of both, so that neighbouring seeds and
 * indices give unrelated streams. */
void stp__xoshiro_seed(stp_xoshiro *r, uint64_t seed, uint64_t index);
uint64_t stp__xoshiro_next(stp_xoshiro *r);
/* Uniform in [0, 1) with 53 random bits. */
double stp__xoshiro_unit(stp_xoshiro *r);
/* Uniform integer in [0, n), n >= 1, without modulo bias (rejection). */
uint64_t stp__xoshiro_below(stp_xoshiro *r, uint64_t n);

#endif /* STP_XOSHIRO_H */
