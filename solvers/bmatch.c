/* bmatch.c: maximum-weight bipartite matching as a min-cost flow from a
 * source through the left vertices, the edges and the right vertices to a
 * sink, augmented one unit at a time along shortest paths (successive
 * shortest paths).  Costs are the negated weights; potentials keep reduced
 * costs nonnegative so each search is a Dijkstra, stopped as soon as the
 * sink is settled (nodes not settled then move by the sink's distance, which
 * keeps every reduced cost nonnegative).  The cost of the k-th augmenting
 * path is nondecreasing in k (the min cost of a k-matching is convex), so
 * the first path that does not lower the cost ends the search with a
 * matching of maximum weight. */
#include "solvers/bmatch.h"

#include "base/core.h"

#include <stdbool.h>
#include <stdlib.h>

static inline stp_w2 w2_add(stp_w2 a, stp_w2 b) {
  return (stp_w2){a.major + b.major, a.minor + b.minor};
}
static inline stp_w2 w2_sub(stp_w2 a, stp_w2 b) {
  return (stp_w2){a.major - b.major, a.minor - b.minor};
}
static inline int w2_cmp(stp_w2 a, stp_w2 b) {
  if (a.major != b.major)
    return a.major < b.major ? -1 : 1;
  return a.minor < b.minor ? -1 : a.minor > b.minor;
}
static inline stp_w2 w2_min(stp_w2 a, stp_w2 b) {
  return w2_cmp(a, b) <= 0 ? a : b;
}

/* Residual network: arc 2k and its reverse 2k+1. */
typedef struct net {
  uint32_t n;
  size_t narcs;
  uint32_t *head;   /* narcs: arc -> its target */
  uint8_t *cap;     /* narcs: residual capacity (0 or 1) */
  stp_w2 *cost;     /* narcs */
  size_t *off;      /* n + 1: out-arcs of x are adj[off[x] .. off[x+1]-1] */
  size_t *adj;
} net;

typedef struct heap_item {
  stp_w2 key;
  uint32_t node;
} heap_item;

typedef struct heap {
  heap_item *a;
  size_t n;
} heap;

static void heap_push(heap *h, stp_w2 key, uint32_t node) {
  size_t i = h->n++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (w2_cmp(h->a[p].key, key) <= 0)
      break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = (heap_item){key, node};
}

static heap_item heap_pop(heap *h) {
  heap_item top = h->a[0], last = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && w2_cmp(h->a[c + 1].key, h->a[c].key) < 0)
      c++;
    if (w2_cmp(last.key, h->a[c].key) <= 0)
      break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n > 0)
    h->a[i] = last;
  return top;
}

static void net_free(net *g) {
  free(g->head);
  free(g->cap);
  free(g->cost);
  free(g->off);
  free(g->adj);
}

static void add_arc(net *g, size_t *fill, uint32_t from, uint32_t to, stp_w2 cost) {
  size_t a = g->narcs;
  g->head[a] = to;
  g->cap[a] = 1;
  g->cost[a] = cost;
  g->head[a + 1] = from;
  g->cap[a + 1] = 0;
  g->cost[a + 1] = (stp_w2){-cost.major, -cost.minor};
  g->adj[fill[from]++] = a;
  g->adj[fill[to]++] = a + 1;
  g->narcs += 2;
}

/* Nodes: source 0, left 1..nl, right nl+1..nl+nr, sink nl+nr+1. */
static stp_status net_build(net *g, size_t nl, size_t nr, size_t ne, const uint32_t *u,
                            const uint32_t *v, const stp_w2 *w, stp_error *err) {
  g->n = (uint32_t)(nl + nr + 2);
  size_t arcs = 2 * (ne + nl + nr);
  g->head = stp__malloc_array(arcs, sizeof *g->head);
  g->cap = stp__malloc_array(arcs, sizeof *g->cap);
  g->cost = stp__malloc_array(arcs, sizeof *g->cost);
  g->off = stp__calloc(g->n + 1, sizeof *g->off);
  g->adj = stp__malloc_array(arcs, sizeof *g->adj);
  size_t *fill = stp__calloc(g->n + 1, sizeof *fill);
  if (!g->head || !g->cap || !g->cost || !g->off || !g->adj || !fill) {
    free(fill);
    return stp__oom(err, "matching network");
  }
  uint32_t sink = g->n - 1;
  /* degree count, then prefix sums */
  g->off[1] += nl; /* source */
  for (size_t x = 0; x < nl; x++)
    g->off[1 + x + 1]++;
  for (size_t k = 0; k < ne; k++) {
    g->off[1 + u[k] + 1]++;
    g->off[1 + nl + v[k] + 1]++;
  }
  for (size_t y = 0; y < nr; y++) {
    g->off[1 + nl + y + 1]++;
    g->off[sink + 1]++;
  }
  for (uint32_t x = 0; x < g->n; x++)
    g->off[x + 1] += g->off[x];
  for (uint32_t x = 0; x < g->n; x++)
    fill[x] = g->off[x];
  g->narcs = 0;
  for (size_t k = 0; k < ne; k++) /* edges first: arc 2k is edge k */
    add_arc(g, fill, (uint32_t)(1 + u[k]), (uint32_t)(1 + nl + v[k]),
            (stp_w2){-w[k].major, -w[k].minor});
  for (size_t x = 0; x < nl; x++)
    add_arc(g, fill, 0, (uint32_t)(1 + x), (stp_w2){0, 0});
  for (size_t y = 0; y < nr; y++)
    add_arc(g, fill, (uint32_t)(1 + nl + y), sink, (stp_w2){0, 0});
  free(fill);
  return STP_OK;
}

