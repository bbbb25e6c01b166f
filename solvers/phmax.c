/* phmax.c: E[max of independent scaled phase-type times] as the integral
 * of P(max > t) = -expm1(sum_j k_j log1p(-S(t / mu_j))), S = 1 - F the
 * survival of the unit law (written so that neither end loses relative
 * precision).
 *
 * S(u) is sum(v(u)), v(u) = e_0 exp(T u) the phase vector.  Uniformization
 * with a rate L >= every rate of the phases still alive and P = I + T / L
 * gives, from a checkpoint u_i, S(u_i + d) = sum_m Poisson(m; L d) b_im
 * with b_im = sum(v(u_i) P^m): a sum of nonnegative terms, so S keeps its
 * relative precision deep in the tail.  Checkpoint i + 1 lies 4 / L_i
 * after checkpoint i (L d <= 4: the terms past m = PHMAX_TERMS weigh
 * < 2e-19 of the first); it holds b_i0..b_iM and the same with R (below)
 * for the tail, so that a point costs PHMAX_TERMS multiply-adds however
 * many phases the law has.  The Coxian form visits the fastest phases
 * first: once a leading phase holds less than PHMAX_DROP of probability it
 * is dropped (a change of at most that much to any later survival) and L
 * becomes the largest rate of the phases left, so that a law whose rates
 * lie 1e5 apart takes tens of checkpoints, not millions (and the
 * uniformized steps' rounding does not pile up over millions of them).
 * The table grows on demand (the memory budget applies) and stops at a
 * checkpoint whose survival is below PHMAX_NEGLIGIBLE: past it the
 * survival counts as 0.
 *
 * Panels in t: from mu_min / rate_max (the fastest phase of the smallest
 * time) doubling, at most H = mu_max max(sd / 4, 1 / rate_max) wide near
 * mu_max (sd: the law's standard deviation; the bulk of every law), a
 * quarter of the distance to mu_max elsewhere (the far tail grows
 * geometrically).  After each panel the rest is bounded exactly:
 * integral_T^inf P(max > t) dt <= sum_j k_j E[(mu_j Y - T)^+]
 * = sum_j k_j mu_j v(T / mu_j) . R, R_i the expected time left from phase
 * i; the panels stop once that bound is below the target, and it goes
 * into the error estimate. */
#include "solvers/phmax.h"

#include "base/core.h"
#include "solvers/expmax.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PHMAX_TERMS 32     /* Poisson terms past L d = 4 weigh < 1.8e-19 */
#define PHMAX_REACH 4.0    /* L (u_i+1 - u_i) */
#define PHMAX_NEGLIGIBLE 1e-30
#define PHMAX_DROP 1e-40   /* a leading phase with less probability is dropped */
#define PHMAX_MAX_EVALS (UINT64_C(1) << 21) /* per maximum: a bounded time */
#define PHMAX_MAX_PANELS 100000
#define PHMAX_POLL 1023 /* integrand calls between two looks at cancel */
/* a checkpoint: u_i, L_i, b_i0..b_iM, r_i0..r_iM */
#define PHMAX_B 2
#define PHMAX_R (PHMAX_B + PHMAX_TERMS + 1)
#define PHMAX_ROW (PHMAX_R + PHMAX_TERMS + 1)

struct stp_phmax {
  const stp_coxian *c;
  const stp_control *control;
  double L, sd, Rmax;  /* the largest rate; the standard deviation; max R */
  double *R;           /* expected time left from each phase */
  double *Lfrom;       /* the largest rate of phases i.. */
  double *table;       /* count x PHMAX_ROW */
  size_t count, room;
  uint32_t first;      /* the first phase still alive at the last checkpoint */
  double *v, *term;    /* v at the last checkpoint; scratch */
  bool done;           /* the last checkpoint's survival is negligible */
  bool cancelled, oom, over_budget;
  uint64_t calls;
};

void stp__phmax_free(stp_phmax *p) {
  if (!p)
    return;
  free(p->R);
  free(p->Lfrom);
  free(p->table);
  free(p->v);
  free(p->term);
  free(p);
}

/* A checkpoint at u for p->v, alive from phase p->first on: its rate
 * L_i, the sums and R-products of v P^m. */
