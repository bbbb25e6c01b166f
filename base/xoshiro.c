/* xoshiro.c: xoshiro256** and splitmix64 (see xoshiro.h), transcribed from
 * the reference implementations at https://prng.di.unimi.it/. */
#include "base/xoshiro.h"

#include "base/hash.h"

/* splitmix64: the library's mixing function on a Weyl sequence. */
uint64_t stp__splitmix64(uint64_t *x) {
  return stp__mix64(*x += STP_HASH_GAMMA);
}

void stp__xoshiro_seed(stp_xoshiro *r, uint64_t seed, uint64_t index) {
  uint64_t a = seed, b = index;
  uint64_t x = stp__splitmix64(&a) ^ stp__xoshiro_rotl(stp__splitmix64(&b), 32);
  for (int k = 0; k < 4; k++)
    r->s[k] = stp__splitmix64(&x);
}

uint64_t stp__xoshiro_below(stp_xoshiro *r, uint64_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* a multiple of n */
  uint64_t x;
  do
    x = stp__xoshiro_next(r);
  while (x >= limit);
  return x % n;
}
