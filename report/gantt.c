/* gantt.c: the Gantt charts of streamtp_gantt.h.  Three steps: play the
 * schedule (stp_graph_trace) long enough to reach the window to draw and
 * mark its critical firings; give every transition its rows (a graph's
 * resources, or a mapping's ports and processors); then write the SVG: the
 * rows grouped, a bar per firing that starts in the window (never cut: the
 * axis reaches the last end), a label and a colour per data set, the
 * critical bars outlined in red, dashed period boundaries, the axis in the
 * file's time unit and a legend. */
#include "base/core.h"
#include "base/numfmt.h"
#include "streamtp_gantt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS_FIRST 32           /* rounds played first; doubled until periodic */
#define TRACE_MAX_FIRINGS 4000000 /* firings played at most for one chart */
#define CYCLICITY_MAX 8           /* periodicity looked for: x(k + c) = x(k) + c lambda */
#define RANDOM_WARMUP 10          /* rounds before the window of a random run */

/* Layout, in SVG pixels. */
#define WIDTH 1100
#define ROW_H 20
#define BAR_H 14
#define TOP 52
#define AXIS_H 36   /* ticks, numbers and the axis label */
#define LEGEND_H 30
#define RIGHT 20

/* Bars: one colour per data set modulo the palette (no red: red marks the
 * critical ones, by their outline). */
static const char *const palette[] = {"#9ecae1", "#fdae6b", "#a1d99b",
                                      "#bcbddc", "#f7e08b", "#8dd3c7"};
#define PALETTE_N (sizeof palette / sizeof palette[0])
#define COLOUR_DAG "#9ecae1"
#define EDGE_BAR "#555555"
#define EDGE_CRITICAL "#d62728"

void stp_gantt_options_init(stp_gantt_options *o) {
  *o = (stp_gantt_options){.seed = 1};
}

/* ---- the schedule and its window ---------------------------------------------------- */

typedef struct played {
  size_t n;       /* transitions */
  uint64_t rounds;
  int periods;
  double *start, *end;
  size_t *cause;
  double t0, t1;  /* the window: bars that start in [t0, t1) */
  double lambda;  /* TEG: time between two firings of a transition; 0 for a DAG */
  uint64_t k0;    /* TEG: first round of the window */
  bool periodic;  /* TEG, constant times: the window is in the periodic regime */
  bool dag;
  bool *critical; /* by firing index */
} played;

static void played_free(played *p) {
  free(p->start);
  free(p->end);
  free(p->cause);
  free(p->critical);
}

static stp_status play(const stp_graph *g, const stp_gantt_options *o, uint64_t rounds,
                       played *p, stp_error *err) {
  played_free(p);
  p->rounds = rounds;
  size_t cells = (size_t)rounds * p->n;
  p->start = malloc(cells * sizeof *p->start);
  p->end = malloc(cells * sizeof *p->end);
  p->cause = malloc(cells * sizeof *p->cause);
  p->critical = calloc(cells, sizeof *p->critical);
  if (!p->start || !p->end || !p->cause || !p->critical)
    return stp__fail(err, STP_ENOMEM, "out of memory for a chart of %zu firings", cells);
  stp_graph_trace_options t;
  stp_graph_trace_options_init(&t);
  t.rounds = rounds;
  t.random = o->random;
  t.law = o->law;
  t.seed = o->seed;
  t.pace = o->random ? 0 : p->lambda; /* constant times: the periodic steady state */
  return stp_graph_trace(g, &t, p->start, p->end, p->cause, err);
}

static bool same_time(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1); }

/* The first round k0 from which the ends repeat with some cyclicity c:
 * end(k + c) = end(k) + c lambda for every transition and k0 <= k < k0 + c.
 * UINT64_MAX when the rounds played do not show it. */
static uint64_t periodic_from(const played *p) {
  size_t n = p->n;
  for (uint64_t k0 = 0; k0 < p->rounds; k0++)
    for (uint64_t c = 1; c <= CYCLICITY_MAX && k0 + 2 * c <= p->rounds; c++) {
      bool ok = true;
      for (uint64_t k = k0; ok && k < k0 + c; k++)
        for (size_t t = 0; ok && t < n; t++)
          ok = same_time(p->end[(k + c) * n + t], p->end[k * n + t] + (double)c * p->lambda);
      if (ok)
        return k0;
    }
  return UINT64_MAX;
}

