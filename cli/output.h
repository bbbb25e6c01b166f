/* output.h: records out of the command: the library renders each record
 * in the chosen format (streamtp_report.h), the command writes it whole
 * through the run contract (cli_write_record), or not at all. */
#ifndef STP_CLI_OUTPUT_H
#define STP_CLI_OUTPUT_H

#include "cli/options.h"
#include "streamtp_report.h"

typedef struct cli_out {
  stp_sink *sink;
  FILE *f;  /* where the records go: standard output, or batch's OUT */
  bool csv; /* the format is CSV */
} cli_out;

/* A stream of records of `kind` in format fmt (CLI_FORMAT_*) to standard
 * output, with the run's limits in every JSON line: *limits, as the
 * option parsers filled it (options.h; NULL: none), and the memory budget
 * (cli_memory_budget, run.h).  False (message printed) on failure. */
bool cli_out_open(cli_out *o, const char *kind, int fmt, const cli_limits *limits);
/* The same to f. */
bool cli_out_open_file(cli_out *o, FILE *f, const char *kind, int fmt,
                       const cli_limits *limits);
/* Write the CSV header now (even before any record; nothing for the other
 * formats); write false: only mark it written (a file appended to). */
int cli_out_header(cli_out *o, bool write);
/* Write the record (consumed; NULL: its producer ran out of memory).
 * 0, or -1 when it was not written (cli_finish says why). */
int cli_out_put(cli_out *o, stp_record *r);
/* The end of the stream (a table is written here); frees the sink. */
int cli_out_close(cli_out *o);
/* The records of a library run in format fmt on standard output (with
 * limits, as cli_out_open): record(res, k, ...) makes the k-th of n (a
 * producer, stp_*_json); then, when the run failed (st not STP_OK), its
 * error err on standard error.  The exit status. */
typedef stp_status (*cli_producer)(const void *res, size_t k, stp_record **out, stp_error *err);
int cli_out_results(const char *kind, int fmt, const cli_limits *limits, size_t n,
                    cli_producer record, const void *res, stp_status st, const stp_error *err);
/* Records written as a library run makes them (through the run's `each`
 * callback), so that a long run shows them as they come and a closed pipe
 * or Ctrl-C stops it at once. */
typedef struct cli_stream {
  cli_out out;
  bool failed; /* a record not written: cli_finish says why */
} cli_stream;
bool cli_stream_open(cli_stream *w, const char *kind, int fmt, const cli_limits *limits);
/* Write the record (consumed); nonzero when the run should stop. */
int cli_stream_put(cli_stream *w, stp_record *rec);
/* The end of the stream; the exit status after the run's outcome (st, err:
 * its error is said unless the output failed first). */
int cli_stream_close(cli_stream *w, stp_status st, const stp_error *err);
/* A monotonic clock, in seconds: the "seconds" of a record. */
double cli_now(void);
/* The run's limits, as every JSON line names them: *limits (NULL: none)
 * and the memory budget, its default resolved. */
stp_run_limits cli_out_limits(const cli_limits *limits);

#endif /* STP_CLI_OUTPUT_H */
