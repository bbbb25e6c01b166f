/* gantt.c: the Gantt charts of cli/gantt.h.  Three steps: play the schedule
 * (stp_graph_trace) long enough to reach the window to draw, pick the
 * window and the critical firings, then write the SVG: a row per resource,
 * a bar per firing that meets the window, an axis in the schedule's time
 * unit, dashed lines at period boundaries. */
#include "cli/gantt.h"

#include "cli/run.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS_FIRST 32                 /* rounds played first; doubled until periodic */
#define TRACE_MAX_FIRINGS 4000000       /* firings played at most for one chart */
#define CYCLICITY_MAX 8                 /* periodicity looked for: x(k + c) = x(k) + c lambda */
#define RANDOM_WARMUP 10                /* rounds before the window of a random run */

/* Layout, in SVG pixels. */
#define WIDTH 1100
#define ROW_H 20
#define BAR_H 14
#define TOP 52
#define BOTTOM 40
#define RIGHT 20

#define COLOUR_BAR "#9ecae1"
#define EDGE_BAR "#3182bd"
#define COLOUR_CRITICAL "#d62728"
#define EDGE_CRITICAL "#7f0000"

#define STP_CHECK_GANTT(expr)        \
  do {                               \
    stp_status s_ = (expr);          \
    if (s_ != STP_OK)                \
      return s_;                     \
  } while (0)

static stp_status fail(stp_error *err, stp_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return err->status = s;
}

/* ---- the schedule and its window ---------------------------------------------------- */

typedef struct played {
  size_t n;            /* transitions */
  uint64_t rounds;
  double *start, *end;
  size_t *cause;
  double t0, t1;       /* the window */
  double lambda;       /* TEG: time between two firings of a transition; 0 for a DAG */
  uint64_t k0;         /* TEG: first round of the window */
  bool periodic;       /* TEG, constant times: the window is in the periodic regime */
  bool *critical;      /* by firing index */
} played;

static void played_free(played *p) {
  free(p->start);
  free(p->end);
  free(p->cause);
  free(p->critical);
}

