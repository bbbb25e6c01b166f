/* barrier_law.c: the expected cost of a barrier schedule (barrier.c) when
 * the message times' factors follow a phase-type law rather than the
 * exponential one.  Per step, alpha plus E[max] of the step's independent
 * message times beta (M/L) len X: solvers/phmax.h integrates
 * 1 - prod F(t / mean)^count over t, equal lengths as one group.  Steps
 * whose multisets of lengths agree have the same maximum: the steps are
 * sorted by a hash of their sorted lengths and each multiset is
 * integrated once (a block-cyclic schedule repeats a few step shapes over
 * thousands of steps).  Progress counts steps; cancel is polled inside
 * the integrals. */
#include "base/core.h"
#include "models/redistribute/barrier.h"
#include "solvers/laws.h"
#include "solvers/phmax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
  uint64_t hash;
  uint64_t step;
} shape;

static int by_hash(const void *a, const void *b) {
  const shape *x = a, *y = b;
  if (x->hash != y->hash)
    return x->hash < y->hash ? -1 : 1;
  return x->step < y->step ? -1 : x->step > y->step;
}

/* len[start[k] ..]: step k's lengths, sorted; FNV-1a over them. */
static uint64_t sort_step(const stp_redist_schedule *sc, uint64_t k, uint64_t *len) {
  size_t a = sc->start[k], n = sc->start[k + 1] - a;
  for (size_t i = 0; i < n; i++)
    len[a + i] = sc->rd->mlen[sc->msg[a + i]];
  qsort(len + a, n, sizeof *len, stp__cmp_u64);
  uint64_t h = UINT64_C(14695981039346656037) ^ n;
  for (size_t i = 0; i < n; i++)
    h = (h ^ len[a + i]) * UINT64_C(1099511628211);
  return h;
}

static bool same_lengths(const stp_redist_schedule *sc, const uint64_t *len, uint64_t a,
                         uint64_t b) {
  size_t na = sc->start[a + 1] - sc->start[a], nb = sc->start[b + 1] - sc->start[b];
  return na == nb && memcmp(len + sc->start[a], len + sc->start[b], na * sizeof *len) == 0;
}

/* E[max] of step k's messages (len: its sorted lengths), mean scale len. */
static stp_status step_max(stp_phmax *pm, const stp_redist_schedule *sc, const uint64_t *len,
                           uint64_t k, double scale, double *mean, uint64_t *count,
                           double *out, double *error, stp_error *err) {
  size_t a = sc->start[k], n = sc->start[k + 1] - a;
  size_t groups = stp__redist_length_groups(len + a, n, scale, mean, count);
  return stp__phmax(pm, groups, mean, count, out, error, err);
}

/* The sum over the steps (sorted into shapes) of their maxima. */
static stp_status sum_steps(stp_phmax *pm, const stp_redist_schedule *sc, const shape *sh,
                            const uint64_t *len, double scale, const stp_control *control,
                            stp_redist_law_costs *out, stp_error *err) {
  size_t most = 1;
  for (uint64_t k = 0; k < sc->ns; k++)
    most = sc->start[k + 1] - sc->start[k] > most ? sc->start[k + 1] - sc->start[k] : most;
  double *mean = stp__malloc_array(most, sizeof *mean);
  uint64_t *count = stp__malloc_array(most, sizeof *count);
  stp_status s = mean && count ? STP_OK : stp__oom(err, "the expected cost under a law");
  double t0 = stp__now(), x = 0, e = 0, sum = 0, error = 0;
  uint64_t rep = UINT64_MAX;
  for (uint64_t i = 0; s == STP_OK && i < sc->ns; i++) {
    uint64_t k = sh[i].step;
    if (rep == UINT64_MAX || sh[i].hash != sh[i - 1].hash || !same_lengths(sc, len, rep, k)) {
      if (stp__cancelled(control ? &control->cancel : NULL)) {
        s = stp__fail(err, STP_EINTERRUPTED, "redistribute under a law: interrupted");
        break;
      }
      rep = k;
      s = step_max(pm, sc, len, k, scale, mean, count, &x, &e, err);
      out->distinct++;
      stp__progress(control, "redistribute: steps under the law", i + 1, sc->ns, t0);
    }
    sum += x;
    error += e;
  }
  free(mean);
  free(count);
  out->makespan += sum;
  out->error = error;
  return s;
}

