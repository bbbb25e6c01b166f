/* cmd_reduce.c: `streamtp reduce`: reduction trees of Canon and Antoniu
 * (INRIA RR-7898) for one n or a range: the tree, its schedule, the
 * deterministic makespan, the exact expected makespan with exponential
 * times, the N.B.U.E. interval, the paper's bounds, and Monte Carlo for any
 * law.  The trees and the schedule come from streamtp_reduce.h; every
 * stochastic value from the generic DAG of streamtp_graph.h. */
#include "cli/cli.h"
#include "cli/gantt.h"
#include "cli/report.h"
#include "streamtp_graph_file.h"
#include "streamtp_reduce.h"

#include <math.h>
#include <stdlib.h>
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
    {"json", 0, NULL, "one JSON object per n, one per line"},
    {"brief", 0, NULL, "leave out children and transfer_starts (long sweeps)"},
    {"dot", 0, NULL, "print the tree in Graphviz DOT, edges labelled by transfer start"},
    {"graph-json", 0, NULL, "print the schedule's DAG as a graph file (streamtp graph reads it)"},
    CLI_GANTT_OPTIONS,
    {0}};

typedef struct reduce_run {
  uint64_t lo, hi; /* the range of n */
  stp_reduce_spec spec;
  bool exp, json, brief, dot, graph_json, gantt;
  gantt_spec chart;
  stp_law *chart_law;
  stp_graph_options gopts;
  bool simulate;
  stp_graph_sim_options sim;
  stp_law *law;
} reduce_run;

/* One n's exponential and simulated values. */
typedef struct reduce_values {
  stp_graph *graph;     /* the DAG, kept for the names of the critical path */
  stp_graph_result g;   /* exp_* and critical path (when the DAG was analysed) */
  bool analysed;
  const char *exp_reason; /* when the exponential value is missing */
  char reason[256];       /* exp_reason's text when it is made here */
  bool sim_done;
  stp_graph_sim_result sim;
} reduce_values;

#define CMD (&cli_reduce_command)

/* Why Algorithm 2 and --exp-method none have no exponential value. */
static const char *const REASON_ALG2 = "transfer limit: Algorithm 2 bounds the number of "
                                       "concurrent transfers, which no fixed-order DAG expresses";
static const char *const REASON_NONE = "not computed (--exp-method none)";

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

static bool parse_limit(const cli_args *a, reduce_run *run) {
  const char *r = cli_get(CMD, a, "max-reducers"), *t = cli_get(CMD, a, "max-transfers");
  if (r && t) {
    cli_usage_error(CMD, "--max-transfers and --max-reducers exclude each other");
    return false;
  }
  if (!r && !t)
    return true;
  run->spec.algorithm = r ? STP_REDUCE_ALG3 : STP_REDUCE_ALG2;
  if (!cli_parse_u64(CMD, r ? "max-reducers" : "max-transfers", r ? r : t, 1, STP_REDUCE_MAX_N,
                     &run->spec.K))
    return false;
  if (t && run->spec.tree != STP_REDUCE_OPTIMAL) {
    cli_usage_error(CMD, "--max-transfers: Algorithm 2 builds the optimal tree only, not %s",
                    stp_reduce_tree_name(run->spec.tree));
    return false;
  }
  return true;
}

static bool parse_outputs(const cli_args *a, reduce_run *run) {
  run->json = cli_flag(CMD, a, "json");
  run->brief = cli_flag(CMD, a, "brief");
  run->dot = cli_flag(CMD, a, "dot");
  run->graph_json = cli_flag(CMD, a, "graph-json");
  if (!cli_parse_gantt(CMD, a, &run->gantt, &run->chart, &run->chart_law))
    return false;
  if (run->dot + run->json + run->graph_json + run->gantt > 1) {
    cli_usage_error(CMD, "--dot, --json, --graph-json and --gantt exclude each other");
    return false;
  }
  const char *one = run->dot ? "dot" : run->graph_json ? "graph-json" : "gantt";
  if ((run->dot || run->graph_json || run->gantt) && run->lo != run->hi) {
    cli_usage_error(CMD, "--%s: one tree at a time, give a single n", one);
    return false;
  }
  if ((run->graph_json || run->gantt) && run->spec.algorithm == STP_REDUCE_ALG2) {
    cli_usage_error(CMD, "--%s: %s", one, REASON_ALG2);
    return false;
  }
  if ((run->graph_json || run->gantt) && run->lo == 1) {
    cli_usage_error(CMD, "--%s: n = 1 has no activity to write", one);
    return false;
  }
  if (run->gantt && run->simulate) {
    cli_usage_error(CMD, "--gantt draws one run: --law and --seed without --simulate");
    return false;
  }
  if (run->simulate && run->spec.algorithm == STP_REDUCE_ALG2) {
    cli_usage_error(CMD, "--simulate: Algorithm 2 (--max-transfers) limits concurrent "
                         "transfers, which no fixed-order DAG expresses");
    return false;
  }
  return true;
}

