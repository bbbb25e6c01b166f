/* cmd_graph.c: `streamtp graph FILE...`: the exact analyses of any event
 * graph read from a graph file (docs/format.md, "graph"): a DAG's makespan
 * and critical path, its exact exponential E[makespan] and bounds; a timed
 * event graph's throughput, period and critical cycle, its exponential
 * throughput and bounds; Monte Carlo for any law (--simulate); or the graph
 * in Graphviz dot format with the critical path or cycle in colour.  The
 * records and their text are the library's (stp_graph_result_json). */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gantt.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_graph_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_option graph_options[] = {
    {"json", 0, NULL, "one JSON object per file, one per line (docs/format.md)"},
    {"format", 0, "text|jsonl|csv|table", "text (default), jsonl (as --json), csv or table: a "
                                          "row per file"},
    {"max-states", 0, "N", "largest exponential chain (order ideals or markings; default 1000000)"},
    {"dot", 0, NULL, "print the graph in Graphviz dot format, critical path or cycle in red"},
    CLI_SIM_OPTIONS,
    {"firings", 0, "K", "timed event graphs: firings counted per run (default 10000)"},
    CLI_GANTT_OPTIONS,
    CLI_GANTT_PERIODS_OPTION,
    CLI_DISTRIBUTED_OPTION,
    {0}};

static const char *const graph_formats[] = {"text", "jsonl", "csv", "table", NULL};

typedef struct graph_job {
  int fmt;   /* CLI_FORMAT_* */
  bool json; /* records, not the text report: --json or a --format other than text */
  bool dot, simulate, gantt;
  gantt_spec chart;
  stp_graph_options opt;
  stp_graph_sim_options sim;
  cli_limits limits; /* the records' "limits" (options.h) */
} graph_job;

/* A DOT quoted string of s (any bytes: stp_write_dot_text keeps the file
 * well-formed) and, when `then` is given, a line break and `then`. */
static void dot_string(FILE *f, const char *s, const char *then) {
  fputc('"', f);
  stp_write_dot_text(f, s);
  if (then) {
    fputs("\\n", f);
    stp_write_dot_text(f, then);
  }
  fputc('"', f);
}

/* Critical transitions get a red outline; a place joining two consecutive
 * ones (the closing one too, for a cycle) is drawn red and bold. */
static void write_dot(FILE *f, const stp_graph *g, const stp_graph_result *r) {
  size_t n = stp_graph_transition_count(g);
  size_t *next = malloc((n ? n : 1) * sizeof *next);
  for (size_t t = 0; next && t < n; t++) next[t] = SIZE_MAX;
  for (size_t k = 0; next && k < r->critical_len; k++)
    if (k + 1 < r->critical_len || !r->is_dag)
      next[r->critical[k]] = r->critical[(k + 1) % r->critical_len];
  fputs("digraph ", f);
  dot_string(f, stp_graph_name(g), NULL);
  fputs(" {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n", f);
  for (size_t t = 0; t < n; t++) {
    bool crit = false;
    for (size_t k = 0; k < r->critical_len; k++) crit |= r->critical[k] == t;
    fprintf(f, "  t%zu [label=", t);
    char time[32];
    snprintf(time, sizeof time, "%.6g", stp_graph_transition_time(g, t));
    dot_string(f, stp_graph_transition_name(g, t), time);
    fputs(crit ? ", color=red, penwidth=2];\n" : "];\n", f);
  }
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    size_t a, b;
    uint64_t k;
    stp_graph_place(g, p, &a, &b, &k);
    bool crit = next && next[a] == b;
    fprintf(f, "  t%zu -> t%zu [", a, b);
    if (k) fprintf(f, "label=\"%llu\", ", (unsigned long long)k);
    fputs(crit ? "color=red, penwidth=2];\n" : "color=gray40];\n", f);
  }
  fputs("}\n", f);
  free(next);
}

/* A file that fails still gives its record (status, error): a JSON line
 * with --json (not one cut short by Ctrl-C, after which nothing is
 * written), and in the text, nothing but its place among the reports. */
static int put_error(cli_out *out, const char *file, const stp_graph *g, const stp_error *err,
                     bool json, int rc) {
  if (json && err->status == STP_EINTERRUPTED)
    return rc;
  stp_error e = {0};
  stp_record *rec = NULL;
  stp_graph_error_json(file, g, err, &rec, &e);
  return cli_out_put(out, rec) == 0 ? rc : CLI_FAILURE; /* cli_finish says why */
}