/* Earliest start among the firings of round k. */
static double round_start(const played *p, uint64_t k) {
  double x = INFINITY;
  for (size_t t = 0; t < p->n; t++)
    x = fmin(x, p->start[k * p->n + t]);
  return x;
}

/* Mark the chain of causes back from firing i, within the window. */
static void mark_chain(played *p, size_t i) {
  while (i != SIZE_MAX && p->end[i] > p->t0) {
    p->critical[i] = true;
    i = p->cause[i];
  }
}

/* Firing i is drawn: a positive duration, and (TEG) a start in the window;
 * the tolerance keeps a firing that starts on a boundary in one period. */
static bool drawn(const played *p, size_t i) {
  if (!(p->end[i] > p->start[i]))
    return false;
  if (p->dag)
    return true;
  double tol = 1e-9 * (p->lambda + fabs(p->t0));
  return p->start[i] >= p->t0 - tol && p->start[i] < p->t1 - tol;
}

/* The drawn firing with the latest end (SIZE_MAX: none), among the outputs
 * when the graph marks some: the run, or the data set, that completed last. */
static size_t last_drawn(const stp_graph *g, const played *p) {
  size_t best = SIZE_MAX;
  bool outputs = stp_graph_output_count(g) > 0;
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    if ((!outputs || stp_graph_transition_is_output(g, i % p->n)) && drawn(p, i) &&
        (best == SIZE_MAX || p->end[i] > p->end[best]))
      best = i;
  return best;
}

/* The window of a TEG: where every transition has fired once already in
 * the periodic regime (constant times), after a warm-up (random). */
static void pick_window(const stp_graph_result *r, const stp_gantt_options *o, played *p) {
  uint64_t rounds = p->rounds, k0 = o->random ? RANDOM_WARMUP : periodic_from(p);
  p->periodic = !o->random && k0 != UINT64_MAX;
  if (k0 == UINT64_MAX || k0 >= rounds)
    k0 = rounds > (uint64_t)p->periods + 1 ? rounds - (uint64_t)p->periods - 1 : 0;
  if (p->periodic) {
    double all = -INFINITY;
    for (size_t t = 0; t < p->n; t++)
      all = fmax(all, p->start[k0 * p->n + t]);
    while (k0 + 1 < rounds && p->start[k0 * p->n + r->critical[0]] < all)
      k0++;
  }
  p->k0 = k0;
  p->t0 = o->random ? round_start(p, k0) : p->start[k0 * p->n + r->critical[0]];
  p->t1 = p->t0 + p->periods * p->lambda;
}

/* A timed event graph: rounds enough for the window, the window, and its
 * critical firings (Howard's cycle with constant times; the chain that bound
 * the window's last completion in a random run). */
static stp_status play_teg(const stp_graph *g, const stp_gantt_options *o,
                           const stp_graph_result *r, played *p, stp_error *err) {
  size_t outputs = stp_graph_output_count(g);
  p->lambda = r->det_period * (double)(outputs > 1 ? outputs : 1);
  uint64_t max_rounds = TRACE_MAX_FIRINGS / (p->n ? p->n : 1);
  if (max_rounds < 2)
    return stp__fail(err, STP_ELIMIT, "a chart of %zu transitions would need more than %d "
                     "firings", p->n, TRACE_MAX_FIRINGS);
  uint64_t rounds = ROUNDS_FIRST < max_rounds ? ROUNDS_FIRST : max_rounds;
  for (;;) {
    STP_CHECK(play(g, o, rounds, p, err));
    pick_window(r, o, p);
    bool enough = round_start(p, rounds - 1) >= p->t1; /* every firing of the window played */
    if ((enough && (p->periodic || o->random)) || rounds >= max_rounds)
      break;
    rounds = 2 * rounds < max_rounds ? 2 * rounds : max_rounds;
  }
  if (o->random) {
    mark_chain(p, last_drawn(g, p));
    return STP_OK;
  }
  bool *on_cycle = calloc(p->n ? p->n : 1, sizeof *on_cycle);
  if (!on_cycle)
    return stp__fail(err, STP_ENOMEM, "out of memory");
  for (size_t k = 0; k < r->critical_len; k++)
    on_cycle[r->critical[k]] = true;
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    p->critical[i] = on_cycle[i % p->n];
  free(on_cycle);
  return STP_OK;
}

