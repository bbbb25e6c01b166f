/* cmd_eval.c: `streamtp eval FILE...`: throughputs, bounds and critical
 * resources of each mapping file, for its model or the one(s) asked for. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_explain_report.h"
#include "streamtp_plot.h"

#include <stdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const cli_option eval_options[] = {
    {"model", 0, "overlap|strict|both", "overlap, strict or both (default: the file's \"model\", else overlap)"},
    {"json", 0, NULL, "one JSON object per file and model, one per line (--format jsonl)"},
    {"format", 0, "text|jsonl|csv|table", "text (default), jsonl, csv (the columns of batch) or table"},
    {"output", 'o', "FILE", "write to FILE instead of standard output"},
    {"exp-method", 0, "auto|closed-form|ctmc|none", "auto (default), closed-form, ctmc, or none"},
    {"law", 0, "SPEC", "also the exact throughput under this phase-type law (erlang:k=4,\n"
                       "                               hyperexp:cv=2, coxian:..., ph:..., ph:fit=FILE; docs/format.md)"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    CLI_DISTRIBUTED_OPTION,
    {"sensitivity", 0, NULL, "the elasticity of the throughput with respect to every speed, bandwidth,\n"
                             "                               work and output (det both sides, exp, the law), ranked"},
    {"rank-by", 0, "det|exp|law", "the objective that ranks the sensitivities (default exp where computed)"},
    {"top", 0, "K", "show the K largest sensitivities only"},
    {"utilization", 0, NULL, "the busy fraction of every processor and port (det, exp, the law)"},
    {"latency", 0, NULL, "the latency of one data set alone along each of the lcm paths: max, mean"},
    {"plot", 0, "OUT.svg", "with --sensitivity and one file: the sensitivities as a bar chart"},
    {0}};

/* What eval adds to each record: --sensitivity, --utilization, --latency,
 * --plot. */
typedef struct explain_opts {
  bool sensitivity, utilization, latency;
  stp_rank_by rank_by;
  bool rank_given;
  uint64_t top;
  const char *plot;
} explain_opts;

static const char *const eval_formats[] = {"text", "jsonl", "csv", "table", NULL};

/* One record: a result, or (r NULL) the error of an input that failed, as
 * batch writes it, so that JSON lines and CSV keep one record per input
 * and model, the same as batch's (in text, the message went to standard
 * error); seconds: the time the failure took. */
