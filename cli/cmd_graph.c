/* cmd_graph.c: `streamtp graph FILE...`: the exact analyses of any event
 * graph read from a graph file (docs/format.md, "graph"): a DAG's makespan
 * and critical path, its exact exponential E[makespan] and bounds; a timed
 * event graph's throughput, period and critical cycle, its exponential
 * throughput and bounds; Monte Carlo for any law (--simulate); or the graph
 * in Graphviz dot format with the critical path or cycle in colour. */
#include "cli/cli.h"
#include "cli/gantt.h"
#include "cli/report.h"
#include "streamtp_graph_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_option graph_options[] = {
    {"json", 0, NULL, "one JSON object per file, one per line (docs/format.md)"},
    {"max-states", 0, "N", "largest exponential chain (order ideals or markings; default 1000000)"},
    {"dot", 0, NULL, "print the graph in Graphviz dot format, critical path or cycle in red"},
    CLI_SIM_OPTIONS,
    {"firings", 0, "K", "timed event graphs: firings counted per run (default 10000)"},
    CLI_GANTT_OPTIONS,
    CLI_DISTRIBUTED_OPTION,
    {0}};

typedef struct graph_job {
  bool json, dot, simulate, gantt;
  gantt_spec chart;
  stp_graph_options opt;
  stp_graph_sim_options sim;
} graph_job;

static json_t *names(const stp_graph *g, const size_t *ts, size_t n) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < n; k++)
    json_array_append_new(a, json_string(stp_graph_transition_name(g, ts[k])));
  return a;
}

static void print_names(FILE *f, const stp_graph *g, const size_t *ts, size_t n) {
  for (size_t k = 0; k < n; k++) fprintf(f, "%s%s", k ? " -> " : "", stp_graph_transition_name(g, ts[k]));
}

static json_t *json_result(const char *file, const stp_graph *g, const stp_graph_result *r,
                           const graph_job *j, const stp_graph_sim_result *sr) {
  json_t *o = json_object();
  const char *what = r->is_dag ? "makespan" : "throughput";
  json_object_set_new(o, "file", report_string(file));
  json_object_set_new(o, "name", report_string(stp_graph_name(g)));
  json_object_set_new(o, "transitions", json_integer((json_int_t)stp_graph_transition_count(g)));
  json_object_set_new(o, "mode", json_string(r->is_dag ? "dag" : "teg"));
  json_t *det = json_object();
  if (r->is_dag) {
    json_object_set_new(det, "makespan", report_number(r->det_makespan));
    json_object_set_new(det, "critical_path", names(g, r->critical, r->critical_len));
  } else {
    json_object_set_new(det, "throughput", report_number(r->det_throughput));
    json_object_set_new(det, "period", report_number(r->det_period));
    json_object_set_new(det, "critical_cycle", names(g, r->critical, r->critical_len));
  }
  json_object_set_new(o, "deterministic", det);
  json_t *ex = r->exp_computed
                   ? report_exponential(what, r->exp_value, r->exp_states, r->exp_method, NULL)
                   : report_exponential(what, NAN, 0, NULL, r->exp_reason);
  if (!r->is_dag && r->exp_computed) { /* period = 1 / throughput, after it */
    json_t *rest = json_deep_copy(ex);
    json_object_clear(ex);
    json_object_set(ex, "throughput", json_object_get(rest, "throughput"));
    json_object_set_new(ex, "period", report_number(r->exp_value > 0 ? 1 / r->exp_value : NAN));
    json_object_update_missing(ex, rest);
    json_decref(rest);
  }
  json_object_set_new(o, "exponential", ex);
  if (r->law_asked)
    json_object_set_new(o, "exact_law", report_graph_law(r, report_sim_law(&j->sim)));
  json_object_set_new(o, "bounds", report_bounds(r->bound_lower, r->bound_upper));
  if (j->simulate)
    json_object_set_new(o, "simulation", report_simulation(&j->sim, sr, r->is_dag));
  return o;
}

static void text_result(FILE *f, const char *file, const stp_graph *g, const stp_graph_result *r,
                        const graph_job *j, const stp_graph_sim_result *sr) {
  uint64_t tokens = 0;
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    uint64_t k;
    stp_graph_place(g, p, NULL, NULL, &k);
    tokens += k;
  }
  fprintf(f, "%s: %s, %s of %zu transitions, %zu places", file, stp_graph_name(g),
          r->is_dag ? "activity DAG" : "timed event graph", stp_graph_transition_count(g),
          stp_graph_place_count(g));
  if (!r->is_dag) fprintf(f, ", %llu tokens", (unsigned long long)tokens);
  fputc('\n', f);
  const char *what = r->is_dag ? "makespan  " : "throughput";
  if (r->is_dag)
    fprintf(f, "  deterministic   makespan   %.8g\n  critical path   ", r->det_makespan);
  else
    fprintf(f, "  deterministic   throughput %-14.8g period %.8g\n  critical cycle  ",
            r->det_throughput, r->det_period);
  print_names(f, g, r->critical, r->critical_len);
  fputc('\n', f);
  if (r->exp_computed)
    fprintf(f, "  exponential     %s %-14.8g (%s, %llu states)\n", what, r->exp_value,
            r->exp_method, (unsigned long long)r->exp_states);
  else
    fprintf(f, "  exponential     not computed: %s\n", r->exp_reason);
  if (r->law_asked)
    report_graph_law_text(f, r, report_sim_law(&j->sim), 16);
  if (r->exp_computed)
    fprintf(f, "  N.B.U.E. bounds [%.8g, %.8g] on the %s for independent N.B.U.E. times with "
               "these means\n",
            r->bound_lower, r->bound_upper, r->is_dag ? "expected makespan" : "throughput");
  if (j->simulate)
    fprintf(f, "  simulation      %s %-14.8g 95%% [%.8g, %.8g] (%s, %llu runs, seed %llu)\n", what,
            sr->mean, sr->ci95_lo, sr->ci95_hi, report_sim_law(&j->sim), (unsigned long long)sr->runs,
            (unsigned long long)j->sim.seed);
}

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

