/* phasetype.c: phase-type laws in Coxian form (see phasetype.h): the
 * conversion of any acyclic phase-type law, moments, the distribution
 * function by uniformization, and the three-moment fit of samples by a
 * mixture of two Erlang laws of a common order. */
#include "solvers/phasetype.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A converted law must give the moments of the original to this relative
 * precision (the conversion is exact in exact arithmetic). */
#define STP_PH_CONVERT_RTOL 1e-8
/* Moments compared after a conversion: the first 2n - 1 determine an
 * n-phase law, but beyond a few their size swamps the comparison. */
#define STP_PH_CHECK_MOMENTS 6
/* Weights of the canonical series below this (relative) are rounding. */
#define STP_PH_NEGLIGIBLE 1e-12

void stp__coxian_free(stp_coxian *c) {
  if (!c)
    return;
  free(c->rate);
  free(c->next);
  memset(c, 0, sizeof *c);
}

stp_status stp__coxian_alloc(stp_coxian *c, uint32_t n, stp_error *err) {
  memset(c, 0, sizeof *c);
  c->rate = stp__calloc(n ? n : 1, sizeof *c->rate);
  c->next = stp__calloc(n ? n : 1, sizeof *c->next);
  if (!c->rate || !c->next) {
    stp__coxian_free(c);
    return stp__oom(err, "a phase-type law");
  }
  c->n = n;
  return STP_OK;
}

stp_status stp__coxian_copy(const stp_coxian *from, stp_coxian *to, stp_error *err) {
  STP_CHECK(stp__coxian_alloc(to, from->n, err));
  memcpy(to->rate, from->rate, from->n * sizeof *to->rate);
  memcpy(to->next, from->next, from->n * sizeof *to->next);
  return STP_OK;
}

stp_status stp__coxian_erlang(uint32_t k, stp_coxian *out, stp_error *err) {
  STP_CHECK(stp__coxian_alloc(out, k, err));
  for (uint32_t i = 0; i < k; i++) {
    out->rate[i] = k;
    out->next[i] = i + 1 < k ? 1 : 0;
  }
  return STP_OK;
}

/* ---- moments -------------------------------------------------------------------- */

double stp__coxian_mean(const stp_coxian *c) {
  double m;
  stp__coxian_moments(c, 1, &m);
  return m;
}

void stp__coxian_scale_to_mean(stp_coxian *c) {
  double m = stp__coxian_mean(c);
  for (uint32_t i = 0; i < c->n; i++)
    c->rate[i] *= m;
}

stp_status stp__coxian_check_rates(const stp_coxian *c, const char *spec, stp_error *err) {
  for (uint32_t i = 0; i < c->n; i++)
    if (!(c->rate[i] >= STP_TIME_MIN && c->rate[i] <= STP_TIME_MAX))
      return stp__fail(err, STP_EINVAL,
                       "law \"%s\": phase %u has the rate %g once the law is scaled to mean 1, "
                       "outside [%g, %g]: the rates are too far apart", spec, i + 1, c->rate[i],
                       STP_TIME_MIN, STP_TIME_MAX);
  return STP_OK;
}

/* Backwards over the phases: R_i = E_i + (R_(i+1) with probability next_i),
 * E_i exponential of rate rate_i, independent: E[R_i^j] = sum_l C(j, l)
 * E[E_i^l] E[(rest)^(j-l)], E[E_i^l] = l! / rate_i^l. */
#define STP_PH_MAX_MOMENT 16
void stp__coxian_moments(const stp_coxian *c, int m, double *out) {
  if (m > STP_PH_MAX_MOMENT)
    m = STP_PH_MAX_MOMENT;
  double R[STP_PH_MAX_MOMENT + 1] = {1}; /* moments of the rest after phase i */
  for (int j = 1; j <= m; j++)
    R[j] = 0;
  for (uint32_t i = c->n; i-- > 0;) {
    double rest[STP_PH_MAX_MOMENT + 1], e[STP_PH_MAX_MOMENT + 1];
    rest[0] = 1;
    e[0] = 1;
    for (int j = 1; j <= m; j++) {
      rest[j] = c->next[i] * R[j];
      e[j] = e[j - 1] * j / c->rate[i];
    }
    for (int j = 1; j <= m; j++) {
      double s = 0, binom = 1;
      for (int l = 0; l <= j; l++) {
        s += binom * e[l] * rest[j - l];
        binom = binom * (j - l) / (l + 1);
      }
      R[j] = s;
    }
  }
  for (int j = 1; j <= m; j++)
    out[j - 1] = R[j];
}

