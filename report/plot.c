/* plot.c: the pictures of explain (streamtp_plot.h), as SVG a person reads
 * without hovering: a sweep's throughputs against the varied value, with
 * the N.B.U.E. band and the points where the critical resource changes
 * marked with the new name; the sensitivities as a bar chart.  The
 * geometry (axes, nice ticks, log scales) is computed here; every mark a
 * test checks carries its value in a data- attribute. */
#include "base/core.h"
#include "base/numfmt.h"
#include "report/record.h"
#include "streamtp_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 820.0
#define H 440.0
#define LEFT 80.0
#define RIGHT 230.0 /* the legend */
#define TOP 40.0
#define BOTTOM 60.0

static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                     "#8c564b", "#e377c2", "#17becf"};

/* ---- axes --------------------------------------------------------------------------- */
typedef struct axis {
  double lo, hi;
  bool log;
  double px0, px1; /* pixels of lo and hi */
} axis;

static double to_px(const axis *a, double v) {
  double t = a->log ? (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo))
                    : (v - a->lo) / (a->hi - a->lo);
  return a->px0 + t * (a->px1 - a->px0);
}

/* 1, 2 or 5 times a power of ten, about span / 6. */
static double nice_step(double span) {
  double raw = span / 6, p = pow(10, floor(log10(raw))), f = raw / p;
  return p * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

static void widen(axis *a) {
  if (a->hi <= a->lo) { /* one value: a range around it */
    double d = a->lo != 0 ? fabs(a->lo) * 0.1 : 1;
    a->lo -= a->log ? 0 : d;
    a->hi += d;
    if (a->log)
      a->lo /= 1.2, a->hi = a->hi * 1.2;
  }
}

/* Loops over ticks end whatever the axis holds (issue 34, found by
 * fuzz/fuzz_svg.c): a log axis spans at most this many decades (1e-308 to
 * 1e308 is 617), a linear one at most MAX_TICKS ticks, and stops where a
 * step no longer moves the value (a range of a few ulps, 1e17 to 1e17 +
 * 16, had looped forever). */
#define MAX_DECADES 700
#define MAX_TICKS 64

static void ticks(FILE *f, const axis *a, bool x, double other0, double other1) {
  if (a->log) {
    double d0 = pow(10, floor(log10(a->lo)));
    if (!(d0 > 0) || !isfinite(d0))
      return;
    int decades = 0;
    for (double d = d0; d <= a->hi * 1.0001 && decades < MAX_DECADES; d *= 10, decades++)
      for (int m = 1; m < 10; m++) {
        double v = d * m;
        if (v < a->lo * 0.9999 || v > a->hi * 1.0001)
          continue;
        double p = to_px(a, v);
        bool major = m == 1 || m == 2 || m == 5;
        if (x)
          fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", p,
                  other0, p, other1);
        if (major)
          stp__fprintf(f, x ? "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n"
                            : "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                       x ? p : other0 - 6, x ? other1 + 18 : p + 4, v);
      }
    return;
  }
  double step = nice_step(a->hi - a->lo);
  if (!(step > 0) || !isfinite(step))
    return;
  int count = 0;
  for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 && count < MAX_TICKS;
       v = v + step > v ? v + step : INFINITY, count++) {
    double p = to_px(a, v), shown = fabs(v) < step * 1e-9 ? 0 : v;
    if (x)
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", p,
              other0, p, other1);
    else
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
              other0, p, other1, p);
    stp__fprintf(f, x ? "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.6g</text>\n"
                      : "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.6g</text>\n",
                 x ? p : other0 - 6, x ? other1 + 18 : p + 4, shown);
  }
}

/* Names (parameters, resources, titles: any bytes a mapping file holds)
 * as XML text: stp_write_xml_text also replaces what XML refuses (bytes
 * that are not UTF-8, control characters, U+FFFE, U+FFFF; issue 34, found
 * by fuzz/fuzz_svg.c), which the pictures of --gantt already did. */
static void escaped(FILE *f, const char *s) { stp_write_xml_text(f, s); }

static void header(FILE *f, double w, double h, const char *title) {
  stp__fprintf(f,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
               "<style>.grid{stroke:#ddd;stroke-width:1}.axis{stroke:#000;stroke-width:1}"
               "text{fill:#000}</style>\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
               "<text x=\"%.1f\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">",
               w, h, w, h, w / 2);
  escaped(f, title);
  fputs("</text>\n", f);
}

