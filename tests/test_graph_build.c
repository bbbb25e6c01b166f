/* test_graph_build.c: the builder and the checks of the generic event graph
 * (include/streamtp_graph.h): names, limits, and the cycle that a DAG must
 * not have or a timed event graph must mark. */
#include "streamtp_graph.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static stp_graph *chain(const char *const *names, const double *times, size_t n) {
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_graph_new("g", &g, &err), STP_OK);
  for (size_t i = 0; i < n; i++)
    cr_assert_eq(stp_graph_add_transition(g, names[i], times[i], NULL, NULL, &err), STP_OK, "%s",
                 err.message);
  for (size_t i = 0; i + 1 < n; i++) cr_assert_eq(stp_graph_add_place(g, i, i + 1, 0, &err), STP_OK);
  return g;
}

Test(graph_build, names_are_found_among_many) {
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_graph_new(NULL, &g, &err), STP_OK);
  char name[32];
  for (size_t i = 0; i < 100000; i++) {
    snprintf(name, sizeof name, "t%zu", i);
    size_t at;
    cr_assert_eq(stp_graph_add_transition(g, name, (double)i, NULL, &at, &err), STP_OK);
    cr_assert_eq(at, i);
  }
  for (size_t i = 0; i < 100000; i += 997) {
    snprintf(name, sizeof name, "t%zu", i);
    size_t t;
    cr_assert_eq(stp_graph_find(g, name, &t, &err), STP_OK);
    cr_assert_eq(t, i);
    cr_assert_eq(stp_graph_transition_time(g, t), (double)i);
  }
  size_t t;
  cr_assert_eq(stp_graph_find(g, "t100000", &t, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "t100000"));
  cr_assert_eq(stp_graph_add_transition(g, "t5", 1, NULL, NULL, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "duplicate"), "%s", err.message);
  cr_assert_eq(stp_graph_transition_count(g), 100000);
  stp_graph_free(g);
}

Test(graph_build, bad_times_and_places) {
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_graph_new("g", &g, &err), STP_OK);
  cr_assert_eq(stp_graph_add_transition(g, "a", -1, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_transition(g, "a", NAN, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_transition(g, "a", INFINITY, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_transition(g, "", 1, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_check(g, &err), STP_EINVAL, "an empty graph is refused");
  cr_assert_eq(stp_graph_add_transition(g, "a", 0, NULL, NULL, &err), STP_OK);
  cr_assert_eq(stp_graph_add_place(g, 0, 1, 0, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_place(g, 0, 0, STP_GRAPH_MAX_TOKENS + 1, &err), STP_ELIMIT);
  cr_assert_eq(stp_graph_add_place(g, 0, 0, 1, &err), STP_OK);
  cr_assert_eq(stp_graph_check(g, &err), STP_EINVAL, "time 0 with tokens");
  cr_assert(strstr(err.message, "'a'"), "%s", err.message);
  stp_graph_free(g);
}

Test(graph_build, a_dag_with_a_cycle_names_it) {
  const char *names[] = {"a", "b", "c", "d"};
  const double t[] = {1, 2, 3, 4};
  stp_graph *g = chain(names, t, 4);
  stp_error err = {0};
  cr_assert_eq(stp_graph_check(g, &err), STP_OK);
  cr_assert(stp_graph_is_dag(g));
  cr_assert_eq(stp_graph_add_place(g, 3, 1, 0, &err), STP_OK); /* d -> b closes b c d */
  cr_assert_eq(stp_graph_check(g, &err), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "b") && strstr(err.message, "c") && strstr(err.message, "d") &&
                !strstr(err.message, "a ->"),
            "%s", err.message);
  stp_graph_free(g);
}

Test(graph_build, a_teg_needs_a_token_on_every_cycle) {
  const char *names[] = {"a", "b", "c"};
  const double t[] = {1, 2, 3};
  stp_graph *g = chain(names, t, 3);
  stp_error err = {0};
  cr_assert_eq(stp_graph_add_place(g, 2, 0, 1, &err), STP_OK);
  cr_assert_eq(stp_graph_check(g, &err), STP_OK);
  cr_assert(!stp_graph_is_dag(g));
  cr_assert_eq(stp_graph_add_place(g, 2, 1, 0, &err), STP_OK); /* c -> b: b c unmarked */
  cr_assert_eq(stp_graph_check(g, &err), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "deadlock") && strstr(err.message, "b") &&
                strstr(err.message, "c"),
            "%s", err.message);
  size_t from, to;
  uint64_t tok;
  stp_graph_place(g, 2, &from, &to, &tok);
  cr_assert(from == 2 && to == 0 && tok == 1);
  cr_assert_eq(stp_graph_place_count(g), 4);
  stp_graph_free(g);
}