double stp__coxian_cv2(const stp_coxian *c) {
  double m[2];
  stp__coxian_moments(c, 2, m);
  return m[1] / (m[0] * m[0]) - 1;
}

/* ---- acyclic phase-type laws ----------------------------------------------------- */

/* LU factors of a (n x n, overwritten) with partial pivoting; false when
 * singular. */
static bool lu_factor(double *a, size_t n, size_t *piv) {
  for (size_t k = 0; k < n; k++) {
    size_t p = k;
    for (size_t i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > fabs(a[p * n + k]))
        p = i;
    piv[k] = p;
    if (a[p * n + k] == 0)
      return false;
    if (p != k)
      for (size_t j = 0; j < n; j++) {
        double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
    for (size_t i = k + 1; i < n; i++) {
      double f = a[i * n + k] /= a[k * n + k];
      for (size_t j = k + 1; j < n; j++)
        a[i * n + j] -= f * a[k * n + j];
    }
  }
  return true;
}

static void lu_solve(const double *a, size_t n, const size_t *piv, double *x) {
  for (size_t k = 0; k < n; k++) {
    double t = x[k];
    x[k] = x[piv[k]];
    x[piv[k]] = t;
    for (size_t i = k + 1; i < n; i++)
      x[i] -= a[i * n + k] * x[k];
  }
  for (size_t k = n; k-- > 0;) {
    for (size_t j = k + 1; j < n; j++)
      x[k] -= a[k * n + j] * x[j];
    x[k] /= a[k * n + k];
  }
}

/* E[X^j] = j! alpha (-T)^-j 1 for j = 1..m. */
static bool aph_moments(size_t n, const double *alpha, const double *T, int m, double *out) {
  double *a = stp__malloc_array(n * n, sizeof *a), *x = stp__malloc_array(n, sizeof *x);
  size_t *piv = stp__malloc_array(n, sizeof *piv);
  bool ok = a && x && piv;
  for (size_t i = 0; ok && i < n * n; i++)
    a[i] = -T[i];
  ok = ok && lu_factor(a, n, piv);
  for (size_t i = 0; ok && i < n; i++)
    x[i] = 1;
  double fact = 1;
  for (int j = 1; ok && j <= m; j++) {
    lu_solve(a, n, piv, x);
    fact *= j;
    double s = 0;
    for (size_t i = 0; i < n; i++)
      s += alpha[i] * x[i];
    out[j - 1] = fact * s;
  }
  free(a);
  free(x);
  free(piv);
  return ok;
}

/* The checks of phasetype.h on (alpha, T); Kahn's order finds a cycle. */
static stp_status aph_check(size_t n, const double *alpha, const double *T, const char *what,
                            stp_error *err) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(alpha[i] >= 0) || !isfinite(alpha[i]))
      return stp__fail(err, STP_EINVAL, "%s: initial probability %zu is %g (must be >= 0)", what,
                       i + 1, alpha[i]);
    sum += alpha[i];
  }
  if (fabs(sum - 1) > 1e-9)
    return stp__fail(err, STP_EINVAL, "%s: the initial probabilities sum to %.17g, not 1", what,
                     sum);
  for (size_t i = 0; i < n; i++) {
    double row = 0;
    for (size_t j = 0; j < n; j++) {
      double v = T[i * n + j];
      if (!isfinite(v))
        return stp__fail(err, STP_EINVAL, "%s: T[%zu][%zu] is not finite", what, i + 1, j + 1);
      if (i == j ? !(v < 0) : v < 0)
        return stp__fail(err, STP_EINVAL, "%s: T[%zu][%zu] = %g; the diagonal must be < 0 and "
                         "the rest >= 0", what, i + 1, j + 1, v);
      row += v;
    }
    if (row > 1e-12 * fabs(T[i * n + i]))
      return stp__fail(err, STP_EINVAL, "%s: row %zu of T sums to %g > 0 (the rate of leaving "
                       "phase %zu must be at least the rates to the other phases)", what, i + 1,
                       row, i + 1);
  }
  size_t *indeg = stp__calloc(n, sizeof *indeg), *queue = stp__malloc_array(n, sizeof *queue);
  if (!indeg || !queue) {
    free(indeg);
    free(queue);
    return stp__oom(err, "a phase-type law");
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      indeg[j] += i != j && T[i * n + j] > 0;
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (!indeg[i])
      queue[tail++] = i;
  while (head < tail) {
    size_t i = queue[head++];
    for (size_t j = 0; j < n; j++)
      if (i != j && T[i * n + j] > 0 && --indeg[j] == 0)
        queue[tail++] = j;
  }
  free(indeg);
  free(queue);
  if (tail < n)
    return stp__fail(err, STP_EINVAL, "%s: the phases form a cycle (T must be acyclic: "
                     "some order of the phases makes it upper triangular)", what);
  return STP_OK;
}

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* beta[k] of the canonical series (phasetype.h) for the sorted rates mu. */
static bool canonical_weights(size_t n, const double *alpha, const double *T, const double *mu,
                              double *beta) {
  double *u = stp__malloc_array(n, sizeof *u), *v = stp__malloc_array(n, sizeof *v);
  if (!u || !v) {
    free(u);
    free(v);
    return false;
  }
  for (size_t i = 0; i < n; i++) { /* u = t, the exit rates */
    double row = 0;
    for (size_t j = 0; j < n; j++)
      row += T[i * n + j];
    u[i] = row < 0 ? -row : 0;
  }
  for (size_t k = n; k-- > 0;) {
    double s = 0;
    for (size_t i = 0; i < n; i++)
      s += alpha[i] * u[i];
    beta[k] = s / mu[k];
    if (k == 0)
      break;
    for (size_t i = 0; i < n; i++) { /* u <- (I + T / mu_k) u */
      double s2 = 0;
      for (size_t j = 0; j < n; j++)
        s2 += T[i * n + j] * u[j];
      v[i] = u[i] + s2 / mu[k];
    }
    memcpy(u, v, n * sizeof *u);
  }
  free(u);
  free(v);
  return true;
}