/* An activity DAG: its one run; the critical path (constant times) or the
 * chain that bound the last completion (random). */
static stp_status play_dag(const stp_graph *g, const stp_gantt_options *o,
                           const stp_graph_result *r, played *p, stp_error *err) {
  STP_CHECK(play(g, o, 1, p, err));
  p->t0 = 0;
  p->t1 = 0;
  for (size_t t = 0; t < p->n; t++)
    p->t1 = fmax(p->t1, p->end[t]);
  if (o->random) {
    mark_chain(p, last_drawn(g, p));
  } else {
    for (size_t k = 0; k < r->critical_len; k++)
      p->critical[r->critical[k]] = true;
  }
  if (!(p->t1 > 0))
    p->t1 = 1; /* every time 0: an empty axis of one unit */
  return STP_OK;
}

static stp_status play_graph(const stp_graph *g, const stp_gantt_options *o, played *p,
                             stp_error *err) {
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 0;
  stp_graph_result r;
  STP_CHECK(stp_graph_analyze(g, &go, &r, err));
  p->n = stp_graph_transition_count(g);
  p->dag = r.is_dag;
  p->periods = o->periods ? o->periods : STP_GANTT_DEFAULT_PERIODS;
  stp_status st = p->dag && o->periods
                      ? stp__fail(err, STP_EINVAL, "this chart is the one run of an activity "
                                  "DAG, which has no periods (they belong to timed event graphs)")
                  : p->dag ? play_dag(g, o, &r, p, err)
                           : play_teg(g, o, &r, p, err);
  stp_graph_result_free(&r);
  return st;
}

/* ---- rows ---------------------------------------------------------------------------- */

/* Each transition is drawn in one or two rows (a mapping's transfer: its
 * sender's and its receiver's); rows of one group (a processor) share a
 * band.  A data set number per firing: k paths + the row of the event graph
 * (a mapping), or the firing (a graph). */
typedef struct rowset {
  size_t nrows;
  char **label;   /* by row */
  size_t *group;  /* by row */
  size_t (*of)[2]; /* by transition: its rows, SIZE_MAX for none */
  uint64_t paths; /* data sets per round (1 for a graph) */
  size_t ncols;   /* transitions per path (n for a graph) */
} rowset;

static void rows_free(rowset *rs) {
  for (size_t r = 0; rs->label && r < rs->nrows; r++)
    free(rs->label[r]);
  free(rs->label);
  free(rs->group);
  free(rs->of);
}

static stp_status rows_alloc(rowset *rs, size_t n, size_t cap, stp_error *err) {
  rs->label = calloc(cap ? cap : 1, sizeof *rs->label);
  rs->group = malloc((cap ? cap : 1) * sizeof *rs->group);
  rs->of = malloc((n ? n : 1) * sizeof *rs->of);
  if (!rs->label || !rs->group || !rs->of)
    return stp__fail(err, STP_ENOMEM, "out of memory for the rows of a chart");
  for (size_t t = 0; t < n; t++)
    rs->of[t][0] = rs->of[t][1] = SIZE_MAX;
  return STP_OK;
}

static stp_status row_add(rowset *rs, const char *name, const char *suffix, size_t group,
                          stp_error *err) {
  size_t len = strlen(name) + strlen(suffix) + 1;
  char *s = malloc(len);
  if (!s)
    return stp__fail(err, STP_ENOMEM, "out of memory for the rows of a chart");
  snprintf(s, len, "%s%s", name, suffix);
  rs->label[rs->nrows] = s;
  rs->group[rs->nrows] = group;
  rs->nrows++;
  return STP_OK;
}

/* A graph: the row of each transition is its resource's, in order of first
 * use; a transition without one gets its own. */
