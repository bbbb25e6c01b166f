/* expmax.c: E[max of independent exponentials].  With rates l_j = 1/mu_j and
 * c_j variables of group j still running, the next completion comes after
 * an Exp(sum_j c_j l_j) time, from group j with probability c_j l_j / sum,
 * so E(c) = (1 + sum_j c_j l_j E(c - e_j)) / sum_j c_j l_j with E(0) = 0:
 * every term is positive, hence accurate to rounding.  One group gives
 * mu H_k.  When the states are too many, E = integral over [0, inf) of
 * P(max > t) = -expm1(sum_j k_j log1p(-exp(-t/mu_j))) (written so that
 * neither end loses relative precision), by adaptive Gauss-Legendre. */
#include "solvers/expmax.h"

#include "base/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define QUAD_RTOL 1e-14
#define QUAD_MAX_DEPTH 30

stp_status stp__expmax_check_means(size_t n, const double *mean, stp_error *err) {
  for (size_t j = 0; j < n; j++)
    if (!isfinite(mean[j]) || mean[j] < 0)
      return stp__fail(err, STP_EINVAL, "expected maximum: mean %zu is %g, not finite >= 0", j,
                       mean[j]);
  return STP_OK;
}

/* H_k summed from the small terms up. */
static double harmonic(uint64_t k) {
  double h = 0;
  for (uint64_t i = k; i >= 1; i--)
    h += 1.0 / (double)i;
  return h;
}

stp_status stp__expmax_recursion(size_t n, const double *mean, const uint64_t *count,
                                 double *out, stp_error *err) {
  STP_CHECK(stp__expmax_check_means(n, mean, err));
  uint64_t states = 1;
  for (size_t j = 0; j < n; j++)
    if (mean[j] > 0 && count[j] > 0 &&
        (!stp__mul_u64(states, count[j] + 1, &states) || states > STP_EXPMAX_MAX_STATES))
      return stp__fail(err, STP_ELIMIT, "expected maximum: more than %llu states",
                       (unsigned long long)STP_EXPMAX_MAX_STATES);
  double *E = stp__malloc_array(states, sizeof *E);
  uint64_t *radix = stp__calloc(n + 1, sizeof *radix);
  uint64_t *c = stp__calloc(n + 1, sizeof *c);
  if (!E || !radix || !c) {
    free(E);
    free(radix);
    free(c);
    return stp__oom(err, "expected maximum");
  }
  /* mixed radix: index = sum_j c_j radix_j over the groups that count */
  uint64_t r = 1;
  for (size_t j = 0; j < n; j++) {
    radix[j] = r;
    if (mean[j] > 0 && count[j] > 0)
      r *= count[j] + 1;
  }
  E[0] = 0;
  for (uint64_t idx = 1; idx < states; idx++) {
    /* increment the digits c (odometer) */
    for (size_t j = 0; j < n; j++) {
      if (!(mean[j] > 0 && count[j] > 0))
        continue;
      if (c[j] < count[j]) {
        c[j]++;
        break;
      }
      c[j] = 0;
    }
    double rate = 0, acc = 1;
    for (size_t j = 0; j < n; j++)
      if (c[j] > 0 && mean[j] > 0) {
        double lj = (double)c[j] / mean[j];
        rate += lj;
        acc += lj * E[idx - radix[j]];
      }
    E[idx] = acc / rate;
  }
  *out = E[states - 1];
  free(E);
  free(radix);
  free(c);
  return STP_OK;
}

/* Gauss-Legendre nodes and weights on [-1, 1] by Newton on P_n. */
static void gauss_legendre(double *x, double *w) {
  for (int i = 0; i < STP_GL_N; i++) {
    double z = cos(3.14159265358979323846 * (i + 0.75) / (STP_GL_N + 0.5)), dp = 0;
    for (int it = 0; it < 100; it++) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= STP_GL_N; k++) {
        double p2 = ((2.0 * k - 1) * z * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = STP_GL_N * (z * p1 - p0) / (z * z - 1);
      double dz = p1 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16)
        break;
    }
    x[i] = z;
    w[i] = 2 / ((1 - z * z) * dp * dp);
  }
}

void stp__quad_init(stp_quad *q, double (*f)(void *ctx, double t), void *ctx) {
  *q = (stp_quad){.f = f, .ctx = ctx};
  gauss_legendre(q->x, q->w);
}

