/* cmd_sweep.c: `streamtp sweep FILE... --vary SPEC [--vary SPEC]`: what-if
 * sweeps of one or two parameters (or a law's parameter): the evaluation at
 * every point of the grid as a record (kind "sweep"), and the picture of a
 * one-file sweep (--plot), both from the library (streamtp_explain.h,
 * streamtp_plot.h). */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_explain_report.h"
#include "streamtp_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_option sweep_options[] = {
    {"vary", 0, "SPEC", "KIND:NAME=FROM..TO[:N][:log] (speed:P1=1..10, bandwidth:default=1..8:4:log,\n"
                        "                               work:T2=..., output:T1=..., bandwidth:P2->P3=...) or\n"
                        "                               law=FAMILY:PARAM=FROM..TO (law=erlang:k=1..8); once or twice"},
    {"model", 0, "overlap|strict|both", "overlap, strict or both (default: the file's \"model\", else overlap)"},
    {"law", 0, "SPEC", "also the exact throughput under this phase-type law at every point"},
    {"simulate", 0, NULL, "also a Monte Carlo run at every point (95% interval)"},
    {"datasets", 'n', "N", "data sets of each simulation (default 100000)"},
    {"seed", 0, "S", "seed of the simulations (default 1; the same at every point)"},
    {"format", 0, "text|jsonl|csv", "text (default), jsonl (one record per point) or csv"},
    {"json", 0, NULL, "the same as --format jsonl"},
    {"plot", 0, "OUT.svg", "one file under one model: the curves, the N.B.U.E. band and the\n"
                           "                               points where the critical resource changes"},
    {"output", 'o', "FILE", "write to FILE instead of standard output"},
    {"exp-method", 0, "auto|closed-form|ctmc|none", "auto (default), closed-form, ctmc, or none"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    {0}};

static const char *const sweep_formats[] = {"text", "jsonl", "csv", NULL};

#define CLI_MAX_VARY 2

/* --vary may come twice, which cli_parse's one value per option cannot
 * hold: the varies are taken out of argv first. */
/* The library names the spec "vary SPEC: ..."; here it is the option. */
static int cli_report_vary_error(stp_error *err) {
  size_t n = strlen(err->message);
  if (strncmp(err->message, "vary ", 5) == 0 && n + 2 < sizeof err->message) {
    memmove(err->message + 2, err->message, n + 1);
    memcpy(err->message, "--", 2);
  }
  return cli_report_error(err);
}

static int take_varies(int argc, char **argv, char **rest, const char **vary, int *nvary) {
  int n = 0;
  *nvary = 0;
  for (int k = 0; k < argc; k++) {
    const char *s = argv[k];
    if (strcmp(s, "--") == 0) { /* the rest are files */
      while (k < argc)
        rest[n++] = argv[k++];
      break;
    }
    if (strncmp(s, "--vary=", 7) == 0 || (strcmp(s, "--vary") == 0 && k + 1 < argc)) {
      if (*nvary == CLI_MAX_VARY) {
        cli_usage_error(&cli_sweep_command, "--vary comes at most twice");
        return -1;
      }
      vary[(*nvary)++] = s[6] == '=' ? s + 7 : argv[++k];
      continue;
    }
    rest[n++] = argv[k];
  }
  return n;
}

typedef struct sweep_run {
  stp_vary *vary[CLI_MAX_VARY];
  int nvary;
  stp_options o;
  stp_sim_options sim;
  bool simulate;
  const char *plot;
  cli_limits limits; /* the records' "limits" (options.h) */
} sweep_run;

static size_t grid_size(const sweep_run *s) {
  size_t n = 1;
  for (int j = 0; j < s->nvary; j++)
    n *= s->vary[j]->n;
  return n;
}

static int write_plot(const sweep_run *s, const stp_sweep_point *pts, size_t n,
                      const stp_mapping *m, stp_model model) {
  char *svg = NULL, title[512];
  stp_error err = {0};
  snprintf(title, sizeof title, "%s, %s model", stp_mapping_name(m), stp_model_name(model));
  if (stp_sweep_plot_svg((const stp_vary *const *)s->vary, (size_t)s->nvary, pts, n, title, &svg,
                         NULL, &err) != STP_OK)
    return cli_report_error(&err);
  FILE *f = fopen(s->plot, "w");
  bool ok = f && fputs(svg, f) >= 0;
  ok = f && fclose(f) == 0 && ok;
  stp_free(svg);
  if (!ok) {
    cli_error("cannot write %s", s->plot);
    return CLI_FAILURE;
  }
  return CLI_OK;
}

