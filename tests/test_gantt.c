/* test_gantt.c: the Gantt writer of streamtp_gantt.h called as a library
 * (the CLI's charts are checked by tests/gantt/check.py): a mapping's rows
 * are its ports and processors in stage then team order, written out here
 * by hand; on a two-stage mapping whose bottleneck is known in closed form
 * (P0 computes 2 per data set, every other resource less) the critical bars
 * are exactly P0's, back to back; a graph's rows are its resources in
 * first use; refusals (periods out of range, periods of a DAG) write
 * nothing and name no command-line option; rsvg-convert renders a chart. */
#include "streamtp_build.h"
#include "streamtp_gantt.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The chart as text; the status in *st. */
static char *chart_mapping(const stp_mapping *m, stp_model model, const stp_gantt_options *o,
                           stp_status *st, stp_error *err) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  *st = stp_mapping_gantt_svg(m, model, o, f, err);
  fclose(f);
  return buf;
}

static char *chart_graph(const stp_graph *g, const stp_gantt_options *o, stp_status *st,
                         stp_error *err) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  *st = stp_graph_gantt_svg(g, o, f, err);
  fclose(f);
  return buf;
}

/* The row labels (texts of class "row"), joined by '|'. */
static void row_labels(const char *svg, char *out, size_t cap) {
  out[0] = 0;
  const char *key = "class=\"row\">";
  for (const char *p = strstr(svg, key); p; p = strstr(p + 1, key)) {
    p += strlen(key);
    size_t n = (size_t)(strchr(p, '<') - p), at = strlen(out);
    cr_assert(at + n + 2 < cap);
    if (at)
      out[at++] = '|';
    memcpy(out + at, p, n);
    out[at + n] = 0;
  }
}

/* The value of attribute a in the element that starts at p. */
static double attr_num(const char *p, const char *a) {
  char key[32];
  snprintf(key, sizeof key, " %s=\"", a);
  const char *v = strstr(p, key), *end = strchr(p, '>');
  cr_assert(v && v < end, "no %s", a);
  return strtod(v + strlen(key), NULL);
}

static bool attr_is(const char *p, const char *a, const char *want) {
  char key[64];
  snprintf(key, sizeof key, " %s=\"%s\"", a, want);
  const char *v = strstr(p, key), *end = strchr(p, '>');
  return v && v < end;
}

static stp_mapping *example_a(void) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(STP_SOURCE_DIR "/examples/example-a.json", &m, &err), STP_OK,
               "%s", err.message);
  return m;
}

Test(gantt, example_a_rows_overlap) {
  stp_mapping *m = example_a();
  stp_status st;
  stp_error err = {0};
  char *svg = chart_mapping(m, STP_MODEL_OVERLAP, NULL, &st, &err);
  cr_assert_eq(st, STP_OK, "%s", err.message);
  char rows[1024];
  row_labels(svg, rows, sizeof rows);
  cr_assert_str_eq(rows, "P0|P0 out|P1 in|P1|P1 out|P2 in|P2|P2 out|P3 in|P3|P3 out|P4 in|P4|"
                         "P4 out|P5 in|P5|P5 out|P6 in|P6");
  cr_assert(strstr(svg, "class=\"legend\""), "a legend");
  cr_assert(strstr(svg, ">time (units of the file)<"), "the time unit");
  free(svg);
  stp_mapping_free(m);
}

Test(gantt, example_a_rows_strict) {
  stp_mapping *m = example_a();
  stp_status st;
  stp_error err = {0};
  char *svg = chart_mapping(m, STP_MODEL_STRICT, NULL, &st, &err);
  cr_assert_eq(st, STP_OK, "%s", err.message);
  char rows[1024];
  row_labels(svg, rows, sizeof rows);
  cr_assert_str_eq(rows, "P0|P1|P2|P3|P4|P5|P6");
  free(svg);
  stp_mapping_free(m);
}

/* P0 (speed 1) computes T1 (work 2), sends 1 at bandwidth 1 to P1 or P2
 * (speed 1) which compute T2 (work 3): per data set P0 computes 2, its out
 * port sends 1, P1 and P2 each compute 3 every other data set (1.5): P0 is
 * the bottleneck, period 2 per data set, 4 per round of the 2 paths. */
static stp_mapping *two_stages(void) {
  stp_build_stage st[] = {{"T1", 2, 1}, {"T2", 3, 0}};
  stp_build_processor pr[] = {{"P0", 1}, {"P1", 1}, {"P2", 1}};
  size_t sizes[] = {1, 2}, teams[] = {0, 1, 2};
  stp_build_spec spec;
  stp_build_spec_init(&spec);
  spec.nstages = 2, spec.stages = st, spec.nprocessors = 3, spec.processors = pr;
  spec.bandwidth = 1, spec.team_sizes = sizes, spec.teams = teams;
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_build(&spec, &m, &err), STP_OK, "%s", err.message);
  return m;
}

