/* streamtp_distributed.h: one Markov chain across the ranks of an MPI job
 * (docs/cluster.md, docs/design.md "One chain across MPI ranks").
 *
 * A library built with -DSTP_PETSC=ON solves the chains of the
 * exponential throughputs across the ranks of MPI_COMM_WORLD when
 * stp_options.distributed (or stp_graph_options.distributed) is set: each
 * rank owns the states that a hash of their marking gives it, the
 * breadth-first enumeration sends each level's new states to their owners,
 * and PETSc solves the stationary distribution over the ranks.  Such calls
 * are collective: every rank must make the same ones, in the same order,
 * with the same inputs; every rank gets the same result (or the same
 * error).  MPI is started by the application, or by the library on its
 * first distributed call (a job of one rank); PETSc by the library, which
 * stops it in stp_distributed_finalize.  Without PETSc in the build, a
 * distributed call fails with STP_EINVAL, saying how to build it. */
#ifndef STREAMTP_DISTRIBUTED_H
#define STREAMTP_DISTRIBUTED_H

#include "streamtp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this library was built with PETSc (distributed calls work), else 0. */
STP_API int stp_distributed_available(void);
/* Stops PETSc (and SLEPc) where the library started them, and with them
 * MPI where PETSc started it; call it once, on every rank, after the last
 * distributed call.  Harmless when nothing was started. */
STP_API void stp_distributed_finalize(void);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_DISTRIBUTED_H */
