/* xoshiro.c: xoshiro256** and splitmix64 (see xoshiro.h), transcribed from
 * the reference implementations at https://prng.di.unimi.it/. */
#include "models/xoshiro.h"

uint64_t stp__splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t stp__xoshiro_next(stp_xoshiro *r) {
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

void stp__xoshiro_seed(stp_xoshiro *r, uint64_t seed, uint64_t index) {
  uint64_t a = seed, b = index;
  uint64_t x = stp__splitmix64(&a) ^ rotl(stp__splitmix64(&b), 32);
  for (int k = 0; k < 4; k++)
    r->s[k] = stp__splitmix64(&x);
}

double stp__xoshiro_unit(stp_xoshiro *r) {
  return (double)(stp__xoshiro_next(r) >> 11) * 0x1.0p-53;
}

uint64_t stp__xoshiro_below(stp_xoshiro *r, uint64_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* a multiple of n */
  uint64_t x;
  do
    x = stp__xoshiro_next(r);
  while (x >= limit);
  return x % n;
}
