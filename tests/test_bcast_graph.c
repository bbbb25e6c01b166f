/* test_bcast_graph.c: broadcast schedules compiled into the generic event
 * graph: the DAG's shape, its longest path against the heuristic's
 * makespan, the exact exponential makespan against a closed form (two
 * clusters) and against a numerical integration of the makespan's law on
 * the tree (a method that shares nothing with the order-ideal chain), and
 * Monte Carlo against the exact value. */
#include "streamtp_bcast.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static stp_bcast_platform *platform(const char *json) {
  stp_error err = {0};
  stp_bcast_platform *p = NULL;
  cr_assert_eq(stp_bcast_platform_load_string(json, strlen(json), "grid.json", &p, &err),
               STP_OK, "%s", err.message);
  return p;
}

/* The 4-cluster platform of test_bcast.c (P4), worked out there by hand. */
static const char *P4 =
    "{\"clusters\": [{\"name\": \"A\", \"size\": 1, \"L\": 0, \"g\": 0},"
    " {\"name\": \"B\", \"size\": 2, \"L\": 0, \"g\": 10},"
    " {\"name\": \"C\", \"size\": 2, \"L\": 0, \"g\": 1},"
    " {\"name\": \"D\", \"size\": 2, \"L\": 0, \"g\": 5}],"
    " \"inter\": {\"L\": [[0,1,2,4],[1,0,1,3],[2,1,0,1],[4,3,1,0]],"
    "            \"g\": [[0,4,1,2],[4,0,2,1],[1,2,0,3],[2,1,3,0]]}}";

static stp_bcast_schedule schedule(const stp_bcast_platform *p, stp_bcast_heuristic h,
                                   const stp_bcast_options *o) {
  stp_bcast_schedule s;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_schedule_compute(p, o, h, &s, &err), STP_OK, "%s", err.message);
  return s;
}

static stp_graph *dag_of(const stp_bcast_platform *p, const stp_bcast_options *o,
                         const stp_bcast_schedule *s) {
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_schedule_graph(p, o, s, &g, &err), STP_OK, "%s", err.message);
  return g;
}

static stp_graph_result analyze(const stp_graph *g) {
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 1;
  stp_graph_result r;
  stp_error err = {0};
  cr_assert_eq(stp_graph_analyze(g, &go, &r, &err), STP_OK, "%s", err.message);
  return r;
}

Test(bcast_graph, shape_of_the_ecef_schedule) {
  /* ECEF on P4: A->C, A->B, C->D (test_bcast.c).  Tasks: three sends (1, 4,
   * 3), three delays (2, 1, 1), three inside broadcasts (B 10, C 1, D 5; A's
   * is 0 and omitted): 9 transitions in a tree, 8 places. */
  stp_bcast_platform *p = platform(P4);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  stp_bcast_schedule s = schedule(p, STP_BCAST_ECEF, &o);
  stp_graph *g = dag_of(p, &o, &s);
  cr_assert_eq(stp_graph_transition_count(g), 9);
  cr_assert_eq(stp_graph_place_count(g), 8);
  cr_assert(stp_graph_is_dag(g));
  size_t t, u;
  stp_error err = {0};
  cr_assert_eq(stp_graph_find(g, "send A->B", &t, &err), STP_OK);
  assert_close(stp_graph_transition_time(g, t), 4, TOL_EXACT);
  cr_assert_eq(stp_graph_find(g, "bcast A", &t, &err), STP_EINVAL); /* T_A = 0 */
  /* A's second send waits for its first: a place send A->C -> send A->B. */
  cr_assert_eq(stp_graph_find(g, "send A->C", &t, &err), STP_OK);
  cr_assert_eq(stp_graph_find(g, "send A->B", &u, &err), STP_OK);
  bool chained = false;
  for (size_t k = 0; k < stp_graph_place_count(g); k++) {
    size_t from, to;
    uint64_t tok;
    stp_graph_place(g, k, &from, &to, &tok);
    chained |= from == t && to == u && tok == 0;
  }
  cr_assert(chained);
  stp_graph_result r = analyze(g);
  assert_close(r.det_makespan, s.makespan, TOL_EXACT); /* 16 */
  stp_graph_result_free(&r);
  stp_graph_free(g);
  stp_bcast_schedule_free(&s);
  stp_bcast_platform_free(p);
}