static bool parse_run(const cli_args *a, reduce_run *run) {
  *run = (reduce_run){0};
  const char *s = cli_get(CMD, a, "n");
  if (a->npos > 0) {
    cli_usage_error(CMD, "unexpected argument '%s'", a->pos[0]);
    return false;
  }
  if (!s) {
    cli_usage_error(CMD, "--n is required");
    return false;
  }
  double d, c;
  if (!parse_n(s, &run->lo, &run->hi) || !parse_cost(a, "d", &d) || !parse_cost(a, "c", &c))
    return false;
  if (d + c <= 0) {
    cli_usage_error(CMD, "--d, --c: d = c = 0, one of the two times must be positive");
    return false;
  }
  stp_reduce_spec_init(&run->spec, run->lo, d, c);
  if ((s = cli_get(CMD, a, "tree")) && stp_reduce_tree_parse(s, &run->spec.tree) != STP_OK) {
    cli_bad_value(CMD, "tree", s, "optimal, binomial, fibonacci");
    return false;
  }
  if (!parse_limit(a, run))
    return false;
  stp_graph_options_init(&run->gopts);
  run->gopts.control = run->spec.control = cli_control();
  run->exp = true;
  if ((s = cli_get(CMD, a, "exp-method"))) {
    if (strcmp(s, "none") == 0)
      run->exp = false;
    else if (strcmp(s, "dag-ctmc") != 0) {
      cli_bad_value(CMD, "exp-method", s, "dag-ctmc, none");
      return false;
    }
  }
  if (!cli_parse_max_states(CMD, a, &run->gopts.max_states))
    return false;
  run->gopts.exponential = run->exp;
  if (!cli_parse_sim_options(CMD, a, false, true, &run->simulate, &run->sim, &run->law))
    return false;
  run->gopts.law = cli_exact_law(run->law, run->simulate);
  return parse_outputs(a, run);
}

/* ---- evaluation ------------------------------------------------------------------ */

/* Exponential and Monte Carlo values of one tree; fills v.  Returns CLI_OK or
 * the exit status after printing the error. */
static int evaluate(const reduce_run *run, const stp_reduce *r, reduce_values *v) {
  *v = (reduce_values){0};
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  if (s->algorithm == STP_REDUCE_ALG2) {
    v->exp_reason = REASON_ALG2;
    return CLI_OK;
  }
  if (!run->exp)
    v->exp_reason = REASON_NONE;
  if (s->n == 1 || (!run->exp && !run->simulate && !run->gopts.law))
    return CLI_OK; /* nothing to reduce: every value is 0 (see print) */
  /* (a phase-type law asked for: the DAG is built, its own refusal speaks) */
  uint64_t at_least = run->exp && !run->gopts.law ? stp_reduce_ideals_lower(r) : 0;
  if (at_least > run->gopts.max_states) { /* refused before the DAG is built */
    snprintf(v->reason, sizeof v->reason,
             "the exponential makespan needs more than %llu states (order ideals); its "
             "transfers that start together give at least %llu",
             (unsigned long long)run->gopts.max_states, (unsigned long long)at_least);
    v->exp_reason = v->reason;
    if (!run->simulate)
      return CLI_OK;
  }
  stp_error err = {0};
  if (stp_reduce_graph(r, &v->graph, &err) != STP_OK)
    return cli_report_error(&err);
  const stp_graph *g = v->graph;
  stp_status st = STP_OK;
  if (run->exp || run->gopts.law) {
    st = stp_graph_analyze(g, &run->gopts, &v->g, &err);
    v->analysed = st == STP_OK;
    if (st == STP_OK && run->exp && !v->g.exp_computed)
      v->exp_reason = v->g.exp_reason;
  }
  if (st == STP_OK && run->simulate) {
    st = stp_graph_simulate(g, &run->sim, &v->sim, &err);
    v->sim_done = st == STP_OK;
  }
  return st == STP_OK ? CLI_OK : cli_report_error(&err);
}

