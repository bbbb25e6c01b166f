/* cmd_reduce.c: `streamtp reduce`: reduction trees of Canon and Antoniu
 * (INRIA RR-7898) for one n or a range: the tree, its schedule, the
 * deterministic makespan, the exact expected makespan with exponential
 * times, the N.B.U.E. interval, the paper's bounds, and Monte Carlo for any
 * law: one library call (stp_reduce_run), whose records (stp_reduce_json)
 * are written as a report, a table, CSV or JSON lines; --dot, --graph-json
 * and --gantt write one tree. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gantt.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_graph_file.h"
#include "streamtp_reduce.h"

#include <string.h>

static const cli_option reduce_options[] = {
    {"n", 0, "N|A..B", "number of elements (machines), or a range: one result per n"},
    {"d", 0, "D", "transfer time of one element (>= 0)"},
    {"c", 0, "C", "reduction time of two elements (>= 0; d + c > 0)"},
    {"tree", 0, "optimal|binomial|fibonacci", "optimal (default), binomial or fibonacci"},
    {"max-reducers", 0, "K", "Algorithm 3: at most K machines reduce"},
    {"max-transfers", 0, "K", "Algorithm 2: at most K concurrent transfers (optimal tree)"},
    {"exp-method", 0, "dag-ctmc|none", "exponential makespan: dag-ctmc (default) or none"},
    {"max-states", 0, "N", "largest number of order ideals (default 1000000)"},
    CLI_SIM_OPTIONS,
    {"json", 0, NULL, "one JSON object per n, one per line (--format jsonl)"},
    {"format", 0, "text|jsonl|csv|table", "text (default for one n), jsonl, csv or table "
                                          "(default for a range)"},
    {"brief", 0, NULL, "leave out children and transfer_starts (long sweeps)"},
    {"dot", 0, NULL, "print the tree in Graphviz DOT, edges labelled by transfer start"},
    {"graph-json", 0, NULL, "print the schedule's DAG as a graph file (streamtp graph reads it)"},
    CLI_GANTT_OPTIONS,
    {0}};

static const char *const reduce_formats[] = {"text", "jsonl", "csv", "table", NULL};

typedef struct reduce_run {
  stp_reduce_run_options o;
  int fmt;
  bool dot, graph_json, gantt, simulate;
  gantt_spec chart;
  stp_law *chart_law;
  stp_law *law;
  cli_limits limits; /* the records' "limits" (options.h) */
} reduce_run;

#define CMD (&cli_reduce_command)

/* ---- parsing --------------------------------------------------------------------- */

static bool parse_n(const char *s, uint64_t *lo, uint64_t *hi) {
  const char *dots = strstr(s, "..");
  if (!dots) {
    if (!cli_parse_u64(CMD, "n", s, 1, STP_REDUCE_MAX_N, lo))
      return false;
    *hi = *lo;
    return true;
  }
  char a[32];
  size_t len = (size_t)(dots - s);
  if (len == 0 || len >= sizeof a || dots[2] == '\0') {
    cli_usage_error(CMD, "--n: '%s' is not N or A..B", s);
    return false;
  }
  memcpy(a, s, len);
  a[len] = '\0';
  if (!cli_parse_u64(CMD, "n", a, 1, STP_REDUCE_MAX_N, lo) ||
      !cli_parse_u64(CMD, "n", dots + 2, 1, STP_REDUCE_MAX_N, hi))
    return false;
  if (*lo > *hi) {
    cli_usage_error(CMD, "--n: the range %s is empty (A > B)", s);
    return false;
  }
  return true;
}

static bool parse_cost(const cli_args *a, const char *opt, double *out) {
  const char *s = cli_get(CMD, a, opt);
  if (!s) {
    cli_usage_error(CMD, "--%s is required", opt);
    return false;
  }
  return cli_parse_time(CMD, opt, s, true, out);
}

static bool parse_limit(const cli_args *a, stp_reduce_run_options *o) {
  const char *r = cli_get(CMD, a, "max-reducers"), *t = cli_get(CMD, a, "max-transfers");
  if (r && t) {
    cli_usage_error(CMD, "--max-transfers and --max-reducers exclude each other");
    return false;
  }
  if (!r && !t)
    return true;
  o->algorithm = r ? STP_REDUCE_ALG3 : STP_REDUCE_ALG2;
  if (!cli_parse_u64(CMD, r ? "max-reducers" : "max-transfers", r ? r : t, 1, STP_REDUCE_MAX_N,
                     &o->K))
    return false;
  if (t && o->tree != STP_REDUCE_OPTIMAL) {
    cli_usage_error(CMD, "--max-transfers: Algorithm 2 builds the optimal tree only, not %s",
                    stp_reduce_tree_name(o->tree));
    return false;
  }
  return true;
}

