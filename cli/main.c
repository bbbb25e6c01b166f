/* main.c: the streamtp entry point: global options and dispatch to the
 * subcommands. */
#include "cli/args.h"
#include "cli/cluster.h"
#include "cli/commands.h"
#include "cli/run.h"

#include <string.h>

static const cli_command *const commands[] = {
    &cli_eval_command,
    &cli_optimize_command,
    &cli_teg_command,
    &cli_batch_command,
    &cli_generate_command,
    &cli_simulate_command,
    &cli_sweep_command,
    &cli_ctmc_command,
    &cli_graph_command,
    &cli_reduce_command,
    &cli_redistribute_command,
    &cli_bcast_command,
    NULL,
};

static void print_global_help(FILE *f) {
  fputs("usage: streamtp COMMAND [ARGS...]\n\n"
        "Throughput of replicated streaming pipelines on heterogeneous platforms\n"
        "(Overlap and Strict models; constant, exponential and general I.I.D. times),\n"
        "and makespans of any fixed-order schedule: event graphs, reduction trees,\n"
        "block-cyclic redistributions, broadcasts on grids (docs/format.md).\n\n"
        "commands:\n",
        f);
  int width = 0; /* the longest name, so that two spaces always follow it */
  for (const cli_command *const *c = commands; *c; c++)
    width = (int)strlen((*c)->name) > width ? (int)strlen((*c)->name) : width;
  for (const cli_command *const *c = commands; *c; c++)
    fprintf(f, "  %-*s  %s\n", width, (*c)->name, (*c)->synopsis + strlen((*c)->name) + 1);
  fputs("\n  streamtp COMMAND --help   details of one command\n"
        "  streamtp --version        print the version\n\n"
        "Exit status: 0 success, 1 internal failure, 2 bad input or usage.\n",
        f);
}

static const cli_command *find_command(const char *name) {
  for (const cli_command *const *c = commands; *c; c++)
    if (strcmp((*c)->name, name) == 0)
      return *c;
  return NULL;
}

/* "unknown command", with the nearest command name when one is close. */
static void unknown_command(const char *name) {
  char names[256] = "", near[32];
  for (const cli_command *const *c = commands; *c; c++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s ", (*c)->name);
  if (cli_nearest(name, names, near, sizeof near))
    cli_error("unknown command '%s' (did you mean '%s'?); see 'streamtp --help'", name, near);
  else
    cli_error("unknown command '%s'; see 'streamtp --help'", name);
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    print_global_help(stderr);
    return CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    print_global_help(stdout);
    return CLI_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("streamtp %s\n", STP_VERSION);
    return CLI_OK;
  }
  if (strcmp(cmd, "help") == 0) {
    const cli_command *c = argc > 2 ? find_command(argv[2]) : NULL;
    if (argc > 2 && !c) {
      unknown_command(argv[2]);
      return CLI_USAGE;
    }
    if (c)
      cli_print_help(stdout, c);
    else
      print_global_help(stdout);
    return CLI_OK;
  }
  const cli_command *c = find_command(cmd);
  if (!c) {
    unknown_command(cmd);
    return CLI_USAGE;
  }
  return cli_run_command(c->run, argc - 2, argv + 2);
}

int main(int argc, char **argv) {
  cli_mpi_start(&argc, &argv); /* under mpirun or srun, in a build with MPI */
  int rc = dispatch(argc, argv);
  cli_mpi_end();
  return rc;
}
