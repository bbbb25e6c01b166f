/* rng.c: seeding of the interleaved xoshiro256** lanes, making their
 * numbers a buffer at a time in vector registers, their wrapping as a GSL
 * generator type (so that gsl_ran_* samplers draw from the same stream as the
 * inlined fast paths), and the Student t quantile.  One of the two files that
 * include GSL headers (with laws.c). */
#include "base/rng.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
   * (not stp__xoshiro_seed's mix, as before the lanes: lane 0 starts where
   * the single generator of streamtp 0.1 started); each lane takes the next
   * four outputs.  Lanes of random 256-bit starting points overlap within
   * 2^64 steps with probability about 2^-190. */
  uint64_t x = seed + stream * UINT64_C(0xD1B54A32D192ED03);
  for (int l = 0; l < STP_RNG_LANES; l++)
    for (int w = 0; w < 4; w++)
      r->s[w][l] = stp__splitmix64(&x);
  r->pos = r->end = 0;
}

/* ---- making numbers: the lanes in vector registers ---------------------------------
 * GCC's vector extension: four 64-bit lanes per vector, so the eight lanes
 * are two vectors per state word; the multiplications by 5 and 9 are shifts
 * and adds (SSE2 and AVX2 have no 64-bit multiply).  On x86-64 the function
 * is compiled twice (target_clones) and the loader picks the AVX2 copy where
 * the processor has it: the library is built for the baseline x86-64, no
 * -march; the numbers are the same in both copies (integer operations). */
#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(STP_NO_CLONES)
#define STP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define STP_CLONES
#endif

typedef uint64_t stp_v4 __attribute__((vector_size(32)));
#define NV (STP_RNG_LANES / 4)
#define ROTL(x, k) (((x) << (k)) | ((x) >> (64 - (k))))

/* steps steps of every lane; out[LANES*t + l] is lane l's output at step t. */
STP_CLONES static void make_numbers(uint64_t s[4][STP_RNG_LANES], uint64_t *out,
                                    size_t steps) {
  stp_v4 s0[NV], s1[NV], s2[NV], s3[NV];
  memcpy(s0, s[0], sizeof s0);
  memcpy(s1, s[1], sizeof s1);
  memcpy(s2, s[2], sizeof s2);
  memcpy(s3, s[3], sizeof s3);
  for (size_t t = 0; t < steps; t++, out += STP_RNG_LANES)
    for (int v = 0; v < NV; v++) {
      stp_v4 a = s1[v] + (s1[v] << 2); /* s1 * 5 */
      a = ROTL(a, 7);
      stp_v4 o = a + (a << 3), tt = s1[v] << 17; /* * 9 */
      s2[v] ^= s0[v];
      s3[v] ^= s1[v];
      s1[v] ^= s2[v];
      s0[v] ^= s3[v];
      s2[v] ^= tt;
      s3[v] = ROTL(s3[v], 45);
      memcpy(out + 4 * v, &o, sizeof o);
    }
  memcpy(s[0], s0, sizeof s0);
  memcpy(s[1], s1, sizeof s1);
  memcpy(s[2], s2, sizeof s2);
  memcpy(s[3], s3, sizeof s3);
}

void stp__rng_refill(stp_rng *r) {
  size_t unread = r->end - r->pos;
  memmove(r->buf, r->buf + r->pos, unread * sizeof *r->buf);
  size_t steps = (STP_RNG_BUF - unread) / STP_RNG_LANES;
  make_numbers(r->s, r->buf + unread, steps);
  r->pos = 0;
  r->end = unread + steps * STP_RNG_LANES;
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