static int put_record(cli_out *out, const char *file, const stp_mapping *m, const stp_result *r,
                      stp_model model, bool model_known, const stp_error *failure,
                      double seconds, const stp_explain_members *x) {
  stp_error err = {0};
  stp_record *rec = NULL;
  if (out->csv || !r) {
    stp_batch_row row = {.path = file, .mapping = m, .model_known = model_known,
                         .model = model, .result = r, .status = r ? STP_OK : failure->status,
                         .message = r ? NULL : failure->message,
                         .seconds = r ? r->seconds : seconds, .limit = failure->limit};
    stp_batch_row_json(&row, &rec, &err);
  } else {
    if (stp_result_json(m, r, &rec, &err) == STP_OK && x &&
        stp_record_add_explain(rec, x, &err) != STP_OK) {
      stp_record_free(rec);
      rec = NULL;
    }
  }
  return cli_out_put(out, rec);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int write_plot(const char *path, const stp_sensitivity_result *s, stp_rank_by by,
                      size_t top, const stp_mapping *m) {
  char *svg = NULL, title[512];
  stp_error err = {0};
  snprintf(title, sizeof title, "%s: elasticities of the throughput (%s)", stp_mapping_name(m),
           by == STP_RANK_LAW ? "law" : by == STP_RANK_EXP ? "exp" : "det");
  if (stp_sensitivity_plot_svg(s, by, top, title, &svg, NULL, &err) != STP_OK)
    return cli_report_error(&err);
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(svg, f) >= 0;
  ok = f && fclose(f) == 0 && ok;
  stp_free(svg);
  if (!ok) {
    cli_error("cannot write %s", path);
    return CLI_FAILURE;
  }
  return CLI_OK;
}

/* The explain members asked for. */
static int explain(const stp_mapping *m, stp_model model, const stp_options *o,
                   const stp_result *r, const explain_opts *x, stp_explain_members *out) {
  stp_error err = {0};
  if (x->sensitivity) {
    stp_sensitivity_result *s = NULL;
    if (stp_sensitivity_compute(m, model, o, &s, &err) != STP_OK)
      return cli_report_error(&err);
    stp_sensitivity_rank(s, x->rank_given ? x->rank_by : STP_RANK_EXP);
    out->sensitivity = s;
    out->top = (size_t)x->top;
    if (x->plot) {
      int rc = write_plot(x->plot, s, s->ranked_by, (size_t)x->top, m);
      if (rc != CLI_OK)
        return rc;
    }
  }
  if (x->utilization) {
    stp_utilization *u = NULL;
    if (stp_utilization_compute(m, r, &u, &err) != STP_OK)
      return cli_report_error(&err);
    out->utilization = u;
  }
  if (x->latency) {
    stp_latency_result *l = NULL;
    if (stp_latency_compute(m, 1000, &l, &err) != STP_OK)
      return cli_report_error(&err);
    out->latency = l;
  }
  return CLI_OK;
}

static void explain_free(stp_explain_members *x) {
  stp_critical_cycle_free((stp_critical_cycle *)x->critical_cycle);
  stp_sensitivity_result_free((stp_sensitivity_result *)x->sensitivity);
  stp_utilization_free((stp_utilization *)x->utilization);
  stp_latency_result_free((stp_latency_result *)x->latency);
}

/* Evaluate one loaded mapping under one model and print it. */
static int eval_one(cli_out *out, const stp_mapping *m, stp_model model, const stp_options *o,
                    const explain_opts *x) {
  stp_error err = {0};
  stp_result *r = NULL;
  stp_explain_members members = {0};
  int status = CLI_OK;
  double t0 = now();
  if (stp_evaluate(m, model, o, &r, &err) != STP_OK)
    status = cli_report_mapping_error(&err, model);
  if (r && !out->csv && (status = explain(m, model, o, r, x, &members)) != CLI_OK) {
    stp_result_free(r);
    r = NULL;
  }
  if (put_record(out, stp_mapping_file(m), m, r, model, true, &err, now() - t0,
                 r ? &members : NULL) != 0)
    status = CLI_FAILURE; /* a failed write: cli_finish says why */
  explain_free(&members);
  stp_result_free(r);
  return status;
}

static bool parse_explain(const cli_command *cmd, const cli_args *a, int fmt, int nfiles,
                          int models, explain_opts *x) {
  *x = (explain_opts){.sensitivity = cli_flag(cmd, a, "sensitivity"),
                      .utilization = cli_flag(cmd, a, "utilization"),
                      .latency = cli_flag(cmd, a, "latency"),
                      .plot = cli_get(cmd, a, "plot")};
  const char *rank = cli_get(cmd, a, "rank-by"), *top = cli_get(cmd, a, "top");
  if (rank) {
    x->rank_given = true;
    if (!strcmp(rank, "det"))
      x->rank_by = STP_RANK_DET;
    else if (!strcmp(rank, "exp"))
      x->rank_by = STP_RANK_EXP;
    else if (!strcmp(rank, "law"))
      x->rank_by = STP_RANK_LAW;
    else {
      cli_bad_value(cmd, "rank-by", rank, "det exp law");
      return false;
    }
  }
  if (top && !cli_parse_u64(cmd, "top", top, 1, UINT64_MAX, &x->top))
    return false;
  if ((rank || top || x->plot) && !x->sensitivity) {
    cli_usage_error(cmd, "--%s needs --sensitivity", rank ? "rank-by" : top ? "top" : "plot");
    return false;
  }
  if (x->plot && (nfiles != 1 || models == CLI_MODEL_BOTH)) {
    cli_usage_error(cmd, "--plot draws one file under one model");
    return false;
  }
  if ((x->sensitivity || x->utilization || x->latency) && fmt == CLI_FORMAT_CSV) {
    cli_usage_error(cmd, "--sensitivity, --utilization and --latency are not CSV columns; "
                         "use --format jsonl or text");
    return false;
  }
  return true;
}

static int worst(int a, int b) { return a > b ? a : b; }

/* Stop at the first failed write (a full disk, a closed pipe) or Ctrl-C. */
static bool go_on(void) { return cli_output_ok() && !cli_interrupted(); }

static int run_eval(int argc, char **argv) {
  const cli_command *cmd = &cli_eval_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_options o;
  int models, fmt;
  stp_law *law = NULL;
  cli_limits limits = {0};
  if (!cli_parse_eval_options(cmd, &a, &o, &models, true, &limits) ||
      !cli_parse_format(cmd, &a, eval_formats, CLI_FORMAT_TEXT, &fmt) ||
      (cli_flag(cmd, &a, "distributed") && !cli_check_distributed(cmd)) ||
      !cli_parse_law(cmd, &a, &law)) {
    cli_args_free(&a);
    return CLI_USAGE;
  }
  o.law = law;
  o.distributed = cli_flag(cmd, &a, "distributed");
  explain_opts x;
  if (a.npos == 0 || !parse_explain(cmd, &a, fmt, a.npos, models, &x)) {
    if (a.npos == 0)
      cli_usage_error(cmd, "no mapping file given");
    stp_law_free(law);
    cli_args_free(&a);
    return CLI_USAGE;
  }
  cli_out out;
  if (!cli_out_open(&out, "eval", fmt, &limits)) {
    stp_law_free(law);
    cli_args_free(&a);
    return CLI_FAILURE;
  }
  int status = CLI_OK;
  for (int k = 0; k < a.npos && go_on(); k++) {
    stp_error err = {0};
    stp_mapping *m;
    double t0 = now();
    if (stp_mapping_load_file(a.pos[k], &m, &err) != STP_OK) {
      struct stat st;
      if (stat(a.pos[k], &st) == 0 && S_ISDIR(st.st_mode)) /* the advice */
        snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
                 " (streamtp batch DIR evaluates every *.json file below it)");
      status = worst(status, cli_report_error(&err));
      const char *file = strcmp(a.pos[k], "-") ? a.pos[k] : "<stdin>";
      double dt = now() - t0;
      /* as batch: one row per model asked (the file's own cannot be known) */
      bool ok = models == CLI_MODEL_FILE
                    ? put_record(&out, file, NULL, NULL, STP_MODEL_OVERLAP, false, &err, dt, NULL) == 0
                    : true;
      if (models == CLI_MODEL_OVERLAP || models == CLI_MODEL_BOTH)
        ok = put_record(&out, file, NULL, NULL, STP_MODEL_OVERLAP, true, &err, dt, NULL) == 0 && ok;
      if (models == CLI_MODEL_STRICT || models == CLI_MODEL_BOTH)
        ok = put_record(&out, file, NULL, NULL, STP_MODEL_STRICT, true, &err, dt, NULL) == 0 && ok;
      if (!ok)
        status = worst(status, CLI_FAILURE);
      continue;
    }
    stp_model list[2];
    int n = 0;
    if (models == CLI_MODEL_FILE)
      list[n++] = stp_mapping_model(m);
    if (models == CLI_MODEL_OVERLAP || models == CLI_MODEL_BOTH)
      list[n++] = STP_MODEL_OVERLAP;
    if (models == CLI_MODEL_STRICT || models == CLI_MODEL_BOTH)
      list[n++] = STP_MODEL_STRICT;
    for (int q = 0; q < n && go_on(); q++)
      status = worst(status, eval_one(&out, m, list[q], &o, &x));
    stp_mapping_free(m);
  }
  if (cli_out_close(&out) != 0)
    status = worst(status, CLI_FAILURE);
  stp_law_free(law);
  cli_args_free(&a);
  return status;
}