static stp_status rows_by_resource(const stp_graph *g, rowset *rs, stp_error *err) {
  size_t n = stp_graph_transition_count(g), nres = stp_graph_resource_count(g);
  *rs = (rowset){.paths = 1, .ncols = n ? n : 1};
  STP_CHECK(rows_alloc(rs, n, n, err));
  size_t *res_row = malloc((nres + 1) * sizeof *res_row);
  if (!res_row)
    return stp__fail(err, STP_ENOMEM, "out of memory for the rows of a chart");
  for (size_t k = 0; k < nres; k++)
    res_row[k] = SIZE_MAX;
  stp_status st = STP_OK;
  for (size_t t = 0; t < n && st == STP_OK; t++) {
    size_t res = stp_graph_transition_resource(g, t);
    size_t *slot = res == SIZE_MAX ? NULL : &res_row[res];
    if (!slot || *slot == SIZE_MAX) {
      if (slot)
        *slot = rs->nrows;
      st = row_add(rs, res == SIZE_MAX ? stp_graph_transition_name(g, t)
                                       : stp_graph_resource_name(g, res),
                   "", rs->nrows, err);
    }
    rs->of[t][0] = slot ? *slot : rs->nrows - 1;
  }
  free(res_row);
  return st;
}

/* The rows of processor p (SIZE_MAX: none yet): in, compute, out. */
enum { ROLE_IN, ROLE_COMPUTE, ROLE_OUT, ROLES };

/* A processor's rows, in stage then team order: under Overlap its in port
 * (not in the first stage), its computations and its out port (not in the
 * last stage); under Strict the processor alone. */
static stp_status processor_rows(const stp_mapping *m, stp_model model, rowset *rs,
                                 size_t (*role_row)[ROLES], stp_error *err) {
  size_t ns = stp_mapping_stage_count(m), group = 0;
  for (size_t i = 0; i < ns; i++)
    for (size_t k = 0; k < stp_mapping_team_size(m, i); k++) {
      size_t p = stp_mapping_team_member(m, i, k);
      if (role_row[p][ROLE_COMPUTE] != SIZE_MAX)
        continue; /* already placed with an earlier stage */
      const char *name = stp_mapping_processor_name(m, p);
      bool overlap = model == STP_MODEL_OVERLAP;
      if (overlap && i > 0) {
        role_row[p][ROLE_IN] = rs->nrows;
        STP_CHECK(row_add(rs, name, " in", group, err));
      }
      role_row[p][ROLE_COMPUTE] = rs->nrows;
      STP_CHECK(row_add(rs, name, "", group, err));
      if (overlap && i + 1 < ns) {
        role_row[p][ROLE_OUT] = rs->nrows;
        STP_CHECK(row_add(rs, name, " out", group, err));
      }
      if (!overlap)
        role_row[p][ROLE_IN] = role_row[p][ROLE_OUT] = role_row[p][ROLE_COMPUTE];
      group++;
    }
  return STP_OK;
}

/* A mapping's event graph (stp_mapping_graph: path j, column c at index
 * j (2 stages - 1) + c; column 2i computes stage i on member j mod R_i of
 * its team, column 2i + 1 sends to member j mod R_(i+1) of the next). */
static stp_status rows_by_processor(const stp_mapping *m, stp_model model, const stp_graph *g,
                                    rowset *rs, stp_error *err) {
  size_t ns = stp_mapping_stage_count(m), np = stp_mapping_processor_count(m);
  size_t n = stp_graph_transition_count(g), ncols = 2 * ns - 1;
  *rs = (rowset){.ncols = ncols, .paths = n / ncols};
  if (ns == 0 || n % ncols)
    return stp__fail(err, STP_EINTERNAL, "the event graph of %zu transitions is not %zu columns of "
                     "the mapping's paths", n, ncols);
  STP_CHECK(rows_alloc(rs, n, ROLES * np, err));
  size_t (*role_row)[ROLES] = malloc((np ? np : 1) * sizeof *role_row);
  if (!role_row)
    return stp__fail(err, STP_ENOMEM, "out of memory for the rows of a chart");
  for (size_t p = 0; p < np; p++)
    role_row[p][ROLE_IN] = role_row[p][ROLE_COMPUTE] = role_row[p][ROLE_OUT] = SIZE_MAX;
  stp_status st = processor_rows(m, model, rs, role_row, err);
  for (size_t t = 0; t < n && st == STP_OK; t++) {
    size_t j = t / ncols, c = t % ncols, i = c / 2;
    size_t p = stp_mapping_team_member(m, i, j % stp_mapping_team_size(m, i));
    if (c % 2 == 0) {
      rs->of[t][0] = role_row[p][ROLE_COMPUTE];
    } else {
      size_t q = stp_mapping_team_member(m, i + 1, j % stp_mapping_team_size(m, i + 1));
      rs->of[t][0] = role_row[p][ROLE_OUT];
      rs->of[t][1] = role_row[q][ROLE_IN];
    }
  }
  free(role_row);
  return st;
}