static stp_status play(const gantt_spec *s, uint64_t rounds, played *p, stp_error *err) {
  played_free(p);
  p->start = p->end = NULL;
  p->cause = NULL;
  p->critical = NULL;
  p->rounds = rounds;
  size_t cells = (size_t)rounds * p->n;
  p->start = malloc(cells * sizeof *p->start);
  p->end = malloc(cells * sizeof *p->end);
  p->cause = malloc(cells * sizeof *p->cause);
  p->critical = calloc(cells, sizeof *p->critical);
  if (!p->start || !p->end || !p->cause || !p->critical)
    return fail(err, STP_ENOMEM, "out of memory for a chart of %zu firings", cells);
  stp_graph_trace_options o;
  stp_graph_trace_options_init(&o);
  o.rounds = rounds;
  o.random = s->random;
  o.law = s->law;
  o.seed = s->seed;
  o.pace = s->random ? 0 : p->lambda; /* constant times: the periodic steady state */
  return stp_graph_trace(s->g, &o, p->start, p->end, p->cause, err);
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

/* The firing with the latest end at or before t1 (SIZE_MAX: none), among
 * the outputs when the graph marks some: the run, or the data set, that
 * completed last. */
static size_t last_before(const stp_graph *g, const played *p, double t1) {
  size_t best = SIZE_MAX;
  bool outputs = stp_graph_output_count(g) > 0;
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    if ((!outputs || stp_graph_transition_is_output(g, i % p->n)) &&
        p->end[i] <= t1 * (1 + 1e-12) && (best == SIZE_MAX || p->end[i] > p->end[best]))
      best = i;
  return best;
}

/* A timed event graph: rounds enough for the window, the window, and its
 * critical firings (Howard's cycle with constant times; the chain that bound
 * the window's last completion in a random run). */
static stp_status play_teg(const gantt_spec *s, const stp_graph_result *r, played *p,
                           stp_error *err) {
  size_t outputs = stp_graph_output_count(s->g);
  p->lambda = r->det_period * (double)(outputs > 1 ? outputs : 1);
  uint64_t max_rounds = TRACE_MAX_FIRINGS / (p->n ? p->n : 1);
  if (max_rounds < 2)
    return fail(err, STP_ELIMIT, "a chart of %zu transitions would need more than %d firings",
                p->n, TRACE_MAX_FIRINGS);
  uint64_t rounds = ROUNDS_FIRST < max_rounds ? ROUNDS_FIRST : max_rounds;
  for (;;) {
    STP_CHECK_GANTT(play(s, rounds, p, err));
    uint64_t k0 = s->random ? RANDOM_WARMUP : periodic_from(p);
    p->periodic = !s->random && k0 != UINT64_MAX;
    if (k0 == UINT64_MAX || k0 >= rounds)
      k0 = rounds > (uint64_t)s->periods + 1 ? rounds - (uint64_t)s->periods - 1 : 0;
    if (p->periodic) { /* start where every transition has fired once already */
      double all = -INFINITY;
      for (size_t t = 0; t < p->n; t++)
        all = fmax(all, p->start[k0 * p->n + t]);
      while (k0 + 1 < rounds && p->start[k0 * p->n + r->critical[0]] < all)
        k0++;
    }
    p->k0 = k0;
    p->t0 = s->random ? round_start(p, k0) : p->start[k0 * p->n + r->critical[0]];
    p->t1 = p->t0 + s->periods * p->lambda;
    bool enough = round_start(p, rounds - 1) >= p->t1; /* every firing of the window played */
    if ((enough && (p->periodic || s->random)) || rounds >= max_rounds)
      break;
    rounds = 2 * rounds < max_rounds ? 2 * rounds : max_rounds;
  }
  if (s->random) {
    mark_chain(p, last_before(s->g, p, p->t1));
    return STP_OK;
  }
  bool *on_cycle = calloc(p->n ? p->n : 1, sizeof *on_cycle);
  if (!on_cycle)
    return fail(err, STP_ENOMEM, "out of memory");
  for (size_t k = 0; k < r->critical_len; k++)
    on_cycle[r->critical[k]] = true;
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    p->critical[i] = on_cycle[i % p->n];
  free(on_cycle);
  return STP_OK;
}

/* An activity DAG: its one run; the critical path (constant times) or the
 * chain that bound the last completion (random). */
static stp_status play_dag(const gantt_spec *s, const stp_graph_result *r, played *p,
                           stp_error *err) {
  STP_CHECK_GANTT(play(s, 1, p, err));
  p->t0 = 0;
  p->t1 = 0;
  for (size_t t = 0; t < p->n; t++)
    p->t1 = fmax(p->t1, p->end[t]);
  if (s->random) {
    mark_chain(p, last_before(s->g, p, p->t1));
  } else {
    for (size_t k = 0; k < r->critical_len; k++)
      p->critical[r->critical[k]] = true;
  }
  if (!(p->t1 > 0))
    p->t1 = 1; /* every time 0: an empty axis of one unit */
  return STP_OK;
}

/* ---- rows ---------------------------------------------------------------------------- */

/* Row of each transition: its resource's, in order of first use; a
 * transition without one gets its own.  first[r]: a transition of row r
 * (its label). */
static size_t *rows_of(const stp_graph *g, size_t *nrows, size_t **first) {
  size_t n = stp_graph_transition_count(g), nres = stp_graph_resource_count(g);
  size_t *row = malloc((n ? n : 1) * sizeof *row), *res_row = malloc((nres + 1) * sizeof *res_row);
  *first = malloc((n ? n : 1) * sizeof **first);
  if (!row || !res_row || !*first) {
    free(row);
    free(res_row);
    free(*first);
    return NULL;
  }
  for (size_t k = 0; k < nres; k++)
    res_row[k] = SIZE_MAX;
  size_t next = 0;
  for (size_t t = 0; t < n; t++) {
    size_t res = stp_graph_transition_resource(g, t);
    size_t *slot = res == SIZE_MAX ? NULL : &res_row[res];
    if (!slot || *slot == SIZE_MAX) {
      (*first)[next] = t;
      if (slot)
        *slot = next;
      next++;
    }
    row[t] = slot ? *slot : next - 1;
  }
  free(res_row);
  *nrows = next;
  return row;
}

static const char *row_label(const stp_graph *g, const size_t *first, size_t r) {
  size_t t = first[r], res = stp_graph_transition_resource(g, t);
  return res == SIZE_MAX ? stp_graph_transition_name(g, t) : stp_graph_resource_name(g, res);
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
  double t0, t1;
  int left, plot_w;
} layout;

static double x_of(const layout *l, double t) {
  return l->left + (t - l->t0) / (l->t1 - l->t0) * l->plot_w;
}

static void svg_axis(FILE *f, const layout *l, int y) {
  fprintf(f, "<g class=\"axis\" font-size=\"11\" fill=\"#333\">\n");
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", l->left, y,
          l->left + l->plot_w, y);
  double step = tick_step(l->t1 - l->t0);
  for (double t = ceil(l->t0 / step) * step; t <= l->t1 + 1e-9 * step; t += step) {
    double x = x_of(l, t);
    fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#333\"/>", x, y, x,
            y + 4);
    fprintf(f, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n", x, y + 16, t);
  }
  fprintf(f, "</g>\n");
}