static void values_free(reduce_values *v) {
  if (v->analysed)
    stp_graph_result_free(&v->g);
  stp_graph_free(v->graph);
}

/* E[makespan] with exponential times, NaN when missing. */
static double exp_makespan(const stp_reduce_spec *s, const reduce_values *v) {
  if (v->exp_reason)
    return NAN;
  return s->n == 1 ? 0 : v->g.exp_value;
}

static uint64_t exp_states(const stp_reduce_spec *s, const reduce_values *v) {
  return s->n == 1 ? 1 : v->g.exp_states;
}

/* Simulation summary: n = 1 has makespan 0 in every run. */
static stp_graph_sim_result sim_result(const reduce_run *run, const stp_reduce_spec *s,
                                       const reduce_values *v) {
  if (s->n == 1)
    return (stp_graph_sim_result){.runs = run->sim.runs};
  return v->sim;
}

/* Where the 95% interval lies in [det, exp]. */
static const char *position(double lo, double hi, const stp_graph_sim_result *s) {
  return stp_interval_position(s->ci95_lo, s->ci95_hi, lo, hi);
}

/* ---- output ---------------------------------------------------------------------- */

static json_t *exponential_json(const stp_reduce_spec *s, const reduce_values *v) {
  if (v->exp_reason)
    return report_exponential("makespan", NAN, 0, NULL, v->exp_reason);
  return report_exponential("makespan", exp_makespan(s, v), exp_states(s, v), "dag-ctmc", NULL);
}

/* "exact_law": one element takes no time under any law. */
static json_t *law_json(const reduce_run *run, const stp_reduce_spec *s, const reduce_values *v) {
  const char *law = stp_law_spec(run->law);
  if (s->algorithm == STP_REDUCE_ALG2)
    return json_pack("{s:o,s:n,s:s}", "law", report_string(law), "makespan", "reason",
                     REASON_ALG2);
  if (s->n == 1)
    return json_pack("{s:o,s:f,s:s,s:i}", "law", report_string(law), "makespan", 0.0,
                     "method", "dag-ctmc", "states", 1);
  return report_graph_law(&v->g, law);
}

/* The common simulation block, and where it lies in [det, exp]. */
static json_t *simulation_json(const reduce_run *run, const stp_reduce_spec *spec, double det,
                               const reduce_values *v) {
  stp_graph_sim_result s = sim_result(run, spec, v);
  double lo = det, hi = exp_makespan(spec, v);
  double rel = isfinite(hi) && hi - lo > 1e-12 * hi ? (s.mean - lo) / (hi - lo) : NAN;
  json_t *o = report_simulation(&run->sim, &s, true);
  json_object_set_new(o, "position", json_string(position(lo, hi, &s)));
  json_object_set_new(o, "relative", report_number(rel));
  return o;
}

/* One n as JSON; r (the tree) is NULL in a sweep, which has no arrays. */
static int print_json(const reduce_run *run, const stp_reduce_spec *s, double det,
                      const stp_reduce *r, const reduce_values *v, double t0) {
  json_t *o = json_object();
  json_object_set_new(o, "n", json_integer((json_int_t)s->n));
  json_object_set_new(o, "d", json_real(s->d));
  json_object_set_new(o, "c", json_real(s->c));
  json_object_set_new(o, "tree", json_string(stp_reduce_tree_name(s->tree)));
  json_object_set_new(o, "algorithm", json_string(stp_reduce_algorithm_name(s->algorithm)));
  json_object_set_new(o, "K", s->algorithm == STP_REDUCE_ALG1 ? json_null()
                                                              : json_integer((json_int_t)s->K));
  if (r && !run->brief) {
    json_t *ch = json_array(), *ts = json_array();
    for (uint64_t i = 2; i <= s->n; i++) {
      json_array_append_new(ch, json_integer((json_int_t)stp_reduce_child(r, i)));
      json_array_append_new(ts, report_number(stp_reduce_transfer_start(r, i)));
    }
    json_object_set_new(o, "children", ch);
    json_object_set_new(o, "transfer_starts", ts);
  }
  json_object_set_new(o, "deterministic", json_pack("{s:o}", "makespan", report_number(det)));
  json_object_set_new(o, "exponential", exponential_json(s, v));
  if (run->gopts.law)
    json_object_set_new(o, "exact_law", law_json(run, s, v));
  json_object_set_new(o, "bounds", report_bounds(det, exp_makespan(s, v)));
  json_object_set_new(o, "opt_bounds",
                      json_pack("[o,o]", report_number(stp_reduce_opt_lower(s->n, s->d, s->c)),
                                report_number(stp_reduce_opt_upper(s->n, s->d, s->c))));
  json_object_set_new(o, "length_bound", report_number(stp_reduce_length_bound(s)));
  if (run->simulate)
    json_object_set_new(o, "simulation", simulation_json(run, s, det, v));
  json_object_set_new(o, "seconds", report_number(report_now() - t0));
  int rc = report_json_line(stdout, o);
  json_decref(o);
  return rc;
}

