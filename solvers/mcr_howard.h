/* mcr.h: maximum cycle ratio, max over cycles C of w(C) / tok(C), by
 * Howard's policy iteration (Cochet-Terrasson, Cohen, Gaubert, McGettrick,
 * Quadrat 1998).  In an event graph it is the cycle time: every transition
 * fires once per lambda* time units in the long run. */
#ifndef STP_MCR_H
#define STP_MCR_H

#include "solvers/digraph.h"

#include <stdbool.h>

typedef struct stp_mcr_result {
  bool has_cycle;    /* false for an acyclic graph (ratio = -inf) */
  double ratio;      /* lambda*, computed from the critical cycle itself */
  uint32_t *cycle;   /* nodes of one critical cycle, in order */
  size_t cycle_len;
  uint64_t cycle_tokens;
  size_t iterations; /* policy evaluations */
} stp_mcr_result;

/* How the improvement step sweeps the edges: both ways give the same
 * result to the last bit, only the time differs (mcr_howard.c,
 * sweep_blocks()).  AUTO chooses; the others are for tests and
 * benchmarks. */
typedef enum stp_mcr_sweep {
  STP_MCR_SWEEP_AUTO = 0,
  STP_MCR_SWEEP_EDGES,  /* one edge at a time */
  STP_MCR_SWEEP_BLOCKS, /* by blocks, on every graph and in every iteration */
} stp_mcr_sweep;

typedef struct stp_mcr_options {
  size_t max_iterations;     /* 0: default (1000 + 10 * nodes, capped) */
  stp_cancel cancel;         /* checked once per iteration */
  stp_progress progress;     /* told the iterations so far, once per iteration */
  stp_mcr_sweep sweep;
} stp_mcr_options;

/* Maximum cycle ratio of g.  Every cycle must hold a token: a cycle of
 * token-free edges is reported as STP_EDEADLOCK, with that cycle in
 * res->cycle (so the caller can name it).  opts may be NULL.
 * Time: O(iterations * (n + m)); memory O(n + m). */
stp_status stp__mcr_howard(const stp_digraph *g, const stp_mcr_options *opts, stp_mcr_result *res,
                           stp_error *err);
void stp__mcr_result_clear(stp_mcr_result *res);

#endif /* STP_MCR_H */
