/* laws.c: parsing of law specs ("gamma:cv=0.5", "empirical:times.txt") with
 * strict number parsing and errors that name the law and the parameter, the
 * constants that give each law mean 1, and the unit-mean samplers (an
 * exponential ziggurat and GSL's random distributions, all drawing from the
 * generator of rng.c).  One of the two files that include GSL headers (with
 * rng.c).  GSL's error handler is process-wide, so the library leaves it
 * alone: every argument handed to GSL is checked first (law parameters when
 * the spec is parsed, Weibull shapes by the bisection's bracket), so that
 * GSL never has an error to report (docs/design.md, "GSL"). */
#include "solvers/laws.h"

#include "base/core.h"
#include "base/fileio.h"
#include "base/numfmt.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the law table ------------------------------------------------------------------ */
typedef struct law_param {
  const char *name;
  double lo, hi;
  bool lo_open; /* lo excluded */
  bool integer;
} law_param;

typedef struct law_desc {
  const char *name;
  stp_law_kind kind;
  size_t nparam;
  law_param p[2];
  const char *example;
  const char *hint; /* appended to range errors, or NULL */
} law_desc;

#define CV_PARAM {"cv", 1e-6, 100, false, false}

static const law_desc laws[] = {
    {"det", STP_LAW_DET, 0, {{0}}, "det", NULL},
    {"exp", STP_LAW_EXP, 0, {{0}}, "exp", NULL},
    {"uniform", STP_LAW_UNIFORM, 1, {{"spread", 0, 1, true, false}}, "uniform:spread=0.5",
     "the times are uniform on [mean*(1-spread), mean*(1+spread)]"},
    {"gamma", STP_LAW_GAMMA, 1, {CV_PARAM}, "gamma:cv=0.5", NULL},
    {"weibull", STP_LAW_WEIBULL, 1, {CV_PARAM}, "weibull:cv=0.5", NULL},
    {"lognormal", STP_LAW_LOGNORMAL, 1, {CV_PARAM}, "lognormal:cv=0.5", NULL},
    {"normal", STP_LAW_NORMAL, 1, {CV_PARAM}, "normal:cv=0.3", NULL},
    {"beta", STP_LAW_BETA, 2, {{"a", 0, 1e6, true, false}, {"b", 0, 1e6, true, false}},
     "beta:a=2,b=5", NULL},
    {"erlang", STP_LAW_ERLANG, 1, {{"k", 1, 1e6, false, true}}, "erlang:k=3", NULL},
    {"hyperexp", STP_LAW_HYPEREXP, 1, {{"cv", 1, 100, true, false}}, "hyperexp:cv=2",
     "a hyperexponential law has cv > 1; use exp for cv = 1, and for cv < 1 erlang:k=K "
     "(cv = 1/sqrt(K), exact in eval) or gamma:cv=X (simulated)"},
    {"empirical", STP_LAW_EMPIRICAL, 0, {{0}}, "empirical:times.txt", NULL},
    {"coxian", STP_LAW_PH, 0, {{0}}, "coxian:rate=3/1,next=0.4", NULL},
    {"ph", STP_LAW_PH, 0, {{0}}, "ph:fit=times.txt", NULL},
};
#define NLAWS (sizeof laws / sizeof laws[0])

/* "det, exp, ..." from the table, for error messages. */
static const char *known_names(char *buf, size_t n) {
  buf[0] = '\0';
  for (size_t k = 0, at = 0; k < NLAWS && at < n; k++, at = strlen(buf))
    snprintf(buf + at, n - at, "%s%s", k ? ", " : "", laws[k].name);
  return buf;
}

/* s[0..len) is exactly `name`. */
static bool name_is(const char *name, const char *s, size_t len) {
  return strlen(name) == len && strncmp(name, s, len) == 0;
}

/* ---- allocation --------------------------------------------------------------------- */
void stp__law_free(stp_law *law) {
  if (!law)
    return;
  free(law->spec);
  free(law->samples);
  stp__coxian_free(&law->ph);
  free(law->fit);
  free(law);
}