static void print_list(FILE *f, const char *label, const stp_reduce *r, bool starts) {
  uint64_t n = stp_reduce_get_spec(r)->n;
  fprintf(f, "  %-16s", label);
  if (n > 64) {
    fprintf(f, " (%llu values; --json lists them)\n", (unsigned long long)(n - 1));
    return;
  }
  for (uint64_t i = 2; i <= n; i++)
    if (starts)
      fprintf(f, " %g", stp_reduce_transfer_start(r, i));
    else
      fprintf(f, " %llu", (unsigned long long)stp_reduce_child(r, i));
  fprintf(f, "%s\n", n == 1 ? " (none: one element)" : "");
}

static const char *algorithm_text(const stp_reduce_spec *s) {
  switch (s->algorithm) {
  case STP_REDUCE_ALG2: return "Algorithm 2, at most K concurrent transfers";
  case STP_REDUCE_ALG3: return "Algorithm 3, at most K reducers";
  default: return "Algorithm 1";
  }
}

static void print_critical(FILE *f, const reduce_values *v) {
  if (!v->analysed || v->g.critical_len == 0 || v->g.critical_len > 40)
    return;
  fprintf(f, "  %-16s", "critical path");
  for (size_t k = 0; k < v->g.critical_len; k++)
    fprintf(f, " %s", stp_graph_transition_name(v->graph, v->g.critical[k]));
  fprintf(f, "\n");
}

static void print_text(FILE *f, const reduce_run *run, const stp_reduce *r, const reduce_values *v) {
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  fprintf(f, "n = %llu, d = %g, c = %g: %s tree (%s", (unsigned long long)s->n, s->d, s->c,
         stp_reduce_tree_name(s->tree), algorithm_text(s));
  if (s->algorithm != STP_REDUCE_ALG1)
    fprintf(f, ", K = %llu", (unsigned long long)s->K);
  fprintf(f, ")\n");
  print_list(f, "children", r, false);
  print_list(f, "transfer starts", r, true);
  fprintf(f, "  %-16s %.10g\n", "makespan", stp_reduce_makespan(r));
  double e = exp_makespan(s, v);
  if (isfinite(e))
    fprintf(f, "  %-16s %.10g (dag-ctmc, %llu order ideals)\n", "exponential", e,
           (unsigned long long)exp_states(s, v));
  else
    fprintf(f, "  %-16s none: %s\n", "exponential", v->exp_reason);
  if (run->gopts.law && s->algorithm == STP_REDUCE_ALG2)
    fprintf(f, "  law %-12s none: %s\n", stp_law_spec(run->law), REASON_ALG2);
  else if (run->gopts.law && s->n > 1 && v->g.law_computed)
    fprintf(f, "  law %-12s %.10g (dag-ctmc, %llu states)\n", stp_law_spec(run->law),
            v->g.law_value, (unsigned long long)v->g.law_states);
  else if (run->gopts.law && s->n > 1)
    fprintf(f, "  law %-12s none: %s\n", stp_law_spec(run->law), v->g.law_reason);
  print_critical(f, v);
  if (isfinite(e))
    fprintf(f, "  %-16s %.10g <= E[makespan] <= %.10g for N.B.U.E. times\n", "bounds",
           stp_reduce_makespan(r), e);
  fprintf(f, "  %-16s %g <= OPT <= %g (Lemma 5, Proposition 6)\n", "optimal length",
         stp_reduce_opt_lower(s->n, s->d, s->c), stp_reduce_opt_upper(s->n, s->d, s->c));
  double lb = stp_reduce_length_bound(s);
  if (isfinite(lb))
    fprintf(f, "  %-16s %g (%s)\n", "length bound", lb,
           s->algorithm == STP_REDUCE_ALG2 ? "Proposition 8, corrected" : "Corollary 11");
  if (run->simulate) {
    stp_graph_sim_result m = sim_result(run, s, v);
    const char *where = position(stp_reduce_makespan(r), e, &m);
    fprintf(f, "  %-16s %s, %llu runs, seed %llu: mean %.10g, 95%% [%.10g, %.10g], %s\n",
           "simulation", report_sim_law(&run->sim),
           (unsigned long long)m.runs, (unsigned long long)run->sim.seed, m.mean, m.ci95_lo,
           m.ci95_hi,
           strcmp(where, "unknown") == 0 ? "no exponential bound to place it"
           : strcmp(where, "within") == 0 ? "within the bounds"
           : strcmp(where, "below") == 0 ? "below the bounds"
                                          : "above the bounds");
  }
}

