/* test_mcr_perfcases.c: the graph families on which Howard's algorithm is
 * known to crawl or to stumble (bench/README.md, "Deterministic solver"), kept
 * as regression tests of correctness: each checks the ratio against a value
 * known independently (by construction, or certified by Bellman-Ford below)
 * and bounds the number of policy iterations where a plain Howard would need
 * one per node.  No timing here: the benchmarks measure speed. */
#include "models/pipeline/teg.h"
#include "solvers/mcr_howard.h"
#include "support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- graph building ----------------------------------------------------- */
typedef struct builder {
  stp_edge_list el;
  uint32_t n;
} builder;

static builder builder_new(uint32_t n, uint64_t m) {
  builder b = {.n = n};
  stp_error err = {0};
  cr_assert_eq(stp__edges_reserve(&b.el, m, &err), STP_OK, "%s", err.message);
  return b;
}

static void edge(builder *b, uint32_t u, uint32_t v, double w, uint32_t tok) {
  cr_assert_lt(b->el.m, b->el.cap);
  stp__edges_push(&b->el, u, v, w, tok);
}

/* The graph, with nodes renumbered by a seeded random permutation when
 * shuffle_seed is non-zero (node order must not matter to the solver). */
static uint32_t *random_permutation(uint32_t n, trng *r) {
  uint32_t *p = malloc(n * sizeof *p);
  cr_assert_not_null(p);
  for (uint32_t k = 0; k < n; k++)
    p[k] = k;
  for (uint32_t k = n; k > 1; k--) { /* Fisher-Yates */
    uint32_t j = (uint32_t)trng_int(r, 0, k - 1), t = p[k - 1];
    p[k - 1] = p[j];
    p[j] = t;
  }
  return p;
}

static stp_digraph *build(builder *b, uint64_t shuffle_seed) {
  if (shuffle_seed) {
    trng r = {shuffle_seed};
    uint32_t *p = random_permutation(b->n, &r);
    for (uint64_t e = 0; e < b->el.m; e++) {
      b->el.src[e] = p[b->el.src[e]];
      b->el.dst[e] = p[b->el.dst[e]];
    }
    free(p);
  }
  stp_digraph *g;
  stp_error err = {0};
  cr_assert_eq(stp__digraph_from_edges(b->n, &b->el, &g, &err), STP_OK, "%s", err.message);
  return g;
}

/* ---- checks --------------------------------------------------------------- */
/* Bellman-Ford for the longest paths under costs w - lam*tok: true when it
 * settles within n + 1 passes, i.e. when no cycle has a ratio above lam.
 * Nodes are scanned in decreasing order, the direction most edges of these
 * graphs point to, so that a pass carries values along whole paths. */
static bool no_cycle_above(const stp_digraph *g, double lam) {
  double *d = calloc(g->n, sizeof *d);
  cr_assert_not_null(d);
  bool settled = false;
  for (uint32_t pass = 0; pass <= g->n && !settled; pass++) {
    settled = true;
    for (uint32_t u = g->n; u-- > 0;)
      for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
        double c = g->w[e] - lam * g->tok[e] + d[g->dst[e]];
        if (c > d[u] + 1e-9 * (fabs(d[u]) + fabs(c))) {
          d[u] = c;
          settled = false;
        }
      }
  }
  free(d);
  return settled;
}

/* The returned cycle is a cycle of g (each step along some edge) whose
 * durations over tokens give the ratio. */
static void check_cycle(const stp_digraph *g, const stp_mcr_result *r) {
  cr_assert(r->has_cycle);
  double w = 0;
  uint64_t t = 0;
  for (size_t k = 0; k < r->cycle_len; k++) {
    uint32_t u = r->cycle[k], v = r->cycle[(k + 1) % r->cycle_len];
    bool found = false;
    double best = -INFINITY;
    uint32_t best_tok = 0;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      if (g->dst[e] == v && g->w[e] - r->ratio * g->tok[e] > best) {
        best = g->w[e] - r->ratio * g->tok[e];
        best_tok = g->tok[e];
        found = true;
      }
    cr_assert(found, "no edge %u -> %u on the returned cycle", u, v);
    w += best + r->ratio * best_tok;
    t += best_tok;
  }
  cr_assert_eq(t, r->cycle_tokens);
  assert_close(w / (double)t, r->ratio, TOL_EXACT);
}