Test(bcast_graph, longest_path_is_the_makespan_for_every_heuristic) {
  trng rng = {.s = 42};
  for (int trial = 0; trial < 20; trial++) {
    size_t c = 2 + trial % 5;
    char *json = malloc(8192);
    size_t at = (size_t)sprintf(json, "{\"clusters\": [");
    for (size_t j = 0; j < c; j++)
      at += (size_t)sprintf(json + at, "%s{\"name\": \"c%zu\", \"size\": %zu, \"L\": %.3f, "
                            "\"g\": %.3f}", j ? "," : "", j, trng_int(&rng, 1, 40),
                            trng_uniform(&rng, 0, 3), trng_uniform(&rng, 1, 9));
    double L[8][8], G[8][8];
    for (size_t i = 0; i < c; i++)
      for (size_t j = 0; j <= i; j++) {
        L[i][j] = L[j][i] = i == j ? 0 : trng_uniform(&rng, 1, 15);
        G[i][j] = G[j][i] = i == j ? 0 : trng_uniform(&rng, 10, 60);
      }
    for (int m = 0; m < 2; m++) {
      at += (size_t)sprintf(json + at, m ? "], \"g\": [" : "], \"inter\": {\"L\": [");
      for (size_t i = 0; i < c; i++) {
        at += (size_t)sprintf(json + at, "%s[", i ? "," : "");
        for (size_t j = 0; j < c; j++)
          at += (size_t)sprintf(json + at, "%s%.3f", j ? "," : "", m ? G[i][j] : L[i][j]);
        at += (size_t)sprintf(json + at, "]");
      }
    }
    sprintf(json + at, "]}}");
    stp_bcast_platform *p = platform(json);
    free(json);
    stp_bcast_options o;
    stp_bcast_options_init(&o);
    o.intra = (stp_bcast_intra)(trial % 3);
    for (int h = 0; h < STP_BCAST_HEURISTIC_COUNT; h++) {
      stp_bcast_schedule s = schedule(p, h, &o);
      stp_graph *g = dag_of(p, &o, &s);
      stp_graph_result r = analyze(g);
      assert_close(r.det_makespan, s.makespan, TOL_EXACT);
      assert_close(r.bound_lower, s.makespan, TOL_EXACT);
      cr_assert(r.exp_computed);
      cr_assert(r.exp_value >= s.makespan * (1 - TOL_EXACT));
      stp_graph_result_free(&r);
      stp_graph_free(g);
      stp_bcast_schedule_free(&s);
    }
    stp_bcast_platform_free(p);
  }
}

