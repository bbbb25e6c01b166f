/* simulate.c: the simulation kernel: the (max,+) recurrence of the event
 * graph, one data set (row) at a time, with per-processor history only (see
 * simulate.h for the semantics).  This loop is the hot path of `simulate`:
 * no allocation, no division, no call. */
#include "models/pipeline/sim_kernel.h"

#include "base/core.h"

#include <stdlib.h>

stp_status stp__sim_kernel_init(stp_sim_kernel *k, const stp_sim_plan *plan, stp_error *err) {
  size_t slots = plan->off[plan->nstages];
  *k = (stp_sim_kernel){.plan = plan};
  k->idx = stp__calloc(plan->nstages, sizeof *k->idx);
  k->comp = stp__calloc(slots, sizeof *k->comp);
  k->out = stp__calloc(slots, sizeof *k->out);
  k->in = stp__calloc(slots, sizeof *k->in);
  if (!k->idx || !k->comp || !k->out || !k->in) {
    stp__sim_kernel_clear(k);
    return stp__oom(err, "allocating the simulation state");
  }
  return STP_OK;
}

void stp__sim_kernel_clear(stp_sim_kernel *k) {
  if (!k)
    return;
  free(k->idx);
  free(k->comp);
  free(k->out);
  free(k->in);
  *k = (stp_sim_kernel){0};
}

void stp__sim_kernel_rebase(stp_sim_kernel *k) {
  double t0 = k->done;
  size_t slots = k->plan->off[k->plan->nstages];
  for (size_t s = 0; s < slots; s++) {
    k->comp[s] -= t0;
    k->out[s] -= t0;
    k->in[s] -= t0;
  }
  k->done = 0;
}

static inline double max2(double a, double b) { return a > b ? a : b; }

static inline size_t next_pos(size_t pos, size_t r) { return pos + 1 == r ? 0 : pos + 1; }

static void run_overlap(stp_sim_kernel *k, const double *xi, size_t ld, size_t n) {
  const stp_sim_plan *p = k->plan;
  const size_t *off = p->off;
  const double *cmean = p->cmean;
  size_t ns = p->nstages;
  size_t *idx = k->idx;
  double *comp = k->comp, *out = k->out, *in = k->in, done = k->done;
  for (size_t j = 0; j < n; j++) {
    const double *x = xi + j;
    size_t a = off[0] + idx[0];
    double t = comp[a] + cmean[a] * x[0];
    comp[a] = t;
    for (size_t i = 0; i + 1 < ns; i++) {
      size_t ra = off[i + 1] - off[i], rb = off[i + 2] - off[i + 1];
      size_t ia = idx[i], ib = idx[i + 1], b = off[i + 1] + ib;
      x += ld;
      t = max2(t, max2(out[a], in[b])) + p->dmean[p->doff[i] + ia * rb + ib] * x[0];
      out[a] = t;
      in[b] = t;
      x += ld;
      t = max2(t, comp[b]) + cmean[b] * x[0];
      comp[b] = t;
      idx[i] = next_pos(ia, ra);
      a = b;
    }
    idx[ns - 1] = next_pos(idx[ns - 1], off[ns] - off[ns - 1]);
    done = max2(done, t);
  }
  k->done = done;
}

static void run_strict(stp_sim_kernel *k, const double *xi, size_t ld, size_t n) {
  const stp_sim_plan *p = k->plan;
  const size_t *off = p->off;
  const double *cmean = p->cmean;
  size_t ns = p->nstages;
  size_t *idx = k->idx;
  double *last = k->comp, done = k->done;
  for (size_t j = 0; j < n; j++) {
    const double *x = xi + j;
    size_t a = off[0] + idx[0];
    double t = last[a] + cmean[a] * x[0]; /* first action of a waits for its last one */
    for (size_t i = 0; i + 1 < ns; i++) {
      size_t ra = off[i + 1] - off[i], rb = off[i + 2] - off[i + 1];
      size_t ia = idx[i], ib = idx[i + 1], b = off[i + 1] + ib;
      x += ld;
      /* the reception is b's first action, the emission a's last one */
      t = max2(t, last[b]) + p->dmean[p->doff[i] + ia * rb + ib] * x[0];
      last[a] = t;
      x += ld;
      t += cmean[b] * x[0];
      idx[i] = next_pos(ia, ra);
      a = b;
    }
    last[a] = t; /* the last stage's computation is its last action */
    idx[ns - 1] = next_pos(idx[ns - 1], off[ns] - off[ns - 1]);
    done = max2(done, t);
  }
  k->done = done;
}

void stp__sim_kernel_run(stp_sim_kernel *k, const double *xi, size_t ld, size_t n) {
  if (k->plan->model == STP_MODEL_STRICT)
    run_strict(k, xi, ld, n);
  else
    run_overlap(k, xi, ld, n);
}
