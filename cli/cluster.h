/* cluster.h: the command's place in an MPI job (cluster.c; docs/cluster.md).
 * In a build with -DSTP_MPI=ON, main starts MPI when mpirun or srun
 * launched the command (cli_mpi_start) and ends it, with PETSc where the
 * library started it, on the way out (cli_mpi_end); the ranks other than 0
 * write nothing: their standard output and error go to /dev/null, and
 * -o FILE is not opened there.  Without MPI: rank 0 of 1.  Beside run.h at
 * the bottom of the command line: it needs neither arguments nor options. */
#ifndef STP_CLI_CLUSTER_H
#define STP_CLI_CLUSTER_H

#include <stdbool.h>

void cli_mpi_start(int *argc, char ***argv);
void cli_mpi_end(void);
int cli_mpi_rank(void);
int cli_mpi_size(void);
bool cli_mpi_built(void);
/* How many ranks the launcher's environment says this process is one of
 * (0: not launched by mpirun or srun), in any build. */
int cli_mpi_launched_size(void);

#endif /* STP_CLI_CLUSTER_H */
