/* dag.c: a reduction schedule as an activity DAG of the generic graph
 * (stp_reduce_graph in streamtp_reduce.h): 2(n - 1) activities, the
 * transfers X<v> and the reductions C<u>.<k>, and the precedences of the
 * fixed reception orders.  Its longest path is the schedule's makespan; the
 * analyses of streamtp_graph.h give the rest.  Written against the public
 * accessors only, so that the trees build without the graph engine. */
#include "streamtp_reduce.h"

#include "base/core.h"

#include <stdio.h>
#include <stdlib.h>

/* Transition indices: X<v> at v - 2; C<u>.<k+1> at (n - 1) + first[u] + k,
 * first[] the prefix sums of the reception counts. */
typedef struct layout {
  uint64_t n;
  uint64_t *first; /* n + 2 entries */
  uint64_t *rank;  /* rank[v]: v's place in the order of its child */
} layout;

static size_t x_index(uint64_t v) { return (size_t)(v - 2); }

static size_t c_index(const layout *l, uint64_t u, uint64_t k) {
  return (size_t)(l->n - 1 + l->first[u] + k);
}

static stp_status make_layout(const stp_reduce *r, layout *l, stp_error *err) {
  l->n = stp_reduce_get_spec(r)->n;
  l->first = stp__calloc((size_t)l->n + 2, sizeof *l->first);
  l->rank = stp__calloc((size_t)l->n + 2, sizeof *l->rank);
  if (!l->first || !l->rank) {
    free(l->first);
    free(l->rank);
    return stp__oom(err, "reduction DAG");
  }
  for (uint64_t u = 1; u <= l->n; u++) {
    uint64_t m = stp_reduce_reception_count(r, u);
    l->first[u + 1] = l->first[u] + m;
    for (uint64_t k = 0; k < m; k++)
      l->rank[stp_reduce_reception(r, u, k)] = k;
  }
  return STP_OK;
}

static stp_status add_transitions(const stp_reduce *r, const layout *l, stp_graph *g,
                                  stp_error *err) {
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  char name[64], machine[64]; /* the resource: a Gantt chart's row */
  for (uint64_t v = 2; v <= l->n; v++) {
    size_t t;
    snprintf(name, sizeof name, "X%llu", (unsigned long long)v);
    STP_CHECK(stp_graph_add_transition(g, name, s->d, NULL, &t, err));
    snprintf(machine, sizeof machine, "machine %llu", (unsigned long long)v);
    STP_CHECK(stp_graph_set_resource(g, t, machine, err));
  }
  for (uint64_t u = 1; u <= l->n; u++)
    for (uint64_t k = 0; k < l->first[u + 1] - l->first[u]; k++) {
      size_t t;
      snprintf(name, sizeof name, "C%llu.%llu", (unsigned long long)u,
               (unsigned long long)(k + 1));
      STP_CHECK(stp_graph_add_transition(g, name, s->c, NULL, &t, err));
      snprintf(machine, sizeof machine, "machine %llu", (unsigned long long)u);
      STP_CHECK(stp_graph_set_resource(g, t, machine, err));
    }
  return STP_OK;
}

static stp_status add_places(const stp_reduce *r, const layout *l, stp_graph *g,
                             stp_error *err) {
  for (uint64_t v = 2; v <= l->n; v++) {
    uint64_t u = stp_reduce_child(r, v), k = l->rank[v];
    uint64_t m = l->first[v + 1] - l->first[v];
    STP_CHECK(stp_graph_add_place(g, x_index(v), c_index(l, u, k), 0, err));
    if (k > 0) /* u receives one transfer at a time, in its order */
      STP_CHECK(stp_graph_add_place(g, x_index(stp_reduce_reception(r, u, k - 1)), x_index(v),
                                    0, err));
    if (m > 0) /* v sends once its last reduction is done */
      STP_CHECK(stp_graph_add_place(g, c_index(l, v, m - 1), x_index(v), 0, err));
  }
  for (uint64_t u = 1; u <= l->n; u++)
    for (uint64_t k = 1; k < l->first[u + 1] - l->first[u]; k++)
      STP_CHECK(stp_graph_add_place(g, c_index(l, u, k - 1), c_index(l, u, k), 0, err));
  return STP_OK;
}

stp_status stp_reduce_graph(const stp_reduce *r, stp_graph **out, stp_error *err) {
  *out = NULL;
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  if (s->algorithm == STP_REDUCE_ALG2)
    return stp__fail(err, STP_EINVAL,
                     "transfer limit: Algorithm 2 bounds the number of concurrent transfers, "
                     "which no fixed order of the activities expresses");
  if (s->n < 2)
    return stp__fail(err, STP_EINVAL, "n = 1: nothing to reduce, the DAG has no activity");
  /* 2(n - 1) activities, at most 3 places each */
  uint64_t budget = stp_control_memory_budget(&s->control);
  double bytes = stp_graph_memory_estimate(2 * (s->n - 1), 3 * (s->n - 1), 0);
  if (bytes > (double)budget)
    return stp__fail_limit(err,
                           (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget,
                                       stp__u64_sat(bytes)},
                           "n = %llu: the schedule's DAG needs about %.3g GiB, above the memory "
                           "budget of %.3g GiB",
                           (unsigned long long)s->n, bytes / 1073741824.0,
                           (double)budget / 1073741824.0);
  char name[96];
  snprintf(name, sizeof name, "reduce-%s-%s-n%llu", stp_reduce_tree_name(s->tree),
           stp_reduce_algorithm_name(s->algorithm), (unsigned long long)s->n);
  layout l;
  STP_CHECK(make_layout(r, &l, err));
  stp_graph *g = NULL;
  stp_status st = stp_graph_new(name, &g, err);
  if (st == STP_OK)
    st = add_transitions(r, &l, g, err);
  if (st == STP_OK)
    st = add_places(r, &l, g, err);
  free(l.first);
  free(l.rank);
  if (st != STP_OK) {
    stp_graph_free(g);
    return st;
  }
  *out = g;
  return STP_OK;
}
