/* args.h: argument parsing primitives of the command line (args.c): a
 * command's table of options, GNU parsing over it, help text, usage errors
 * with a "did you mean", strict numbers.  Above run.h (whose exit statuses
 * cli_parse returns) and cluster.h; below options.h, which builds the
 * shared options out of these. */
#ifndef STP_CLI_ARGS_H
#define STP_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * standard output), unless it opens it itself (opens_output).  --max-memory
 * goes to the run contract (cli_set_memory_budget, run.h).  Returns CLI_OK,
 * CLI_USAGE (message printed) or CLI_HELP (help printed). */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);
void cli_args_free(cli_args *a);
/* Value of option `name` or NULL when absent (or not an option of cmd). */
const char *cli_get(const cli_command *cmd, const cli_args *a, const char *name);
bool cli_flag(const cli_command *cmd, const cli_args *a, const char *name);

void cli_print_help(FILE *f, const cli_command *cmd);
void cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "--OPT: 'S' is not one of LIST (did you mean 'X'?)" as a usage error; list
 * is "a, b, c". */
void cli_bad_value(const cli_command *cmd, const char *opt, const char *s, const char *list);
/* The word of list (separated by ',', '|' or spaces) nearest to s, copied
 * into out, or NULL when none is near enough to be a likely typo. */
const char *cli_nearest(const char *s, const char *list, char *out, size_t cap);

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

/* Open the "-o FILE" of the command, if it declares one (cli_parse does):
 * standard output goes to FILE, written whole (cli_output_whole, run.h);
 * not on the MPI ranks other than 0 (cluster.h). */
int cli_open_output(const cli_command *cmd, const cli_args *a);

#endif /* STP_CLI_ARGS_H */