/* ---- strict number parsing ---------------------------------------------------------- */
#define NUMBER_MAX 64

/* The whole of text[0..len) must be one finite number (an integer when
 * integer is set); no blanks, no trailing characters. */
static bool parse_number(const char *text, size_t len, bool integer, double *out) {
  char buf[NUMBER_MAX + 1];
  if (len == 0 || len > NUMBER_MAX)
    return false;
  memcpy(buf, text, len);
  buf[len] = '\0';
  if (integer) {
    for (size_t k = 0; k < len; k++)
      if (buf[k] < '0' || buf[k] > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno == ERANGE || *end != '\0')
      return false;
    *out = (double)v;
    return true;
  }
  if (buf[0] == ' ' || buf[0] == '\t' || buf[0] == '\n')
    return false;
  errno = 0;
  char *end;
  double v = stp__strtod(buf, &end); /* a ',' locale must not change the spec */
  if (end == buf || *end != '\0' || errno == ERANGE || !isfinite(v))
    return false;
  *out = v;
  return true;
}

/* ---- parameters --------------------------------------------------------------------- */
static const law_desc *find_law(const char *name, size_t len) {
  for (size_t k = 0; k < NLAWS; k++)
    if (name_is(laws[k].name, name, len))
      return &laws[k];
  return NULL;
}

/* The known law whose name shares the longest prefix with `name` (a hint). */
static const law_desc *closest_law(const char *name, size_t len) {
  const law_desc *best = NULL;
  size_t best_n = 1;
  for (size_t k = 0; k < NLAWS; k++) {
    size_t n = 0;
    while (n < len && laws[k].name[n] && laws[k].name[n] == name[n])
      n++;
    if (n > best_n) {
      best_n = n;
      best = &laws[k];
    }
  }
  return best;
}

static stp_status check_range(const law_desc *d, const law_param *p, const char *spec, double v,
                              stp_error *err) {
  bool low = p->lo_open ? v <= p->lo : v < p->lo;
  if (!low && v <= p->hi)
    return STP_OK;
  return stp__fail(err, STP_EINVAL, "law \"%s\": %s must be in %c%g, %g], got %g%s%s%s", spec,
                   p->name, p->lo_open ? '(' : '[', p->lo, p->hi, v, d->hint ? " (" : "",
                   d->hint ? d->hint : "", d->hint ? ")" : "");
}

static size_t param_index(const law_desc *d, const char *key, size_t len) {
  for (size_t k = 0; k < d->nparam; k++)
    if (name_is(d->p[k].name, key, len))
      return k;
  return SIZE_MAX;
}

static void param_list(const law_desc *d, char *buf, size_t n) {
  buf[0] = '\0';
  for (size_t k = 0; k < d->nparam; k++) {
    size_t at = strlen(buf);
    snprintf(buf + at, n - at, "%s%s", k ? " and " : "", d->p[k].name);
  }
}

static stp_status parse_one_param(const law_desc *d, const char *spec, const char *item,
                                  size_t len, double *val, bool *seen, stp_error *err) {
  const char *eq = memchr(item, '=', len);
  if (!eq || eq == item)
    return stp__fail(err, STP_EINVAL,
                     "law \"%s\": \"%.*s\" is not of the form NAME=VALUE (e.g. %s)", spec,
                     (int)len, item, d->example);
  size_t klen = (size_t)(eq - item), k = param_index(d, item, klen);
  if (k == SIZE_MAX) {
    char names[64];
    param_list(d, names, sizeof names);
    return stp__fail(err, STP_EINVAL, "law \"%s\": unknown parameter \"%.*s\" (%s takes %s)",
                     spec, (int)klen, item, d->name, names);
  }
  if (seen[k])
    return stp__fail(err, STP_EINVAL, "law \"%s\": parameter %s is given twice", spec,
                     d->p[k].name);
  const char *value = eq + 1;
  size_t vlen = len - klen - 1;
  if (!parse_number(value, vlen, d->p[k].integer, &val[k]))
    return stp__fail(err, STP_EINVAL, "law \"%s\": parameter %s: \"%.*s\" is not %s", spec,
                     d->p[k].name, (int)vlen, value,
                     d->p[k].integer ? "a non-negative integer" : "a finite number");
  seen[k] = true;
  return check_range(d, &d->p[k], spec, val[k], err);
}

