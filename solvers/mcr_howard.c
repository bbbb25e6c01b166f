/* mcr_howard.c: Howard's policy iteration for the maximum cycle ratio.
 *
 * A policy picks one out-edge per node; the policy graph then has exactly
 * one cycle per connected piece.  Value determination gives each node the
 * ratio lam of the cycle it reaches and a bias x (x[u] = w - lam*tok + x[succ]);
 * improvement first follows edges to larger ratios, then edges that raise
 * the bias.  At the fixed point the largest policy-cycle ratio is optimal.
 * Only edges inside a strongly connected component are used, so every node
 * kept has a choice and trivial components drop out.  The answer is computed
 * from the critical cycle itself (sum of durations / sum of tokens), so it is
 * exact up to that one sum. */
#include "solvers/mcr.h"

#include "engine/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

void stp__mcr_result_clear(stp_mcr_result *res) {
  if (!res)
    return;
  free(res->cycle);
  memset(res, 0, sizeof *res);
}

/* ---- token-free cycle (deadlock) detection: iterative DFS ---------------- */
bool stp__find_token_free_cycle(const stp_graph *g, uint32_t **cycle, size_t *len) {
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

/* ---- strongly connected components: iterative Tarjan ---------------------- */
stp_status stp__scc(const stp_graph *g, uint32_t *comp, uint32_t *count, stp_error *err) {
  size_t n = g->n;
  uint32_t *index = stp__malloc_array(n, sizeof *index);
  uint32_t *low = stp__malloc_array(n, sizeof *low);
  uint32_t *stack = stp__malloc_array(n, sizeof *stack);
  uint32_t *call = stp__malloc_array(n, sizeof *call);
  uint64_t *it = stp__malloc_array(n, sizeof *it);
  uint8_t *on = calloc(n + 1, 1);
  stp_status s = STP_OK;
  if (!index || !low || !stack || !call || !it || !on) {
    s = stp__oom(err, "computing strongly connected components");
    goto done;
  }
  for (size_t u = 0; u < n; u++)
    index[u] = NONE;
  uint32_t next = 0, ncomp = 0;
  size_t sp = 0;
  for (uint32_t root = 0; root < n; root++) {
    if (index[root] != NONE)
      continue;
    size_t cp = 0;
    call[cp++] = root;
    index[root] = low[root] = next++;
    it[root] = g->off[root];
    stack[sp++] = root;
    on[root] = 1;
    while (cp) {
      uint32_t u = call[cp - 1];
      if (it[u] < g->off[u + 1]) {
        uint32_t v = g->dst[it[u]++];
        if (index[v] == NONE) {
          index[v] = low[v] = next++;
          it[v] = g->off[v];
          stack[sp++] = v;
          on[v] = 1;
          call[cp++] = v;
        } else if (on[v] && index[v] < low[u]) {
          low[u] = index[v];
        }
        continue;
      }
      cp--;
      if (cp && low[u] < low[call[cp - 1]])
        low[call[cp - 1]] = low[u];
      if (low[u] == index[u]) {
        uint32_t v;
        do {
          v = stack[--sp];
          on[v] = 0;
          comp[v] = ncomp;
        } while (v != u);
        ncomp++;
      }
    }
  }
  *count = ncomp;
done:
  free(index);
  free(low);
  free(stack);
  free(call);
  free(it);
  free(on);
  return s;
}

/* ---- Howard ---------------------------------------------------------------- */
typedef struct howard {
  const stp_graph *g;
  const uint32_t *comp;
  uint64_t *pi;     /* chosen edge per node, UINT64_MAX for inactive nodes */
  double *lam;      /* ratio of the cycle the node reaches */
  double *x;        /* bias */
  uint32_t *mark;   /* 0: unvisited this round; walk id while walking; DONE after */
  uint32_t *path;   /* the current walk */
  double wscale;    /* largest |duration|, for absolute tolerances */
  /* best cycle of the current policy */
  uint32_t best_handle;
  double best_ratio;
} howard;

#define DONE UINT32_MAX
#define INACTIVE UINT64_MAX

static inline bool internal_edge(const howard *h, uint32_t u, uint64_t e) {
  return h->comp[h->g->dst[e]] == h->comp[u];
}

/* The ratio of the policy cycle through `handle`, summed along the cycle. */
static double cycle_ratio(const howard *h, uint32_t handle, uint64_t *tokens) {
  double w = 0;
  uint64_t t = 0;
  uint32_t v = handle;
  do {
    uint64_t e = h->pi[v];
    w += h->g->w[e];
    t += h->g->tok[e];
    v = h->g->dst[e];
  } while (v != handle);
  *tokens = t;
  return w / (double)t;
}

/* Value determination: one pass over the policy graph, O(n). */
static void evaluate(howard *h) {
  const stp_graph *g = h->g;
  uint32_t walk = 0;
  memset(h->mark, 0, (size_t)g->n * sizeof *h->mark);
  h->best_handle = NONE;
  h->best_ratio = -INFINITY;
  for (uint32_t start = 0; start < g->n; start++) {
    if (h->mark[start] || h->pi[start] == INACTIVE)
      continue;
    walk++;
    size_t len = 0;
    uint32_t v = start;
    while (h->mark[v] == 0) {
      h->mark[v] = walk;
      h->path[len++] = v;
      v = g->dst[h->pi[v]];
    }
    size_t stop = len; /* nodes path[0..stop-1] get values from their successor */
    if (h->mark[v] == walk) { /* a new cycle, entered at v */
      uint64_t tokens;
      double r = cycle_ratio(h, v, &tokens);
      h->lam[v] = r;
      h->x[v] = 0;
      h->mark[v] = DONE;
      if (r > h->best_ratio) {
        h->best_ratio = r;
        h->best_handle = v;
      }
      while (h->path[stop - 1] != v) /* cycle nodes after v, handled below in order */
        stop--;
      stop--; /* v itself is done */
      /* cycle nodes path[stop+1 .. len-1]: walk them backwards from the end */
      for (size_t k = len; k > stop + 1; k--) {
        uint32_t u = h->path[k - 1];
        uint64_t e = h->pi[u];
        h->lam[u] = r;
        h->x[u] = g->w[e] - r * g->tok[e] + h->x[g->dst[e]];
        h->mark[u] = DONE;
      }
    }
    for (size_t k = stop; k > 0; k--) {
      uint32_t u = h->path[k - 1];
      uint64_t e = h->pi[u];
      uint32_t s = g->dst[e];
      h->lam[u] = h->lam[s];
      h->x[u] = g->w[e] - h->lam[s] * g->tok[e] + h->x[s];
      h->mark[u] = DONE;
    }
  }
}

static inline bool ratio_greater(double a, double b) {
  return a > b + 1e-13 * fmax(fabs(a), fabs(b));
}

/* Policy improvement; returns the number of nodes whose edge changed. */
static size_t improve(howard *h) {
  const stp_graph *g = h->g;
  size_t changed = 0;
  /* First: reach a cycle with a larger ratio. */
  for (uint32_t u = 0; u < g->n; u++) {
    if (h->pi[u] == INACTIVE)
      continue;
    uint64_t best = INACTIVE;
    double best_lam = h->lam[u];
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      if (internal_edge(h, u, e) && ratio_greater(h->lam[g->dst[e]], best_lam)) {
        best_lam = h->lam[g->dst[e]];
        best = e;
      }
    if (best != INACTIVE) {
      h->pi[u] = best;
      changed++;
    }
  }
  if (changed)
    return changed;
  /* Then: same ratio, larger bias. */
  for (uint32_t u = 0; u < g->n; u++) {
    if (h->pi[u] == INACTIVE)
      continue;
    double lu = h->lam[u], xu = h->x[u];
    double tol = 1e-12 * fabs(xu) + 1e-14 * h->wscale;
    uint64_t best = INACTIVE;
    double best_val = xu + tol;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
      if (!internal_edge(h, u, e) || ratio_greater(lu, h->lam[g->dst[e]]))
        continue;
      double val = g->w[e] - lu * g->tok[e] + h->x[g->dst[e]];
      if (val > best_val) {
        best_val = val;
        best = e;
      }
    }
    if (best != INACTIVE && best != h->pi[u]) {
      h->pi[u] = best;
      changed++;
    }
  }
  return changed;
}

