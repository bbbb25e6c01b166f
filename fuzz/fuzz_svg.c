/* fuzz_svg.c: libFuzzer target of the SVG writers (issue 34: pictures always
 * well-formed): the Gantt charts of a graph and of a mapping
 * (streamtp_gantt.h, report/gantt.c), the sweep and sensitivity plots of explain
 * (report/plot.c) and the text of names in pictures (stp_write_xml_text,
 * base/textout.c).  The input is a few bytes of parameters (fuzz_bytes.h:
 * which writer, sizes, times from a table that holds 0, the edges of the
 * accepted range, NaN and infinities), then names separated by NUL bytes:
 * the graph's, its transitions' and resources' (any bytes the graph takes),
 * a sweep's labels and critical resources, the sensitivities' parameters,
 * the titles.  Whatever a writer accepts must be well-formed XML
 * (fuzz_xml.h); a refusal must say why. */
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "fuzz_xml.h"
#include "streamtp_base.h"
#include "streamtp_build.h"
#include "streamtp_explain.h"
#include "streamtp_gantt.h"
#include "streamtp_plot.h"
#include "streamtp_report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 24

typedef struct names {
  char *text; /* the input's tail, NUL-terminated pieces */
  const char *name[MAX_NAMES];
  size_t n;
} names;

static void names_split(names *s, const uint8_t *p, size_t n) {
  s->text = malloc(n + 1);
  s->n = 0;
  if (!s->text)
    return;
  memcpy(s->text, p, n);
  s->text[n] = '\0';
  for (char *at = s->text; at <= s->text + n && s->n < MAX_NAMES; at += strlen(at) + 1)
    s->name[s->n++] = at;
}

/* The k-th name, cycling; "x" when there are none. */
static const char *name_of(const names *s, size_t k) { return s->n ? s->name[k % s->n] : "x"; }

static double number(fuzz_bytes *b) {
  static const double v[] = {1.0, 0.0, 0.5, 2.0, 3.0, 1e-150, 1e150, 1e-300, 1e300, 7.25,
                             -1.0, NAN, INFINITY, -INFINITY, 5e-324, 1e-3, 0.999999, 123456.789};
  return FUZZ_PICK(b, v);
}

static void check_svg(const char *what, const char *svg, size_t len) {
  const char *why = NULL;
  size_t at = 0;
  if (!xml_well_formed(svg, len, &why, &at)) {
    size_t from = at > 60 ? at - 60 : 0;
    fprintf(stderr, "%s: not well-formed XML at byte %zu: %s\n...%.*s<HERE>%.*s...\n", what, at,
            why, (int)(at - from), svg + from, (int)(len - at < 60 ? len - at : 60), svg + at);
    abort();
  }
}

/* A name alone in a text element and in an attribute. */
static void fuzz_text(const names *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return;
  fputs("<svg>", f);
  for (size_t k = 0; k < s->n; k++) {
    fputs("<text class=\"", f);
    stp_write_xml_text(f, s->name[k]);
    fputs("\">", f);
    stp_write_xml_text(f, s->name[k]);
    fputs("</text>", f);
  }
  fputs("</svg>\n", f);
  if (fclose(f) == 0)
    check_svg("stp_write_xml_text", buf, len);
  free(buf);
}

/* The chart of g (m NULL) or of m's event graph, checked or refused. */
static void write_gantt(const stp_graph *g, const stp_mapping *m, stp_model model,
                        const stp_gantt_options *o) {
  char *buf = NULL;
  size_t len = 0;
  stp_error err = {0};
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return;
  stp_status st = m ? stp_mapping_gantt_svg(m, model, o, f, &err)
                    : stp_graph_gantt_svg(g, o, f, &err);
  if (fclose(f) == 0 && st == STP_OK)
    check_svg(m ? "stp_mapping_gantt_svg" : "stp_graph_gantt_svg", buf, len);
  else if (st != STP_OK)
    fuzz_refusal(&err);
  free(buf);
}

/* A mapping of up to 3 stages on teams of up to 3 processors (names, works,
 * sizes and speeds from the input), drawn under Overlap or Strict: its
 * rows are ports and processors. */
