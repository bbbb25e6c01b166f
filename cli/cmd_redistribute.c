/* cmd_redistribute.c: `streamtp redistribute`: block-cyclic redistribution
 * (RR-3117): the communication grid, the minimum number of steps, one
 * schedule per strategy with its costs (deterministic, exponential, the
 * N.B.U.E. interval), the exact expected cost under a phase-type law
 * (--law alone) and optionally Monte Carlo of the barrier schedule.
 * People get the paper's tables (grid, one row per step); scripts get one
 * JSON object per strategy (docs/format.md, "redistribute").  The JSON is
 * written directly: a 2048 x 2048 grid is four million numbers. */
#include "cli/cli.h"
#include "cli/gantt.h"
#include "cli/report.h"
#include "streamtp_redistribute.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    {"json", 0, NULL, "one JSON object per strategy"},
    CLI_SIM_OPTIONS,
    CLI_GANTT_OPTIONS,
    {0}};

#define TEXT_GRID_MAX 32 /* larger grids only in --json */

typedef struct run {
  const cli_command *cmd;
  stp_redist *rd;
  stp_redist_info info;
  stp_redist_cost cost;
  stp_redist_options opts;
  bool json, simulate;
  stp_graph_sim_options sim;
  stp_law *law;
  const stp_law *exact; /* the phase-type law of the exact cost, or NULL */
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

static bool parse_strategies(const cli_command *cmd, const cli_args *a, const stp_redist *rd,
                             stp_redist_strategy *list, size_t *n) {
  const char *s = cli_get(cmd, a, "strategy");
  *n = 0;
  stp_error why;
  if (!s) { /* the paper's schedule: class where Prop. 4 applies, else stepwise */
    list[(*n)++] = stp_redist_class_applies(rd, &why) == STP_OK ? STP_REDIST_CLASS
                                                                  : STP_REDIST_STEPWISE;
    return true;
  }
  if (strcmp(s, "all") != 0) {
    stp_redist_strategy st;
    if (stp_redist_strategy_parse(s, &st) != STP_OK) {
      cli_bad_value(cmd, "strategy", s, "class, stepwise, greedy, caterpillar, optimal, all");
      return false;
    }
    if (st == STP_REDIST_CLASS && stp_redist_class_applies(rd, &why) != STP_OK) {
      cli_error("%s", why.message); /* before anything is printed */
      return false;
    }
    list[(*n)++] = st;
    return true;
  }
  if (stp_redist_class_applies(rd, &why) == STP_OK)
    list[(*n)++] = STP_REDIST_CLASS;
  list[(*n)++] = STP_REDIST_STEPWISE;
  list[(*n)++] = STP_REDIST_GREEDY;
  list[(*n)++] = STP_REDIST_CATERPILLAR;
  return true;
}

/* Everything but the strategies; false after printing the error (*rc set). */
static bool parse_run(const cli_command *cmd, const cli_args *a, run *r, int *rc) {
  *rc = CLI_USAGE;
  uint64_t P, Q, rr, ss;
  if (a->npos > 0) {
    cli_usage_error(cmd, "unexpected argument '%s'", a->pos[0]);
    return false;
  }
  if (!parse_positive(cmd, a, "P", STP_REDIST_MAX_PROCS, &P) ||
      !parse_positive(cmd, a, "Q", STP_REDIST_MAX_PROCS, &Q) ||
      !parse_positive(cmd, a, "r", STP_REDIST_MAX_BLOCK, &rr) ||
      !parse_positive(cmd, a, "s", STP_REDIST_MAX_BLOCK, &ss))
    return false;
  stp_error err = {0};
  if (stp_redist_new(P, Q, rr, ss, &r->rd, &err) != STP_OK) {
    *rc = cli_report_error(&err);
    return false;
  }
  stp_redist_get_info(r->rd, &r->info);
  r->cost = (stp_redist_cost){.alpha = 0, .beta = 1, .M = r->info.L};
  const char *s;
  if ((s = cli_get(cmd, a, "M"))) {
    if (!cli_parse_u64(cmd, "M", s, 1, UINT64_MAX, &r->cost.M))
      return false;
    if (r->cost.M % r->info.L != 0) {
      cli_usage_error(cmd, "--M: %s is not a multiple of L = lcm(P r, Q s) = %llu", s,
                      (unsigned long long)r->info.L);
      return false;
    }
  }
  if ((s = cli_get(cmd, a, "alpha")) &&
      !cli_parse_time(cmd, "alpha", s, true, &r->cost.alpha))
    return false;
  if ((s = cli_get(cmd, a, "beta")) && !cli_parse_time(cmd, "beta", s, true, &r->cost.beta))
    return false;
  if (stp_redist_cost_check(r->rd, &r->cost, &err) != STP_OK) { /* before anything is printed */
    *rc = cli_report_error(&err);
    return false;
  }
  stp_redist_options_init(&r->opts);
  r->opts.control = cli_control();
  const char *strategy = cli_get(cmd, a, "strategy");
  bool optimal = strategy && strcmp(strategy, "optimal") == 0;
  if ((s = cli_get(cmd, a, "max-steps"))) {
    if (!optimal) {
      cli_usage_error(cmd, "--max-steps applies to --strategy optimal only");
      return false;
    }
    if (!cli_parse_u64(cmd, "max-steps", s, 1, UINT64_MAX, &r->opts.max_steps))
      return false;
    if (r->opts.max_steps < r->info.ns_opt) {
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
    if (!cli_parse_u64(cmd, "max-nodes", s, 1, UINT64_MAX, &r->opts.max_nodes))
      return false;
  }
  if ((s = cli_get(cmd, a, "max-work")) &&
      !cli_parse_double(cmd, "max-work", s, 1, 1e300, &r->opts.max_work))
    return false;
  r->json = cli_flag(cmd, a, "json");
  /* a JSON record holds the grid and every message: refused before it is built */
  if (r->json && !cli_within_budget("the JSON record of the grid and its messages",
                                    40.0 * (double)r->info.P * (double)r->info.Q +
                                        400.0 * (double)r->info.messages)) {
    *rc = CLI_USAGE;
    return false;
  }
  if (!cli_parse_sim_options(cmd, a, false, true, &r->simulate, &r->sim, &r->law))
    return false;
  r->exact = cli_exact_law(r->law, r->simulate);
  *rc = CLI_OK;
  return true;
}

/* ---- output ------------------------------------------------------------------ */

/* The grid of message lengths, row by row. */
static json_t *grid_json(const run *r) {
  json_t *g = json_array();
  for (uint64_t p = 0; g && p < r->info.P; p++) {
    json_t *row = json_array();
    for (uint64_t q = 0; row && q < r->info.Q; q++)
      json_array_append_new(row, json_integer((json_int_t)stp_redist_length(r->rd, p, q)));
    json_array_append_new(g, row);
  }
  return g;
}

static json_t *steps_json(const stp_redist_schedule *sc) {
  json_t *steps = json_array();
  for (uint64_t k = 0; steps && k < stp_redist_schedule_steps(sc); k++) {
    json_t *step = json_array();
    for (uint64_t i = 0; step && i < stp_redist_step_size(sc, k); i++) {
      uint64_t p, q, l;
      stp_redist_step_message(sc, k, i, &p, &q, &l);
      json_array_append_new(step, json_pack("{s:I,s:I,s:I}", "from", (json_int_t)p, "to",
                                            (json_int_t)q, "length", (json_int_t)l));
    }
    json_array_append_new(steps, step);
  }
  return steps;
}

typedef struct outcome {
  stp_redist_costs c;
  stp_redist_law_costs law; /* when run.exact */
  bool simulated;
  stp_graph_sim_result sim;
  double t0; /* when this strategy started: the record's seconds */
} outcome;

/* The limits of the run: those of every command, and the search's own. */
static json_t *limits_json(const run *r) {
  json_t *l = report_limits();
  if (l) {
    json_object_set_new(l, "max_steps", r->opts.max_steps
                                            ? json_integer((json_int_t)r->opts.max_steps)
                                            : json_null());
    json_object_set_new(l, "max_nodes", json_integer(r->opts.max_nodes
                                                         ? (json_int_t)r->opts.max_nodes
                                                         : 1000000)); /* the library's 0 */
    json_object_set_new(l, "max_work", json_real(r->opts.max_work > 0
                                                     ? r->opts.max_work
                                                     : STP_REDIST_DEFAULT_MAX_WORK));
  }
  return l;
}

/* "exact_law": {"law", "makespan", "method", "estimated_error", "step_shapes"},
 * or {"law", "makespan": null, "reason"} (docs/format.md, "redistribute"). */
static json_t *law_json(const run *r, const outcome *o) {
  const stp_redist_law_costs *l = &o->law;
  json_t *j = report_law(stp_law_spec(r->exact), "makespan", l->makespan,
                         l->computed ? NULL : l->reason);
  if (j && l->computed) {
    json_object_set_new(j, "method", json_string(l->method));
    json_object_set_new(j, "estimated_error", report_number(l->error));
    json_object_set_new(j, "step_shapes", json_integer((json_int_t)l->distinct));
  }
  return j;
}

/* One strategy as one JSON line, through the shared printer (shortest
 * round-trip numbers, reals as reals, version and limits).  The expected
 * completion time is a "makespan" (glossary); "cost" and
 * "exponential.cost", its names before, stay one release (NEWS.md). */
static int print_json(const run *r, const stp_redist_schedule *sc, const outcome *o) {
  const stp_redist_info *in = &r->info;
  json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "P", (json_int_t)in->P, "Q",
                        (json_int_t)in->Q, "r", (json_int_t)in->r, "s", (json_int_t)in->s, "L",
                        (json_int_t)in->L, "g", (json_int_t)in->g, "M", (json_int_t)r->cost.M);
  if (!j)
    return -1;
  json_object_set_new(j, "alpha", report_number(r->cost.alpha));
  json_object_set_new(j, "beta", report_number(r->cost.beta));
  json_object_set_new(j, "grid", grid_json(r));
  json_object_set_new(j, "messages", json_integer((json_int_t)in->messages));
  json_object_set_new(j, "ns_opt", json_integer((json_int_t)in->ns_opt));
  json_object_set_new(j, "strategy",
                      json_string(stp_redist_strategy_name(stp_redist_schedule_strategy(sc))));
  json_object_set_new(j, "steps", steps_json(sc));
  json_object_set_new(j, "ns", json_integer((json_int_t)stp_redist_schedule_steps(sc)));
  json_object_set_new(j, "tc", json_integer((json_int_t)stp_redist_schedule_tc(sc)));
  json_object_set_new(j, "cost", report_number(o->c.cost));
  json_object_set_new(j, "deterministic",
                      json_pack("{s:o}", "makespan", report_number(o->c.cost)));
  json_object_set_new(j, "exponential",
                      json_pack("{s:o,s:s,s:o}", "makespan", report_number(o->c.exp_cost),
                                "method", o->c.exp_method, "cost",
                                report_number(o->c.exp_cost)));
  json_object_set_new(j, "bounds", report_bounds(o->c.cost, o->c.exp_cost));
  if (r->exact)
    json_object_set_new(j, "exact_law", law_json(r, o));
  if (stp_redist_schedule_strategy(sc) == STP_REDIST_OPTIMAL) {
    uint64_t lb, profiles, nodes;
    stp_redist_schedule_search(sc, &lb, &profiles, &nodes);
    json_object_set_new(j, "max_steps", r->opts.max_steps
                                            ? json_integer((json_int_t)r->opts.max_steps)
                                            : json_null());
    json_object_set_new(j, "search", json_pack("{s:I,s:I,s:I}", "lower_bound", (json_int_t)lb,
                                               "profiles", (json_int_t)profiles, "nodes",
                                               (json_int_t)nodes));
  }
  if (o->simulated)
    json_object_set_new(j, "simulation", report_simulation(&r->sim, &o->sim, true));
  json_object_set_new(j, "seconds", report_number(report_now() - o->t0));
  json_object_set_new(j, "version", json_string(STP_VERSION));
  json_object_set_new(j, "limits", limits_json(r));
  int rc = report_json_line(stdout, j);
  json_decref(j);
  return rc;
}

static void print_head(FILE *f, const run *r) {
  const stp_redist_info *in = &r->info;
  fprintf(f, "CYCLIC(%llu) on %llu -> CYCLIC(%llu) on %llu: L = %llu, g = %llu, %llu messages, "
         "ns_opt = %llu\n",
         (unsigned long long)in->r, (unsigned long long)in->P, (unsigned long long)in->s,
         (unsigned long long)in->Q, (unsigned long long)in->L, (unsigned long long)in->g,
         (unsigned long long)in->messages, (unsigned long long)in->ns_opt);
  fprintf(f, "cost model: alpha = %g, beta = %g, M = %llu (%llu periods)\n", r->cost.alpha,
         r->cost.beta, (unsigned long long)r->cost.M, (unsigned long long)(r->cost.M / in->L));
  if (in->P > TEXT_GRID_MAX || in->Q > TEXT_GRID_MAX) {
    fprintf(f, "\ngrid: %llu x %llu (shown up to %d x %d; --json has it)\n",
           (unsigned long long)in->P, (unsigned long long)in->Q, TEXT_GRID_MAX, TEXT_GRID_MAX);
    return;
  }
  int w = 1;
  for (uint64_t p = 0; p < in->P; p++)
    for (uint64_t q = 0; q < in->Q; q++)
      w = (int)fmax(w, snprintf(NULL, 0, "%llu", (unsigned long long)stp_redist_length(r->rd, p, q)));
  w = (int)fmax(w, snprintf(NULL, 0, "%llu", (unsigned long long)in->Q - 1));
  fprintf(f, "\ncommunication grid (message lengths per L elements; - none)\n  send\\recv");
  for (uint64_t q = 0; q < in->Q; q++)
    fprintf(f, " %*llu", w, (unsigned long long)q);
  fprintf(f, "  messages\n");
  for (uint64_t p = 0; p < in->P; p++) {
    fprintf(f, "  %9llu", (unsigned long long)p);
    uint64_t n = 0;
    for (uint64_t q = 0; q < in->Q; q++) {
      uint64_t l = stp_redist_length(r->rd, p, q);
      n += l > 0;
      if (l)
        fprintf(f, " %*llu", w, (unsigned long long)l);
      else
        fprintf(f, " %*s", w, "-");
    }
    fprintf(f, "  %llu\n", (unsigned long long)n);
  }
  fprintf(f, "  %9s", "messages");
  for (uint64_t q = 0; q < in->Q; q++) {
    uint64_t n = 0;
    for (uint64_t p = 0; p < in->P; p++)
      n += stp_redist_length(r->rd, p, q) > 0;
    fprintf(f, " %*llu", w, (unsigned long long)n);
  }
  fprintf(f, "\n");
}

static void print_costs(FILE *f, const run *r, const outcome *o) {
  fprintf(f, "  cost %.10g, expected with exponential times %.10g (%s); N.B.U.E. interval "
         "[%.10g, %.10g]\n", o->c.cost, o->c.exp_cost, o->c.exp_method, o->c.cost, o->c.exp_cost);
  if (r->exact) {
    char detail[128];
    snprintf(detail, sizeof detail, "%s, error estimate %.1e, %llu step shape%s", o->law.method,
             o->law.error, (unsigned long long)o->law.distinct, o->law.distinct == 1 ? "" : "s");
    report_law_text(f, stp_law_spec(r->exact), 16, "expected", o->law.makespan,
                    o->law.computed ? NULL : o->law.reason, detail);
  }
  if (o->simulated)
    fprintf(f, "  Monte Carlo (%s, %llu runs, seed %llu): %.10g, 95%% interval [%.10g, %.10g]\n",
           r->law ? stp_law_spec(r->law) : "exp", (unsigned long long)o->sim.runs,
           (unsigned long long)r->sim.seed, o->sim.mean, o->sim.ci95_lo, o->sim.ci95_hi);
}

static void print_schedule(FILE *f, const run *r, const stp_redist_schedule *sc, const outcome *o) {
  uint64_t ns = stp_redist_schedule_steps(sc);
  fprintf(f, "\n%s: NS = %llu, TC = %llu\n", stp_redist_strategy_name(stp_redist_schedule_strategy(sc)),
         (unsigned long long)ns, (unsigned long long)stp_redist_schedule_tc(sc));
  if (stp_redist_schedule_strategy(sc) == STP_REDIST_OPTIMAL) {
    uint64_t lb, profiles, nodes;
    stp_redist_schedule_search(sc, &lb, &profiles, &nodes);
    fprintf(f, "  proven optimal%s: lower bound %llu, %llu cost profiles refuted or tried, %llu "
           "search nodes\n", r->opts.max_steps ? " within --max-steps" : "",
           (unsigned long long)lb, (unsigned long long)profiles, (unsigned long long)nodes);
  }
  print_costs(f, r, o);
  fprintf(f, "  %4s %6s  messages (sender->receiver:length)\n", "step", "cost");
  for (uint64_t k = 0; k < ns; k++) {
    fprintf(f, "  %4llu %6llu ", (unsigned long long)k + 1,
           (unsigned long long)stp_redist_step_cost(sc, k));
    for (uint64_t i = 0; i < stp_redist_step_size(sc, k); i++) {
      uint64_t p, q, l;
      stp_redist_step_message(sc, k, i, &p, &q, &l);
      fprintf(f, " %llu->%llu:%llu", (unsigned long long)p, (unsigned long long)q,
             (unsigned long long)l);
    }
    fprintf(f, "\n");
  }
}

static void print_row(FILE *f, const run *r, const stp_redist_schedule *sc, const outcome *o) {
  fprintf(f, "  %-12s %6llu %8llu %14.8g %14.8g", stp_redist_strategy_name(stp_redist_schedule_strategy(sc)),
         (unsigned long long)stp_redist_schedule_steps(sc),
         (unsigned long long)stp_redist_schedule_tc(sc), o->c.cost, o->c.exp_cost);
  if (r->exact && o->law.computed)
    fprintf(f, " %14.8g", o->law.makespan);
  else if (r->exact)
    fprintf(f, " %14s", "-");
  if (o->simulated)
    fprintf(f, " %14.8g [%.8g, %.8g]", o->sim.mean, o->sim.ci95_lo, o->sim.ci95_hi);
  fprintf(f, "\n");
}

/* One strategy's text as one record: the head and the table's header first
 * when it is the first. */
static int text_record(const run *r, const stp_redist_schedule *sc, const outcome *o, size_t n,
                       bool first) {
  cli_record rec;
  if (!cli_record_open(&rec))
    return CLI_FAILURE;
  if (first)
    print_head(rec.f, r);
  if (first && n > 1)
    fprintf(rec.f, "\n  %-12s %6s %8s %14s %14s%s%s\n", "strategy", "NS", "TC", "cost",
            "exp. cost", r->exact ? "      law cost" : "",
            r->simulate ? "    Monte Carlo (95% interval)" : "");
  if (n > 1)
    print_row(rec.f, r, sc, o);
  else
    print_schedule(rec.f, r, sc, o);
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

/* ---- running ------------------------------------------------------------------ */

static int evaluate(const run *r, const stp_redist_schedule *sc, outcome *o) {
  stp_error err = {0};
  double t0 = o->t0;
  memset(o, 0, sizeof *o);
  o->t0 = t0;
  if (stp_redist_evaluate(r->rd, sc, &r->cost, &o->c, &err) != STP_OK)
    return cli_report_error(&err);
  if (r->exact && stp_redist_evaluate_law(r->rd, sc, &r->cost, r->exact, &r->opts.control,
                                          &o->law, &err) != STP_OK)
    return cli_report_error(&err);
  if (r->simulate) { /* Monte Carlo of the barrier schedule, any law */
    uint64_t ns = stp_redist_schedule_steps(sc), m = r->info.messages;
    if (!cli_within_budget("the barrier schedule's event graph",
                           stp_graph_memory_estimate(m + ns, 2 * m + ns, 1)))
      return CLI_USAGE;
    stp_graph *g;
    if (stp_redist_schedule_graph(r->rd, sc, &r->cost, &g, &err) != STP_OK)
      return cli_report_error(&err);
    stp_status s = stp_graph_simulate(g, &r->sim, &o->sim, &err);
    stp_graph_free(g);
    if (s != STP_OK)
      return cli_report_error(&err);
    o->simulated = true;
  }
  return CLI_OK;
}

/* The Gantt chart of one strategy's barrier schedule: one row per sender,
 * one for the barriers (alpha). */
static int draw_gantt(const run *r, const stp_redist_schedule *sc, gantt_spec *chart) {
  stp_graph *g;
  stp_error err = {0};
  if (stp_redist_schedule_graph(r->rd, sc, &r->cost, &g, &err) != STP_OK)
    return cli_report_error(&err);
  char title[200];
  snprintf(title, sizeof title, "CYCLIC(%llu) on %llu -> CYCLIC(%llu) on %llu: %s, %llu steps",
           (unsigned long long)r->info.r, (unsigned long long)r->info.P,
           (unsigned long long)r->info.s, (unsigned long long)r->info.Q,
           stp_redist_strategy_name(stp_redist_schedule_strategy(sc)),
           (unsigned long long)stp_redist_schedule_steps(sc));
  chart->g = g;
  chart->title = title;
  int rc = cli_gantt(chart);
  stp_graph_free(g);
  return rc;
}

static int run_redistribute(int argc, char **argv) {
  const cli_command *cmd = &cli_redistribute_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  run r = {.cmd = cmd};
  stp_redist_strategy list[5];
  size_t n = 0;
  if (!parse_run(cmd, &a, &r, &rc))
    goto out;
  if (!parse_strategies(cmd, &a, r.rd, list, &n)) {
    rc = CLI_USAGE;
    goto out;
  }
  bool gantt;
  gantt_spec chart;
  stp_law *chart_law = NULL;
  if (!cli_parse_gantt(cmd, &a, &gantt, &chart, &chart_law)) {
    rc = CLI_USAGE;
    goto out;
  }
  if (gantt && (n > 1 || r.json || r.simulate)) {
    cli_usage_error(cmd, "--gantt draws one strategy, without --json or --simulate");
    stp_law_free(chart_law);
    rc = CLI_USAGE;
    goto out;
  }
  if (gantt) {
    stp_error err = {0};
    stp_redist_schedule *sc;
    if (stp_redist_schedule_new(r.rd, list[0], &r.opts, &sc, &err) != STP_OK) {
      rc = cli_report_error(&err);
    } else {
      rc = draw_gantt(&r, sc, &chart);
      stp_redist_schedule_free(sc);
    }
    stp_law_free(chart_law);
    goto out;
  }
  /* Each strategy is one record; the text report's head goes with the
   * first, so that a failure before it leaves nothing half-written. */
  for (size_t i = 0; i < n && rc == CLI_OK && cli_go_on(); i++) {
    stp_error err = {0};
    stp_redist_schedule *sc;
    outcome o = {.t0 = report_now()};
    if (stp_redist_schedule_new(r.rd, list[i], &r.opts, &sc, &err) != STP_OK) {
      rc = cli_report_error(&err);
      break;
    }
    rc = evaluate(&r, sc, &o);
    if (rc == CLI_OK)
      rc = r.json ? (print_json(&r, sc, &o) == 0 ? CLI_OK : CLI_FAILURE)
                  : text_record(&r, sc, &o, n, i == 0);
    stp_redist_schedule_free(sc);
  }
out:
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
