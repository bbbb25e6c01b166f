/* partition.c: Lowekamp's greedy partition of machines into subnets
 * (Steffenel 2006, Algorithm 1, with factor 1 + rho), by Kruskal-like
 * merging of the edges in increasing weight with a union-find. */
#include "base/core.h"
#include "streamtp_bcast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct edge {
  double w;
  size_t a, b;
} edge;

static int edge_cmp(const void *x, const void *y) {
  const edge *e = x, *f = y;
  if (e->w != f->w)
    return e->w < f->w ? -1 : 1;
  if (e->a != f->a)
    return e->a < f->a ? -1 : 1;
  return (e->b > f->b) - (e->b < f->b);
}

typedef struct uf {
  size_t *parent, *size;
  double *submin; /* smallest merged edge of the subnet (valid at roots of size > 1) */
} uf;

static size_t find(uf *u, size_t x) {
  while (u->parent[x] != x) {
    u->parent[x] = u->parent[u->parent[x]]; /* path halving */
    x = u->parent[x];
  }
  return x;
}

/* Algorithm 1: the edge joins two subnets unless it is more than 1 + rho
 * times an end's smallest edge, or than a (non-singleton) subnet's
 * smallest merged edge. */
static void merge_edges(const edge *e, size_t m, const double *minedge, double f, uf *u) {
  for (size_t k = 0; k < m; k++) {
    size_t ra = find(u, e[k].a), rb = find(u, e[k].b);
    double w = e[k].w;
    if (ra == rb || w > f * minedge[e[k].a] || w > f * minedge[e[k].b])
      continue;
    if ((u->size[ra] > 1 && w > f * u->submin[ra]) || (u->size[rb] > 1 && w > f * u->submin[rb]))
      continue;
    if (u->size[ra] < u->size[rb]) {
      size_t t = ra;
      ra = rb;
      rb = t;
    }
    u->parent[rb] = ra;
    u->size[ra] += u->size[rb];
    u->submin[ra] = fmin(w, fmin(u->submin[ra], u->submin[rb]));
  }
}

typedef struct group {
  size_t size, first, root;
} group;

static int group_cmp(const void *x, const void *y) {
  const group *g = x, *h = y;
  if (g->size != h->size)
    return g->size > h->size ? -1 : 1;
  return (g->first > h->first) - (g->first < h->first);
}

/* Clusters by nonincreasing size, ties by smallest machine; machines ascending. */
static stp_status collect(uf *u, size_t n, stp_bcast_partition *out, stp_error *err) {
  group *gr = stp__malloc_array(n, sizeof *gr);
  size_t *slot = stp__malloc_array(n, sizeof *slot), ng = 0;
  out->nodes = stp__malloc_array(n, sizeof *out->nodes);
  if (!gr || !slot || !out->nodes) {
    free(gr);
    free(slot);
    return stp__oom(err, "collecting clusters");
  }
  for (size_t x = 0; x < n; x++)
    slot[x] = SIZE_MAX;
  for (size_t x = 0; x < n; x++) { /* x ascending: a cluster's first is its smallest */
    size_t r = find(u, x);
    if (slot[r] == SIZE_MAX) {
      slot[r] = ng;
      gr[ng++] = (group){.size = u->size[r], .first = x, .root = r};
    }
  }
  qsort(gr, ng, sizeof *gr, group_cmp);
  out->nclusters = ng;
  out->sizes = stp__malloc_array(ng, sizeof *out->sizes);
  out->offsets = stp__malloc_array(ng + 1, sizeof *out->offsets);
  if (!out->sizes || !out->offsets) {
    free(gr);
    free(slot);
    return stp__oom(err, "collecting clusters");
  }
  size_t at = 0;
  for (size_t c = 0; c < ng; c++) {
    slot[gr[c].root] = c;
    out->sizes[c] = gr[c].size;
    out->offsets[c] = at;
    at += gr[c].size;
  }
  out->offsets[ng] = n;
  free(gr);
  size_t *fill = stp__malloc_array(ng, sizeof *fill); /* next free place of each cluster */
  if (!fill) {
    free(slot);
    return stp__oom(err, "collecting clusters");
  }
  for (size_t c = 0; c < ng; c++)
    fill[c] = out->offsets[c];
  for (size_t x = 0; x < n; x++)
    out->nodes[fill[slot[find(u, x)]]++] = x;
  free(fill);
  free(slot);
  return STP_OK;
}

void stp_bcast_partition_free(stp_bcast_partition *p) {
  if (!p)
    return;
  free(p->sizes);
  free(p->offsets);
  free(p->nodes);
  memset(p, 0, sizeof *p);
}

stp_status stp_bcast_partition_compute(const double *w, size_t n, double rho,
                                       stp_bcast_partition *out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_bcast_partition_compute: out is NULL");
  memset(out, 0, sizeof *out);
  if (!w || n == 0 || n > STP_BCAST_MAX_MACHINES)
    return stp__fail(err, STP_EINVAL, "Lowekamp's partition needs 1 to %d machines",
                     STP_BCAST_MAX_MACHINES);
  if (!isfinite(rho) || rho < 0)
    return stp__fail(err, STP_EINVAL, "rho must be a finite number >= 0, got %g", rho);
  out->n = n;
  size_t m = n * (n - 1) / 2;
  edge *e = stp__malloc_array(m ? m : 1, sizeof *e);
  double *minedge = stp__malloc_array(n, sizeof *minedge);
  uf u = {stp__malloc_array(n, sizeof(size_t)), stp__malloc_array(n, sizeof(size_t)),
          stp__malloc_array(n, sizeof(double))};
  stp_status s = STP_OK;
  if (!e || !minedge || !u.parent || !u.size || !u.submin) {
    s = stp__oom(err, "partitioning machines");
  } else {
    size_t k = 0;
    for (size_t a = 0; a < n; a++) {
      minedge[a] = INFINITY;
      u.parent[a] = a;
      u.size[a] = 1;
      u.submin[a] = INFINITY;
      for (size_t b = 0; b < n; b++)
        if (b != a)
          minedge[a] = fmin(minedge[a], w[a * n + b]);
      for (size_t b = a + 1; b < n; b++)
        e[k++] = (edge){.w = w[a * n + b], .a = a, .b = b};
    }
    qsort(e, m, sizeof *e, edge_cmp);
    merge_edges(e, m, minedge, 1 + rho, &u);
    s = collect(&u, n, out, err);
  }
  free(e);
  free(minedge);
  free(u.parent);
  free(u.size);
  free(u.submin);
  if (s != STP_OK)
    stp_bcast_partition_free(out);
  return s;
}