/* Initial policy: the heaviest internal out-edge (a common, cheap choice). */
static bool initial_policy(howard *h) {
  const stp_graph *g = h->g;
  bool any = false;
  h->wscale = 0;
  for (uint32_t u = 0; u < g->n; u++) {
    h->pi[u] = INACTIVE;
    double best = -INFINITY;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
      h->wscale = fmax(h->wscale, fabs(g->w[e]));
      if (internal_edge(h, u, e) && g->w[e] > best) {
        best = g->w[e];
        h->pi[u] = e;
      }
    }
    any |= h->pi[u] != INACTIVE;
  }
  return any;
}

static stp_status store_cycle(const howard *h, stp_mcr_result *res, stp_error *err) {
  size_t len = 0;
  uint32_t v = h->best_handle;
  do {
    len++;
    v = h->g->dst[h->pi[v]];
  } while (v != h->best_handle);
  res->cycle = stp__malloc_array(len, sizeof *res->cycle);
  if (!res->cycle)
    return stp__oom(err, "storing the critical cycle");
  res->cycle_len = len;
  v = h->best_handle;
  for (size_t k = 0; k < len; k++, v = h->g->dst[h->pi[v]])
    res->cycle[k] = v;
  res->ratio = cycle_ratio(h, h->best_handle, &res->cycle_tokens);
  res->has_cycle = true;
  return STP_OK;
}

