/* test_mcr.c: Howard's maximum cycle ratio against independent algorithms
 * (brute-force cycle enumeration, Karp, Lawler) on hundreds of seeded random
 * graphs, plus deadlocks, acyclic graphs and the returned critical cycle. */
#include "mcr_ref.h"
#include "solvers/mcr_howard.h"
#include "solvers/scc.h"
#include "testutil.h"

#include <stdlib.h>

static double howard(const stp_digraph *g, stp_mcr_result *r) {
  stp_error err = {0};
  stp_status s = stp__mcr_howard(g, NULL, r, &err);
  cr_assert_eq(s, STP_OK, "Howard failed: %s", err.message);
  return r->ratio;
}

/* The returned cycle must be a real cycle of g whose ratio is the answer. */
static void check_cycle(const stp_digraph *g, const stp_mcr_result *r) {
  cr_assert(r->has_cycle);
  cr_assert_gt(r->cycle_len, 0);
  double w = 0;
  uint64_t t = 0;
  for (size_t k = 0; k < r->cycle_len; k++) {
    uint32_t u = r->cycle[k], v = r->cycle[(k + 1) % r->cycle_len];
    /* the heaviest-ratio choice among parallel edges is what Howard kept:
     * accept any edge u->v; the ratio check below is on the max over them */
    double best_w = -1;
    uint32_t best_t = 0;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      if (g->dst[e] == v && (best_w < 0 || g->w[e] - r->ratio * g->tok[e] >
                                               best_w - r->ratio * best_t)) {
        best_w = g->w[e];
        best_t = g->tok[e];
      }
    cr_assert_geq(best_w, 0, "no edge %u -> %u in the returned cycle", u, v);
    w += best_w;
    t += best_t;
  }
  cr_assert_gt(t, 0);
  assert_close(w / (double)t, r->ratio, TOL_EXACT);
}

/* Howard's ratio on g is ref (to TOL_EXACT) and its cycle a real cycle of
 * that ratio; g is freed. */
static void check_and_free(stp_digraph *g, double ref) {
  stp_mcr_result r;
  assert_close(howard(g, &r), ref, TOL_EXACT);
  check_cycle(g, &r);
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
}

Test(mcr, brute_force_small_random_graphs) {
  trng rng = {.s = 1};
  for (int k = 0; k < 400; k++) {
    uint32_t n = (uint32_t)trng_int(&rng, 1, 8);
    stp_digraph *g = random_graph(&rng, n, trng_int(&rng, 0, 2 * n), 0.4, 1);
    double ref;
    cr_assert(mcr_brute_force(g, &ref));
    check_and_free(g, ref);
  }
}

