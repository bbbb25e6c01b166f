/* test_locale.c: numbers read and written the same under any LC_NUMERIC
 * (issue 13, item 8), and stp_format_double's shortest round-trip form.
 * A host program (Python, R, a GUI) may call setlocale with a locale whose
 * decimal point is a comma; the locale tests switch to de_DE.UTF-8, making
 * it with localedef when the system lacks it, and are skipped with a
 * message when it cannot be made. */
#define _GNU_SOURCE /* strtod_l */
#include "streamtp.h"
#include "streamtp_law.h"
#include "testutil.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool use_german(void) {
  if (setlocale(LC_ALL, "de_DE.UTF-8"))
    return true;
  if (system("localedef -i de_DE -f UTF-8 de_DE.UTF-8 >/dev/null 2>&1") != 0)
    return false;
  return setlocale(LC_ALL, "de_DE.UTF-8") != NULL;
}

#define GERMAN_OR_SKIP()                                                                   \
  do {                                                                                     \
    if (!use_german())                                                                     \
      cr_skip_test("de_DE.UTF-8 is not available and localedef could not make it");       \
    cr_assert_str_eq(localeconv()->decimal_point, ",", "the locale must use a comma");     \
  } while (0)

static double c_strtod(const char *s) {
  locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  double x = strtod_l(s, NULL, c);
  freelocale(c);
  return x;
}

Test(locale, law_specs_parse_under_a_comma_locale) {
  GERMAN_OR_SKIP();
  stp_law *law = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse("gamma:cv=0.5", NULL, &law, &err), STP_OK, "%s", err.message);
  cr_assert_str_eq(stp_law_spec(law), "gamma:cv=0.5");
  stp_law_free(law);
  cr_assert_eq(stp_law_parse("beta:a=2.5,b=0.75", NULL, &law, &err), STP_OK, "%s", err.message);
  stp_law_free(law);
  /* and "0,5" stays refused, as under the C locale */
  cr_assert_eq(stp_law_parse("gamma:cv=0,5", NULL, &law, &err), STP_EINVAL);
}

Test(locale, mapping_numbers_and_messages_under_a_comma_locale) {
  GERMAN_OR_SKIP();
  stp_mapping *m = load_json("{\"stages\":[{\"work\":2.5,\"output\":0.5},{\"work\":1}],"
                             "\"processors\":[{\"name\":\"A\",\"speed\":0.5},{\"name\":\"B\","
                             "\"speed\":1}],\"bandwidth\":0.25,\"mapping\":[[\"A\"],[\"B\"]]}");
  assert_close(stp__comp_time(m, 0), 5.0, TOL_EXACT);
  assert_close(stp__comm_time(m, 0, 1), 2.0, TOL_EXACT);
  stp_mapping_free(m);
  stp_status st;
  const char *msg = load_json_error("{\"stages\":[{\"work\":-2.5}],\"processors\":[{\"name\":\"A\","
                                    "\"speed\":1}],\"mapping\":[[\"A\"]]}", &st);
  cr_assert(strstr(msg, "got -2.5"), "%s", msg);
}

Test(locale, dot_output_under_a_comma_locale) {
  GERMAN_OR_SKIP();
  stp_mapping *m = load_json("{\"stages\":[{\"work\":2.5,\"output\":1},{\"work\":1}],"
                             "\"processors\":[{\"name\":\"A\",\"speed\":1},{\"name\":\"B\","
                             "\"speed\":1}],\"bandwidth\":1,\"mapping\":[[\"A\"],[\"B\"]]}");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stp_error err = {0};
  cr_assert_eq(stp_mapping_write_dot(m, STP_MODEL_OVERLAP, 1000, f, &err), STP_OK);
  fclose(f);
  cr_assert(strstr(buf, "2.5"), "%s", buf);
  cr_assert_null(strstr(buf, "2,5"), "%s", buf);
  free(buf);
  stp_mapping_free(m);
}

Test(locale, format_double_under_a_comma_locale) {
  GERMAN_OR_SKIP();
  char buf[32];
  stp_format_double(0.2, buf, sizeof buf);
  cr_assert_str_eq(buf, "0.2");
}

/* Shortest round trip: the fewest of 15, 16, 17 digits that read back to
 * exactly the same double, checked against strtod in the C locale. */
Test(format_double, shortest_round_trip) {
  static const struct {
    double x;
    const char *want;
  } known[] = {{0.2, "0.2"},
               {1.0 / 3, "0.3333333333333333"},
               {0.1 + 0.2, "0.30000000000000004"},
               {1e22, "1e+22"},
               {5.0, "5"},
               {-189.0, "-189"},
               {0.005291005291005291, "0.005291005291005291"}};
  char buf[32];
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
    stp_format_double(known[k].x, buf, sizeof buf);
    cr_expect_str_eq(buf, known[k].want);
  }
  trng r = {.s = 5};
  for (int k = 0; k < 20000; k++) {
    uint64_t bits = trng_next(&r);
    double x;
    memcpy(&x, &bits, sizeof x);
    if (!isfinite(x))
      continue;
    stp_format_double(x, buf, sizeof buf);
    cr_assert_eq(c_strtod(buf), x, "%s does not read back to %.17g", buf, x);
    char want[40]; /* the first of %.15g, %.16g, %.17g that reads back */
    for (int digits = 15; digits <= 17; digits++) {
      snprintf(want, sizeof want, "%.*g", digits, x);
      if (c_strtod(want) == x)
        break;
    }
    cr_assert_str_eq(buf, want);
  }
  stp_format_double(INFINITY, buf, sizeof buf);
  cr_assert_str_eq(buf, "inf");
  stp_format_double(NAN, buf, sizeof buf);
  cr_assert_str_eq(buf, "nan");
}
