/* cli.h: shared pieces of the streamtp command-line client: option parsing,
 * number parsing, error printing and the subcommand entry points.  The CLI
 * is a thin client of libstreamtp: it parses arguments, calls the library,
 * prints results, and picks the exit status (0 ok, 1 internal failure,
 * 2 bad input or usage). */
#ifndef STP_CLI_H
#define STP_CLI_H

#include "streamtp.h"
#include "streamtp_graph.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { CLI_OK = 0, CLI_FAILURE = 1, CLI_USAGE = 2 };
#define CLI_INTERRUPTED 130 /* 128 + SIGINT: Ctrl-C, what shells expect */
#define CLI_BROKEN_PIPE 141 /* 128 + SIGPIPE: the reader of standard output went away */
#define CLI_HELP (-1) /* parse result: --help was given and printed */

#define CLI_MAX_OPTS 40

typedef struct cli_option {
  const char *name;    /* long name without "--" */
  char short_name;     /* 0 if none */
  const char *metavar; /* NULL for a flag */
  const char *help;
} cli_option;

typedef struct cli_command {
  const char *name;
  const char *synopsis; /* usage line after "streamtp " */
  const char *summary;  /* one line for the global help */
  const char *details;  /* paragraph printed by --help, may be NULL */
  const cli_option *options; /* terminated by a zero entry */
  int (*run)(int argc, char **argv);
  bool opens_output; /* -o FILE is opened by the command (cli_open_output), not by cli_parse */
} cli_command;

typedef struct cli_args {
  const char *value[CLI_MAX_OPTS]; /* by option index; flags get "" */
  char **pos;
  int npos;
} cli_args;

/* Parse argv (after the subcommand name) with getopt_long: "-j2", "--jobs=2",
 * "--jobs 2", unambiguous abbreviations, options anywhere, "--" ends them,
 * "-" is a positional (standard input).  A command that declares
 * {"output", 'o', "FILE", ...} gets standard output sent to FILE here ("-":
 * standard output), unless it opens it itself (opens_output).  Returns CLI_OK, CLI_USAGE (message printed) or
 * CLI_HELP (help printed). */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);
void cli_args_free(cli_args *a);
/* Value of option `name` or NULL when absent. */
const char *cli_get(const cli_command *cmd, const cli_args *a, const char *name);
bool cli_flag(const cli_command *cmd, const cli_args *a, const char *name);

void cli_print_help(FILE *f, const cli_command *cmd);
void cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "--OPT: 'S' is not one of LIST (did you mean 'X'?)" as a usage error; list
 * is "a, b, c". */
void cli_bad_value(const cli_command *cmd, const char *opt, const char *s, const char *list);
/* The word of list (separated by ',', '|' or spaces) nearest to s, copied
 * into out, or NULL when none is near enough to be a likely typo. */
const char *cli_nearest(const char *s, const char *list, char *out, size_t cap);
/* Print err's message and return the exit status its kind deserves.  The
 * library describes a limit without naming an option (stp_limit,
 * streamtp_base.h); the command line adds its own advice: "; raise
 * --max-states" (the option of err->limit.kind). */
int cli_report_error(const stp_error *err);
/* The same for an evaluation of a mapping under `model`, whose limits the
 * simulation avoids: the advice adds " or use `streamtp simulate --model M`". */
int cli_report_mapping_error(const stp_error *err, stp_model model);

/* Strict number parsing (strtoull/strtod with end pointer, errno and range). */
bool cli_parse_u64(const cli_command *cmd, const char *opt, const char *s, uint64_t min,
                   uint64_t max, uint64_t *out);
bool cli_parse_double(const cli_command *cmd, const char *opt, const char *s, double min,
                      double max, double *out);
/* A time, or a quantity times are made of: 0 (when allow_zero) or within
 * [STP_TIME_MIN, STP_TIME_MAX], the range of every file (docs/format.md,
 * "Numbers"). */
bool cli_parse_time(const cli_command *cmd, const char *opt, const char *s, bool allow_zero,
                    double *out);
/* A memory size: bytes, or with a binary suffix K, M, G, T (optionally
 * "iB" or "B"), or a percentage of the physical memory ("50%"). */