const cli_command cli_eval_command = {
    .name = "eval",
    .synopsis = "eval FILE... [--model overlap|strict|both] [--law SPEC] [--json] [--format F] "
                "[-o FILE] [--sensitivity] [--utilization] [--latency]",
    .summary = "Evaluate mappings: deterministic and exponential throughput, N.B.U.E. bounds,\n"
               "max resource cycle-time and critical resource.",
    .details = "Deterministic times are the means of the mapping (work/speed, output/bandwidth).\n"
               "Overlap is solved per component without building the full event graph; Strict\n"
               "needs the full graph (refused above --max-transitions) and, for exponential\n"
               "times, its Markov chain (reported as unavailable above --max-states).\n"
               "With --law SPEC (or a file with \"laws\"), a third value: the exact throughput\n"
               "under that phase-type law, from the chain of the markings and phases.\n"
               "--sensitivity: exact elasticities (det from the critical cycles, both one-sided\n"
               "values where they tie; exp and the law from one adjoint solve per chain);\n"
               "--utilization: busy fractions; --latency: one data set alone, per lcm path.\n"
               "Under Strict without a critical resource: the resources on the critical cycles.\n"
               "FILE '-' reads standard input.\n"
               "Exit status: 0 success, 1 internal failure (or output not written), 2 bad input\n"
               "or usage, 130 interrupted (Ctrl-C).",
    .options = eval_options,
    .run = run_eval,
};
