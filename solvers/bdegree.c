/* bdegree.c: the interval-degree subgraph as a circulation.  Source s feeds
 * each left vertex x through an arc [lo, hi], each edge is an arc [0, 1],
 * each right vertex drains to sink t through [lo, hi], and t returns to s.
 * Lower bounds move into node excesses served from a super source and a
 * super sink (the textbook reduction); a maximum flow (Dinic) that
 * saturates the super source's arcs is a feasible circulation. */
#include "solvers/bdegree.h"

#include "base/core.h"

#include <stdlib.h>

typedef struct flow {
  size_t n, m, cap_m;
  size_t *head, *next, *first; /* arc lists */
  uint32_t *to;
  int64_t *cap;
  int64_t *level;
  size_t *iter, *queue;
} flow;

static size_t add_arc(flow *f, size_t a, size_t b, int64_t cap) {
  size_t e = f->m;
  f->to[e] = (uint32_t)b;
  f->cap[e] = cap;
  f->next[e] = f->first[a];
  f->first[a] = e;
  f->to[e + 1] = (uint32_t)a;
  f->cap[e + 1] = 0;
  f->next[e + 1] = f->first[b];
  f->first[b] = e + 1;
  f->m += 2;
  return e;
}

static bool bfs(flow *f, size_t s, size_t t) {
  for (size_t x = 0; x < f->n; x++)
    f->level[x] = -1;
  size_t qh = 0, qt = 0;
  f->level[s] = 0;
  f->queue[qt++] = s;
  while (qh < qt) {
    size_t x = f->queue[qh++];
    for (size_t e = f->first[x]; e != SIZE_MAX; e = f->next[e])
      if (f->cap[e] > 0 && f->level[f->to[e]] < 0) {
        f->level[f->to[e]] = f->level[x] + 1;
        f->queue[qt++] = f->to[e];
      }
  }
  return f->level[t] >= 0;
}

/* Blocking-flow step: one augmenting path by depth-first search along the
 * level graph (iterative, so deep graphs cannot overflow the stack). */
static int64_t augment(flow *f, size_t s, size_t t) {
  size_t *stack = f->queue; /* arcs on the current path */
  size_t depth = 0, x = s;
  for (;;) {
    if (x == t) {
      int64_t push = INT64_MAX;
      for (size_t i = 0; i < depth; i++)
        push = f->cap[stack[i]] < push ? f->cap[stack[i]] : push;
      for (size_t i = 0; i < depth; i++) {
        f->cap[stack[i]] -= push;
        f->cap[stack[i] ^ 1] += push;
      }
      return push;
    }
    size_t e = f->iter[x];
    while (e != SIZE_MAX && !(f->cap[e] > 0 && f->level[f->to[e]] == f->level[x] + 1))
      e = f->next[e];
    f->iter[x] = e;
    if (e != SIZE_MAX) {
      stack[depth++] = e;
      x = f->to[e];
      continue;
    }
    if (depth == 0)
      return 0;
    f->level[x] = -1; /* dead end: never visit again in this phase */
    x = f->to[stack[--depth] ^ 1];
    f->iter[x] = f->next[f->iter[x]];
  }
}

static int64_t max_flow(flow *f, size_t s, size_t t) {
  int64_t total = 0;
  while (bfs(f, s, t)) {
    for (size_t x = 0; x < f->n; x++)
      f->iter[x] = f->first[x];
    int64_t p;
    while ((p = augment(f, s, t)) > 0)
      total += p;
  }
  return total;
}

static void flow_free(flow *f) {
  free(f->next);
  free(f->first);
  free(f->to);
  free(f->cap);
  free(f->level);
  free(f->iter);
  free(f->queue);
}

stp_status stp__bdegree_feasible(size_t nl, size_t nr, size_t ne, const uint32_t *u,
                                 const uint32_t *v, const int64_t *lo, const int64_t *hi,
                                 bool *feasible, unsigned char *chosen, stp_error *err) {
  *feasible = false;
  for (size_t x = 0; x < nl + nr; x++)
    if (lo[x] > hi[x] || hi[x] < 0)
      return STP_OK;
  /* nodes: left 0..nl-1, right nl.., s, t, S', T' */
  flow f = {0};
  f.n = nl + nr + 4;
  size_t s = nl + nr, t = s + 1, S = s + 2, T = s + 3;
  f.cap_m = 2 * (ne + 2 * (nl + nr) + 1 + f.n);
  f.next = stp__malloc_array(f.cap_m, sizeof *f.next);
  f.to = stp__malloc_array(f.cap_m, sizeof *f.to);
  f.cap = stp__malloc_array(f.cap_m, sizeof *f.cap);
  f.first = stp__malloc_array(f.n, sizeof *f.first);
  f.level = stp__malloc_array(f.n, sizeof *f.level);
  f.iter = stp__malloc_array(f.n, sizeof *f.iter);
  f.queue = stp__malloc_array(f.n + f.cap_m, sizeof *f.queue);
  int64_t *excess = stp__calloc(f.n, sizeof *excess);
  if (!f.next || !f.to || !f.cap || !f.first || !f.level || !f.iter || !f.queue || !excess) {
    flow_free(&f);
    free(excess);
    return stp__oom(err, "degree-bounded subgraph");
  }
  for (size_t x = 0; x < f.n; x++)
    f.first[x] = SIZE_MAX;
  for (size_t k = 0; k < ne; k++)
    add_arc(&f, u[k], nl + v[k], 1); /* arc 2k is edge k */
  int64_t big = (int64_t)ne + 1;
  for (size_t x = 0; x < nl + nr; x++) {
    int64_t l = lo[x] > 0 ? lo[x] : 0, h = hi[x] < big ? hi[x] : big;
    if (x < nl) {
      add_arc(&f, s, x, h - l);
      excess[x] += l;
      excess[s] -= l;
    } else {
      add_arc(&f, x, t, h - l);
      excess[t] += l;
      excess[x] -= l;
    }
  }
  add_arc(&f, t, s, big * (int64_t)(nl + nr + 1));
  int64_t need = 0;
  for (size_t x = 0; x < nl + nr + 2; x++) {
    if (excess[x] > 0) {
      add_arc(&f, S, x, excess[x]);
      need += excess[x];
    } else if (excess[x] < 0) {
      add_arc(&f, x, T, -excess[x]);
    }
  }
  *feasible = max_flow(&f, S, T) == need;
  if (*feasible && chosen)
    for (size_t k = 0; k < ne; k++)
      chosen[k] = f.cap[2 * k] == 0;
  flow_free(&f);
  free(excess);
  return STP_OK;
}