static bool parse_outputs(const cli_args *a, reduce_run *run) {
  const stp_reduce_run_options *o = &run->o;
  bool range = o->n_first != o->n_last;
  /* one tree reads best as a report, a range as a table */
  if (!cli_parse_format(CMD, a, reduce_formats, range ? CLI_FORMAT_TABLE : CLI_FORMAT_TEXT,
                        &run->fmt))
    return false;
  bool records = cli_flag(CMD, a, "json") || cli_get(CMD, a, "format");
  run->o.brief = cli_flag(CMD, a, "brief") || run->fmt == CLI_FORMAT_CSV ||
                 run->fmt == CLI_FORMAT_TABLE; /* their columns hold no array */
  run->dot = cli_flag(CMD, a, "dot");
  run->graph_json = cli_flag(CMD, a, "graph-json");
  if (!cli_parse_gantt(CMD, a, &run->gantt, &run->chart, &run->chart_law))
    return false;
  if (run->dot + records + run->graph_json + run->gantt > 1) {
    cli_usage_error(CMD, "--dot, --json, --graph-json and --gantt exclude each other");
    return false;
  }
  const char *one = run->dot ? "dot" : run->graph_json ? "graph-json" : "gantt";
  if ((run->dot || run->graph_json || run->gantt) && range) {
    cli_usage_error(CMD, "--%s: one tree at a time, give a single n", one);
    return false;
  }
  if ((run->graph_json || run->gantt) && o->algorithm == STP_REDUCE_ALG2) {
    cli_usage_error(CMD, "--%s: transfer limit: Algorithm 2 bounds the number of concurrent "
                         "transfers, which no fixed-order DAG expresses", one);
    return false;
  }
  if ((run->graph_json || run->gantt) && o->n_first == 1) {
    cli_usage_error(CMD, "--%s: n = 1 has no activity to write", one);
    return false;
  }
  if (run->gantt && run->simulate) {
    cli_usage_error(CMD, "--gantt draws one run: --law and --seed without --simulate");
    return false;
  }
  if (run->simulate && o->algorithm == STP_REDUCE_ALG2) {
    cli_usage_error(CMD, "--simulate: Algorithm 2 (--max-transfers) limits concurrent "
                         "transfers, which no fixed-order DAG expresses");
    return false;
  }
  return true;
}

static bool parse_run(const cli_args *a, reduce_run *run) {
  stp_reduce_run_options *o = &run->o;
  *run = (reduce_run){0};
  stp_reduce_run_options_init(o);
  const char *s = cli_get(CMD, a, "n");
  if (a->npos > 0) {
    cli_usage_error(CMD, "unexpected argument '%s'", a->pos[0]);
    return false;
  }
  if (!s) {
    cli_usage_error(CMD, "--n is required");
    return false;
  }
  if (!parse_n(s, &o->n_first, &o->n_last) || !parse_cost(a, "d", &o->d) ||
      !parse_cost(a, "c", &o->c))
    return false;
  if (o->d + o->c <= 0) {
    cli_usage_error(CMD, "--d, --c: d = c = 0, one of the two times must be positive");
    return false;
  }
  if ((s = cli_get(CMD, a, "tree")) && stp_reduce_tree_parse(s, &o->tree) != STP_OK) {
    cli_bad_value(CMD, "tree", s, "optimal, binomial, fibonacci");
    return false;
  }
  if (!parse_limit(a, o))
    return false;
  if ((s = cli_get(CMD, a, "exp-method"))) {
    if (strcmp(s, "none") == 0)
      o->exponential = 0;
    else if (strcmp(s, "dag-ctmc") != 0) {
      cli_bad_value(CMD, "exp-method", s, "dag-ctmc, none");
      return false;
    }
  }
  o->max_states = STP_GRAPH_DEFAULT_MAX_STATES;
  stp_graph_sim_options sim;
  if (!cli_parse_max_states(CMD, a, &o->max_states, &run->limits) ||
      !cli_parse_sim_options(CMD, a, false, true, &run->simulate, &sim, &run->law, &run->limits))
    return false;
  o->law = run->law;
  o->simulate = run->simulate ? sim.runs : 0;
  o->seed = sim.seed;
  o->control = cli_control();
  return parse_outputs(a, run);
}

/* ---- one tree: DOT, graph file, Gantt chart ---------------------------------------- */

static int build(const reduce_run *run, stp_reduce **tree) {
  const stp_reduce_run_options *o = &run->o;
  stp_reduce_spec spec;
  stp_reduce_spec_init(&spec, o->n_first, o->d, o->c);
  spec.tree = o->tree;
  spec.algorithm = o->algorithm;
  spec.K = o->K;
  spec.control = o->control;
  stp_error err = {0};
  return stp_reduce_build(&spec, tree, &err) == STP_OK ? CLI_OK : cli_report_error(&err);
}

