/* cmd_eval.c: `streamtp eval FILE...`: throughputs, bounds and critical
 * resources of each mapping file, for its model or the one(s) asked for. */
#include "cli/cli.h"
#include "cli/report.h"

#include <stdlib.h>

static const cli_option eval_options[] = {
    {"model", 0, "M", "overlap, strict or both (default: the file's \"model\", else overlap)"},
    {"json", 0, NULL, "one JSON object per file and model, one per line (docs/format.md)"},
    {"exp-method", 0, "M", "auto (default), closed-form, ctmc, or none"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    {0}};

/* Evaluate one loaded mapping under one model and print it. */
static int eval_one(const stp_mapping *m, stp_model model, const stp_options *o, bool json) {
  stp_error err = {0};
  stp_result *r;
  if (stp_evaluate(m, model, o, &r, &err) != STP_OK)
    return cli_report_error(&err);
  int status = CLI_OK;
  if (json) {
    json_t *j = report_json(m, r);
    if (report_json_line(stdout, j) != 0) {
      cli_error("cannot write the JSON result");
      status = CLI_FAILURE;
    }
    json_decref(j);
  } else {
    report_text(stdout, m, r);
  }
  stp_result_free(r);
  return status;
}

static int worst(int a, int b) { return a > b ? a : b; }

static int run_eval(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_eval_command, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_options o;
  int models;
  if (!cli_parse_eval_options(&cli_eval_command, &a, &o, &models, true)) {
    cli_args_free(&a);
    return CLI_USAGE;
  }
  if (a.npos == 0) {
    cli_usage_error(&cli_eval_command, "no mapping file given");
    cli_args_free(&a);
    return CLI_USAGE;
  }
  bool json = cli_flag(&cli_eval_command, &a, "json");
  int status = CLI_OK, printed = 0;
  for (int k = 0; k < a.npos; k++) {
    stp_error err = {0};
    stp_mapping *m;
    if (stp_mapping_load_file(a.pos[k], &m, &err) != STP_OK) {
      status = worst(status, cli_report_error(&err));
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
    for (int q = 0; q < n; q++) {
      if (!json && printed++)
        fputc('\n', stdout);
      status = worst(status, eval_one(m, list[q], &o, json));
    }
    stp_mapping_free(m);
  }
  cli_args_free(&a);
  return status;
}

const cli_command cli_eval_command = {
    .name = "eval",
    .synopsis = "eval FILE... [--model overlap|strict|both] [--json] [--exp-method M]",
    .summary = "Evaluate mappings: deterministic and exponential throughput, N.B.U.E. bounds,\n"
               "max resource cycle-time and critical resource.",
    .details = "Deterministic times are the means of the mapping (work/speed, output/bandwidth).\n"
               "Overlap is solved per component without building the full event graph; Strict\n"
               "needs the full graph (refused above --max-transitions) and, for exponential\n"
               "times, its Markov chain (reported as unavailable above --max-states).\n"
               "Exit status: 0 success, 1 internal failure, 2 bad input or usage.",
    .options = eval_options,
    .run = run_eval,
};