Test(bcast_graph, two_clusters_closed_form) {
  /* Root A (inside time a = 3), B (inside time c = 2), one send of gap
   * s = 4 and latency l = 1.5: send -> delay -> bcast B, and send -> bcast A.
   * With exponential times, E = s + E[max(U, Z)], U = delay + bcast B
   * (rates al = 1/l, be = 1/c), Z = bcast A (rate ga = 1/a);
   * E[max(U, Z)] = E[U] + E[Z] - E[min(U, Z)] and, with
   * P(U > t) = (be e^{-al t} - al e^{-be t}) / (be - al),
   * E[min] = int P(U > t) e^{-ga t} dt = (be / (al + ga) - al / (be + ga)) / (be - al).
   * Order ideals: {}, then {send} times 3 prefixes of (delay, bcast B)
   * times 2 for bcast A: 1 + 6 = 7 states. */
  stp_bcast_platform *p = platform(
      "{\"clusters\": [{\"name\": \"A\", \"size\": 2, \"L\": 0, \"g\": 3},"
      " {\"name\": \"B\", \"size\": 2, \"L\": 0, \"g\": 2}],"
      " \"inter\": {\"L\": [[0, 1.5], [1.5, 0]], \"g\": [[0, 4], [4, 0]]}}");
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  stp_bcast_schedule s = schedule(p, STP_BCAST_ECEF, &o);
  assert_close(s.makespan, 4 + 1.5 + 2, TOL_EXACT);
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 1;
  stp_graph_result r;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_schedule_analyze(p, &o, &s, &go, &r, &err), STP_OK, "%s", err.message);
  double al = 1 / 1.5, be = 1 / 2.0, ga = 1 / 3.0;
  double emin = (be / (al + ga) - al / (be + ga)) / (be - al);
  double want = 4 + (1.5 + 2) + 3 - emin;
  assert_close(r.exp_value, want, TOL_SOLVE);
  cr_assert_eq(r.exp_states, 7);
  assert_close(r.bound_upper, want, TOL_SOLVE);
  stp_graph_result_free(&r);
  stp_bcast_schedule_free(&s);
  stp_bcast_platform_free(p);
}

/* ---- E[makespan] by integrating the law of the tree ---------------------------
 * Every task of the DAG has one predecessor, so the DAG is a forest.  With
 * G_v(t) = P(v and everything after it are done within t of v's start),
 * G_v(t) = int_0^t f_v(x) prod_children G_c(t - x) dx (f_v the exponential
 * density of v's time), P(makespan <= t) = prod_roots G_r(t), and
 * E[makespan] = int_0^inf (1 - P(makespan <= t)) dt, on a grid of step h
 * (error O(h^2)). */
#define GRID 6000

static void subtree_cdf(const stp_graph *g, size_t v, double h, double *out) {
  double *prod = malloc(GRID * sizeof *prod), *child = malloc(GRID * sizeof *child);
  for (size_t k = 0; k < GRID; k++)
    prod[k] = 1;
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    size_t from, to;
    uint64_t tok;
    stp_graph_place(g, p, &from, &to, &tok);
    if (from != v)
      continue;
    subtree_cdf(g, to, h, child);
    for (size_t k = 0; k < GRID; k++)
      prod[k] *= child[k];
  }
  /* out[k] = sum over cells [ih, (i+1)h] of P(X_v in the cell) times the mean
   * of prod at the cell's ends: the exact cell masses keep out <= 1 (plain
   * trapezoids on the density overshoot 1 by O(h^2), which the integral of
   * 1 - P over a long horizon would amplify). */
  double tau = stp_graph_transition_time(g, v), *mass = child; /* child is free now */
  for (size_t i = 0; i < GRID; i++)
    mass[i] = exp(-(double)i * h / tau) - exp(-(double)(i + 1) * h / tau);
  for (size_t k = 0; k < GRID; k++) {
    double sum = 0;
    for (size_t i = 0; i < k; i++)
      sum += mass[i] * (prod[k - i] + prod[k - i - 1]) / 2;
    out[k] = sum;
  }
  free(prod);
  free(child);
}

static double integrate_makespan(const stp_graph *g, double horizon) {
  size_t n = stp_graph_transition_count(g);
  bool *has_pred = calloc(n, sizeof *has_pred);
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    size_t from, to;
    uint64_t tok;
    stp_graph_place(g, p, &from, &to, &tok);
    has_pred[to] = true;
  }
  double h = horizon / (GRID - 1);
  double *F = malloc(GRID * sizeof *F), *G = malloc(GRID * sizeof *G);
  for (size_t k = 0; k < GRID; k++)
    F[k] = 1;
  for (size_t v = 0; v < n; v++)
    if (!has_pred[v]) {
      subtree_cdf(g, v, h, G);
      for (size_t k = 0; k < GRID; k++)
        F[k] *= G[k];
    }
  double e = 0;
  for (size_t k = 0; k + 1 < GRID; k++)
    e += h * ((1 - F[k]) + (1 - F[k + 1])) / 2;
  free(has_pred);
  free(F);
  free(G);
  return e;
}

