/* test_plot.c: the pictures of streamtp_plot.h, rendered by a real SVG
 * renderer (rsvg-convert, librsvg2-bin of the core dependencies; skipped
 * with the reason where it is missing) and read back: the marked points
 * of a sweep are where the critical resource changes (found here by
 * comparing the points' own critical resources), with the new name; the
 * bar chart has one bar per parameter with its elasticity. */
#include "streamtp_plot.h"
#include "streamtp_report.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool have_renderer(void) { return system("command -v rsvg-convert >/dev/null 2>&1") == 0; }

/* rsvg-convert reads the picture and writes a PNG: it must succeed. */
static void render(const char *svg, const char *tag) {
  char in[64], out[64], cmd[256];
  snprintf(in, sizeof in, "/tmp/stp-plot-%d-%s.svg", (int)getpid(), tag);
  snprintf(out, sizeof out, "/tmp/stp-plot-%d-%s.png", (int)getpid(), tag);
  FILE *f = fopen(in, "w");
  cr_assert(f);
  fputs(svg, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "rsvg-convert -o %s %s", out, in);
  cr_assert_eq(system(cmd), 0, "rsvg-convert refused %s", in);
  f = fopen(out, "rb");
  cr_assert(f);
  unsigned char sig[8] = {0};
  cr_assert_eq(fread(sig, 1, 8, f), 8);
  fclose(f);
  cr_assert(memcmp(sig, "\x89PNG", 4) == 0);
  remove(in);
  remove(out);
}

/* The values of attribute attr of the elements of class cls, in order. */
static size_t attrs(const char *svg, const char *cls, const char *attr, char out[][64],
                    size_t max) {
  char key[64], a[64];
  snprintf(key, sizeof key, "class=\"%s\"", cls);
  snprintf(a, sizeof a, "%s=\"", attr);
  size_t n = 0;
  for (const char *p = strstr(svg, key); p && n < max; p = strstr(p + 1, key)) {
    const char *end = strchr(p, '>'), *v = strstr(p, a);
    cr_assert(v && v < end, "%s without %s", cls, attr);
    v += strlen(a);
    size_t len = (size_t)(strchr(v, '"') - v);
    cr_assert(len < 64);
    memcpy(out[n], v, len);
    out[n][len] = 0;
    for (char *q = strstr(out[n], "&gt;"); q; q = strstr(q, "&gt;")) /* unescape */
      memmove(q + 1, q + 4, strlen(q + 4) + 1), *q = '>';
    n++;
  }
  return n;
}

Test(plot, sweep_marks_where_the_critical_resource_changes) {
  if (!have_renderer())
    cr_skip_test("rsvg-convert is not installed (scripts/deps.sh core)");
  /* three stages: the bottleneck moves from P2 (speed 1..) to P1, then P3 */
  stp_mapping *m = load_json(
      "{\"stages\": [{\"name\": \"T1\", \"work\": 10, \"output\": 1},"
      " {\"name\": \"T2\", \"work\": 10, \"output\": 1}, {\"name\": \"T3\", \"work\": 10}],"
      " \"processors\": [{\"name\": \"P1\", \"speed\": 3}, {\"name\": \"P2\", \"speed\": 1},"
      " {\"name\": \"P3\", \"speed\": 5}], \"bandwidth\": 100,"
      " \"mapping\": [[\"P1\"], [\"P2\"], [\"P3\"]]}");
  stp_vary *v;
  stp_error err = {0};
  cr_assert_eq(stp_vary_parse("speed:P2=1..10:19", &v, &err), STP_OK);
  const stp_vary *vs[1] = {v};
  stp_sweep_point pts[19];
  for (size_t k = 0; k < v->n; k++)
    cr_assert_eq(stp_sweep_point_eval(m, STP_MODEL_OVERLAP, vs, 1, &k, NULL, NULL, &pts[k], &err),
                 STP_OK, "%s", err.message);
  char *svg;
  cr_assert_eq(stp_sweep_plot_svg(vs, 1, pts, v->n, "T2 on a faster P2", &svg, NULL, &err),
               STP_OK, "%s", err.message);
  render(svg, "sweep");
  char value[8][64], name[8][64];
  size_t n = attrs(svg, "change", "data-value", value, 8);
  cr_assert_eq(attrs(svg, "change", "data-critical", name, 8), n);
  /* the changes, from the points themselves */
  size_t expect = 0;
  for (size_t k = 1; k < v->n; k++) {
    if (strcmp(pts[k].critical, pts[k - 1].critical) == 0)
      continue;
    cr_assert(expect < n, "a change at point %zu not marked", k);
    cr_assert(strtod(value[expect], NULL) == pts[k].vary[0]);
    cr_assert_str_eq(name[expect], pts[k].critical);
    expect++;
  }
  cr_assert_eq(n, expect);
  /* and where the closed form puts them: P2 limits below speed 3, where it
   * ties with P1 (10 / 3 both: a point of the sweep), and P1 above */
  cr_assert_eq(n, 2);
  cr_assert_str_eq(name[0], "P1, P2");
  cr_assert(strtod(value[0], NULL) == 3);
  cr_assert_str_eq(name[1], "P1");
  cr_assert(strtod(value[1], NULL) == 3.5);
  cr_assert(strstr(svg, "class=\"nbue\"") && strstr(svg, "class=\"det\"") &&
            strstr(svg, "class=\"exp\""));
  stp_free(svg);
  for (size_t k = 0; k < v->n; k++)
    stp_sweep_point_clear(&pts[k]);
  stp_vary_free(v);
  stp_mapping_free(m);
}