/* params: the text after "name:", or NULL when there is no colon. */
static stp_status parse_params(const law_desc *d, const char *spec, const char *params,
                               double val[2], stp_error *err) {
  bool seen[2] = {false, false};
  if (params && d->nparam == 0)
    return stp__fail(err, STP_EINVAL, "law \"%s\": %s takes no parameters", spec, d->name);
  const char *at = params;
  while (at) {
    const char *comma = strchr(at, ',');
    size_t len = comma ? (size_t)(comma - at) : strlen(at);
    STP_CHECK(parse_one_param(d, spec, at, len, val, seen, err));
    at = comma ? comma + 1 : NULL;
  }
  for (size_t k = 0; k < d->nparam; k++)
    if (!seen[k])
      return stp__fail(err, STP_EINVAL, "law \"%s\": missing parameter %s (e.g. %s)", spec,
                       d->p[k].name, d->example);
  return STP_OK;
}

/* ---- unit-mean constants ------------------------------------------------------------ */
/* Squared cv of a Weibull law of shape k: Gamma(1+2/k)/Gamma(1+1/k)^2 - 1. */
static double weibull_cv2(double k) {
  return expm1(gsl_sf_lngamma(1 + 2 / k) - 2 * gsl_sf_lngamma(1 + 1 / k));
}

/* The shape whose cv is `cv` (cv^2 decreases in k): bisection on log k. */
static double weibull_shape(double cv) {
  double lo = log(1e-2), hi = log(1e7), target = cv * cv;
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if (weibull_cv2(exp(mid)) > target)
      lo = mid;
    else
      hi = mid;
  }
  return exp(0.5 * (lo + hi));
}

/* Mean of N(1, cv^2) conditioned on > 0: 1 + cv * phi(1/cv) / Phi(1/cv). */
static double truncated_normal_mean(double cv) {
  double a = 1 / cv;
  return 1 + cv * gsl_ran_ugaussian_pdf(a) / gsl_cdf_ugaussian_P(a);
}

static void set_constants(stp_law *law) {
  double *c = law->c, x = law->param[0];
  switch (law->kind) {
  case STP_LAW_UNIFORM:
    c[0] = x;
    break;
  case STP_LAW_GAMMA: /* shape 1/cv^2, scale cv^2 */
    c[0] = 1 / (x * x);
    c[1] = x * x;
    break;
  case STP_LAW_ERLANG:
    c[0] = x;
    c[1] = 1 / x;
    break;
  case STP_LAW_WEIBULL: /* shape k, scale 1/Gamma(1+1/k) */
    c[0] = weibull_shape(x);
    c[1] = exp(-gsl_sf_lngamma(1 + 1 / c[0]));
    break;
  case STP_LAW_LOGNORMAL: /* zeta = -sigma^2/2 */
    c[1] = sqrt(log1p(x * x));
    c[0] = -0.5 * c[1] * c[1];
    break;
  case STP_LAW_NORMAL:
    c[0] = x;
    c[1] = 1 / truncated_normal_mean(x);
    break;
  case STP_LAW_BETA:
    c[0] = (law->param[0] + law->param[1]) / law->param[0];
    break;
  case STP_LAW_HYPEREXP: { /* balanced means: p1/l1 = p2/l2 = 1/2 */
    double p1 = 0.5 * (1 + sqrt((x * x - 1) / (x * x + 1)));
    c[0] = p1;
    c[1] = 2 * p1;
    c[2] = 2 * (1 - p1);
    break;
  }
  default:
    break;
  }
}

/* ---- exponential ziggurat -----------------------------------------------------------------
 * Marsaglia and Tsang, "The ziggurat method for generating random variables"
 * (J. Stat. Softw. 5(8), 2000), with 1024 layers (their tables have 256),
 * 53-bit layer abscissae and the layer index from bits the abscissa does not
 * use.  99.36% of draws cost one number of the generator's buffer, a table
 * look-up and a compare (97.8% with 256 layers: the mispredicted rare path
 * then cost as much as all the fast ones), against a log() for inversion:
 * exponential times are the common case and the kernel's bottleneck.  Tables
 * are computed once per process. */
