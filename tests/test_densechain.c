/* test_densechain.c: the dense enumerate-and-solve route (engine/densechain.h)
 * and the two chains that take it, each against an independent reference:
 * - a closed cyclic network of exponential servers (product form: the
 *   throughput is G(k-1) / G(k)), enumerated with keys of two encodings,
 *   one byte per station or a rank in base k + 1 (the numbering is the
 *   search's alone, so the same number to the last bit);
 * - the generic reachability chain (engine/reach.c, packed markings) on
 *   random strongly connected event graphs against the naive enumeration
 *   and dense Gaussian elimination of tests/support/chainref (tolerance
 *   TOL_SOLVE: an iterative solve to a residual of about 1e-13 against a
 *   direct one), and against the general route (stp_chain and the general
 *   level-order Gauss-Seidel) on the very same moves (TOL_EXACT: the same
 *   sweeps in the same order); places whose bound (the fewest tokens on a
 *   cycle through them) is far below the component's total, and a place of
 *   300 tokens (a 9-bit field) against a birth-death closed form;
 * - the Overlap pattern chain (stp__pattern_exp_rate, numbered level by
 *   level) against UMFPACK on the general chain in rank order
 *   (stp__pattern_chain; TOL_SOLVE), on random heterogeneous patterns. */
#include "engine/densechain.h"
#include "engine/graph.h"
#include "engine/reach.h"
#include "models/pipeline/pattern_chain.h"
#include "support/chainref.h"
#include "support/graphutil.h"
#include "support/testutil.h"

#include <stdlib.h>
#include <string.h>

/* ---- a closed cyclic network: c stations, k customers ------------------------ */

typedef struct ring {
  unsigned c, k;
  bool ranked; /* keys as ranks: digits base k + 1 */
} ring;

/* Occupancy of station i in key m (a byte per station, or a base-(k+1) digit). */
static unsigned occ(const ring *r, uint64_t m, unsigned i) {
  if (!r->ranked)
    return (unsigned)(m >> (8 * i)) & 0xff;
  for (unsigned j = 0; j < i; j++)
    m /= r->k + 1;
  return (unsigned)(m % (r->k + 1));
}

static uint64_t unit(const ring *r, unsigned i) {
  if (!r->ranked)
    return UINT64_C(1) << (8 * i);
  uint64_t u = 1;
  for (unsigned j = 0; j < i; j++)
    u *= r->k + 1;
  return u;
}

static stp_status ring_successors(void *ctx, const uint64_t *key, stp_dense_row *row,
                                  stp_error *err) {
  const ring *r = ctx;
  (void)err;
  for (unsigned i = 0; i < r->c; i++) {
    if (occ(r, key[0], i) == 0)
      continue;
    uint64_t *next = stp__dense_row_next(row);
    cr_assert(next);
    *next = key[0] - unit(r, i) + unit(r, (i + 1) % r->c);
    stp__dense_row_add(row, i);
  }
  return STP_OK;
}

/* The throughput of station 0 through the dense route. */
static double ring_rate(const ring *r, const double *mu, stp_ctmc_info *info) {
  uint64_t start = (uint64_t)r->k * unit(r, 0);
  stp_dense_source src = {.words = 1, .initial = &start,
                          .nlabels = r->c, .rate = mu, .expand = ring_successors,
                          .ctx = (void *)r, .max_states = 1000000};
  stp_dense_chain dc;
  stp_error err = {0};
  cr_assert_eq(stp__dense_enumerate(&src, &dc, &err), STP_OK, "%s", err.message);
  uint8_t counted[8] = {1};
  stp_options o;
  stp_options_init(&o);
  double rate;
  cr_assert_eq(stp__dense_rate(&dc, counted, &o, &rate, info, &err), STP_OK, "%s", err.message);
  stp__dense_chain_free(&dc);
  return rate;
}

/* G(n): the sum over the occupancies of n customers of prod (1/mu_i)^n_i. */
static double ring_g(const double *mu, unsigned c, unsigned n) {
  if (c == 1)
    return pow(1 / mu[0], n);
  double g = 0;
  for (unsigned j = 0; j <= n; j++)
    g += pow(1 / mu[c - 1], j) * ring_g(mu, c - 1, n - j);
  return g;
}

