/* digraph.c: edge lists compressed into CSR by a counting sort (stable, O(n+m)). */
#include "solvers/digraph.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

stp_status stp__edges_reserve(stp_edge_list *el, uint64_t cap, stp_error *err) {
  if (cap <= el->cap)
    return STP_OK;
  if (cap > SIZE_MAX / sizeof(double))
    return stp__fail(err, STP_ELIMIT, "an edge list of %llu edges is too large",
                     (unsigned long long)cap);
  void *const arrays[] = {&el->src, &el->dst, &el->tok, &el->w};
  const size_t sizes[] = {sizeof *el->src, sizeof *el->dst, sizeof *el->tok, sizeof *el->w};
  if (!stp__grow_arrays(cap, 4, arrays, sizes))
    return stp__oom(err, "building an edge list");
  el->cap = cap;
  return STP_OK;
}

void stp__edges_free(stp_edge_list *el) {
  if (!el)
    return;
  free(el->src);
  free(el->dst);
  free(el->tok);
  free(el->w);
  memset(el, 0, sizeof *el);
}

void stp__digraph_free(stp_digraph *g) {
  if (!g)
    return;
  free(g->off);
  free(g->src);
  free(g->dst);
  free(g->w);
  free(g->tok);
  free(g);
}

static stp_status graph_alloc(uint32_t n, uint64_t m, stp_digraph **out, stp_error *err) {
  *out = NULL;
  stp_digraph *g = calloc(1, sizeof *g);
  if (!g)
    return stp__oom(err, "allocating a graph");
  g->n = n;
  g->m = m;
  g->off = stp__calloc((size_t)n + 1, sizeof *g->off);
  g->src = stp__malloc_array(m, sizeof *g->src);
  g->dst = stp__malloc_array(m, sizeof *g->dst);
  g->w = stp__malloc_array(m, sizeof *g->w);
  g->tok = stp__malloc_array(m, sizeof *g->tok);
  if (!g->off || !g->src || !g->dst || !g->w || !g->tok) {
    stp__digraph_free(g);
    return stp__oom(err, "allocating a graph");
  }
  *out = g;
  return STP_OK;
}

/* Scatter edges (by key[e]) into g, whose offsets are not yet computed. */
static void scatter(stp_digraph *g, const uint32_t *key, const uint32_t *other, const uint32_t *tok,
                    const double *w, uint64_t m) {
  for (uint64_t e = 0; e < m; e++)
    g->off[key[e] + 1]++;
  for (uint32_t u = 0; u < g->n; u++)
    g->off[u + 1] += g->off[u];
  uint64_t *next = g->off; /* reuse as a cursor, then shift back */
  for (uint64_t e = 0; e < m; e++) {
    uint64_t at = next[key[e]]++;
    g->src[at] = key[e];
    g->dst[at] = other[e];
    g->w[at] = w[e];
    g->tok[at] = tok[e];
  }
  for (uint32_t u = g->n; u > 0; u--)
    g->off[u] = g->off[u - 1];
  g->off[0] = 0;
}

stp_status stp__digraph_from_edges(uint32_t n, stp_edge_list *el, stp_digraph **out, stp_error *err) {
  *out = NULL;
  stp_digraph *g;
  stp_status s = graph_alloc(n, el->m, &g, err);
  if (s == STP_OK) {
    scatter(g, el->src, el->dst, el->tok, el->w, el->m);
    *out = g;
  }
  stp__edges_free(el);
  return s;
}

stp_status stp__digraph_transpose(const stp_digraph *g, stp_digraph **out, stp_error *err) {
  stp_digraph *t;
  STP_CHECK(graph_alloc(g->n, g->m, &t, err));
  scatter(t, g->dst, g->src, g->tok, g->w, g->m);
  *out = t;
  return STP_OK;
}
