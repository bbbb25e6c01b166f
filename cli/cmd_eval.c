/* cmd_eval.c: `streamtp eval FILE...`: throughputs, bounds and critical
 * resources of each mapping file, for its model or the one(s) asked for. */
#include "cli/cli.h"
#include "cli/output.h"

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
    {0}};

static const char *const eval_formats[] = {"text", "jsonl", "csv", "table", NULL};

/* One record: a result, or (r NULL) the error of an input that failed, as
 * batch writes it, so that JSON lines and CSV keep one record per input
 * and model, the same as batch's (in text, the message went to standard
 * error); seconds: the time the failure took. */
static int put_record(cli_out *out, const char *file, const stp_mapping *m, const stp_result *r,
                      stp_model model, bool model_known, const stp_error *failure,
                      double seconds) {
  stp_error err = {0};
  stp_record *rec = NULL;
  if (out->csv || !r) {
    stp_batch_row row = {.path = file, .mapping = m, .model_known = model_known,
                         .model = model, .result = r, .status = r ? STP_OK : failure->status,
                         .message = r ? NULL : failure->message,
                         .seconds = r ? r->seconds : seconds, .limit = failure->limit};
    stp_batch_row_json(&row, &rec, &err);
  } else {
    stp_result_json(m, r, &rec, &err);
  }
  return cli_out_put(out, rec);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Evaluate one loaded mapping under one model and print it. */
static int eval_one(cli_out *out, const stp_mapping *m, stp_model model, const stp_options *o) {
  stp_error err = {0};
  stp_result *r = NULL;
  int status = CLI_OK;
  double t0 = now();
  if (stp_evaluate(m, model, o, &r, &err) != STP_OK)
    status = cli_report_mapping_error(&err, model);
  if (put_record(out, stp_mapping_file(m), m, r, model, true, &err, now() - t0) != 0)
    status = CLI_FAILURE; /* a failed write: cli_finish says why */
  stp_result_free(r);
  return status;
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
  if (!cli_parse_eval_options(cmd, &a, &o, &models, true) ||
      !cli_parse_format(cmd, &a, eval_formats, CLI_FORMAT_TEXT, &fmt) ||
      (cli_flag(cmd, &a, "distributed") && !cli_check_distributed(cmd)) ||
      !cli_parse_law(cmd, &a, &law)) {
    cli_args_free(&a);
    return CLI_USAGE;
  }
  o.law = law;
  o.distributed = cli_flag(cmd, &a, "distributed");
  if (a.npos == 0) {
    cli_usage_error(cmd, "no mapping file given");
    stp_law_free(law);
    cli_args_free(&a);
    return CLI_USAGE;
  }
  cli_out out;
  if (!cli_out_open(&out, "eval", fmt)) {
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
                    ? put_record(&out, file, NULL, NULL, STP_MODEL_OVERLAP, false, &err, dt) == 0
                    : true;
      if (models == CLI_MODEL_OVERLAP || models == CLI_MODEL_BOTH)
        ok = put_record(&out, file, NULL, NULL, STP_MODEL_OVERLAP, true, &err, dt) == 0 && ok;
      if (models == CLI_MODEL_STRICT || models == CLI_MODEL_BOTH)
        ok = put_record(&out, file, NULL, NULL, STP_MODEL_STRICT, true, &err, dt) == 0 && ok;
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
      status = worst(status, eval_one(&out, m, list[q], &o));
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
                "[-o FILE]",
    .summary = "Evaluate mappings: deterministic and exponential throughput, N.B.U.E. bounds,\n"
               "max resource cycle-time and critical resource.",
    .details = "Deterministic times are the means of the mapping (work/speed, output/bandwidth).\n"
               "Overlap is solved per component without building the full event graph; Strict\n"
               "needs the full graph (refused above --max-transitions) and, for exponential\n"
               "times, its Markov chain (reported as unavailable above --max-states).\n"
               "With --law SPEC (or a file with \"laws\"), a third value: the exact throughput\n"
               "under that phase-type law, from the chain of the markings and phases.\n"
               "FILE '-' reads standard input.\n"
               "Exit status: 0 success, 1 internal failure (or output not written), 2 bad input\n"
               "or usage, 130 interrupted (Ctrl-C).",
    .options = eval_options,
    .run = run_eval,
};
