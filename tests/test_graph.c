/* test_graph.c: the generic event graph's builder, accessors and checks
 * (include/streamtp_graph.h): names hashed and found back on large graphs,
 * every refusal of the builder, and the deadlock / empty / time checks of
 * stp_graph_check with the offending cycle named. */
#include "graphutil.h"
#include "testutil.h"
#include "streamtp_graph.h"

#include <stdio.h>
#include <string.h>

static stp_graph *new_graph(void) { return tg_new(); }

static size_t add(stp_graph *g, const char *name, double time) {
  return tg_add(g, name, time, NULL);
}

static void place(stp_graph *g, size_t a, size_t b, uint64_t tokens) {
  tg_place(g, a, b, tokens);
}

Test(graph, build_and_read_back) {
  stp_graph *g = new_graph();
  stp_law *law = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse("gamma:cv=0.5", NULL, &law, &err), STP_OK);
  size_t a = add(g, "a", 2.5), c = SIZE_MAX;
  cr_assert_eq(stp_graph_add_transition(g, "c", 0, law, &c, &err), STP_OK);
  place(g, a, c, 0);
  place(g, c, a, 3);
  cr_assert_str_eq(stp_graph_name(g), "g");
  cr_assert_eq(stp_graph_transition_count(g), 2);
  cr_assert_eq(stp_graph_place_count(g), 2);
  cr_assert_eq(a, 0);
  cr_assert_eq(c, 1);
  cr_assert_str_eq(stp_graph_transition_name(g, 1), "c");
  cr_assert_eq(stp_graph_transition_time(g, 0), 2.5);
  cr_assert_null(stp_graph_transition_law(g, 0));
  cr_assert_str_eq(stp_law_spec(stp_graph_transition_law(g, 1)), "gamma:cv=0.5");
  size_t from, to;
  uint64_t tok;
  stp_graph_place(g, 1, &from, &to, &tok);
  cr_assert(from == 1 && to == 0 && tok == 3);
  cr_assert_eq(stp_graph_is_dag(g), 0);
  size_t t;
  cr_assert_eq(stp_graph_find(g, "c", &t, &err), STP_OK);
  cr_assert_eq(t, 1);
  cr_assert_eq(stp_graph_find(g, "zz", &t, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "zz"), "%s", err.message);
  stp_graph_free(g);
  stp_graph_free(NULL);
}

/* 200 000 names through the hash table (the table grows many times), each
 * found back at its own index, and a duplicate refused. */
Test(graph, many_names) {
  stp_graph *g = new_graph();
  char name[32];
  const size_t n = 200000;
  for (size_t i = 0; i < n; i++) {
    snprintf(name, sizeof name, "r%zu:T%zu@P%zu", i % 7, i, i % 13);
    cr_assert_eq(add(g, name, 1.0), i);
  }
  stp_error err = {0};
  for (size_t i = 0; i < n; i += 997) {
    snprintf(name, sizeof name, "r%zu:T%zu@P%zu", i % 7, i, i % 13);
    size_t t;
    cr_assert_eq(stp_graph_find(g, name, &t, &err), STP_OK);
    cr_assert_eq(t, i);
  }
  cr_assert_eq(stp_graph_add_transition(g, "r3:T3@P3", 1.0, NULL, NULL, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "duplicate"), "%s", err.message);
  cr_assert_eq(stp_graph_transition_count(g), n);
  stp_graph_free(g);
}

Test(graph, builder_refusals) {
  stp_graph *g = new_graph();
  stp_error err = {0};
  cr_assert_eq(stp_graph_add_transition(g, "", 1, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_transition(g, "x", -1, NULL, NULL, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "'x'"), "%s", err.message);
  cr_assert_eq(stp_graph_add_transition(g, "x", NAN, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_transition(g, "x", INFINITY, NULL, NULL, &err), STP_EINVAL);
  /* the law is taken over even on failure (ASan would report a leak) */
  stp_law *law = NULL;
  cr_assert_eq(stp_law_parse("exp", NULL, &law, &err), STP_OK);
  cr_assert_eq(stp_graph_add_transition(g, "", 1, law, NULL, &err), STP_EINVAL);
  size_t a = add(g, "a", 1);
  cr_assert_eq(stp_graph_add_place(g, a, 5, 0, &err), STP_EINVAL);
  cr_assert_eq(stp_graph_add_place(g, a, a, STP_GRAPH_MAX_TOKENS + 1, &err), STP_ELIMIT);
  cr_assert_eq(stp_graph_place_count(g), 0);
  stp_graph_free(g);
}

Test(graph, check_empty) {
  stp_graph *g = new_graph();
  stp_error err = {0};
  cr_assert_eq(stp_graph_check(g, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "no transition"), "%s", err.message);
  stp_graph_free(g);
}

Test(graph, check_dag_cycle_named) {
  stp_graph *g = new_graph();
  size_t s = add(g, "s", 1), a = add(g, "a", 1), b = add(g, "b", 0), c = add(g, "c", 2);
  place(g, s, a, 0);
  place(g, a, b, 0);
  place(g, b, c, 0);
  stp_error err = {0};
  cr_assert_eq(stp_graph_check(g, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp_graph_is_dag(g), 1);
  place(g, c, a, 0);
  cr_assert_eq(stp_graph_check(g, &err), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "a -> b -> c"), "%s", err.message);
  cr_assert_null(strstr(err.message, "s ->"), "%s", err.message);
  stp_graph_free(g);
}

Test(graph, check_teg) {
  stp_graph *g = new_graph();
  size_t a = add(g, "a", 1), b = add(g, "b", 2), c = add(g, "c", 3);
  place(g, a, b, 0);
  place(g, b, a, 1);
  place(g, b, c, 0);
  stp_error err = {0};
  cr_assert_eq(stp_graph_check(g, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp_graph_is_dag(g), 0);
  /* a token-free self-loop is a one-transition deadlock */
  place(g, c, c, 0);
  cr_assert_eq(stp_graph_check(g, &err), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "the cycle c holds no token"), "%s", err.message);
  stp_graph_free(g);

  /* a token-free cycle beside a marked one */
  g = new_graph();
  a = add(g, "a", 1), b = add(g, "b", 2), c = add(g, "c", 3);
  size_t d = add(g, "d", 1);
  place(g, a, b, 1);
  place(g, b, a, 0);
  place(g, c, d, 0);
  place(g, d, c, 0);
  cr_assert_eq(stp_graph_check(g, &err), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "c -> d"), "%s", err.message);
  stp_graph_free(g);

  /* a zero time is fine in a DAG, refused in a TEG */
  g = new_graph();
  a = add(g, "a", 1), b = add(g, "z", 0);
  place(g, a, b, 0);
  cr_assert_eq(stp_graph_check(g, &err), STP_OK, "%s", err.message);
  place(g, b, a, 1);
  cr_assert_eq(stp_graph_check(g, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "'z'"), "%s", err.message);
  stp_graph_free(g);
}

Test(graph, options_init) {
  stp_graph_options o;
  memset(&o, 0xff, sizeof o);
  stp_graph_options_init(&o);
  cr_assert_eq(o.max_states, STP_GRAPH_DEFAULT_MAX_STATES);
  cr_assert_eq(o.exponential, 1);
  cr_assert_null(o.control.cancel.fn);
}