/* With --json, a file that fails still gives its record (status, error);
 * not one cut short by Ctrl-C, after which nothing is written. */
static int json_error(const char *file, const stp_graph *g, const stp_error *err, int rc) {
  if (err->status == STP_EINTERRUPTED)
    return rc;
  json_t *o = report_error_record(file, NULL, err);
  if (o) {
    json_object_del(o, "model"); /* a graph has no model */
    if (g)
      json_object_set_new(o, "name", report_string(stp_graph_name(g)));
  }
  if (report_json_line(stdout, o) != 0)
    rc = CLI_FAILURE;
  json_decref(o);
  return rc;
}

/* The text report or the dot graph of one file as one record (a blank
 * line first when it is not the first report). */
static int text_record(const char *file, const stp_graph *g, const stp_graph_result *r,
                       const graph_job *j, const stp_graph_sim_result *sr, bool first) {
  cli_record rec;
  if (!cli_record_open(&rec))
    return CLI_FAILURE;
  if (j->dot) {
    write_dot(rec.f, g, r);
  } else {
    if (!first)
      fputc('\n', rec.f);
    text_result(rec.f, file, g, r, j, sr);
  }
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

static int graph_one(const char *file, const graph_job *j, bool first) {
  stp_error err = {0};
  stp_graph *g;
  double t0 = report_now();
  if (stp_graph_read_file(file, &g, &err) != STP_OK) {
    int rc = cli_report_error(&err);
    return j->json ? json_error(file, NULL, &err, rc) : rc;
  }
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
  int rc = CLI_OK;
  if (stp_graph_analyze(g, &opt, &r, &err) != STP_OK) {
    rc = cli_report_error(&err);
    rc = j->json ? json_error(file, g, &err, rc) : rc;
    stp_graph_free(g);
    return rc;
  }
  stp_graph_sim_result sr = {0};
  if (j->simulate && stp_graph_simulate(g, &j->sim, &sr, &err) != STP_OK) {
    stp_error_prefix(&err, "%s", file);
    rc = cli_report_error(&err);
    rc = j->json ? json_error(file, g, &err, rc) : rc;
  } else if (j->json) {
    json_t *o = json_result(file, g, &r, j, &sr);
    json_object_set_new(o, "seconds", report_number(report_now() - t0));
    report_status(o, STP_OK, NULL);
    if (report_json_line(stdout, o) != 0)
      rc = CLI_FAILURE; /* cli_finish says why, once */
    json_decref(o);
  } else {
    rc = text_record(file, g, &r, j, &sr, first);
  }
  stp_graph_result_free(&r);
  stp_graph_free(g);
  return rc;
}

static int run_graph(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_graph_command, argc, argv, &a);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  graph_job j = {.json = cli_flag(&cli_graph_command, &a, "json"),
                 .dot = cli_flag(&cli_graph_command, &a, "dot")};
  stp_graph_options_init(&j.opt);
  j.opt.control = cli_control();
  stp_law *law = NULL, *chart_law = NULL;
  rc = CLI_USAGE;
  if (!cli_parse_max_states(&cli_graph_command, &a, &j.opt.max_states))
    goto out;
  if (cli_flag(&cli_graph_command, &a, "distributed") && !cli_check_distributed(&cli_graph_command))
    goto out;
  j.opt.distributed = cli_flag(&cli_graph_command, &a, "distributed");
  if (!cli_parse_sim_options(&cli_graph_command, &a, true, true, &j.simulate, &j.sim, &law)) goto out;
  j.opt.law = cli_exact_law(law, j.simulate);
  if (!cli_parse_gantt(&cli_graph_command, &a, &j.gantt, &j.chart, &chart_law)) goto out;
  if (j.dot && (j.json || j.simulate)) {
    cli_usage_error(&cli_graph_command, "--dot excludes --json and --simulate");
    goto out;
  }
  if (j.gantt && (j.dot || j.json || j.simulate || a.npos > 1)) {
    cli_usage_error(&cli_graph_command, "--gantt draws one graph file, without --dot, --json "
                    "or --simulate");
    goto out;
  }
  if (a.npos == 0) {
    cli_usage_error(&cli_graph_command, "no graph file given");
    goto out;
  }
  rc = CLI_OK;
  for (int k = 0; k < a.npos && cli_go_on(); k++) { /* no new file after Ctrl-C or a failed write */
    int one = graph_one(a.pos[k], &j, k == 0);
    if (one > rc) rc = one;
  }
out:
  stp_law_free(law);
  stp_law_free(chart_law);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_graph_command = {
    .name = "graph",
    .synopsis = "graph FILE... [--json] [--max-states N] [--dot] [--law SPEC] [--simulate R "
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
