/* cmd_batch.c: `streamtp batch FILE|DIR...`: evaluate many mapping files on
 * worker threads (stp_batch_run) and write one row per file and model, in
 * input order, as CSV or JSON lines.  A bad file gives a row with its error
 * and the batch goes on; Ctrl-C stops it cleanly, keeping the rows done. */
#include "cli/cli.h"
#include "cli/report.h"
#include "streamtp_batch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLAIN_PROGRESS_EVERY 5.0 /* seconds between progress lines off a terminal */

static const cli_option batch_options[] = {
    {"jobs", 'j', "N", "worker threads (default: the number of online cores)"},
    {"model", 0, "M", "overlap, strict or both (default: each file's \"model\")"},
    {"format", 0, "F", "csv (default) or jsonl"},
    {"output", 'o', "FILE", "write the rows to FILE (default, or '-': standard output)"},
    {"quiet", 'q', NULL, "no progress and no summary on standard error"},
    {"exp-method", 0, "M", "auto (default), closed-form, ctmc, or none"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    CLI_MEMORY_OPTION,
    {0}};

typedef struct batch_cli {
  FILE *out;
  bool csv, quiet, tty;
  double last_line; /* when the last plain progress line was printed */
} batch_cli;

static stp_status write_row(const stp_batch_row *row, void *ctx, stp_error *err) {
  batch_cli *c = ctx;
  json_t *j = report_row(row);
  int rc = c->csv ? report_csv_row(c->out, j) : report_json_line(c->out, j);
  json_decref(j);
  if (rc == 0)
    return STP_OK;
  err->status = STP_EIO;
  snprintf(err->message, sizeof err->message, "cannot write the row of %s", row->path);
  return STP_EIO;
}

static void format_duration(char *buf, size_t n, double s) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void progress_bar(const stp_batch_summary *s) {
  enum { WIDTH = 30 };
  double frac = s->inputs ? (double)s->inputs_done / (double)s->inputs : 1;
  int fill = (int)(frac * WIDTH);
  char bar[WIDTH + 1], eta[32] = "-";
  for (int k = 0; k < WIDTH; k++)
    bar[k] = k < fill ? '#' : '.';
  bar[WIDTH] = '\0';
  double rate = s->seconds > 0 ? (double)s->inputs_done / s->seconds : 0;
  if (rate > 0)
    format_duration(eta, sizeof eta, (double)(s->inputs - s->inputs_done) / rate);
  fprintf(stderr, "\r[%s] %3.0f%% %zu/%zu files  %.1f files/s  ETA %s  %zu failed\033[K", bar,
          100 * frac, s->inputs_done, s->inputs, rate, eta, s->failed_rows);
}

static void on_progress(const stp_batch_summary *s, void *ctx) {
  batch_cli *c = ctx;
  fflush(c->out); /* rows become visible as they are done */
  if (c->quiet)
    return;
  if (c->tty) {
    progress_bar(s);
  } else if (s->seconds - c->last_line >= PLAIN_PROGRESS_EVERY &&
             s->inputs_done < s->inputs) {
    c->last_line = s->seconds;
    fprintf(stderr, "streamtp: batch: %zu/%zu files, %.1f files/s, %zu failed rows\n",
            s->inputs_done, s->inputs, s->seconds > 0 ? (double)s->inputs_done / s->seconds : 0,
            s->failed_rows);
  }
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

static void print_summary(const batch_cli *c, const stp_batch_summary *s) {
  if (c->tty && !c->quiet)
    fputs("\r\033[K", stderr);
  if (s->interrupted)
    fprintf(stderr,
            "streamtp: interrupted: %zu of %zu files done, %zu row%s written (%zu failed)\n",
            s->inputs_done, s->inputs, s->rows, plural(s->rows), s->failed_rows);
  else if (!c->quiet)
    fprintf(stderr, "streamtp: batch: %zu file%s, %zu row%s, %zu failed, %.2f s, %.1f files/s\n",
            s->inputs, plural(s->inputs), s->rows, plural(s->rows), s->failed_rows, s->seconds,
            s->seconds > 0 ? (double)s->inputs / s->seconds : 0);
  if (s->failed_rows && !s->interrupted)
    cli_error("%zu of %zu rows failed (%zu bad input, %zu internal); see the error column",
              s->failed_rows, s->rows, s->input_errors, s->internal_errors);
}

static bool parse_batch_options(const cli_args *a, stp_batch_config *cfg, batch_cli *c) {
  const cli_command *cmd = &cli_batch_command;
  stp_batch_config_init(cfg);
  int models;
  if (!cli_parse_eval_options(cmd, a, &cfg->options, &models, true))
    return false;
  cfg->models = models == CLI_MODEL_OVERLAP  ? STP_BATCH_OVERLAP
                : models == CLI_MODEL_STRICT ? STP_BATCH_STRICT
                : models == CLI_MODEL_BOTH   ? STP_BATCH_BOTH
                                             : STP_BATCH_FILE_MODEL;
  const char *s;
  uint64_t jobs = 0;
  if ((s = cli_get(cmd, a, "jobs")) && !cli_parse_u64(cmd, "jobs", s, 1, 1024, &jobs))
    return false;
  cfg->jobs = (size_t)jobs; /* 0: the library uses the online cores */
  c->csv = true;
  if ((s = cli_get(cmd, a, "format"))) {
    if (strcmp(s, "jsonl") == 0) {
      c->csv = false;
    } else if (strcmp(s, "csv") != 0) {
      cli_usage_error(cmd, "--format: '%s' is not one of csv, jsonl", s);
      return false;
    }
  }
  c->quiet = cli_flag(cmd, a, "quiet");
  c->tty = isatty(STDERR_FILENO);
  if (a->npos == 0) {
    cli_usage_error(cmd, "no mapping file or directory given");
    return false;
  }
  return true;
}

/* Exit status of a finished batch: 2 if any row has an input error, else 1
 * if any has an internal failure, else 0 (as eval: the worst wins). */
static int rows_status(const stp_batch_summary *s) {
  return s->input_errors ? CLI_USAGE : s->internal_errors ? CLI_FAILURE : CLI_OK;
}

static int run_with_inputs(const stp_batch_input *in, size_t n, stp_batch_config *cfg,
                           batch_cli *c) {
  if (c->csv && report_csv_header(c->out) != 0)
    return CLI_FAILURE; /* cli_finish says why */
  cfg->options.cancel = cli_cancel(); /* Ctrl-C: cli_run_command catches it */
  cfg->options.progress = (stp_progress){0}; /* workers in parallel: the bar says it */
  cli_progress_off();
  cfg->sink = write_row;
  cfg->progress = on_progress;
  cfg->ctx = c;
  stp_batch_summary sum;
  stp_error err = {0};
  stp_status s = stp_batch_run(in, n, cfg, &sum, &err);
  print_summary(c, &sum);
  if (s == STP_EINTERRUPTED)
    return CLI_INTERRUPTED;
  if (s != STP_OK && !cli_output_ok())
    return CLI_FAILURE; /* cli_finish says why (or nothing, on a closed pipe) */
  if (s != STP_OK) {
    cli_error("%s", err.message);
    return CLI_FAILURE; /* threads, memory or output: never the input's fault */
  }
  return rows_status(&sum);
}

static int run_batch(int argc, char **argv) {
  const cli_command *cmd = &cli_batch_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_batch_config cfg;
  batch_cli c = {.out = stdout};
  stp_batch_input *in = NULL;
  size_t n = 0;
  stp_error err = {0};
  if (!parse_batch_options(&a, &cfg, &c)) {
    rc = CLI_USAGE;
  } else if (stp_batch_collect((const char *const *)a.pos, (size_t)a.npos, &in, &n, &err) !=
             STP_OK) {
    rc = cli_report_error(&err);
  } else if (n == 0) {
    cli_error("no mapping file (*.json) found in the given directories");
    rc = CLI_USAGE;
  } else {
    rc = run_with_inputs(in, n, &cfg, &c); /* -o FILE: cli_parse sent stdout there */
  }
  stp_batch_inputs_free(in, n);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_batch_command = {
    .name = "batch",
    .synopsis = "batch FILE|DIR... [--jobs N] [--model overlap|strict|both] [--format csv|jsonl] "
                "[-o OUT]",
    .summary = "Evaluate many mapping files on worker threads: one row per file and model, in\n"
               "input order, as CSV or JSON lines.",
    .details = "A directory stands for every *.json file below it (recursively, sorted by path).\n"
               "Rows hold the keys of `eval --json`, flattened (see docs/guide/batch.md).  A file\n"
               "that cannot be read or evaluated gives a row with `status` and `error` filled,\n"
               "and the batch goes on.  Progress goes to standard error: a bar on a terminal, a\n"
               "line every 5 s otherwise.  Ctrl-C stops cleanly: the rows already done are\n"
               "written in order, then a summary.\n"
               "Exit status: 0 every row succeeded, 2 some row has an input error, 1 some row\n"
               "failed internally (or the output could not be written), 130 interrupted.",
    .options = batch_options,
    .run = run_batch,
};