static void svg_bar(FILE *f, const stp_graph *g, const played *p, const layout *l, size_t i,
                    int y) {
  size_t t = i % p->n;
  double a = fmax(p->start[i], l->t0), b = fmin(p->end[i], l->t1);
  double x = x_of(l, a), w = fmax(x_of(l, b) - x, 1.0);
  bool crit = p->critical[i];
  fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" "
             "stroke-width=\"0.5\" class=\"%s\" data-transition=\"",
          x, y, w, BAR_H, crit ? COLOUR_CRITICAL : COLOUR_BAR, crit ? EDGE_CRITICAL : EDGE_BAR,
          crit ? "firing critical" : "firing");
  xml_text(f, stp_graph_transition_name(g, t));
  fprintf(f, "\" data-firing=\"%zu\" data-start=\"%.17g\" data-end=\"%.17g\"><title>",
          i / p->n, p->start[i], p->end[i]);
  xml_text(f, stp_graph_transition_name(g, t));
  fprintf(f, " (firing %zu): %.6g to %.6g</title></rect>\n", i / p->n, p->start[i], p->end[i]);
}

/* Bars of the window: firings of positive duration that meet [t0, t1]. */
static size_t count_bars(const played *p) {
  size_t n = 0;
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    n += p->end[i] > p->start[i] && p->end[i] > p->t0 && p->start[i] < p->t1;
  return n;
}

static void svg_write(FILE *f, const gantt_spec *s, const played *p, const size_t *row,
                      const size_t *first, size_t nrows) {
  size_t longest = 4;
  for (size_t r = 0; r < nrows; r++)
    longest = (size_t)fmax((double)longest, (double)strlen(row_label(s->g, first, r)));
  layout l = {.t0 = p->t0, .t1 = p->t1, .left = (int)fmin(fmax(7.0 * (double)longest + 16, 60), 300)};
  l.plot_w = WIDTH - l.left - RIGHT;
  int height = TOP + (int)nrows * ROW_H + BOTTOM;
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
          WIDTH, height, WIDTH, height);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", l.left);
  xml_text(f, s->title);
  fprintf(f, "</text>\n<text x=\"%d\" y=\"36\" font-size=\"11\" fill=\"#333\">", l.left);
  size_t outputs = stp_graph_output_count(s->g);
  char each[64] = "";
  if (outputs > 1)
    snprintf(each, sizeof each, " (%zu data sets each)", outputs);
  if (p->lambda > 0 && !s->random)
    fprintf(f, "%s, %d period%s of %.6g%s from %.6g; red: the critical cycle",
            p->periodic ? "periodic steady state" : "earliest schedule (not yet periodic)",
            s->periods, s->periods > 1 ? "s" : "", p->lambda, each, p->t0);
  else if (p->lambda > 0)
    fprintf(f, "one simulated run, %.6g to %.6g (after %llu rounds); red: the chain that "
               "bound the last completion drawn", p->t0, p->t1, (unsigned long long)p->k0);
  else
    fprintf(f, "%s, makespan %.6g; red: the critical %s",
            s->random ? "one simulated run" : "the schedule", p->t1,
            s->random ? "chain" : "path");
  fprintf(f, "</text>\n");
  for (size_t r = 0; r < nrows; r++) { /* row bands and labels */
    int y = TOP + (int)r * ROW_H;
    if (r % 2)
      fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n",
              l.left, y, l.plot_w, ROW_H);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\" class=\"row\">",
            l.left - 6, y + ROW_H - 6);
    xml_text(f, row_label(s->g, first, r));
    fprintf(f, "</text>\n");
  }
  for (int k = 1; p->lambda > 0 && !s->random && k < s->periods; k++) {
    double x = x_of(&l, p->t0 + k * p->lambda);
    fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#888\" "
               "stroke-dasharray=\"4,3\" class=\"period\"/>\n",
            x, TOP, x, TOP + (int)nrows * ROW_H);
  }
  for (size_t i = 0; i < (size_t)p->rounds * p->n; i++)
    if (p->end[i] > p->start[i] && p->end[i] > p->t0 && p->start[i] < p->t1)
      svg_bar(f, s->g, p, &l, i, TOP + (int)row[i % p->n] * ROW_H + (ROW_H - BAR_H) / 2);
  svg_axis(f, &l, TOP + (int)nrows * ROW_H + 4);
  fprintf(f, "</svg>\n");
}