/* ---- SVG ----------------------------------------------------------------------------- */

/* Names and titles: whatever bytes they hold, the SVG stays well-formed. */
static void xml_text(FILE *f, const char *s) { stp_write_xml_text(f, s); }

/* A tick step of 1, 2 or 5 times a power of ten, about span / 8. */
static double tick_step(double span) {
  double raw = span / 8, p = pow(10, floor(log10(raw)));
  return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

typedef struct layout {
  double t0, t1; /* the axis: the window, widened to the last end drawn */
  int left, plot_w, plot_h;
} layout;

static double x_of(const layout *l, double t) {
  return l->left + (t - l->t0) / (l->t1 - l->t0) * l->plot_w;
}

static uint64_t dataset_of(const rowset *rs, const played *p, size_t i) {
  size_t t = i % p->n;
  return (uint64_t)(i / p->n) * rs->paths + t / rs->ncols;
}

static void svg_axis(FILE *f, const layout *l, int y, const char *unit) {
  fprintf(f, "<g class=\"axis\" font-size=\"11\" fill=\"#333\">\n");
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", l->left, y,
          l->left + l->plot_w, y);
  double step = tick_step(l->t1 - l->t0);
  int ticks = 0;
  for (double t = ceil(l->t0 / step) * step; t <= l->t1 + 1e-9 * step && ticks < 64;
       t += step, ticks++) {
    double x = x_of(l, t);
    fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#333\"/>", x, y, x,
            y + 4);
    fprintf(f, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n", x, y + 16, t);
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis-label\">time (",
          l->left + l->plot_w / 2, y + 31);
  xml_text(f, unit ? unit : "units of the file");
  fprintf(f, ")</text>\n</g>\n");
}

/* One bar of firing i in row `row`: the data set's colour, its number
 * inside when it fits, a red outline when critical. */
static void svg_bar(FILE *f, const stp_graph *g, const played *p, const rowset *rs,
                    const layout *l, size_t i, size_t row) {
  size_t t = i % p->n;
  int y = TOP + (int)row * ROW_H + (ROW_H - BAR_H) / 2;
  double x = x_of(l, p->start[i]), w = fmax(x_of(l, p->end[i]) - x, 1.0);
  x = fmin(x, l->left + l->plot_w - w); /* a sliver at the right edge stays inside */
  bool crit = p->critical[i];
  uint64_t d = dataset_of(rs, p, i);
  fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" "
             "stroke-width=\"%s\" class=\"%s\" data-transition=\"",
          x, y, w, BAR_H, p->dag ? COLOUR_DAG : palette[d % PALETTE_N],
          crit ? EDGE_CRITICAL : EDGE_BAR, crit ? "2.5" : "0.5",
          crit ? "firing critical" : "firing");
  xml_text(f, stp_graph_transition_name(g, t));
  fprintf(f, "\" data-firing=\"%zu\" data-dataset=\"%llu\" data-row=\"", i / p->n,
          (unsigned long long)d);
  xml_text(f, rs->label[row]);
  fprintf(f, "\" data-start=\"%.17g\" data-end=\"%.17g\"><title>", p->start[i], p->end[i]);
  xml_text(f, stp_graph_transition_name(g, t));
  fprintf(f, " (firing %zu", i / p->n);
  if (rs->paths > 1)
    fprintf(f, ", data set %llu", (unsigned long long)d);
  fprintf(f, "): %.6g to %.6g</title></rect>\n", p->start[i], p->end[i]);
  char num[24];
  int len = snprintf(num, sizeof num, "%llu", (unsigned long long)d);
  if (!p->dag && w >= 6.0 * len + 4)
    fprintf(f, "<text x=\"%.2f\" y=\"%d\" font-size=\"9\" text-anchor=\"middle\" "
               "fill=\"#222\" class=\"dataset\">%s</text>\n",
            x + w / 2, y + BAR_H - 4, num);
}

static size_t count_bars(const played *p, const rowset *rs) {
  size_t n = 0;
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    if (drawn(p, i))
      n += 1 + (rs->of[i % p->n][1] != SIZE_MAX);
  return n;
}