/* The series of phases k..n (rates mu ascending) with weights beta, read
 * from its fastest phase: a Coxian law whose phase c has rate mu[n-1-c]
 * and ends there with probability beta[n-1-c] / (beta[0] + ... +
 * beta[n-1-c]); phases after the last weight are dropped. */
static stp_status series_to_coxian(size_t n, const double *mu, const double *beta,
                                   stp_coxian *out, stp_error *err) {
  size_t first = 0; /* the slowest phase used */
  while (first + 1 < n && beta[first] == 0)
    first++;
  STP_CHECK(stp__coxian_alloc(out, (uint32_t)(n - first), err));
  double below = 0; /* beta[first] + ... + beta[k] */
  double *cum = stp__malloc_array(n, sizeof *cum);
  if (!cum) {
    stp__coxian_free(out);
    return stp__oom(err, "a phase-type law");
  }
  for (size_t k = first; k < n; k++)
    cum[k] = below += beta[k];
  for (size_t c = 0; c < out->n; c++) {
    size_t k = n - 1 - c;
    out->rate[c] = mu[k];
    out->next[c] = k > first ? cum[k - 1] / cum[k] : 0;
  }
  free(cum);
  return STP_OK;
}

static stp_status compare_moments(size_t n, const double *alpha, const double *T,
                                  const stp_coxian *c, const char *what, stp_error *err) {
  int m = 2 * (int)n - 1 < STP_PH_CHECK_MOMENTS ? 2 * (int)n - 1 : STP_PH_CHECK_MOMENTS;
  double want[STP_PH_CHECK_MOMENTS], got[STP_PH_CHECK_MOMENTS];
  if (!aph_moments(n, alpha, T, m, want))
    return stp__oom(err, "a phase-type law");
  stp__coxian_moments(c, m, got);
  for (int j = 0; j < m; j++)
    if (!stp__close(got[j], want[j], STP_PH_CONVERT_RTOL, 0))
      return stp__fail(err, STP_ENUMERIC, "%s: its Coxian form has moment %d = %.17g instead of "
                       "%.17g (the rates are too far apart for a stable conversion)", what, j + 1,
                       got[j], want[j]);
  return STP_OK;
}