static stp_status deadlock(const stp_graph *g, stp_mcr_result *res, stp_error *err) {
  uint32_t *cycle;
  size_t len;
  if (!stp__find_token_free_cycle(g, &cycle, &len))
    return len == SIZE_MAX ? stp__oom(err, "looking for a deadlock") : STP_OK;
  res->cycle = cycle;
  res->cycle_len = len;
  return stp__fail(err, STP_EDEADLOCK,
                   "deadlock: a cycle of %zu transitions holds no token", len);
}

stp_status stp__mcr_howard(const stp_graph *g, const stp_mcr_options *opts, stp_mcr_result *res,
                           stp_error *err) {
  memset(res, 0, sizeof *res);
  res->ratio = -INFINITY;
  STP_CHECK(deadlock(g, res, err));
  size_t n = g->n;
  howard h = {.g = g};
  uint32_t ncomp;
  uint32_t *comp = stp__malloc_array(n, sizeof *comp);
  h.pi = stp__malloc_array(n, sizeof *h.pi);
  h.lam = stp__malloc_array(n, sizeof *h.lam);
  h.x = stp__malloc_array(n, sizeof *h.x);
  h.mark = stp__malloc_array(n, sizeof *h.mark);
  h.path = stp__malloc_array(n, sizeof *h.path);
  stp_status s = STP_OK;
  if (!comp || !h.pi || !h.lam || !h.x || !h.mark || !h.path) {
    s = stp__oom(err, "running Howard's algorithm");
    goto done;
  }
  if ((s = stp__scc(g, comp, &ncomp, err)) != STP_OK)
    goto done;
  h.comp = comp;
  if (!initial_policy(&h))
    goto done; /* acyclic */
  size_t max_it = opts && opts->max_iterations ? opts->max_iterations
                                               : 1000 + 10 * (n < 100000 ? n : 100000);
  for (;;) {
    evaluate(&h);
    res->iterations++;
    if (opts && opts->interrupt && *opts->interrupt) {
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted during Howard's algorithm");
      goto done;
    }
    if (improve(&h) == 0)
      break;
    if (res->iterations >= max_it) {
      s = stp__fail(err, STP_ENUMERIC,
                    "Howard's algorithm did not converge in %zu iterations", max_it);
      goto done;
    }
  }
  s = store_cycle(&h, res, err);
done:
  free(comp);
  free(h.pi);
  free(h.lam);
  free(h.x);
  free(h.mark);
  free(h.path);
  return s;
}