Test(plot, sensitivity_bars_one_per_parameter) {
  if (!have_renderer())
    cr_skip_test("rsvg-convert is not installed (scripts/deps.sh core)");
  trng rng = {.s = 61};
  tgen p = {.nstages = 3, .max_team = 3};
  stp_mapping *m = tgen_mapping(&rng, &p);
  stp_sensitivity_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_sensitivity_compute(m, STP_MODEL_OVERLAP, NULL, &r, &err), STP_OK);
  stp_sensitivity_rank(r, STP_RANK_EXP);
  char *svg;
  cr_assert_eq(stp_sensitivity_plot_svg(r, STP_RANK_EXP, 5, NULL, &svg, NULL, &err), STP_OK);
  render(svg, "bars");
  char e[8][64], who[8][64];
  cr_assert_eq(attrs(svg, "bar", "data-elasticity", e, 8), 5);
  cr_assert_eq(attrs(svg, "bar", "data-parameter", who, 8), 5);
  for (size_t k = 0; k < 5; k++) {
    char expect[128];
    snprintf(expect, sizeof expect, "%s:%s", stp_param_kind_name(r->items[k].kind),
             r->items[k].of);
    cr_assert_str_eq(who[k], expect);
    cr_assert(strtod(e[k], NULL) == r->items[k].exp.elasticity);
  }
  stp_free(svg);
  stp_sensitivity_result_free(r);
  stp_mapping_free(m);
}

/* Names the XML of a picture may not hold raw (found by fuzz/fuzz_svg.c,
 * issue 34): a control byte, a byte that is not UTF-8 and U+FFFE in the
 * parameters' names and the title are written as the text \x01, \xff,
 * \ufffe (stp_write_xml_text, as --gantt writes them), so that the
 * renderer reads the picture. */
Test(plot, names_xml_refuses_are_replaced) {
  stp_sensitivity it[3] = {
      {.kind = STP_PARAM_SPEED, .of = "P\x01", .value = 1, .det = {0.5, 0.5, 0.5}},
      {.kind = STP_PARAM_SPEED, .of = "bad\xff", .value = 2, .det = {0.25, 0.25, 0.25}},
      {.kind = STP_PARAM_WORK, .of = "T\xef\xbf\xbe", .value = 3, .det = {0.125, 0.125, 0.125}}};
  for (int k = 0; k < 3; k++)
    it[k].exp = it[k].law = (stp_slope){NAN, NAN, NAN};
  stp_sensitivity_result r = {.n = 3, .items = it, .det_throughput = 1};
  char *svg = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_sensitivity_plot_svg(&r, STP_RANK_DET, 0, "tab\there \x02", &svg, NULL, &err),
               STP_OK, "%s", err.message);
  for (const char *raw = "\x01\x02\xff"; *raw; raw++)
    cr_assert_null(strchr(svg, *raw), "raw byte 0x%02x in the picture", (unsigned char)*raw);
  cr_assert_null(strstr(svg, "\xef\xbf\xbe"));
  cr_assert_null(strchr(svg, '\t'));
  cr_assert(strstr(svg, "P\\x01") && strstr(svg, "bad\\xff") && strstr(svg, "T\\ufffe") &&
            strstr(svg, "tab&#9;here \\x02"), "%s", svg);
  if (have_renderer())
    render(svg, "names");
  stp_free(svg);
}

/* A swept range of a few ulps, 1e17 to 1e17 + 16 (both exact doubles; a
 * speed may be anything in [1e-150, 1e150]): the ticks of 2 no longer move
 * the value, and the loop over them had never ended (fuzz/fuzz_svg.c).
 * The timeout guards a hang; it measures nothing. */
Test(plot, a_range_of_a_few_ulps_ends, .timeout = 60) {
  stp_vary v = {.spec = "speed:P1=1e17..1e17+16", .label = "speed:P1", .name = "P1",
                .from = 1e17, .to = 1e17 + 16, .n = 2};
  const stp_vary *vs[1] = {&v};
  stp_result res[2] = {{.det_throughput = 1e17, .det_period = 1e-17},
                       {.det_throughput = 1e17 + 16, .det_period = 1 / (1e17 + 16)}};
  stp_sweep_point pts[2] = {{.nvary = 1, .vary = {1e17}, .result = &res[0]},
                            {.nvary = 1, .vary = {1e17 + 16}, .result = &res[1]}};
  char *svg = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_sweep_plot_svg(vs, 1, pts, 2, NULL, &svg, NULL, &err), STP_OK, "%s",
               err.message);
  cr_assert(strstr(svg, "</svg>"));
  cr_assert(1e17 + 2 == 1e17, "the premise: a step of 2 does not move 1e17");
  if (have_renderer())
    render(svg, "ulps");
  stp_free(svg);
}
