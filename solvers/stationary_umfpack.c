/* stationary_umfpack.c: the direct stationary solver, the only file that
 * includes umfpack.h.  pi Q = 0 is the system Q^T pi = 0; fixing pi[0] = 1
 * removes state 0's row and column and leaves a nonsingular system for an
 * irreducible chain (no dense normalisation row to fill the factors in):
 *   sum over s >= 1 of Q[s][j] pi[s] = -Q[0][j]   for j >= 1.
 * The matrix is assembled as triplets and compressed by UMFPACK itself.
 *
 * UMFPACK is loaded on first use (dlopen), not linked: it brings OpenBLAS,
 * LAPACK and libgomp into the process, whose loading and initialisation
 * cost about 3 ms of CPU at every start of streamtp (four times a plain
 * start), while this direct solver is only a fallback. */
#include "solvers/stationary_umfpack.h"

#include "base/core.h"
#include "solvers/generator.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/umfpack.h>

_Static_assert(_Generic((SuiteSparse_long *)0, int64_t *: 1, default: 0),
               "SuiteSparse_long must be int64_t (64-bit umfpack_dl_*)");

typedef SuiteSparse_long sl;
typedef void (*defaults_fn)(double *);
typedef sl (*symbolic_fn)(sl, sl, const sl *, const sl *, const double *, void **, const double *,
                          double *);
typedef sl (*numeric_fn)(const sl *, const sl *, const double *, void *, void **, const double *,
                         double *);
typedef sl (*solve_fn)(sl, const sl *, const sl *, const double *, double *, const double *,
                       void *, const double *, double *);
typedef void (*free_fn)(void **);
typedef sl (*to_col_fn)(sl, sl, sl, const sl *, const sl *, const double *, sl *, sl *, double *,
                        sl *);

/* The types above are those of umfpack.h (checked without referencing the
 * symbols: the operand of _Generic is not evaluated). */
#define STP_SAME_TYPE(f, T) _Static_assert(_Generic(&f, T: 1, default: 0), #f " has type " #T)
STP_SAME_TYPE(umfpack_dl_defaults, defaults_fn);
STP_SAME_TYPE(umfpack_dl_symbolic, symbolic_fn);
STP_SAME_TYPE(umfpack_dl_numeric, numeric_fn);
STP_SAME_TYPE(umfpack_dl_solve, solve_fn);
STP_SAME_TYPE(umfpack_dl_free_symbolic, free_fn);
STP_SAME_TYPE(umfpack_dl_free_numeric, free_fn);
STP_SAME_TYPE(umfpack_dl_triplet_to_col, to_col_fn);

typedef struct umfpack_api {
  defaults_fn defaults;
  symbolic_fn symbolic;
  numeric_fn numeric;
  solve_fn solve;
  free_fn free_symbolic, free_numeric;
  to_col_fn triplet_to_col;
  char error[256]; /* why loading failed, empty when it worked */
} umfpack_api;

static umfpack_api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* The library CMake found at build time first, then the usual sonames. */
#ifndef STP_UMFPACK_LIBRARY
#define STP_UMFPACK_LIBRARY "libumfpack.so.5"
#endif

static void *symbol(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (!f && !api.error[0])
    snprintf(api.error, sizeof api.error, "%s: %s", name, dlerror());
  return f;
}

static void load_api(void) {
  static const char *const names[] = {STP_UMFPACK_LIBRARY, "libumfpack.so.5", "libumfpack.so"};
  void *lib = NULL;
  for (size_t k = 0; k < sizeof names / sizeof names[0] && !lib; k++)
    lib = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(api.error, sizeof api.error, "%s", dlerror());
    return;
  }
  /* POSIX dlsym returns void *; converting it to a function pointer is the
   * documented way to use it. */
  *(void **)&api.defaults = symbol(lib, "umfpack_dl_defaults");
  *(void **)&api.symbolic = symbol(lib, "umfpack_dl_symbolic");
  *(void **)&api.numeric = symbol(lib, "umfpack_dl_numeric");
  *(void **)&api.solve = symbol(lib, "umfpack_dl_solve");
  *(void **)&api.free_symbolic = symbol(lib, "umfpack_dl_free_symbolic");
  *(void **)&api.free_numeric = symbol(lib, "umfpack_dl_free_numeric");
  *(void **)&api.triplet_to_col = symbol(lib, "umfpack_dl_triplet_to_col");
}

/* UMFPACK's functions, loaded once per process (thread-safe). */
static stp_status umfpack_loaded(stp_error *err) {
  pthread_once(&api_once, load_api);
  if (!api.error[0])
    return STP_OK;
  return stp__fail(err, STP_EINTERNAL, "cannot load UMFPACK for the direct solver: %s", api.error);
}