static double gl(stp_quad *q, double a, double b) {
  double h = (b - a) / 2, m = (a + b) / 2, s = 0;
  for (int i = 0; i < STP_GL_N; i++)
    s += q->w[i] * q->f(q->ctx, m + h * q->x[i]);
  q->evals += STP_GL_N;
  return s * h;
}

static double adapt(stp_quad *q, double a, double b, double whole, double tol, int depth) {
  double m = (a + b) / 2, l = gl(q, a, m), r = gl(q, m, b);
  /* rounding of the 20-point sums bounds what the comparison can resolve */
  if (depth >= QUAD_MAX_DEPTH || (q->max_evals && q->evals >= q->max_evals) ||
      fabs(l + r - whole) <= fmax(tol, 64 * DBL_EPSILON * fabs(l + r))) {
    q->error += fabs(l + r - whole);
    return l + r;
  }
  return adapt(q, a, m, l, tol / 2, depth + 1) + adapt(q, m, b, r, tol / 2, depth + 1);
}

double stp__quad(stp_quad *q, double a, double b, double tol) {
  return adapt(q, a, b, gl(q, a, b), tol, 0);
}

typedef struct expsum {
  size_t n;
  const double *mean;
  const uint64_t *count;
} expsum;

/* P(max > t). */
static double survival(void *ctx, double t) {
  const expsum *q = ctx;
  double s = 0;
  for (size_t j = 0; j < q->n; j++)
    if (q->mean[j] > 0 && q->count[j] > 0)
      s += (double)q->count[j] * log1p(-exp(-t / q->mean[j]));
  return -expm1(s);
}

stp_status stp__expmax_quadrature(size_t n, const double *mean, const uint64_t *count,
                                  double *out, stp_error *err) {
  STP_CHECK(stp__expmax_check_means(n, mean, err));
  expsum e = {.n = n, .mean = mean, .count = count};
  stp_quad q;
  double mu_max = 0, k = 0;
  for (size_t j = 0; j < n; j++)
    if (count[j] > 0) {
      mu_max = fmax(mu_max, mean[j]);
      k += (double)count[j];
    }
  if (mu_max == 0) {
    *out = 0;
    return STP_OK;
  }
  stp__quad_init(&q, survival, &e);
  /* Beyond T the tail is below sum_j k_j mu_j exp(-T/mu_j) <= mu_max e^-40,
   * and E[max] >= mu_max. */
  double T = mu_max * (log(k) + 40);
  /* Pieces of length ~mu_max: the survival falls from 1 to 0 around
   * mu_max log k, and each piece is smooth at its own scale. */
  size_t pieces = (size_t)ceil(log(k) + 40);
  double sum = 0, tol = QUAD_RTOL * mu_max / (double)pieces;
  for (size_t i = 0; i < pieces; i++) {
    double a = T * (double)i / (double)pieces, b = T * (double)(i + 1) / (double)pieces;
    sum += stp__quad(&q, a, b, tol);
  }
  *out = sum;
  return STP_OK;
}

stp_status stp__expmax(size_t n, const double *mean, const uint64_t *count, double *out,
                       stp_expmax_method *method, stp_error *err) {
  STP_CHECK(stp__expmax_check_means(n, mean, err));
  size_t groups = 0, last = 0;
  uint64_t states = 1;
  int small = 1;
  for (size_t j = 0; j < n; j++)
    if (mean[j] > 0 && count[j] > 0) {
      groups++;
      last = j;
      if (!stp__mul_u64(states, count[j] + 1, &states) || states > STP_EXPMAX_MAX_STATES)
        small = 0;
    }
  stp_expmax_method m;
  stp_status s = STP_OK;
  if (groups == 0) {
    m = STP_EXPMAX_NONE;
    *out = 0;
  } else if (groups == 1) {
    m = STP_EXPMAX_HARMONIC;
    *out = mean[last] * harmonic(count[last]);
  } else if (small) {
    m = STP_EXPMAX_RECURSION;
    s = stp__expmax_recursion(n, mean, count, out, err);
  } else {
    m = STP_EXPMAX_QUADRATURE;
    s = stp__expmax_quadrature(n, mean, count, out, err);
  }
  if (method)
    *method = m;
  return s;
}
