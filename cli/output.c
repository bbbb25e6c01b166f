/* output.c: records out of the command (output.h). */
#include "cli/output.h"

#include "cli/run.h"

#include <stdlib.h>
#include <time.h>

double cli_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

stp_run_limits cli_out_limits(const cli_limits *limits) {
  static const cli_limits none;
  const cli_limits *l = limits ? limits : &none;
  return (stp_run_limits){.max_transitions = l->max_transitions,
                          .max_states = l->max_states,
                          .max_memory = cli_memory_budget(),
                          .has_seed = l->has_seed,
                          .seed = l->seed};
}

bool cli_out_open(cli_out *o, const char *kind, int fmt, const cli_limits *limits) {
  return cli_out_open_file(o, stdout, kind, fmt, limits);
}

bool cli_out_open_file(cli_out *o, FILE *f, const char *kind, int fmt,
                       const cli_limits *limits) {
  stp_error err = {0};
  stp_run_limits run_limits = cli_out_limits(limits);
  o->sink = NULL;
  o->f = f;
  o->csv = fmt == CLI_FORMAT_CSV;
  if (stp_sink_new(kind, (stp_format)fmt, &run_limits, &o->sink, &err) != STP_OK) {
    cli_report_error(&err);
    return false;
  }
  return true;
}

/* Write text (owned) whole. */
static int write_text(cli_out *o, char *text, size_t len) {
  int rc = len == 0 || cli_write_record(o->f, text, len) ? 0 : -1;
  stp_free(text);
  return rc;
}

int cli_out_header(cli_out *o, bool write) {
  stp_error err = {0};
  char *text;
  size_t len;
  if (stp_sink_header(o->sink, &text, &len, &err) != STP_OK)
    return -1;
  if (!write)
    len = 0;
  return write_text(o, text, len);
}

int cli_out_put(cli_out *o, stp_record *r) {
  stp_error err = {0};
  char *text;
  size_t len;
  if (!r || stp_sink_put(o->sink, r, &text, &len, &err) != STP_OK) {
    stp_record_free(r);
    return -1;
  }
  stp_record_free(r);
  return write_text(o, text, len);
}

int cli_out_close(cli_out *o) {
  stp_error err = {0};
  char *text;
  size_t len;
  int rc = o->sink && stp_sink_end(o->sink, &text, &len, &err) == STP_OK ? write_text(o, text, len)
                                                                          : -1;
  stp_sink_free(o->sink);
  o->sink = NULL;
  return rc;
}

int cli_out_results(const char *kind, int fmt, const cli_limits *limits, size_t n,
                    cli_producer record, const void *res, stp_status st, const stp_error *err) {
  cli_out out;
  int rc = cli_out_open(&out, kind, fmt, limits) ? CLI_OK : CLI_FAILURE;
  for (size_t k = 0; rc == CLI_OK && k < n; k++) {
    stp_error e = {0};
    stp_record *rec = NULL;
    record(res, k, &rec, &e);
    if (cli_out_put(&out, rec) != 0)
      rc = CLI_FAILURE; /* cli_finish says why */
  }
  if (out.sink && cli_out_close(&out) != 0)
    rc = CLI_FAILURE;
  return st != STP_OK ? cli_report_error(err) : rc;
}

bool cli_stream_open(cli_stream *w, const char *kind, int fmt, const cli_limits *limits) {
  w->failed = false;
  return cli_out_open(&w->out, kind, fmt, limits);
}

int cli_stream_put(cli_stream *w, stp_record *rec) {
  w->failed = cli_out_put(&w->out, rec) != 0;
  return w->failed || !cli_go_on();
}

int cli_stream_close(cli_stream *w, stp_status st, const stp_error *err) {
  int rc = cli_out_close(&w->out) != 0 || w->failed ? CLI_FAILURE : CLI_OK;
  if (st != STP_OK && !w->failed) /* else the output failed: cli_finish says so */
    return cli_report_error(err);
  return rc;
}
