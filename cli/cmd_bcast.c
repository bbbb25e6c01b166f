/* cmd_bcast.c: `streamtp bcast`: broadcast on a grid of clusters (Steffenel
 * 2006) in three modes: a platform file (each heuristic's send order, its
 * makespan, the exact exponential makespan of its DAG, the N.B.U.E.
 * interval, Monte Carlo), --model (Table 1's formulas against the (max,+)
 * value of each tree) and --partition (Lowekamp's clusters of a latency
 * matrix).  Each mode is one library call (stp_bcast_run,
 * stp_bcast_model_run, stp_bcast_partition_run) and its records are the
 * library's; docs/format.md, "bcast", is the contract. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gantt.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_bcast.h"

#include <stdio.h>
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
    {"json", 0, NULL, "one JSON object per line (--format jsonl)"},
    {"format", 0, "text|jsonl|csv|table", "text (default), jsonl, csv or table (csv and table: "
                                          "a platform's heuristics)"},
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
                                            "simulate", "law",  "seed",  "gantt", NULL};
static const char *const model_only[] = {"P", "L", "g", "k", "gs", "g1", NULL};
/* A platform's heuristics as text, JSON lines, CSV or a table; one
 * record (Table 1, a partition) as text or JSON. */
static const char *const platform_formats[] = {"text", "jsonl", "csv", "table", NULL};
static const char *const one_formats[] = {"text", "jsonl", NULL};

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

static stp_status put_model(const void *res, size_t k, stp_record **rec, stp_error *err) {
  (void)k;
  return stp_bcast_model_json(res, rec, err);
}

static int run_model(const cli_args *a, int fmt) {
  stp_bcast_model_options o = {.control = cli_control()};
  if (!model_params(a, &o.params))
    return CLI_USAGE;
  stp_error err = {0};
  stp_bcast_model_result *r = NULL;
  stp_status st = stp_bcast_model_run(&o, &r, &err);
  int rc = cli_out_results("bcast-model", fmt, NULL, r ? 1 : 0, put_model, r, st, &err);
  stp_bcast_model_result_free(r);
  return rc;
}

/* ---- --partition ------------------------------------------------------------------ */

static stp_status put_partition(const void *res, size_t k, stp_record **rec, stp_error *err) {
  (void)k;
  return stp_bcast_partition_json(res, rec, err);
}

static int run_partition(const cli_args *a, const char *file, int fmt) {
  const char *r = cli_get(CMD, a, "rho");
  stp_bcast_partition_options o = {.file = file, .control = cli_control()};
  if (!r) {
    cli_usage_error(CMD, "--partition needs --rho R");
    return CLI_USAGE;
  }
  if (!cli_parse_double(CMD, "rho", r, 0, STP_TIME_MAX, &o.rho))
    return CLI_USAGE;
  stp_error err = {0};
  stp_bcast_partition_result *res = NULL;
  stp_status st = stp_bcast_partition_run(&o, &res, &err);
  int rc = cli_out_results("bcast-partition", fmt, NULL, res ? 1 : 0, put_partition, res, st, &err);
  stp_bcast_partition_result_free(res);
  return rc;
}

/* ---- a platform file ----------------------------------------------------------------- */

/* Each heuristic's record as soon as it is done. */
static int put_heuristic(const stp_bcast_result *r, size_t k, void *data) {
  stp_error err = {0};
  stp_record *rec = NULL;
  stp_bcast_json(r, k, &rec, &err);
  return cli_stream_put(data, rec);
}

/* The Gantt chart of one heuristic's schedule: one row per cluster (its
 * sends, then its inner broadcast) and per link used (the latency). */
static int draw_gantt(const stp_bcast_platform *p, const stp_bcast_run_options *o,
                      gantt_spec *chart) {
  stp_bcast_schedule s = {0};
  stp_bcast_options so = {.size = o->size, .has_size = o->has_size, .root = o->root,
                          .intra = o->intra, .control = o->control};
  stp_bcast_heuristic h = (stp_bcast_heuristic)o->inter;
  stp_graph *g = NULL;
  stp_error err = {0};
  int rc = CLI_OK;
  if (stp_bcast_schedule_compute(p, &so, h, &s, &err) != STP_OK ||
      stp_bcast_schedule_graph(p, &so, &s, &g, &err) != STP_OK) {
    stp_error_prefix(&err, "%s", stp_bcast_heuristic_name(h));
    rc = cli_report_error(&err);
  } else if (!g) {
    cli_error("%s: every time is zero: nothing to draw", stp_bcast_heuristic_name(h));
    rc = CLI_USAGE;
  } else {
    char title[600];
    snprintf(title, sizeof title, "%s: broadcast by %s from %s", stp_bcast_platform_file(p),
             stp_bcast_heuristic_name(h), stp_bcast_cluster_name(p, s.root));
    chart->g = g;
    chart->title = title;
    rc = cli_gantt(chart);
  }
  stp_graph_free(g);
  stp_bcast_schedule_free(&s);
  return rc;
}