bool cli_parse_size(const cli_command *cmd, const char *opt, const char *s, uint64_t *out);
/* Options shared by the evaluating commands: --model, --max-transitions,
 * --max-states, --exp-method.  `both` allows "--model both".  Also hands
 * the library the run's hooks (o->control = cli_control()). */
bool cli_parse_eval_options(const cli_command *cmd, const cli_args *a, stp_options *o,
                            int *models, bool both);
#define CLI_MODEL_FILE 0 /* the model named in each file */
#define CLI_MODEL_OVERLAP 1
#define CLI_MODEL_STRICT 2
#define CLI_MODEL_BOTH 3

/* --law SPEC of a command computing exact values under a phase-type law:
 * *law = the parsed law (NULL when absent; the caller frees it).  Returns
 * false after printing a usage error. */
bool cli_parse_law(const cli_command *cmd, const cli_args *a, stp_law **law);

/* The law whose exact value a graph command computes: --law alone, or
 * with --simulate when it is phase-type (a law meant for the simulation
 * only gives no "not phase-type" line); NULL otherwise. */
const stp_law *cli_exact_law(const stp_law *law, bool simulate);

/* Monte Carlo options shared by graph, reduce, redistribute and bcast:
 * --simulate R (required for the others to matter), --law SPEC, --seed S,
 * --firings K (TEG only, declared by the command itself; pass has_firings =
 * false where it has no sense).  CLI_SIM_OPTIONS declares the other three.
 * law_alone: --law may come without --simulate (the command then gives the
 * exact value under that phase-type law).
 * On success *enabled says whether --simulate was given, o is filled
 * (defaults: seed 1, firings 10000; o->control = cli_control()) and *law
 * holds the parsed --law (NULL
 * when absent; the caller frees it with stp_law_free after the run, and
 * o->law points to it).  Returns false after printing a usage error. */
bool cli_parse_sim_options(const cli_command *cmd, const cli_args *a, bool has_firings,
                           bool law_alone, bool *enabled, stp_graph_sim_options *o,
                           stp_law **law);
#define CLI_SIM_OPTIONS                                                   \
  {"simulate", 0, "R", "Monte Carlo: R independent runs (any law, 95% interval)"},     \
      {"law", 0, "SPEC", "law of times without their own (default exp; see docs/format.md)"}, \
      {"seed", 0, "S", "seed of the Monte Carlo runs (default 1)"}

/* Commands that take exactly one mapping file: load it and pick the model
 * (--model, else the file's).  Returns CLI_OK, or the exit status after
 * printing the error (usage when there is not exactly one file). */
int cli_load_single(const cli_command *cmd, const cli_args *a, int models, stp_mapping **m,
                    stp_model *model);

/* ---- the run contract (run.c) ---------------------------------------------------
 * Every command runs inside cli_run_command, which gives it, without the
 * command asking:
 *  - Ctrl-C: the first SIGINT sets a flag that the library polls (through
 *    cli_control()), so long computations stop within a second; a second
 *    Ctrl-C kills, though never in the middle of a record;
 *  - progress on standard error after a second on a terminal (progress.c),
 *    the library's reports or "working";
 *  - --max-memory SIZE, which cli_parse accepts for every command
 *    (cli_memory_budget(); "limits" names it in every JSON line);
 *  - output in whole records (cli_write_record, cli_record_*), none after
 *    a failed write; cli_finish then turns the outcome into the
 *    exit status: 1 with a message when a write failed (full disk), 141
 *    quietly on a closed pipe, 130 when interrupted.
 * What a command must do: put cli_control() into every library call that
 * takes an stp_control (options.control = cli_control()), write through
 * records, and stop its loops when cli_go_on() is false.  The property test
 * tests/cli/contract.sh holds every command to this. */
int cli_run_command(const cli_command *cmd, int argc, char **argv);
int cli_finish(int rc);
stp_control cli_control(void);
bool cli_go_on(void); /* output still writable and no Ctrl-C */
bool cli_interrupted(void);
stp_cancel cli_cancel(void);
void cli_set_memory_budget(uint64_t bytes); /* --max-memory (cli_parse) */
uint64_t cli_memory_budget(void);           /* the default resolved */
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
/* Open the "-o FILE" of the command, if it declares one (cli_parse does):
 * standard output goes to a temporary beside FILE, which replaces FILE
 * when the command ends (cli_finish), unless a write failed or the command
 * failed having written nothing (FILE is then left as it was). */
