/* stationary_umfpack.c: the direct stationary solver, the only file that
 * includes umfpack.h.  pi Q = 0 is the system Q^T pi = 0; fixing pi[0] = 1
 * removes state 0's row and column and leaves a nonsingular system for an
 * irreducible chain (no dense normalisation row to fill the factors in):
 *   sum over s >= 1 of Q[s][j] pi[s] = -Q[0][j]   for j >= 1.
 * The matrix is assembled as triplets and compressed by UMFPACK itself. */
#include "solvers/stationary.h"

#include "engine/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/umfpack.h>

_Static_assert(_Generic((SuiteSparse_long *)0, int64_t *: 1, default: 0),
               "SuiteSparse_long must be int64_t (64-bit umfpack_dl_*)");

/* The reduced system in triplets, and its right-hand side. */
static stp_status assemble(const stp_csr *moves, stp_triplet *t, double *b, stp_error *err) {
  int64_t n = moves->nrows;
  STP_CHECK(stp__triplet_init(t, n - 1, n - 1, stp__csr_nnz(moves) + n, err));
  for (int64_t e = moves->p[0]; e < moves->p[1]; e++)
    if (moves->j[e] != 0)
      b[moves->j[e] - 1] -= moves->x[e];
  for (int64_t s = 1; s < n; s++) {
    STP_CHECK(stp__triplet_push(t, s - 1, s - 1, -stp__stationary_out_rate(moves, s), err));
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++)
      if (moves->j[e] != s && moves->j[e] != 0)
        STP_CHECK(stp__triplet_push(t, moves->j[e] - 1, s - 1, moves->x[e], err));
  }
  return STP_OK;
}

static stp_status umfpack_failure(SuiteSparse_long st, const char *step, stp_error *err) {
  if (st == UMFPACK_ERROR_out_of_memory)
    return stp__fail(err, STP_ENOMEM, "out of memory in UMFPACK (%s)", step);
  if (st == UMFPACK_WARNING_singular_matrix)
    return stp__fail(err, STP_ENUMERIC,
                     "the generator is singular after fixing one state (UMFPACK %s): the chain "
                     "is not irreducible", step);
  return stp__fail(err, STP_ENUMERIC, "UMFPACK %s failed with status %ld", step, (long)st);
}

/* Factorise A (compressed columns) and solve A x = b. */
static stp_status factor_solve(int64_t m, const int64_t *ap, const int64_t *ai, const double *ax,
                               const double *b, double *x, stp_error *err) {
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  umfpack_dl_defaults(control);
  void *symbolic = NULL, *numeric = NULL;
  SuiteSparse_long st = umfpack_dl_symbolic(m, m, ap, ai, ax, &symbolic, control, info);
  stp_status s = st == UMFPACK_OK ? STP_OK : umfpack_failure(st, "symbolic analysis", err);
  if (s == STP_OK) {
    st = umfpack_dl_numeric(ap, ai, ax, symbolic, &numeric, control, info);
    if (st != UMFPACK_OK)
      s = umfpack_failure(st, "factorisation", err);
  }
  if (s == STP_OK) {
    st = umfpack_dl_solve(UMFPACK_A, ap, ai, ax, x, b, numeric, control, info);
    if (st != UMFPACK_OK)
      s = umfpack_failure(st, "solve", err);
  }
  umfpack_dl_free_symbolic(&symbolic);
  umfpack_dl_free_numeric(&numeric);
  return s;
}

stp_status stp__stationary_umfpack(const stp_csr *moves, double *pi, stp_error *err) {
  int64_t n = moves->nrows;
  pi[0] = 1;
  if (n == 1)
    return STP_OK;
  int64_t m = n - 1;
  stp_triplet t = {0};
  double *b = stp__calloc((size_t)m, sizeof *b);
  int64_t *ap = NULL, *ai = NULL;
  double *ax = NULL;
  stp_status s = b ? assemble(moves, &t, b, err) : stp__oom(err, "assembling the generator");
  if (s == STP_OK) {
    ap = stp__malloc_array((size_t)m + 1, sizeof *ap);
    ai = stp__malloc_array((size_t)t.nnz, sizeof *ai);
    ax = stp__malloc_array((size_t)t.nnz, sizeof *ax);
    if (!ap || !ai || !ax)
      s = stp__oom(err, "assembling the generator");
  }
  if (s == STP_OK) {
    SuiteSparse_long st = umfpack_dl_triplet_to_col(m, m, t.nnz, t.i, t.j, t.x, ap, ai, ax, NULL);
    s = st == UMFPACK_OK ? STP_OK : umfpack_failure(st, "triplet compression", err);
  }
  stp__triplet_free(&t); /* before the factors: they are the big allocation */
  if (s == STP_OK)
    s = factor_solve(m, ap, ai, ax, b, pi + 1, err);
  if (s == STP_OK) {
    double sum = 0;
    for (int64_t k = 0; k < n; k++)
      sum += pi[k];
    if (!(sum > 0) || !isfinite(sum))
      s = stp__fail(err, STP_ENUMERIC, "the direct solve returned a vector of sum %g", sum);
    for (int64_t k = 0; s == STP_OK && k < n; k++)
      pi[k] /= sum;
  }
  free(b);
  free(ap);
  free(ai);
  free(ax);
  return s;
}
