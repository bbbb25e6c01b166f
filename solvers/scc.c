/* scc.c: the cycle structure of a directed graph (scc.h): Tarjan's
 * strongly connected components, iterative so that no recursion depth
 * limits the graph, and the search for a cycle of token-free edges. */
#include "solvers/scc.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

/* ---- token-free cycle (deadlock) detection: iterative DFS ---------------- */
bool stp__find_token_free_cycle(const stp_digraph *g, uint32_t **cycle, size_t *len) {
  *cycle = NULL;
  *len = 0;
  uint8_t *color = calloc((size_t)g->n + 1, 1); /* 0 new, 1 on stack, 2 done */
  uint32_t *stack = stp__malloc_array((size_t)g->n + 1, sizeof *stack);
  uint64_t *it = stp__malloc_array((size_t)g->n + 1, sizeof *it);
  bool found = false;
  if (!color || !stack || !it) {
    *len = SIZE_MAX;
    goto done;
  }
  for (uint32_t root = 0; root < g->n && !found; root++) {
    if (color[root])
      continue;
    size_t top = 0;
    stack[top++] = root;
    color[root] = 1;
    it[root] = g->off[root];
    while (top && !found) {
      uint32_t u = stack[top - 1];
      if (it[u] == g->off[u + 1]) {
        color[u] = 2;
        top--;
        continue;
      }
      uint64_t e = it[u]++;
      if (g->tok[e] != 0)
        continue;
      uint32_t v = g->dst[e];
      if (color[v] == 0) {
        color[v] = 1;
        it[v] = g->off[v];
        stack[top++] = v;
      } else if (color[v] == 1) { /* back edge: the cycle is v .. u on the stack */
        size_t k = top;
        while (stack[k - 1] != v)
          k--;
        *len = top - (k - 1);
        *cycle = stp__malloc_array(*len, sizeof **cycle);
        if (*cycle)
          memcpy(*cycle, stack + (k - 1), *len * sizeof **cycle);
        else
          *len = SIZE_MAX;
        found = true;
      }
    }
  }
done:
  free(color);
  free(stack);
  free(it);
  return found;
}

/* ---- strongly connected components: iterative Tarjan ----------------------
 * A node is on the stack while visited and not yet assigned (its index is
 * then set to ASSIGNED). */
#define NONE UINT32_MAX
#define ASSIGNED (UINT32_MAX - 1)

void stp__scc_run(const stp_digraph *g, uint32_t *comp, uint32_t *count, stp_scc_node *t,
                  uint32_t *stack, uint32_t *call) {
  size_t n = g->n;
  for (size_t u = 0; u < n; u++)
    t[u].index = NONE;
  uint32_t next = 0, ncomp = 0;
  size_t sp = 0;
  for (uint32_t root = 0; root < n; root++) {
    if (t[root].index != NONE)
      continue;
    size_t cp = 0;
    call[cp++] = root;
    t[root] = (stp_scc_node){next, next, g->off[root]};
    next++;
    stack[sp++] = root;
    while (cp) {
      uint32_t u = call[cp - 1];
      if (t[u].it < g->off[u + 1]) {
        uint32_t v = g->dst[t[u].it++];
        if (t[v].index == NONE) {
          t[v] = (stp_scc_node){next, next, g->off[v]};
          next++;
          stack[sp++] = v;
          call[cp++] = v;
        } else if (t[v].index != ASSIGNED && t[v].index < t[u].low) {
          t[u].low = t[v].index;
        }
        continue;
      }
      cp--;
      if (cp && t[u].low < t[call[cp - 1]].low)
        t[call[cp - 1]].low = t[u].low;
      if (t[u].low == t[u].index) {
        uint32_t v;
        do {
          v = stack[--sp];
          t[v].index = ASSIGNED;
          comp[v] = ncomp;
        } while (v != u);
        ncomp++;
      }
    }
  }
  *count = ncomp;
}

stp_status stp__scc(const stp_digraph *g, uint32_t *comp, uint32_t *count, stp_error *err) {
  size_t n = g->n;
  stp_scc_node *t = stp__malloc_array(n, sizeof *t);
  uint32_t *stack = stp__malloc_array(n, sizeof *stack);
  uint32_t *call = stp__malloc_array(n, sizeof *call);
  stp_status s = STP_OK;
  if (t && stack && call)
    stp__scc_run(g, comp, count, t, stack, call);
  else
    s = stp__oom(err, "computing strongly connected components");
  free(t);
  free(stack);
  free(call);
  return s;
}
