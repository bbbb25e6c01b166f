/* run.h: the run contract of every command (run.c) and its progress line
 * (progress.c): exit statuses, error messages, Ctrl-C, the memory budget,
 * output written in whole records or not at all.  The lowest layer of the
 * command line: it knows nothing of arguments (args.h) or options
 * (options.h); docs/design.md, "The command line", gives the order. */
#ifndef STP_CLI_RUN_H
#define STP_CLI_RUN_H

#include "streamtp.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { CLI_OK = 0, CLI_FAILURE = 1, CLI_USAGE = 2 };
#define CLI_INTERRUPTED 130 /* 128 + SIGINT: Ctrl-C, what shells expect */
#define CLI_BROKEN_PIPE 141 /* 128 + SIGPIPE: the reader of standard output went away */

/* "streamtp: error: ..." on standard error (the progress line erased first). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list (the callers that format their own messages). */
void cli_verror(const char *fmt, va_list ap);
/* Print err's message and return the exit status its kind deserves.  The
 * library describes a limit without naming an option (stp_limit,
 * streamtp_base.h); the command line adds its own advice: "; raise
 * --max-states" (the option of err->limit.kind). */
int cli_report_error(const stp_error *err);
/* The same for an evaluation of a mapping under `model`, whose limits the
 * simulation avoids: the advice adds " or use `streamtp simulate --model M`". */
int cli_report_mapping_error(const stp_error *err, stp_model model);

/* ---- the run contract (run.c) ---------------------------------------------------
 * Every command runs inside cli_run_command, which gives it, without the
 * command asking:
 *  - Ctrl-C: the first SIGINT sets a flag that the library polls (through
 *    cli_control()), so long computations stop within a second; a second
 *    Ctrl-C kills, though never in the middle of a record;
 *  - progress on standard error after a second on a terminal (progress.c),
 *    the library's reports or "working";
 *  - --max-memory SIZE, which cli_parse (args.h) accepts for every command
 *    (cli_memory_budget(); "limits" names it in every JSON line);
 *  - output in whole records (cli_write_record, cli_record_*), none after
 *    a failed write; cli_finish then turns the outcome into the
 *    exit status: 1 with a message when a write failed (full disk), 141
 *    quietly on a closed pipe, 130 when interrupted.
 * What a command must do: put cli_control() into every library call that
 * takes an stp_control (options.control = cli_control()), write through
 * records, and stop its loops when cli_go_on() is false.  The property test
 * tests/cli/contract.sh holds every command to this. */
int cli_run_command(int (*run)(int argc, char **argv), int argc, char **argv);
int cli_finish(int rc);
stp_control cli_control(void);
bool cli_go_on(void); /* output still writable and no Ctrl-C */
bool cli_interrupted(void);
stp_cancel cli_cancel(void);
void cli_set_memory_budget(uint64_t bytes); /* --max-memory (cli_parse) */
uint64_t cli_memory_budget(void);           /* the default resolved */
/* False after saying so when `bytes` (an estimate of what `what` is about
 * to allocate) exceeds the memory budget (--max-memory): "WHAT needs about
 * X GiB, above the memory budget of Y GiB (--max-memory)"; exit 2 then. */
bool cli_within_budget(const char *what, double bytes);
/* A record rendered in memory, then written whole: print into r->f
 * between open and close.  close returns false when it was not written
 * (a failed write, Ctrl-C: cli_finish says why). */
typedef struct cli_record {
  FILE *f;
  char *buf;
  size_t len;
} cli_record;
bool cli_record_open(cli_record *r);
bool cli_record_close(cli_record *r);
void cli_record_discard(cli_record *r); /* drop it unwritten (a failure midway) */
/* Progress on standard error for computations over a second (progress.c):
 * cli_progress starts a reporter thread and returns the callback that feeds
 * it; cli_progress_off stops it (batch, which draws its own bar, and
 * cli_finish); cli_progress_clear erases the line before a message;
 * hold/release bracket a record written to standard output. */
stp_progress cli_progress(void);
void cli_progress_off(void);
void cli_progress_clear(void);
void cli_progress_hold(void);
void cli_progress_release(void);
/* A file written whole (stp_atomic_open; docs/format.md, "Files written
 * whole"), opened with Ctrl-C able to end the wait on a FIFO's reader.
 * Returns CLI_OK, or the exit status after printing why (2: a directory,
 * no such directory; 130: interrupted). */
int cli_open_whole(const char *path, stp_atomic_file **a, FILE **f);
/* stp_atomic_commit of what went to f (path: for the message): CLI_OK, or
 * CLI_FAILURE after printing why (a record that could not be written
 * says its reason). */
int cli_commit_whole(stp_atomic_file *a, FILE *f, const char *path);
/* Standard output to path, written whole: a temporary beside it, which
 * replaces it when the command ends (cli_finish), unless a write failed or
 * the command failed having written nothing (the file then stays as it
 * was).  What "-o FILE" does (cli_open_output, args.h). */
int cli_output_whole(const char *path);
/* Write a whole record (a line, a report) and flush it, so that an interrupt
 * or a full disk never leaves half a record.  False once any write to
 * standard output has failed: loops over files stop there. */
bool cli_write_record(FILE *f, const char *text, size_t n);
bool cli_output_ok(void);
/* A writer that streams to standard output itself (a chain export too big
 * to hold as one record) failed with errno err: cli_finish then says so
 * once (exit 1), or nothing on a closed pipe (141); the command adds no
 * message of its own (cli_output_ok() is false). */
void cli_stream_failed(int err);

#endif /* STP_CLI_RUN_H */