/* The options of a platform run, checked against the platform. */
static bool platform_options(const cli_args *a, const stp_bcast_platform *p,
                             stp_bcast_run_options *o, cli_limits *limits) {
  const char *s;
  if ((s = cli_get(CMD, a, "size"))) {
    if (!cli_parse_double(CMD, "size", s, 1, STP_TIME_MAX, &o->size))
      return false;
    o->has_size = 1;
  } else if (stp_bcast_platform_needs_size(p)) {
    cli_usage_error(CMD, "--size: required, since a gap in %s depends on the message size",
                    stp_bcast_platform_file(p));
    return false;
  }
  if ((s = cli_get(CMD, a, "root"))) {
    stp_error err = {0};
    if (stp_bcast_cluster_find(p, s, &o->root, &err) != STP_OK) {
      cli_usage_error(CMD, "--root: no cluster \"%s\" in %s", s, stp_bcast_platform_file(p));
      return false;
    }
  }
  if ((s = cli_get(CMD, a, "intra")) && stp_bcast_intra_parse(s, &o->intra) != STP_OK) {
    cli_bad_value(CMD, "intra", s, "binomial, flat, chain");
    return false;
  }
  o->max_states = STP_GRAPH_DEFAULT_MAX_STATES;
  if (!cli_parse_max_states(CMD, a, &o->max_states, limits))
    return false;
  s = cli_get(CMD, a, "inter");
  stp_bcast_heuristic h;
  if (s && strcmp(s, "all") != 0) {
    if (stp_bcast_heuristic_parse(s, &h) != STP_OK) {
      cli_bad_value(CMD, "inter", s, "flat, fef, ecef, ecef-la, ecef-lat, ecef-lat-max, bottomup, all");
      return false;
    }
    o->inter = (int)h;
  }
  return true;
}

static int run_platform(const cli_args *a, int fmt) {
  if (a->npos != 1) {
    cli_usage_error(CMD, a->npos ? "bcast takes one platform file" : "no platform file given "
                                                                    "(or --model, --partition)");
    return CLI_USAGE;
  }
  stp_bcast_run_options o;
  stp_bcast_run_options_init(&o);
  stp_graph_sim_options sim;
  stp_law *law = NULL, *chart_law = NULL;
  bool simulate;
  cli_limits limits = {0};
  if (!cli_parse_sim_options(CMD, a, false, true, &simulate, &sim, &law, &limits))
    return CLI_USAGE;
  o.law = law;
  o.simulate = simulate ? sim.runs : 0;
  o.seed = sim.seed;
  o.control = cli_control();
  stp_error err = {0};
  stp_bcast_platform *p;
  if (stp_bcast_platform_load_file(a->pos[0], &p, &err) != STP_OK) {
    stp_law_free(law);
    return cli_report_error(&err);
  }
  int rc = platform_options(a, p, &o, &limits) ? CLI_OK : CLI_USAGE;
  bool gantt = false;
  gantt_spec chart;
  if (rc == CLI_OK && !cli_parse_gantt(CMD, a, &gantt, &chart, &chart_law))
    rc = CLI_USAGE;
  if (rc == CLI_OK && gantt &&
      (o.inter == STP_BCAST_INTER_ALL || fmt != CLI_FORMAT_TEXT || simulate)) {
    cli_usage_error(CMD, "--gantt draws one heuristic (--inter H), without --json or --simulate");
    rc = CLI_USAGE;
  }
  if (rc == CLI_OK && gantt) {
    rc = draw_gantt(p, &o, &chart);
  } else if (rc == CLI_OK) {
    cli_stream w;
    stp_bcast_result *res = NULL;
    o.each = put_heuristic;
    o.each_data = &w;
    if (!cli_stream_open(&w, "bcast", fmt, &limits)) {
      rc = CLI_FAILURE;
    } else {
      stp_status st = stp_bcast_run(p, &o, &res, &err);
      rc = cli_stream_close(&w, st, &err);
    }
    stp_bcast_result_free(res);
  }
  stp_bcast_platform_free(p);
  stp_law_free(law);
  stp_law_free(chart_law);
  return rc;
}

/* The mode: --model, --partition, or a platform file; options of another
 * mode are usage errors. */
static int dispatch(const cli_args *a) {
  bool model = cli_flag(CMD, a, "model");
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
  int fmt;
  if (!cli_parse_format(CMD, a, model || part ? one_formats : platform_formats, CLI_FORMAT_TEXT,
                        &fmt))
    return CLI_USAGE;
  if (model)
    return refuse(a, platform_only, "with --model") && refuse(a, rho, "with --model")
               ? run_model(a, fmt)
               : CLI_USAGE;
  if (part)
    return refuse(a, platform_only, "with --partition") &&
                   refuse(a, model_only, "with --partition")
               ? run_partition(a, part, fmt)
               : CLI_USAGE;
  return refuse(a, model_only, "without --model") && refuse(a, rho, "without --partition")
             ? run_platform(a, fmt)
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