#ifndef ZIG_BITS
#define ZIG_BITS 10
#endif
#define ZIG_N (1 << ZIG_BITS) /* layers; the index takes the low bits, the abscissa bits 11-63 */

static double zig_r, zig_v; /* start of the tail; area of each layer */
static uint64_t zig_k[ZIG_N];
static double zig_w[ZIG_N], zig_f[ZIG_N];
/* Wedge of layer i (i >= 1): x in [zig_xl[i], zig_xr[i]], where exp(-x) lies
 * between its tangents at both ends and its chord (slope zig_sc[i]). */
static double zig_xl[ZIG_N], zig_xr[ZIG_N], zig_sc[ZIG_N];
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

/* How far the layers built down from a tail at r miss closing at the top
 * (> 0: r too small, the layers reach x = 0 early); *v: the area of each. */
static double zig_miss(double r, double *v) {
  double de = r;
  *v = (r + 1) * exp(-r); /* base strip: r f(r) plus the tail's exp(-r) */
  for (int i = ZIG_N - 2; i >= 1; i--) {
    double a = *v / de + exp(-de);
    if (a >= 1)
      return 1;
    de = -log(a);
  }
  return *v / de + exp(-de) - 1;
}

static void zig_init(void) {
  /* r by bisection (for 256 layers it gives Marsaglia and Tsang's
   * 7.69711747013104972 and v = 3.949659822581572e-3 to 1e-16) */
  double lo = 1, hi = 40;
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) /* adjacent doubles: further steps change nothing, */
      break;                    /* and each costs 2 x 1023 log/exp (~25 us) */
    if (zig_miss(mid, &zig_v) > 0)
      lo = mid;
    else
      hi = mid;
  }
  zig_r = hi;
  zig_miss(zig_r, &zig_v);
  const double m = 0x1.0p53;
  double de = zig_r, te = de, q = zig_v / exp(-de);
  zig_k[0] = (uint64_t)(de / q * m);
  zig_k[1] = 0;
  zig_w[0] = q / m;
  zig_w[ZIG_N - 1] = de / m;
  zig_f[0] = 1;
  zig_f[ZIG_N - 1] = exp(-de);
  for (int i = ZIG_N - 2; i >= 1; i--) {
    de = -log(zig_v / de + exp(-de));
    zig_k[i + 1] = (uint64_t)(de / te * m);
    te = de;
    zig_f[i] = exp(-de);
    zig_w[i] = de / m;
  }
  for (int i = 1; i < ZIG_N; i++) {
    zig_xl[i] = i == 1 ? 0 : zig_w[i - 1] * m;
    zig_xr[i] = zig_w[i] * m;
    zig_sc[i] = (zig_f[i] - zig_f[i - 1]) / (zig_xr[i] - zig_xl[i]);
  }
}

/* The wedge test y < exp(-x) of layer i, deciding by the convexity of
 * exp(-x) without calling exp() when the answer is certain: below both
 * tangents, accept; above the chord, reject.  The margin (far above the
 * rounding of these lines and of exp()) keeps every decision that of the
 * plain test, so the draws are the same numbers. */
#define ZIG_MARGIN 1e-12
static inline bool zig_wedge_accepts(unsigned i, double x, double y) {
  double tl = zig_f[i - 1] * (1 - (x - zig_xl[i])), tr = zig_f[i] * (1 + (zig_xr[i] - x));
  if (y < (tl > tr ? tl : tr) - ZIG_MARGIN)
    return true;
  if (y > zig_f[i - 1] + zig_sc[i] * (x - zig_xl[i]) + ZIG_MARGIN)
    return false;
  return y < exp(-x);
}

/* The rest of a draw whose first number u failed the fast test: the
 * wedge, the tail, or new tries, reading further numbers from r.  Rare (about
 * 1.1% of the draws) and out of line, so that the fast loops stay small. */
