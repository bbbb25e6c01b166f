/* fuzz_law_parse.h: the check fuzz_law and fuzz_samples make of one law
 * spec: stp_law_parse accepts it or refuses it with a message (a refusal
 * without one aborts, which libFuzzer reports).  What it accepts must read
 * back from its own spec (stp_law_spec) to the same spec, and a phase-type
 * law must give the closed forms of the smallest graphs (fuzz_check.h): one
 * transition of mean time 2 as a DAG has E[makespan] = 2 whatever the law,
 * and with a self-loop of one token (a renewal process) throughput 1/2. */
#ifndef STP_FUZZ_LAW_PARSE_H
#define STP_FUZZ_LAW_PARSE_H

#include "fuzz_check.h"
#include "streamtp.h"
#include "streamtp_law.h"

#include <stdlib.h>
#include <string.h>

/* The exact value of one transition of time 2 under law (a copy: the graph
 * owns its laws), with a self-loop when loop. */
static inline void fuzz_law_closed_form(const stp_law *law, int loop) {
  stp_graph *g = NULL;
  stp_error err = {0};
  if (stp_graph_new("one", &g, &err) != STP_OK)
    return;
  size_t t;
  if (stp_graph_add_transition(g, "t", 2.0, NULL, &t, &err) == STP_OK &&
      (!loop || stp_graph_add_place(g, t, t, 1, &err) == STP_OK)) {
    stp_graph_options o;
    stp_graph_options_init(&o);
    o.law = law;
    stp_graph_result r;
    if (stp_graph_analyze(g, &o, &r, &err) == STP_OK) {
      fuzz_check_graph_result(&r);
      if (!r.law_computed)
        fuzz_fail(r.law_reason, (double)stp_law_phases(law), 0);
      fuzz_near(loop ? "law: renewal throughput = 1 / mean" : "law: E[one time] = its mean",
                r.law_value, loop ? 0.5 : 2.0);
      stp_graph_result_free(&r);
    } else {
      fuzz_refusal(&err);
    }
  }
  stp_graph_free(g);
}

static inline void fuzz_law_parse(const char *spec) {
  stp_law *law = NULL;
  stp_error err = {0};
  if (stp_law_parse(spec, NULL, &law, &err) != STP_OK) {
    fuzz_refusal(&err);
    return;
  }
  stp_law *again = NULL;
  if (stp_law_parse(stp_law_spec(law), NULL, &again, &err) != STP_OK)
    fuzz_fail("law: its own spec is refused", 0, 0);
  if (strcmp(stp_law_spec(again), stp_law_spec(law)) != 0)
    fuzz_fail("law: its spec reads back to another", 0, 0);
  stp_law_free(again);
  if (stp_law_phases(law) > 0 && stp_law_phases(law) <= 256) {
    fuzz_law_closed_form(law, 0);
    fuzz_law_closed_form(law, 1);
  }
  stp_law_free(law);
}

#endif
