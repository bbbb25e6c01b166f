/* streamtp_batch.h: evaluating many mapping files at once.
 *
 * stp_batch_collect expands file and directory arguments into a sorted list
 * of inputs; stp_batch_run evaluates them on worker threads and hands the
 * rows (one per input and model) to a callback in input order, in the
 * calling thread, as soon as every earlier row is done.  A bad input gives
 * a row with an error, and the batch goes on.  Cancelling through
 * the options stops it cleanly: no new input is started, running
 * evaluations stop at their next check, and every row of an input started
 * is still handed over in input order: finished rows as they are, the rows
 * cut short with status STP_EINTERRUPTED.
 */
#ifndef STREAMTP_BATCH_H
#define STREAMTP_BATCH_H

#include "streamtp_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One input: a file to evaluate, or a path that could not be listed (a
 * directory that cannot be opened), whose row reports the problem. */
typedef struct stp_batch_input {
  char *path;
  stp_status status; /* STP_OK, or why listing failed */
  char *message;     /* NULL when status is STP_OK */
} stp_batch_input;

/* Expand args: a directory contributes every "*.json" file below it
 * (recursively, symbolic links to directories not followed, sorted by path
 * with strcmp so that the order is the same everywhere); any other argument
 * is taken as a file as it is, in argument order (a missing file gives an
 * error row later).  Fails only when out of memory. */
STP_API stp_status stp_batch_collect(const char *const *args, size_t nargs, stp_batch_input **out,
                             size_t *n, stp_error *err);
STP_API void stp_batch_inputs_free(stp_batch_input *in, size_t n);

typedef enum {
  STP_BATCH_FILE_MODEL = 0, /* the "model" of each file */
  STP_BATCH_OVERLAP = 1,
  STP_BATCH_STRICT = 2,
  STP_BATCH_BOTH = 3        /* two rows per file: overlap, then strict */
} stp_batch_models;

/* A row: one input under one model. */
typedef struct stp_batch_row {
  size_t input;               /* index in the input list */
  const char *path;
  const stp_mapping *mapping; /* NULL when the file could not be read */
  int model_known;            /* 0: the file could not be read to learn its model */
  stp_model model;
  const stp_result *result;   /* NULL when status is not STP_OK */
  stp_status status;
  const char *message;        /* the error with context; NULL when status is STP_OK */
  double seconds;             /* reading plus evaluating this row */
  stp_limit limit;            /* with STP_ELIMIT: the limit (streamtp_base.h) */
  /* What the configuration asked besides the evaluation (NULL otherwise,
   * and when status is not STP_OK): streamtp_explain.h's results. */
  const struct stp_sensitivity_result *sensitivity; /* ranked as asked */
  size_t top;                                      /* of them, the first top (0: all) */
  const struct stp_utilization *utilization;
  const struct stp_latency_result *latency;
  int simulated;              /* a row of a Monte Carlo batch (stp_batch_config.simulate) */
  const stp_sim_result *sim;  /* its simulation (result NULL); NULL when status is not STP_OK */
} stp_batch_row;

typedef struct stp_batch_summary {
  size_t inputs;          /* in the list */
  size_t inputs_done;     /* whose rows are finished (handed over or not yet) */
  size_t rows;            /* handed to the sink */
  size_t failed_rows;     /* among them, rows with an error */
  size_t input_errors;    /* failed rows whose status is an input error */
  size_t internal_errors; /* failed rows whose status is an internal failure */
  int interrupted;        /* options.control.cancel stopped the batch */
  double seconds;         /* since stp_batch_run started */
} stp_batch_summary;

typedef struct stp_batch_config {
  size_t jobs;             /* worker threads; 0: the number of online cores */
  stp_batch_models models;
  stp_options options;     /* for stp_evaluate; options.control.cancel stops the batch */
  /* Receives the rows in input order, in the calling thread.  A status other
   * than STP_OK (with err filled) stops the batch, which returns it. */
  stp_status (*sink)(const stp_batch_row *row, void *ctx, stp_error *err);
  /* Optional: called in the calling thread about every progress_interval
   * seconds (default 0.25), and once at the end. */
  void (*progress)(const stp_batch_summary *sofar, void *ctx);
  double progress_interval;
  void *ctx;
  /* Each row also holds (eval --sensitivity, --utilization, --latency):
   * the elasticities, ranked by rank_by (an stp_rank_by of
   * streamtp_explain.h; default exp) and the first `top` kept (0: all);
   * the busy fractions; the latency alone in the pipeline (the first 1000
   * paths listed).  A failure of one of them fails the row. */
  int sensitivity, utilization, latency;
  int rank_by;
  size_t top;
  /* Not NULL: every row is a Monte Carlo run (stp_simulate with these
   * options, the same seed for every input: a row depends only on its
   * input) instead of an evaluation; its utilization and latency are the
   * simulation's own (simulate->utilization, ->latency), sensitivity is
   * refused (EINVAL).  simulate->control is ignored: options.control
   * stops the runs. */
  const stp_sim_options *simulate;
} stp_batch_config;

/* Fill cfg with the defaults (jobs 0, file models, stp_options_init). */
STP_API void stp_batch_config_init(stp_batch_config *cfg);

/* Evaluate the n inputs.  Returns STP_OK when every input was handed over
 * (whatever the rows' own statuses: see the summary), STP_EINTERRUPTED when
 * options.control.cancel stopped it, the sink's status when the sink failed, or
 * an internal failure (threads, memory).  summary may be NULL.  At most
 * 64 inputs per worker are held ahead of the first unfinished one, so memory
 * stays bounded whatever the number of inputs. */
STP_API stp_status stp_batch_run(const stp_batch_input *in, size_t n, const stp_batch_config *cfg,
                         stp_batch_summary *summary, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_BATCH_H */
