/* cmd_bcast.c: `streamtp bcast`: broadcast on a grid of clusters (Steffenel
 * 2006) in three modes: a platform file (each heuristic's send order, its
 * makespan, the exact exponential makespan of its DAG, the N.B.U.E.
 * interval, Monte Carlo), --model (Table 1's formulas against the (max,+)
 * value of each tree) and --partition (Lowekamp's clusters of a latency
 * matrix).  docs/format.md, "bcast", is the contract. */
#include "cli/cli.h"
#include "cli/gantt.h"
#include "cli/report.h"
#include "streamtp_bcast.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_option bcast_options[] = {
    {"size", 0, "BYTES", "message size (needed when a gap is {\"g0\", \"per_byte\"})"},
    {"root", 0, "NAME", "root cluster (default: the file's \"root\", else the first cluster)"},
    {"inter", 0, "flat|fef|ecef|ecef-la|ecef-lat|ecef-lat-max|bottomup|all", "flat, fef, ecef, ecef-la, ecef-lat, ecef-lat-max, bottomup or all "
                      "(default all)"},
    {"intra", 0, "binomial|flat|chain", "binomial (default), flat or chain: the broadcast inside clusters"},
    {"max-states", 0, "N", "largest order-ideal chain of the exact exponential makespan "
                           "(default 1000000)"},
    CLI_SIM_OPTIONS,
    CLI_GANTT_OPTIONS,
    {"json", 0, NULL, "one JSON object per line"},
    {"model", 0, NULL, "Table 1 mode: printed formula and (max,+) value of each algorithm"},
    {"P", 0, "P", "--model: number of processes (>= 2)"},
    {"L", 0, "L", "--model: latency"},
    {"g", 0, "G", "--model: gap of the message g(m)"},
    {"k", 0, "K", "--model: segments (default 1)"},
    {"gs", 0, "GS", "--model: gap of a segment g(s) (default G)"},
    {"g1", 0, "G1", "--model: gap of a 1-byte message g(1) (default 0)"},
    {"partition", 0, "CSV", "Lowekamp mode: cluster the machines of a latency matrix"},
    {"rho", 0, "R", "--partition: tolerance (edges within 1 + R of the smallest)"},
    {0}};

static const char *const platform_only[] = {"size",     "root", "inter", "intra", "max-states",
                                            "simulate", "law",  "seed",  "gantt", "periods",
                                            NULL};
static const char *const model_only[] = {"P", "L", "g", "k", "gs", "g1", NULL};

#define CMD (&cli_bcast_command)

/* Options of another mode are usage errors. */
static bool refuse(const cli_args *a, const char *const *names, const char *mode) {
  for (const char *const *n = names; *n; n++)
    if (cli_get(CMD, a, *n)) {
      cli_usage_error(CMD, "--%s: not used %s", *n, mode);
      return false;
    }
  return true;
}

/* ---- --model ------------------------------------------------------------------- */

static bool model_params(const cli_args *a, stp_bcast_model_params *q) {
  const char *P = cli_get(CMD, a, "P"), *L = cli_get(CMD, a, "L"), *g = cli_get(CMD, a, "g");
  if (!P || !L || !g) {
    cli_usage_error(CMD, "--model needs --P, --L and --g");
    return false;
  }
  *q = (stp_bcast_model_params){.k = 1};
  if (!cli_parse_u64(CMD, "P", P, 2, UINT64_C(1) << 40, &q->P) ||
      !cli_parse_time(CMD, "L", L, true, &q->L) || !cli_parse_time(CMD, "g", g, true, &q->g))
    return false;
  const char *s;
  q->gs = q->g;
  if ((s = cli_get(CMD, a, "k")) && !cli_parse_u64(CMD, "k", s, 1, UINT64_C(1) << 40, &q->k))
    return false;
  if ((s = cli_get(CMD, a, "gs")) && !cli_parse_time(CMD, "gs", s, true, &q->gs))
    return false;
  if ((s = cli_get(CMD, a, "g1")) && !cli_parse_time(CMD, "g1", s, true, &q->g1))
    return false;
  return true;
}

