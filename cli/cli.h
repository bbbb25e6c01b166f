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
#define CLI_HELP (-1) /* parse result: --help was given and printed */

#define CLI_MAX_OPTS 24

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
} cli_command;

typedef struct cli_args {
  const char *value[CLI_MAX_OPTS]; /* by option index; flags get "" */
  char **pos;
  int npos;
} cli_args;

/* Parse argv (after the subcommand name).  Returns CLI_OK, CLI_USAGE (message
 * printed) or CLI_HELP (help printed). */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);
void cli_args_free(cli_args *a);
/* Value of option `name` or NULL when absent. */
const char *cli_get(const cli_command *cmd, const cli_args *a, const char *name);
bool cli_flag(const cli_command *cmd, const cli_args *a, const char *name);

void cli_print_help(FILE *f, const cli_command *cmd);
void cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print err's message and return the exit status its kind deserves. */
int cli_report_error(const stp_error *err);

/* Strict number parsing (strtoull/strtod with end pointer, errno and range). */
bool cli_parse_u64(const cli_command *cmd, const char *opt, const char *s, uint64_t min,
                   uint64_t max, uint64_t *out);
bool cli_parse_double(const cli_command *cmd, const char *opt, const char *s, double min,
                      double max, double *out);
/* Options shared by the evaluating commands: --model, --max-transitions,
 * --max-states, --exp-method.  `both` allows "--model both". */
bool cli_parse_eval_options(const cli_command *cmd, const cli_args *a, stp_options *o,
                            int *models, bool both);
#define CLI_MODEL_FILE 0 /* the model named in each file */
#define CLI_MODEL_OVERLAP 1
#define CLI_MODEL_STRICT 2
#define CLI_MODEL_BOTH 3

/* Monte Carlo options shared by graph, reduce, redistribute and bcast:
 * --simulate R (required for the others to matter), --law SPEC, --seed S,
 * --firings K (TEG only, declared by the command itself; pass has_firings =
 * false where it has no sense).  CLI_SIM_OPTIONS declares the other three.
 * On success *enabled says whether --simulate was given, o is filled
 * (defaults: seed 1, firings 10000) and *law holds the parsed --law (NULL
 * when absent; the caller frees it with stp_law_free after the run, and
 * o->law points to it).  Returns false after printing a usage error. */
bool cli_parse_sim_options(const cli_command *cmd, const cli_args *a, bool has_firings,
                           bool *enabled, stp_graph_sim_options *o, stp_law **law);
#define CLI_SIM_OPTIONS                                                   \
  {"simulate", 0, "R", "Monte Carlo: R independent runs (any law, 95% interval)"},     \
      {"law", 0, "SPEC", "law of times without their own (default exp; see docs/format.md)"}, \
      {"seed", 0, "S", "seed of the Monte Carlo runs (default 1)"}

/* Commands that take exactly one mapping file: load it and pick the model
 * (--model, else the file's).  Returns CLI_OK, or the exit status after
 * printing the error (usage when there is not exactly one file). */
int cli_load_single(const cli_command *cmd, const cli_args *a, int models, stp_mapping **m,
                    stp_model *model);

extern const cli_command cli_eval_command;
extern const cli_command cli_teg_command;
extern const cli_command cli_batch_command;
extern const cli_command cli_generate_command;
extern const cli_command cli_simulate_command;
extern const cli_command cli_ctmc_command;
extern const cli_command cli_redistribute_command;
extern const cli_command cli_graph_command;

#endif /* STP_CLI_H */
