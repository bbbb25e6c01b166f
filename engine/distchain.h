/* distchain.h: a Markov chain enumerated and solved across the ranks of an
 * MPI job (docs/design.md, "One chain across MPI ranks"), for the builders
 * of engine/densechain.h: the same source (the key of state 0 and the
 * callback that writes a key's successors) and the same answer as
 * stp__dense_enumerate followed by stp__dense_rate, with the states spread
 * over the ranks.  Each rank owns the states whose key hashes to it; the
 * enumeration is breadth first, level by level, each level's successors
 * sent to their owners (one all-to-all exchange per level); the generator
 * is assembled where the moves arrive, as the rows of Q^T that the owner
 * of each target holds, and PETSc solves pi Q = 0 over the ranks.
 *
 * Built only with -DSTP_PETSC=ON (distchain_petsc.c); otherwise every
 * call fails with STP_EINVAL and says how to build it (distchain.c). */
#ifndef STP_DISTCHAIN_H
#define STP_DISTCHAIN_H

#include "engine/chain.h"
#include "engine/densechain.h"

/* ncounted x the smallest long-run firing rate of a counted label, as
 * stp__dense_rate, with info filled alike (states and nonzeros over every
 * rank; solver names PETSc's method and the ranks; residual the scaled
 * residual ||pi Q||_inf / (||Q||_1 ||pi||_inf) of the solution, at most
 * STP_DIST_TOLERANCE or the solve fails with STP_ENUMERIC).  Collective
 * over MPI_COMM_WORLD: every rank calls it with the same source, and gets
 * the same rate or the same error.  src->max_states bounds the states of
 * all ranks together, o's memory budget those of each rank. */
stp_status stp__dist_rate(const stp_dense_source *src, const uint8_t *counted,
                          const stp_options *o, double *rate, stp_ctmc_info *info,
                          stp_error *err);
/* The same with labels grouped into events (stp__store_events_rate): the
 * reachability chains whose transitions fire by several labels. */
stp_status stp__dist_events_rate(const stp_dense_source *src, const stp_dense_events *ev,
                                 const stp_options *o, double *rate, stp_ctmc_info *info,
                                 stp_error *err);

/* The residual every distributed solve reaches. */
#define STP_DIST_TOLERANCE 1e-12

#endif /* STP_DISTCHAIN_H */