Test(mcr, karp_mean_on_random_graphs) {
  trng rng = {.s = 2};
  for (int k = 0; k < 200; k++) {
    uint32_t n = (uint32_t)trng_int(&rng, 2, 120);
    stp_digraph *g = random_graph(&rng, n, trng_int(&rng, n, 4 * n), 1.0, 1);
    stp_mcr_result r;
    assert_close(howard(g, &r), mcr_karp(g), TOL_EXACT);
    check_cycle(g, &r);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

Test(mcr, lawler_ratio_on_random_graphs) {
  trng rng = {.s = 3};
  for (int k = 0; k < 150; k++) {
    uint32_t n = (uint32_t)trng_int(&rng, 2, 150);
    stp_digraph *g = random_graph(&rng, n, trng_int(&rng, n, 3 * n), 0.3, 3);
    stp_mcr_result r;
    /* bisection to 1e-12 relative width; the answers agree within that */
    assert_close(howard(g, &r), mcr_lawler(g, 1e-13), 1e-11);
    check_cycle(g, &r);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

static stp_digraph *graph_of(uint32_t n, const uint32_t (*e)[2], const double *w,
                           const uint32_t *tok, size_t m) {
  stp_edge_list el = {0};
  stp_error err;
  cr_assert_eq(stp__edges_reserve(&el, m ? m : 1, &err), STP_OK);
  for (size_t k = 0; k < m; k++)
    stp__edges_push(&el, e[k][0], e[k][1], w[k], tok[k]);
  stp_digraph *g;
  cr_assert_eq(stp__digraph_from_edges(n, &el, &g, &err), STP_OK);
  return g;
}

Test(mcr, token_free_cycle_is_a_deadlock) {
  /* 0 -> 1 -> 2 -> 0 without tokens, plus a healthy self-loop on 3 */
  const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 3}, {2, 3}};
  const double w[] = {1, 2, 3, 4, 5};
  const uint32_t tok[] = {0, 0, 0, 1, 0};
  stp_digraph *g = graph_of(4, e, w, tok, 5);
  stp_mcr_result r;
  stp_error err = {0};
  cr_assert_eq(stp__mcr_howard(g, NULL, &r, &err), STP_EDEADLOCK);
  cr_assert(strstr(err.message, "holds no token"), "message: %s", err.message);
  cr_assert_eq(r.cycle_len, 3);
  for (size_t k = 0; k < 3; k++)
    cr_assert_lt(r.cycle[k], 3);
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
}

Test(mcr, acyclic_graph_has_no_cycle) {
  const uint32_t e[][2] = {{0, 1}, {1, 2}, {0, 2}};
  const double w[] = {1, 2, 3};
  const uint32_t tok[] = {0, 1, 0};
  stp_digraph *g = graph_of(3, e, w, tok, 3);
  stp_mcr_result r;
  stp_error err = {0};
  cr_assert_eq(stp__mcr_howard(g, NULL, &r, &err), STP_OK);
  cr_assert_not(r.has_cycle);
  cr_assert(isinf(r.ratio) && r.ratio < 0);
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
}

Test(mcr, hand_checked_two_cycles_sharing_a_node) {
  /* cycle A: 0->1->0, w 3+5, 1 token: ratio 8; cycle B: 0->2->3->0, w 4+4+4,
   * 2 tokens: ratio 6; self-loop on 3 with w 7, 1 token: ratio 7. */
  const uint32_t e[][2] = {{0, 1}, {1, 0}, {0, 2}, {2, 3}, {3, 0}, {3, 3}};
  const double w[] = {3, 5, 4, 4, 4, 7};
  const uint32_t tok[] = {0, 1, 1, 0, 1, 1};
  stp_digraph *g = graph_of(4, e, w, tok, 6);
  stp_mcr_result r;
  assert_close(howard(g, &r), 8.0, TOL_EXACT);
  cr_assert_eq(r.cycle_len, 2);
  cr_assert_eq(r.cycle_tokens, 1);
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
}

Test(mcr, parallel_edges_and_separate_components) {
  /* two disjoint components; parallel edges with different ratios */
  const uint32_t e[][2] = {{0, 1}, {1, 0}, {1, 0}, {2, 2}, {2, 2}};
  const double w[] = {1, 2, 9, 5, 12};
  const uint32_t tok[] = {1, 1, 2, 1, 2};
  stp_digraph *g = graph_of(3, e, w, tok, 5);
  double ref;
  cr_assert(mcr_brute_force(g, &ref));
  stp_mcr_result r;
  assert_close(howard(g, &r), ref, TOL_EXACT);
  assert_close(ref, 6.0, TOL_EXACT); /* self-loop 12/2 = 6 > 5 > (1+9)/3 */
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
}

Test(mcr, scc_labels_components) {
  const uint32_t e[][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 3}, {3, 2}, {4, 4}};
  const double w[] = {1, 1, 1, 1, 1, 1};
  const uint32_t tok[] = {1, 1, 1, 1, 1, 1};
  stp_digraph *g = graph_of(5, e, w, tok, 6);
  uint32_t comp[5], count;
  stp_error err;
  cr_assert_eq(stp__scc(g, comp, &count, &err), STP_OK);
  cr_assert_eq(count, 3);
  cr_assert_eq(comp[0], comp[1]);
  cr_assert_eq(comp[2], comp[3]);
  cr_assert_neq(comp[0], comp[2]);
  cr_assert_neq(comp[4], comp[0]);
  cr_assert_neq(comp[4], comp[2]);
  stp__digraph_free(g);
}

/* ---- graphs that are not strongly connected --------------------------------
 * Howard first treats the whole graph as one class and computes the
 * strongly connected components only when some node cannot reach the best
 * policy cycle (or a node has no out-edge).  These graphs exercise the three
 * cases: every node reaches the best cluster, some do not, and sinks. */

/* `clusters` strongly connected clusters of `size` nodes (a ring plus random
 * chords), edges between clusters only from a lower cluster to a higher one
 * (so that the clusters are the components), and `extra` nodes outside them
 * that point into random clusters (in-degree 0: not on any cycle) or, with
 * sinks, that have no out-edge at all (and are pointed at).  With
 * best_first the heaviest durations are in cluster 0, which no other
 * cluster reaches; otherwise in the last cluster, which every one reaches
 * through the chain of inter-cluster edges.  tok_one: one token per edge
 * (for Karp), else 0 to 2 tokens with the token-free edges acyclic. */
static stp_digraph *clustered_graph(trng *rng, uint32_t clusters, uint32_t size, uint32_t extra,
                                    bool sinks, bool best_first, bool tok_one) {
  uint32_t n = clusters * size + extra;
  stp_edge_list el = {0};
  stp_error err;
  cr_assert_eq(stp__edges_reserve(&el, 8 * (uint64_t)n, &err), STP_OK);
  for (uint32_t c = 0; c < clusters; c++) {
    uint32_t base = c * size, heavy = best_first ? c == 0 : c + 1 == clusters;
    double hi = heavy ? 20 : 10;
    for (uint32_t i = 0; i < size; i++) /* the ring closes with a token */
      stp__edges_push(&el, base + i, base + (i + 1) % size, trng_uniform(rng, 1, hi),
                      tok_one || i + 1 == size ? 1 : (uint32_t)trng_int(rng, 0, 1));
    for (uint32_t k = 0; k < size; k++) { /* chords: a token when going back */
      uint32_t i = (uint32_t)trng_int(rng, 0, size - 1), j = (uint32_t)trng_int(rng, 0, size - 1);
      uint32_t tok = tok_one ? 1 : (uint32_t)trng_int(rng, i < j ? 0 : 1, 2);
      stp__edges_push(&el, base + i, base + j, trng_uniform(rng, 1, hi), tok);
    }
    if (c + 1 < clusters) /* the chain: every cluster reaches the last one */
      stp__edges_push(&el, base + (uint32_t)trng_int(rng, 0, size - 1),
                      base + size + (uint32_t)trng_int(rng, 0, size - 1),
                      trng_uniform(rng, 1, 10), tok_one ? 1 : 0);
  }
  for (uint32_t x = 0; x < extra; x++) {
    uint32_t u = clusters * size + x, in = (uint32_t)trng_int(rng, 0, clusters * size - 1);
    if (sinks)
      stp__edges_push(&el, in, u, trng_uniform(rng, 1, 10), tok_one ? 1 : 0);
    else
      stp__edges_push(&el, u, in, trng_uniform(rng, 1, 10), tok_one ? 1 : 0);
  }
  stp_digraph *g;
  cr_assert_eq(stp__digraph_from_edges(n, &el, &g, &err), STP_OK);
  return g;
}

static void check_clustered(trng *rng, uint32_t max_clusters, uint32_t max_size, bool tok_one,
                            int count) {
  for (int k = 0; k < count; k++) {
    uint32_t clusters = (uint32_t)trng_int(rng, 1, max_clusters);
    uint32_t size = (uint32_t)trng_int(rng, 1, max_size);
    uint32_t extra = (uint32_t)trng_int(rng, 0, 3);
    bool sinks = trng_int(rng, 0, 2) == 0, best_first = trng_int(rng, 0, 1);
    stp_digraph *g = clustered_graph(rng, clusters, size, extra, sinks, best_first, tok_one);
    double ref;
    if (tok_one)
      ref = mcr_karp(g);
    else
      cr_assert(mcr_brute_force(g, &ref));
    check_and_free(g, ref);
  }
}

Test(mcr, components_against_brute_force) {
  trng rng = {.s = 14};
  check_clustered(&rng, 3, 3, false, 400);
}

Test(mcr, components_against_karp) {
  trng rng = {.s = 15};
  check_clustered(&rng, 6, 40, true, 200);
}

/* Howard's ratio on g is ref (to TOL_EXACT), on the loop of node `loop`;
 * g is freed. */
static void check_loop_and_free(stp_digraph *g, double ref, uint32_t loop) {
  stp_mcr_result r;
  assert_close(howard(g, &r), ref, TOL_EXACT);
  cr_assert_eq(r.cycle_len, 1);
  cr_assert_eq(r.cycle[0], loop);
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
}

/* Hand-checked: the best cycle (ratio 9) is a self-loop on node 0 that no
 * other node reaches; the ring 1 -> 2 -> 1 (ratio 3) reaches a loop on 3
 * (ratio 4).  One class cannot hold (node 1 cannot reach node 0): the
 * components must be computed, and the answer is still 9 on node 0. */
Test(mcr, best_cycle_unreachable_from_the_rest) {
  const uint32_t e[][2] = {{0, 0}, {0, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 3}};
  const double w[] = {9, 1, 2, 4, 1, 4};
  const uint32_t tok[] = {1, 0, 1, 1, 0, 1};
  check_loop_and_free(graph_of(4, e, w, tok, 6), 9.0, 0);
}

/* Hand-checked: every node reaches the best cycle (the loop on 3, ratio 7)
 * but the graph is not strongly connected (node 4 has no in-edge, 3 reaches
 * nothing else): one class suffices. */
Test(mcr, best_cycle_downstream_of_everything) {
  const uint32_t e[][2] = {{4, 0}, {0, 1}, {1, 0}, {1, 2}, {2, 2}, {2, 3}, {3, 3}};
  const double w[] = {100, 3, 3, 1, 5, 1, 7};
  const uint32_t tok[] = {0, 1, 1, 0, 1, 0, 1};
  check_loop_and_free(graph_of(5, e, w, tok, 7), 7.0, 3);
}

/* A line of transitions, each with its own loop (one token) and an edge to
 * the next one (no token), both of the transition's duration: the event
 * graph of an unreplicated pipeline.  The only cycles are the loops, so the
 * answer is the largest duration, at its loop.  Every node starts towards
 * the last one (the longer token-free path), so the first policy cycle is
 * the last loop, and the better loop is found by the improvement raising a
 * node through its own loop: that node must go back on the worklist, or
 * the improvement ends with an empty worklist and Howard stops (settle())
 * at the last loop's ratio. */
Test(mcr, unreplicated_pipeline_loops) {
  trng rng = {.s = 7};
  for (uint32_t n = 2; n <= 12; n++)
    for (uint32_t top = 0; top < n; top++) {
      uint32_t(*e)[2] = malloc(2 * n * sizeof *e);
      double *w = malloc(2 * n * sizeof *w);
      uint32_t *tok = malloc(2 * n * sizeof *tok);
      cr_assert(e && w && tok);
      size_t m = 0;
      for (uint32_t i = 0; i < n; i++) {
        double d = i == top ? 100 : trng_uniform(&rng, 1, 99);
        e[m][0] = e[m][1] = i;
        w[m] = d;
        tok[m++] = 1;
        if (i + 1 < n) {
          e[m][0] = i;
          e[m][1] = i + 1;
          w[m] = d;
          tok[m++] = 0;
        }
      }
      stp_digraph *g = graph_of(n, (const uint32_t(*)[2])e, w, tok, m);
      stp_mcr_result r;
      cr_assert_eq(howard(g, &r), 100.0, "n %u, largest loop at %u", n, top);
      cr_assert_eq(r.cycle_len, 1);
      cr_assert_eq(r.cycle[0], top);
      stp__mcr_result_clear(&r);
      stp__digraph_free(g);
      free(e);
      free(w);
      free(tok);
    }
}

/* Random graphs shaped like event graphs: every out-edge of a node has the
 * node's duration (so the start policy follows long token-free paths),
 * token-free edges go forward in the node order (no deadlock), and loops
 * are frequent; against Lawler's search.  These are the graphs on which
 * the improvement most often ends with an empty worklist, where Howard
 * stops without another evaluation. */
static stp_digraph *event_like_graph(trng *rng, uint32_t n) {
  size_t cap = 6 * (size_t)n, m = 0;
  uint32_t(*e)[2] = malloc(cap * sizeof *e), *tok = malloc(cap * sizeof *tok);
  double *w = malloc(cap * sizeof *w);
  cr_assert(e && w && tok);
  for (uint32_t u = 0; u < n; u++) {
    double d = trng_uniform(rng, 1, 100);
    size_t out = trng_int(rng, 1, 4);
    for (size_t k = 0; k < out; k++) {
      uint32_t v = (uint32_t)trng_int(rng, 0, n - 1);
      bool loop = trng_uniform(rng, 0, 1) < 0.3;
      e[m][0] = u;
      e[m][1] = loop ? u : v;
      w[m] = d;
      tok[m++] = loop || v <= u ? (uint32_t)trng_int(rng, 1, 2) : 0;
    }
  }
  stp_digraph *g = graph_of(n, (const uint32_t(*)[2])e, w, tok, m);
  free(e);
  free(w);
  free(tok);
  return g;
}

Test(mcr, event_like_random_graphs) {
  trng rng = {.s = 11};
  for (int k = 0; k < 3000; k++) {
    uint32_t n = (uint32_t)trng_int(&rng, 1, 60);
    stp_digraph *g = event_like_graph(&rng, n);
    stp_mcr_result r;
    assert_close(howard(g, &r), mcr_lawler(g, 1e-13), 1e-11);
    check_cycle(g, &r);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}
