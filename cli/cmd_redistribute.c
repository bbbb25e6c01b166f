/* cmd_redistribute.c: `streamtp redistribute`: block-cyclic redistribution
 * (RR-3117): the communication grid, the minimum number of steps, one
 * schedule per strategy with its costs (deterministic, exponential, the
 * N.B.U.E. interval), the exact expected cost under a phase-type law
 * (--law alone) and optionally Monte Carlo of the barrier schedule.
 * The run is one library call (stp_redist_run) and its records are the
 * library's (stp_redist_json): the paper's tables for people (grid, one
 * row per step, or one row per strategy), one JSON object per strategy
 * for scripts (docs/format.md, "redistribute"). */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gantt.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_redistribute.h"

#include <string.h>

static const char *const redistribute_formats[] = {"text", "jsonl", "csv", "table", NULL};

static const cli_option redistribute_options[] = {
    {"P", 0, "P", "processors before (CYCLIC(r) on P)"},
    {"Q", 0, "Q", "processors after (CYCLIC(s) on Q)"},
    {"r", 0, "R", "block size before"},
    {"s", 0, "S", "block size after"},
    {"M", 0, "M", "array size, a positive multiple of L = lcm(P r, Q s) (default L)"},
    {"alpha", 0, "A", "start-up time of a step (default 0)"},
    {"beta", 0, "B", "time per element (default 1)"},
    {"strategy", 0, "class|stepwise|greedy|caterpillar|optimal|all", "class, stepwise, greedy, caterpillar, optimal, or all (default: class where it applies, else stepwise)"},
    {"max-steps", 0, "K", "optimal: at most K steps (default: no limit)"},
    {"max-nodes", 0, "N", "optimal: search nodes before giving up (default 1e6)"},
    {"max-work", 0, "W", "stepwise, greedy, optimal: refuse above W estimated steps (default 5e9)"},
    {"json", 0, NULL, "one JSON object per strategy, one per line (--format jsonl)"},
    {"format", 0, "text|jsonl|csv|table", "text (default for one strategy), jsonl, csv or table "
                                          "(default for all)"},
    CLI_SIM_OPTIONS,
    CLI_GANTT_OPTIONS,
    {0}};

/* The run's options; rd only for the checks that need the grid (--M,
 * --max-steps), to say what is wrong before anything runs. */
typedef struct run {
  stp_redist_run_options o;
  stp_redist *rd;
  stp_redist_info info;
  int fmt;
  bool simulate;
  stp_law *law;
  cli_limits limits; /* the records' "limits" (options.h) */
} run;

static bool parse_positive(const cli_command *cmd, const cli_args *a, const char *name,
                           uint64_t max, uint64_t *out) {
  const char *s = cli_get(cmd, a, name);
  if (!s) {
    cli_usage_error(cmd, "--%s is required", name);
    return false;
  }
  return cli_parse_u64(cmd, name, s, 1, max, out);
}

static bool parse_strategy(const cli_command *cmd, const cli_args *a, int *strategy) {
  const char *s = cli_get(cmd, a, "strategy");
  stp_redist_strategy st;
  if (!s)
    *strategy = STP_REDIST_STRATEGY_DEFAULT; /* the paper's schedule */
  else if (strcmp(s, "all") == 0)
    *strategy = STP_REDIST_STRATEGY_ALL;
  else if (stp_redist_strategy_parse(s, &st) == STP_OK)
    *strategy = (int)st;
  else {
    cli_bad_value(cmd, "strategy", s, "class, stepwise, greedy, caterpillar, optimal, all");
    return false;
  }
  return true;
}

/* The grid, for the checks with usage messages that need L and ns_opt. */
static bool need_grid(run *r, int *rc) {
  stp_error err = {0};
  if (r->rd)
    return true;
  if (stp_redist_new(r->o.P, r->o.Q, r->o.r, r->o.s, &r->rd, &err) != STP_OK) {
    *rc = cli_report_error(&err);
    return false;
  }
  stp_redist_get_info(r->rd, &r->info);
  return true;
}