static void fuzz_mapping_gantt(fuzz_bytes *b, const names *s) {
  stp_build_stage st[3];
  stp_build_processor pr[9];
  size_t sizes[3], teams[9], ns = 1 + fuzz_take(b, 1) % 3, np = 0;
  for (size_t i = 0; i < ns; i++) {
    st[i] = (stp_build_stage){name_of(s, 1 + i), number(b), number(b)};
    sizes[i] = 1 + fuzz_take(b, 1) % 3;
    for (size_t k = 0; k < sizes[i]; k++, np++) {
      pr[np] = (stp_build_processor){name_of(s, 4 + np), number(b)};
      teams[np] = np;
    }
  }
  stp_build_spec spec;
  stp_build_spec_init(&spec);
  spec.name = name_of(s, 0);
  spec.stages = st;
  spec.nstages = ns;
  spec.processors = pr;
  spec.nprocessors = np;
  spec.bandwidth = number(b);
  spec.team_sizes = sizes;
  spec.teams = teams;
  stp_mapping *m = NULL;
  stp_error err = {0};
  if (stp_mapping_build(&spec, &m, &err) != STP_OK) {
    fuzz_refusal(&err);
    return;
  }
  stp_gantt_options o;
  stp_gantt_options_init(&o);
  o.title = fuzz_take(b, 1) & 1 ? name_of(s, 13) : NULL;
  o.periods = (int)(fuzz_take(b, 1) % 3);
  o.random = fuzz_take(b, 1) & 1;
  o.seed = fuzz_take(b, 8);
  write_gantt(NULL, m, fuzz_take(b, 1) & 1 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP, &o);
  stp_mapping_free(m);
}

/* A graph of up to 8 transitions (names, resources, times from the input),
 * a few places, drawn as a Gantt chart: constant times or one simulated
 * run. */
static void fuzz_gantt(fuzz_bytes *b, const names *s) {
  stp_graph *g = NULL;
  stp_error err = {0};
  if (stp_graph_new(name_of(s, 0), &g, &err) != STP_OK)
    return;
  size_t nt = 1 + fuzz_take(b, 1) % 8;
  for (size_t t = 0; t < nt; t++) {
    double time = number(b);
    if (stp_graph_add_transition(g, name_of(s, 1 + t), time, NULL, NULL, &err) != STP_OK) {
      fuzz_refusal(&err);
      /* a name given twice, an empty one or a bad time: try a plain one */
      char plain[32];
      snprintf(plain, sizeof plain, "t%zu", t);
      if (stp_graph_add_transition(g, plain, fabs(time) <= 1e6 ? fabs(time) : 1, NULL, NULL,
                                   &err) != STP_OK)
        goto out;
    }
    uint64_t r = fuzz_take(b, 1);
    if (r % 3 && stp_graph_set_resource(g, t, name_of(s, 9 + r % 8), &err) != STP_OK)
      fuzz_refusal(&err);
  }
  size_t np = fuzz_take(b, 1) % 12;
  for (size_t k = 0; k < np; k++) {
    size_t from = fuzz_take(b, 1) % nt, to = fuzz_take(b, 1) % nt;
    if (stp_graph_add_place(g, from, to, fuzz_take(b, 1) % 3, &err) != STP_OK)
      fuzz_refusal(&err);
  }
  if (fuzz_take(b, 1) & 1)
    (void)stp_graph_set_output(g, nt - 1, &err);
  stp_gantt_options o;
  stp_gantt_options_init(&o);
  o.title = name_of(s, 17);
  o.periods = stp_graph_is_dag(g) ? 0 : 1 + (int)(fuzz_take(b, 1) % 3);
  o.random = fuzz_take(b, 1) & 1;
  o.seed = fuzz_take(b, 8);
  write_gantt(g, NULL, STP_MODEL_OVERLAP, &o);
out:
  stp_graph_free(g);
}

/* A sweep of up to 12 points over one or two varies, labels, critical
 * resources and throughputs from the input. */
