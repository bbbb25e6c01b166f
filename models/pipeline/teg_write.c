/* teg_write.c: the full event graph of a mapping, summarised or drawn in
 * Graphviz dot format (stp_mapping_teg_summary, stp_mapping_write_dot),
 * with its critical cycle (Howard's) marked. */
#include "base/core.h"
#include "base/numfmt.h"
#include "models/pipeline/teg.h"
#include "solvers/mcr_howard.h"

#include <stdio.h>
#include <stdlib.h>

/* Names of any bytes, inside a DOT quoted string (streamtp_base.h). */
static void dot_escape(FILE *f, const char *s) { stp_write_dot_text(f, s); }

/* Critical cycle of the graph (Howard), as a flag per place: for each
 * step u -> v of the cycle, the place u -> v with the fewest tokens (the
 * one that attains the ratio when places run in parallel).  A token-free
 * cycle (a deadlock) is marked instead.  *what says which, NULL when none. */
static stp_status critical_places(const stp_teg *t, uint8_t **mark, const char **what,
                                  double *ratio, stp_error *err) {
  const stp_digraph *g = t->g;
  *what = NULL;
  *mark = calloc(g->m ? g->m : 1, 1);
  if (!*mark)
    return stp__oom(err, "drawing the event graph");
  stp_mcr_result r = {0};
  stp_error herr = {0};
  stp_status s = stp__mcr_howard(g, NULL, &r, &herr);
  if ((s == STP_OK && r.has_cycle) || (s == STP_EDEADLOCK && r.cycle_len)) {
    *what = s == STP_OK ? "critical cycle" : "deadlock: cycle without token";
    *ratio = s == STP_OK ? r.ratio : 0;
    for (size_t k = 0; k < r.cycle_len; k++) {
      uint32_t u = r.cycle[k], v = r.cycle[(k + 1) % r.cycle_len];
      uint64_t best = UINT64_MAX;
      for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
        if (g->dst[e] == v && (best == UINT64_MAX || g->tok[e] < g->tok[best]))
          best = e;
      if (best != UINT64_MAX)
        (*mark)[best] = 1;
    }
    s = STP_OK;
  } else if (s == STP_ENOMEM || s == STP_EINTERRUPTED) {
    *err = herr;
  } else {
    s = STP_OK; /* nothing to mark; the drawing is still useful */
  }
  stp__mcr_result_clear(&r);
  if (s != STP_OK) {
    free(*mark);
    *mark = NULL;
  }
  return s;
}

/* A grid: column c at x = c, row j at y = -j (positions pinned, so rows
 * stay in order and columns aligned whatever the places), laid out by
 * neato (the graph says so: `dot -Tsvg` follows it), whose spline router
 * keeps every edge: dot's, with the round-robin places inside a column as
 * flat edges, lost some ("lost edge" errors).  One edge per place, with its
 * own id "pK" (K: the place's index), so that parallel places stay
 * distinct; the critical cycle in blue. */
/* Curved edges route around the boxes and keep parallel places apart, but
 * Graphviz's spline router grows fast with the edges: a Strict graph of 840
 * places took over 5 minutes in `dot -Tsvg`, 0.3 s with straight edges.
 * Beyond this many places the edges are straight lines. */
#define DOT_CURVED_MAX_PLACES 300

static void print_dot(FILE *f, const stp_teg *t, const uint8_t *crit, const char *what,
                      double ratio) {
  const stp_mapping *m = t->map;
  fprintf(f, "digraph teg {\n  layout=neato;\n  splines=%s;\n"
             "  node [shape=box, fontsize=10, width=1.1, height=0.5];\n",
          t->g->m > DOT_CURVED_MAX_PLACES ? "line" : "true");
  fprintf(f, "  label=\"");
  dot_escape(f, m->name);
  fprintf(f, " (%s): %llu rows x %u columns", stp_model_name(t->model),
          (unsigned long long)t->nrows, t->ncols);
  if (what && ratio > 0)
    fprintf(f, "; blue: %s, ratio %.10g (period %.10g per data set)", what, ratio,
            ratio / (double)t->nrows);
  else if (what)
    fprintf(f, "; blue: %s", what);
  fputs("\";\n", f);
  for (uint32_t v = 0; v < t->g->n; v++) {
    uint64_t row = v / t->ncols;
    uint32_t col = v % t->ncols;
    size_t q, p = stp__teg_processor(&t->teams, row, col, &q);
    fprintf(f, "  t%llu_%u [pos=\"%g,%g!\", label=\"", (unsigned long long)row, col, 2.0 * col,
            0.0 - 1.3 * (double)row); /* 0.0 - : no "-0" for row 0 */
    dot_escape(f, m->procs[p].name);
    if (col % 2) {
      fputs("->", f);
      dot_escape(f, m->procs[q].name);
    } else {
      fputc(' ', f);
      dot_escape(f, m->stages[col / 2].name);
    }
    fprintf(f, "\\n%g\", tooltip=\"row %llu, time %.17g\"];\n", t->time[v],
            (unsigned long long)row, t->time[v]);
  }
  for (uint64_t e = 0; e < t->g->m; e++) {
    uint32_t s = t->g->src[e], d = t->g->dst[e];
    fprintf(f, "  t%llu_%u -> t%llu_%u [id=\"p%llu\"", (unsigned long long)(s / t->ncols),
            s % t->ncols, (unsigned long long)(d / t->ncols), d % t->ncols,
            (unsigned long long)e);
    if (t->g->tok[e])
      fprintf(f, ", label=\"%u\"", t->g->tok[e]);
    if (crit && crit[e])
      fputs(", color=blue, fontcolor=blue, penwidth=2.5", f);
    else if (t->g->tok[e])
      fputs(", color=red", f);
    if (s / t->ncols != d / t->ncols && !t->g->tok[e])
      fputs(", style=dashed", f);
    fputs("];\n", f);
  }
  fputs("}\n", f);
}

stp_status stp_mapping_teg_summary(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                                   stp_teg_summary *out, stp_error *err) {
  if (!m || !out)
    return stp__fail(err, STP_EINVAL, "stp_mapping_teg_summary: mapping or out is NULL");
  double t0 = stp__now();
  stp_teg *t;
  STP_CHECK(stp__teg_build(m, model, max_transitions, &t, err));
  uint64_t tokens = 0;
  for (uint64_t e = 0; e < t->g->m; e++)
    tokens += t->g->tok[e];
  *out = (stp_teg_summary){.rows = t->nrows, .columns = t->ncols, .transitions = t->g->n,
                           .places = t->g->m, .tokens = tokens, .model = model,
                           .seconds = stp__now() - t0};
  stp__teg_free(t);
  return STP_OK;
}

stp_status stp_mapping_write_dot(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                                 FILE *f, stp_error *err) {
  if (!m || !f)
    return stp__fail(err, STP_EINVAL, "stp_mapping_write_dot: mapping or file is NULL");
  stp_teg *t;
  STP_CHECK(stp__teg_build(m, model, max_transitions, &t, err));
  uint8_t *crit;
  const char *what;
  double ratio = 0;
  stp_status s = critical_places(t, &crit, &what, &ratio, err);
  if (s == STP_OK) {
    void *locale = stp__c_locale_enter(); /* times print with a '.' in any locale */
    print_dot(f, t, crit, what, ratio);
    stp__c_locale_leave(locale);
  }
  free(crit);
  stp__teg_free(t);
  if (s != STP_OK)
    return s;
  return ferror(f) ? stp__fail(err, STP_EIO, "cannot write the dot file") : STP_OK;
}