/* The problem and its cost model; false after printing the error (*rc set). */
static bool parse_problem(const cli_command *cmd, const cli_args *a, run *r, int *rc) {
  stp_redist_run_options *o = &r->o;
  if (a->npos > 0) {
    cli_usage_error(cmd, "unexpected argument '%s'", a->pos[0]);
    return false;
  }
  if (!parse_positive(cmd, a, "P", STP_REDIST_MAX_PROCS, &o->P) ||
      !parse_positive(cmd, a, "Q", STP_REDIST_MAX_PROCS, &o->Q) ||
      !parse_positive(cmd, a, "r", STP_REDIST_MAX_BLOCK, &o->r) ||
      !parse_positive(cmd, a, "s", STP_REDIST_MAX_BLOCK, &o->s))
    return false;
  const char *s;
  if ((s = cli_get(cmd, a, "M"))) {
    if (!cli_parse_u64(cmd, "M", s, 1, UINT64_MAX, &o->cost.M) || !need_grid(r, rc))
      return false;
    if (o->cost.M % r->info.L != 0) {
      cli_usage_error(cmd, "--M: %s is not a multiple of L = lcm(P r, Q s) = %llu", s,
                      (unsigned long long)r->info.L);
      return false;
    }
  }
  if ((s = cli_get(cmd, a, "alpha")) && !cli_parse_time(cmd, "alpha", s, true, &o->cost.alpha))
    return false;
  if ((s = cli_get(cmd, a, "beta")) && !cli_parse_time(cmd, "beta", s, true, &o->cost.beta))
    return false;
  return parse_strategy(cmd, a, &o->strategy);
}

/* The optimal search's limits, the work limit, the output and Monte Carlo. */
static bool parse_limits(const cli_command *cmd, const cli_args *a, run *r, int *rc) {
  stp_redist_run_options *o = &r->o;
  const char *s;
  bool optimal = o->strategy == STP_REDIST_OPTIMAL;
  if ((s = cli_get(cmd, a, "max-steps"))) {
    if (!optimal) {
      cli_usage_error(cmd, "--max-steps applies to --strategy optimal only");
      return false;
    }
    if (!cli_parse_u64(cmd, "max-steps", s, 1, UINT64_MAX, &o->max_steps) || !need_grid(r, rc))
      return false;
    if (o->max_steps < r->info.ns_opt) {
      cli_usage_error(cmd, "--max-steps: %s < ns_opt = %llu: a processor has %llu messages, so "
                      "no schedule has at most %s steps (infeasible)", s,
                      (unsigned long long)r->info.ns_opt, (unsigned long long)r->info.ns_opt, s);
      return false;
    }
  }
  if ((s = cli_get(cmd, a, "max-nodes"))) {
    if (!optimal) {
      cli_usage_error(cmd, "--max-nodes applies to --strategy optimal only");
      return false;
    }
    if (!cli_parse_u64(cmd, "max-nodes", s, 1, UINT64_MAX, &o->max_nodes))
      return false;
  }
  if ((s = cli_get(cmd, a, "max-work")) &&
      !cli_parse_double(cmd, "max-work", s, 1, 1e300, &o->max_work))
    return false;
  /* several strategies read best as a table */
  int dflt = o->strategy == STP_REDIST_STRATEGY_ALL ? CLI_FORMAT_TABLE : CLI_FORMAT_TEXT;
  stp_graph_sim_options sim;
  if (!cli_parse_format(cmd, a, redistribute_formats, dflt, &r->fmt) ||
      !cli_parse_sim_options(cmd, a, false, true, &r->simulate, &sim, &r->law, &r->limits))
    return false;
  o->law = r->law;
  o->simulate = r->simulate ? sim.runs : 0;
  o->seed = sim.seed;
  o->control = cli_control();
  return true;
}

/* The Gantt chart of the strategy's barrier schedule (the run of that one
 * strategy, without law or simulation): one row per sender, one for the
 * barriers (alpha). */
