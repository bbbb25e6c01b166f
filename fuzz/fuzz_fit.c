/* fuzz_fit.c: libFuzzer target of the sample files of ph:fit= laws (and of
 * empirical:, which shares their reader): the first byte picks the law, the
 * rest is written to a private temporary file that stp_law_parse reads.
 * Beyond fuzz_law_parse.h's checks (a refusal says why, the spec reads
 * back, one transition of mean 2 gives 2 and its renewal 1/2), a fit must
 * have finite moments or be refused (issue 34):
 *   - at least 3 samples, the samples' moments (scaled to mean 1) finite
 *     with m1 = 1, m2 >= m1^2 and m1 m3 >= m2^2 (moments of a law);
 *   - the law p Erlang(k, r0) + (1 - p) Erlang(k, r1) with p in [0, 1] and
 *     finite positive rates, whose moments, computed here from p, k and the
 *     rates (E[Erlang(k, r)^j] = k (k+1) ... (k+j-1) / r^j), are the ones
 *     reported, mean 1, and the samples' own up to moment_error;
 *   - when every byte of the file is a digit, a point, a blank, a comma or
 *     a line break, the numbers read again here with strtod give the same
 *     count and second moment. */
#include "fuzz_law_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void remove_file(void) { unlink(path); }

/* Relative difference of moments computed two ways in double precision. */
#define FIT_SLACK 1e-6

static void near_rel(const char *what, double a, double b, double tol) {
  fuzz_finite(what, a);
  fuzz_finite(what, b);
  if (!(fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) + 1e-300))
    fuzz_fail(what, a, b);
}

/* E[X^j], j = 1..3, of p Erlang(k, r0) + (1 - p) Erlang(k, r1). */
static void mixture_moments(const stp_law_fit *q, double m[3]) {
  double rising = 1;
  for (int j = 0; j < 3; j++) {
    rising *= q->order + j;
    m[j] = q->p * rising / pow(q->rate[0], j + 1) + (1 - q->p) * rising / pow(q->rate[1], j + 1);
  }
}

/* The count and E[x^2] / E[x]^2 of a file of plain numbers, read with
 * strtod; 0 when the file holds anything else (the reader's comments, signs,
 * exponents and words are left to the fuzzer's other checks). */
static size_t plain_numbers(const uint8_t *d, size_t n, double *m2) {
  for (size_t k = 0; k < n; k++)
    if (!strchr("0123456789. \t\r\n,", d[k]) || d[k] == 0)
      return 0;
  char *text = malloc(n + 1);
  if (!text)
    return 0;
  memcpy(text, d, n);
  text[n] = '\0';
  size_t count = 0;
  long double sum = 0, sum2 = 0;
  for (char *tok = strtok(text, " \t\r\n,"); tok; tok = strtok(NULL, " \t\r\n,")) {
    char *end;
    double v = strtod(tok, &end);
    if (*end || !isfinite(v)) { /* "1.2.3", ".": the reader refuses them */
      free(text);
      return 0;
    }
    count++;
    sum += v;
    sum2 += (long double)v * v;
  }
  free(text);
  if (count && sum > 0)
    *m2 = (double)(sum2 / count / ((sum / count) * (sum / count)));
  return count;
}

static void check_fit(const stp_law *law, const uint8_t *data, size_t size) {
  stp_law_fit q;
  if (!stp_law_fit_quality(law, &q))
    fuzz_fail("fit: a ph:fit= law without its fit", 0, 0);
  if (q.samples < 3)
    fuzz_fail("fit: fewer than 3 samples fitted", (double)q.samples, 0);
  const double *s = q.sample_moments, *l = q.law_moments;
  near_rel("fit: sample mean (scaled) = 1", s[0], 1, FIT_SLACK);
  fuzz_le("fit: sample m1^2 <= m2", s[0] * s[0], s[1]);
  fuzz_le("fit: sample m2^2 <= m1 m3", s[1] * s[1], s[0] * s[2]);
  if (!(q.p >= 0 && q.p <= 1))
    fuzz_fail("fit: weight outside [0, 1]", q.p, 0);
  for (int b = 0; b < 2; b++)
    if (!(q.rate[b] > 0) || !isfinite(q.rate[b]))
      fuzz_fail("fit: a rate that is not finite and positive", q.rate[b], b);
  if (q.order < 1 || q.phases < q.order || q.phases != stp_law_phases(law))
    fuzz_fail("fit: order and phases", q.order, q.phases);
  double m[3];
  mixture_moments(&q, m);
  for (int j = 0; j < 3; j++)
    near_rel("fit: law moment = that of its mixture", l[j], m[j], FIT_SLACK);
  near_rel("fit: law mean = 1", l[0], 1, FIT_SLACK);
  fuzz_le("fit: moment_error >= 0", 0, q.moment_error);
  for (int j = 0; j < 3; j++)
    near_rel("fit: law moment = sample moment, up to moment_error", l[j], s[j],
             q.moment_error + FIT_SLACK);
  if (!(q.ks >= 0 && q.ks <= 1))
    fuzz_fail("fit: Kolmogorov-Smirnov distance outside [0, 1]", q.ks, 0);
  double m2 = NAN;
  size_t count = plain_numbers(data, size, &m2);
  if (count) {
    if (count != q.samples)
      fuzz_fail("fit: samples counted here and by the reader", (double)count, (double)q.samples);
    near_rel("fit: second moment computed here and by the reader", m2, s[1], 1e-9);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/stp-fuzz-fit-%ld.txt", (long)getpid());
    atexit(remove_file);
  }
  if (size == 0)
    return 0;
  int fit = data[0] % 4 != 0; /* mostly ph:fit=, sometimes empirical: */
  data++, size--;
  if (!fuzz_write_file(path, data, size))
    return 0;
  char spec[96];
  snprintf(spec, sizeof spec, "%s%s", fit ? "ph:fit=" : "empirical:", path);
  fuzz_law_parse(spec);
  stp_law *law = NULL;
  stp_error err = {0};
  if (stp_law_parse(spec, NULL, &law, &err) != STP_OK) {
    fuzz_refusal(&err);
    return 0;
  }
  if (fit)
    check_fit(law, data, size);
  else if (stp_law_fit_quality(law, &(stp_law_fit){0}))
    fuzz_fail("fit: an empirical law with a fit", 0, 0);
  stp_law_free(law);
  return 0;
}
