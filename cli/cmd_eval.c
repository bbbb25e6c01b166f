/* cmd_eval.c: `streamtp eval FILE...`: throughputs, bounds and critical
 * resources of each mapping file, for its model or the one(s) asked for. */
#include "cli/cli.h"
#include "cli/report.h"

#include <stdlib.h>

static const cli_option eval_options[] = {
    {"model", 0, "M", "overlap, strict or both (default: the file's \"model\", else overlap)"},
    {"json", 0, NULL, "one JSON object per file and model, one per line (--format jsonl)"},
    {"format", 0, "F", "text (default), jsonl, csv (the columns of batch) or table"},
    {"output", 'o', "FILE", "write to FILE instead of standard output"},
    {"exp-method", 0, "M", "auto (default), closed-form, ctmc, or none"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    CLI_MEMORY_OPTION,
    {0}};

static const char *const eval_formats[] = {"text", "jsonl", "csv", "table", NULL};
static const char *const eval_table[] = {"file",  "model", "det_throughput", "exp_throughput",
                                         "lower", "upper", "critical_resource", NULL};

/* One evaluated (mapping, model) in the chosen format. */
static int put_result(const stp_mapping *m, const stp_result *r, int fmt, report_sink *sink,
                      size_t printed) {
  if (fmt == CLI_FORMAT_TEXT) {
    if (printed && !cli_write_record(stdout, "\n", 1))
      return -1;
    return report_text_record(stdout, m, r);
  }
  json_t *j;
  if (fmt == CLI_FORMAT_JSONL) {
    j = report_json(m, r);
  } else { /* a row as batch writes it, so that the two agree */
    stp_batch_row row = {.path = stp_mapping_file(m), .mapping = m, .model_known = 1,
                         .model = r->model, .result = r, .status = STP_OK, .seconds = r->seconds};
    j = report_row(&row);
  }
  int rc = fmt == CLI_FORMAT_JSONL ? report_json_line(stdout, j) : report_sink_put(sink, stdout, j);
  json_decref(j);
  return rc;
}

/* Evaluate one loaded mapping under one model and print it. */
static int eval_one(const stp_mapping *m, stp_model model, const stp_options *o, int fmt,
                    report_sink *sink, size_t *printed) {
  stp_error err = {0};
  stp_result *r;
  if (stp_evaluate(m, model, o, &r, &err) != STP_OK)
    return cli_report_error(&err);
  int status = put_result(m, r, fmt, sink, (*printed)++) == 0 ? CLI_OK : CLI_FAILURE;
  stp_result_free(r);
  return status; /* a failed write: cli_finish says why */
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
  if (!cli_parse_eval_options(cmd, &a, &o, &models, true) ||
      !cli_parse_format(cmd, &a, eval_formats, CLI_FORMAT_TEXT, &fmt)) {
    cli_args_free(&a);
    return CLI_USAGE;
  }
  if (a.npos == 0) {
    cli_usage_error(cmd, "no mapping file given");
    cli_args_free(&a);
    return CLI_USAGE;
  }
  report_sink sink = {.format = fmt, .columns = fmt == CLI_FORMAT_TABLE ? eval_table : NULL};
  int status = CLI_OK;
  size_t printed = 0;
  for (int k = 0; k < a.npos && go_on(); k++) {
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
    for (int q = 0; q < n && go_on(); q++)
      status = worst(status, eval_one(m, list[q], &o, fmt, &sink, &printed));
    stp_mapping_free(m);
  }
  if (report_sink_close(&sink, stdout) != 0)
    status = worst(status, CLI_FAILURE);
  cli_args_free(&a);
  return status;
}

const cli_command cli_eval_command = {
    .name = "eval",
    .synopsis = "eval FILE... [--model overlap|strict|both] [--json] [--format F] [-o FILE]",
    .summary = "Evaluate mappings: deterministic and exponential throughput, N.B.U.E. bounds,\n"
               "max resource cycle-time and critical resource.",
    .details = "Deterministic times are the means of the mapping (work/speed, output/bandwidth).\n"
               "Overlap is solved per component without building the full event graph; Strict\n"
               "needs the full graph (refused above --max-transitions) and, for exponential\n"
               "times, its Markov chain (reported as unavailable above --max-states).\n"
               "FILE '-' reads standard input.\n"
               "Exit status: 0 success, 1 internal failure (or output not written), 2 bad input\n"
               "or usage, 130 interrupted (Ctrl-C).",
    .options = eval_options,
    .run = run_eval,
};
