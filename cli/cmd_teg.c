/* cmd_teg.c: `streamtp teg FILE`: the timed event graph of a mapping, as a
 * summary or as Graphviz (--dot), to look at. */
#include "cli/cli.h"
#include "models/pipeline/teg.h"

#include <stdlib.h>

static const cli_option teg_options[] = {
    {"model", 0, "M", "overlap or strict (default: the file's \"model\")"},
    {"dot", 0, NULL, "print the graph in Graphviz dot format"},
    {"max-transitions", 0, "N", "largest event graph built (default 20000000)"},
    {0}};

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

static void print_summary(FILE *f, const stp_teg *t) {
  uint64_t tokens = 0;
  for (uint64_t e = 0; e < t->g->m; e++)
    tokens += t->g->tok[e];
  fprintf(f, "%s: %s, %s event graph\n", t->map->file, t->map->name, stp_model_name(t->model));
  fprintf(f, "  rows (paths)  %llu\n  columns       %u\n  transitions   %u\n  places        %llu\n"
             "  tokens        %llu\n",
          (unsigned long long)t->nrows, t->ncols, t->g->n, (unsigned long long)t->g->m,
          (unsigned long long)tokens);
}

static int run_teg(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_teg_command, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_options o;
  int models;
  rc = CLI_USAGE;
  if (!cli_parse_eval_options(&cli_teg_command, &a, &o, &models, false))
    goto out;
  stp_mapping *m;
  stp_model model;
  if ((rc = cli_load_single(&cli_teg_command, &a, models, &m, &model)) != CLI_OK)
    goto out;
  stp_error err = {0};
  stp_teg *t;
  if (stp__teg_build(m, model, o.max_transitions, &t, &err) != STP_OK) {
    rc = cli_report_error(&err);
  } else {
    if (cli_flag(&cli_teg_command, &a, "dot"))
      print_dot(stdout, t);
    else
      print_summary(stdout, t);
    stp__teg_free(t);
    rc = CLI_OK;
  }
  stp_mapping_free(m);
out:
  cli_args_free(&a);
  return rc;
}

const cli_command cli_teg_command = {
    .name = "teg",
    .synopsis = "teg FILE [--model overlap|strict] [--dot]",
    .summary = "Build the timed event graph of a mapping (paper section 3) and print a summary,\n"
               "or the whole graph in Graphviz dot format: streamtp teg FILE --dot | dot -Tpng.",
    .details = "Transitions are boxes (processor and stage, or link, with the firing time);\n"
               "places are arrows; red arrows hold a token; dashed arrows join rows.",
    .options = teg_options,
    .run = run_teg,
};