Test(bcast_graph, exact_exponential_against_integration_and_monte_carlo) {
  stp_bcast_platform *p = platform(P4);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  const stp_bcast_heuristic hs[] = {STP_BCAST_FLAT, STP_BCAST_FEF, STP_BCAST_ECEF};
  for (size_t k = 0; k < 3; k++) {
    stp_bcast_schedule s = schedule(p, hs[k], &o);
    stp_graph *g = dag_of(p, &o, &s);
    stp_graph_result r = analyze(g);
    cr_assert(r.exp_computed);
    /* The tail beyond 12 times the sum of the means is below e^-12 of it. */
    double sum = 0;
    for (size_t t = 0; t < stp_graph_transition_count(g); t++)
      sum += stp_graph_transition_time(g, t);
    assert_close(integrate_makespan(g, 12 * sum), r.exp_value, 2e-3);
    stp_graph_sim_options so;
    stp_graph_sim_options_init(&so);
    so.runs = 40000;
    so.seed = 11;
    stp_graph_sim_result m;
    stp_error err = {0};
    cr_assert_eq(stp_graph_simulate(g, &so, &m, &err), STP_OK, "%s", err.message);
    double sigma = m.stddev / sqrt((double)m.runs);
    cr_assert(fabs(m.mean - r.exp_value) <= 4.4 * sigma, "%s: Monte Carlo %.6g +- %.3g, exact "
              "%.6g", stp_bcast_heuristic_name(hs[k]), m.mean, sigma, r.exp_value);
    stp_graph_result_free(&r);
    stp_graph_free(g);
    stp_bcast_schedule_free(&s);
  }
  stp_bcast_platform_free(p);
}

Test(bcast_graph, zero_times_make_no_graph) {
  stp_bcast_platform *p = platform("{\"clusters\": [{\"name\": \"solo\", \"size\": 1, \"L\": 1, "
                                   "\"g\": 1}], \"inter\": {\"L\": [[0]], \"g\": [[0]]}}");
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  stp_bcast_schedule s = schedule(p, STP_BCAST_ECEF, &o);
  stp_graph *g = (stp_graph *)1;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_schedule_graph(p, &o, &s, &g, &err), STP_OK);
  cr_assert_null(g);
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 1;
  stp_graph_result r;
  cr_assert_eq(stp_bcast_schedule_analyze(p, &o, &s, &go, &r, &err), STP_OK);
  assert_close(r.det_makespan + 1, 1, TOL_EXACT);
  assert_close(r.exp_value + 1, 1, TOL_EXACT);
  cr_assert_eq(r.exp_states, 1);
  stp_graph_result_free(&r);
  stp_bcast_schedule_free(&s);
  stp_bcast_platform_free(p);
}

/* ---- Table 1's trees as event graphs ------------------------------------------------
 * The (max,+) values of --model (model.c's recurrence) against the longest
 * path of the same trees built as DAGs here: each send of a segment is a task
 * of time gs chained on its sender, after the sender received that segment;
 * each landing is a delay L after its send.  Binomial children are built
 * recursively (a binomial tree on [lo, lo + m) sends first to the upper
 * half [lo + h, lo + m), h = 2^(ceil(log2 m) - 1), then recurses on the
 * lower half), not with model.c's bit masks. */
typedef struct tree {
  size_t P, *nchild, **child; /* child lists in send order */
} tree;

static void add_child(tree *t, size_t v, size_t c) {
  t->child[v] = realloc(t->child[v], (t->nchild[v] + 1) * sizeof **t->child);
  t->child[v][t->nchild[v]++] = c;
}

static void binomial_children(tree *t, size_t lo, size_t m) {
  while (m > 1) {
    size_t h = 1;
    while (2 * h < m)
      h *= 2;
    add_child(t, lo, lo + h);
    binomial_children(t, lo + h, m - h);
    m = h;
  }
}

