/* simulate.h: the (max,+) recurrence of the event graph of docs/design.md 2,
 * D_t(n) = x_t(n) + max over input places (s -> t, k tokens) of D_s(n - k),
 * evaluated data set by data set (one row of the unrolled graph at a time,
 * columns in order, which respects the 0-token places).  Every place with a
 * token links two uses of one processor, so the history it needs is one
 * time per processor port: memory is O(team members + transfer tables),
 * independent of the number of paths R = lcm(R_i) and of data sets.
 *
 * Overlap, data set n, p = team_i[n mod R_i], q = team_(i+1)[n mod R_(i+1)]:
 *   computation starts at max(end of the transfer of n into stage i, end of
 *   p's previous computation); the transfer p -> q starts at max(end of p's
 *   computation of n, end of p's previous emission, end of q's previous
 *   reception).
 * Strict: as Overlap inside a data set, but p's first action on n (its
 * reception, or its computation at stage 0) waits for the end of p's last
 * action (its emission, or its computation at the last stage) on its
 * previous data set, and nothing else of p. */
#ifndef STP_SIMULATE_H
#define STP_SIMULATE_H

#include "streamtp.h"

#include <stddef.h>
#include <stdint.h>

/* What the recurrence needs of a mapping, as flat arrays ("slots" are team
 * members: slot off[i] + k is team_i[k]). */
typedef struct stp_sim_plan {
  stp_model model;
  size_t nstages;
  size_t *off;    /* nstages + 1 */
  double *cmean;  /* off[nstages] slots: mean computation time */
  size_t *doff;   /* nstages: transfer i's R_i x R_(i+1) table starts at dmean + doff[i] */
  double *dmean;  /* entry a * R_(i+1) + b: mean time of team_i[a] -> team_(i+1)[b] */
} stp_sim_plan;

typedef struct stp_sim_kernel {
  const stp_sim_plan *plan; /* borrowed */
  size_t *idx;  /* nstages: team position of the next data set */
  double *comp; /* per slot: end of the last computation (Strict: of the last action) */
  double *out;  /* per slot: end of the last emission (Overlap) */
  double *in;   /* per slot: end of the last reception (Overlap) */
  double done;  /* in-order completion time of the data sets run so far */
} stp_sim_kernel;

/* All times start at 0, as in the initial marking (every port ready). */
stp_status stp__sim_kernel_init(stp_sim_kernel *k, const stp_sim_plan *plan, stp_error *err);
void stp__sim_kernel_clear(stp_sim_kernel *k);

/* Move the time origin to `done` (the recurrence is translation invariant):
 * keeps the times small so that long runs lose no precision. */
void stp__sim_kernel_rebase(stp_sim_kernel *k);

/* Run the next n data sets.  xi holds unit-free firing-time factors, column
 * c of data set j at xi[c * ld + j]; the firing time is the slot's mean times
 * the factor.  Time: O(n * nstages). */
void stp__sim_kernel_run(stp_sim_kernel *k, const double *xi, size_t ld, size_t n);

#endif /* STP_SIMULATE_H */
