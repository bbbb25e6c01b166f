/* stationary_krylov.c: BiCGSTAB (van der Vorst, 1992) on (I - T) x = 0, T
 * one unnormalised Gauss-Seidel sweep (stationary_krylov.h).  The system
 * is singular; a run starts from the current x and solves for the
 * correction z in (I - T) z = T x - x, whose right-hand side lies in the
 * range of I - T, so the system is consistent.  A run goes on until its
 * recursive residual says the target is met, it breaks down (the
 * shadow residual orthogonal to the residual), or the sweeps run out; the
 * true estimate is then taken from one more sweep, and a new run starts
 * from there if it is not good enough. */
#include "solvers/stationary_krylov.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dot(const double *a, const double *b, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += a[i] * b[i];
  return sum;
}

static double max_abs(const double *a, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fabs(a[i]) > m ? fabs(a[i]) : m;
  return m;
}

/* ax = (I - T) x */
static void apply_a(const stp_sweep_map *f, const double *x, double *ax) {
  f->apply(f->ctx, x, ax);
  for (size_t i = 0; i < f->n; i++)
    ax[i] = x[i] - ax[i];
}

static stp_status normalise(double *x, size_t n, size_t sweeps, stp_error *err) {
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  if (!(sum > 0) || !isfinite(sum))
    return stp__fail(err, STP_ENUMERIC, "the BiCGSTAB iterate has sum %g after %zu sweeps", sum,
                     sweeps);
  for (size_t i = 0; i < n; i++)
    x[i] /= sum;
  return STP_OK;
}

/* The work vectors of a run: residual, shadow residual, search direction,
 * and the images A p and A s. */
typedef struct bicg_ws {
  size_t n;
  double *r, *rh, *p, *v, *t;
} bicg_ws;

/* Every STP_BICG_CHECK steps a run takes the true estimate of x (one
 * sweep): the recursive residual can level off above `enough` at the
 * rounding floor of a long vector, and the run must still end. */
#define STP_BICG_CHECK 25

/* A run from x, whose T x is in w->r: x moves by the correction.  Ends
 * when the recursive residual is below `enough`, on breakdown, when the
 * sweeps run out, or when a periodic true estimate satisfies the
 * stopping rule (prog). */
static stp_status run(const stp_sweep_map *f, bicg_ws *w, double *x, double enough,
                      stp_gs_progress *prog, const stp_stationary_options *o, size_t *sweeps,
                      stp_error *err) {
  size_t n = w->n;
  double *r = w->r, *rh = w->rh, *p = w->p, *v = w->v, *t = w->t;
  for (size_t i = 0; i < n; i++) {
    r[i] -= x[i];
    rh[i] = r[i];
    p[i] = v[i] = 0;
  }
  double rho = 1, alpha = 1, omega = 1, rhnorm = sqrt(dot(rh, rh, n));
  for (size_t step = 0; *sweeps + 2 <= o->max_sweeps; step++) {
    if (stp__cancelled(&o->cancel))
      return stp__fail(err, STP_EINTERRUPTED, "interrupted after %zu sweeps (BiCGSTAB)", *sweeps);
    if (max_abs(r, n) <= enough)
      break;
    if (step && step % STP_BICG_CHECK == 0) {
      f->apply(f->ctx, x, t); /* t is free between steps */
      ++*sweeps;
      if (stp__gs_done(prog, f->estimate(f->ctx, x, t), *sweeps, o))
        break;
    }
    double rn = sqrt(dot(r, r, n));
    double rho1 = dot(rh, r, n);
    if (!(fabs(rho1) > 1e-12 * rhnorm * rn) || !(fabs(omega) > 0))
      break; /* breakdown: a new run, with a new shadow residual */
    double beta = rho1 / rho * alpha / omega;
    rho = rho1;
    for (size_t i = 0; i < n; i++)
      p[i] = r[i] + beta * (p[i] - omega * v[i]);
    apply_a(f, p, v);
    double rv = dot(rh, v, n);
    if (!(fabs(rv) > 0)) {
      ++*sweeps;
      break;
    }
    alpha = rho / rv;
    for (size_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * v[i]; /* s = r - alpha A p */
    }
    apply_a(f, r, t);
    *sweeps += 2;
    double tt = dot(t, t, n);
    omega = tt > 0 ? dot(t, r, n) / tt : 0;
    for (size_t i = 0; i < n; i++) {
      x[i] += omega * r[i];
      r[i] -= omega * t[i];
    }
  }
  return STP_OK;
}

stp_status stp__bicgstab_fixed_point(const stp_sweep_map *f, double *x,
                                     const stp_stationary_options *o, size_t *sweeps, double *est,
                                     stp_error *err) {
  size_t n = f->n;
  *sweeps = 0;
  *est = INFINITY;
  double *buf = stp__malloc_array(5 * n, sizeof *buf);
  if (!buf)
    return stp__oom(err, "preparing the BiCGSTAB fallback of the stationary solve");
  bicg_ws w = {n, buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 4 * n};
  stp_gs_progress prog;
  stp__gs_progress_init(&prog);
  stp_status st = normalise(x, n, 0, err);
  while (st == STP_OK) {
    f->apply(f->ctx, x, w.r);
    ++*sweeps;
    *est = f->estimate(f->ctx, x, w.r);
    if (stp__gs_done(&prog, *est, *sweeps, o))
      break;
    /* a residual this small meets the target of the sweeps: the scaled
     * residual is at most ||T x - x||_inf / ||x||_inf */
    double enough = o->tolerance * STP_GS_TARGET * max_abs(x, n);
    if ((st = run(f, &w, x, enough, &prog, o, sweeps, err)) == STP_OK)
      st = normalise(x, n, *sweeps, err);
  }
  free(buf);
  return st;
}
