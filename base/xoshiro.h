/* xoshiro.h: xoshiro256** (Blackman and Vigna, 2018) seeded by splitmix64,
 * the one random generator of streamtp: the instance generator uses it as it
 * is, the simulation as eight interleaved copies (base/rng.h).  Integer
 * arithmetic only, so a seed gives the same numbers on every machine; no GSL
 * here, because generated files must not depend on a library version.  The
 * step is inline: the instance generator draws one number at a time. */
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

static inline uint64_t stp__xoshiro_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t stp__xoshiro_next(stp_xoshiro *r) {
  uint64_t *s = r->s;
  uint64_t out = stp__xoshiro_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = stp__xoshiro_rotl(s[3], 45);
  return out;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double stp__xoshiro_unit(stp_xoshiro *r) {
  return (double)(stp__xoshiro_next(r) >> 11) * 0x1.0p-53;
}
/* Uniform integer in [0, n), n >= 1, without modulo bias (rejection). */
uint64_t stp__xoshiro_below(stp_xoshiro *r, uint64_t n);

#endif /* STP_XOSHIRO_H */
