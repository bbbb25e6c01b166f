/* numfmt.c: locale-independent number conversion (numfmt.h) and
 * stp_format_double, the shortest text that reads back to the same double.
 * One C locale object is made once (newlocale) and used per call: strtod_l
 * for reading, uselocale around the printf family for writing (uselocale is
 * per thread, so batch workers and the host's other threads are unaffected).
 * The library never calls setlocale.  Should newlocale fail (no memory at
 * start), the process's locale is used as it is. */
#define _GNU_SOURCE /* strtod_l */
#include "base/numfmt.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t c_once = PTHREAD_ONCE_INIT;
static locale_t c_locale = (locale_t)0;

static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t get_c_locale(void) {
  pthread_once(&c_once, make_c_locale);
  return c_locale;
}

void *stp__c_locale_enter(void) {
  locale_t c = get_c_locale();
  return c ? (void *)uselocale(c) : NULL;
}

void stp__c_locale_leave(void *previous) {
  if (previous)
    uselocale((locale_t)previous);
}

double stp__strtod(const char *s, char **end) {
  locale_t c = get_c_locale();
  return c ? strtod_l(s, end, c) : strtod(s, end);
}

int stp__vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) {
  void *old = stp__c_locale_enter();
  int r = vsnprintf(buf, n, fmt, ap);
  stp__c_locale_leave(old);
  return r;
}

int stp__snprintf(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = stp__vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return r;
}

int stp__fprintf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  void *old = stp__c_locale_enter();
  int r = vfprintf(f, fmt, ap);
  stp__c_locale_leave(old);
  va_end(ap);
  return r;
}

/* %.15g is exact for most decimal inputs (0.2, 1e-3); 16 and 17 digits
 * cover the rest (17 always round-trips an IEEE double). */
int stp_format_double(double x, char *buf, size_t n) {
  if (!buf || n == 0)
    return -1;
  if (!isfinite(x))
    return stp__snprintf(buf, n, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
  char tmp[32];
  for (int digits = 15; digits <= 17; digits++) {
    stp__snprintf(tmp, sizeof tmp, "%.*g", digits, x);
    if (stp__strtod(tmp, NULL) == x)
      break;
  }
  return snprintf(buf, n, "%s", tmp);
}