static void fill_row(stp_phmax *p, double u, double *row) {
  uint32_t n = p->c->n;
  double L = p->Lfrom[p->first];
  row[0] = u;
  row[1] = L;
  memcpy(p->term, p->v, n * sizeof *p->term);
  for (int m = 0; m <= PHMAX_TERMS; m++) {
    double b = 0, r = 0;
    for (uint32_t i = p->first; i < n; i++) {
      b += p->term[i];
      r += p->term[i] * p->R[i];
    }
    row[PHMAX_B + m] = b;
    row[PHMAX_R + m] = r;
    if (m < PHMAX_TERMS)
      stp__coxian_times_p(p->c, L, p->term);
  }
}

/* Poisson weights of mean x <= PHMAX_REACH. */
static void weights(double x, double *w) {
  w[0] = exp(-x);
  for (int m = 1; m <= PHMAX_TERMS; m++)
    w[m] = w[m - 1] * x / m;
}

stp_status stp__phmax_new(const stp_coxian *c, const stp_control *control, stp_phmax **out,
                          stp_error *err) {
  *out = NULL;
  uint32_t n = c->n;
  stp_phmax *p = stp__calloc(1, sizeof *p);
  if (p) {
    p->R = stp__malloc_array(n, sizeof *p->R);
    p->Lfrom = stp__malloc_array(n, sizeof *p->Lfrom);
    p->v = stp__calloc(n, sizeof *p->v);
    p->term = stp__malloc_array(n, sizeof *p->term);
    p->room = 64;
    p->table = stp__malloc_array(p->room * PHMAX_ROW, sizeof *p->table);
  }
  if (!p || !p->R || !p->Lfrom || !p->v || !p->term || !p->table) {
    stp__phmax_free(p);
    return stp__oom(err, "the expected maximum of phase-type times");
  }
  p->c = c;
  p->control = control;
  for (uint32_t i = n; i-- > 0;) {
    p->R[i] = 1 / c->rate[i] + (i + 1 < n ? c->next[i] * p->R[i + 1] : 0);
    p->Rmax = fmax(p->Rmax, p->R[i]);
    p->Lfrom[i] = fmax(c->rate[i], i + 1 < n ? p->Lfrom[i + 1] : 0);
  }
  p->L = p->Lfrom[0];
  p->sd = sqrt(stp__coxian_cv2(c));
  p->v[0] = 1; /* every time starts in phase 0 */
  fill_row(p, 0, p->table);
  p->count = 1;
  *out = p;
  return STP_OK;
}

/* The checkpoints reach u; false when u lies past a negligible end (S(u)
 * < PHMAX_NEGLIGIBLE), or the table could not grow (p->oom, or
 * p->over_budget), or the run was cancelled. */
static bool reach(stp_phmax *p, double u) {
  while (p->table[(p->count - 1) * PHMAX_ROW] < u) {
    if (p->done || p->oom || p->over_budget || p->cancelled)
      return false;
    if (p->count == p->room) {
      size_t room = 2 * p->room, bytes = room * PHMAX_ROW * sizeof *p->table;
      if (bytes > stp_control_memory_budget(p->control)) {
        p->over_budget = true;
        return false;
      }
      double *t = realloc(p->table, bytes); /* room <= the budget: no overflow */
      if (!t) {
        p->oom = true;
        return false;
      }
      p->table = t;
      p->room = room;
    }
    /* v <- v exp(T 4 / L_i) by the same powers as the row's sums */
    const double *last = p->table + (p->count - 1) * PHMAX_ROW;
    double w[PHMAX_TERMS + 1], L = last[1];
    weights(PHMAX_REACH, w);
    uint32_t n = p->c->n;
    memcpy(p->term, p->v, n * sizeof *p->term);
    for (uint32_t i = p->first; i < n; i++)
      p->v[i] = 0;
    for (int m = 0; m <= PHMAX_TERMS; m++) {
      for (uint32_t i = p->first; i < n; i++)
        p->v[i] += w[m] * p->term[i];
      if (m < PHMAX_TERMS)
        stp__coxian_times_p(p->c, L, p->term);
    }
    while (p->first + 1 < n && p->v[p->first] < PHMAX_DROP)
      p->v[p->first++] = 0;
    double *row = p->table + p->count * PHMAX_ROW;
    fill_row(p, last[0] + PHMAX_REACH / L, row);
    p->count++;
    p->done = row[PHMAX_B] < PHMAX_NEGLIGIBLE;
    if ((p->count & PHMAX_POLL) == 0 && stp__cancelled(p->control ? &p->control->cancel : NULL))
      p->cancelled = true;
  }
  return true;
}

