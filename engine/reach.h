/* reach.h: the exponential throughput of a timed event graph from the
 * Markov chains of its reachable markings (docs/design.md, "Beyond
 * pipelines").  Each strongly connected component is solved on its own
 * (its internal places only: the places between components are unbounded
 * and never enter a chain) and the graph runs as fast as its slowest
 * component.  Transitions are single servers: enabled when every input
 * place of the component holds a token, firing at rate 1 / time. */
#ifndef STP_ENGINE_REACH_H
#define STP_ENGINE_REACH_H

#include "engine/graph.h"

typedef struct stp_reach_stats {
  uint64_t states;     /* markings of the largest component's chain */
  uint32_t components; /* strongly connected components */
  double residual;     /* worst scaled residual of the stationary solves */
  const char *solver;  /* stationary solver of the largest chain */
} stp_reach_stats;

/* Throughput (counted as in stp_graph_result) of the TEG g (checked: every
 * cycle marked, times > 0).  STP_ELIMIT with a reason when a component's
 * chain exceeds max_states markings. */
stp_status stp__reach_throughput(const stp_graph *g, uint64_t max_states, const stp_control *control,
                                 double *throughput, stp_reach_stats *stats, stp_error *err);

#endif /* STP_ENGINE_REACH_H */