int cli_open_output(const cli_command *cmd, const cli_args *a);
/* A file written whole (stp_atomic_open; docs/format.md, "Files written
 * whole"), opened with Ctrl-C able to end the wait on a FIFO's reader.
 * Returns CLI_OK, or the exit status after printing why (2: a directory,
 * no such directory; 130: interrupted). */
int cli_open_whole(const char *path, stp_atomic_file **a, FILE **f);
/* stp_atomic_commit of what went to f (path: for the message): CLI_OK, or
 * CLI_FAILURE after printing why (a record that could not be written
 * says its reason). */
int cli_commit_whole(stp_atomic_file *a, FILE *f, const char *path);
/* Standard output to path, written whole (what cli_open_output does). */
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

/* What a run was limited by, recorded by the option parsers below and
 * written into every JSON line as "limits" (report_json_line). */
typedef struct cli_limits {
  bool eval;            /* max_transitions and max_states apply */
  bool states;          /* max_states applies (graph and the seed families) */
  uint64_t max_transitions, max_states;
  uint64_t max_memory;  /* bytes; 0: not set */
  bool has_seed;
  uint64_t seed;
} cli_limits;
extern cli_limits cli_run_limits;
/* --max-states N (1 .. 10^12) of graph and the seed families, into
 * *max_states (left as is when absent) and into the JSON "limits". */
bool cli_parse_max_states(const cli_command *cmd, const cli_args *a, uint64_t *max_states);

/* False after saying so when `bytes` (an estimate of what `what` is about
 * to allocate) exceeds the memory budget (--max-memory): "WHAT needs about
 * X GiB, above the memory budget of Y GiB (--max-memory)"; exit 2 then. */
bool cli_within_budget(const char *what, double bytes);

/* --format of the commands that offer one: "text" is the human report. */
enum { CLI_FORMAT_TEXT = 0, CLI_FORMAT_JSONL, CLI_FORMAT_CSV, CLI_FORMAT_TABLE };
/* Parse --format among `allowed` (NULL-terminated names of the enum above,
 * e.g. {"jsonl", "csv", "table", NULL}); a --json flag, where the command
 * declares one, means jsonl.  *fmt defaults to dflt. */
bool cli_parse_format(const cli_command *cmd, const cli_args *a, const char *const *allowed,
                      int dflt, int *fmt);

/* ---- MPI (cluster.c; docs/cluster.md) ---------------------------------------------
 * In a build with -DSTP_MPI=ON, main starts MPI when mpirun or srun
 * launched the command (cli_mpi_start) and ends it, with PETSc where the
 * library started it, on the way out (cli_mpi_end); the ranks other than 0
 * write nothing: their standard output and error go to /dev/null, and
 * -o FILE is not opened there.  Without MPI: rank 0 of 1. */
void cli_mpi_start(int *argc, char ***argv);
void cli_mpi_end(void);
int cli_mpi_rank(void);
int cli_mpi_size(void);
bool cli_mpi_built(void);
/* How many ranks the launcher's environment says this process is one of
 * (0: not launched by mpirun or srun), in any build. */
int cli_mpi_launched_size(void);
/* --distributed of eval, ctmc and graph: false (message printed) where the
 * library cannot distribute a chain (built without PETSc). */
bool cli_check_distributed(const cli_command *cmd);
#define CLI_DISTRIBUTED_OPTION                                                          \
  {"distributed", 0, NULL, "solve the Markov chains across the MPI ranks (mpirun; PETSc " \
                           "build, docs/cluster.md)"}

extern const cli_command cli_eval_command;
extern const cli_command cli_sweep_command;
extern const cli_command cli_optimize_command;
extern const cli_command cli_teg_command;
extern const cli_command cli_batch_command;
extern const cli_command cli_generate_command;
extern const cli_command cli_simulate_command;
extern const cli_command cli_ctmc_command;
extern const cli_command cli_bcast_command;
extern const cli_command cli_redistribute_command;
extern const cli_command cli_graph_command;
extern const cli_command cli_reduce_command;

#endif /* STP_CLI_H */
