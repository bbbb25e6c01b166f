/* montecarlo.c: groups of rows over the (max,+) kernel (batch means or
 * independent replications) and their sample statistics; see montecarlo.h. */
#include "engine/montecarlo.h"

#include "base/core.h"

#include <math.h>

uint64_t stp__mc_rows_per_run(const stp_mc_groups *p) {
  uint64_t groups = p->replicated ? 1 : p->groups;
  return p->warmup + groups * p->per_group;
}

stp_status stp__mc_run_groups(const stp_mp_graph *g, const stp_mc_groups *p,
                              const stp_control *control, double *elapsed, stp_error *err) {
  return stp__mc_run_groups_observed(g, p, control, elapsed, NULL, NULL, NULL, err);
}

stp_status stp__mc_run_groups_observed(const stp_mp_graph *g, const stp_mc_groups *p,
                                       const stp_control *control, double *elapsed,
                                       stp_mp_observer *obs, stp_mc_group_done group_done,
                                       void *ctx, stp_error *err) {
  stp_mp_run r;
  STP_CHECK(stp__mp_run_init(&r, g, p->seed, 0, err));
  stp_status st = STP_OK;
  double ignored, t0 = stp__now();
  const stp_cancel *cancel = control ? &control->cancel : NULL;
  for (uint32_t k = 0; k < p->groups && st == STP_OK; k++) {
    stp__progress(control, p->replicated ? "Monte Carlo runs" : "Monte Carlo batches", k,
                  p->groups, t0);
    bool fresh = p->replicated || k == 0;
    if (fresh && k > 0)
      stp__mp_run_reset(&r, p->seed, k);
    r.obs = NULL; /* the warm-up is not observed */
    if (fresh)
      st = stp__mp_run_advance(&r, p->warmup, cancel, &ignored, err);
    r.obs = obs;
    if (st == STP_OK)
      st = stp__mp_run_advance(&r, p->per_group, cancel, &elapsed[k], err);
    if (st == STP_OK && group_done)
      group_done(ctx, k, elapsed[k]);
  }
  stp__mp_run_clear(&r);
  return st;
}

double stp__mc_mean(const double *x, size_t n) {
  double sum = 0;
  for (size_t k = 0; k < n; k++)
    sum += x[k];
  return sum / (double)n;
}

double stp__mc_stddev(const double *x, size_t n) {
  if (n < 2)
    return 0;
  double mu = stp__mc_mean(x, n), ss = 0;
  for (size_t k = 0; k < n; k++)
    ss += (x[k] - mu) * (x[k] - mu);
  return sqrt(ss / (double)(n - 1));
}
