/* teg_write.c: the full event graph of a mapping, summarised or drawn in
 * Graphviz dot format (stp_mapping_teg_summary, stp_mapping_write_dot). */
#include "base/core.h"
#include "base/numfmt.h"
#include "models/pipeline/teg.h"

#include <stdio.h>

static void dot_escape(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    fputc(*s, f);
  }
}

static void print_dot(FILE *f, const stp_teg *t) {
  const stp_mapping *m = t->map;
  fprintf(f, "digraph teg {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
  fprintf(f, "  label=\"");
  dot_escape(f, m->name);
  fprintf(f, " (%s): %llu rows x %u columns\";\n", stp_model_name(t->model),
          (unsigned long long)t->nrows, t->ncols);
  for (uint32_t c = 0; c < t->ncols; c++) {
    fprintf(f, "  { rank=same;");
    for (uint64_t j = 0; j < t->nrows; j++)
      fprintf(f, " t%llu_%u;", (unsigned long long)j, c);
    fputs(" }\n", f);
  }
  for (uint32_t v = 0; v < t->g->n; v++) {
    uint64_t row = v / t->ncols;
    uint32_t col = v % t->ncols;
    size_t q, p = stp__teg_processor(m, row, col, &q);
    fprintf(f, "  t%llu_%u [label=\"", (unsigned long long)row, col);
    dot_escape(f, m->procs[p].name);
    if (col % 2) {
      fputs("->", f);
      dot_escape(f, m->procs[q].name);
    } else {
      fputc(' ', f);
      dot_escape(f, m->stages[col / 2].name);
    }
    fprintf(f, "\\n%g\"];\n", t->time[v]);
  }
  for (uint64_t e = 0; e < t->g->m; e++) {
    uint32_t s = t->g->src[e], d = t->g->dst[e];
    fprintf(f, "  t%llu_%u -> t%llu_%u", (unsigned long long)(s / t->ncols), s % t->ncols,
            (unsigned long long)(d / t->ncols), d % t->ncols);
    if (t->g->tok[e])
      fprintf(f, " [label=\"%u\", color=red]", t->g->tok[e]);
    else if (s / t->ncols != d / t->ncols)
      fputs(" [style=dashed]", f);
    fputs(";\n", f);
  }
  fputs("}\n", f);
}

stp_status stp_mapping_teg_summary(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                                   stp_teg_summary *out, stp_error *err) {
  if (!m || !out)
    return stp__fail(err, STP_EINVAL, "stp_mapping_teg_summary: mapping or out is NULL");
  stp_teg *t;
  STP_CHECK(stp__teg_build(m, model, max_transitions, &t, err));
  uint64_t tokens = 0;
  for (uint64_t e = 0; e < t->g->m; e++)
    tokens += t->g->tok[e];
  *out = (stp_teg_summary){.rows = t->nrows, .columns = t->ncols, .transitions = t->g->n,
                           .places = t->g->m, .tokens = tokens};
  stp__teg_free(t);
  return STP_OK;
}

stp_status stp_mapping_write_dot(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                                 FILE *f, stp_error *err) {
  if (!m || !f)
    return stp__fail(err, STP_EINVAL, "stp_mapping_write_dot: mapping or file is NULL");
  stp_teg *t;
  STP_CHECK(stp__teg_build(m, model, max_transitions, &t, err));
  void *locale = stp__c_locale_enter(); /* times print with a '.' in any locale */
  print_dot(f, t);
  stp__c_locale_leave(locale);
  stp__teg_free(t);
  return ferror(f) ? stp__fail(err, STP_EIO, "cannot write the dot file") : STP_OK;
}