static int run_model(const cli_args *a, bool json) {
  stp_bcast_model_params q;
  if (!model_params(a, &q))
    return CLI_USAGE;
  double formula[STP_BCAST_ALG_COUNT], dag[STP_BCAST_ALG_COUNT];
  for (int k = 0; k < STP_BCAST_ALG_COUNT; k++) {
    stp_error err = {0};
    formula[k] = stp_bcast_model_formula((stp_bcast_alg)k, &q);
    if (stp_bcast_model_dag((stp_bcast_alg)k, &q, &dag[k], &err) != STP_OK)
      return cli_report_error(&err);
  }
  if (json) {
    json_t *o = json_object(), *algs = json_object();
    json_object_set_new(o, "P", json_integer((json_int_t)q.P));
    json_object_set_new(o, "L", report_number(q.L));
    json_object_set_new(o, "g", report_number(q.g));
    json_object_set_new(o, "k", json_integer((json_int_t)q.k));
    json_object_set_new(o, "gs", report_number(q.gs));
    json_object_set_new(o, "g1", report_number(q.g1));
    for (int k = 0; k < STP_BCAST_ALG_COUNT; k++)
      json_object_set_new(algs, stp_bcast_alg_name((stp_bcast_alg)k),
                          json_pack("{s:o,s:o}", "formula", report_number(formula[k]), "dag",
                                    report_number(dag[k])));
    json_object_set_new(o, "algorithms", algs);
    int rc = report_json_line(stdout, o);
    json_decref(o);
    return rc ? CLI_FAILURE : CLI_OK;
  }
  cli_record rec;
  if (!cli_record_open(&rec))
    return CLI_FAILURE;
  FILE *f = rec.f;
  fprintf(f, "Table 1, P = %llu, L = %g, g = %g, k = %llu, gs = %g, g1 = %g\n",
          (unsigned long long)q.P, q.L, q.g, (unsigned long long)q.k, q.gs, q.g1);
  fprintf(f, "  %-16s %16s %16s\n", "algorithm", "formula", "dag");
  for (int k = 0; k < STP_BCAST_ALG_COUNT; k++) {
    char d[32] = "-";
    if (!isnan(dag[k]))
      snprintf(d, sizeof d, "%.10g", dag[k]);
    bool differs = !isnan(dag[k]) && fabs(dag[k] - formula[k]) > 1e-9 * fmax(1, fabs(dag[k]));
    fprintf(f, "  %-16s %16.10g %16s%s\n", stp_bcast_alg_name((stp_bcast_alg)k), formula[k], d,
            differs ? "  (differs: see docs/design.md)" : "");
  }
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

/* ---- --partition ------------------------------------------------------------------ */

static void print_ranges(FILE *f, const size_t *x, size_t n) {
  for (size_t k = 0; k < n;) {
    size_t e = k;
    while (e + 1 < n && x[e + 1] == x[e] + 1)
      e++;
    fprintf(f, "%s%zu", k ? " " : "", x[k]);
    if (e > k)
      fprintf(f, "-%zu", x[e]);
    k = e + 1;
  }
}

static int print_partition(const char *file, double rho, const stp_bcast_partition *p,
                           bool json) {
  if (!json) {
    cli_record rec;
    if (!cli_record_open(&rec))
      return CLI_FAILURE;
    fprintf(rec.f, "%s: %zu machines, %zu clusters (rho %g)\n", file, p->n, p->nclusters, rho);
    for (size_t c = 0; c < p->nclusters; c++) {
      fprintf(rec.f, "  cluster %zu (%zu): ", c, p->sizes[c]);
      print_ranges(rec.f, p->nodes + p->offsets[c], p->sizes[c]);
      fputc('\n', rec.f);
    }
    return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
  }
  json_t *o = json_object(), *sizes = json_array(), *cl = json_array();
  json_object_set_new(o, "file", report_string(file));
  json_object_set_new(o, "rho", report_number(rho));
  for (size_t c = 0; c < p->nclusters; c++) {
    json_t *m = json_array();
    for (size_t k = p->offsets[c]; k < p->offsets[c + 1]; k++)
      json_array_append_new(m, json_integer((json_int_t)p->nodes[k]));
    json_array_append_new(sizes, json_integer((json_int_t)p->sizes[c]));
    json_array_append_new(cl, m);
  }
  json_object_set_new(o, "sizes", sizes);
  json_object_set_new(o, "clusters", cl);
  int rc = report_json_line(stdout, o);
  json_decref(o);
  return rc ? CLI_FAILURE : CLI_OK;
}

static int run_partition(const cli_args *a, const char *file, bool json) {
  const char *r = cli_get(CMD, a, "rho");
  double rho;
  if (!r) {
    cli_usage_error(CMD, "--partition needs --rho R");
    return CLI_USAGE;
  }
  if (!cli_parse_double(CMD, "rho", r, 0, STP_TIME_MAX, &rho))
    return CLI_USAGE;
  stp_error err = {0};
  double *w;
  size_t n;
  if (stp_bcast_latency_load_file(file, &w, &n, &err) != STP_OK)
    return cli_report_error(&err);
  stp_bcast_partition p;
  int rc;
  if (stp_bcast_partition_compute(w, n, rho, &p, &err) != STP_OK)
    rc = cli_report_error(&err);
  else
    rc = print_partition(file, rho, &p, json);
  stp_bcast_partition_free(&p);
  free(w);
  return rc;
}

/* ---- a platform file ----------------------------------------------------------------- */

typedef struct platform_run {
  const stp_bcast_platform *p;
  stp_bcast_options opts;
  stp_graph_options gopts;
  bool simulate, json;
  stp_graph_sim_options sim;
  int first, last; /* heuristics to run */
  /* one line per heuristic done, for the closing comparison table (text) */
  struct {
    stp_bcast_heuristic h;
    double makespan, exp_value, mean, lo, hi;
    bool exp_computed;
    const char *position;
  } done[STP_BCAST_HEURISTIC_COUNT];
  int ndone;
} platform_run;

typedef struct outcome {
  stp_bcast_schedule s;
  stp_graph_result r;
  stp_graph_sim_result sim;
  double t0; /* when this heuristic started: the record's seconds */
} outcome;

/* The method is named even without a value: the one that was refused. */
static json_t *exponential_json(const stp_graph_result *r) {
  return report_exponential("makespan", r->exp_value, r->exp_states,
                            r->exp_method ? r->exp_method : "dag-ctmc",
                            r->exp_computed ? NULL : r->exp_reason);
}

/* Where the simulated 95% interval lies against [deterministic, exponential]
 * (stp_interval_position: below, within, above, unknown). */
static const char *sim_position(const outcome *x) {
  return stp_interval_position(x->sim.ci95_lo, x->sim.ci95_hi, x->r.bound_lower,
                               x->r.exp_computed ? x->r.bound_upper : NAN);
}

static const char *position_text(const char *where) {
  return strcmp(where, "unknown") == 0  ? "no exponential bound to place it"
         : strcmp(where, "within") == 0 ? "within the bounds"
         : strcmp(where, "below") == 0  ? "below the bounds"
                                        : "above the bounds";
}

static int print_json(const platform_run *run, const outcome *x) {
  const stp_bcast_platform *p = run->p;
  json_t *o = json_object(), *T = json_array(), *sends = json_array();
  json_object_set_new(o, "file", report_string(stp_bcast_platform_file(p)));
  json_object_set_new(o, "heuristic", json_string(stp_bcast_heuristic_name(x->s.heuristic)));
  json_object_set_new(o, "root", json_string(stp_bcast_cluster_name(p, x->s.root)));
  for (size_t j = 0; j < x->s.nclusters; j++)
    json_array_append_new(T, report_number(x->s.T[j]));
  json_object_set_new(o, "T", T);
  for (size_t k = 0; k + 1 < x->s.nclusters; k++) {
    const stp_bcast_send *e = &x->s.sends[k];
    json_array_append_new(sends, json_pack("{s:s,s:s,s:o,s:o}", "from",
                                           stp_bcast_cluster_name(p, e->from), "to",
                                           stp_bcast_cluster_name(p, e->to), "start",
                                           report_number(e->start), "arrival",
                                           report_number(e->arrival)));
  }
  json_object_set_new(o, "sends", sends);
  json_object_set_new(o, "deterministic",
                      json_pack("{s:o}", "makespan", report_number(x->s.makespan)));
  json_object_set_new(o, "exponential", exponential_json(&x->r));
  if (x->r.law_asked)
    json_object_set_new(o, "exact_law", report_graph_law(&x->r, report_sim_law(&run->sim)));
  json_object_set_new(o, "bounds", report_bounds(x->r.bound_lower, x->r.bound_upper));
  if (run->simulate) {
    json_t *sim = report_simulation(&run->sim, &x->sim, true);
    json_object_set_new(sim, "position", json_string(sim_position(x)));
    json_object_set_new(o, "simulation", sim);
  }
  json_object_set_new(o, "seconds", report_number(report_now() - x->t0));
  int rc = report_json_line(stdout, o);
  json_decref(o);
  return rc ? CLI_FAILURE : CLI_OK;
}

static void print_text(FILE *f, const platform_run *run, const outcome *x) {
  const stp_bcast_platform *p = run->p;
  fprintf(f, "%s: makespan %.10g", stp_bcast_heuristic_name(x->s.heuristic), x->s.makespan);
  if (x->r.exp_computed)
    fprintf(f, ", E[exp] %.10g (%llu states), interval [%.10g, %.10g]\n", x->r.exp_value,
           (unsigned long long)x->r.exp_states, x->r.bound_lower, x->r.bound_upper);
  else
    fprintf(f, ", E[exp] not computed: %s\n", x->r.exp_reason);
  if (x->r.law_asked)
    report_graph_law_text(f, &x->r, report_sim_law(&run->sim), 16);
  if (run->simulate)
    fprintf(f, "  simulation (%s, %llu runs, seed %llu): mean %.10g, 95%% [%.10g, %.10g], %s\n",
           report_sim_law(&run->sim), (unsigned long long)x->sim.runs,
           (unsigned long long)run->sim.seed, x->sim.mean, x->sim.ci95_lo, x->sim.ci95_hi,
           position_text(sim_position(x)));
  for (size_t k = 0; k + 1 < x->s.nclusters; k++) {
    const stp_bcast_send *e = &x->s.sends[k];
    fprintf(f, "  %-12s -> %-12s start %-14.10g arrival %.10g\n", stp_bcast_cluster_name(p, e->from),
           stp_bcast_cluster_name(p, e->to), e->start, e->arrival);
  }
}

/* After several heuristics (text): one line each, the best makespans marked. */
static int print_comparison(const platform_run *run) {
  double best_det = INFINITY, best_exp = INFINITY;
  for (int k = 0; k < run->ndone; k++) {
    best_det = fmin(best_det, run->done[k].makespan);
    if (run->done[k].exp_computed)
      best_exp = fmin(best_exp, run->done[k].exp_value);
  }
  cli_record rec;
  if (!cli_record_open(&rec))
    return CLI_FAILURE;
  fprintf(rec.f, "\n%-14s %14s %16s", "heuristic", "makespan", "E[exp]");
  if (run->simulate)
    fprintf(rec.f, " %16s %33s  %s", "simulated mean", "95% interval", "position");
  fputc('\n', rec.f);
  for (int k = 0; k < run->ndone; k++) {
    char e[32] = "-";
    if (run->done[k].exp_computed)
      snprintf(e, sizeof e, "%.10g%s", run->done[k].exp_value,
               run->done[k].exp_value == best_exp ? "*" : "");
    char d[32];
    snprintf(d, sizeof d, "%.10g%s", run->done[k].makespan,
             run->done[k].makespan == best_det ? "*" : "");
    fprintf(rec.f, "%-14s %14s %16s", stp_bcast_heuristic_name(run->done[k].h), d, e);
    if (run->simulate)
      fprintf(rec.f, " %16.10g   [%14.10g, %14.10g]  %s", run->done[k].mean, run->done[k].lo,
              run->done[k].hi, run->done[k].position);
    fputc('\n', rec.f);
  }
  fputs("(* the smallest of its column)\n", rec.f);
  return cli_record_close(&rec) ? CLI_OK : CLI_FAILURE;
}

static int one_heuristic(platform_run *run, stp_bcast_heuristic h) {
  outcome x = {.t0 = report_now()};
  stp_error err = {0};
  stp_status s = stp_bcast_schedule_compute(run->p, &run->opts, h, &x.s, &err);
  if (s == STP_OK)
    s = stp_bcast_schedule_analyze(run->p, &run->opts, &x.s, &run->gopts, &x.r, &err);
  if (s == STP_OK && run->simulate)
    s = stp_bcast_schedule_simulate(run->p, &run->opts, &x.s, &run->sim, &x.sim, &err);
  int rc = CLI_OK;
  if (s != STP_OK) {
    stp_error_prefix(&err, "%s", stp_bcast_heuristic_name(h));
    rc = cli_report_error(&err);
  } else if (run->json) {
    rc = print_json(run, &x);
  } else {
    if (run->ndone < STP_BCAST_HEURISTIC_COUNT) {
      run->done[run->ndone].h = h;
      run->done[run->ndone].makespan = x.s.makespan;
      run->done[run->ndone].exp_computed = x.r.exp_computed;
      run->done[run->ndone].exp_value = x.r.exp_value;
      run->done[run->ndone].mean = x.sim.mean;
      run->done[run->ndone].lo = x.sim.ci95_lo;
      run->done[run->ndone].hi = x.sim.ci95_hi;
      run->done[run->ndone].position = run->simulate ? sim_position(&x) : "";
      run->ndone++;
    }
    cli_record rec;
    rc = cli_record_open(&rec) ? CLI_OK : CLI_FAILURE;
    if (rc == CLI_OK) {
      print_text(rec.f, run, &x);
      rc = cli_record_close(&rec) ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
    }
  }
  stp_graph_result_free(&x.r);
  stp_bcast_schedule_free(&x.s);
  return rc;
}

/* The Gantt chart of one heuristic's schedule: one row per cluster (its
 * sends, then its inner broadcast) and per link used (the latency). */
static int draw_gantt(const platform_run *run, stp_bcast_heuristic h, gantt_spec *chart) {
  stp_bcast_schedule s = {0};
  stp_graph *g = NULL;
  stp_error err = {0};
  int rc = CLI_OK;
  if (stp_bcast_schedule_compute(run->p, &run->opts, h, &s, &err) != STP_OK ||
      stp_bcast_schedule_graph(run->p, &run->opts, &s, &g, &err) != STP_OK) {
    stp_error_prefix(&err, "%s", stp_bcast_heuristic_name(h));
    rc = cli_report_error(&err);
  } else if (!g) {
    cli_error("%s: every time is zero: nothing to draw", stp_bcast_heuristic_name(h));
    rc = CLI_USAGE;
  } else {
    char title[600];
    snprintf(title, sizeof title, "%s: broadcast by %s from %s", stp_bcast_platform_file(run->p),
             stp_bcast_heuristic_name(h), stp_bcast_cluster_name(run->p, s.root));
    chart->g = g;
    chart->title = title;
    rc = cli_gantt(chart);
  }
  stp_graph_free(g);
  stp_bcast_schedule_free(&s);
  return rc;
}

static bool platform_options(const cli_args *a, const stp_bcast_platform *p, platform_run *run) {
  const char *s;
  stp_bcast_options_init(&run->opts);
  stp_graph_options_init(&run->gopts);
  run->opts.control = run->gopts.control = cli_control();
  run->gopts.exponential = 1;
  run->gopts.max_states = STP_GRAPH_DEFAULT_MAX_STATES;
  if ((s = cli_get(CMD, a, "size"))) {
    if (!cli_parse_double(CMD, "size", s, 1, STP_TIME_MAX, &run->opts.size))
      return false;
    run->opts.has_size = 1;
  } else if (stp_bcast_platform_needs_size(p)) {
    cli_usage_error(CMD, "--size: required, since a gap in %s depends on the message size",
                    stp_bcast_platform_file(p));
    return false;
  }
  if ((s = cli_get(CMD, a, "root"))) {
    stp_error err = {0};
    if (stp_bcast_cluster_find(p, s, &run->opts.root, &err) != STP_OK) {
      cli_usage_error(CMD, "--root: no cluster \"%s\" in %s", s, stp_bcast_platform_file(p));
      return false;
    }
  }
  if ((s = cli_get(CMD, a, "intra")) && stp_bcast_intra_parse(s, &run->opts.intra) != STP_OK) {
    cli_bad_value(CMD, "intra", s, "binomial, flat, chain");
    return false;
  }
  if (!cli_parse_max_states(CMD, a, &run->gopts.max_states))
    return false;
  s = cli_get(CMD, a, "inter");
  run->first = 0;
  run->last = STP_BCAST_HEURISTIC_COUNT - 1;
  if (s && strcmp(s, "all") != 0) {
    stp_bcast_heuristic h;
    if (stp_bcast_heuristic_parse(s, &h) != STP_OK) {
      cli_bad_value(CMD, "inter", s, "flat, fef, ecef, ecef-la, ecef-lat, ecef-lat-max, bottomup, all");
      return false;
    }
    run->first = run->last = (int)h;
  }
  return true;
}

static int run_platform(const cli_args *a, bool json) {
  if (a->npos != 1) {
    cli_usage_error(CMD, a->npos ? "bcast takes one platform file" : "no platform file given "
                                                                    "(or --model, --partition)");
    return CLI_USAGE;
  }
  platform_run run = {.json = json};
  stp_law *law = NULL;
  if (!cli_parse_sim_options(CMD, a, false, true, &run.simulate, &run.sim, &law))
    return CLI_USAGE;
  stp_error err = {0};
  stp_bcast_platform *p;
  if (stp_bcast_platform_load_file(a->pos[0], &p, &err) != STP_OK) {
    stp_law_free(law);
    return cli_report_error(&err);
  }
  run.p = p;
  int rc = platform_options(a, p, &run) ? CLI_OK : CLI_USAGE;
  run.gopts.law = cli_exact_law(law, run.simulate);
  bool gantt = false;
  gantt_spec chart;
  stp_law *chart_law = NULL;
  if (rc == CLI_OK && !cli_parse_gantt(CMD, a, &gantt, &chart, &chart_law))
    rc = CLI_USAGE;
  if (rc == CLI_OK && gantt && (run.first != run.last || json || run.simulate)) {
    cli_usage_error(CMD, "--gantt draws one heuristic (--inter H), without --json or --simulate");
    rc = CLI_USAGE;
  }
  if (rc == CLI_OK && gantt)
    rc = draw_gantt(&run, (stp_bcast_heuristic)run.first, &chart);
  for (int h = run.first; rc == CLI_OK && !gantt && h <= run.last && cli_go_on(); h++)
    rc = one_heuristic(&run, (stp_bcast_heuristic)h);
  if (rc == CLI_OK && !json && !gantt && run.ndone > 1 && cli_go_on())
    rc = print_comparison(&run);
  stp_bcast_platform_free(p);
  stp_law_free(law);
  stp_law_free(chart_law);
  return rc;
}

/* The mode: --model, --partition, or a platform file; options of another
 * mode are usage errors. */
static int dispatch(const cli_args *a) {
  bool json = cli_flag(CMD, a, "json"), model = cli_flag(CMD, a, "model");
  const char *part = cli_get(CMD, a, "partition");
  const char *const rho[] = {"rho", NULL};
  if (model && part) {
    cli_usage_error(CMD, "--model and --partition are two different modes");
    return CLI_USAGE;
  }
  if ((model || part) && a->npos) {
    cli_usage_error(CMD, "--%s takes no platform file", model ? "model" : "partition");
    return CLI_USAGE;
  }
  if (model)
    return refuse(a, platform_only, "with --model") && refuse(a, rho, "with --model")
               ? run_model(a, json)
               : CLI_USAGE;
  if (part)
    return refuse(a, platform_only, "with --partition") &&
                   refuse(a, model_only, "with --partition")
               ? run_partition(a, part, json)
               : CLI_USAGE;
  return refuse(a, model_only, "without --model") && refuse(a, rho, "without --partition")
             ? run_platform(a, json)
             : CLI_USAGE;
}

static int run_bcast(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CMD, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  rc = dispatch(&a);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_bcast_command = {
    .name = "bcast",
    .synopsis = "bcast PLATFORM.json [--inter HEURISTIC|all] [--intra binomial|flat|chain] [--size BYTES] [--root NAME] "
                "| --model --P P --L L --g G | --partition CSV --rho R",
    .summary = "Broadcast on a grid of clusters (Steffenel 2006): each inter-cluster heuristic's\n"
               "send order and makespan, the exact expected makespan with exponential times\n"
               "and the N.B.U.E. interval; Table 1's intra-cluster models; Lowekamp's clusters.",
    .details =
        "A platform file lists clusters (size, L, g) and the inter-cluster L and g matrices;\n"
        "a gap is a number or {\"g0\": a, \"per_byte\": b} (then --size is required).  The\n"
        "makespan is max_j (RT_j + T_j): each coordinator broadcasts inside after its last\n"
        "send.  --model prints Table 1 as printed and the (max,+) value of each tree (the\n"
        "binomial row swaps floor and ceiling: see docs/design.md).  --partition reads N\n"
        "rows of N latencies (CSV, symmetric) and groups machines with Lowekamp's algorithm.\n"
        "docs/format.md, \"bcast\", lists the keys of --json.",
    .options = bcast_options,
    .run = run_bcast,
};