/* The axis: the window, widened to the last end drawn so that no bar is cut. */
static layout layout_of(const played *p, const rowset *rs) {
  size_t longest = 4;
  for (size_t r = 0; r < rs->nrows; r++)
    longest = longest > strlen(rs->label[r]) ? longest : strlen(rs->label[r]);
  layout l = {.t0 = p->t0, .t1 = p->t1, .left = (int)fmin(fmax(7.0 * (double)longest + 16, 60), 300)};
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    if (drawn(p, i))
      l.t1 = fmax(l.t1, p->end[i]);
  if (!(l.t1 > l.t0) || !isfinite(l.t1 - l.t0))
    l.t1 = l.t0 + 1;
  l.plot_w = WIDTH - l.left - RIGHT;
  l.plot_h = (int)rs->nrows * ROW_H;
  return l;
}

static void svg_head(FILE *f, const stp_graph *g, const stp_gantt_options *o, const played *p,
                     const layout *l, int height) {
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
          WIDTH, height, WIDTH, height);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", l->left);
  xml_text(f, o->title ? o->title : stp_graph_name(g));
  fprintf(f, "</text>\n<text x=\"%d\" y=\"36\" font-size=\"11\" fill=\"#333\">", l->left);
  size_t outputs = stp_graph_output_count(g);
  char each[64] = "";
  if (outputs > 1)
    snprintf(each, sizeof each, " (%zu data sets each)", outputs);
  if (!p->dag && !o->random)
    fprintf(f, "%s, %d period%s of %.6g%s from %.6g", p->periodic ? "periodic steady state"
                                                     : "earliest schedule (not yet periodic)",
            p->periods, p->periods > 1 ? "s" : "", p->lambda, each, p->t0);
  else if (!p->dag)
    fprintf(f, "one simulated run, the firings that start from %.6g to %.6g (after %llu rounds)",
            p->t0, p->t1, (unsigned long long)p->k0);
  else
    fprintf(f, "%s, makespan %.6g", o->random ? "one simulated run" : "the schedule", p->t1);
  fprintf(f, "</text>\n");
}

/* Row labels and one band per group (a processor's rows share one). */
static void svg_rows(FILE *f, const rowset *rs, const layout *l) {
  for (size_t r = 0; r < rs->nrows; r++) {
    int y = TOP + (int)r * ROW_H;
    if (rs->group[r] % 2)
      fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f0f0f0\"/>\n",
              l->left, y, l->plot_w, ROW_H);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\" class=\"row\">",
            l->left - 6, y + ROW_H - 6);
    xml_text(f, rs->label[r]);
    fprintf(f, "</text>\n");
  }
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\" "
             "class=\"plot\" data-t0=\"%.17g\" data-t1=\"%.17g\"/>\n",
          l->left, TOP, l->plot_w, l->plot_h, l->t0, l->t1);
}

/* What the colours, the numbers, the red outline and the dashes mean. */
static void svg_legend(FILE *f, const stp_gantt_options *o, const played *p, const rowset *rs,
                       const layout *l, int y) {
  fprintf(f, "<g class=\"legend\" font-size=\"11\" fill=\"#333\">\n");
  int x = l->left;
  if (!p->dag) {
    const char *what = rs->paths > 1 ? "data set" : "firing";
    fprintf(f, "<text x=\"%d\" y=\"%d\">colour and number in the bar: the %s (modulo %zu)</text>\n",
            x, y + 11, what, PALETTE_N);
    x += 330;
    for (size_t k = 0; k < PALETTE_N; k++, x += 34)
      fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\" stroke=\"%s\" "
                 "stroke-width=\"0.5\"/><text x=\"%d\" y=\"%d\">%zu</text>\n",
              x, y, palette[k], EDGE_BAR, x + 17, y + 11, k);
    x += 16;
  }
  const char *red = o->random ? "the chain that bound the last completion drawn"
                    : p->dag  ? "the critical path"
                              : "the critical cycle";
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"12\" fill=\"white\" stroke=\"%s\" "
             "stroke-width=\"2.5\"/><text x=\"%d\" y=\"%d\">red outline: %s</text>\n",
          x, y, EDGE_CRITICAL, x + 28, y + 11, red);
  x += 28 + 7 * (int)strlen(red) + 90;
  if (!p->dag && !o->random)
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\" "
               "stroke-dasharray=\"4,3\"/><text x=\"%d\" y=\"%d\">period</text>\n",
            x, y + 6, x + 22, y + 6, x + 28, y + 11);
  fprintf(f, "</g>\n");
}

