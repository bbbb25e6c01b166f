/* test_graph_file.c: graph files (streamtp_graph_file.h): a written graph
 * reads back identical (names, times bit for bit, laws, outputs, places),
 * and each kind of bad content is refused at its own line and column. */
#include "testutil.h"
#include "streamtp_graph_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *read_error(const char *text, stp_status want) {
  static stp_error err;
  memset(&err, 0, sizeof err);
  stp_graph *g = (stp_graph *)1;
  stp_status s = stp_graph_read_string(text, strlen(text), "g.json", &g, &err);
  cr_assert_eq(s, want, "status %s for %s: %s", stp_status_name(s), text, err.message);
  cr_assert_null(g);
  return err.message;
}

#define assert_has(msg, needle) cr_assert(strstr((msg), (needle)), "\"%s\" lacks \"%s\"", (msg), (needle))

Test(graph_file, round_trip_of_an_exported_mapping) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/example-a.json", STP_SOURCE_DIR);
  stp_mapping *m;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(path, &m, &err), STP_OK, "%s", err.message);
  stp_graph *g, *h;
  cr_assert_eq(stp_mapping_graph(m, STP_MODEL_OVERLAP, &g, &err), STP_OK, "%s", err.message);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_eq(stp_graph_write_json(g, f, &err), STP_OK);
  fclose(f);
  cr_assert_eq(stp_graph_read_string(buf, len, "a.json", &h, &err), STP_OK, "%s", err.message);
  cr_assert_str_eq(stp_graph_name(h), stp_graph_name(g));
  cr_assert_eq(stp_graph_transition_count(h), stp_graph_transition_count(g));
  cr_assert_eq(stp_graph_place_count(h), stp_graph_place_count(g));
  cr_assert_eq(stp_graph_output_count(h), stp_graph_output_count(g));
  for (size_t t = 0; t < stp_graph_transition_count(g); t++) {
    cr_assert_str_eq(stp_graph_transition_name(h, t), stp_graph_transition_name(g, t));
    cr_assert_eq(stp_graph_transition_time(h, t), stp_graph_transition_time(g, t));
    cr_assert_eq(stp_graph_transition_is_output(h, t), stp_graph_transition_is_output(g, t));
  }
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    size_t a, b, c, d;
    uint64_t x, y;
    stp_graph_place(g, p, &a, &b, &x);
    stp_graph_place(h, p, &c, &d, &y);
    cr_assert(a == c && b == d && x == y);
  }
  free(buf);
  stp_graph_free(g);
  stp_graph_free(h);
  stp_mapping_free(m);
}

Test(graph_file, laws_names_and_defaults) {
  const char *text = "{\"transitions\": [{\"name\": \"a \\\"q\\\"\", \"time\": 1, \"law\": "
                     "\"gamma:cv=0.5\"}, {\"name\": \"b\", \"time\": 0.5}],\n"
                     " \"places\": [{\"from\": \"a \\\"q\\\"\", \"to\": \"b\"}]}";
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_graph_read_string(text, strlen(text), "dir/fork.json", &g, &err), STP_OK, "%s",
               err.message);
  cr_assert_str_eq(stp_graph_name(g), "fork");
  cr_assert_str_eq(stp_law_spec(stp_graph_transition_law(g, 0)), "gamma:cv=0.5");
  cr_assert_null(stp_graph_transition_law(g, 1));
  cr_assert(stp_graph_is_dag(g));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_eq(stp_graph_write_json(g, f, &err), STP_OK);
  fclose(f);
  assert_has(buf, "\"a \\\"q\\\"\"");
  assert_has(buf, "\"law\": \"gamma:cv=0.5\"");
  stp_graph *h;
  cr_assert_eq(stp_graph_read_string(buf, len, "x.json", &h, &err), STP_OK, "%s", err.message);
  cr_assert_str_eq(stp_graph_transition_name(h, 0), "a \"q\"");
  free(buf);
  stp_graph_free(g);
  stp_graph_free(h);
}

Test(graph_file, errors_at_their_place) {
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": 1},\n"
                        "  {\"name\": \"a\", \"time\": 2}]}", STP_EINVAL),
             "g.json:2:12: transition name \"a\" is used twice");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": 1}],\n"
                        " \"places\": [{\"from\": \"a\", \"to\": \"ab\"}]}", STP_EINVAL),
             "g.json:2:33: \"to\" \"ab\" is not a declared transition (did you mean \"a\"?)");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": 1}],\n"
                        " \"places\": [{\"from\": \"a\", \"to\": \"a\", \"tokens\": -1}]}",
                        STP_EINVAL),
             "g.json:2:48: tokens (places[0].tokens) must be an integer");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": 1}],\n"
                        " \"places\": [{\"from\": \"a\", \"to\": \"a\", \"tokens\": 1.5}]}",
                        STP_EINVAL),
             "g.json:2:48: tokens");
  assert_has(read_error("{\"transitions\": []}", STP_EINVAL), "g.json:1:17: the graph has no "
             "transition");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": -1}]}", STP_EINVAL),
             "g.json:1:40: time (transitions[0].time) must be >= 0");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"tme\": 1}]}", STP_EINVAL),
             "unknown key \"tme\" in a transition (did you mean \"time\"?)");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": 1},\n"
                        "{\"name\": \"b\", \"time\": 1}],\n"
                        " \"places\": [{\"from\": \"a\", \"to\": \"b\"}, {\"from\": \"b\", "
                        "\"to\": \"a\"}]}", STP_EDEADLOCK),
             "g.json:3:2: ");
  assert_has(read_error("{\"transitions\": [{\"name\": \"a\", \"time\": 1},\n"
                        "{\"name\": \"b\", \"time\": 0}],\n"
                        " \"places\": [{\"from\": \"a\", \"to\": \"b\", \"tokens\": 1}]}",
                        STP_EINVAL),
             "g.json:2:23: transition \"b\": time 0 in a graph with tokens");
  char nul[] = "{\"transitions\":\n [ ]}";
  nul[18] = '\0';
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_graph_read_string(nul, sizeof nul - 1, "g.json", &g, &err), STP_EINVAL);
  assert_has(err.message, "g.json:2:3: a NUL byte");
}
