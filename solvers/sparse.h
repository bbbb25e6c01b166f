/* sparse.h: sparse matrices with 64-bit indices, in the CSparse manner:
 * a triplet form that is appended to in any order, and a compressed-row form
 * (duplicates summed, columns sorted) that solvers read.  Markov-chain
 * generators are stored here as their off-diagonal part (row = source
 * state); the diagonal is minus the row sum and is never stored. */
#ifndef STP_SPARSE_H
#define STP_SPARSE_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

typedef struct stp_triplet {
  int64_t nrows, ncols;
  int64_t nnz, cap;
  int64_t *i, *j; /* row and column of each entry */
  double *x;
} stp_triplet;

/* An empty nrows x ncols triplet matrix with room for cap entries. */
stp_status stp__triplet_init(stp_triplet *t, int64_t nrows, int64_t ncols, int64_t cap,
                             stp_error *err);
/* Append a(i, j) += x (grows the arrays; EINVAL when out of range). */
stp_status stp__triplet_push(stp_triplet *t, int64_t i, int64_t j, double x, stp_error *err);
void stp__triplet_free(stp_triplet *t);

typedef struct stp_csr {
  int64_t nrows, ncols;
  int64_t *p; /* nrows + 1: row r is entries p[r] .. p[r+1]-1 */
  int64_t *j; /* column of each entry */
  double *x;  /* value of each entry */
} stp_csr;

static inline int64_t stp__csr_nnz(const stp_csr *a) { return a->p[a->nrows]; }

/* Room for nnz entries; p is zeroed, j and x are left to the caller. */
stp_status stp__csr_alloc(int64_t nrows, int64_t ncols, int64_t nnz, stp_csr **out,
                          stp_error *err);
void stp__csr_free(stp_csr *a);
/* Compress: duplicates summed, columns sorted within each row.  O(nnz + n). */
stp_status stp__csr_from_triplet(const stp_triplet *t, stp_csr **out, stp_error *err);
/* The transpose, with sorted columns.  O(nnz + n). */
stp_status stp__csr_transpose(const stp_csr *a, stp_csr **out, stp_error *err);

#endif /* STP_SPARSE_H */
