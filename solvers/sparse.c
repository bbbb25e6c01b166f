/* sparse.c: triplet assembly and compression to CSR (counting sorts, so
 * every conversion is linear in the number of entries). */
#include "solvers/sparse.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

stp_status stp__triplet_init(stp_triplet *t, int64_t nrows, int64_t ncols, int64_t cap,
                             stp_error *err) {
  memset(t, 0, sizeof *t);
  if (nrows < 0 || ncols < 0 || cap < 0)
    return stp__fail(err, STP_EINVAL, "a sparse matrix cannot have a negative size");
  t->nrows = nrows;
  t->ncols = ncols;
  if (cap < 4)
    cap = 4;
  t->i = stp__malloc_array((size_t)cap, sizeof *t->i);
  t->j = stp__malloc_array((size_t)cap, sizeof *t->j);
  t->x = stp__malloc_array((size_t)cap, sizeof *t->x);
  if (!t->i || !t->j || !t->x) {
    stp__triplet_free(t);
    return stp__oom(err, "allocating a sparse matrix");
  }
  t->cap = cap;
  return STP_OK;
}

void stp__triplet_free(stp_triplet *t) {
  if (!t)
    return;
  free(t->i);
  free(t->j);
  free(t->x);
  memset(t, 0, sizeof *t);
}

static stp_status triplet_grow(stp_triplet *t, stp_error *err) {
  size_t cap = (size_t)t->cap * 2;
  void *const arrays[] = {&t->i, &t->j, &t->x};
  const size_t sizes[] = {sizeof *t->i, sizeof *t->j, sizeof *t->x};
  if (!stp__grow_arrays(cap, 3, arrays, sizes))
    return stp__oom(err, "growing a sparse matrix");
  t->cap = (int64_t)cap;
  return STP_OK;
}

stp_status stp__triplet_push(stp_triplet *t, int64_t i, int64_t j, double x, stp_error *err) {
  if (i < 0 || i >= t->nrows || j < 0 || j >= t->ncols)
    return stp__fail(err, STP_EINVAL, "entry (%lld, %lld) is outside a %lld x %lld matrix",
                     (long long)i, (long long)j, (long long)t->nrows, (long long)t->ncols);
  if (t->nnz == t->cap)
    STP_CHECK(triplet_grow(t, err));
  t->i[t->nnz] = i;
  t->j[t->nnz] = j;
  t->x[t->nnz] = x;
  t->nnz++;
  return STP_OK;
}

void stp__csr_free(stp_csr *a) {
  if (!a)
    return;
  free(a->p);
  free(a->j);
  free(a->x);
  free(a);
}

stp_status stp__csr_alloc(int64_t nrows, int64_t ncols, int64_t nnz, stp_csr **out,
                          stp_error *err) {
  *out = NULL;
  if (nrows < 0 || ncols < 0 || nnz < 0)
    return stp__fail(err, STP_EINVAL, "a sparse matrix cannot have a negative size");
  stp_csr *a = calloc(1, sizeof *a);
  if (!a)
    return stp__oom(err, "allocating a sparse matrix");
  a->nrows = nrows;
  a->ncols = ncols;
  a->p = stp__calloc((size_t)nrows + 1, sizeof *a->p);
  a->j = stp__malloc_array((size_t)nnz, sizeof *a->j);
  a->x = stp__malloc_array((size_t)nnz, sizeof *a->x);
  if (!a->p || !a->j || !a->x) {
    stp__csr_free(a);
    return stp__oom(err, "allocating a sparse matrix");
  }
  *out = a;
  return STP_OK;
}

/* Scatter the entries (row[e], col[e], val[e]) into a by a stable counting
 * sort on row; a->p must hold zeros. */
static void scatter_rows(stp_csr *a, const int64_t *row, const int64_t *col, const double *val,
                         int64_t nnz, int64_t *next) {
  for (int64_t e = 0; e < nnz; e++)
    a->p[row[e] + 1]++;
  for (int64_t r = 0; r < a->nrows; r++)
    a->p[r + 1] += a->p[r];
  memcpy(next, a->p, (size_t)a->nrows * sizeof *next);
  for (int64_t e = 0; e < nnz; e++) {
    int64_t at = next[row[e]]++;
    a->j[at] = col[e];
    a->x[at] = val[e];
  }
}

/* A stable counting sort on columns: scanning rows in order also sorts the
 * columns of the result. */
stp_status stp__csr_transpose(const stp_csr *a, stp_csr **out, stp_error *err) {
  *out = NULL;
  int64_t nnz = stp__csr_nnz(a);
  stp_csr *t;
  STP_CHECK(stp__csr_alloc(a->ncols, a->nrows, nnz, &t, err));
  int64_t *next = stp__malloc_array((size_t)a->ncols + 1, sizeof *next);
  if (!next) {
    stp__csr_free(t);
    return stp__oom(err, "transposing a sparse matrix");
  }
  for (int64_t e = 0; e < nnz; e++)
    t->p[a->j[e] + 1]++;
  for (int64_t c = 0; c < a->ncols; c++)
    t->p[c + 1] += t->p[c];
  memcpy(next, t->p, (size_t)a->ncols * sizeof *next);
  for (int64_t r = 0; r < a->nrows; r++)
    for (int64_t e = a->p[r]; e < a->p[r + 1]; e++) {
      int64_t at = next[a->j[e]]++;
      t->j[at] = r;
      t->x[at] = a->x[e];
    }
  free(next);
  *out = t;
  return STP_OK;
}

/* Sum adjacent duplicates of each (sorted) row in place. */
static void sum_duplicates(stp_csr *a) {
  int64_t w = 0, begin = 0;
  for (int64_t r = 0; r < a->nrows; r++) {
    int64_t start = w, end = a->p[r + 1];
    for (int64_t e = begin; e < end; e++) {
      if (w > start && a->j[w - 1] == a->j[e]) {
        a->x[w - 1] += a->x[e];
      } else {
        a->j[w] = a->j[e];
        a->x[w++] = a->x[e];
      }
    }
    begin = end; /* a->p[r + 1] is about to be overwritten */
    a->p[r + 1] = w;
  }
}

stp_status stp__csr_from_triplet(const stp_triplet *t, stp_csr **out, stp_error *err) {
  *out = NULL;
  stp_csr *a = NULL, *at = NULL, *sorted = NULL;
  int64_t *next = stp__malloc_array((size_t)t->nrows + 1, sizeof *next);
  stp_status s = next ? stp__csr_alloc(t->nrows, t->ncols, t->nnz, &a, err)
                      : stp__oom(err, "compressing a sparse matrix");
  if (s == STP_OK) {
    scatter_rows(a, t->i, t->j, t->x, t->nnz, next);
    /* Transposing twice sorts the columns of every row (CSparse's trick). */
    s = stp__csr_transpose(a, &at, err);
  }
  if (s == STP_OK)
    s = stp__csr_transpose(at, &sorted, err);
  if (s == STP_OK) {
    sum_duplicates(sorted);
    *out = sorted;
  }
  free(next);
  stp__csr_free(a);
  stp__csr_free(at);
  return s;
}