/* A number of the table, "-" when missing. */
static const char *cell(char *buf, size_t size, double x) {
  if (isfinite(x))
    snprintf(buf, size, "%.10g", x);
  else
    snprintf(buf, size, "-");
  return buf;
}

static void print_row(FILE *f, const reduce_run *run, const stp_reduce_spec *s, double det,
                      const reduce_values *v) {
  double e = exp_makespan(s, v);
  char b[5][32], states[24] = "-";
  if (isfinite(e))
    snprintf(states, sizeof states, "%llu", (unsigned long long)exp_states(s, v));
  fprintf(f, "%10llu %14s %14s %10s %10s %10s %12s", (unsigned long long)s->n,
         cell(b[0], 32, det), cell(b[1], 32, e), states,
         cell(b[2], 32, stp_reduce_opt_lower(s->n, s->d, s->c)),
         cell(b[3], 32, stp_reduce_opt_upper(s->n, s->d, s->c)),
         cell(b[4], 32, stp_reduce_length_bound(s)));
  if (run->simulate)
    fprintf(f, " %14.10g", sim_result(run, s, v).mean);
  fprintf(f, "\n");
}

static void print_dot(FILE *f, const stp_reduce *r) {
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  fprintf(f, "digraph \"reduce-%s-n%llu\" {\n  rankdir=BT;\n  node [shape=circle];\n"
         "  1 [shape=doublecircle];\n",
         stp_reduce_tree_name(s->tree), (unsigned long long)s->n);
  for (uint64_t v = 2; v <= s->n; v++)
    fprintf(f, "  %llu -> %llu [label=\"%g\"];\n", (unsigned long long)v,
           (unsigned long long)stp_reduce_child(r, v), stp_reduce_transfer_start(r, v));
  fprintf(f, "}\n");
}

