/* graphutil.c: see graphutil.h. */
#include "graphutil.h"

#include <criterion/criterion.h>
#include <stdio.h>

stp_graph *tg_new(void) {
  stp_graph *g = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_graph_new("g", &g, &err), STP_OK, "%s", err.message);
  return g;
}

size_t tg_add(stp_graph *g, const char *name, double time, stp_law *law) {
  char auto_name[32];
  if (!name) {
    snprintf(auto_name, sizeof auto_name, "t%zu", stp_graph_transition_count(g));
    name = auto_name;
  }
  size_t t = SIZE_MAX;
  stp_error err = {0};
  cr_assert_eq(stp_graph_add_transition(g, name, time, law, &t, &err), STP_OK, "%s",
               err.message);
  return t;
}

void tg_place(stp_graph *g, size_t a, size_t b, uint64_t tokens) {
  stp_error err = {0};
  cr_assert_eq(stp_graph_add_place(g, a, b, tokens, &err), STP_OK, "%s", err.message);
}
