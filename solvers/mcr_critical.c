/* mcr_critical.c: the critical graph of a maximum cycle ratio and the
 * one-sided slopes of lambda* in a direction (mcr_critical.h).
 *
 * A potential x with x[v] >= x[u] + w(e) - lambda tok(e) on every edge is
 * the longest-path distance from a virtual source under the reduced
 * weights (no cycle is positive at lambda*): Bellman-Ford from every node
 * at 0, in queue order.  Rounding leaves the critical cycles a hair above
 * or below zero, so a relaxation must gain more than a tolerance far
 * below the weights' scale, and tightness is judged with a looser one. */
#include "solvers/mcr_critical.h"

#include "base/core.h"
#include "solvers/mcr_howard.h"
#include "solvers/scc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RELAX_RTOL 1e-13
#define TIGHT_RTOL 1e-9

void stp__mcr_critical_free(stp_mcr_critical *c) {
  if (!c)
    return;
  stp__digraph_free(c->g);
  free(c->node);
  free(c->inside);
  memset(c, 0, sizeof *c);
}

static double weight_scale(const stp_digraph *g, double lambda) {
  double s = 0;
  for (uint64_t e = 0; e < g->m; e++)
    s = fmax(s, fabs(g->w[e]) + fabs(lambda) * g->tok[e]);
  return s > 0 ? s : 1;
}

/* Past this many edge visits per edge the potentials are given up: the
 * event graphs measured settle in a few passes, and a pathological graph
 * must not turn an evaluation quadratic. */
#define STP_CRITICAL_PASSES 256

/* Longest distances under w - lambda tok from a virtual source (x = 0 at
 * every node first); ENOMEM, or ELIMIT past STP_CRITICAL_PASSES passes. */
static stp_status potentials(const stp_digraph *g, double lambda, double tol, double *x,
                             stp_error *err) {
  uint32_t n = g->n, *queue = stp__malloc_array(n ? n : 1, sizeof *queue);
  unsigned char *queued = stp__calloc(n ? n : 1, 1);
  if (!queue || !queued) {
    free(queue);
    free(queued);
    return stp__oom(err, "finding the critical graph");
  }
  uint64_t head = 0, len = n, budget = STP_CRITICAL_PASSES * ((uint64_t)n + g->m);
  for (uint32_t u = 0; u < n; u++) {
    x[u] = 0;
    queue[u] = u;
    queued[u] = 1;
  }
  while (len > 0 && budget > 0) {
    uint32_t u = queue[head];
    head = (head + 1) % n;
    len--;
    queued[u] = 0;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++, budget -= budget > 0) {
      uint32_t v = g->dst[e];
      double cand = x[u] + g->w[e] - lambda * g->tok[e];
      if (cand > x[v] + tol) {
        x[v] = cand;
        if (!queued[v]) {
          queue[(head + len) % n] = v;
          len++;
          queued[v] = 1;
        }
      }
    }
  }
  free(queue);
  free(queued);
  if (len > 0)
    return stp__fail(err, STP_ELIMIT,
                     "the critical graph: the potentials did not settle in %d passes over %llu "
                     "edges",
                     STP_CRITICAL_PASSES, (unsigned long long)g->m);
  return STP_OK;
}

/* The tight edges of x as a graph on the same nodes. */
static stp_status tight_graph(const stp_digraph *g, double lambda, const double *x, double tol,
                              stp_digraph **out, stp_error *err) {
  stp_edge_list el = {0};
  uint64_t count = 0;
  for (uint32_t u = 0; u < g->n; u++)
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      count += x[u] + g->w[e] - lambda * g->tok[e] >= x[g->dst[e]] - tol;
  STP_CHECK(stp__edges_reserve(&el, count ? count : 1, err));
  for (uint32_t u = 0; u < g->n; u++)
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      if (x[u] + g->w[e] - lambda * g->tok[e] >= x[g->dst[e]] - tol)
        stp__edges_push(&el, u, g->dst[e], g->w[e], g->tok[e]);
  return stp__digraph_from_edges(g->n, &el, out, err);
}

/* The edges of t inside a strongly connected component (a node alone only
 * through its own loop) as the critical graph, renumbered. */