Test(densechain, cyclic_network_matches_its_product_form_hashed_and_ranked) {
  const double mu[] = {1.0, 2.5, 0.7, 3.1, 1.9};
  for (unsigned c = 2; c <= 5; c++)
    for (unsigned k = 1; k <= 9; k += 4) {
      stp_ctmc_info hi, ri;
      ring hashed = {c, k, false}, ranked = {c, k, true};
      double h = ring_rate(&hashed, mu, &hi), r = ring_rate(&ranked, mu, &ri);
      assert_close(h, ring_g(mu, c, k - 1) / ring_g(mu, c, k), TOL_SOLVE);
      cr_assert_eq(h, r, "hashed %.17g, ranked %.17g: the same numbering", h, r);
      cr_assert_eq(hi.states, ri.states);
      cr_assert_eq(hi.iterations, ri.iterations);
      cr_assert_str_eq(hi.solver, "gauss-seidel (level order, compact)");
    }
}

Test(densechain, stops_at_max_states_and_says_so) {
  ring r = {4, 6, false};
  const double mu[] = {1, 2, 3, 4};
  uint64_t start = 6;
  stp_dense_source src = {.words = 1, .initial = &start, .nlabels = 4, .rate = mu,
                          .expand = ring_successors, .ctx = &r, .max_states = 50};
  stp_dense_chain dc;
  stp_error err = {0};
  cr_assert_eq(stp__dense_enumerate(&src, &dc, &err), STP_ELIMIT);
  cr_assert(dc.full);
  cr_assert_leq(dc.expanded, 50);
  stp__dense_chain_free(&dc);
}

/* ---- the reachability chain of random event graphs ----------------------------- */

/* A random strongly connected event graph: a ring t0 -> ... -> t(n-1) -> t0
 * with `ring_tokens` on its closing place, plus extra places: forward ones
 * (a < b) with 0 to 1 tokens, backward or self-loops with 1 to 3 (every
 * cycle crosses a backward place or is a self-loop, so every cycle is
 * marked). */
static stp_graph *random_teg(trng *rng, size_t n, unsigned ring_tokens, size_t extra) {
  stp_graph *g = tg_new();
  for (size_t t = 0; t < n; t++)
    tg_add(g, NULL, trng_uniform(rng, 0.2, 5), NULL);
  for (size_t t = 0; t + 1 < n; t++)
    tg_place(g, t, t + 1, 0);
  tg_place(g, n - 1, 0, ring_tokens);
  for (size_t e = 0; e < extra; e++) {
    size_t a = trng_int(rng, 0, n - 1), b = trng_int(rng, 0, n - 1);
    tg_place(g, a, b, a < b ? trng_int(rng, 0, 1) : trng_int(rng, 1, 3));
  }
  return g;
}

/* Throughput by the naive reference: markings by linear search, pi by
 * Gaussian elimination; the rate of transition 0 (one SCC, no outputs). */
static double reference_rate(const stp_graph *g, size_t *states) {
  stp_digraph *d;
  stp_error err = {0};
  cr_assert_eq(stp__graph_digraph(g, false, &d, &err), STP_OK, "%s", err.message);
  ref_chain r = ref_enumerate(d, g->time, 800);
  double *pi = ref_stationary(&r);
  uint8_t *counted = calloc(g->nt, 1);
  counted[0] = 1;
  double rate = ref_rate(&r, pi, counted);
  *states = r.n;
  free(counted);
  free(pi);
  ref_chain_free(&r);
  stp__digraph_free(d);
  return rate;
}

static double dense_rate(const stp_graph *g, stp_reach_stats *st) {
  stp_error err = {0};
  stp_control none = {0};
  double rate;
  cr_assert_eq(stp__reach_throughput(g, 1000000, &none, &rate, st, &err), STP_OK, "%s",
               err.message);
  return rate;
}

