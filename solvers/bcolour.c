/* bcolour.c: Konig's constructive proof.  Colour edge (a, b): take a colour
 * x free at a and y free at b; if x is not free at b, swap x and y along the
 * path from b that alternates x, y, x, ... (in a bipartite graph it never
 * reaches a), which frees x at b. */
#include "solvers/bcolour.h"

#include "base/core.h"

#include <stdlib.h>

#define NONE SIZE_MAX

typedef struct tables {
  size_t nc;
  size_t *at; /* (nl + nr) x nc: the edge of colour c at vertex x, or NONE */
} tables;

static size_t free_colour(const tables *t, size_t x) {
  for (size_t c = 0; c < t->nc; c++)
    if (t->at[x * t->nc + c] == NONE)
      return c;
  return NONE;
}

stp_status stp__bcolour_edges(size_t nl, size_t nr, size_t ne, const uint32_t *u,
                              const uint32_t *v, size_t ncolours, uint32_t *colour,
                              stp_error *err) {
  size_t *deg = stp__calloc(nl + nr + 1, sizeof *deg);
  if (!deg)
    return stp__oom(err, "edge colouring");
  for (size_t k = 0; k < ne; k++) {
    if (u[k] >= nl || v[k] >= nr) {
      free(deg);
      return stp__fail(err, STP_EINVAL, "edge colouring: edge %zu joins %u and %u, outside "
                       "%zu x %zu", k, u[k], v[k], nl, nr);
    }
    if (++deg[u[k]] > ncolours || ++deg[nl + v[k]] > ncolours) {
      free(deg);
      return stp__fail(err, STP_EINVAL, "edge colouring: a vertex of edge %zu has more than "
                       "%zu edges", k, ncolours);
    }
  }
  free(deg);
  tables t = {ncolours, stp__malloc_array((nl + nr) * (ncolours ? ncolours : 1), sizeof(size_t))};
  size_t *path = stp__malloc_array(ne + 1, sizeof *path);
  if (!t.at || !path) {
    free(t.at);
    free(path);
    return stp__oom(err, "edge colouring");
  }
  for (size_t i = 0; i < (nl + nr) * ncolours; i++)
    t.at[i] = NONE;
  for (size_t k = 0; k < ne; k++) {
    size_t a = u[k], b = nl + v[k];
    size_t x = free_colour(&t, a), y = free_colour(&t, b);
    if (t.at[b * ncolours + x] != NONE) {
      /* walk the x/y path from b, then swap its colours */
      size_t len = 0, at = b, c = x;
      for (size_t e = t.at[at * ncolours + c]; e != NONE; e = t.at[at * ncolours + c]) {
        path[len++] = e;
        at = at == u[e] ? nl + v[e] : u[e];
        c = c == x ? y : x;
      }
      for (size_t i = 0; i < len; i++) {
        size_t e = path[i];
        t.at[u[e] * ncolours + colour[e]] = NONE;
        t.at[(nl + v[e]) * ncolours + colour[e]] = NONE;
      }
      for (size_t i = 0; i < len; i++) {
        size_t e = path[i];
        colour[e] = (uint32_t)(colour[e] == x ? y : x);
        t.at[u[e] * ncolours + colour[e]] = e;
        t.at[(nl + v[e]) * ncolours + colour[e]] = e;
      }
    }
    colour[k] = (uint32_t)x;
    t.at[a * ncolours + x] = k;
    t.at[b * ncolours + x] = k;
  }
  free(t.at);
  free(path);
  return STP_OK;
}