/* S(u) and E[(Y - u)^+] = v(u) . R; false (both 0) past a negligible end. */
static bool at(stp_phmax *p, double u, double *S, double *left) {
  *S = *left = 0;
  if (!reach(p, u))
    return false;
  size_t lo = 0, hi = p->count - 1; /* the last checkpoint at or before u */
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (p->table[mid * PHMAX_ROW] <= u)
      lo = mid;
    else
      hi = mid - 1;
  }
  const double *row = p->table + lo * PHMAX_ROW;
  double w[PHMAX_TERMS + 1];
  weights(row[1] * fmax(0, u - row[0]), w);
  for (int m = 0; m <= PHMAX_TERMS; m++) {
    *S += w[m] * row[PHMAX_B + m];
    *left += w[m] * row[PHMAX_R + m];
  }
  return true;
}

typedef struct groups {
  stp_phmax *p;
  size_t n;
  const double *mean;
  const uint64_t *count;
} groups;

/* P(max > t). */
static double survival(void *ctx, double t) {
  groups *g = ctx;
  stp_phmax *p = g->p;
  if ((++p->calls & PHMAX_POLL) == 0 && stp__cancelled(p->control ? &p->control->cancel : NULL))
    p->cancelled = true;
  if (p->cancelled || p->oom || p->over_budget)
    return 0; /* the caller stops after this panel */
  double s = 0;
  for (size_t j = 0; j < g->n; j++) {
    if (!(g->mean[j] > 0 && g->count[j] > 0))
      continue;
    double S, left;
    at(p, t / g->mean[j], &S, &left);
    if (S >= 1)
      return 1;
    s += (double)g->count[j] * log1p(-S);
  }
  return -expm1(s);
}

/* An upper bound of the integral of P(max > t) over [t, inf). */
static double tail(groups *g, double t) {
  stp_phmax *p = g->p;
  double b = 0;
  for (size_t j = 0; j < g->n; j++) {
    if (!(g->mean[j] > 0 && g->count[j] > 0))
      continue;
    double S, left;
    if (!at(p, t / g->mean[j], &S, &left))
      left = PHMAX_NEGLIGIBLE * p->Rmax;
    b += (double)g->count[j] * g->mean[j] * left;
  }
  return b;
}

stp_status stp__phmax(stp_phmax *p, size_t n, const double *mean, const uint64_t *count,
                      double *out, double *error, stp_error *err) {
  *out = 0;
  *error = 0;
  STP_CHECK(stp__expmax_check_means(n, mean, err));
  double mu_min = INFINITY, mu_max = 0;
  for (size_t j = 0; j < n; j++)
    if (mean[j] > 0 && count[j] > 0) {
      mu_min = fmin(mu_min, mean[j]);
      mu_max = fmax(mu_max, mean[j]);
    }
  if (mu_max == 0)
    return STP_OK;
  groups g = {.p = p, .n = n, .mean = mean, .count = count};
  stp_quad q;
  stp__quad_init(&q, survival, &g);
  q.max_evals = PHMAX_MAX_EVALS;
  double eps = STP_PHMAX_RTOL * mu_max, H = mu_max * fmax(p->sd / 4, 1 / p->L);
  double t = 0, b = fmin(mu_min / p->L, H), sum = 0;
  for (int panels = 0;; panels++) {
    sum += stp__quad(&q, t, b, eps / 64);
    t = b;
    if (p->cancelled)
      return stp__fail(err, STP_EINTERRUPTED, "interrupted (expected maximum of phase-type times)");
    if (p->oom)
      return stp__oom(err, "the distribution function's checkpoints");
    if (p->over_budget) {
      uint64_t budget = stp_control_memory_budget(p->control);
      return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, 0, budget, 0},
                             "the checkpoints of the law's distribution function (%zu so far, "
                             "%zu bytes each, up to %g times the mean) would exceed the memory "
                             "budget of %llu bytes: the law's rates are too far apart",
                             p->count, (size_t)(PHMAX_ROW * sizeof(double)),
                             p->table[(p->count - 1) * PHMAX_ROW], (unsigned long long)budget);
    }
    double rest = tail(&g, t);
    if (rest <= eps / 64) {
      *out = sum;
      *error = q.error + rest;
      return STP_OK;
    }
    if (panels >= PHMAX_MAX_PANELS)
      return stp__fail(err, STP_ENUMERIC, "expected maximum: the tail is still %g after %d "
                       "panels up to t = %g (please report it)", rest, panels, t);
    b = t + fmin(t, fmax(H, 0.25 * fabs(t - mu_max)));
  }
}
