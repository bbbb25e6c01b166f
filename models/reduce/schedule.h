/* schedule.h: the static schedule of a reduction tree (RR-7898, section 4.2,
 * with the erratum of Proposition 2): the order in which every machine
 * receives, the earliest start of every transfer, and the makespan.  Machine
 * u receives from its senders in increasing order of the time at which each
 * sender is ready (the end of its last reduction; ties: larger index
 * first), one transfer at a time; its k-th reduction follows the k-th
 * reception and the (k-1)-th reduction.  The schedule is the longest-path
 * evaluation of the activity DAG that reduce.c compiles. */
#ifndef STP_REDUCE_SCHEDULE_H
#define STP_REDUCE_SCHEDULE_H

#include "models/reduce/rtime.h"
#include "streamtp_base.h"

#include <stdint.h>

typedef struct stp__schedule {
  uint64_t n;
  uint64_t *first;    /* receptions of u: recv[first[u] .. first[u + 1] - 1] */
  uint64_t *recv;     /* senders, in reception order (n - 1 entries) */
  uint64_t *pos;      /* pos[v]: v's rank (from 0) in the order of child[v] */
  stp__rtime *ready;  /* ready[u]: end of u's last reduction (0 when none) */
  stp__rtime *start;  /* start[v]: earliest start of the transfer of v, v >= 2 */
  stp__rtime makespan;
} stp__schedule;

/* The reception order of every machine with the given ready-time keys
 * (key[v] for v = 2..n; the ties rule above), without the evaluation.
 * Needs child[v] < v for every v >= 2 (true of all the paper's trees). */
stp_status stp__schedule_orders(uint64_t n, const uint64_t *child, const stp__rtime *key,
                                stp__schedule *out, stp_error *err);

/* Orders and evaluation: ready times computed from the leaves to the sink
 * (machine u's senders all have larger indices), then transfer starts and
 * the makespan ready[1]. */
stp_status stp__schedule_eval(uint64_t n, const uint64_t *child, stp__rcost k,
                              stp__schedule *out, stp_error *err);
void stp__schedule_free(stp__schedule *s);

#endif /* STP_REDUCE_SCHEDULE_H */