/* ---- the sweep plot ------------------------------------------------------------------- */
typedef struct sweep_args {
  const stp_vary *const *vary;
  size_t nvary;
  const stp_sweep_point *pts;
  size_t n;
  const char *title;
} sweep_args;

typedef double (*value_fn)(const stp_sweep_point *p);
static double v_det(const stp_sweep_point *p) { return p->result->det_throughput; }
static double v_exp(const stp_sweep_point *p) {
  return p->result->exp_available ? p->result->exp_throughput : NAN;
}
static double v_law(const stp_sweep_point *p) {
  return p->result->exact_law.available ? p->result->exact_law.throughput : NAN;
}

/* The points of one curve: those with the second vary's value `second`
 * (every point when one vary), in order. */
static bool in_curve(const sweep_args *a, size_t k, double second) {
  return a->nvary < 2 || a->pts[k].vary[1] == second;
}

static void polyline(FILE *f, const sweep_args *a, const axis *x, const axis *y, value_fn fn,
                     double second, const char *col, const char *dash, const char *cls) {
  fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
          cls, col, dash);
  for (size_t k = 0; k < a->n; k++) {
    double v = fn(&a->pts[k]);
    if (in_curve(a, k, second) && isfinite(v))
      fprintf(f, "%.2f,%.2f ", to_px(x, a->pts[k].vary[0]), to_px(y, v));
  }
  fputs("\"/>\n", f);
}

/* The N.B.U.E. band: between exp (lower) and det (upper), where both are. */
static void band(FILE *f, const sweep_args *a, const axis *x, const axis *y, double second) {
  fputs("<polygon class=\"nbue\" fill=\"#1f77b4\" fill-opacity=\"0.12\" stroke=\"none\" points=\"",
        f);
  for (size_t k = 0; k < a->n; k++)
    if (in_curve(a, k, second) && isfinite(v_exp(&a->pts[k])))
      fprintf(f, "%.2f,%.2f ", to_px(x, a->pts[k].vary[0]), to_px(y, v_det(&a->pts[k])));
  for (size_t k = a->n; k-- > 0;)
    if (in_curve(a, k, second) && isfinite(v_exp(&a->pts[k])))
      fprintf(f, "%.2f,%.2f ", to_px(x, a->pts[k].vary[0]), to_px(y, v_exp(&a->pts[k])));
  fputs("\"/>\n", f);
}

static bool same_critical(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* A mark on the det curve where the critical resource differs from the
 * previous point's, with the new name. */
static void changes(FILE *f, const sweep_args *a, const axis *x, const axis *y, double second) {
  const char *prev = NULL;
  bool first = true;
  for (size_t k = 0; k < a->n; k++) {
    if (!in_curve(a, k, second))
      continue;
    const stp_sweep_point *p = &a->pts[k];
    if (!first && !same_critical(prev, p->critical)) {
      double px = to_px(x, p->vary[0]), py = to_px(y, v_det(p));
      stp__fprintf(f,
                   "<circle class=\"change\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"#fff\" "
                   "stroke=\"#000\" stroke-width=\"2\" data-value=\"%.17g\" data-critical=\"",
                   px, py, p->vary[0]);
      escaped(f, p->critical ? p->critical : "none");
      fprintf(f, "\"/>\n<text class=\"change-label\" x=\"%.2f\" y=\"%.2f\" "
                 "text-anchor=\"middle\">",
              px, py - 10);
      escaped(f, p->critical ? p->critical : "no critical resource");
      fputs("</text>\n", f);
    }
    prev = p->critical;
    first = false;
  }
}

static void sim_bars(FILE *f, const sweep_args *a, const axis *x, const axis *y, double second) {
  for (size_t k = 0; k < a->n; k++) {
    const stp_sweep_point *p = &a->pts[k];
    if (!in_curve(a, k, second) || !p->sim)
      continue;
    double px = to_px(x, p->vary[0]);
    fprintf(f,
            "<line class=\"sim-ci\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
            "stroke=\"#444\"/>\n<circle class=\"sim\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
            "fill=\"#444\"/>\n",
            px, to_px(y, p->sim->ci_low), px, to_px(y, p->sim->ci_high), px,
            to_px(y, p->sim->throughput));
  }
}

static void legend_entry(FILE *f, double y, const char *col, const char *dash, const char *text,
                         bool box) {
  double x = W - RIGHT + 16;
  if (box)
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"10\" fill=\"#1f77b4\" "
               "fill-opacity=\"0.12\"/>\n",
            x, y - 9);
  else
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-width=\"2\"%s/>\n",
            x, y - 4, x + 24, y - 4, col, dash);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 30, y);
  escaped(f, text);
  fputs("</text>\n", f);
}

