/* barrier.c: the cost of a schedule run step by step with a barrier after
 * each step.  A message of length len takes alpha + beta (M/L) len X; a
 * step lasts alpha plus its longest message, so with every X = 1 the cost
 * is alpha NS + beta (M/L) TC, and with X ~ Exp(1) independent the expected
 * cost adds, per step, the expected maximum of independent exponentials
 * whose means are the step's lengths times beta (M/L) (solvers/expmax.h:
 * harmonic numbers, order statistics or quadrature, exact to rounding).
 * The cost is a (max,+) expression of the X's, so for any N.B.U.E. law with
 * mean 1 the expected cost lies in [cost, exponential cost]. */
#include "models/redistribute/barrier.h"

#include "base/core.h"
#include "solvers/expmax.h"

#include <math.h>
#include <stdlib.h>

stp_status stp__redist_cost_check(const stp_redist *rd, const stp_redist_cost *c,
                                  stp_error *err) {
  if (c->M == 0 || c->M % rd->L != 0)
    return stp__fail(err, STP_EINVAL, "M = %llu is not a positive multiple of L = %llu",
                     (unsigned long long)c->M, (unsigned long long)rd->L);
  if (!isfinite(c->alpha) || c->alpha < 0)
    return stp__fail(err, STP_EINVAL, "alpha = %g: must be finite and >= 0", c->alpha);
  if (!isfinite(c->beta) || c->beta < 0)
    return stp__fail(err, STP_EINVAL, "beta = %g: must be finite and >= 0", c->beta);
  return STP_OK;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

stp_status stp__redist_step_expmax(const stp_redist_schedule *sc, uint64_t k, double scale,
                                   double *out, stp_error *err) {
  size_t n = sc->start[k + 1] - sc->start[k];
  *out = 0;
  if (n == 0)
    return STP_OK;
  uint64_t *len = stp__malloc_array(n, sizeof *len);
  uint64_t *count = stp__malloc_array(n, sizeof *count);
  double *mean = stp__malloc_array(n, sizeof *mean);
  if (!len || !count || !mean) {
    free(len);
    free(count);
    free(mean);
    return stp__oom(err, "expected step time");
  }
  for (size_t i = 0; i < n; i++)
    len[i] = sc->rd->mlen[sc->msg[sc->start[k] + i]];
  qsort(len, n, sizeof *len, cmp_u64);
  size_t groups = 0; /* equal lengths form one group */
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || len[i] != len[i - 1]) {
      mean[groups] = scale * (double)len[i];
      count[groups++] = 0;
    }
    count[groups - 1]++;
  }
  stp_status s = stp__expmax(groups, mean, count, out, NULL, err);
  free(len);
  free(count);
  free(mean);
  return s;
}

stp_status stp_redist_evaluate(const stp_redist *rd, const stp_redist_schedule *sc,
                               const stp_redist_cost *c, stp_redist_costs *out,
                               stp_error *err) {
  STP_CHECK(stp__redist_cost_check(rd, c, err));
  double scale = c->beta * (double)(c->M / rd->L);
  double e = 0;
  for (uint64_t k = 0; k < sc->ns; k++) {
    double x;
    STP_CHECK(stp__redist_step_expmax(sc, k, scale, &x, err));
    e += x;
  }
  *out = (stp_redist_costs){
      .cost = c->alpha * (double)sc->ns + scale * (double)sc->tc,
      .exp_cost = c->alpha * (double)sc->ns + e,
      .exp_method = "closed-form",
  };
  return STP_OK;
}