/* The dot graph of one file as one record. */
static int dot_record(const stp_graph *g, const stp_graph_result *r) {
  cli_record rec;
  if (!cli_record_open(&rec))
    return CLI_FAILURE;
  write_dot(rec.f, g, r);
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

/* The analysis of one file as its record (stp_graph_result_json), or its
 * dot graph; t0: when the file's run began. */
static int put_result(cli_out *out, const char *file, const stp_graph *g, const graph_job *j,
                      const stp_graph_result *r, double t0) {
  stp_error err = {0};
  stp_graph_sim_result sr = {0};
  if (j->dot)
    return dot_record(g, r);
  if (j->simulate && stp_graph_simulate(g, &j->sim, &sr, &err) != STP_OK) {
    stp_error_prefix(&err, "%s", file);
    return put_error(out, file, g, &err, j->json, cli_report_error(&err));
  }
  stp_record *rec = NULL;
  stp_graph_result_json(file, g, &j->opt, r, j->sim.law, j->simulate ? &j->sim : NULL, &sr,
                        cli_now() - t0, &rec, &err);
  return cli_out_put(out, rec) == 0 ? CLI_OK : CLI_FAILURE; /* cli_finish says why, once */
}

static int graph_one(cli_out *out, const char *file, const graph_job *j) {
  stp_error err = {0};
  stp_graph *g;
  double t0 = cli_now();
  if (stp_graph_read_file(file, &g, &err) != STP_OK)
    return put_error(out, file, NULL, &err, j->json, cli_report_error(&err));
  if (j->gantt) {
    gantt_spec chart = j->chart;
    chart.g = g;
    chart.title = stp_graph_name(g)[0] ? stp_graph_name(g) : file;
    int rc = cli_gantt(&chart);
    stp_graph_free(g);
    return rc;
  }
  stp_graph_options opt = j->opt;
  opt.exponential = !j->dot;
  stp_graph_result r;
  int rc;
  if (stp_graph_analyze(g, &opt, &r, &err) != STP_OK) {
    rc = put_error(out, file, g, &err, j->json, cli_report_error(&err));
  } else {
    rc = put_result(out, file, g, j, &r, t0);
    stp_graph_result_free(&r);
  }
  stp_graph_free(g);
  return rc;
}

/* Every file in turn, its record written as it is done. */
static int graph_all(const cli_args *a, const graph_job *j) {
  cli_out out;
  if (!cli_out_open(&out, "graph", j->fmt, &j->limits))
    return CLI_FAILURE;
  int rc = CLI_OK;
  for (int k = 0; k < a->npos && cli_go_on(); k++) { /* no new file after Ctrl-C or a failed write */
    int one = graph_one(&out, a->pos[k], j);
    if (one > rc) rc = one;
  }
  if (cli_out_close(&out) != 0 && rc == CLI_OK)
    rc = CLI_FAILURE;
  return rc;
}

static int run_graph(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_graph_command, argc, argv, &a);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  graph_job j = {.dot = cli_flag(&cli_graph_command, &a, "dot")};
  const char *as = cli_get(&cli_graph_command, &a, "format") ? "--format" : "--json";
  stp_graph_options_init(&j.opt);
  j.opt.control = cli_control();
  stp_law *law = NULL, *chart_law = NULL;
  rc = CLI_USAGE;
  if (!cli_parse_max_states(&cli_graph_command, &a, &j.opt.max_states, &j.limits) ||
      !cli_parse_format(&cli_graph_command, &a, graph_formats, CLI_FORMAT_TEXT, &j.fmt))
    goto out;
  j.json = j.fmt != CLI_FORMAT_TEXT;
  if (cli_flag(&cli_graph_command, &a, "distributed") && !cli_check_distributed(&cli_graph_command))
    goto out;
  j.opt.distributed = cli_flag(&cli_graph_command, &a, "distributed");
  if (!cli_parse_sim_options(&cli_graph_command, &a, true, true, &j.simulate, &j.sim, &law, &j.limits))
    goto out;
  j.opt.law = cli_exact_law(law, j.simulate);
  if (!cli_parse_gantt(&cli_graph_command, &a, &j.gantt, &j.chart, &chart_law)) goto out;
  if (j.dot && (j.json || j.simulate)) {
    cli_usage_error(&cli_graph_command, "--dot excludes %s and --simulate", as);
    goto out;
  }
  if (j.gantt && (j.dot || j.json || j.simulate || a.npos > 1)) {
    cli_usage_error(&cli_graph_command, "--gantt draws one graph file, without --dot, %s "
                    "or --simulate", as);
    goto out;
  }
  if (a.npos == 0) {
    cli_usage_error(&cli_graph_command, "no graph file given");
    goto out;
  }
  rc = graph_all(&a, &j);
out:
  stp_law_free(law);
  stp_law_free(chart_law);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_graph_command = {
    .name = "graph",
    .synopsis = "graph FILE... [--json | --format F] [--max-states N] [--dot] [--law SPEC] [--simulate R "
                "[--seed S] [--firings K]] [--gantt [--periods N] [--law SPEC] [--seed S]]",
    .summary = "Analyse any event graph from a graph file: a DAG's makespan (deterministic,\n"
               "exact exponential, bounds) or a timed event graph's throughput; Monte Carlo.",
    .details = "Without tokens the graph is an activity DAG (one run): makespan, critical path,\n"
               "exact E[makespan] with exponential times (chain over order ideals), bounds\n"
               "[det, exp].  With tokens it is a timed event graph (a stream of runs):\n"
               "throughput, period, critical cycle, exponential throughput (chain of markings),\n"
               "bounds [exp, det].  --law SPEC (or transitions with their own laws): also the\n"
               "exact value under that phase-type law (erlang, hyperexp, coxian, ph), from the\n"
               "same chains with the phases of the running transitions.  Format and keys:\n"
               "docs/format.md, \"graph\".",
    .options = graph_options,
    .run = run_graph,
};