/* Every point of the grid (the first vary fastest) of m under model. */
static int sweep_one(cli_out *out, const sweep_run *s, const stp_mapping *m, stp_model model) {
  size_t n = grid_size(s), idx[CLI_MAX_VARY] = {0};
  stp_sweep_point *pts = s->plot ? calloc(n, sizeof *pts) : NULL;
  if (s->plot && !pts) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  int status = CLI_OK;
  size_t done = 0;
  for (size_t k = 0; k < n && cli_go_on() && status == CLI_OK; k++) {
    idx[0] = k % s->vary[0]->n;
    if (s->nvary > 1)
      idx[1] = k / s->vary[0]->n;
    stp_sweep_point p;
    stp_error err = {0};
    if (stp_sweep_point_eval(m, model, (const stp_vary *const *)s->vary, (size_t)s->nvary, idx,
                             &s->o, s->simulate ? &s->sim : NULL, &p, &err) != STP_OK) {
      status = cli_report_vary_error(&err);
      break;
    }
    stp_record *rec = NULL;
    stp_sweep_point_json(m, (const stp_vary *const *)s->vary, (size_t)s->nvary, &p, &rec, &err);
    if (cli_out_put(out, rec) != 0)
      status = CLI_FAILURE;
    if (pts)
      pts[done++] = p;
    else
      stp_sweep_point_clear(&p);
  }
  if (pts && status == CLI_OK && done == n)
    status = write_plot(s, pts, n, m, model);
  for (size_t k = 0; pts && k < done; k++)
    stp_sweep_point_clear(&pts[k]);
  free(pts);
  return status;
}

static bool parse_run(const cli_command *cmd, const cli_args *a, const char **vary, int nvary,
                      sweep_run *s, int *models, stp_law **law) {
  stp_error err = {0};
  if (nvary == 0) {
    cli_usage_error(cmd, "--vary SPEC is required (speed:P1=1..10, law=erlang:k=1..8, ...)");
    return false;
  }
  for (int j = 0; j < nvary; j++) {
    if (stp_vary_parse(vary[j], &s->vary[j], &err) != STP_OK) {
      cli_usage_error(cmd, "--%s", err.message); /* the library's "vary SPEC: ..." */
      return false;
    }
    s->nvary++;
  }
  if (nvary == 2 && s->vary[0]->is_law && s->vary[1]->is_law) {
    cli_usage_error(cmd, "one law range at most");
    return false;
  }
  if (!cli_parse_eval_options(cmd, a, &s->o, models, true, &s->limits) ||
      !cli_parse_law(cmd, a, law))
    return false;
  s->o.law = *law;
  s->simulate = cli_flag(cmd, a, "simulate");
  stp_sim_options_init(&s->sim);
  s->sim.datasets = 100000;
  s->sim.control = cli_control();
  s->sim.bounds = 0;
  s->sim.law = *law;
  const char *v;
  if ((v = cli_get(cmd, a, "datasets")) &&
      !cli_parse_u64(cmd, "datasets", v, 40, UINT64_C(1) << 50, &s->sim.datasets))
    return false;
  if ((v = cli_get(cmd, a, "seed")) && !cli_parse_u64(cmd, "seed", v, 0, UINT64_MAX, &s->sim.seed))
    return false;
  if ((cli_get(cmd, a, "datasets") || cli_get(cmd, a, "seed")) && !s->simulate) {
    cli_usage_error(cmd, "--datasets and --seed need --simulate");
    return false;
  }
  s->plot = cli_get(cmd, a, "plot");
  if (s->plot && (a->npos != 1 || *models == CLI_MODEL_BOTH)) {
    cli_usage_error(cmd, "--plot draws one file under one model");
    return false;
  }
  return true;
}

static void run_free(sweep_run *s) {
  for (int j = 0; j < s->nvary; j++)
    stp_vary_free(s->vary[j]);
}