stp_status stp__coxian_from_aph(size_t n, const double *alpha, const double *T, stp_coxian *out,
                                const char *what, stp_error *err) {
  memset(out, 0, sizeof *out);
  if (n == 0 || n > STP_PH_MAX_PHASES)
    return stp__fail(err, STP_EINVAL, "%s: %zu phases (1 to %d)", what, n, STP_PH_MAX_PHASES);
  STP_CHECK(aph_check(n, alpha, T, what, err));
  double *mu = stp__malloc_array(n, sizeof *mu), *beta = stp__malloc_array(n, sizeof *beta);
  stp_status s = mu && beta ? STP_OK : stp__oom(err, "a phase-type law");
  for (size_t i = 0; s == STP_OK && i < n; i++)
    mu[i] = -T[i * n + i]; /* acyclic: the eigenvalues are the diagonal */
  if (s == STP_OK) {
    qsort(mu, n, sizeof *mu, ascending);
    if (!canonical_weights(n, alpha, T, mu, beta))
      s = stp__oom(err, "a phase-type law");
  }
  double total = 0;
  for (size_t k = 0; s == STP_OK && k < n; k++) {
    if (beta[k] < -STP_PH_NEGLIGIBLE)
      s = stp__fail(err, STP_ENUMERIC, "%s: the canonical form has a negative weight %g (the "
                    "rates are too far apart for a stable conversion)", what, beta[k]);
    if (beta[k] < STP_PH_NEGLIGIBLE)
      beta[k] = 0;
    total += beta[k];
  }
  for (size_t k = 0; s == STP_OK && k < n; k++)
    beta[k] /= total;
  if (s == STP_OK)
    s = series_to_coxian(n, mu, beta, out, err);
  if (s == STP_OK && (s = compare_moments(n, alpha, T, out, what, err)) != STP_OK)
    stp__coxian_free(out);
  free(mu);
  free(beta);
  return s;
}

/* ---- the distribution function -------------------------------------------------- */

/* Uniformization: with L the largest rate and P = I + T / L,
 * v(t + d) = sum_m e^(-Ld) (Ld)^m / m! v(t) P^m; steps of L d <= UNIF_STEP
 * keep e^(-Ld) far from underflow. */
#define UNIF_STEP 32.0

void stp__coxian_times_p(const stp_coxian *c, double L, double *v) {
  for (uint32_t i = c->n; i-- > 0;) {
    double in = i ? v[i - 1] * c->rate[i - 1] * c->next[i - 1] / L : 0;
    v[i] = v[i] * (1 - c->rate[i] / L) + in;
  }
}

static void advance(const stp_coxian *c, double L, double d, double *v, double *term,
                    double *acc) {
  while (d > 0) {
    double h = L * d > UNIF_STEP ? UNIF_STEP / L : d;
    d -= h;
    double x = L * h, w = exp(-x), seen = w;
    memcpy(term, v, c->n * sizeof *term);
    for (uint32_t i = 0; i < c->n; i++)
      acc[i] = w * term[i];
    /* past the mode, stop once a weight is below rounding (the weights'
     * sum itself may never reach 1 in floating point) */
    for (int m = 1; m <= x || (w > 1e-18 && 1 - seen > 1e-16); m++) {
      stp__coxian_times_p(c, L, term);
      w *= x / m;
      seen += w;
      for (uint32_t i = 0; i < c->n; i++)
        acc[i] += w * term[i];
    }
    memcpy(v, acc, c->n * sizeof *v);
  }
}

