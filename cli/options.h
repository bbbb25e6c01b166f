/* options.h: the options several commands share (options.c): the model
 * and limits of an evaluation, a phase-type law, the Monte Carlo options
 * of the graph commands, --format, --distributed, and the one mapping file
 * of a command.  Built on args.h; the records' printer (output.h) sits
 * above. */
#ifndef STP_CLI_OPTIONS_H
#define STP_CLI_OPTIONS_H

#include "cli/args.h"
#include "streamtp.h"
#include "streamtp_graph.h"

#include <stdbool.h>
#include <stdint.h>

/* What a run was limited by, as its JSON records say ("limits",
 * docs/format.md): the parsers below fill it from the options they read
 * (a command that draws its own seed sets it), the command hands it to its
 * printer (cli_out_open, output.h), which adds the memory budget.  A member
 * 0 (has_seed false) was not a limit of the run; start from {0}. */
typedef struct cli_limits {
  uint64_t max_transitions; /* full event graphs (cli_parse_eval_options) */
  uint64_t max_states;      /* Markov chains (the same, or cli_parse_max_states) */
  bool has_seed;            /* Monte Carlo (cli_parse_sim_options), a search's seed */
  uint64_t seed;
} cli_limits;

/* Options shared by the evaluating commands: --model, --max-transitions,
 * --max-states, --exp-method.  `both` allows "--model both".  Also hands
 * the library the run's hooks (o->control = cli_control()).  The limits
 * it runs under (max_transitions, max_states) go into *limits. */
bool cli_parse_eval_options(const cli_command *cmd, const cli_args *a, stp_options *o,
                            int *models, bool both, cli_limits *limits);
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
 * o->law points to it); with --simulate, *limits holds the seed.  Returns
 * false after printing a usage error. */
bool cli_parse_sim_options(const cli_command *cmd, const cli_args *a, bool has_firings,
                           bool law_alone, bool *enabled, stp_graph_sim_options *o,
                           stp_law **law, cli_limits *limits);
/* A mapping's Monte Carlo counts, as simulate and batch --simulate take
 * them: --datasets, --warmup, --batches, --replications (each at most
 * CLI_MAX_GROUPS), --seed, into o (the other members untouched).  False
 * after printing a usage error. */
#define CLI_MAX_GROUPS UINT64_C(1000000)
bool cli_parse_sim_counts(const cli_command *cmd, const cli_args *a, stp_sim_options *o);

#define CLI_SIM_OPTIONS                                                   \
  {"simulate", 0, "R", "Monte Carlo: R independent runs (any law, 95% interval)"},     \
      {"law", 0, "SPEC", "law of times without their own (default exp; see docs/format.md)"}, \
      {"seed", 0, "S", "seed of the Monte Carlo runs (default 1)"}

/* Commands that take exactly one mapping file: load it and pick the model
 * (--model, else the file's).  Returns CLI_OK, or the exit status after
 * printing the error (usage when there is not exactly one file). */
int cli_load_single(const cli_command *cmd, const cli_args *a, int models, stp_mapping **m,
                    stp_model *model);

/* --max-states N (1 .. 10^12) of graph and the seed families, into
 * *max_states (left as is when absent) and limits->max_states. */
bool cli_parse_max_states(const cli_command *cmd, const cli_args *a, uint64_t *max_states,
                          cli_limits *limits);

/* --format of the commands that offer one: "text" is the human report. */
enum { CLI_FORMAT_TEXT = 0, CLI_FORMAT_JSONL, CLI_FORMAT_CSV, CLI_FORMAT_TABLE };
/* Parse --format among `allowed` (NULL-terminated names of the enum above,
 * e.g. {"jsonl", "csv", "table", NULL}); a --json flag, where the command
 * declares one, means jsonl.  *fmt defaults to dflt. */
bool cli_parse_format(const cli_command *cmd, const cli_args *a, const char *const *allowed,
                      int dflt, int *fmt);

/* --distributed of eval, ctmc and graph: false (message printed) where the
 * library cannot distribute a chain (built without PETSc). */
bool cli_check_distributed(const cli_command *cmd);
#define CLI_DISTRIBUTED_OPTION                                                          \
  {"distributed", 0, NULL, "solve the Markov chains across the MPI ranks (mpirun; PETSc " \
                           "build, docs/cluster.md)"}

#endif /* STP_CLI_OPTIONS_H */
