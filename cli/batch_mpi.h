/* batch_mpi.h: `mpirun -n K streamtp batch ...` (built with -DSTP_MPI=ON;
 * docs/cluster.md).  Rank 0 leads: it hands the inputs out, one at a time,
 * to whichever rank has finished its last one (two in flight per rank, so
 * that none waits for the next), and hands the rows it gets back to the
 * sink in input order as soon as every earlier row is there; an expensive
 * input holds up no one but the rank that evaluates it.  The other ranks
 * work: they evaluate what they are sent, one input at a time, and send
 * back its rows as the JSON text of their records (stp_batch_row_json). */
#ifndef STP_BATCH_MPI_H
#define STP_BATCH_MPI_H

#include "streamtp_batch.h"

/* A row another rank made: its record as JSON text, what it is about. */
typedef struct batch_mpi_row {
  const char *json;
  size_t len;
  stp_status status;
  const char *path; /* its "file", or "an input" */
  int model_known;
  stp_model model;
} batch_mpi_row;

typedef struct batch_mpi_sink {
  /* A row of input k: rank 0 only, in input order.  A status other than
   * STP_OK stops the batch. */
  stp_status (*put)(void *ctx, size_t k, const batch_mpi_row *row, stp_error *err);
  void (*progress)(const stp_batch_summary *sofar, void *ctx); /* may be NULL */
  double progress_interval;
  void *ctx;
} batch_mpi_sink;

/* Rank 0: the batch of the n inputs over the other ranks.  Returns as
 * stp_batch_run (STP_EINTERRUPTED when a row was cut short by an interrupt
 * or cancel stopped it); sum filled; per_rank[q] (K entries, may be NULL):
 * the inputs rank q evaluated. */
stp_status batch_mpi_lead(const stp_batch_input *in, size_t n, const batch_mpi_sink *sink,
                          const stp_cancel *cancel, stp_batch_summary *sum, size_t *per_rank,
                          stp_error *err);
/* Ranks 1 .. K-1: evaluate under cfg (its sink and jobs are ignored) what
 * rank 0 sends, until it says stop. */
int batch_mpi_work(const stp_batch_config *cfg);
/* Rank 0, on its way out whatever happened: the ranks still waiting are
 * told to stop (once). */
void batch_mpi_release(void);

#endif /* STP_BATCH_MPI_H */
