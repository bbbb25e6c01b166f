/* test_laws.c: law specs (parsing, errors that name the law and parameter),
 * the unit-mean samplers (mean and cv within sigma bands, against moments
 * computed here from the laws' closed forms), the generator's
 * reproducibility, and the "laws" key of mapping files. */
#include "solvers/laws.h"
#include "base/rng.h"
#include "support/testutil.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIGMAS 5.0 /* width of the sigma bands: a correct sampler fails w.p. < 1e-6 */

static stp_law *parse_ok(const char *spec, const char *dir) {
  stp_law *law = NULL;
  stp_error err = {0};
  stp_status s = stp__law_parse(spec, dir, &law, &err);
  cr_assert_eq(s, STP_OK, "parsing \"%s\" failed: %s", spec, err.message);
  return law;
}

static const char *parse_error(const char *spec) {
  static stp_error err;
  memset(&err, 0, sizeof err);
  stp_law *law = (stp_law *)&err; /* must be reset to NULL */
  stp_status s = stp__law_parse(spec, NULL, &law, &err);
  cr_assert_neq(s, STP_OK, "\"%s\" should not parse", spec);
  cr_assert_null(law);
  cr_assert_eq(err.status, s);
  return err.message;
}

Test(laws, parses_every_family) {
  struct {
    const char *spec;
    stp_law_kind kind;
    double p0, p1;
  } cases[] = {
      {"det", STP_LAW_DET, 0, 0},
      {"exp", STP_LAW_EXP, 0, 0},
      {"uniform:spread=0.5", STP_LAW_UNIFORM, 0.5, 0},
      {"gamma:cv=0.25", STP_LAW_GAMMA, 0.25, 0},
      {"weibull:cv=2", STP_LAW_WEIBULL, 2, 0},
      {"lognormal:cv=1.5", STP_LAW_LOGNORMAL, 1.5, 0},
      {"normal:cv=0.3", STP_LAW_NORMAL, 0.3, 0},
      {"beta:a=2,b=5", STP_LAW_BETA, 2, 5},
      {"beta:b=5,a=2", STP_LAW_BETA, 2, 5},
      {"erlang:k=3", STP_LAW_ERLANG, 3, 0},
      {"hyperexp:cv=2", STP_LAW_HYPEREXP, 2, 0},
      {"gamma:cv=5e-1", STP_LAW_GAMMA, 0.5, 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    stp_law *law = parse_ok(cases[k].spec, NULL);
    cr_assert_eq(law->kind, cases[k].kind, "%s", cases[k].spec);
    assert_close(law->param[0], cases[k].p0, TOL_EXACT);
    assert_close(law->param[1], cases[k].p1, TOL_EXACT);
    cr_assert_str_eq(stp_law_spec(law), cases[k].spec);
    stp__law_free(law);
  }
}

Test(laws, errors_name_the_law_and_parameter) {
  struct {
    const char *spec, *want;
  } cases[] = {
      {"", "empty law spec"},
      {"gama:cv=1", "unknown law \"gama\" in \"gama:cv=1\" (did you mean \"gamma\"?)"},
      {"poisson", "unknown law \"poisson\""},
      {"gamma", "law \"gamma\": missing parameter cv (e.g. gamma:cv=0.5)"},
      {"gamma:cv=abc", "law \"gamma:cv=abc\": parameter cv: \"abc\" is not a finite number"},
      {"gamma:cv=0.5x", "parameter cv: \"0.5x\" is not a finite number"},
      {"gamma:cv= 0.5", "parameter cv: \" 0.5\" is not a finite number"},
      {"gamma:cv=", "parameter cv: \"\" is not a finite number"},
      {"gamma:cv=nan", "is not a finite number"},
      {"gamma:cv=inf", "is not a finite number"},
      {"gamma:cv=1e999", "is not a finite number"},
      {"gamma:cv=0", "law \"gamma:cv=0\": cv must be in [1e-06, 100], got 0"},
      {"gamma:cv=-1", "cv must be in [1e-06, 100], got -1"},
      {"gamma:cv=1,cv=2", "law \"gamma:cv=1,cv=2\": parameter cv is given twice"},
      {"gamma:shape=2", "unknown parameter \"shape\" (gamma takes cv)"},
      {"gamma:cv", "\"cv\" is not of the form NAME=VALUE (e.g. gamma:cv=0.5)"},
      {"gamma:cv=1,", "\"\" is not of the form NAME=VALUE"},
      {"exp:cv=1", "law \"exp:cv=1\": exp takes no parameters"},
      {"det:", "det takes no parameters"},
      {"uniform:spread=0", "spread must be in (0, 1], got 0"},
      {"uniform:spread=1.5", "spread must be in (0, 1], got 1.5"},
      {"beta:a=2", "law \"beta:a=2\": missing parameter b"},
      {"beta:a=0,b=1", "a must be in (0, 1e+06], got 0"},
      {"beta:a=1,b=2,c=3", "unknown parameter \"c\" (beta takes a and b)"},
      {"erlang:k=2.5", "parameter k: \"2.5\" is not a non-negative integer"},
      {"erlang:k=0", "k must be in [1, 1e+06], got 0"},
      {"erlang:k=-3", "\"-3\" is not a non-negative integer"},
      {"hyperexp:cv=1", "cv must be in (1, 100], got 1 (a hyperexponential law has cv > 1"},
      {"hyperexp:cv=0.5", "use exp for cv = 1, and for cv < 1 erlang:k=K (cv = 1/sqrt(K), "
                          "exact in eval) or gamma:cv=X (simulated))"}, /* the ( closed */
      {"empirical", "law \"empirical\": missing file name"},
      {"empirical:", "missing file name"},
      {"empirical:/nonexistent/samples.txt",
       "law \"empirical:/nonexistent/samples.txt\": /nonexistent/samples.txt: cannot open"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const char *msg = parse_error(cases[k].spec);
    cr_assert(strstr(msg, cases[k].want), "spec \"%s\": message \"%s\" lacks \"%s\"",
              cases[k].spec, msg, cases[k].want);
  }
}

Test(laws, public_parse_checks_arguments) {
  stp_error err = {0};
  cr_assert_eq(stp_law_parse("exp", NULL, NULL, &err), STP_EINVAL);
  stp_law *law;
  cr_assert_eq(stp_law_parse(NULL, NULL, &law, &err), STP_EINVAL);
  cr_assert_null(law);
  stp_law_free(NULL);
  cr_assert_null(stp_law_spec(NULL));
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

Test(laws, exponential_kolmogorov_smirnov_and_tail) {
  /* 10^6 draws against Exp(1): sqrt(n) D_n below 1.949, Kolmogorov's
   * quantile at significance 0.001 (a correct sampler fails 1 run in 1000;
   * the seed is fixed, so this one either passes or fails always).  Then
   * the tail: beyond the ziggurat's r, X - r is Exp(1) again (memoryless),
   * so the draws above 7 (about 912) have mean 1 beyond 7, within SIGMAS
   * standard errors (1/sqrt(count)). */
  const size_t n = 1000000;
  stp_law *law = parse_ok("exp", NULL);
  stp_rng *rng = stp__rng_alloc(77, 0);
  double *x = malloc(n * sizeof *x);
  cr_assert_not_null(x);
  for (size_t at = 0; at < n; at += 777)
    stp__law_fill(law, rng, x + at, n - at < 777 ? n - at : 777);
  qsort(x, n, sizeof *x, cmp_double);
  double d = 0, excess = 0;
  size_t beyond = 0;
  for (size_t k = 0; k < n; k++) {
    double f = -expm1(-x[k]);
    d = fmax(d, fmax((double)(k + 1) / (double)n - f, f - (double)k / (double)n));
    if (x[k] > 7) {
      excess += x[k] - 7;
      beyond++;
    }
  }
  cr_assert(sqrt((double)n) * d < 1.949, "KS statistic sqrt(n) D = %.4f", sqrt((double)n) * d);
  cr_assert(beyond > 500, "%zu draws above 7", beyond);
  double mean = excess / (double)beyond, se = 1 / sqrt((double)beyond);
  cr_assert(fabs(mean - 1) <= SIGMAS * se, "mean excess beyond 7: %.4f (+- %.3f)", mean,
            SIGMAS * se);
  cr_assert(x[n - 1] > 9.2561645, "no draw from the tail: largest %.4f", x[n - 1]);
  free(x);
  stp__rng_free(rng);
  stp__law_free(law);
}

/* ---- sampler moments ---------------------------------------------------------------- */
typedef struct moments {
  double mean, var, m4; /* m4: fourth central moment */
  double min;
} moments;

static moments sample_moments(const stp_law *law, uint64_t seed, size_t n) {
  stp_rng *rng = stp__rng_alloc(seed, 0);
  cr_assert_not_null(rng);
  double *x = malloc(n * sizeof *x);
  cr_assert_not_null(x);
  /* several fills, to cover block boundaries */
  for (size_t at = 0; at < n; at += 1000)
    stp__law_fill(law, rng, x + at, n - at < 1000 ? n - at : 1000);
  moments mo = {.min = INFINITY};
  for (size_t k = 0; k < n; k++) {
    mo.mean += x[k];
    mo.min = fmin(mo.min, x[k]);
  }
  mo.mean /= (double)n;
  for (size_t k = 0; k < n; k++) {
    double d = x[k] - mo.mean;
    mo.var += d * d;
    mo.m4 += d * d * d * d;
  }
  mo.var /= (double)(n - 1);
  mo.m4 /= (double)n;
  free(x);
  stp__rng_free(rng);
  return mo;
}

/* Mean 1 within SIGMAS standard errors (cv/sqrt(n)); variance cv^2 within
 * SIGMAS standard errors of the sample variance, sqrt((m4 - var^2)/n). */
static void check_moments(const char *spec, double cv, const char *dir) {
  const size_t n = 200000;
  stp_law *law = parse_ok(spec, dir);
  moments mo = sample_moments(law, 42, n);
  double se_mean = cv / sqrt((double)n);
  double se_var = sqrt(fmax(mo.m4 - mo.var * mo.var, 0) / (double)n);
  cr_assert(fabs(mo.mean - 1) <= SIGMAS * se_mean + 1e-12,
            "%s: sample mean %.6f, expected 1 +- %.2g", spec, mo.mean, SIGMAS * se_mean);
  cr_assert(fabs(mo.var - cv * cv) <= SIGMAS * se_var + 1e-12,
            "%s: sample variance %.6f, expected cv^2 = %.6f +- %.2g", spec, mo.var, cv * cv,
            SIGMAS * se_var);
  cr_assert(mo.min >= 0, "%s: negative time %g", spec, mo.min);
  stp__law_free(law);
}

/* cv of N(1, s^2) conditioned on > 0 (standard truncated-normal moments). */
static double truncated_normal_cv(double s) {
  double alpha = -1 / s, lambda = gsl_ran_ugaussian_pdf(alpha) / gsl_cdf_ugaussian_Q(alpha);
  double mean = 1 + s * lambda;
  double var = s * s * (1 + alpha * lambda - lambda * lambda);
  return sqrt(var) / mean;
}

Test(laws, det_is_exactly_one) {
  stp_law *law = parse_ok("det", NULL);
  moments mo = sample_moments(law, 1, 1000);
  cr_assert(mo.mean == 1 && mo.var == 0 && mo.min == 1);
  stp__law_free(law);
}

Test(laws, exponential_cdf_including_the_ziggurat_tail) {
  /* P(X <= t) = 1 - exp(-t), within SIGMAS binomial standard errors, at
   * points in the layers, at the tail's start (9.2562 with 1024 layers) and
   * inside the tail */
  const size_t n = 2000000;
  const double t[] = {1e-3, 0.01, 0.1, 0.5, 1, 2, 3, 5, 7, 8, 9, 9.25, 9.26, 10, 12};
  const size_t nt = sizeof t / sizeof t[0];
  size_t below[sizeof t / sizeof t[0]] = {0};
  stp_law *law = parse_ok("exp", NULL);
  stp_rng *rng = stp__rng_alloc(2024, 0);
  double buf[1000];
  for (size_t at = 0; at < n; at += 1000) {
    stp__law_fill(law, rng, buf, 1000);
    for (size_t k = 0; k < 1000; k++)
      for (size_t q = 0; q < nt; q++)
        below[q] += buf[k] <= t[q];
  }
  for (size_t q = 0; q < nt; q++) {
    double p = -expm1(-t[q]), frac = (double)below[q] / (double)n;
    double se = sqrt(p * (1 - p) / (double)n);
    cr_assert(fabs(frac - p) <= SIGMAS * se, "P(X <= %g): %.7f sampled, %.7f exact (+- %.2g)",
              t[q], frac, p, SIGMAS * se);
  }
  stp__rng_free(rng);
  stp__law_free(law);
}

Test(laws, fill_times_is_fill_then_multiply) {
  /* The exponential law scales its draws by the means in the draw pass;
   * every law must give exactly the draws of stp__law_fill times the means
   * (one mean, or cycled per draw), and leave the stream where it would. */
  const char *specs[] = {"exp", "gamma:cv=0.5"};
  enum { N = 3000 }; /* several buffer refills and about 19 slow ziggurat draws */
  static double mean[N], a[N], b[N];
  for (size_t k = 0; k < N; k++)
    mean[k] = 0.5 + (double)(k % 7) * 0.25;
  for (size_t q = 0; q < sizeof specs / sizeof specs[0]; q++)
    for (int cycled = 0; cycled <= 1; cycled++) {
      stp_law *law = parse_ok(specs[q], NULL);
      stp_rng *r1 = stp__rng_alloc(5, 3), *r2 = stp__rng_alloc(5, 3);
      stp__law_fill_times(law, r1, a, N, mean, cycled);
      stp__law_fill(law, r2, b, N);
      for (size_t k = 0; k < N; k++)
        cr_assert_eq(a[k], mean[cycled ? k : 0] * b[k], "%s, draw %zu: %.17g against %.17g",
                     specs[q], k, a[k], mean[cycled ? k : 0] * b[k]);
      cr_assert_eq(stp__rng_next(r1), stp__rng_next(r2), "%s: the streams part", specs[q]);
      stp__rng_free(r1);
      stp__rng_free(r2);
      stp__law_free(law);
    }
}

Test(laws, exponential_uniform_erlang_moments) {
  check_moments("exp", 1, NULL);
  check_moments("uniform:spread=1", 1 / sqrt(3), NULL);
  check_moments("uniform:spread=0.3", 0.3 / sqrt(3), NULL);
  check_moments("erlang:k=1", 1, NULL);
  check_moments("erlang:k=4", 0.5, NULL);
  check_moments("erlang:k=40", 1 / sqrt(40), NULL); /* a gamma draw beyond 32 phases */
}

Test(laws, cv_parameterised_moments) {
  const double cvs[] = {0.2, 0.5, 1.0, 1.7};
  char spec[64];
  for (size_t k = 0; k < 4; k++) {
    snprintf(spec, sizeof spec, "gamma:cv=%g", cvs[k]);
    check_moments(spec, cvs[k], NULL);
    snprintf(spec, sizeof spec, "weibull:cv=%g", cvs[k]);
    check_moments(spec, cvs[k], NULL);
    snprintf(spec, sizeof spec, "lognormal:cv=%g", cvs[k] < 1 ? cvs[k] : 0.8);
    check_moments(spec, cvs[k] < 1 ? cvs[k] : 0.8, NULL);
  }
  check_moments("hyperexp:cv=1.5", 1.5, NULL);
  check_moments("hyperexp:cv=3", 3, NULL);
}

Test(laws, truncated_normal_and_beta_moments) {
  check_moments("normal:cv=0.3", truncated_normal_cv(0.3), NULL);
  check_moments("normal:cv=1", truncated_normal_cv(1), NULL);
  check_moments("normal:cv=3", truncated_normal_cv(3), NULL);
  /* Beta(a, b) scaled to mean 1: cv^2 = b / (a (a + b + 1)) */
  check_moments("beta:a=2,b=5", sqrt(5.0 / (2 * 8)), NULL);
  check_moments("beta:a=0.5,b=0.5", sqrt(0.5 / (0.5 * 2)), NULL);
}

/* A scratch directory removed by the test that made it. */
static char *make_dir(void) {
  char tmpl[] = "/tmp/stp-laws-XXXXXX";
  char *d = mkdtemp(tmpl);
  cr_assert_not_null(d);
  return stp__strdup(d);
}

/* len bytes of text (0: up to its NUL) into dir/name. */
static void write_bytes(const char *dir, const char *name, const char *text, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fwrite(text, 1, len ? len : strlen(text), f);
  fclose(f);
}

static void write_file(const char *dir, const char *name, const char *text) {
  write_bytes(dir, name, text, 0);
}

static void remove_file(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
}

Test(laws, empirical_samples_rescaled_to_mean_one) {
  char *dir = make_dir();
  write_file(dir, "s.txt", "# measured times\n10, 20\n30 40 # two more\n");
  /* population {1, 2, 3, 4} / 2.5: mean 1, cv = sqrt(1.25) / 2.5 */
  check_moments("empirical:s.txt", sqrt(1.25) / 2.5, dir);
  stp_law *law = parse_ok("empirical:s.txt", dir);
  cr_assert_eq(law->nsamples, 4);
  assert_close(law->samples[0], 10 / 25.0, TOL_EXACT);
  assert_close(law->samples[3], 40 / 25.0, TOL_EXACT);
  cr_assert_eq(stp__law_nbue(law), -1);
  stp__law_free(law);
  remove_file(dir, "s.txt");
  rmdir(dir);
  free(dir);
}

Test(laws, empirical_file_errors) {
  char *dir = make_dir();
  struct {
    const char *text, *want;
    size_t len; /* 0: up to the text's NUL */
  } cases[] = {
      {"1 2\n3 x4\n", "s.txt:2: \"x4\" is not a finite number", 0},
      {"1\n-2\n", "s.txt:2: sample -2 is negative", 0},
      {"# nothing\n", "s.txt: no samples", 0},
      {"0 0 0", "the mean of the samples is 0", 0},
      {"1 nan", "\"nan\" is not a finite number", 0},
      /* a NUL inside a number: refused, not read as 2 */
      {"1.5\n2\0003\n", "s.txt:2:2: a NUL byte; the file must be sample text", 8},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    write_bytes(dir, "s.txt", cases[k].text, cases[k].len);
    stp_law *law = NULL;
    stp_error err = {0};
    cr_assert_eq(stp__law_parse("empirical:s.txt", dir, &law, &err), STP_EINVAL);
    cr_assert_null(law);
    cr_assert(strstr(err.message, cases[k].want) &&
                  strstr(err.message, "law \"empirical:s.txt\": "),
              "case %zu: \"%s\" lacks \"%s\"", k, err.message, cases[k].want);
  }
  remove_file(dir, "s.txt");
  rmdir(dir);
  free(dir);
}

Test(laws, nbue_classification) {
  struct {
    const char *spec;
    int nbue;
  } cases[] = {{"det", 1},           {"exp", 1},          {"uniform:spread=1", 1},
               {"gamma:cv=0.5", 1},  {"gamma:cv=1", 1},   {"gamma:cv=2", 0},
               {"weibull:cv=0.5", 1}, {"weibull:cv=2", 0}, {"lognormal:cv=0.5", 0},
               {"normal:cv=0.5", 1}, {"beta:a=2,b=3", 1}, {"beta:a=0.5,b=3", -1},
               {"erlang:k=2", 1},    {"hyperexp:cv=2", 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    stp_law *law = parse_ok(cases[k].spec, NULL);
    cr_assert_eq(stp__law_nbue(law), cases[k].nbue, "%s", cases[k].spec);
    stp__law_free(law);
  }
}

/* ---- the generator ------------------------------------------------------------------ */
Test(rng, same_seed_same_stream_and_streams_differ) {
  stp_rng *a = stp__rng_alloc(7, 0), *b = stp__rng_alloc(7, 0), *c = stp__rng_alloc(7, 1),
          *d = stp__rng_alloc(8, 0);
  int same_c = 0, same_d = 0;
  for (int k = 0; k < 1000; k++) {
    uint64_t x = stp__rng_next(a);
    cr_assert_eq(x, stp__rng_next(b));
    same_c += x == stp__rng_next(c);
    same_d += x == stp__rng_next(d);
  }
  cr_assert_eq(same_c, 0);
  cr_assert_eq(same_d, 0);
  stp__rng_free(a);
  stp__rng_free(b);
  stp__rng_free(c);
  stp__rng_free(d);
  stp__rng_free(NULL);
}

Test(rng, xoshiro_reference_values) {
  /* xoshiro256** from state {1, 2, 3, 4}: the reference implementation's
   * first outputs are 11520, 0, 1509978240, 1215971899390074240.  Lane 3
   * is given that state: its numbers are every STP_RNG_LANES-th of the
   * stream, from the fourth (the interleaving of rng.h). */
  stp_rng *r = stp__rng_alloc(0, 0);
  for (int w = 0; w < 4; w++)
    r->s[w][3] = (uint64_t)w + 1;
  const uint64_t ref[] = {UINT64_C(11520), 0, UINT64_C(1509978240),
                          UINT64_C(1215971899390074240)};
  for (int t = 0; t < 4; t++)
    for (int l = 0; l < STP_RNG_LANES; l++) {
      uint64_t x = stp__rng_next(r);
      if (l == 3)
        cr_assert_eq(x, ref[t], "step %d: %llu", t, (unsigned long long)x);
    }
  stp__rng_free(r);
}

Test(rng, refills_keep_the_stream) {
  /* Reading through refills at every position (uneven reads, forced
   * refills with unread numbers) gives the numbers of plain reading. */
  stp_rng *a = stp__rng_alloc(11, 2), *b = stp__rng_alloc(11, 2);
  for (int k = 0; k < 5000; k++) {
    if (k % 37 == 0)
      stp__rng_refill(b);
    cr_assert_eq(stp__rng_next(a), stp__rng_next(b), "number %d", k);
  }
  stp__rng_free(a);
  stp__rng_free(b);
}

Test(rng, uniform_ranges_and_t_quantile) {
  stp_rng *r = stp__rng_alloc(3, 0);
  for (int k = 0; k < 100000; k++) {
    double u = stp__rng_uniform(r), v = stp__rng_uniform_pos(r);
    cr_assert(u >= 0 && u < 1);
    cr_assert(v > 0 && v < 1);
  }
  stp__rng_free(r);
  /* t quantiles from the tables: t(0.975; 1) = 12.706, t(0.975; 19) = 2.093 */
  assert_close(stp__t_quantile(0.975, 1), 12.7062047, 1e-6);
  assert_close(stp__t_quantile(0.975, 19), 2.0930241, 1e-6);
}

/* ---- the "laws" key of mapping files ------------------------------------------------ */
#define MAPPING_HEAD                                                                        \
  "{\"stages\": [{\"name\": \"A\", \"work\": 2, \"output\": 1}, {\"name\": \"B\", "        \
  "\"work\": 3}], \"processors\": [{\"name\": \"P\", \"speed\": 1}, {\"name\": \"Q\", "     \
  "\"speed\": 1}], \"bandwidth\": 1, \"mapping\": [[\"P\"], [\"Q\"]]"

Test(reader_laws, table_is_stored) {
  stp_mapping *m = load_json(MAPPING_HEAD ", \"laws\": {\"default\": \"gamma:cv=0.5\", "
                             "\"stages\": {\"B\": \"det\"}, \"transfers\": {\"A\": \"exp\"}}}");
  cr_assert_not_null(m->laws);
  cr_assert_str_eq(m->laws->dflt->spec, "gamma:cv=0.5");
  cr_assert_null(m->laws->stage[0]);
  cr_assert_str_eq(m->laws->stage[1]->spec, "det");
  cr_assert_str_eq(m->laws->transfer[0]->spec, "exp");
  cr_assert_null(m->laws->transfer[1]);
  stp_mapping_free(m);
  m = load_json(MAPPING_HEAD "}");
  cr_assert_null(m->laws);
  stp_mapping_free(m);
}

Test(reader_laws, errors_have_positions) {
  /* `at`: the text the error points at (its first occurrence after "laws") */
  struct {
    const char *laws, *at, *want;
  } cases[] = {
      {"{\"stages\": {\"C\": \"exp\"}}", "\"C\"", "unknown stage \"C\" in \"laws\".\"stages\""},
      {"{\"stages\": {\"AA\": \"exp\"}}", "\"AA\"",
       "unknown stage \"AA\" in \"laws\".\"stages\" (did you mean \"A\"?)"},
      {"{\"transfers\": {\"B\": \"exp\"}}", "\"B\"",
       "\"B\" is the last stage: its output is not transferred"},
      {"{\"stages\": {\"A\": \"gamma:cv=-1\"}}", "\"gamma",
       "the law of stage \"A\": law \"gamma:cv=-1\": cv must be in [1e-06, 100], got -1"},
      {"{\"transfers\": {\"A\": \"weird\"}}", "\"weird",
       "the law of the transfers after stage \"A\": unknown law \"weird\""},
      {"{\"default\": 3}", "3", "the default law (laws.default) must be a string, not a number"},
      {"{\"defaults\": \"exp\"}", "\"defaults\"",
       "unknown key \"defaults\" in \"laws\" (did you mean \"default\"?)"},
      {"[\"exp\"]", "[", "\"laws\" (laws) must be an object, not an array"},
      {"{\"stages\": [\"exp\"]}", "[",
       "\"laws\".\"stages\" (laws.stages) must be an object, not an array"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char json[1024], want[1200];
    snprintf(json, sizeof json, MAPPING_HEAD ", \"laws\": %s}", cases[k].laws);
    const char *at = strstr(strstr(json, "\"laws\""), cases[k].at);
    snprintf(want, sizeof want, "test.json:1:%d: %s", (int)(at - json) + 1, cases[k].want);
    stp_status s;
    const char *msg = load_json_error(json, &s);
    cr_assert_eq(s, STP_EINVAL);
    cr_assert(strstr(msg, want), "case %zu: \"%s\" lacks \"%s\"", k, msg, want);
  }
}

Test(reader_laws, empirical_paths_resolve_against_the_mapping_file) {
  char *dir = make_dir();
  write_file(dir, "t.txt", "1 3\n");
  write_file(dir, "m.json",
             MAPPING_HEAD ", \"laws\": {\"stages\": {\"A\": \"empirical:t.txt\"}}}");
  char path[512];
  snprintf(path, sizeof path, "%s/m.json", dir);
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(path, &m, &err), STP_OK, "%s", err.message);
  cr_assert_eq(m->laws->stage[0]->nsamples, 2);
  assert_close(m->laws->stage[0]->samples[1], 1.5, TOL_EXACT);
  stp_mapping_free(m);
  remove_file(dir, "t.txt"); /* now the reference is dangling: a clear error */
  cr_assert_eq(stp_mapping_load_file(path, &m, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "t.txt: cannot open"), "%s", err.message);
  cr_assert(strstr(err.message, "m.json:1:"), "%s", err.message);
  remove_file(dir, "m.json");
  rmdir(dir);
  free(dir);
}