/* The reduced system in triplets, and its right-hand side. */
static stp_status assemble(const stp_csr *moves, stp_triplet *t, double *b, stp_error *err) {
  int64_t n = moves->nrows;
  STP_CHECK(stp__triplet_init(t, n - 1, n - 1, stp__csr_nnz(moves) + n, err));
  for (int64_t e = moves->p[0]; e < moves->p[1]; e++)
    if (moves->j[e] != 0)
      b[moves->j[e] - 1] -= moves->x[e];
  for (int64_t s = 1; s < n; s++) {
    STP_CHECK(stp__triplet_push(t, s - 1, s - 1, -stp__generator_out_rate(moves, s), err));
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

/* The reduced system, compressed, its right-hand side and its symbolic
 * analysis: what the estimate reads and the factorisation starts from. */
struct stp_umfpack_lu {
  int64_t n, m;     /* states; m = n - 1 unknowns */
  int64_t *ap, *ai; /* A by compressed columns */
  double *ax, *b;
  void *symbolic;
};

void stp__umfpack_free(stp_umfpack_lu *lu) {
  if (!lu)
    return;
  if (lu->symbolic)
    api.free_symbolic(&lu->symbolic);
  free(lu->ap);
  free(lu->ai);
  free(lu->ax);
  free(lu->b);
  free(lu);
}

/* A by compressed columns from the moves (UMFPACK compresses the triplets). */
static stp_status compress(const stp_csr *moves, stp_umfpack_lu *lu, stp_error *err) {
  stp_triplet t = {0};
  stp_status s = assemble(moves, &t, lu->b, err);
  if (s == STP_OK) {
    lu->ap = stp__malloc_array((size_t)lu->m + 1, sizeof *lu->ap);
    lu->ai = stp__malloc_array((size_t)t.nnz, sizeof *lu->ai);
    lu->ax = stp__malloc_array((size_t)t.nnz, sizeof *lu->ax);
    if (!lu->ap || !lu->ai || !lu->ax)
      s = stp__oom(err, "assembling the generator");
  }
  if (s == STP_OK) {
    SuiteSparse_long st =
        api.triplet_to_col(lu->m, lu->m, t.nnz, t.i, t.j, t.x, lu->ap, lu->ai, lu->ax, NULL);
    s = st == UMFPACK_OK ? STP_OK : umfpack_failure(st, "triplet compression", err);
  }
  stp__triplet_free(&t);
  return s;
}

stp_status stp__umfpack_analyse(const stp_csr *moves, stp_umfpack_lu **out,
                                stp_umfpack_estimate *est, stp_error *err) {
  *out = NULL;
  *est = (stp_umfpack_estimate){0, 0, 0};
  STP_CHECK(umfpack_loaded(err));
  stp_umfpack_lu *lu = stp__calloc(1, sizeof *lu);
  if (!lu)
    return stp__oom(err, "assembling the generator");
  lu->n = moves->nrows;
  lu->m = lu->n - 1;
  stp_status s = STP_OK;
  if (lu->m > 0) {
    lu->b = stp__calloc((size_t)lu->m, sizeof *lu->b);
    s = lu->b ? compress(moves, lu, err) : stp__oom(err, "assembling the generator");
  }
  if (s == STP_OK && lu->m > 0) {
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    api.defaults(control);
    SuiteSparse_long st =
        api.symbolic(lu->m, lu->m, lu->ap, lu->ai, lu->ax, &lu->symbolic, control, info);
    s = st == UMFPACK_OK ? STP_OK : umfpack_failure(st, "symbolic analysis", err);
    if (s == STP_OK)
      *est = (stp_umfpack_estimate){
          .flops = info[UMFPACK_FLOPS_ESTIMATE],
          .bytes = info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT],
          .entries = info[UMFPACK_LNZ_ESTIMATE] + info[UMFPACK_UNZ_ESTIMATE]};
  }
  if (s != STP_OK) {
    stp__umfpack_free(lu);
    return s;
  }
  *out = lu;
  return STP_OK;
}

/* Factorise A from its analysis and solve A x = b. */
static stp_status factor_solve(stp_umfpack_lu *lu, double *x, stp_error *err) {
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  api.defaults(control);
  void *numeric = NULL;
  SuiteSparse_long st = api.numeric(lu->ap, lu->ai, lu->ax, lu->symbolic, &numeric, control, info);
  stp_status s = st == UMFPACK_OK ? STP_OK : umfpack_failure(st, "factorisation", err);
  if (s == STP_OK) {
    st = api.solve(UMFPACK_A, lu->ap, lu->ai, lu->ax, x, lu->b, numeric, control, info);
    if (st != UMFPACK_OK)
      s = umfpack_failure(st, "solve", err);
  }
  api.free_numeric(&numeric);
  return s;
}

stp_status stp__umfpack_solve(stp_umfpack_lu *lu, double *pi, stp_error *err) {
  pi[0] = 1;
  if (lu->m > 0)
    STP_CHECK(factor_solve(lu, pi + 1, err));
  double sum = 0;
  for (int64_t k = 0; k < lu->n; k++)
    sum += pi[k];
  if (!(sum > 0) || !isfinite(sum))
    return stp__fail(err, STP_ENUMERIC, "the direct solve returned a vector of sum %g", sum);
  for (int64_t k = 0; k < lu->n; k++)
    pi[k] /= sum;
  return STP_OK;
}

stp_status stp__stationary_umfpack(const stp_csr *moves, double *pi, stp_error *err) {
  stp_umfpack_lu *lu;
  stp_umfpack_estimate est;
  STP_CHECK(stp__umfpack_analyse(moves, &lu, &est, err));
  stp_status s = stp__umfpack_solve(lu, pi, err);
  stp__umfpack_free(lu);
  return s;
}