static __attribute__((noinline)) double zig_slow(stp_rng *r, uint64_t u) {
  for (;;) {
    unsigned i = (unsigned)(u & (ZIG_N - 1));
    uint64_t j = u >> 11;
    double x = (double)j * zig_w[i];
    if (j < zig_k[i])
      return x;
    if (i == 0) /* the tail beyond zig_r is zig_r + Exp(1) */
      return zig_r - log(stp__rng_uniform_pos(r));
    if (zig_wedge_accepts(i, x, zig_f[i] + (zig_f[i - 1] - zig_f[i]) * stp__rng_uniform(r)))
      return x;
    u = stp__rng_next(r);
  }
}

/* Exp(1); zig_init must have run.  j < 2^53: the conversion is exact. */
static inline double zig_exp(stp_rng *r) {
  uint64_t u = stp__rng_next(r), j = u >> 11;
  unsigned i = (unsigned)(u & (ZIG_N - 1));
  if (__builtin_expect(j < zig_k[i], 1))
    return (double)(int64_t)j * zig_w[i];
  return zig_slow(r, u);
}

/* The fast path over made numbers: out[q] = mean[q * step] times the draw
 * from u[q] while each passes the fast test; returns how many did (m when
 * all). */
static size_t zig_fast_run(const uint64_t *u, double *out, size_t m, const double *mean,
                           size_t step) {
  for (size_t q = 0; q < m; q++) {
    uint64_t j = u[q] >> 11;
    unsigned i = (unsigned)(u[q] & (ZIG_N - 1));
    if (__builtin_expect(j >= zig_k[i], 0))
      return q;
    out[q] = mean[q * step] * ((double)(int64_t)j * zig_w[i]);
  }
  return m;
}

/* n draws of Exp(1), each times its mean (mean[k * step]: step 0, one mean
 * for all): the fast path straight over the generator's buffer, one number
 * per draw, the slow path where a number fails; the same draws as n calls
 * of zig_exp, and the same products as multiplying afterwards. */
static void fill_exp(stp_rng *r, double *out, size_t n, const double *mean, size_t step) {
  while (n > 0) {
    if (r->pos == r->end)
      stp__rng_refill(r);
    size_t m = r->end - r->pos < n ? r->end - r->pos : n;
    size_t q = zig_fast_run(r->buf + r->pos, out, m, mean, step);
    r->pos += q;
    out += q;
    mean += q * step;
    n -= q;
    if (q < m) {
      uint64_t u = r->buf[r->pos++];
      *out++ = mean[0] * zig_slow(r, u);
      mean += step;
      n--;
    }
  }
}

#define ERLANG_SUM_MAX 32 /* beyond, one gamma draw is cheaper than k exponentials */

/* ---- empirical samples -------------------------------------------------------------- */
static bool is_separator(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ',';
}

static stp_status push_sample(stp_law *law, size_t *cap, double v, stp_error *err) {
  if (law->nsamples == *cap) {
    size_t ncap = *cap ? 2 * *cap : 1024;
    double *s = stp__malloc_array(ncap, sizeof *s);
    if (!s)
      return stp__oom(err, "reading samples");
    if (law->nsamples)
      memcpy(s, law->samples, law->nsamples * sizeof *s);
    free(law->samples);
    law->samples = s;
    *cap = ncap;
  }
  law->samples[law->nsamples++] = v;
  return STP_OK;
}

/* Numbers separated by blanks, commas or newlines; '#' starts a comment. */
static stp_status parse_samples(stp_law *law, const char *path, const char *text, size_t len,
                                stp_error *err) {
  size_t cap = 0, line = 1, at = 0;
  while (at < len) {
    char ch = text[at];
    if (ch == '\n')
      line++;
    if (is_separator(ch)) {
      at++;
      continue;
    }
    if (ch == '#') {
      while (at < len && text[at] != '\n')
        at++;
      continue;
    }
    size_t start = at;
    while (at < len && !is_separator(text[at]) && text[at] != '#')
      at++;
    double v;
    if (!parse_number(text + start, at - start, false, &v))
      return stp__fail(err, STP_EINVAL, "%s:%zu: \"%.*s\" is not a finite number", path, line,
                       (int)(at - start > 40 ? 40 : at - start), text + start);
    if (v < 0)
      return stp__fail(err, STP_EINVAL, "%s:%zu: sample %g is negative (times are >= 0)", path,
                       line, v);
    STP_CHECK(push_sample(law, &cap, v, err));
  }
  return STP_OK;
}