/* One Dijkstra from the source on reduced costs, stopped when the sink is
 * settled.  Returns false when the sink is unreachable.  On success *gain is
 * the real cost of the path, parent[] holds it and pot[] is updated. */
static bool shortest_path(net *g, stp_w2 *pot, stp_w2 *dist, bool *done, bool *seen,
                          size_t *parent, heap *h, stp_w2 *path_cost) {
  uint32_t sink = g->n - 1;
  for (uint32_t x = 0; x < g->n; x++)
    done[x] = seen[x] = false;
  h->n = 0;
  dist[0] = (stp_w2){0, 0};
  seen[0] = true;
  heap_push(h, dist[0], 0);
  while (h->n > 0) {
    heap_item it = heap_pop(h);
    uint32_t x = it.node;
    if (done[x] || w2_cmp(it.key, dist[x]) != 0)
      continue;
    done[x] = true;
    if (x == sink)
      break;
    for (size_t i = g->off[x]; i < g->off[x + 1]; i++) {
      size_t a = g->adj[i];
      if (!g->cap[a])
        continue;
      uint32_t y = g->head[a];
      if (done[y])
        continue;
      stp_w2 d = w2_add(dist[x], w2_add(g->cost[a], w2_sub(pot[x], pot[y])));
      if (!seen[y] || w2_cmp(d, dist[y]) < 0) {
        seen[y] = true;
        dist[y] = d;
        parent[y] = a;
        heap_push(h, d, y);
      }
    }
  }
  if (!done[sink])
    return false;
  stp_w2 D = dist[sink];
  *path_cost = w2_add(D, w2_sub(pot[sink], pot[0]));
  for (uint32_t x = 0; x < g->n; x++)
    pot[x] = w2_add(pot[x], done[x] ? w2_min(dist[x], D) : D);
  return true;
}

stp_status stp__bmatch_max_weight(size_t nl, size_t nr, size_t ne, const uint32_t *u,
                                  const uint32_t *v, const stp_w2 *w, const stp_cancel *cancel,
                                  unsigned char *chosen, stp_w2 *total, stp_error *err) {
  for (size_t k = 0; k < ne; k++)
    if (u[k] >= nl || v[k] >= nr)
      return stp__fail(err, STP_EINVAL, "matching: edge %zu joins %u and %u, outside %zu x %zu",
                       k, u[k], v[k], nl, nr);
  if (nl + nr + 2 > UINT32_MAX)
    return stp__fail(err, STP_ELIMIT, "matching: %zu + %zu vertices is too many", nl, nr);
  net g = {0};
  stp_status s = net_build(&g, nl, nr, ne, u, v, w, err);
  stp_w2 *pot = stp__calloc(g.n, sizeof *pot);
  stp_w2 *dist = stp__calloc(g.n, sizeof *dist);
  bool *done = stp__calloc(g.n, sizeof *done);
  bool *seen = stp__calloc(g.n, sizeof *seen);
  size_t *parent = stp__calloc(g.n, sizeof *parent);
  heap h = {stp__malloc_array(g.narcs + g.n + 1, sizeof *h.a), 0};
  if (s == STP_OK && (!pot || !dist || !done || !seen || !parent || !h.a))
    s = stp__oom(err, "matching work space");
  if (s == STP_OK) {
    /* Initial potentials make every reduced cost nonnegative: the network
     * is acyclic with capacity only on forward arcs. */
    uint32_t sink = g.n - 1;
    stp_w2 tmin = {0, 0};
    for (size_t y = 0; y < nr; y++) {
      stp_w2 m = {0, 0};
      for (size_t i = g.off[1 + nl + y]; i < g.off[1 + nl + y + 1]; i++) {
        size_t a = g.adj[i];
        if (a % 2 == 1 && a / 2 < ne) /* reverse of an edge arc: an edge into y */
          m = w2_min(m, g.cost[a - 1]);
      }
      pot[1 + nl + y] = m;
      tmin = w2_min(tmin, m);
    }
    pot[sink] = tmin;
    stp_w2 gain;
    while (shortest_path(&g, pot, dist, done, seen, parent, &h, &gain) &&
           w2_cmp(gain, (stp_w2){0, 0}) < 0) {
      if (stp__cancelled(cancel)) {
        s = stp__fail(err, STP_EINTERRUPTED, "interrupted while matching");
        break;
      }
      for (uint32_t x = sink; x != 0;) {
        size_t a = parent[x];
        g.cap[a] = 0;
        g.cap[a ^ 1] = 1;
        x = g.head[a ^ 1];
      }
    }
    stp_w2 sum = {0, 0};
    for (size_t k = 0; s == STP_OK && k < ne; k++) {
      chosen[k] = g.cap[2 * k] == 0;
      if (chosen[k])
        sum = w2_add(sum, w[k]);
    }
    if (total && s == STP_OK)
      *total = sum;
  }
  free(pot);
  free(dist);
  free(done);
  free(seen);
  free(parent);
  free(h.a);
  net_free(&g);
  return s;
}