static int draw_gantt(const run *r, gantt_spec *chart) {
  stp_error err = {0};
  stp_redist_result *res = NULL;
  stp_graph *g = NULL;
  stp_redist_run_options o = r->o;
  o.law = NULL;
  if (stp_redist_run(&o, &res, &err) != STP_OK ||
      stp_redist_schedule_graph(res->rd, res->strategies[0].schedule, &res->options.cost, &g,
                                &err) != STP_OK) {
    stp_redist_result_free(res);
    return cli_report_error(&err);
  }
  const stp_redist_schedule *sc = res->strategies[0].schedule;
  char title[200];
  snprintf(title, sizeof title, "CYCLIC(%llu) on %llu -> CYCLIC(%llu) on %llu: %s, %llu steps",
           (unsigned long long)o.r, (unsigned long long)o.P, (unsigned long long)o.s,
           (unsigned long long)o.Q,
           stp_redist_strategy_name(stp_redist_schedule_strategy(sc)),
           (unsigned long long)stp_redist_schedule_steps(sc));
  chart->g = g;
  chart->title = title;
  chart->time_unit = "units of alpha and beta";
  int rc = cli_gantt(chart);
  stp_graph_free(g);
  stp_redist_result_free(res);
  return rc;
}

static stp_status put_strategy(const void *res, size_t k, stp_record **rec, stp_error *err) {
  return stp_redist_json(res, k, rec, err);
}

/* The strategies' records, then the error of the one that failed. */
static int write_records(const run *r) {
  stp_error err = {0};
  stp_redist_result *res = NULL;
  stp_status st = stp_redist_run(&r->o, &res, &err);
  int rc = cli_out_results("redistribute", r->fmt, &r->limits, res ? res->count : 0,
                           put_strategy, res, st, &err);
  stp_redist_result_free(res);
  return rc;
}

static int run_redistribute(int argc, char **argv) {
  const cli_command *cmd = &cli_redistribute_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  run r = {0};
  stp_redist_run_options_init(&r.o);
  bool gantt = false;
  gantt_spec chart;
  stp_law *chart_law = NULL;
  rc = CLI_USAGE;
  if (parse_problem(cmd, &a, &r, &rc) && parse_limits(cmd, &a, &r, &rc) &&
      cli_parse_gantt(cmd, &a, &gantt, &chart, &chart_law)) {
    if (gantt && (r.o.strategy == STP_REDIST_STRATEGY_ALL || r.fmt != CLI_FORMAT_TEXT ||
                  r.simulate)) {
      cli_usage_error(cmd, "--gantt draws one strategy, without --json or --simulate");
      rc = CLI_USAGE;
    } else {
      rc = gantt ? draw_gantt(&r, &chart) : write_records(&r);
    }
  }
  stp_law_free(chart_law);
  stp_redist_free(r.rd);
  stp_law_free(r.law);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_redistribute_command = {
    .name = "redistribute",
    .synopsis = "redistribute --P P --Q Q --r R --s S [--M M] [--alpha A] [--beta B] "
                "[--strategy class|stepwise|greedy|caterpillar|optimal|all] [--max-steps K] "
                "[--json] [--law SPEC] [--simulate R [--seed S]]",
    .summary = "Schedule a block-cyclic redistribution CYCLIC(r) on P -> CYCLIC(s) on Q in steps\n"
               "(matchings of senders to receivers; Desprez et al., INRIA RR-3117) and price it.",
    .details = "Prints the communication grid (message lengths per L = lcm(P r, Q s) elements),\n"
               "ns_opt (the most messages of one processor: the fewest steps), and per strategy\n"
               "NS (steps), TC (sum of the steps' longest messages), cost = alpha NS + beta (M/L) TC,\n"
               "and the exact expected cost when every message time beta (M/L) len is multiplied\n"
               "by an independent Exp(1) factor, steps separated by barriers.  --law SPEC of a\n"
               "phase-type law (erlang, hyperexp, coxian, ph): also the exact expected cost under\n"
               "that law (per step the integral of 1 - prod F; with --simulate, the Monte Carlo\n"
               "law too).  --strategy all: class (where it applies), stepwise, greedy,\n"
               "caterpillar; optimal is exact (fewest steps among the cheapest) and may take long\n"
               "on big grids.",
    .options = redistribute_options,
    .run = run_redistribute,
};