static tree make_tree(stp_bcast_alg a, size_t P) {
  tree t = {.P = P, .nchild = calloc(P, sizeof(size_t)), .child = calloc(P, sizeof(size_t *))};
  if (a == STP_BCAST_ALG_FLAT || a == STP_BCAST_ALG_SEG_FLAT)
    for (size_t c = 1; c < P; c++)
      add_child(&t, 0, c);
  else if (a == STP_BCAST_ALG_CHAIN || a == STP_BCAST_ALG_SEG_CHAIN)
    for (size_t c = 1; c < P; c++)
      add_child(&t, c - 1, c);
  else
    binomial_children(&t, 0, P);
  return t;
}

static double tree_longest_path(const tree *t, size_t k, double gap, double L) {
  stp_graph *g;
  stp_error err = {0};
  cr_assert_eq(stp_graph_new("tree", &g, &err), STP_OK);
  size_t *recv = malloc(t->P * k * sizeof *recv); /* landing task of segment s at v */
  for (size_t s = 0; s < k; s++)
    recv[s] = SIZE_MAX; /* the root has everything at time 0 */
  /* Parents before children: visit in breadth-first order. */
  size_t *queue = malloc(t->P * sizeof *queue), head = 0, tail = 0;
  queue[tail++] = 0;
  while (head < tail) {
    size_t v = queue[head++], prev = SIZE_MAX;
    for (size_t i = 0; i < t->nchild[v]; i++) {
      size_t c = t->child[v][i];
      queue[tail++] = c;
      for (size_t s = 0; s < k; s++) {
        char name[64];
        size_t x, d;
        snprintf(name, sizeof name, "x %zu %zu %zu", v, c, s);
        cr_assert_eq(stp_graph_add_transition(g, name, gap, NULL, &x, &err), STP_OK);
        if (prev != SIZE_MAX)
          stp_graph_add_place(g, prev, x, 0, &err);
        if (recv[v * k + s] != SIZE_MAX)
          stp_graph_add_place(g, recv[v * k + s], x, 0, &err);
        snprintf(name, sizeof name, "d %zu %zu %zu", v, c, s);
        cr_assert_eq(stp_graph_add_transition(g, name, L, NULL, &d, &err), STP_OK);
        stp_graph_add_place(g, x, d, 0, &err);
        recv[c * k + s] = d;
        prev = x;
      }
    }
  }
  stp_graph_options go;
  stp_graph_options_init(&go);
  go.exponential = 0;
  stp_graph_result r;
  cr_assert_eq(stp_graph_analyze(g, &go, &r, &err), STP_OK, "%s", err.message);
  double v = r.det_makespan;
  stp_graph_result_free(&r);
  stp_graph_free(g);
  free(queue);
  free(recv);
  for (size_t i = 0; i < t->P; i++)
    free(t->child[i]);
  free(t->child);
  free(t->nchild);
  return v;
}

Test(bcast_graph, table1_trees_longest_paths) {
  const stp_bcast_alg algs[] = {STP_BCAST_ALG_FLAT, STP_BCAST_ALG_SEG_FLAT, STP_BCAST_ALG_CHAIN,
                                STP_BCAST_ALG_SEG_CHAIN, STP_BCAST_ALG_BINOMIAL};
  for (size_t P = 2; P <= 40; P++)
    for (size_t a = 0; a < 5; a++) {
      bool seg = algs[a] == STP_BCAST_ALG_SEG_FLAT || algs[a] == STP_BCAST_ALG_SEG_CHAIN;
      stp_bcast_model_params q = {.P = P, .L = 7, .g = 30, .k = seg ? 3 : 1, .gs = 11};
      double want, got;
      stp_error err = {0};
      cr_assert_eq(stp_bcast_model_dag(algs[a], &q, &want, &err), STP_OK);
      tree t = make_tree(algs[a], P);
      got = tree_longest_path(&t, q.k, seg ? q.gs : q.g, q.L);
      assert_close(got, want, TOL_EXACT);
    }
}
