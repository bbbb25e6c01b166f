/* montecarlo.h: Monte Carlo estimation over the (max,+) kernel of
 * engine/maxplus.h: a run, or several independent ones, cut into groups of
 * rows after a warm-up (batch means over one run, or one group per
 * replication), and the sample statistics of the groups.
 *
 * Streams: batch means draw from stream 0 of the seed; replication g
 * (g = 0, 1, ...) draws from stream g, i.e. xoshiro256** seeded with four
 * splitmix64 outputs started at seed + g * 0xD1B54A32D192ED03 (base/rng.c).
 * So a seed gives the same numbers on every machine, and replications are
 * independent streams. */
#ifndef STP_MONTECARLO_H
#define STP_MONTECARLO_H

#include "engine/maxplus.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct stp_mc_groups {
  uint32_t groups;     /* >= 1 */
  bool replicated;     /* true: one run per group; false: one run cut in groups */
  uint64_t warmup;     /* rows discarded at the start of each run */
  uint64_t per_group;  /* rows measured per group */
  uint64_t seed;
} stp_mc_groups;

/* Rows one run of these groups fires: the rows_max of stp__mp_graph_compile. */
uint64_t stp__mc_rows_per_run(const stp_mc_groups *p);

/* elapsed[g] = time the rows of group g took (maxplus.h, stp__mp_run_advance).
 * Checks control's cancel between blocks of rows and reports the groups
 * done through its progress (control may be NULL). */
stp_status stp__mc_run_groups(const stp_mp_graph *g, const stp_mc_groups *p,
                              const stp_control *control, double *elapsed, stp_error *err);

/* stp__mc_run_groups observing the measured rows (not the warm-up) with
 * obs (maxplus.h), and calling group_done(ctx, g, elapsed[g]) after each
 * group g: where the caller reads and resets what obs gathered. */
typedef void (*stp_mc_group_done)(void *ctx, uint32_t group, double elapsed);
stp_status stp__mc_run_groups_observed(const stp_mp_graph *g, const stp_mc_groups *p,
                                       const stp_control *control, double *elapsed,
                                       stp_mp_observer *obs, stp_mc_group_done group_done,
                                       void *ctx, stp_error *err);

double stp__mc_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator), n >= 2; 0 when n = 1. */
double stp__mc_stddev(const double *x, size_t n);

#endif /* STP_MONTECARLO_H */
