/* test_core.c: the allocation helpers of base/core.h that every growing
 * store uses: stp__grow_arrays keeps the contents of parallel arrays of
 * different element types as they grow together, and refuses a capacity
 * whose byte count overflows without losing any array; stp__malloc_huge,
 * the large blocks of the chains and of Howard; and stp_interval_position,
 * the words every Monte Carlo check uses; stp__fail_limit and the limit
 * detail every ELIMIT carries. */
#include "base/core.h"
#include "support/testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

Test(core, grow_arrays_keeps_every_array_through_doublings) {
  uint32_t *a = NULL;
  double *b = NULL;
  uint64_t *c = NULL; /* three words per element */
  size_t cap = 0;
  for (size_t n = 0; n < 5000; n++) {
    if (n == cap) {
      size_t want = cap ? 2 * cap : 4;
      void *const arrays[] = {&a, &b, &c};
      const size_t sizes[] = {sizeof *a, sizeof *b, 3 * sizeof *c};
      cr_assert(stp__grow_arrays(want, 3, arrays, sizes));
      cap = want;
    }
    a[n] = (uint32_t)(7 * n + 1);
    b[n] = 0.5 * (double)n;
    for (int w = 0; w < 3; w++)
      c[3 * n + w] = n * 3 + (uint64_t)w;
  }
  for (size_t n = 0; n < 5000; n++) {
    cr_assert_eq(a[n], 7 * n + 1);
    cr_assert_eq(b[n], 0.5 * (double)n);
    for (int w = 0; w < 3; w++)
      cr_assert_eq(c[3 * n + w], n * 3 + (uint64_t)w);
  }
  free(a);
  free(b);
  free(c);
}

Test(core, grow_arrays_refuses_an_overflowing_size_and_keeps_the_arrays) {
  uint32_t *a = malloc(4 * sizeof *a);
  double *b = malloc(4 * sizeof *b);
  for (int i = 0; i < 4; i++) {
    a[i] = (uint32_t)i;
    b[i] = i + 0.25;
  }
  void *const arrays[] = {&a, &b};
  const size_t sizes[] = {sizeof *a, sizeof *b};
  /* SIZE_MAX / 2 elements of 4 and of 8 bytes: both byte counts overflow, so
   * no allocation is even tried (ASan would abort on a huge one). */
  cr_assert_not(stp__grow_arrays(SIZE_MAX / 2, 2, arrays, sizes));
  cr_assert_not_null(a);
  cr_assert_not_null(b);
  for (int i = 0; i < 4; i++) {
    cr_assert_eq(a[i], (uint32_t)i);
    cr_assert_eq(b[i], i + 0.25);
  }
  free(a);
  free(b);
}

/* The four answers of stp_interval_position, each side of the 1e-9 slack,
 * and a missing bound on either side. */
Test(core, interval_position_against_the_bounds) {
  cr_assert_str_eq(stp_interval_position(1.0, 2.0, 0.5, 3.0), "within");
  cr_assert_str_eq(stp_interval_position(3.1, 3.2, 0.5, 3.0), "above");
  cr_assert_str_eq(stp_interval_position(0.1, 0.4, 0.5, 3.0), "below");
  /* within the slack: an interval touching a bound is not outside it */
  cr_assert_str_eq(stp_interval_position(3.0 * (1 + 1e-10), 3.5, 0.5, 3.0), "within");
  cr_assert_str_eq(stp_interval_position(3.0 * (1 + 1e-8), 3.5, 0.5, 3.0), "above");
  cr_assert_str_eq(stp_interval_position(0.1, 0.5 * (1 - 1e-10), 0.5, 3.0), "within");
  /* no upper bound: only "below" can be told */
  cr_assert_str_eq(stp_interval_position(1.0, 2.0, 0.5, NAN), "unknown");
  cr_assert_str_eq(stp_interval_position(0.1, 0.4, 0.5, NAN), "below");
  /* no lower bound: only "above" */
  cr_assert_str_eq(stp_interval_position(1.0, 2.0, NAN, 3.0), "unknown");
  cr_assert_str_eq(stp_interval_position(3.1, 3.2, -INFINITY, 3.0), "above");
}