/* The tree in DOT, or the schedule's DAG as a graph file: one record. */
static int write_tree(const stp_reduce *t, bool dot) {
  stp_error err = {0};
  stp_graph *g = NULL;
  if (!dot && stp_reduce_graph(t, &g, &err) != STP_OK)
    return cli_report_error(&err);
  cli_record rec;
  if (!cli_record_open(&rec)) {
    stp_graph_free(g);
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  stp_status st = dot ? stp_reduce_write_dot(t, rec.f, &err) : stp_graph_write_json(g, rec.f, &err);
  stp_graph_free(g);
  if (st != STP_OK) {
    cli_record_discard(&rec);
    return cli_report_error(&err);
  }
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

/* The Gantt chart of the schedule: one row per machine (its reductions,
 * then its transfer). */
static int draw_gantt(const reduce_run *run, const stp_reduce *t) {
  stp_error err = {0};
  stp_graph *g;
  if (stp_reduce_graph(t, &g, &err) != STP_OK)
    return cli_report_error(&err);
  const stp_reduce_run_options *o = &run->o;
  static const char *const algorithm[] = {"", "Algorithm 1",
                                          "Algorithm 2, at most K concurrent transfers",
                                          "Algorithm 3, at most K reducers"};
  char title[200];
  snprintf(title, sizeof title, "reduction of n = %llu, d = %g, c = %g: %s tree (%s)",
           (unsigned long long)o->n_first, o->d, o->c, stp_reduce_tree_name(o->tree),
           algorithm[o->algorithm]);
  gantt_spec chart = run->chart;
  chart.g = g;
  chart.title = title;
  chart.time_unit = "units of d and c";
  int rc = cli_gantt(&chart);
  stp_graph_free(g);
  return rc;
}

static int one_tree(const reduce_run *run) {
  stp_reduce *t;
  int rc = build(run, &t);
  if (rc != CLI_OK)
    return rc;
  rc = run->gantt ? draw_gantt(run, t) : write_tree(t, run->dot);
  stp_reduce_free(t);
  return rc;
}

/* ---- the run's records -------------------------------------------------------------- */

/* Each n's record as soon as it is done. */
static int put_n(const stp_reduce_result *r, size_t k, void *data) {
  stp_error err = {0};
  stp_record *rec = NULL;
  stp_reduce_json(r, k, &rec, &err);
  return cli_stream_put(data, rec);
}

static int write_records(reduce_run *run) {
  cli_stream w;
  if (!cli_stream_open(&w, "reduce", run->fmt, &run->limits))
    return CLI_FAILURE;
  run->o.each = put_n;
  run->o.each_data = &w;
  stp_error err = {0};
  stp_reduce_result *res = NULL;
  stp_status st = stp_reduce_run(&run->o, &res, &err);
  stp_reduce_result_free(res);
  return cli_stream_close(&w, st, &err);
}

static int run_reduce(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CMD, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  reduce_run run;
  if (!parse_run(&a, &run))
    rc = CLI_USAGE;
  else if (run.dot || run.graph_json || run.gantt)
    rc = one_tree(&run);
  else
    rc = write_records(&run);
  stp_law_free(run.law);
  stp_law_free(run.chart_law);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_reduce_command = {
    .name = "reduce",
    .synopsis = "reduce --n N|A..B --d D --c C [--tree optimal|binomial|fibonacci] "
                "[--max-reducers K | --max-transfers K] [--simulate R] "
                "[--json | --dot | --graph-json]",
    .summary = "Reduction trees of Canon and Antoniu (RR-7898): n elements, transfers of time d,\n"
               "reductions of time c, overlapped.  The tree, its schedule, the makespan, the\n"
               "exact expected makespan with exponential times and the paper's bounds.",
    .details =
        "Trees: optimal = Algorithm 1 with (d, c); binomial = Algorithm 1 with (max(d,c), 0);\n"
        "fibonacci = Algorithm 1 with (1, 1); each is then scheduled with the real (d, c).\n"
        "--max-reducers K runs Algorithm 3, --max-transfers K Algorithm 2 (optimal tree, no\n"
        "exponential value).  Machines 1..n, machine 1 the sink; children[i] is where i sends,\n"
        "transfer_starts[i] when (both for i = 2..n).  Machine u receives in increasing order\n"
        "of the time its senders are ready (ties: larger index first).  The exponential\n"
        "makespan is exact (order ideals of the 2(n-1)-activity DAG), refused above\n"
        "--max-states; --simulate R draws R runs with --law (default exp).  A range A..B\n"
        "prints one line per n (a table, or JSON lines with --json).  docs/format.md has\n"
        "every key.",
    .options = reduce_options,
    .run = run_reduce,
};