static void svg_write(FILE *f, const stp_graph *g, const stp_gantt_options *o, const played *p,
                      const rowset *rs) {
  layout l = layout_of(p, rs);
  int height = TOP + l.plot_h + 4 + AXIS_H + LEGEND_H;
  svg_head(f, g, o, p, &l, height);
  svg_rows(f, rs, &l);
  for (int k = 1; !p->dag && !o->random && k <= p->periods; k++) {
    double t = p->t0 + k * p->lambda;
    if (t < l.t1 - 1e-9 * p->lambda)
      fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#888\" "
                 "stroke-dasharray=\"4,3\" class=\"period\"/>\n",
              x_of(&l, t), TOP, x_of(&l, t), TOP + l.plot_h);
  }
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    for (int k = 0; k < 2 && drawn(p, i); k++)
      if (rs->of[i % p->n][k] != SIZE_MAX)
        svg_bar(f, g, p, rs, &l, i, rs->of[i % p->n][k]);
  svg_axis(f, &l, TOP + l.plot_h + 4, o->time_unit);
  svg_legend(f, o, p, rs, &l, TOP + l.plot_h + 4 + AXIS_H);
  fprintf(f, "</svg>\n");
}

/* ---- the charts ----------------------------------------------------------------------- */

static stp_status check_options(const stp_gantt_options *o, stp_error *err) {
  if (o->periods < 0 || o->periods > STP_GANTT_MAX_PERIODS)
    return stp__fail(err, STP_EINVAL, "periods: %d is not in 1 to %d", o->periods,
                     STP_GANTT_MAX_PERIODS);
  return STP_OK;
}

/* Play g, check the size, write: rows already given in rs. */
static stp_status draw(const stp_graph *g, const stp_gantt_options *o, const rowset *rs, FILE *f,
                       stp_error *err) {
  played p = {0};
  stp_status st = play_graph(g, o, &p, err);
  size_t bars = st == STP_OK ? count_bars(&p, rs) : 0;
  if (st == STP_OK && bars > STP_GANTT_MAX_BARS)
    st = stp__fail(err, STP_ELIMIT, "the chart would draw %zu activities, more than %d: %s",
                   bars, STP_GANTT_MAX_BARS,
                   p.dag ? "draw a smaller instance" : "draw fewer periods or a smaller instance");
  if (st == STP_OK) {
    void *locale = stp__c_locale_enter();
    svg_write(f, g, o, &p, rs);
    stp__c_locale_leave(locale);
  }
  played_free(&p);
  return st;
}

stp_status stp_graph_gantt_svg(const stp_graph *g, const stp_gantt_options *o, FILE *f,
                               stp_error *err) {
  stp_gantt_options def;
  if (!o)
    stp_gantt_options_init(&def), o = &def;
  STP_CHECK(check_options(o, err));
  rowset rs;
  stp_status st = rows_by_resource(g, &rs, err);
  if (st == STP_OK)
    st = draw(g, o, &rs, f, err);
  rows_free(&rs);
  return st;
}

stp_status stp_mapping_gantt_svg(const stp_mapping *m, stp_model model,
                                 const stp_gantt_options *o, FILE *f, stp_error *err) {
  stp_gantt_options opt;
  if (o)
    opt = *o;
  else
    stp_gantt_options_init(&opt);
  STP_CHECK(check_options(&opt, err));
  stp_graph *g = NULL;
  STP_CHECK(stp_mapping_graph(m, model, &g, err));
  char title[600];
  if (!opt.title) {
    uint64_t paths = 0;
    stp_error ignored = {0};
    (void)stp_mapping_paths(m, &paths, &ignored);
    snprintf(title, sizeof title, "%s: %s model, %llu paths", stp_mapping_name(m),
             stp_model_name(model), (unsigned long long)paths);
    opt.title = title;
  }
  rowset rs;
  stp_status st = rows_by_processor(m, model, g, &rs, err);
  if (st == STP_OK)
    st = draw(g, &opt, &rs, f, err);
  rows_free(&rs);
  stp_graph_free(g);
  return st;
}
