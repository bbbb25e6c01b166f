/* simulation.h: the parts of the simulation driver (simulation.c) that the
 * explaining runs (sim_explain.c: utilization, latency under a throttled
 * source) share with stp_simulate: the event graph of a data set with its
 * column laws, and the groups of rows that give a 95% interval.  Internal
 * to libstreamtp. */
#ifndef STP_PIPELINE_SIMULATION_H
#define STP_PIPELINE_SIMULATION_H

#include "engine/maxplus.h"
#include "engine/montecarlo.h"
#include "models/pipeline/mapping.h"

#include <stdbool.h>

/* ---- the event graph of a data set and its laws --------------------------------------- */
typedef struct stp_sim_setup {
  stp_mp_graph graph;      /* transitions: the 2N - 1 columns, then the source if any */
  size_t ncols;
  const stp_law **law;     /* per column: its law (associated: of the task size) */
  const stp_law *dflt;     /* the law of the columns the file does not set */
  bool associated;
  const stp_law *resource; /* associated case: resource factor law (NULL: det) */
  stp_law *exp_law;        /* owned default when neither options nor file give one */
} stp_sim_setup;

/* The graph of m under model for runs of at most rows_max rows; with
 * source_interval > 0, transition ncols releases a data set every
 * source_interval to column 0 (a deterministic source). */
stp_status stp__sim_setup_init(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                               uint64_t rows_max, double source_interval, stp_sim_setup *s,
                               stp_error *err);
void stp__sim_setup_clear(stp_sim_setup *s);

/* ---- groups: batches of one run, or replications ---------------------------------------- */
typedef struct stp_sim_counts {
  stp_mc_groups mc;
  uint64_t simulated, firings;
} stp_sim_counts;

/* The groups of o (EINVAL: fewer than 2, or fewer data sets than groups). */
stp_status stp__sim_counts_init(const stp_mapping *m, const stp_sim_options *o, size_t ncols,
                                stp_sim_counts *c, stp_error *err);

/* Mean of x[0..k) and the half-width of its 95% Student interval (k >= 2). */
double stp__sim_halfwidth(const double *x, size_t k, double *mean);

/* ---- the explaining runs (sim_explain.c) -------------------------------------------------- */
/* r->utilization (eval's items, from the bounds in r), and the groups of
 * the main run played with the busy time of every resource observed:
 * elapsed[g] as stp__mc_run_groups, *frac (malloc'ed, groups x the items,
 * group-major) the busy fraction of each item in each group. */
stp_status stp__sim_run_utilization(const stp_mapping *m, stp_model model,
                                    const stp_sim_setup *s, const stp_sim_counts *c,
                                    const stp_control *control, stp_sim_result *r,
                                    double *elapsed, double **frac, stp_error *err);

/* r->utilization's simulated members from frac (as above). */
void stp__sim_utilization_stats(stp_sim_result *r, const double *frac, uint32_t groups);

/* r->latency and r->sim_latency: the deterministic latency, and a run of
 * the groups of c with the source throttled to o->source_rate (0: 0.95 x
 * r->throughput).  EINVAL when the rate is not positive and below
 * r->throughput. */
stp_status stp__sim_latency(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                            const stp_sim_counts *c, stp_sim_result *r, stp_error *err);

#endif /* STP_PIPELINE_SIMULATION_H */