stp_status stp__coxian_cdf(const stp_coxian *c, const double *t, size_t n, double *F,
                           stp_error *err) {
  double L = 0;
  for (uint32_t i = 0; i < c->n; i++)
    L = fmax(L, c->rate[i]);
  double *v = stp__calloc(c->n, sizeof *v), *term = stp__malloc_array(c->n, sizeof *term);
  double *acc = stp__malloc_array(c->n, sizeof *acc);
  if (!v || !term || !acc) {
    free(v);
    free(term);
    free(acc);
    return stp__oom(err, "a distribution function");
  }
  v[0] = 1;
  double now = 0;
  for (size_t k = 0; k < n; k++) {
    if (t[k] > now) {
      advance(c, L, t[k] - now, v, term, acc);
      now = t[k];
    }
    double alive = 0;
    for (uint32_t i = 0; i < c->n; i++)
      alive += v[i];
    F[k] = fmin(1, fmax(0, 1 - alive));
  }
  free(v);
  free(term);
  free(acc);
  return STP_OK;
}

/* ---- the three-moment fit ---------------------------------------------------------- */

static int by_value(const void *a, const void *b) { return ascending(a, b); }

/* The two points (x > y >= 0, weight p on x) whose first three moments
 * are nu[0..2]; false when there are none. */
static bool two_points(const double nu[3], double *x, double *y, double *p) {
  double var = nu[1] - nu[0] * nu[0];
  if (!(var > 0))
    return false;
  double s = (nu[2] - nu[0] * nu[1]) / var, q = s * nu[0] - nu[1], disc = s * s - 4 * q;
  if (!(disc >= 0))
    return false;
  double r = sqrt(disc);
  *x = 0.5 * (s + r);
  *y = q / *x; /* the smaller root without cancellation */
  *p = (nu[0] - *y) / (*x - *y);
  return *y > 0 && *p > 0 && *p <= 1;
}

/* The mixture as an acyclic phase-type law: two Erlang chains of k
 * phases, entered at their first phase with p and 1 - p. */
static stp_status mixture_coxian(uint32_t k, double p, const double rate[2], stp_coxian *out,
                                 stp_error *err) {
  size_t n = 2 * (size_t)k;
  double *alpha = stp__calloc(n, sizeof *alpha), *T = stp__calloc(n * n, sizeof *T);
  stp_status s = alpha && T ? STP_OK : stp__oom(err, "fitting samples");
  for (size_t b = 0; s == STP_OK && b < 2; b++)
    for (size_t i = 0; i < k; i++) {
      size_t at = b * k + i;
      T[at * n + at] = -rate[b];
      if (i + 1 < k)
        T[at * n + at + 1] = rate[b];
    }
  if (s == STP_OK) {
    alpha[0] = p;
    alpha[k] = 1 - p;
    s = stp__coxian_from_aph(n, alpha, T, out, "the fitted law", err);
  }
  free(alpha);
  free(T);
  return s;
}

/* sup |F - F_n| for F at the sorted samples (F_n jumps there). */
static double ks_distance(const double *F, size_t n) {
  double d = 0;
  for (size_t i = 0; i < n; i++) {
    d = fmax(d, F[i] - (double)i / (double)n);
    d = fmax(d, (double)(i + 1) / (double)n - F[i]);
  }
  return d;
}

/* The distribution function of Erlang(k, rate) at t, 1 - e^-x sum_{j<k}
 * x^j / j! with x = rate t, in O(k).  The fit's law is a mixture of two
 * such laws: its distribution function in closed form, not by
 * uniformization, whose cost grows with the largest rate times the largest
 * sample (a branch of rate 1e5 over samples up to 50 took minutes; issue
 * 34, fuzz/regressions/fuzz_fit). */
static double erlang_cdf(uint32_t k, double rate, double t) {
  double x = rate * t;
  if (!(x > 0))
    return 0;
  if (!isfinite(x))
    return 1;
  double lx = log(x), log_fact = 0, sum = 0;
  for (uint32_t j = 0; j < k; j++) {
    if (j)
      log_fact += log((double)j);
    sum += exp(-x + j * lx - log_fact);
  }
  return fmin(1, fmax(0, 1 - sum));
}