/* The schedule's DAG as a graph file, one record. */
static int write_graph(const stp_reduce *r) {
  stp_error err = {0};
  stp_graph *g;
  if (stp_reduce_graph(r, &g, &err) != STP_OK)
    return cli_report_error(&err);
  cli_record rec;
  if (!cli_record_open(&rec)) {
    stp_graph_free(g);
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  stp_status st = stp_graph_write_json(g, rec.f, &err);
  stp_graph_free(g);
  if (st != STP_OK) {
    cli_record_discard(&rec);
    return cli_report_error(&err);
  }
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

/* The Gantt chart of the schedule: one row per machine (its reductions,
 * then its transfer). */
static int draw_gantt(const reduce_run *run, const stp_reduce *r) {
  stp_error err = {0};
  stp_graph *g;
  if (stp_reduce_graph(r, &g, &err) != STP_OK)
    return cli_report_error(&err);
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  char title[200];
  snprintf(title, sizeof title, "reduction of n = %llu, d = %g, c = %g: %s tree (%s)",
           (unsigned long long)s->n, s->d, s->c, stp_reduce_tree_name(s->tree),
           algorithm_text(s));
  gantt_spec chart = run->chart;
  chart.g = g;
  chart.title = title;
  int rc = cli_gantt(&chart);
  stp_graph_free(g);
  return rc;
}

static void print_header(FILE *f, const reduce_run *run) {
  fprintf(f, "%10s %14s %14s %10s %10s %10s %12s%s\n", "n", "makespan", "exp_makespan", "states",
         "opt_lower", "opt_upper", "length_bound", run->simulate ? "       sim_mean" : "");
}

/* Builds, evaluates and prints one n. */
static int reduce_one(const reduce_run *run, uint64_t n) {
  stp_reduce_spec spec = run->spec;
  spec.n = n;
  stp_error err = {0};
  stp_reduce *r;
  double t0 = report_now();
  /* the JSON arrays are 2 (n - 1) values of about 64 bytes each in memory */
  if (run->json && !run->brief &&
      !cli_within_budget("the JSON record's children and transfer_starts (--brief leaves them "
                         "out)", 128.0 * (double)n))
    return CLI_USAGE;
  if (stp_reduce_build(&spec, &r, &err) != STP_OK)
    return cli_report_error(&err);
  if (run->graph_json || run->gantt) {
    int grc = run->gantt ? draw_gantt(run, r) : write_graph(r);
    stp_reduce_free(r);
    return grc;
  }
  reduce_values v = {0};
  int rc = run->dot ? CLI_OK : evaluate(run, r, &v);
  if (rc == CLI_OK && run->json) {
    rc = print_json(run, &spec, stp_reduce_makespan(r), r, &v, t0) == 0 ? CLI_OK : CLI_FAILURE;
  } else if (rc == CLI_OK) { /* one record: the tree, the report or the table's line */
    cli_record rec;
    if (!cli_record_open(&rec)) {
      rc = CLI_FAILURE;
    } else {
      if (run->dot)
        print_dot(rec.f, r);
      else if (run->lo != run->hi)
        print_row(rec.f, run, &spec, stp_reduce_makespan(r), &v);
      else
        print_text(rec.f, run, r, &v);
      rc = cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
    }
  }
  values_free(&v); /* also after a failed evaluation: the graph may exist */
  stp_reduce_free(r);
  return rc;
}

/* A range without arrays, exponential or simulation needs makespans only:
 * one sweep instead of a build per n. */
static int reduce_sweep(const reduce_run *run) {
  stp_reduce_spec spec = run->spec;
  spec.n = run->hi;
  stp_error err = {0};
  stp_reduce_sweep *sw;
  if (stp_reduce_sweep_new(&spec, &sw, &err) != STP_OK)
    return cli_report_error(&err);
  uint64_t n;
  double m;
  reduce_values none = {.exp_reason =
                            spec.algorithm == STP_REDUCE_ALG2 ? REASON_ALG2 : REASON_NONE};
  int rc = CLI_OK;
  double t0 = report_now(); /* a record's seconds: since the previous one */
  while (rc == CLI_OK && cli_go_on() && stp_reduce_sweep_next(sw, &n, &m)) {
    if (n < run->lo)
      continue;
    spec.n = n;
    if (run->json) {
      rc = print_json(run, &spec, m, NULL, &none, t0) == 0 ? CLI_OK : CLI_FAILURE;
    } else {
      cli_record rec;
      rc = cli_record_open(&rec) ? CLI_OK : CLI_FAILURE;
      if (rc == CLI_OK) {
        print_row(rec.f, run, &spec, m, &none);
        rc = cli_record_close(&rec) ? CLI_OK : CLI_FAILURE;
      }
    }
    t0 = report_now();
  }
  stp_reduce_sweep_free(sw);
  return rc;
}

static int run_reduce(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CMD, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  reduce_run run;
  if (!parse_run(&a, &run)) {
    stp_law_free(run.law);
    stp_law_free(run.chart_law);
    cli_args_free(&a);
    return CLI_USAGE;
  }
  if (run.lo != run.hi && !run.json) {
    cli_record rec;
    if (cli_record_open(&rec)) {
      print_header(rec.f, &run);
      rc = cli_record_close(&rec) ? CLI_OK : CLI_FAILURE;
    }
  }
  if (rc != CLI_OK)
    ; /* the header could not be written: cli_finish says why */
  else if (run.lo != run.hi && (run.brief || !run.json) && !run.exp && !run.simulate)
    rc = reduce_sweep(&run);
  else
    for (uint64_t n = run.lo; n <= run.hi && rc == CLI_OK && cli_go_on(); n++)
      rc = reduce_one(&run, n);
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
