/* commands.h: the subcommands, one cli_command each (cmd_*.c), which main.c
 * dispatches to.  The top of the command line: a command may use every
 * layer below it (docs/design.md, "The command line"). */
#ifndef STP_CLI_COMMANDS_H
#define STP_CLI_COMMANDS_H

#include "cli/args.h"

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

#endif /* STP_CLI_COMMANDS_H */