static stp_mcr_result solve(const stp_digraph *g) {
  stp_mcr_result r;
  stp_error err = {0};
  cr_assert_eq(stp__mcr_howard(g, NULL, &r, &err), STP_OK, "%s", err.message);
  check_cycle(g, &r);
  return r;
}

/* ---- chain: the best ratio is far down a chain ------------------------------
 * i -> i+1 (duration 1, no token), a loop on every node (duration 2, one
 * token; 3 on the last), n-1 -> 0 (duration 0, one token).  Every node
 * prefers its loop; improving ratios edge by edge moves the loop of ratio 3
 * one node per iteration (n iterations); the best cycle is the whole ring,
 * ratio n - 1. */
static stp_digraph *chain(uint32_t n, uint64_t shuffle) {
  builder b = builder_new(n, 2 * (uint64_t)n);
  for (uint32_t u = 0; u + 1 < n; u++) {
    edge(&b, u, u, 2, 1);
    edge(&b, u, u + 1, 1, 0);
  }
  edge(&b, n - 1, n - 1, 3, 1);
  edge(&b, n - 1, 0, 0, 1);
  return build(&b, shuffle);
}

Test(mcr_perfcases, chain_spreads_the_best_ratio_at_once) {
  const uint32_t n = 20000;
  for (uint64_t shuffle = 0; shuffle < 3; shuffle++) {
    stp_digraph *g = chain(n, shuffle);
    stp_mcr_result r = solve(g);
    assert_close(r.ratio, (double)(n - 1), TOL_EXACT);
    cr_assert_eq(r.cycle_len, n);
    cr_assert_leq(r.iterations, 4, "%zu iterations on a chain of %u nodes", r.iterations, n);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

/* ---- ladder: the bias gain travels down a long path ------------------------
 * Nodes 0..n-2 and a hub H = n-1 whose loop (one token) has the best ratio
 * L = 27(n) (see the ratios below).  Node i: a rail i -> H of duration
 * 3(H - i), a rung i -> i+1 of duration 1 (ladder) or L + 1 with one token
 * (ladder-tok: the same gain at ratio L, but not a token-free path).  The
 * last rail weighs 12n; H -> 0 closes the other cycles with one token.
 * Rails win until the node above has switched to its rung: one switch per
 * iteration for a Howard that improves the bias edge by edge. */
static stp_digraph *ladder_rungs(uint32_t n, bool rung_tokens, double extra, uint64_t shuffle,
                                 double *best) {
  uint32_t hub = n - 1;
  double top = 12.0 * n, loop = 2 * top + 3.0 * n;
  builder b = builder_new(n, 2 * (uint64_t)n + 1);
  for (uint32_t i = 0; i + 1 < hub; i++) {
    edge(&b, i, hub, 3.0 * (hub - i), 0);
    edge(&b, i, i + 1, rung_tokens ? loop + extra : 1, rung_tokens);
  }
  edge(&b, hub - 1, hub, top, 0);
  edge(&b, hub, hub, loop, 1);
  edge(&b, hub, 0, 0, 1);
  /* Other cycles go H -> 0 -> ... -> H: k rungs then a rail.  With token-free
   * rungs their ratio is at most (n + top) / 1 < loop; with rung tokens and
   * extra = 1 it is (k (loop + 1) + rail) / (k + 1) < loop since rail + k <
   * loop (a larger extra: ladder_gain_crosses_a_scattered_numbering). */
  double ring = ((n - 2) * (loop + extra) + top) / (n - 1);
  *best = rung_tokens && ring > loop ? ring : loop;
  return build(&b, shuffle);
}

static stp_digraph *ladder(uint32_t n, bool rung_tokens, uint64_t shuffle, double *best) {
  return ladder_rungs(n, rung_tokens, 1, shuffle, best);
}

Test(mcr_perfcases, ladder_bias_travels_along_token_free_paths) {
  const uint32_t n = 20000;
  for (uint64_t shuffle = 0; shuffle < 3; shuffle++) {
    double best;
    stp_digraph *g = ladder(n, false, shuffle, &best);
    stp_mcr_result r = solve(g);
    assert_close(r.ratio, best, TOL_EXACT);
    cr_assert_leq(r.iterations, 3, "%zu iterations on a ladder of %u nodes", r.iterations, n);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

Test(mcr_perfcases, ladder_bias_travels_across_token_edges) {
  const uint32_t n = 20000;
  for (uint64_t shuffle = 0; shuffle < 3; shuffle++) {
    double best;
    stp_digraph *g = ladder(n, true, shuffle, &best);
    stp_mcr_result r = solve(g);
    assert_close(r.ratio, best, TOL_EXACT);
    /* the worklist carries the gain a quarter pass of the edges per
     * iteration (a whole pass where the numbering is scattered); without
     * it, about n/2 iterations (the sweep order only helps along
     * increasing runs of node numbers) */
    cr_assert_leq(r.iterations, 8, "%zu iterations on a ladder of %u nodes", r.iterations, n);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

/* From 50,000 nodes on (PREFETCH_FROM in solvers/mcr_howard.c), where the
 * token-free edges give no order and the numbering is scattered, the
 * worklist takes where each in-edge's source starts its in-edges from a
 * copy beside the edge (worklist_starts).  Here the gain crosses all the
 * rungs that way.  With rungs of duration loop + 16 instead of loop + 1 the
 * best cycle is no longer the hub's loop but the whole ring H -> 0 -> ...
 * -> n-2 -> H: n - 1 tokens, (n - 2)(loop + 16) + top, which beats the loop
 * by (n - 32) / (n - 1); a partial ring H -> 0 .. k -> H (k < n - 2),
 * k (loop + 16) + 3 (n - 1 - k) over k + 1 tokens, falls short of the loop
 * by 11 or more.  Unshuffled, the same graphs take the plain worklist: same
 * answers. */
Test(mcr_perfcases, ladder_gain_crosses_a_scattered_numbering) {
  const uint32_t n = 60000;
  for (uint64_t shuffle = 0; shuffle < 3; shuffle++)
    for (int ring = 0; ring < 2; ring++) {
      double best;
      stp_digraph *g = ladder_rungs(n, true, ring ? 16 : 1, shuffle, &best);
      stp_mcr_result r = solve(g);
      assert_close(r.ratio, best, TOL_EXACT);
      cr_assert_eq(r.cycle_len, ring ? n : 1, "shuffle %d, ring %d: a cycle of %zu nodes",
                   (int)shuffle, ring, r.cycle_len);
      cr_assert_leq(r.iterations, 8, "%zu iterations on a ladder of %u nodes", r.iterations, n);
      stp__mcr_result_clear(&r);
      stp__digraph_free(g);
    }
}

/* ---- two rings: policy cycles valued through their roots ---------------------
 * From 50,000 nodes on, with few token edges in the policy, a policy cycle
 * is valued through its roots (the sources of its token edges) and the
 * token-free chains between them (value_root_cycle in solvers/mcr_howard.c).
 * Two rings of 30,000 nodes: ring A holds a token on every 10th edge, ring
 * B on every 1,500th, with durations scaled so that their ratios differ by
 * one part in a million, one way or the other; a0 -> b0 (no token) and
 * b0 -> a0 (one token, duration 0) join them.  Each node has one out-edge
 * but a0, so both rings are cycles of the first policy, and the better one
 * must be recognised from the sums along its chains.  A cycle through both
 * joins takes parts of both rings plus a token of duration 0: below the
 * better ring.  The answer is the better ring's ratio, summed here. */
static stp_digraph *two_rings(uint32_t len, double b_over_a, double *best) {
  builder b = builder_new(2 * len, 2 * (uint64_t)len + 2);
  trng r = {42};
  double sum[2] = {0, 0};
  uint32_t every[2] = {10, 1500};
  double *w = malloc(2 * (size_t)len * sizeof *w);
  cr_assert_not_null(w);
  for (uint32_t t = 0; t < 2; t++)
    for (uint32_t i = 0; i < len; i++)
      sum[t] += w[t * len + i] = trng_uniform(&r, 1, 2);
  /* ratio of ring t: sum[t] * scale[t] / (len / every[t]) */
  double ratio_a = sum[0] / (len / every[0]);
  double scale_b = b_over_a * ratio_a * (len / every[1]) / sum[1];
  double check[2] = {0, 0};
  for (uint32_t t = 0; t < 2; t++)
    for (uint32_t i = 0; i < len; i++) {
      double d = t ? w[t * len + i] * scale_b : w[t * len + i];
      edge(&b, t * len + i, t * len + (i + 1) % len, d, (i + 1) % every[t] == 0);
      check[t] += d;
    }
  edge(&b, 0, len, 0, 0);
  edge(&b, len, 0, 0, 1);
  free(w);
  double ra = check[0] / (len / every[0]), rb = check[1] / (len / every[1]);
  *best = ra > rb ? ra : rb;
  return build(&b, 0);
}

Test(mcr_perfcases, two_rings_valued_through_their_roots) {
  const double factors[] = {1 - 1e-6, 1 + 1e-6};
  for (int k = 0; k < 2; k++) {
    double best;
    stp_digraph *g = two_rings(30000, factors[k], &best);
    /* Capped: values summed wrongly along the chains can keep the policy
     * climbing for the default cap of 601,000 iterations. */
    stp_mcr_options opts = {.max_iterations = 100};
    stp_mcr_result r;
    stp_error err = {0};
    cr_assert_eq(stp__mcr_howard(g, &opts, &r, &err), STP_OK, "case %d: %s", k, err.message);
    check_cycle(g, &r);
    assert_close(r.ratio, best, 1e-12);
    cr_assert_eq(r.cycle_len, 30000, "case %d: a cycle of %zu nodes", k, r.cycle_len);
    cr_assert_eq(r.cycle[0] < 30000, k == 0, "case %d: the critical cycle is on the wrong ring", k);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

/* ---- random: few nodes behind a new best cycle --------------------------------
 * Like bench/mcr's random family: 2 to 4 out-edges per node to random
 * targets, durations in [1, 100); an edge forward in a hidden random order
 * holds no token, any other 1 to 3.  On these graphs a new best policy
 * cycle often leaves only a few nodes behind it, which the spread step
 * then switches from their own side (first_round_from_behind in
 * solvers/mcr_howard.c, for at most n / 64 of them: six times over these
 * ten graphs).  Any switch to a node on par leaves Howard correct, so this
 * certifies the answers where that path runs (by Bellman-Ford, and under
 * the sanitizers); that it switches as the search would was checked on the
 * bench graphs (same iterations and cycles, bench/README.md, lever 18).
 * random_graph() also makes denser ones, with loops on half the nodes. */
static stp_digraph *random_graph(uint32_t n, uint64_t seed, size_t dmin, size_t dmax, bool loops) {
  trng r = {seed};
  uint32_t *pos = random_permutation(n, &r);
  builder b = builder_new(n, (dmax + loops) * (uint64_t)n);
  for (uint32_t u = 0; u < n; u++) {
    for (size_t k = trng_int(&r, dmin, dmax); k > 0; k--) {
      uint32_t v = (uint32_t)trng_int(&r, 0, n - 1);
      edge(&b, u, v, trng_uniform(&r, 1, 100), pos[v] > pos[u] ? 0 : (uint32_t)trng_int(&r, 1, 3));
    }
    if (loops && trng_int(&r, 0, 1)) /* half the nodes, ratio up to 300 */
      edge(&b, u, u, trng_uniform(&r, 1, 300), 1);
  }
  free(pos);
  return build(&b, 0);
}

static stp_digraph *random_tokens(uint32_t n, uint64_t seed) {
  return random_graph(n, seed, 2, 4, false);
}

static void check_optimal(const stp_digraph *g, const stp_mcr_result *r);

Test(mcr_perfcases, random_tokens_spread_from_the_nodes_behind) {
  for (uint64_t seed = 1; seed <= 10; seed++) {
    stp_digraph *g = random_tokens(10000, seed);
    stp_mcr_result r = solve(g);
    check_optimal(g, &r);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

/* ---- torus: long critical cycles; large durations ---------------------------
 * K x K grid with wraparound, edges right and down, the wraparound edges
 * hold one token (every cycle wraps).  With durations offset by 1e6 the
 * biases grow to about 1e9 while the differences that decide the optimum
 * stay near 1: the improvement tolerance must follow the magnitudes. */
static stp_digraph *torus(uint32_t k, double offset, uint64_t seed) {
  builder b = builder_new(k * k, 2 * (uint64_t)k * k);
  trng r = {seed};
  for (uint32_t i = 0; i < k; i++)
    for (uint32_t j = 0; j < k; j++) {
      edge(&b, i * k + j, i * k + (j + 1) % k, offset + trng_uniform(&r, 1, 100), j + 1 == k);
      edge(&b, i * k + j, ((i + 1) % k) * k + j, offset + trng_uniform(&r, 1, 100), i + 1 == k);
    }
  return build(&b, 0);
}

static void check_optimal(const stp_digraph *g, const stp_mcr_result *r) {
  /* the returned cycle attains the ratio (check_cycle) and no cycle beats
   * it by more than 1e-9 relative */
  cr_assert(no_cycle_above(g, r->ratio * (1 + 1e-9)), "a cycle has a ratio above %.17g",
            r->ratio);
}

Test(mcr_perfcases, torus_is_certified_optimal) {
  for (uint64_t seed = 1; seed <= 3; seed++) {
    stp_digraph *g = torus(40, 0, seed);
    stp_mcr_result r = solve(g);
    check_optimal(g, &r);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

Test(mcr_perfcases, torus_with_large_durations_is_certified_optimal) {
  for (uint64_t seed = 1; seed <= 3; seed++) {
    stp_digraph *g = torus(40, 1e6, seed);
    stp_mcr_result r = solve(g);
    check_optimal(g, &r);
    stp__mcr_result_clear(&r);
    stp__digraph_free(g);
  }
}

/* ---- Strict event graphs with every time equal: ties everywhere --------------
 * Every out-edge of a transition has the same duration and many cycles have
 * the same ratio (Boost's Howard stops at its 100-iteration cap below the
 * optimum on the 1e5-transition instance, see bench/README.md).  With every
 * time 1, processor p of team i has a cycle of R/R_i rows x its actions per
 * row (2 for the first and last stages, 3 in between) holding one token,
 * and no cycle does better than the busiest processor. */
static stp_mapping *homogeneous_strict(const size_t *teams, size_t nstages) {
  char json[4096];
  size_t at = (size_t)snprintf(json, sizeof json, "{\"model\": \"strict\", \"bandwidth\": 1,"
                                                  " \"stages\": [");
  for (size_t i = 0; i < nstages; i++)
    at += (size_t)snprintf(json + at, sizeof json - at,
                           "%s{\"name\": \"T%zu\", \"work\": 1, \"output\": 1}", i ? "," : "", i);
  at += (size_t)snprintf(json + at, sizeof json - at, "], \"processors\": [");
  size_t p = 0;
  for (size_t i = 0; i < nstages; i++)
    for (size_t k = 0; k < teams[i]; k++, p++)
      at += (size_t)snprintf(json + at, sizeof json - at, "%s{\"name\": \"P%zu\", \"speed\": 1}",
                             p ? "," : "", p);
  at += (size_t)snprintf(json + at, sizeof json - at, "], \"mapping\": [");
  p = 0;
  for (size_t i = 0; i < nstages; i++) {
    at += (size_t)snprintf(json + at, sizeof json - at, "%s[", i ? "," : "");
    for (size_t k = 0; k < teams[i]; k++, p++)
      at += (size_t)snprintf(json + at, sizeof json - at, "%s\"P%zu\"", k ? "," : "", p);
    at += (size_t)snprintf(json + at, sizeof json - at, "]");
  }
  snprintf(json + at, sizeof json - at, "]}");
  cr_assert_lt(at + 2, sizeof json);
  return load_json(json);
}

Test(mcr_perfcases, homogeneous_strict_graphs_with_ties) {
  const size_t cases[][4] = {{4, 25, 11, 13}, {1, 11, 13, 1}, {6, 10, 15, 4}, {3, 5, 7, 2}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    stp_mapping *m = homogeneous_strict(cases[c], 4);
    stp_teg *t;
    stp_error err = {0};
    cr_assert_eq(stp__teg_build(m, STP_MODEL_STRICT, UINT64_MAX, &t, &err), STP_OK, "%s",
                 err.message);
    double busiest = 0;
    for (size_t i = 0; i < 4; i++) {
      double actions = (i == 0 || i == 3) ? 2 : 3;
      busiest = fmax(busiest, actions * (double)t->nrows / (double)cases[c][i]);
    }
    stp_mcr_result r = solve(t->g);
    assert_close(r.ratio, busiest, TOL_EXACT);
    check_optimal(t->g, &r);
    stp__mcr_result_clear(&r);
    stp__teg_free(t);
    stp_mapping_free(m);
  }
}

/* ---- large graphs with few tokens: evaluation along token-free chains -------
 * From 50,000 nodes on, when at most one policy edge in 8 holds tokens, the
 * evaluation values token-free chains in two passes over the internal
 * order instead of walking them.  Two tori of K x K (durations U[1, 100],
 * plus 50 on the better one), the first pointing into the second by one
 * token-free edge: with the better torus second every node reaches it (one
 * class); with it first the second torus cannot reach it (components); with
 * a sink hanging off the second torus, components from the start. */
Test(mcr_perfcases, two_tori_valued_along_token_free_chains) {
  const uint32_t k = 160, kk = k * k;
  for (int c = 0; c < 3; c++) {
    bool sink = c == 2, better_first = c != 1;
    builder b = builder_new(2 * kk + sink, 4 * (uint64_t)kk + 2);
    trng r = {(uint64_t)c + 1};
    for (uint32_t t = 0; t < 2; t++) {
      double extra = (t == 0) == better_first ? 50 : 0;
      for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < k; j++) {
          uint32_t u = t * kk + i * k + j;
          edge(&b, u, t * kk + i * k + (j + 1) % k, extra + trng_uniform(&r, 1, 100), j + 1 == k);
          edge(&b, u, t * kk + ((i + 1) % k) * k + j, extra + trng_uniform(&r, 1, 100), i + 1 == k);
        }
    }
    edge(&b, 0, kk, 1, 0);
    if (sink)
      edge(&b, kk, 2 * kk, 1, 0);
    stp_digraph *g = build(&b, 0);
    stp_mcr_result res = solve(g);
    check_optimal(g, &res);
    cr_assert_eq(res.cycle[0] < kk, better_first, "the critical cycle is not in the better torus");
    stp__mcr_result_clear(&res);
    stp__digraph_free(g);
  }
}

/* ---- the sweep by blocks --------------------------------------------------
 * The improvement sweeps the edges either one at a time or by blocks
 * (sweep_blocks() in solvers/mcr_howard.c: a branch-free pass lists the
 * edges that would raise their source, then only those are relaxed, and
 * the rest of a block goes one edge at a time once a raise has changed a
 * value that a later edge of the block reads).  Both must give the same
 * result to the last bit: the ratio, the cycle and the number of
 * iterations.  The graphs: random ones (where the solver chooses blocks,
 * and some blocks go stale), dense random ones with loops (below), and
 * chains, ladders, tori and two rings (where raises run along neighbouring
 * nodes, so that most blocks go stale). */
static stp_mcr_result solve_sweeping(const stp_digraph *g, stp_mcr_sweep sweep) {
  stp_mcr_result r;
  stp_error err = {0};
  stp_mcr_options opts = {.sweep = sweep};
  cr_assert_eq(stp__mcr_howard(g, &opts, &r, &err), STP_OK, "%s", err.message);
  check_cycle(g, &r);
  return r;
}

static void check_sweeps_agree(stp_digraph *g, const char *what) {
  stp_mcr_result a = solve_sweeping(g, STP_MCR_SWEEP_EDGES);
  stp_mcr_result b = solve_sweeping(g, STP_MCR_SWEEP_BLOCKS);
  cr_assert(memcmp(&a.ratio, &b.ratio, sizeof a.ratio) == 0,
            "%s: ratio %.17g by edges, %.17g by blocks", what, a.ratio, b.ratio);
  cr_assert_eq(a.iterations, b.iterations, "%s: %zu iterations by edges, %zu by blocks", what,
               a.iterations, b.iterations);
  cr_assert_eq(a.cycle_len, b.cycle_len, "%s", what);
  cr_assert(memcmp(a.cycle, b.cycle, a.cycle_len * sizeof *a.cycle) == 0, "%s: another cycle",
            what);
  stp__mcr_result_clear(&a);
  stp__mcr_result_clear(&b);
  stp__digraph_free(g);
}

/* Dense random graphs with loops: in-degrees of 10 to 30 put a block of 64
 * in-edges on a few targets, and loops of ratio up to 300 raise their own
 * node early on, so that raised sources fall inside their block often,
 * the target of the current edge and the block's last one included. */
static stp_digraph *dense_with_loops(uint32_t n, uint64_t seed) {
  return random_graph(n, seed, 10, 30, true);
}

Test(mcr_perfcases, sweeps_by_blocks_and_by_edges_agree) {
  for (uint64_t seed = 1; seed <= 40; seed++)
    check_sweeps_agree(dense_with_loops(200, seed), "dense with loops");
  double best;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    check_sweeps_agree(random_tokens(10000, seed), "random, 10000 nodes");
    check_sweeps_agree(random_tokens(500, seed), "random, 500 nodes");
    check_sweeps_agree(torus(40, 0, seed), "torus");
    check_sweeps_agree(chain(3000, seed - 1), "chain");
    check_sweeps_agree(ladder(3000, seed % 2, seed - 1, &best), "ladder");
  }
  check_sweeps_agree(two_rings(3000, 1.5, &best), "two rings");
}