/* The values along y: every throughput drawn, and the intervals. */
static void y_range(const sweep_args *a, axis *y) {
  y->lo = INFINITY;
  y->hi = -INFINITY;
  for (size_t k = 0; k < a->n; k++) {
    const stp_sweep_point *p = &a->pts[k];
    double v[5] = {v_det(p), v_exp(p), v_law(p), p->sim ? p->sim->ci_low : NAN,
                   p->sim ? p->sim->ci_high : NAN};
    for (int j = 0; j < 5; j++)
      if (isfinite(v[j])) {
        y->lo = fmin(y->lo, v[j]);
        y->hi = fmax(y->hi, v[j]);
      }
  }
  if (y->lo > 0) /* throughputs from 0 */
    y->lo = 0;
  y->hi *= 1.08;
  widen(y);
}

static void put_sweep(FILE *f, const void *arg) {
  const sweep_args *a = arg;
  const stp_vary *v = a->vary[0];
  axis x = {fmin(v->from, v->to), fmax(v->from, v->to), v->log != 0, LEFT, W - RIGHT};
  axis y = {0, 0, false, H - BOTTOM, TOP};
  widen(&x);
  y_range(a, &y);
  header(f, W, H, a->title);
  ticks(f, &x, true, TOP, H - BOTTOM);
  ticks(f, &y, false, LEFT, W - RIGHT);
  fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
             "class=\"axis\"/>\n",
          LEFT, TOP, W - RIGHT - LEFT, H - BOTTOM - TOP);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (LEFT + W - RIGHT) / 2,
          H - 18);
  escaped(f, v->label);
  fprintf(f, "%s</text>\n", v->log ? " (log scale)" : "");
  fprintf(f, "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">"
             "throughput (data sets per time unit)</text>\n",
          (TOP + H - BOTTOM) / 2);
  size_t curves = a->nvary < 2 ? 1 : a->vary[1]->n;
  double ly = TOP + 12;
  for (size_t c = 0; c < curves; c++) {
    double second = a->nvary < 2 ? 0 : stp_vary_value(a->vary[1], c);
    const char *col = colour[c % 8];
    if (curves == 1)
      band(f, a, &x, &y, second);
    polyline(f, a, &x, &y, v_det, second, col, "", "det");
    polyline(f, a, &x, &y, v_exp, second, col, " stroke-dasharray=\"6,4\"", "exp");
    polyline(f, a, &x, &y, v_law, second, col, " stroke-dasharray=\"2,3\"", "law");
    sim_bars(f, a, &x, &y, second);
    changes(f, a, &x, &y, second);
    if (curves > 1) {
      char text[160];
      stp__snprintf(text, sizeof text, "%s = %g", a->vary[1]->label, second);
      legend_entry(f, ly, col, "", text, false);
      ly += 18;
    }
  }
  legend_entry(f, ly, "#000", "", "deterministic", false);
  legend_entry(f, ly + 18, "#000", " stroke-dasharray=\"6,4\"", "exponential", false);
  ly += 36;
  bool law = false, sim = false;
  for (size_t k = 0; k < a->n; k++) {
    law |= isfinite(v_law(&a->pts[k]));
    sim |= a->pts[k].sim != NULL;
  }
  if (law) {
    legend_entry(f, ly, "#000", " stroke-dasharray=\"2,3\"", "under the law", false);
    ly += 18;
  }
  if (curves == 1) {
    legend_entry(f, ly, NULL, "", "N.B.U.E. band", true);
    ly += 18;
  }
  if (sim) {
    legend_entry(f, ly, "#444", "", "simulation, 95 % interval", false);
    ly += 18;
  }
  fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#fff\" stroke=\"#000\" "
             "stroke-width=\"2\"/>\n<text x=\"%.1f\" y=\"%.1f\">critical resource "
             "changes</text>\n</svg>\n",
          W - RIGHT + 28, ly - 4, W - RIGHT + 46, ly);
}