Test(densechain, reach_matches_naive_enumeration_and_elimination) {
  trng rng = {14};
  int tried = 0;
  for (int round = 0; round < 60; round++) {
    size_t n = trng_int(&rng, 2, 6);
    stp_graph *g = random_teg(&rng, n, (unsigned)trng_int(&rng, 1, 3), trng_int(&rng, 0, 4));
    stp_digraph *d;
    stp_error err = {0};
    cr_assert_eq(stp__graph_digraph(g, false, &d, &err), STP_OK);
    ref_chain probe = ref_enumerate(d, g->time, 100000); /* skip chains too big to eliminate */
    size_t size = probe.n;
    ref_chain_free(&probe);
    stp__digraph_free(d);
    if (size > 800) {
      stp_graph_free(g);
      continue;
    }
    size_t states;
    double want = reference_rate(g, &states);
    stp_reach_stats st;
    double got = dense_rate(g, &st);
    assert_close(got, want, TOL_SOLVE);
    cr_assert_eq(st.states, states);
    cr_assert_eq(st.components, 1);
    tried++;
    stp_graph_free(g);
  }
  cr_assert_geq(tried, 40, "only %d graphs were small enough", tried);
}

/* Place bounds far below the total: a one-token ring t0 -> t1 -> t2 -> t0
 * and a pair t0 <-> t3 holding 40 tokens (total 41; the ring's places take
 * one bit, the pair's six). */
Test(densechain, reach_packs_places_to_their_cycles_bounds) {
  stp_graph *g = tg_new();
  const double time[] = {1.3, 0.4, 2.2, 0.9};
  for (size_t t = 0; t < 4; t++)
    tg_add(g, NULL, time[t], NULL);
  tg_place(g, 0, 1, 0);
  tg_place(g, 1, 2, 0);
  tg_place(g, 2, 0, 1);
  tg_place(g, 0, 3, 25);
  tg_place(g, 3, 0, 15);
  size_t states;
  double want = reference_rate(g, &states);
  stp_reach_stats st;
  assert_close(dense_rate(g, &st), want, TOL_SOLVE);
  cr_assert_eq(st.states, states);
  stp_graph_free(g);
}

/* Two transitions a <-> b with N = 300 tokens: the tokens in a -> b are a
 * birth-death chain on 0..N (a fires while b -> a is marked, at lambda; b
 * at mu): pi(n) ~ (lambda / mu)^n, throughput lambda (1 - pi(N)). */
Test(densechain, reach_fields_wider_than_a_byte) {
  const unsigned N = 300;
  stp_graph *g = tg_new();
  size_t a = tg_add(g, NULL, 1 / 1.7, NULL), b = tg_add(g, NULL, 1 / 2.3, NULL);
  tg_place(g, a, b, 0);
  tg_place(g, b, a, N);
  double rho = 1.7 / 2.3, z = 0, last = 0;
  for (unsigned n = 0; n <= N; n++) {
    last = pow(rho, n);
    z += last;
  }
  stp_reach_stats st;
  assert_close(dense_rate(g, &st), 1.7 * (1 - last / z), TOL_SOLVE);
  cr_assert_eq(st.states, N + 1);
  stp_graph_free(g);
}

/* The dense route against the general one on the same moves: the general
 * stp_chain of the same enumeration, solved by stationary.c. */
Test(densechain, dense_solve_matches_the_general_route_on_the_same_moves) {
  const double mu[] = {0.8, 2.0, 1.1, 3.0};
  ring r = {4, 7, false};
  uint64_t start = 7;
  stp_dense_source src = {.words = 1, .initial = &start, .nlabels = 4, .rate = mu,
                          .expand = ring_successors, .ctx = &r, .max_states = 100000};
  stp_dense_chain dc;
  stp_error err = {0};
  cr_assert_eq(stp__dense_enumerate(&src, &dc, &err), STP_OK, "%s", err.message);
  uint8_t counted[4] = {0, 0, 1, 0};
  stp_options o;
  stp_options_init(&o);
  double dense, general, *pi;
  stp_ctmc_info di, gi;
  cr_assert_eq(stp__dense_rate(&dc, counted, &o, &dense, &di, &err), STP_OK, "%s", err.message);
  stp_chain *c;
  cr_assert_eq(stp__dense_to_chain(&dc, counted, &c, &err), STP_OK);
  cr_assert_eq(stp__chain_solve(c, &o, STP_STATIONARY_ITERATIVE, &pi, &general, &gi, &err),
               STP_OK, "%s", err.message);
  assert_close(dense, general, TOL_EXACT);
  cr_assert_eq(di.iterations, gi.iterations);
  free(pi);
  cr_assert_eq(stp__chain_solve(c, &o, STP_STATIONARY_DIRECT, &pi, &general, &gi, &err), STP_OK,
               "%s", err.message);
  assert_close(dense, general, TOL_SOLVE);
  free(pi);
  stp__chain_free(c);
  stp__dense_chain_free(&dc);
}