static void fuzz_sweep(fuzz_bytes *b, const names *s) {
  stp_vary v[2];
  const stp_vary *vp[2] = {&v[0], &v[1]};
  size_t nvary = 1 + fuzz_take(b, 1) % 2;
  size_t per[2] = {1 + fuzz_take(b, 1) % 6, 1};
  if (nvary == 2)
    per[1] = 1 + fuzz_take(b, 1) % 2;
  for (size_t j = 0; j < 2; j++) {
    memset(&v[j], 0, sizeof v[j]);
    v[j].label = v[j].spec = (char *)name_of(s, 2 + j);
    v[j].name = (char *)name_of(s, 4 + j);
    v[j].from = number(b);
    v[j].to = number(b);
    v[j].n = per[j];
    v[j].log = fuzz_take(b, 1) & 1;
  }
  size_t n = per[0] * per[1];
  stp_sweep_point pts[12];
  stp_result res[12];
  stp_sim_result sim[12];
  for (size_t k = 0; k < n; k++) {
    memset(&res[k], 0, sizeof res[k]);
    memset(&sim[k], 0, sizeof sim[k]);
    res[k].det_throughput = number(b);
    res[k].det_period = 1 / res[k].det_throughput;
    res[k].exp_available = fuzz_take(b, 1) & 1;
    res[k].exp_throughput = number(b);
    res[k].exact_law.available = fuzz_take(b, 1) & 1;
    res[k].exact_law.throughput = number(b);
    res[k].lower = res[k].exp_throughput, res[k].upper = res[k].det_throughput;
    sim[k].throughput = number(b);
    sim[k].ci_low = number(b);
    sim[k].ci_high = number(b);
    uint64_t c = fuzz_take(b, 1);
    pts[k] = (stp_sweep_point){.nvary = nvary, .result = &res[k],
                               .critical = c % 4 ? (char *)name_of(s, 6 + c % 8) : NULL,
                               .sim = c & 16 ? &sim[k] : NULL};
    pts[k].vary[0] = number(b);
    pts[k].vary[1] = number(b);
  }
  char *svg = NULL;
  size_t len = 0;
  stp_error err = {0};
  if (stp_sweep_plot_svg(vp, nvary, pts, n, fuzz_take(b, 1) & 1 ? name_of(s, 1) : NULL, &svg,
                         &len, &err) == STP_OK)
    check_svg("stp_sweep_plot_svg", svg, len);
  else
    fuzz_refusal(&err);
  stp_free(svg);
}

/* Up to 10 sensitivities of fuzzed parameters and elasticities. */
static void fuzz_bars(fuzz_bytes *b, const names *s) {
  stp_sensitivity it[10];
  stp_sensitivity_result r;
  memset(&r, 0, sizeof r);
  r.n = fuzz_take(b, 1) % 11;
  r.items = it;
  r.det_throughput = number(b);
  r.exp_available = fuzz_take(b, 1) & 1;
  r.law_available = fuzz_take(b, 1) & 1;
  for (size_t k = 0; k < r.n; k++) {
    memset(&it[k], 0, sizeof it[k]);
    it[k].kind = (stp_param_kind)(fuzz_take(b, 1) % 4);
    it[k].of = (char *)name_of(s, 1 + k);
    it[k].value = number(b);
    stp_slope *sl[3] = {&it[k].det, &it[k].exp, &it[k].law};
    for (int j = 0; j < 3; j++)
      sl[j]->elasticity = sl[j]->right = number(b), sl[j]->left = number(b);
  }
  stp_rank_by by = (stp_rank_by)(fuzz_take(b, 1) % 3);
  char *svg = NULL;
  size_t len = 0;
  stp_error err = {0};
  if (stp_sensitivity_plot_svg(&r, by, fuzz_take(b, 1) % 12, fuzz_take(b, 1) & 1 ? name_of(s, 0)
                                                                                 : NULL,
                               &svg, &len, &err) == STP_OK)
    check_svg("stp_sensitivity_plot_svg", svg, len);
  else
    fuzz_refusal(&err);
  stp_free(svg);
}

/* Parameters: 64 bytes (zeros past the input's end), then the names. */
#define PARAM_BYTES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_bytes b = {data, size < PARAM_BYTES ? size : PARAM_BYTES};
  names s;
  names_split(&s, data + b.n, size - b.n);
  if (!s.text)
    return 0;
  uint64_t which = fuzz_take(&b, 1); /* 1: a graph's Gantt chart, 5: a mapping's */
  switch (which % 4) {
  case 0: fuzz_text(&s); break;
  case 1: which & 4 ? fuzz_mapping_gantt(&b, &s) : fuzz_gantt(&b, &s); break;
  case 2: fuzz_sweep(&b, &s); break;
  default: fuzz_bars(&b, &s); break;
  }
  free(s.text);
  return 0;
}