static stp_status normalise_samples(stp_law *law, const char *path, stp_error *err) {
  if (law->nsamples == 0)
    return stp__fail(err, STP_EINVAL, "%s: no samples (numbers separated by blanks, commas "
                     "or newlines; '#' starts a comment)", path);
  double sum = 0;
  for (size_t k = 0; k < law->nsamples; k++)
    sum += law->samples[k];
  double mean = sum / (double)law->nsamples;
  if (!(mean > 0) || !isfinite(mean))
    return stp__fail(err, STP_EINVAL, "%s: the mean of the samples is %g; it must be a finite "
                     "positive number", path, mean);
  for (size_t k = 0; k < law->nsamples; k++)
    law->samples[k] /= mean;
  return STP_OK;
}

static stp_status load_samples(stp_law *law, const char *file, const char *base_dir,
                               stp_error *err) {
  char *path = file[0] != '/' && base_dir && base_dir[0]
                   ? stp__asprintf("%s/%s", base_dir, file)
                   : stp__strdup(file);
  if (!path)
    return stp__oom(err, "reading samples");
  char *text = NULL;
  size_t len = 0;
  stp_status s = stp__read_file(path, STP_MAX_FILE_BYTES, &text, &len, err);
  if (s == STP_OK) /* a NUL would end a number early: "2\0003" read as 2 */
    s = stp__reject_nul(text, len, path, "sample", err);
  if (s == STP_OK)
    s = parse_samples(law, path, text, len, err);
  if (s == STP_OK)
    s = normalise_samples(law, path, err);
  if (s != STP_OK)
    stp_error_prefix(err, "law \"%s\"", law->spec);
  free(text);
  free(path);
  return s;
}

/* ---- phase-type laws (laws_ph.c) ----------------------------------------------------- */

/* The specs that list phases: coxian and ph always, hyperexp unless cv=. */
static bool lists_law(const law_desc *d, const char *params) {
  if (d->kind == STP_LAW_PH)
    return true;
  return d->kind == STP_LAW_HYPEREXP && params && strncmp(params, "cv=", 3) != 0;
}

/* ph:fit=FILE: the samples of FILE fitted (phasetype.h); the samples are
 * not kept. */
static stp_status fit_samples(stp_law *law, const char *file, const char *base_dir,
                              stp_error *err) {
  if (!file[0])
    return stp__fail(err, STP_EINVAL, "law \"%s\": missing file name (e.g. ph:fit=times.txt)",
                     law->spec);
  STP_CHECK(load_samples(law, file, base_dir, err));
  if (!(law->fit = calloc(1, sizeof *law->fit)))
    return stp__oom(err, "fitting samples");
  stp_status s = stp__ph_fit(law->samples, law->nsamples, &law->ph, law->fit, err);
  if (s != STP_OK)
    stp_error_prefix(err, "law \"%s\"", law->spec);
  else
    s = stp__coxian_check_rates(&law->ph, law->spec, err);
  free(law->samples);
  law->samples = NULL;
  law->nsamples = 0;
  return s;
}

/* One draw of a Coxian law: its phases in turn, each going on with its
 * probability (no uniform draw where that is 0 or 1). */
static double coxian_draw(const stp_coxian *c, stp_rng *rng) {
  double t = 0;
  for (uint32_t i = 0;; i++) {
    t += zig_exp(rng) / c->rate[i];
    double q = c->next[i];
    if (q <= 0 || (q < 1 && stp__rng_uniform(rng) >= q))
      return t;
  }
}