static stp_status keep_cyclic(const stp_digraph *g, const stp_digraph *t, stp_mcr_critical *c,
                              stp_error *err) {
  uint32_t n = g->n, ncomp = 0;
  uint32_t *comp = stp__malloc_array(n ? n : 1, sizeof *comp);
  uint32_t *size = NULL;
  stp_edge_list el = {0};
  stp_status s = comp ? stp__scc(t, comp, &ncomp, err) : stp__oom(err, "finding the critical graph");
  if (s == STP_OK)
    s = (size = stp__calloc(ncomp ? ncomp : 1, sizeof *size)) ? STP_OK
                                                               : stp__oom(err, "finding the critical graph");
  if (s == STP_OK) {
    for (uint32_t u = 0; u < n; u++)
      size[comp[u]]++;
    c->inside = stp__malloc_array(n ? n : 1, sizeof *c->inside);
    c->node = stp__malloc_array(n ? n : 1, sizeof *c->node);
    s = c->inside && c->node ? stp__edges_reserve(&el, t->m ? t->m : 1, err)
                             : stp__oom(err, "finding the critical graph");
  }
  uint32_t kept = 0;
  if (s == STP_OK) {
    for (uint32_t u = 0; u < n; u++)
      c->inside[u] = UINT32_MAX;
    for (uint32_t u = 0; u < n; u++)
      for (uint64_t e = t->off[u]; e < t->off[u + 1]; e++) {
        uint32_t v = t->dst[e];
        if (comp[u] != comp[v] || (size[comp[u]] == 1 && u != v))
          continue;
        if (c->inside[u] == UINT32_MAX)
          c->node[c->inside[u] = kept++] = u;
        if (c->inside[v] == UINT32_MAX)
          c->node[c->inside[v] = kept++] = v;
        stp__edges_push(&el, c->inside[u], c->inside[v], t->w[e], t->tok[e]);
      }
    if (el.m == 0)
      s = stp__fail(err, STP_ENUMERIC, "no cycle is critical at the cycle ratio %.17g", c->lambda);
  }
  if (s == STP_OK)
    s = stp__digraph_from_edges(kept, &el, &c->g, err);
  else
    stp__edges_free(&el);
  free(comp);
  free(size);
  return s;
}

stp_status stp__mcr_critical(const stp_digraph *g, double lambda, stp_mcr_critical *out,
                             stp_error *err) {
  memset(out, 0, sizeof *out);
  out->lambda = lambda;
  double scale = weight_scale(g, lambda);
  double *x = stp__malloc_array(g->n ? g->n : 1, sizeof *x);
  if (!x)
    return stp__oom(err, "finding the critical graph");
  stp_digraph *t = NULL;
  stp_status s = potentials(g, lambda, RELAX_RTOL * scale, x, err);
  if (s == STP_OK)
    s = tight_graph(g, lambda, x, TIGHT_RTOL * scale, &t, err);
  if (s == STP_OK)
    s = keep_cyclic(g, t, out, err);
  stp__digraph_free(t);
  free(x);
  if (s != STP_OK)
    stp__mcr_critical_free(out);
  return s;
}

bool stp__mcr_critical_touches(const stp_mcr_critical *c, const double *h) {
  for (uint32_t k = 0; k < c->g->n; k++)
    if (h[c->node[k]] != 0)
      return true;
  return false;
}

static stp_status ratio_with(stp_mcr_critical *c, const double *h, double sign, double *ratio,
                             stp_error *err) {
  for (uint32_t u = 0; u < c->g->n; u++)
    for (uint64_t e = c->g->off[u]; e < c->g->off[u + 1]; e++)
      c->g->w[e] = sign * h[c->node[u]];
  stp_mcr_result r = {0};
  stp_status s = stp__mcr_howard(c->g, NULL, &r, err);
  if (s == STP_OK && !r.has_cycle)
    s = stp__fail(err, STP_ENUMERIC, "the critical graph has no cycle");
  if (s == STP_OK)
    *ratio = sign * r.ratio;
  stp__mcr_result_clear(&r);
  return s;
}

stp_status stp__mcr_critical_slopes(stp_mcr_critical *c, const double *h, double *hi, double *lo,
                                    stp_error *err) {
  if (!stp__mcr_critical_touches(c, h)) {
    *hi = *lo = 0;
    return STP_OK;
  }
  STP_CHECK(ratio_with(c, h, 1, hi, err));
  return ratio_with(c, h, -1, lo, err);
}
