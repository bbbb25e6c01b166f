/* test_gsl_handler.c: the library leaves GSL's process-wide error handler
 * alone (issue 13, item 9).  A host installs its own handler; parsing every
 * law, sampling from it through a simulation, and the Student quantile of
 * the confidence intervals must neither replace the handler nor call it. */
#include "streamtp.h"
#include "streamtp_law.h"
#include "testutil.h"

#include <gsl/gsl_errno.h>

static int calls;
static void host_handler(const char *reason, const char *file, int line, int gsl_errno) {
  (void)reason, (void)file, (void)line, (void)gsl_errno;
  calls++;
}

Test(gsl_handler, library_never_replaces_or_calls_it) {
  gsl_set_error_handler(host_handler);
  static const char *const specs[] = {"exp",        "uniform:spread=0.5", "gamma:cv=0.5",
                                      "weibull:cv=2", "weibull:cv=0.01",  "lognormal:cv=1",
                                      "normal:cv=0.3", "beta:a=2,b=3",    "erlang:k=40",
                                      "hyperexp:cv=3"};
  stp_mapping *m = load_json("{\"stages\":[{\"work\":2,\"output\":1},{\"work\":1}],"
                             "\"processors\":[{\"name\":\"A\",\"speed\":1},{\"name\":\"B\","
                             "\"speed\":1},{\"name\":\"C\",\"speed\":1}],\"bandwidth\":1,"
                             "\"mapping\":[[\"A\",\"C\"],[\"B\"]]}");
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    stp_law *law = NULL;
    stp_error err = {0};
    cr_assert_eq(stp_law_parse(specs[k], NULL, &law, &err), STP_OK, "%s", err.message);
    stp_sim_options o;
    stp_sim_options_init(&o);
    o.law = law;
    o.datasets = 2000;
    o.bounds = 0;
    stp_sim_result *r = NULL;
    cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_OK, "%s: %s", specs[k],
                 err.message);
    cr_assert(r->throughput > 0 && r->ci_low <= r->throughput && r->throughput <= r->ci_high);
    stp_sim_result_free(r);
    stp_law_free(law);
  }
  stp_mapping_free(m);
  cr_assert_eq(gsl_set_error_handler(NULL), host_handler, "the library replaced the handler");
  cr_assert_eq(calls, 0, "GSL reported %d errors", calls);
}