stp_status stp_redist_evaluate_law(const stp_redist *rd, const stp_redist_schedule *sc,
                                   const stp_redist_cost *c, const stp_law *law,
                                   const stp_control *control, stp_redist_law_costs *out,
                                   stp_error *err) {
  memset(out, 0, sizeof *out);
  out->method = "quadrature";
  STP_CHECK(stp__redist_cost_check(rd, c, err));
  stp_coxian exp1 = {0};
  const stp_coxian *cox = &exp1;
  if (law) {
    stp_error why = {0};
    if (stp__law_coxian(law, NULL, &cox, &why) != STP_OK) {
      snprintf(out->reason, sizeof out->reason, "%.*s", (int)sizeof out->reason - 1, why.message);
      return STP_OK;
    }
  } else {
    STP_CHECK(stp__coxian_erlang(1, &exp1, err));
  }
  /* the signatures: a copy of the lengths and a (hash, step) per step */
  double need = (double)rd->nmsg * sizeof(uint64_t) + (double)sc->ns * sizeof(shape);
  stp_status s = STP_OK;
  if (need > (double)stp_control_memory_budget(control))
    s = stp__fail_limit(err,
                        (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(need),
                                    stp_control_memory_budget(control), stp__u64_sat(need)},
                        "the steps' signatures under the law need %.3g bytes, above the memory "
                        "budget of %llu bytes", need,
                        (unsigned long long)stp_control_memory_budget(control));
  uint64_t *len = NULL;
  shape *sh = NULL;
  stp_phmax *pm = NULL;
  if (s == STP_OK) {
    len = stp__malloc_array(rd->nmsg + 1, sizeof *len);
    sh = stp__malloc_array((size_t)sc->ns + 1, sizeof *sh);
    if (!len || !sh)
      s = stp__oom(err, "the expected cost under a law");
  }
  if (s == STP_OK)
    s = stp__phmax_new(cox, control, &pm, err);
  for (uint64_t k = 0; s == STP_OK && k < sc->ns; k++)
    sh[k] = (shape){.hash = sort_step(sc, k, len), .step = k};
  if (s == STP_OK) {
    qsort(sh, (size_t)sc->ns, sizeof *sh, by_hash);
    double scale = c->beta * (double)(c->M / rd->L);
    out->makespan = c->alpha * (double)sc->ns;
    s = sum_steps(pm, sc, sh, len, scale, control, out, err);
  }
  if (s == STP_OK)
    s = stp__check_finite(out->makespan, "the expected cost under the law", err);
  /* E[max] >= max E (Jensen): the deterministic cost is a floor */
  double det = c->alpha * (double)sc->ns + c->beta * (double)(c->M / rd->L) * (double)sc->tc;
  if (s == STP_OK)
    s = stp__check_ordered(det, out->makespan, "the cost under the law against the cost", err);
  if (s == STP_OK)
    out->computed = 1;
  if (s == STP_ELIMIT) { /* beyond the budget: no value, as the chains say it (graph) */
    snprintf(out->reason, sizeof out->reason, "%.*s", (int)sizeof out->reason - 1,
             err ? err->message : "beyond the memory budget");
    out->limit = err ? err->limit
                     : (stp_limit){STP_LIMIT_MEMORY, 0, stp_control_memory_budget(control), 0};
    s = STP_OK;
  }
  stp__phmax_free(pm);
  free(len);
  free(sh);
  stp__coxian_free(&exp1);
  return s;
}