/* ---- parsing ------------------------------------------------------------------------ */
static stp_status unknown_law(const char *spec, size_t len, stp_error *err) {
  const law_desc *hint = closest_law(spec, len);
  char names[160];
  return stp__fail(err, STP_EINVAL, "unknown law \"%.*s\" in \"%s\"%s%s%s; known laws: %s",
                   (int)len, spec, spec, hint ? " (did you mean \"" : "",
                   hint ? hint->name : "", hint ? "\"?)" : "", known_names(names, sizeof names));
}

stp_status stp__law_parse(const char *spec, const char *base_dir, stp_law **out,
                          stp_error *err) {
  *out = NULL;
  char names[160];
  if (!spec || !spec[0])
    return stp__fail(err, STP_EINVAL, "empty law spec; known laws: %s",
                     known_names(names, sizeof names));
  pthread_once(&zig_once, zig_init);
  const char *colon = strchr(spec, ':');
  size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
  const law_desc *d = find_law(spec, nlen);
  if (!d)
    return unknown_law(spec, nlen, err);
  stp_law *law = calloc(1, sizeof *law);
  if (!law || !(law->spec = stp__strdup(spec))) {
    free(law);
    return stp__oom(err, "parsing a law");
  }
  law->kind = d->kind;
  const char *params = colon ? colon + 1 : NULL;
  stp_status s;
  if (d->kind == STP_LAW_EMPIRICAL)
    s = colon && colon[1] ? load_samples(law, colon + 1, base_dir, err)
                          : stp__fail(err, STP_EINVAL, "law \"%s\": missing file name (e.g. %s)",
                                      spec, d->example);
  else if (d->kind == STP_LAW_PH && params && strncmp(params, "fit=", 4) == 0 &&
           strcmp(d->name, "ph") == 0)
    s = fit_samples(law, params + 4, base_dir, err);
  else if (lists_law(d, params)) {
    law->kind = STP_LAW_PH; /* hyperexp with lists too: drawn in Coxian form */
    s = stp__law_parse_lists(law, d->name, params, err);
  }
  else
    s = parse_params(d, spec, params, law->param, err);
  if (s == STP_OK) {
    set_constants(law);
    s = stp__law_set_coxian(law, err);
  }
  if (s != STP_OK) {
    stp__law_free(law);
    return s;
  }
  *out = law;
  return STP_OK;
}

/* ---- sampling ----------------------------------------------------------------------- */
static double truncated_normal(const stp_law *law, gsl_rng *g) {
  double z;
  do /* acceptance probability Phi(1/cv) >= 1/2 */
    z = 1 + law->c[0] * gsl_ran_gaussian_ziggurat(g, 1.0);
  while (z <= 0);
  return z * law->c[1];
}

static double erlang(const stp_law *law, stp_rng *rng) {
  double sum = 0;
  for (int k = 0; k < (int)law->param[0]; k++)
    sum += zig_exp(rng);
  return sum * law->c[1];
}

void stp__law_fill(const stp_law *law, stp_rng *rng, double *buf, size_t n) {
  static const double one = 1;
  gsl_rng *g = rng->gsl;
  const double *c = law->c;
  switch (law->kind) {
  case STP_LAW_DET:
    for (size_t k = 0; k < n; k++)
      buf[k] = 1;
    break;
  case STP_LAW_EXP:
    fill_exp(rng, buf, n, &one, 0);
    break;
  case STP_LAW_UNIFORM:
    for (size_t k = 0; k < n; k++)
      buf[k] = 1 + c[0] * (2 * stp__rng_uniform(rng) - 1);
    break;
  case STP_LAW_ERLANG:
    for (size_t k = 0; k < n; k++)
      buf[k] = law->param[0] <= ERLANG_SUM_MAX ? erlang(law, rng) : gsl_ran_gamma(g, c[0], c[1]);
    break;
  case STP_LAW_GAMMA:
    for (size_t k = 0; k < n; k++)
      buf[k] = gsl_ran_gamma(g, c[0], c[1]);
    break;
  case STP_LAW_WEIBULL:
    for (size_t k = 0; k < n; k++)
      buf[k] = gsl_ran_weibull(g, c[1], c[0]);
    break;
  case STP_LAW_LOGNORMAL:
    for (size_t k = 0; k < n; k++)
      buf[k] = exp(c[0] + c[1] * gsl_ran_gaussian_ziggurat(g, 1.0));
    break;
  case STP_LAW_NORMAL:
    for (size_t k = 0; k < n; k++)
      buf[k] = truncated_normal(law, g);
    break;
  case STP_LAW_BETA:
    for (size_t k = 0; k < n; k++)
      buf[k] = c[0] * gsl_ran_beta(g, law->param[0], law->param[1]);
    break;
  case STP_LAW_HYPEREXP:
    for (size_t k = 0; k < n; k++) {
      double rate = stp__rng_uniform(rng) < c[0] ? c[1] : c[2];
      buf[k] = zig_exp(rng) / rate;
    }
    break;
  case STP_LAW_EMPIRICAL:
    for (size_t k = 0; k < n; k++)
      buf[k] = law->samples[(size_t)(stp__rng_uniform(rng) * (double)law->nsamples)];
    break;
  case STP_LAW_PH:
    for (size_t k = 0; k < n; k++)
      buf[k] = coxian_draw(&law->ph, rng);
    break;
  }
}