stp_status gantt_write(FILE *f, const gantt_spec *s, stp_error *err) {
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 0;
  stp_graph_result r;
  STP_CHECK_GANTT(stp_graph_analyze(s->g, &go, &r, err));
  played p = {.n = stp_graph_transition_count(s->g)};
  bool dag = r.is_dag;
  stp_status st = dag && s->periods_given
                      ? fail(err, STP_EINVAL, "--periods: this chart is the one run of an activity "
                             "DAG, which has no periods (they belong to timed event graphs)")
                  : dag ? play_dag(s, &r, &p, err)
                        : play_teg(s, &r, &p, err);
  stp_graph_result_free(&r);
  size_t nrows = 0, *row = NULL, *first = NULL, bars = st == STP_OK ? count_bars(&p) : 0;
  if (st == STP_OK && bars > GANTT_MAX_BARS)
    st = fail(err, STP_ELIMIT, "the chart would draw %zu activities, more than %d: %s", bars,
              GANTT_MAX_BARS,
              dag ? "draw a smaller instance" : "draw fewer periods (--periods 1) or a smaller "
                                                "instance");
  if (st == STP_OK && !(row = rows_of(s->g, &nrows, &first)))
    st = fail(err, STP_ENOMEM, "out of memory");
  if (st == STP_OK)
    svg_write(f, s, &p, row, first, nrows);
  free(row);
  free(first);
  played_free(&p);
  return st;
}

/* ---- the command line ------------------------------------------------------------------ */

bool cli_parse_gantt(const cli_command *cmd, const cli_args *a, bool *on, gantt_spec *s,
                     stp_law **law) {
  *s = (gantt_spec){.periods = GANTT_DEFAULT_PERIODS, .seed = 1};
  *law = NULL;
  *on = cli_flag(cmd, a, "gantt");
  const char *v = cli_get(cmd, a, "periods");
  uint64_t periods;
  if (v && !*on) {
    cli_usage_error(cmd, "--periods needs --gantt");
    return false;
  }
  if (v && !cli_parse_u64(cmd, "periods", v, 1, 100, &periods))
    return false;
  if (v)
    s->periods = (int)periods;
  s->periods_given = v != NULL;
  if (!*on || cli_get(cmd, a, "simulate"))
    return true; /* --law and --seed belong to --simulate */
  if ((v = cli_get(cmd, a, "seed")) && !cli_parse_u64(cmd, "seed", v, 0, UINT64_MAX, &s->seed))
    return false;
  if ((v = cli_get(cmd, a, "law"))) {
    stp_error err = {0};
    if (stp_law_parse(v, NULL, law, &err) != STP_OK) {
      cli_usage_error(cmd, "--law: %s", err.message);
      return false;
    }
    s->law = *law;
  }
  s->random = cli_get(cmd, a, "law") || cli_get(cmd, a, "seed");
  return true;
}

int cli_gantt(const gantt_spec *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  stp_error err = {0};
  stp_status st = gantt_write(mem, s, &err);
  fclose(mem);
  int rc = st == STP_OK ? (cli_write_record(stdout, buf, len) ? CLI_OK : CLI_FAILURE)
                        : cli_report_error(&err);
  free(buf);
  return rc;
}
