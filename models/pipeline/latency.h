/* latency.h: the deterministic latency of a replicated mapping (docs/design.md,
 * "Latency"): the time one data set takes alone in the pipeline, from the
 * start of its first computation to the end of its last, along each of the
 * R = lcm(R_i) paths; the largest and the mean over the paths.
 *
 * The times come as tables (computations per team member, transfers per
 * pair of members a data set can meet), so that a whole mapping and an
 * optimiser's candidate (the platform's times plus teams) share the same
 * computation.  The mean is exact in O(sum lcm(R_i, R_i+1)); the maximum by
 * a dynamic program over residues (no enumeration of the R paths), whose
 * size is checked against a cap before it runs. */
#ifndef STP_LATENCY_H
#define STP_LATENCY_H

#include "models/pipeline/mapping.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Path j (data set j, and every data set congruent to it mod R) meets
 * member j mod R_i of team i, and the pair of members numbered
 * j mod lcm(R_i, R_i+1) of the transfer i -> i+1. */
typedef struct stp_latency_tables {
  size_t nstages;
  size_t *size;   /* R_i */
  uint64_t *pair; /* N - 1 entries: lcm(R_i, R_i+1) */
  double **comp;  /* comp[i][a]: computation time of member a of team i */
  double **comm;  /* comm[i][z]: transfer of F_i from member z mod R_i of team i to member
                     z mod R_i+1 of team i+1, z < pair[i] */
  double *buf;    /* owns every table */
} stp_latency_tables;

/* Tables for teams of these sizes (times left 0); ELIMIT when a pair count
 * exceeds the memory it would need.  t is cleared on failure. */
stp_status stp__latency_tables_alloc(size_t nstages, const size_t *sizes, stp_latency_tables *t,
                                     stp_error *err);
/* Fills the tables from the times of member a of team i, and of the
 * transfer of F_i from member a of team i to member b of team i+1 (called
 * only for the pairs a data set meets).  An optimiser's candidate: alloc
 * with its team sizes, then fill from the platform's times. */
typedef double (*stp_latency_comp_fn)(const void *ctx, size_t i, size_t a);
typedef double (*stp_latency_comm_fn)(const void *ctx, size_t i, size_t a, size_t b);
void stp__latency_tables_fill(stp_latency_tables *t, stp_latency_comp_fn comp,
                              stp_latency_comm_fn comm, const void *ctx);
/* The tables of a mapping (its teams, c_p and d_pq). */
stp_status stp__latency_tables_of_mapping(const stp_mapping *m, stp_latency_tables *t,
                                          stp_error *err);
void stp__latency_tables_free(stp_latency_tables *t); /* NULL-safe; leaves t empty */

typedef struct stp_latency {
  double max;        /* over the paths; NAN when !max_exact */
  double mean;       /* over the paths (exact always) */
  bool max_exact;    /* false: the program exceeded max_cells, see the bounds */
  double max_lower;  /* max_lower <= max <= max_upper (both = max when exact) */
  double max_upper;
  uint64_t paths;    /* R; 0 when R exceeds 2^64 - 1 */
  bool has_argmax;   /* argmax is a path of latency max (exact and paths > 0) */
  uint64_t argmax;   /* the smallest such path is not promised, only one */
  uint64_t cells;    /* residues the program visits (its cost) */
} stp_latency;

/* The default cap on the program's cells (about a second of work). */
#define STP_LATENCY_MAX_CELLS (UINT64_C(1) << 27)

/* Latency of the tables: mean exactly; max exactly when the program's cells
 * are at most max_cells (0: STP_LATENCY_MAX_CELLS), else bounds (the largest
 * of the first paths within the budget; the sum of each table's maximum).
 * ENOMEM only. */
stp_status stp__latency_solve(const stp_latency_tables *t, uint64_t max_cells, stp_latency *out,
                              stp_error *err);
/* The latency of path j alone, in O(N). */
double stp__latency_path(const stp_latency_tables *t, uint64_t j);

/* stp__latency_tables_of_mapping, then stp__latency_solve. */
stp_status stp__mapping_latency(const stp_mapping *m, uint64_t max_cells, stp_latency *out,
                                stp_error *err);

#endif /* STP_LATENCY_H */