stp_status stp_sweep_plot_svg(const stp_vary *const *vary, size_t nvary,
                              const stp_sweep_point *points, size_t n, const char *title,
                              char **svg, size_t *len, stp_error *err) {
  if (!svg)
    return stp__fail(err, STP_EINVAL, "stp_sweep_plot_svg: svg is NULL");
  *svg = NULL;
  if (!vary || nvary < 1 || nvary > 2 || !points || n == 0)
    return stp__fail(err, STP_EINVAL, "stp_sweep_plot_svg: 1 or 2 varies and some points");
  for (size_t k = 0; k < n; k++)
    if (!points[k].result || points[k].nvary != nvary)
      return stp__fail(err, STP_EINVAL, "stp_sweep_plot_svg: point %zu has no result", k);
  sweep_args a = {vary, nvary, points, n, title ? title : "throughput"};
  void *loc = stp__c_locale_enter();
  stp_status s = stp__render(put_sweep, &a, svg, len, err);
  stp__c_locale_leave(loc);
  return s;
}

/* ---- the sensitivity bar chart -------------------------------------------------------- */
typedef struct bars_args {
  const stp_sensitivity_result *r;
  stp_rank_by by;
  size_t top;
  const char *title;
} bars_args;

static const stp_slope *slope_by(const stp_sensitivity *it, stp_rank_by by) {
  return by == STP_RANK_LAW ? &it->law : by == STP_RANK_EXP ? &it->exp : &it->det;
}

static void put_bars(FILE *f, const void *arg) {
  const bars_args *a = arg;
  size_t n = a->r->n < a->top ? a->r->n : a->top;
  double row = 24, h = TOP + 30 + row * (double)n + BOTTOM, label_w = 200, w = W;
  double lo = 0, hi = 0;
  for (size_t k = 0; k < n; k++) {
    double e = slope_by(&a->r->items[k], a->by)->elasticity;
    if (isfinite(e)) {
      lo = fmin(lo, e);
      hi = fmax(hi, e);
    }
  }
  axis x = {lo, hi, false, label_w, w - 70}; /* room for the values */
  widen(&x);
  header(f, w, h, a->title);
  ticks(f, &x, true, TOP + 10, h - BOTTOM);
  double zero = to_px(&x, 0);
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n", zero,
          TOP + 10, zero, h - BOTTOM);
  for (size_t k = 0; k < n; k++) {
    const stp_sensitivity *it = &a->r->items[k];
    const stp_slope *s = slope_by(it, a->by);
    double y0 = TOP + 20 + row * (double)k, e = isfinite(s->elasticity) ? s->elasticity : 0;
    double px = to_px(&x, e);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s ", label_w - 8, y0 + 13,
            stp_param_kind_name(it->kind));
    escaped(f, it->of);
    fputs("</text>\n", f);
    stp__fprintf(f,
                 "<rect class=\"bar\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"16\" "
                 "fill=\"%s\" data-elasticity=\"%.17g\" data-parameter=\"%s:",
                 fmin(px, zero), y0, fabs(px - zero), e >= 0 ? "#2ca02c" : "#d62728", e,
                 stp_param_kind_name(it->kind));
    escaped(f, it->of);
    fputs("\"/>\n", f);
    stp__fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"11\">%.3g</text>\n",
                 e >= 0 ? fmax(px, zero) + 4 : fmin(px, zero) - 4, y0 + 12,
                 e >= 0 ? "start" : "end", e);
    if (s->left != s->right && isfinite(s->left)) /* a kink: the other side as a tick */
      fprintf(f, "<line class=\"left\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
                 "stroke=\"#000\" stroke-width=\"2\"/>\n",
              to_px(&x, s->left), y0 - 2, to_px(&x, s->left), y0 + 18);
  }
  stp__fprintf(f,
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">elasticity (%% of throughput "
               "per %% of the parameter, increasing it)</text>\n"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">a black tick: the "
               "elasticity when decreasing it, where they differ</text>\n</svg>\n",
               (label_w + w - 40) / 2, h - 24, (label_w + w - 40) / 2, h - 8);
}

stp_status stp_sensitivity_plot_svg(const stp_sensitivity_result *r, stp_rank_by by, size_t top,
                                    const char *title, char **svg, size_t *len, stp_error *err) {
  if (!svg)
    return stp__fail(err, STP_EINVAL, "stp_sensitivity_plot_svg: svg is NULL");
  *svg = NULL;
  if (!r)
    return stp__fail(err, STP_EINVAL, "stp_sensitivity_plot_svg: no sensitivities");
  bars_args a = {r, by, top ? top : r->n, title ? title : "sensitivities"};
  void *loc = stp__c_locale_enter();
  stp_status s = stp__render(put_bars, &a, svg, len, err);
  stp__c_locale_leave(loc);
  return s;
}