static stp_status fit_quality(const stp_coxian *c, double *x, size_t n, stp_law_fit *info,
                              stp_error *err) {
  stp__coxian_moments(c, 3, info->law_moments);
  info->moment_error = 0;
  for (int j = 0; j < 3; j++)
    info->moment_error = fmax(info->moment_error, fabs(info->law_moments[j] -
                                                       info->sample_moments[j]) /
                                                      info->sample_moments[j]);
  qsort(x, n, sizeof *x, by_value);
  double *F = stp__malloc_array(n, sizeof *F);
  if (!F)
    return stp__oom(err, "fitting samples");
  for (size_t i = 0; i < n; i++)
    F[i] = info->p * erlang_cdf(info->order, info->rate[0], x[i]) +
           (1 - info->p) * erlang_cdf(info->order, info->rate[1], x[i]);
  info->ks = ks_distance(F, n);
  free(F);
  return STP_OK;
}

stp_status stp__ph_fit(const double *x, size_t n, stp_coxian *out, stp_law_fit *info,
                       stp_error *err) {
  memset(out, 0, sizeof *out);
  memset(info, 0, sizeof *info);
  if (n < 3)
    return stp__fail(err, STP_EINVAL, "%zu samples; a fit of three moments needs at least 3", n);
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  double mean = sum / (double)n, m[3] = {0, 0, 0};
  if (!(mean > 0) || !isfinite(mean))
    return stp__fail(err, STP_EINVAL, "the mean of the samples is %g (must be > 0)", mean);
  double *y = stp__malloc_array(n, sizeof *y);
  if (!y)
    return stp__oom(err, "fitting samples");
  for (size_t i = 0; i < n; i++) {
    y[i] = x[i] / mean;
    m[0] += y[i];
    m[1] += y[i] * y[i];
    m[2] += y[i] * y[i] * y[i];
  }
  for (int j = 0; j < 3; j++)
    info->sample_moments[j] = m[j] /= (double)n;
  info->samples = n;
  double cv2 = m[1] / (m[0] * m[0]) - 1, ratio = m[0] * m[2] / (m[1] * m[1]);
  stp_status s = STP_EINVAL;
  double px = 0, ax = 0, ay = 0;
  uint32_t k = 1;
  for (; k <= STP_PH_FIT_MAX_ORDER; k++) {
    if (!(cv2 * k > 1) || !(ratio > (k + 2.0) / (k + 1.0)))
      continue;
    double a1 = k, a2 = a1 * (k + 1), a3 = a2 * (k + 2);
    double nu[3] = {m[0] / a1, m[1] / a2, m[2] / a3};
    if (two_points(nu, &ax, &ay, &px)) {
      s = STP_OK;
      break;
    }
  }
  if (s != STP_OK) {
    free(y);
    char alt[48] = ""; /* gamma:cv=0 is no law: a constant sample is det alone */
    if (cv2 > 0)
      snprintf(alt, sizeof alt, " or gamma:cv=%.3g", sqrt(cv2));
    return stp__fail(err, STP_EINVAL, "the samples have cv^2 = %.4g and m1 m3 / m2^2 = %.6g: "
                     "no mixture of two Erlang laws of order <= %d has their three moments "
                     "(%s; use %s%s)", cv2, ratio, STP_PH_FIT_MAX_ORDER,
                     cv2 * STP_PH_FIT_MAX_ORDER <= 1
                         ? "they are almost constant"
                         : "their third moment is too small for their spread: they are close "
                           "to two values, one of them near 0",
                     cv2 * STP_PH_FIT_MAX_ORDER <= 1 ? "det" : "empirical:FILE to simulate them",
                     alt);
  }
  info->order = k;
  info->p = px;
  info->rate[0] = 1 / ax;
  info->rate[1] = 1 / ay;
  s = mixture_coxian(k, px, info->rate, out, err);
  if (s == STP_OK)
    s = fit_quality(out, y, n, info, err);
  if (s == STP_OK)
    info->phases = out->n;
  else
    stp__coxian_free(out);
  free(y);
  return s;
}
