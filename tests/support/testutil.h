/* testutil.h: what every test suite shares: named tolerance tiers, an
 * assertion that prints both operands, a seeded RNG, random mappings, and
 * mappings from JSON text. */
#ifndef STP_TESTUTIL_H
#define STP_TESTUTIL_H

#include "base/core.h"
#include "models/pipeline/mapping.h"
#include "streamtp.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

/* Tolerance tiers (relative). */
#define TOL_EXACT 1e-12  /* two exact algorithms on the same quantity */
#define TOL_SOLVE 1e-9   /* a linear solve against a closed form */
#define TOL_ITER 1e-6    /* iterative solvers / long sums */

#define assert_close(a, b, rtol)                                                          \
  do {                                                                                    \
    double a_ = (a), b_ = (b);                                                            \
    cr_assert(stp__close(a_, b_, (rtol), 0), "%s = %.17g and %s = %.17g differ by %.3g " \
              "relative (tolerance %g)", #a, a_, #b, b_,                                  \
              fabs(a_ - b_) / fmax(fabs(a_), fabs(b_)), (double)(rtol));                   \
  } while (0)

/* splitmix64: tiny, seedable, identical on every machine. */
typedef struct trng {
  uint64_t s;
} trng;
uint64_t trng_next(trng *r);
double trng_uniform(trng *r, double lo, double hi); /* [lo, hi) */
size_t trng_int(trng *r, size_t lo, size_t hi);     /* [lo, hi] */

/* A random mapping: nstages stages, teams of 1..max_team processors (all
 * distinct), speeds/works/outputs/bandwidths uniform in [1, 10] (or a
 * single bandwidth when homogeneous_links). */
typedef struct tgen {
  size_t nstages, max_team;
  bool homogeneous_links;
  stp_model model;
} tgen;
stp_mapping *tgen_mapping(trng *r, const tgen *p);
/* Mapping with given team sizes, random times. */
stp_mapping *tgen_mapping_teams(trng *r, const size_t *teams, size_t nstages,
                                bool homogeneous_links);

/* Cancellation reading an atomic_int flag (NULL: never cancelled). */
int test_flag_cancel(void *flag);
#define TEST_CANCEL(flag) ((stp_cancel){.fn = test_flag_cancel, .data = (void *)(flag)})

/* Load a mapping from a JSON string; asserts success. */
stp_mapping *load_json(const char *json);
/* Load expecting failure: returns the error message (static buffer). */
const char *load_json_error(const char *json, stp_status *status);

#endif /* STP_TESTUTIL_H */