void stp__law_fill_times(const stp_law *law, stp_rng *rng, double *buf, size_t n,
                         const double *mean, bool cycled) {
  if (law->kind == STP_LAW_EXP) { /* in the same pass: the common case */
    fill_exp(rng, buf, n, mean, cycled ? 1 : 0);
    return;
  }
  stp__law_fill(law, rng, buf, n);
  for (size_t k = 0; k < n; k++)
    buf[k] = mean[cycled ? k : 0] * buf[k];
}

int stp__law_nbue(const stp_law *law) {
  switch (law->kind) {
  case STP_LAW_DET:
  case STP_LAW_EXP:
  case STP_LAW_UNIFORM: /* log-concave densities: increasing failure rate */
  case STP_LAW_NORMAL:
  case STP_LAW_ERLANG:
    return 1;
  case STP_LAW_GAMMA: /* shape >= 1 exactly when cv <= 1 */
  case STP_LAW_WEIBULL:
    return law->param[0] <= 1 ? 1 : 0;
  case STP_LAW_BETA:
    return law->param[0] >= 1 && law->param[1] >= 1 ? 1 : -1;
  case STP_LAW_LOGNORMAL: /* the mean residual life grows without bound */
  case STP_LAW_HYPEREXP:  /* decreasing failure rate, cv > 1 */
    return 0;
  case STP_LAW_PH: /* an N.B.U.E. law has cv <= 1; below, it depends */
    return stp__coxian_cv2(&law->ph) > 1 + 1e-12 ? 0 : -1;
  default:
    return -1;
  }
}

/* ---- public wrappers ---------------------------------------------------------------- */
stp_status stp_law_parse(const char *spec, const char *base_dir, stp_law **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_law_parse: out is NULL");
  return stp__law_parse(spec, base_dir, out, err);
}

void stp_law_free(stp_law *law) { stp__law_free(law); }

/* Where a spec names a file: after "empirical:" or "ph:fit=", to the end. */
static size_t file_offset(const char *spec) {
  static const char *const heads[] = {"empirical:", "ph:fit="};
  for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
    if (strncmp(spec, heads[i], strlen(heads[i])) == 0)
      return strlen(heads[i]);
  return 0;
}

stp_status stp_law_spec_rebase(const char *spec, const char *from_dir, const char *to_dir,
                               char **out, stp_error *err) {
  if (!spec || !out)
    return stp__fail(err, STP_EINVAL, "stp_law_spec_rebase: spec or out is NULL");
  size_t at = file_offset(spec);
  char *path = at && spec[at] ? stp__path_from(spec + at, from_dir, to_dir) : NULL;
  *out = !at || !spec[at] ? stp__strdup(spec)
         : path          ? stp__asprintf("%.*s%s", (int)at, spec, path)
                         : NULL;
  free(path);
  return *out ? STP_OK : stp__oom(err, "rewriting the path of a law");
}

const char *stp_law_spec(const stp_law *law) { return law ? law->spec : NULL; }