Test(gantt, two_stages_bottleneck_is_p0) {
  stp_mapping *m = two_stages();
  stp_gantt_options o;
  stp_gantt_options_init(&o);
  o.periods = 2;
  stp_status st;
  stp_error err = {0};
  char *svg = chart_mapping(m, STP_MODEL_OVERLAP, &o, &st, &err);
  cr_assert_eq(st, STP_OK, "%s", err.message);
  char rows[256];
  row_labels(svg, rows, sizeof rows);
  cr_assert_str_eq(rows, "P0|P0 out|P1 in|P1|P2 in|P2");
  /* 2 periods x 2 paths x (computation, transfer in two rows, computation) */
  size_t bars = 0, critical = 0;
  double busy = 0, first = INFINITY, last = -INFINITY;
  for (const char *p = strstr(svg, "<rect "); p; p = strstr(p + 1, "<rect ")) {
    if (!attr_is(p, "class", "firing") && !attr_is(p, "class", "firing critical"))
      continue;
    bars++;
    if (attr_is(p, "class", "firing critical")) {
      critical++;
      cr_assert(attr_is(p, "data-row", "P0"), "a critical bar outside P0");
      double a = attr_num(p, "data-start"), b = attr_num(p, "data-end");
      busy += b - a;
      first = fmin(first, a), last = fmax(last, b);
    }
  }
  cr_assert_eq(bars, 16);
  cr_assert_eq(critical, 4);
  assert_close(busy, 2 * 4.0, TOL_EXACT);  /* 2 periods of 4, P0 always busy */
  assert_close(last - first, busy, TOL_EXACT); /* back to back */
  free(svg);
  stp_mapping_free(m);
}

Test(gantt, graph_rows_are_resources_in_first_use) {
  stp_graph *g = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_graph_new("g", &g, &err), STP_OK);
  const char *name[] = {"a", "b", "c", "d"}, *res[] = {"m2", "m1", "m2", NULL};
  for (size_t t = 0; t < 4; t++) {
    cr_assert_eq(stp_graph_add_transition(g, name[t], 1 + (double)t, NULL, NULL, &err), STP_OK);
    if (res[t])
      cr_assert_eq(stp_graph_set_resource(g, t, res[t], &err), STP_OK);
  }
  for (size_t t = 0; t + 1 < 4; t++)
    cr_assert_eq(stp_graph_add_place(g, t, t + 1, 0, &err), STP_OK);
  stp_status st;
  char *svg = chart_graph(g, NULL, &st, &err);
  cr_assert_eq(st, STP_OK, "%s", err.message);
  char rows[256];
  row_labels(svg, rows, sizeof rows);
  cr_assert_str_eq(rows, "m2|m1|d");
  free(svg);

  /* a DAG has no periods: refused, nothing written, no option named */
  stp_gantt_options o;
  stp_gantt_options_init(&o);
  o.periods = 2;
  svg = chart_graph(g, &o, &st, &err);
  cr_assert_eq(st, STP_EINVAL);
  cr_assert_str_eq(svg, "");
  cr_assert(strstr(err.message, "DAG") && !strstr(err.message, "--"), "%s", err.message);
  free(svg);
  stp_graph_free(g);
}

Test(gantt, periods_out_of_range) {
  stp_mapping *m = two_stages();
  stp_gantt_options o;
  stp_gantt_options_init(&o);
  o.periods = STP_GANTT_MAX_PERIODS + 1;
  stp_status st;
  stp_error err = {0};
  char *svg = chart_mapping(m, STP_MODEL_OVERLAP, &o, &st, &err);
  cr_assert_eq(st, STP_EINVAL);
  cr_assert_str_eq(svg, "");
  cr_assert(!strstr(err.message, "--"), "%s", err.message);
  free(svg);
  stp_mapping_free(m);
}

Test(gantt, rendered_by_rsvg) {
  if (system("command -v rsvg-convert >/dev/null 2>&1") != 0)
    cr_skip_test("rsvg-convert is not installed (librsvg2-bin)");
  stp_mapping *m = example_a();
  char in[64], out[64], cmd[200];
  snprintf(in, sizeof in, "/tmp/stp-gantt-%d.svg", (int)getpid());
  snprintf(out, sizeof out, "/tmp/stp-gantt-%d.png", (int)getpid());
  FILE *f = fopen(in, "w");
  cr_assert(f);
  stp_error err = {0};
  cr_assert_eq(stp_mapping_gantt_svg(m, STP_MODEL_STRICT, NULL, f, &err), STP_OK, "%s",
               err.message);
  fclose(f);
  snprintf(cmd, sizeof cmd, "rsvg-convert -o %s %s", out, in);
  cr_assert_eq(system(cmd), 0, "rsvg-convert refused %s", in);
  f = fopen(out, "rb");
  cr_assert(f);
  unsigned char sig[4] = {0};
  cr_assert_eq(fread(sig, 1, 4, f), 4);
  fclose(f);
  cr_assert(memcmp(sig, "\x89PNG", 4) == 0);
  remove(in);
  remove(out);
  stp_mapping_free(m);
}