Test(core, malloc_huge_gives_usable_blocks_and_refuses_overflow) {
  /* small: an ordinary block; large (>= 4 MB): 2 MB-aligned on Linux */
  const size_t counts[] = {1, 1000, (5u << 20) / sizeof(double)};
  for (int k = 0; k < 3; k++) {
    double *p = stp__malloc_huge(counts[k], sizeof *p);
    cr_assert_not_null(p, "%zu doubles", counts[k]);
#if defined(__linux__)
    if (counts[k] * sizeof *p >= (4u << 20))
      cr_assert_eq((uintptr_t)p % (2u << 20), 0, "a huge block is 2 MB-aligned");
#endif
    for (size_t i = 0; i < counts[k]; i++)
      p[i] = (double)i;
    cr_assert_eq(p[counts[k] - 1], (double)(counts[k] - 1));
    free(p);
  }
  cr_assert_null(stp__malloc_huge(SIZE_MAX / 2, 4), "n * size overflows");
}

/* One helper fills every limit error: the status, the detail and the
 * message; a limit only known to be exceeded needs allowed + 1 at least;
 * a later plain failure or a clear drops the detail, a prefix keeps it. */
Test(core, fail_limit_fills_the_detail_and_plain_failures_clear_it) {
  stp_error err = {0};
  cr_assert_eq(stp__fail_limit(&err, (stp_limit){STP_LIMIT_STATES, 0, 100, 0},
                               "more than %d states", 100),
               STP_ELIMIT);
  cr_assert_eq(err.status, STP_ELIMIT);
  cr_assert_str_eq(err.message, "more than 100 states");
  cr_assert_eq(err.limit.kind, STP_LIMIT_STATES);
  cr_assert_eq(err.limit.needed, 101);
  cr_assert_eq(err.limit.allowed, 100);
  stp_error_prefix(&err, "file.json");
  cr_assert_str_eq(err.message, "file.json: more than 100 states");
  cr_assert_eq(err.limit.kind, STP_LIMIT_STATES);
  stp__fail_limit(&err, (stp_limit){STP_LIMIT_MEMORY, 5000, 4096, 6000}, "m");
  cr_assert(err.limit.kind == STP_LIMIT_MEMORY && err.limit.needed == 5000 &&
            err.limit.allowed == 4096 && err.limit.estimate == 6000);
  stp__fail_limit(&err, (stp_limit){STP_LIMIT_NODES, 0, UINT64_MAX, 0}, "n");
  cr_assert_eq(err.limit.needed, UINT64_MAX); /* saturated, not wrapped to 0 */
  stp__fail(&err, STP_EINVAL, "bad");
  cr_assert_eq(err.limit.kind, STP_LIMIT_NONE);
  stp__fail_limit(&err, (stp_limit){STP_LIMIT_WORK, 9, 8, 0}, "w");
  stp__error_clear(&err);
  cr_assert(err.status == STP_OK && err.limit.kind == STP_LIMIT_NONE);
  cr_assert_eq(stp__fail_limit(NULL, (stp_limit){STP_LIMIT_STATES, 0, 1, 0}, "x"), STP_ELIMIT);
}

Test(core, limit_names_and_saturated_sizes) {
  cr_assert_str_eq(stp_limit_name(STP_LIMIT_NONE), "none");
  cr_assert_str_eq(stp_limit_name(STP_LIMIT_STATES), "states");
  cr_assert_str_eq(stp_limit_name(STP_LIMIT_TRANSITIONS), "transitions");
  cr_assert_str_eq(stp_limit_name(STP_LIMIT_MEMORY), "memory");
  cr_assert_str_eq(stp_limit_name(STP_LIMIT_NODES), "nodes");
  cr_assert_str_eq(stp_limit_name(STP_LIMIT_WORK), "work");
  cr_assert_str_eq(stp_limit_name((stp_limit_kind)99), "unknown");
  cr_assert_eq(stp__u64_sat(-3), 0);
  cr_assert_eq(stp__u64_sat(NAN), 0);
  cr_assert_eq(stp__u64_sat(1e30), UINT64_MAX);
  cr_assert_eq(stp__u64_sat(0x1p64), UINT64_MAX);
  cr_assert_eq(stp__u64_sat(12345.9), 12345);
  cr_assert_eq(stp__u64_sat(0x1p63), UINT64_C(1) << 63);
}
