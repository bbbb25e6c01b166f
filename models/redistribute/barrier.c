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
#include <stdio.h>
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
  if (c->alpha != 0 && (c->alpha < STP_TIME_MIN || c->alpha > STP_TIME_MAX))
    return stp__fail(err, STP_EINVAL, "alpha = %g is outside [%g, %g] (or 0); rescale the units",
                     c->alpha, STP_TIME_MIN, STP_TIME_MAX);
  /* every message's time beta (M/L) len stays within the times' range too */
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t k = 0; k < rd->nmsg; k++) {
    lo = rd->mlen[k] < lo ? rd->mlen[k] : lo;
    hi = rd->mlen[k] > hi ? rd->mlen[k] : hi;
  }
  double scale = c->beta * (double)(c->M / rd->L);
  if (c->beta != 0 && rd->nmsg &&
      (scale * (double)lo < STP_TIME_MIN || scale * (double)hi > STP_TIME_MAX))
    return stp__fail(err, STP_EINVAL,
                     "beta (M/L) len = %g x %llu x [%llu, %llu] leaves the times' range [%g, %g]; "
                     "rescale the units (beta, M)",
                     c->beta, (unsigned long long)(c->M / rd->L), (unsigned long long)lo,
                     (unsigned long long)hi, STP_TIME_MIN, STP_TIME_MAX);
  return STP_OK;
}

stp_status stp_redist_cost_check(const stp_redist *rd, const stp_redist_cost *c,
                                 stp_error *err) {
  return stp__redist_cost_check(rd, c, err);
}

size_t stp__redist_length_groups(const uint64_t *len, size_t n, double scale, double *mean,
                                 uint64_t *count) {
  size_t groups = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || len[i] != len[i - 1]) {
      mean[groups] = scale * (double)len[i];
      count[groups++] = 0;
    }
    count[groups - 1]++;
  }
  return groups;
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
  qsort(len, n, sizeof *len, stp__cmp_u64);
  size_t groups = stp__redist_length_groups(len, n, scale, mean, count);
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
  STP_CHECK(stp__check_finite(out->cost, "the cost", err));
  STP_CHECK(stp__check_finite(out->exp_cost, "the expected cost", err));
  return stp__check_ordered(out->cost, out->exp_cost, "the N.B.U.E. interval of the cost", err);
}

/* Adds step k: its start transition (the barrier, time alpha, law det),
 * after every message of step k-1 (or after step k-1's start when k-1 is
 * empty), and one transition per message after it.  *start: the previous
 * step's start on entry, this one's on return. */
static stp_status add_step(stp_graph *g, const stp_redist_schedule *sc, uint64_t k,
                           double alpha, double scale, size_t *start, size_t *tr,
                           stp_error *err) {
  stp_law *det = NULL;
  STP_CHECK(stp_law_parse("det", NULL, &det, err));
  char name[64];
  snprintf(name, sizeof name, "step%llu", (unsigned long long)k + 1);
  size_t st;
  STP_CHECK(stp_graph_add_transition(g, name, alpha, det, &st, err));
  STP_CHECK(stp_graph_set_resource(g, st, "barrier", err));
  /* the barrier: after every message of the previous step, or after the
   * previous step's start when it was empty */
  if (k > 0) {
    if (sc->start[k] == sc->start[k - 1])
      STP_CHECK(stp_graph_add_place(g, *start, st, 0, err));
    for (size_t i = sc->start[k - 1]; i < sc->start[k]; i++)
      STP_CHECK(stp_graph_add_place(g, tr[i], st, 0, err));
  }
  for (size_t i = sc->start[k]; i < sc->start[k + 1]; i++) {
    size_t msg = sc->msg[i];
    snprintf(name, sizeof name, "m%u-%u", sc->rd->from[msg], sc->rd->to[msg]);
    STP_CHECK(stp_graph_add_transition(g, name, scale * (double)sc->rd->mlen[msg], NULL, &tr[i],
                                       err));
    snprintf(name, sizeof name, "sender %u", sc->rd->from[msg]); /* a Gantt chart's row */
    STP_CHECK(stp_graph_set_resource(g, tr[i], name, err));
    STP_CHECK(stp_graph_add_place(g, st, tr[i], 0, err));
  }
  *start = st;
  return STP_OK;
}

stp_status stp_redist_schedule_graph(const stp_redist *rd, const stp_redist_schedule *sc,
                                     const stp_redist_cost *c, stp_graph **out,
                                     stp_error *err) {
  *out = NULL;
  STP_CHECK(stp__redist_cost_check(rd, c, err));
  char name[96];
  snprintf(name, sizeof name, "redistribute-%llu-%llu-%llu-%llu-%s", (unsigned long long)rd->P,
           (unsigned long long)rd->Q, (unsigned long long)rd->r, (unsigned long long)rd->s,
           stp_redist_strategy_name(sc->strategy));
  size_t *tr = stp__malloc_array(rd->nmsg + 1, sizeof *tr);
  if (!tr)
    return stp__oom(err, "barrier graph");
  stp_graph *g;
  stp_status s = stp_graph_new(name, &g, err);
  if (s != STP_OK) {
    free(tr);
    return s;
  }
  double scale = c->beta * (double)(c->M / rd->L);
  size_t start = 0;
  for (uint64_t k = 0; k < sc->ns && s == STP_OK; k++)
    s = add_step(g, sc, k, c->alpha, scale, &start, tr, err);
  free(tr);
  if (s != STP_OK) {
    stp_graph_free(g);
    return s;
  }
  *out = g;
  return STP_OK;
}
