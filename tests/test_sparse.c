/* test_sparse.c: triplet assembly, compression (duplicates summed, columns
 * sorted) and transposition, checked against dense copies. */
#include "solvers/sparse.h"
#include "support/testutil.h"

#include <stdlib.h>

static double *dense_of(const stp_csr *a) {
  double *d = calloc((size_t)(a->nrows * a->ncols), sizeof *d);
  cr_assert(d);
  for (int64_t r = 0; r < a->nrows; r++)
    for (int64_t e = a->p[r]; e < a->p[r + 1]; e++)
      d[r * a->ncols + a->j[e]] += a->x[e];
  return d;
}

static void assert_sorted_unique(const stp_csr *a) {
  for (int64_t r = 0; r < a->nrows; r++)
    for (int64_t e = a->p[r] + 1; e < a->p[r + 1]; e++)
      cr_assert_lt(a->j[e - 1], a->j[e], "row %lld: columns not strictly increasing",
                   (long long)r);
}

Test(sparse, random_triplets_compress_to_their_dense_sum) {
  trng rng = {2024};
  for (int round = 0; round < 20; round++) {
    int64_t nr = (int64_t)trng_int(&rng, 1, 30), nc = (int64_t)trng_int(&rng, 1, 30);
    stp_triplet t;
    stp_error err;
    cr_assert_eq(stp__triplet_init(&t, nr, nc, 2, &err), STP_OK);
    double *want = calloc((size_t)(nr * nc), sizeof *want);
    size_t nnz = trng_int(&rng, 0, 200);
    for (size_t k = 0; k < nnz; k++) { /* many duplicates: 200 entries in <= 900 cells */
      int64_t i = (int64_t)trng_int(&rng, 0, (size_t)nr - 1);
      int64_t j = (int64_t)trng_int(&rng, 0, (size_t)nc - 1);
      double x = trng_uniform(&rng, -1, 1);
      want[i * nc + j] += x;
      cr_assert_eq(stp__triplet_push(&t, i, j, x, &err), STP_OK);
    }
    stp_csr *a, *at;
    cr_assert_eq(stp__csr_from_triplet(&t, &a, &err), STP_OK);
    cr_assert_eq(stp__csr_transpose(a, &at, &err), STP_OK);
    assert_sorted_unique(a);
    assert_sorted_unique(at);
    double *got = dense_of(a), *got_t = dense_of(at);
    for (int64_t i = 0; i < nr; i++)
      for (int64_t j = 0; j < nc; j++) {
        assert_close(got[i * nc + j], want[i * nc + j], TOL_EXACT);
        assert_close(got_t[j * nr + i], got[i * nc + j], TOL_EXACT);
      }
    free(got);
    free(got_t);
    free(want);
    stp__csr_free(a);
    stp__csr_free(at);
    stp__triplet_free(&t);
  }
}

Test(sparse, out_of_range_entries_are_refused_with_their_position) {
  stp_triplet t;
  stp_error err = {0};
  cr_assert_eq(stp__triplet_init(&t, 3, 2, 0, &err), STP_OK);
  cr_assert_eq(stp__triplet_push(&t, 3, 0, 1.0, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "(3, 0) is outside a 3 x 2 matrix"), "%s", err.message);
  cr_assert_eq(stp__triplet_push(&t, 0, -1, 1.0, &err), STP_EINVAL);
  cr_assert_eq(t.nnz, 0);
  stp__triplet_free(&t);
  stp__triplet_free(NULL);
  stp__csr_free(NULL);
}

Test(sparse, empty_matrices_compress) {
  stp_triplet t;
  stp_error err;
  cr_assert_eq(stp__triplet_init(&t, 4, 5, 0, &err), STP_OK);
  stp_csr *a;
  cr_assert_eq(stp__csr_from_triplet(&t, &a, &err), STP_OK);
  cr_assert_eq(a->nrows, 4);
  cr_assert_eq(stp__csr_nnz(a), 0);
  stp__csr_free(a);
  stp__triplet_free(&t);
}