/* ---- the Overlap pattern chain ------------------------------------------------------ */

/* The pattern u x v with times drawn from rng, solved by the dense route
 * (*dense, *di) and, as the general chain in rank order, by `method`
 * (*general, *gi); returns the general chain's state count. */
static uint64_t pattern_both_ways(size_t u, size_t v, trng *rng, const stp_options *o,
                                  stp_stationary_method method, double *dense,
                                  stp_ctmc_info *di, double *general, stp_ctmc_info *gi) {
  double *t = malloc(u * v * sizeof *t);
  for (size_t k = 0; k < u * v; k++)
    t[k] = trng_uniform(rng, 0.1, 10);
  stp_error err = {0};
  cr_assert_eq(stp__pattern_exp_rate(u, v, t, o, dense, di, &err), STP_OK, "%s", err.message);
  stp_chain *c;
  cr_assert_eq(stp__pattern_chain(u, v, t, 1000000, &c, &err), STP_OK, "%s", err.message);
  double *pi;
  cr_assert_eq(stp__chain_solve(c, o, method, &pi, general, gi, &err), STP_OK, "%s",
               err.message);
  uint64_t n = (uint64_t)c->moves->nrows;
  free(pi);
  stp__chain_free(c);
  free(t);
  return n;
}

Test(densechain, pattern_matches_umfpack_on_the_rank_ordered_chain) {
  trng rng = {17};
  stp_options o;
  stp_options_init(&o);
  int tried = 0;
  for (size_t u = 1; u <= 8; u++)
    for (size_t v = 1; v <= 9; v++) {
      uint64_t count;
      if (stp__gcd_u64(u, v) != 1 || !stp__pattern_state_count(u, v, &count) || count > 20000)
        continue;
      double dense, direct;
      stp_ctmc_info di, gi;
      pattern_both_ways(u, v, &rng, &o, STP_STATIONARY_DIRECT, &dense, &di, &direct, &gi);
      assert_close(dense, direct, TOL_SOLVE);
      cr_assert_eq(di.states, count);
      if (u > 1 && v > 1)
        cr_assert_str_eq(di.solver, "gauss-seidel (level order, compact)");
      /* Numbered level by level (completed data sets mod uv): the period the
       * solver finds in the moves is uv only if every move goes from one
       * level to the next. */
      if (u * v > 1)
        cr_assert_eq(di.period, u * v, "%zu x %zu: period %u", u, v, di.period);
      tried++;
    }
  cr_assert_geq(tried, 30);
}

/* Patterns of more than 64 letters (a + b - 1 > 64) carry no bar mask: each
 * row is written after unranking its state.  Against UMFPACK (2 x 65:
 * 4,290 states) and the general level-order sweep on the rank-ordered
 * chain (3 x 64: 137,280 states; the same iterates up to the order of the
 * sums, so TOL_EXACT). */
Test(densechain, long_patterns_unrank_their_states) {
  trng rng = {65};
  stp_options o;
  stp_options_init(&o);
  const size_t uv[][2] = {{2, 65}, {64, 3}};
  for (size_t i = 0; i < 2; i++) {
    size_t u = uv[i][0], v = uv[i][1];
    /* UMFPACK where it is cheap, the general level-order sweep beyond. */
    uint64_t count;
    cr_assert(stp__pattern_state_count(u, v, &count));
    bool small = count <= 5000;
    double dense, general;
    stp_ctmc_info di, gi;
    uint64_t n = pattern_both_ways(u, v, &rng, &o,
                                   small ? STP_STATIONARY_DIRECT : STP_STATIONARY_ITERATIVE,
                                   &dense, &di, &general, &gi);
    assert_close(dense, general, small ? TOL_SOLVE : TOL_EXACT);
    cr_assert_eq(di.states, n);
    cr_assert_eq(n, count);
    if (!small)
      cr_assert_eq(di.iterations, gi.iterations);
  }
}
