/* cluster.c: the command's place in an MPI job (docs/cluster.md).  In a
 * build with -DSTP_MPI=ON, MPI starts when mpirun or srun launched the
 * command, and ends on the way out; ranks other than 0 write nothing
 * (their standard output and error go to /dev/null: rank 0 speaks for
 * the job).  In any build, the launcher's environment says how many ranks
 * a process is one of, so that a build without MPI refuses to run a batch
 * once per rank. */
#include "cli/cluster.h"

#include "streamtp_distributed.h"

#include <stdlib.h>

#ifdef STP_MPI
#include <mpi.h>
#endif

static int rank = 0, size = 1;
#ifdef STP_MPI
static bool started; /* MPI_Init was ours */
#endif

int cli_mpi_launched_size(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
  for (const char *const *v = vars; *v; v++) {
    const char *s = getenv(*v);
    if (s && *s) {
      long n = strtol(s, NULL, 10);
      return n > 0 && n < 1 << 24 ? (int)n : 1;
    }
  }
  return getenv("PMIX_RANK") || getenv("PMI_RANK") ? 1 : 0;
}

int cli_mpi_rank(void) { return rank; }
int cli_mpi_size(void) { return size; }

void cli_mpi_start(int *argc, char ***argv) {
#ifdef STP_MPI
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready && cli_mpi_launched_size() > 0) {
    int provided;
    /* FUNNELED: batch's worker threads never call MPI, the main thread does */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      return;
    started = true;
    ready = 1;
  }
  if (ready) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  if (rank > 0) {
    (void)!freopen("/dev/null", "w", stdout);
    (void)!freopen("/dev/null", "w", stderr);
  }
#else
  (void)argc;
  (void)argv;
#endif
}

void cli_mpi_end(void) {
  stp_distributed_finalize(); /* PETSc, where the library started it */
#ifdef STP_MPI
  int done = 0;
  if (started && (MPI_Finalized(&done), !done))
    MPI_Finalize();
#endif
}

bool cli_mpi_built(void) {
#ifdef STP_MPI
  return true;
#else
  return false;
#endif
}