/* CSV: a column per varied quantity after the file and the model. */
static bool csv_columns(cli_out *out, const sweep_run *s) {
  const char *cols[16];
  char names[CLI_MAX_VARY][600];
  int n = 0;
  cols[n++] = "file";
  cols[n++] = "model";
  for (int j = 0; j < s->nvary; j++) {
    snprintf(names[j], sizeof names[j], "vary.%s", s->vary[j]->label);
    cols[n++] = names[j];
  }
  static const char *const rest[] = {"deterministic.throughput", "exponential.throughput",
                                     "exact_law.throughput", "bounds.lower", "bounds.upper",
                                     "simulation.throughput", "critical", NULL};
  for (int k = 0; rest[k]; k++)
    cols[n++] = rest[k];
  cols[n] = NULL;
  stp_error err = {0};
  if (stp_sink_columns(out->sink, cols, NULL, &err) != STP_OK) {
    cli_report_error(&err);
    return false;
  }
  return true;
}

static int worst(int a, int b) { return a > b ? a : b; }

static int run_sweep(int argc, char **argv) {
  const cli_command *cmd = &cli_sweep_command;
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  const char *vary[CLI_MAX_VARY];
  int nvary = 0;
  if (!rest)
    return CLI_FAILURE;
  int n = take_varies(argc, argv, rest, vary, &nvary);
  if (n < 0) {
    free(rest);
    return CLI_USAGE;
  }
  cli_args a;
  int rc = cli_parse(cmd, n, rest, &a);
  if (rc != CLI_OK) {
    free(rest);
    return rc == CLI_HELP ? CLI_OK : rc;
  }
  sweep_run s = {0};
  int models, fmt;
  stp_law *law = NULL;
  if (!cli_parse_format(cmd, &a, sweep_formats, CLI_FORMAT_TEXT, &fmt) ||
      !parse_run(cmd, &a, vary, nvary, &s, &models, &law) || a.npos == 0) {
    if (a.npos == 0 && nvary)
      cli_usage_error(cmd, "no mapping file given");
    run_free(&s);
    stp_law_free(law);
    cli_args_free(&a);
    free(rest);
    return CLI_USAGE;
  }
  cli_out out = {0};
  int status = CLI_OK;
  bool opened = cli_out_open(&out, "sweep", fmt, &s.limits);
  if (!opened || (out.csv && !csv_columns(&out, &s)))
    status = CLI_FAILURE;
  for (int k = 0; status != CLI_FAILURE && k < a.npos && cli_go_on(); k++) {
    stp_error err = {0};
    stp_mapping *m;
    if (stp_mapping_load_file(a.pos[k], &m, &err) != STP_OK) {
      status = worst(status, cli_report_error(&err));
      continue;
    }
    stp_model list[2];
    int nm = 0;
    if (models == CLI_MODEL_FILE)
      list[nm++] = stp_mapping_model(m);
    if (models == CLI_MODEL_OVERLAP || models == CLI_MODEL_BOTH)
      list[nm++] = STP_MODEL_OVERLAP;
    if (models == CLI_MODEL_STRICT || models == CLI_MODEL_BOTH)
      list[nm++] = STP_MODEL_STRICT;
    for (int q = 0; q < nm && cli_go_on(); q++)
      status = worst(status, sweep_one(&out, &s, m, list[q]));
    stp_mapping_free(m);
  }
  if (opened && cli_out_close(&out) != 0)
    status = worst(status, CLI_FAILURE);
  run_free(&s);
  stp_law_free(law);
  cli_args_free(&a);
  free(rest);
  return status;
}

const cli_command cli_sweep_command = {
    .name = "sweep",
    .synopsis = "sweep FILE... --vary KIND:NAME=FROM..TO[:N][:log] [--vary ...] [--model M] "
                "[--law SPEC] [--simulate] [--format text|jsonl|csv] [--plot OUT.svg] [-o OUT]",
    .summary = "What-if sweeps: throughputs (det, exp, law, bounds, simulation) and the\n"
               "critical resource over a range of one or two parameters.",
    .details = "Every point of the grid (the first --vary fastest) is evaluated as eval would\n"
               "evaluate the file with that value, and written as one record (docs/format.md,\n"
               "\"sweep\"): the varied values under \"vary\", the deterministic, exponential,\n"
               "exact_law and bounds objects, the critical resources under det. A law range\n"
               "(law=erlang:k=1..8) sets the law of every point. Several files: each in turn.\n"
               "Exit status: 0 success, 1 internal failure (or output not written), 2 bad input\n"
               "or usage, 130 interrupted (Ctrl-C).",
    .options = sweep_options,
    .run = run_sweep,
};
