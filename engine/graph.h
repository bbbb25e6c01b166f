/* graph.h: the inside of the generic event graph (include/streamtp_graph.h)
 * for the analyses of engine/: the arrays the builder fills, and the views
 * the analyses and the solvers need (a CSR digraph, names of a cycle).
 * Domain code builds graphs through the public builder only; engine code
 * may read these fields directly. */
#ifndef STP_ENGINE_GRAPH_H
#define STP_ENGINE_GRAPH_H

#include "base/hash.h"
#include "streamtp_graph.h"
#include "solvers/digraph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stp_graph {
  char *name;
  /* transitions, in order of addition */
  size_t nt, cap_t;
  char **tname;
  double *time;
  stp_law **law;   /* NULL: none */
  uint8_t *output; /* 1: each firing completes a run (stp_graph_set_output) */
  size_t noutputs;
  /* resources (stp_graph_set_resource): distinct names, and by transition
   * the index + 1 of its own (0: none); res is allocated on the first use */
  uint32_t *res;
  char **rname;
  size_t nr, cap_r;
  stp_hmap rmap;   /* name -> index (base/hash.h); no table until the first */
  /* places, in order of addition (from, to < nt) */
  size_t np, cap_p;
  uint32_t *pfrom, *pto;
  uint64_t *ptok;
  size_t marked;   /* places holding a token: 0 = DAG mode */
  stp_hmap tmap;   /* name -> transition (base/hash.h) */
};

/* The graph as a CSR digraph for the solvers: one edge per place (weight =
 * time of its source transition, tokens = its tokens), plus, when
 * self_loops, the implicit one-token self-loop of every transition (a
 * transition is single-server).  Nodes = transitions. */
stp_status stp__graph_digraph(const stp_graph *g, bool self_loops, stp_digraph **out,
                              stp_error *err);

/* stp_graph_check in two halves, for the analyses that find a token-free
 * cycle on their own way (Howard does): the checks of sizes and times, and
 * the error naming a token-free cycle (cycle[0..len-1], in firing order). */
stp_status stp__graph_check_basic(const stp_graph *g, stp_error *err);
stp_status stp__graph_deadlock(const stp_graph *g, const uint32_t *cycle, size_t len,
                               stp_error *err);

/* "a -> b -> c" for the transitions ts[0..n-1] into buf (at most max bytes,
 * " ..." when cut). */
void stp__graph_names(const stp_graph *g, const uint32_t *ts, size_t n, char *buf, size_t max);

/* The places of every transition in CSR form: by_target = false lists the
 * places leaving t (place[off[t]] .. place[off[t+1]-1]), true those
 * entering it, in order of addition.  Both arrays allocated. */
stp_status stp__graph_adjacency(const stp_graph *g, bool by_target, size_t **off, uint32_t **place,
                                stp_error *err);

/* A topological order of all transitions over the token-free places (Kahn,
 * sources in index order), allocated into *order.  STP_EDEADLOCK when a
 * token-free cycle exists (stp_graph_check names it). */
stp_status stp__graph_topo_order(const stp_graph *g, uint32_t **order, stp_error *err);

#endif /* STP_ENGINE_GRAPH_H */
