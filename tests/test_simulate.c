/* test_simulate.c: the Monte Carlo simulation against exact values computed
 * independently: deterministic times against Howard's cycle ratio
 * (stp_evaluate); exponential times against the closed forms of stp_evaluate
 * and, for Strict and heterogeneous Overlap, against a Markov chain solved
 * here (reachable markings of the event graph, dense LU); N.B.U.E. laws
 * within [exponential, deterministic]; a hyperexponential law below;
 * associated times (paper 6.2); reproducibility; huge lcm; errors.
 * Fixed seeds: every assertion either always passes or always fails. */
#include "models/pipeline/components.h"
#include "models/pipeline/teg.h"
#include "support/testutil.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference: exponential throughput of a bounded event graph ----------------- */
#define REF_MAX_STATES 20000
#define REF_SLOTS (1u << 16) /* hash slots, > 2 x REF_MAX_STATES */

/* The reachable markings of an event graph and the moves between them. */
typedef struct ref_chain {
  const stp_digraph *g;
  const double *time;
  uint32_t *in_off;  /* input places of transition t: in_edge[in_off[t] .. in_off[t+1]) */
  uint64_t *in_edge;
  size_t nstates;
  uint8_t *mark;     /* nstates x places */
  size_t *slot;      /* open-addressing hash: state + 1, 0 when free */
  size_t nmoves, cap;
  size_t *from, *to;
  double *rate;
} ref_chain;

static uint64_t mark_hash(const uint8_t *m, size_t n) {
  uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
  for (size_t k = 0; k < n; k++)
    h = (h ^ m[k]) * UINT64_C(1099511628211);
  return h;
}

/* Index of marking m, added when new. */
static size_t ref_state(ref_chain *c, const uint8_t *m) {
  size_t np = (size_t)c->g->m, at = (size_t)(mark_hash(m, np) & (REF_SLOTS - 1));
  while (c->slot[at]) {
    size_t s = c->slot[at] - 1;
    if (memcmp(c->mark + s * np, m, np) == 0)
      return s;
    at = (at + 1) & (REF_SLOTS - 1);
  }
  cr_assert_lt(c->nstates, REF_MAX_STATES, "reference chain too large");
  memcpy(c->mark + c->nstates * np, m, np);
  c->slot[at] = ++c->nstates;
  return c->nstates - 1;
}

static bool enabled(const ref_chain *c, const uint8_t *m, uint32_t t) {
  for (uint32_t k = c->in_off[t]; k < c->in_off[t + 1]; k++)
    if (m[c->in_edge[k]] == 0)
      return false;
  return true;
}

static void ref_move(ref_chain *c, size_t from, size_t to, double rate) {
  if (c->nmoves == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 1024;
    c->from = realloc(c->from, c->cap * sizeof *c->from);
    c->to = realloc(c->to, c->cap * sizeof *c->to);
    c->rate = realloc(c->rate, c->cap * sizeof *c->rate);
  }
  c->from[c->nmoves] = from;
  c->to[c->nmoves] = to;
  c->rate[c->nmoves++] = rate;
}

/* Breadth-first enumeration from the initial marking: an enabled transition
 * t fires at rate 1/time[t], taking a token from each input place and putting
 * one on each output place. */
static void ref_enumerate(ref_chain *c) {
  const stp_digraph *g = c->g;
  size_t np = (size_t)g->m;
  c->in_off = calloc(g->n + 1, sizeof *c->in_off);
  c->in_edge = malloc(np * sizeof *c->in_edge);
  uint32_t *fill = calloc(g->n, sizeof *fill);
  for (size_t e = 0; e < np; e++)
    c->in_off[g->dst[e] + 1]++;
  for (size_t t = 0; t < g->n; t++)
    c->in_off[t + 1] += c->in_off[t];
  for (size_t e = 0; e < np; e++)
    c->in_edge[c->in_off[g->dst[e]] + fill[g->dst[e]]++] = e;
  c->mark = malloc((size_t)REF_MAX_STATES * np);
  c->slot = calloc(REF_SLOTS, sizeof *c->slot);
  uint8_t *cur = malloc(np);
  for (size_t e = 0; e < np; e++)
    cur[e] = (uint8_t)g->tok[e];
  ref_state(c, cur);
  for (size_t s = 0; s < c->nstates; s++)
    for (uint32_t t = 0; t < g->n; t++) {
      if (!enabled(c, c->mark + s * np, t))
        continue;
      memcpy(cur, c->mark + s * np, np);
      for (uint32_t k = c->in_off[t]; k < c->in_off[t + 1]; k++)
        cur[c->in_edge[k]]--;
      for (uint64_t e = g->off[t]; e < g->off[t + 1]; e++)
        cur[e]++;
      ref_move(c, s, ref_state(c, cur), 1 / c->time[t]);
    }
  free(cur);
  free(fill);
}

/* pi Q = 0, sum pi = 1, densely: Q^T pi = 0 with its last row replaced by ones. */
static gsl_vector *ref_stationary(const ref_chain *c) {
  size_t ns = c->nstates;
  gsl_matrix *a = gsl_matrix_calloc(ns, ns);
  for (size_t k = 0; k < c->nmoves; k++) {
    *gsl_matrix_ptr(a, c->to[k], c->from[k]) += c->rate[k];
    *gsl_matrix_ptr(a, c->from[k], c->from[k]) -= c->rate[k];
  }
  for (size_t s = 0; s < ns; s++)
    gsl_matrix_set(a, ns - 1, s, 1);
  gsl_vector *b = gsl_vector_calloc(ns), *pi = gsl_vector_alloc(ns);
  gsl_vector_set(b, ns - 1, 1);
  gsl_permutation *perm = gsl_permutation_alloc(ns);
  int sign;
  cr_assert_eq(gsl_linalg_LU_decomp(a, perm, &sign), 0);
  cr_assert_eq(gsl_linalg_LU_solve(a, perm, b, pi), 0);
  gsl_permutation_free(perm);
  gsl_vector_free(b);
  gsl_matrix_free(a);
  return pi;
}

/* Long-run firing rate of the transitions with counted[t], when transition t
 * fires after an exponential time of mean time[t] (single server: every
 * transition of these graphs lies on a cycle holding one token). */
static double reference_exp_rate(const stp_digraph *g, const double *time, const bool *counted) {
  ref_chain c = {.g = g, .time = time};
  ref_enumerate(&c);
  gsl_vector *pi = ref_stationary(&c);
  double rate = 0;
  for (size_t s = 0; s < c.nstates; s++)
    for (uint32_t t = 0; t < g->n; t++)
      if (counted[t] && enabled(&c, c.mark + s * (size_t)g->m, t))
        rate += gsl_vector_get(pi, s) / time[t];
  gsl_vector_free(pi);
  free(c.in_off);
  free(c.in_edge);
  free(c.mark);
  free(c.slot);
  free(c.from);
  free(c.to);
  free(c.rate);
  return rate;
}

/* Strict with exponential times: the chain of the full event graph. */
static double reference_strict_exp(const stp_mapping *m) {
  stp_teg *t;
  stp_error err = {0};
  cr_assert_eq(stp__teg_build(m, STP_MODEL_STRICT, 100000, &t, &err), STP_OK, "%s",
               err.message);
  bool *last = calloc(t->g->n, sizeof *last);
  for (uint32_t v = 0; v < t->g->n; v++)
    last[v] = v % t->ncols == t->ncols - 1; /* completions */
  double rho = reference_exp_rate(t->g, t->time, last);
  free(last);
  stp__teg_free(t);
  return rho;
}

/* Overlap with exponential times: the minimum over components, each transfer
 * component's rate from the chain of its folded pattern. */
static double reference_overlap_exp(const stp_mapping *m) {
  stp_component_set cs;
  stp_error err = {0};
  cr_assert_eq(stp__components_build(m, &cs, &err), STP_OK);
  double best = INFINITY;
  for (size_t k = 0; k < cs.n; k++) {
    const stp_component *c = &cs.c[k];
    double rho;
    if (c->kind == STP_COMPONENT_COMPUTE) {
      rho = (double)c->g / stp__comp_time(m, c->snd[0]);
    } else {
      double *times;
      stp_digraph *g;
      cr_assert_eq(stp__pattern_times(m, c, &times, &err), STP_OK);
      cr_assert_eq(stp__pattern_graph(c, times, &g, &err), STP_OK);
      bool *all = malloc(g->n * sizeof *all);
      for (uint32_t v = 0; v < g->n; v++)
        all[v] = true;
      rho = (double)c->g * reference_exp_rate(g, times, all);
      free(all);
      stp__digraph_free(g);
      free(times);
    }
    best = fmin(best, rho);
  }
  stp__components_free(&cs);
  return best;
}

/* ---- helpers ------------------------------------------------------------------------ */
static stp_law *law(const char *spec) {
  stp_law *l;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse(spec, NULL, &l, &err), STP_OK, "%s", err.message);
  return l;
}

/* Simulate with options o and the default law `spec` (NULL: o's). */
static stp_sim_result *simulate_with(const stp_mapping *m, stp_model model, const char *spec,
                                     stp_sim_options *o) {
  stp_law *l = spec ? law(spec) : NULL;
  if (l)
    o->law = l;
  stp_sim_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_simulate(m, model, o, &r, &err), STP_OK, "%s", err.message);
  stp_law_free(l);
  return r;
}

static stp_sim_result *simulate(const stp_mapping *m, stp_model model, const char *spec,
                                uint64_t datasets, uint64_t seed) {
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.datasets = datasets;
  o.seed = seed;
  return simulate_with(m, model, spec, &o);
}

static double det_exact(const stp_mapping *m, stp_model model) {
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, model, NULL, &r, &err), STP_OK, "%s", err.message);
  double rho = r->det_throughput;
  stp_result_free(r);
  return rho;
}

/* Half-width of the simulation's interval in period space (where Student's
 * interval is symmetric), widened from 95% to 99.9%. */
static double period_halfwidth_999(const stp_sim_result *r) {
  double dof = (double)(r->groups - 1);
  double h95 = 1 / r->ci_low - r->period;
  return h95 * gsl_cdf_tdist_Pinv(0.9995, dof) / gsl_cdf_tdist_Pinv(0.975, dof);
}

static void assert_agrees(const stp_sim_result *r, double exact, const char *what) {
  double h = period_halfwidth_999(r);
  cr_assert(fabs(1 / exact - r->period) <= h,
            "%s: simulated throughput %.8g (95%% CI [%.8g, %.8g]) but the exact value %.8g is "
            "outside the 99.9%% interval (period %.8g +- %.3g)",
            what, r->throughput, r->ci_low, r->ci_high, exact, r->period, h);
}

/* lower <= throughput <= upper, up to the 99.9% interval */
static void assert_not_beyond(const stp_sim_result *r, double lower, double upper,
                              const char *what) {
  double h = period_halfwidth_999(r);
  cr_assert(r->period + h >= 1 / upper * (1 - 1e-9),
            "%s: throughput %.8g is above the deterministic bound %.8g", what, r->throughput,
            upper);
  cr_assert(r->period - h <= 1 / lower,
            "%s: throughput %.8g is below the exponential bound %.8g", what, r->throughput,
            lower);
}

/* A mapping with the given teams, times uniform in [1, 10], computations
 * scaled by comp_scale (small: transfer-bound). */
static stp_mapping *mapping(uint64_t seed, const size_t *teams, size_t n, bool homogeneous,
                            double comp_scale) {
  trng r = {seed};
  stp_mapping *m = tgen_mapping_teams(&r, teams, n, homogeneous);
  for (size_t i = 0; i < n; i++)
    m->stages[i].work *= comp_scale;
  return m;
}

/* ---- deterministic times ------------------------------------------------------------ */
/* With constant times the in-order completion times become periodic after a
 * transient: C(n) = n * period + f(n) with f bounded.  So the time of N data
 * sets is N exact periods up to a few periods (at most 3.2 were seen on
 * these mappings): the relative error is below DET_PERIODS / N. */
#define DET_PERIODS 20.0

Test(simulate, det_reproduces_the_exact_throughput) {
  const uint64_t n = 200000;
  for (uint64_t seed = 1; seed <= 12; seed++) {
    trng r = {seed};
    tgen p = {.nstages = 2 + seed % 4, .max_team = 4, .homogeneous_links = seed % 3 == 0};
    stp_mapping *m = tgen_mapping(&r, &p);
    for (int model = 0; model < 2; model++) {
      stp_sim_result *s = simulate(m, (stp_model)model, "det", n, seed);
      double exact = det_exact(m, (stp_model)model);
      assert_close(s->throughput, exact, DET_PERIODS / (double)n);
      cr_assert(s->ci_low <= s->throughput && s->throughput <= s->ci_high);
      assert_close(s->upper, exact, TOL_EXACT);
      stp_sim_result_free(s);
    }
    stp_mapping_free(m);
  }
}

Test(simulate, det_error_vanishes_as_one_over_n) {
  const size_t teams[] = {3, 4, 2};
  stp_mapping *m = mapping(5, teams, 3, false, 1);
  for (int model = 0; model < 2; model++) {
    double exact = det_exact(m, (stp_model)model);
    stp_sim_result *a = simulate(m, (stp_model)model, "det", 100000, 1);
    stp_sim_result *b = simulate(m, (stp_model)model, "det", 1000000, 1);
    double ea = fabs(a->throughput / exact - 1), eb = fabs(b->throughput / exact - 1);
    cr_assert(eb <= ea / 5 + 1e-13, "%s: error %.3g at 1e5 data sets, %.3g at 1e6",
              stp_model_name((stp_model)model), ea, eb);
    assert_close(b->throughput, exact, DET_PERIODS / 1e6);
    stp_sim_result_free(a);
    stp_sim_result_free(b);
  }
  stp_mapping_free(m);
}

/* ---- the reference chain itself ----------------------------------------------------- */
Test(simulate, reference_chain_matches_theorem_4) {
  /* homogeneous u x v pattern: u*v*lambda / (u+v-1) (docs/design.md 4) */
  const size_t teams[][2] = {{1, 1}, {2, 3}, {3, 2}, {3, 4}};
  for (size_t k = 0; k < 4; k++) {
    stp_mapping *m = mapping(k + 1, teams[k], 2, true, 1e-3);
    size_t u = teams[k][0], v = teams[k][1];
    double lambda = m->bandwidth / m->stages[0].output;
    assert_close(reference_overlap_exp(m), (double)(u * v) * lambda / (double)(u + v - 1),
                 TOL_SOLVE);
    stp_mapping_free(m);
  }
}

Test(simulate, reference_strict_chain_solved_by_hand) {
  /* Strict, teams of one, all rates 1.  P computes (c1) then sends (d); Q
   * receives (d) then computes (c2); d needs both.  States: CC (both
   * compute), WC (P waits to send, Q computes), CW (P computes, Q waits),
   * T (transfer).  CC -c1-> WC, CC -c2-> CW, WC -c2-> T, CW -c1-> T,
   * T -d-> CC.  Balance: 2 pi_CC = pi_T, pi_WC = pi_CW = pi_CC, so
   * pi = (1, 1, 1, 2) / 5 and the throughput, the rate of c2, is
   * pi_CC + pi_WC = 2/5. */
  stp_mapping *m = load_json(
      "{\"stages\": [{\"name\": \"A\", \"work\": 1, \"output\": 1}, {\"name\": \"B\", "
      "\"work\": 1}], \"processors\": [{\"name\": \"P\", \"speed\": 1}, {\"name\": \"Q\", "
      "\"speed\": 1}], \"bandwidth\": 1, \"mapping\": [[\"P\"], [\"Q\"]]}");
  assert_close(reference_strict_exp(m), 0.4, TOL_SOLVE);
  stp_sim_result *s = simulate(m, STP_MODEL_STRICT, "exp", 400000, 3);
  assert_agrees(s, 0.4, "two processors, strict");
  stp_sim_result_free(s);
  stp_mapping_free(m);
}

/* ---- exponential times -------------------------------------------------------------- */
Test(simulate, exp_overlap_homogeneous_matches_the_closed_form) {
  const size_t teams[][3] = {{2, 3, 0}, {3, 4, 0}, {4, 3, 0}, {1, 2, 3}, {2, 5, 1}};
  const size_t nst[] = {2, 2, 2, 3, 3};
  for (size_t k = 0; k < 5; k++) {
    stp_mapping *m = mapping(10 + k, teams[k], nst[k], true, 0.05);
    stp_sim_result *s = simulate(m, STP_MODEL_OVERLAP, "exp", 400000, k + 1);
    cr_assert(isfinite(s->lower), "the closed form covers homogeneous links");
    char what[32];
    snprintf(what, sizeof what, "case %zu", k);
    assert_agrees(s, s->lower, what);
    assert_close(s->lower, reference_overlap_exp(m), TOL_SOLVE);
    stp_sim_result_free(s);
    stp_mapping_free(m);
  }
}

Test(simulate, exp_overlap_heterogeneous_matches_the_pattern_chain) {
  const size_t teams[][2] = {{2, 3}, {3, 2}, {3, 4}, {1, 3}};
  for (size_t k = 0; k < 4; k++) {
    stp_mapping *m = mapping(20 + k, teams[k], 2, false, 0.05);
    stp_sim_result *s = simulate(m, STP_MODEL_OVERLAP, "exp", 400000, k + 1);
    char what[32];
    snprintf(what, sizeof what, "case %zu", k);
    assert_agrees(s, reference_overlap_exp(m), what);
    stp_sim_result_free(s);
    stp_mapping_free(m);
  }
}

Test(simulate, exp_strict_matches_the_markov_chain) {
  const size_t teams[][3] = {{1, 1, 1}, {1, 2, 0}, {2, 1, 0}, {2, 3, 0}, {1, 2, 1}};
  const size_t nst[] = {3, 2, 2, 2, 3};
  for (size_t k = 0; k < 5; k++) {
    stp_mapping *m = mapping(30 + k, teams[k], nst[k], false, 1);
    stp_sim_result *s = simulate(m, STP_MODEL_STRICT, "exp", 400000, k + 1);
    char what[32];
    snprintf(what, sizeof what, "case %zu", k);
    assert_agrees(s, reference_strict_exp(m), what);
    stp_sim_result_free(s);
    stp_mapping_free(m);
  }
}

/* ---- other laws against the bounds -------------------------------------------------- */
static const char *const nbue_laws[] = {"gamma:cv=0.5", "uniform:spread=1", "erlang:k=3",
                                        "normal:cv=0.5", "weibull:cv=0.7", "beta:a=2,b=3"};
#define NNBUE (sizeof nbue_laws / sizeof nbue_laws[0])

Test(simulate, nbue_laws_fall_within_the_bounds) {
  const size_t overlap_teams[] = {2, 3}, strict_teams[] = {2, 3};
  stp_mapping *mo = mapping(40, overlap_teams, 2, false, 0.05);
  stp_mapping *ms = mapping(41, strict_teams, 2, false, 1);
  double lo_o = reference_overlap_exp(mo), hi_o = det_exact(mo, STP_MODEL_OVERLAP);
  double lo_s = reference_strict_exp(ms), hi_s = det_exact(ms, STP_MODEL_STRICT);
  cr_assert(hi_o > lo_o * 1.05 && hi_s > lo_s * 1.05, "the bounds must be apart to test");
  for (size_t k = 0; k < NNBUE; k++) {
    stp_sim_result *s = simulate(mo, STP_MODEL_OVERLAP, nbue_laws[k], 200000, k + 1);
    cr_assert_eq(s->nbue, 1, "%s", nbue_laws[k]);
    assert_not_beyond(s, lo_o, hi_o, nbue_laws[k]);
    stp_sim_result_free(s);
    s = simulate(ms, STP_MODEL_STRICT, nbue_laws[k], 200000, k + 1);
    assert_not_beyond(s, lo_s, hi_s, nbue_laws[k]);
    stp_sim_result_free(s);
  }
  stp_mapping_free(mo);
  stp_mapping_free(ms);
}

Test(simulate, hyperexponential_falls_below_the_exponential_bound) {
  /* paper figure 17: a law that is not N.B.U.E. need not respect the bounds */
  const size_t teams[] = {2, 3};
  stp_mapping *m = mapping(50, teams, 2, true, 0.05);
  stp_sim_result *s = simulate(m, STP_MODEL_OVERLAP, "hyperexp:cv=3", 400000, 1);
  cr_assert(isfinite(s->lower));
  cr_assert_lt(s->ci_high, s->lower, "throughput %.6g, CI high %.6g, exponential %.6g",
               s->throughput, s->ci_high, s->lower);
  cr_assert_str_eq(s->position, "below");
  cr_assert_eq(s->nbue, 0);
  cr_assert_lt(s->relative, 0);
  stp_sim_result_free(s);
  /* and the exponential law itself sits within, at relative position ~0 */
  s = simulate(m, STP_MODEL_OVERLAP, "exp", 400000, 1);
  cr_assert_str_eq(s->position, "within");
  stp_sim_result_free(s);
  stp_mapping_free(m);
}

/* ---- associated times --------------------------------------------------------------- */
static stp_sim_result *simulate_assoc(const stp_mapping *m, stp_model model, const char *spec,
                                      int associated, uint64_t datasets) {
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.associated = associated;
  o.datasets = datasets;
  o.bounds = 0;
  return simulate_with(m, model, spec, &o);
}

Test(simulate, associated_with_teams_of_one_is_the_independent_case) {
  /* every round holds one data set: the same draws, the same numbers */
  const size_t teams[] = {1, 1, 1};
  stp_mapping *m = mapping(60, teams, 3, false, 1);
  for (int model = 0; model < 2; model++) {
    stp_sim_result *a = simulate_assoc(m, (stp_model)model, "gamma:cv=0.8", 1, 100000);
    stp_sim_result *b = simulate_assoc(m, (stp_model)model, "gamma:cv=0.8", 0, 100000);
    cr_assert(a->throughput == b->throughput && a->ci_low == b->ci_low,
              "%.17g != %.17g", a->throughput, b->throughput);
    stp_sim_result_free(a);
    stp_sim_result_free(b);
  }
  stp_mapping_free(m);
}

Test(simulate, associated_lies_between_independent_and_deterministic) {
  /* Theorem 8: rho(independent, same marginals) <= rho(associated) <= rho(det) */
  const size_t teams[] = {2, 3};
  stp_mapping *m = mapping(61, teams, 2, false, 0.05);
  double det = det_exact(m, STP_MODEL_OVERLAP);
  stp_sim_result *a = simulate_assoc(m, STP_MODEL_OVERLAP, "exp", 1, 400000);
  stp_sim_result *i = simulate_assoc(m, STP_MODEL_OVERLAP, "exp", 0, 400000);
  double ha = period_halfwidth_999(a), hi = period_halfwidth_999(i);
  cr_assert(a->period <= i->period + ha + hi, "associated %.6g below independent %.6g",
            a->throughput, i->throughput);
  cr_assert(a->period + ha >= 1 / det, "associated %.6g above deterministic %.6g",
            a->throughput, det);
  cr_assert(a->associated && !i->associated);
  cr_assert_str_eq(a->resource_law, "det");
  cr_assert_null(i->resource_law);
  stp_sim_result_free(a);
  stp_sim_result_free(i);
  stp_mapping_free(m);
}

Test(simulate, associated_resource_law_alone_is_the_independent_case) {
  /* task sizes det, resource factors exp: every firing has its own exp draw,
   * which is the independent exponential case (other draws, same law) */
  const size_t teams[] = {2, 3};
  stp_mapping *m = mapping(62, teams, 2, false, 0.05);
  stp_sim_options o;
  stp_sim_options_init(&o);
  stp_law *ex = law("exp");
  o.associated = 1;
  o.resource_law = ex;
  o.datasets = 400000;
  stp_sim_result *r = simulate_with(m, STP_MODEL_OVERLAP, "det", &o);
  assert_agrees(r, reference_overlap_exp(m), "det sizes x exp speeds");
  cr_assert_str_eq(r->resource_law, "exp");
  stp_sim_result_free(r);
  stp_law_free(ex);
  stp_mapping_free(m);
}

/* ---- estimation methods, reproducibility, scale ------------------------------------- */
Test(simulate, replications_agree_with_the_exact_value) {
  const size_t teams[] = {3, 4};
  stp_mapping *m = mapping(70, teams, 2, true, 0.05);
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.replications = 10;
  o.datasets = 400000;
  stp_sim_result *r = simulate_with(m, STP_MODEL_OVERLAP, NULL, &o);
  cr_assert(r->replicated && r->groups == 10);
  cr_assert_eq(r->datasets, 400000);
  cr_assert_eq(r->warmup, 4000);
  cr_assert_eq(r->simulated, 440000);
  cr_assert_eq(r->firings, 3 * 440000);
  assert_agrees(r, r->lower, "replications");
  cr_assert_str_eq(r->law, "exp");
  stp_sim_result_free(r);
  stp_mapping_free(m);
}

Test(simulate, same_seed_same_result_other_seed_other_result) {
  const size_t teams[] = {2, 3, 2};
  stp_mapping *m = mapping(80, teams, 3, false, 1);
  for (int model = 0; model < 2; model++) {
    stp_sim_result *a = simulate(m, (stp_model)model, "lognormal:cv=0.7", 50000, 9);
    stp_sim_result *b = simulate(m, (stp_model)model, "lognormal:cv=0.7", 50000, 9);
    stp_sim_result *c = simulate(m, (stp_model)model, "lognormal:cv=0.7", 50000, 10);
    cr_assert(memcmp(&a->throughput, &b->throughput, sizeof(double)) == 0);
    cr_assert(memcmp(&a->ci_low, &b->ci_low, sizeof(double)) == 0);
    cr_assert(memcmp(&a->stddev, &b->stddev, sizeof(double)) == 0);
    cr_assert(a->throughput != c->throughput);
    stp_sim_result_free(a);
    stp_sim_result_free(b);
    stp_sim_result_free(c);
  }
  stp_mapping_free(m);
}

Test(simulate, overlap_with_an_lcm_beyond_2_64) {
  /* teams of the first 16 primes: lcm = 3.3e19 paths, no full graph possible */
  const size_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
  stp_mapping *m = mapping(90, primes, 16, false, 1);
  uint64_t paths;
  cr_assert_eq(stp_mapping_paths(m, &paths, NULL), STP_ELIMIT);
  stp_sim_result *s = simulate(m, STP_MODEL_OVERLAP, "det", 100000, 1);
  assert_close(s->throughput, det_exact(m, STP_MODEL_OVERLAP), DET_PERIODS / 1e5);
  stp_sim_result_free(s);
  /* Strict needs the full graph for its bounds: missing, but it simulates */
  s = simulate(m, STP_MODEL_STRICT, "det", 20000, 1);
  cr_assert(isnan(s->upper) && isnan(s->lower));
  cr_assert_str_eq(s->position, "unknown");
  cr_assert(strstr(s->bounds_reason, "2^64"), "%s", s->bounds_reason);
  cr_assert(s->throughput > 0 && isfinite(s->throughput));
  stp_sim_result_free(s);
  stp_mapping_free(m);
}

/* ---- laws from the mapping file ----------------------------------------------------- */
#define FILE_HEAD                                                                           \
  "{\"stages\": [{\"name\": \"A\", \"work\": 2, \"output\": 3}, {\"name\": \"B\", "        \
  "\"work\": 1}], \"processors\": [{\"name\": \"P1\", \"speed\": 1}, {\"name\": \"P2\", "   \
  "\"speed\": 2}, {\"name\": \"Q1\", \"speed\": 1}, {\"name\": \"Q2\", \"speed\": 1}, "    \
  "{\"name\": \"Q3\", \"speed\": 1}], \"bandwidth\": 1, \"mapping\": [[\"P1\", \"P2\"], "  \
  "[\"Q1\", \"Q2\", \"Q3\"]]"

Test(simulate, file_laws_and_their_precedence) {
  stp_mapping *m = load_json(FILE_HEAD ", \"laws\": {\"default\": \"det\", "
                             "\"stages\": {\"B\": \"uniform:spread=0.5\"}}}");
  /* the file's default applies where nothing else is set */
  stp_sim_result *s = simulate(m, STP_MODEL_OVERLAP, NULL, 20000, 1);
  cr_assert_str_eq(s->law, "det");
  cr_assert_str_eq(s->column_law[0], "det");
  cr_assert_str_eq(s->column_law[1], "det");
  cr_assert_str_eq(s->column_law[2], "uniform:spread=0.5");
  stp_sim_result_free(s);
  /* --law replaces the default, not the per-stage entry */
  s = simulate(m, STP_MODEL_OVERLAP, "exp", 20000, 1);
  cr_assert_str_eq(s->law, "exp");
  cr_assert_str_eq(s->column_law[1], "exp");
  cr_assert_str_eq(s->column_law[2], "uniform:spread=0.5");
  stp_sim_result_free(s);
  stp_mapping_free(m);
  /* all det through the file: the exact deterministic throughput */
  m = load_json(FILE_HEAD ", \"laws\": {\"stages\": {\"A\": \"det\", \"B\": \"det\"}, "
                "\"transfers\": {\"A\": \"det\"}}}");
  s = simulate(m, STP_MODEL_STRICT, NULL, 100000, 1);
  assert_close(s->throughput, det_exact(m, STP_MODEL_STRICT), DET_PERIODS / 1e5);
  stp_sim_result_free(s);
  stp_mapping_free(m);
}

/* ---- errors ------------------------------------------------------------------------- */
Test(simulate, errors) {
  const size_t teams[] = {1, 2};
  stp_mapping *m = mapping(99, teams, 2, false, 1);
  stp_sim_options o;
  stp_sim_result *r = (stp_sim_result *)&o;
  stp_error err = {0};
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, NULL, NULL, &err), STP_EINVAL);
  cr_assert_eq(stp_simulate(NULL, STP_MODEL_OVERLAP, NULL, &r, &err), STP_EINVAL);
  cr_assert_null(r);
  stp_sim_options_init(&o);
  o.datasets = 10;
  o.batches = 20;
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "10 data sets cannot fill 20 batches"), "%s", err.message);
  o.batches = 1;
  o.datasets = 1000;
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "at least 2 batches"), "%s", err.message);
  o.batches = 20;
  o.datasets = UINT64_MAX / 2;
  o.warmup = UINT64_MAX / 2;
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_ELIMIT);
  atomic_int stop = 1;
  stp_sim_options_init(&o);
  o.control.cancel = TEST_CANCEL(&stop);
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_EINTERRUPTED);
  cr_assert_null(r);
  stp_sim_result_free(NULL);
  stp_mapping_free(m);
  /* 4097 x 4097 link times between two teams: beyond the 2^24 table limit */
  const size_t big[] = {4097, 4097};
  m = mapping(98, big, 2, true, 1);
  stp_sim_options_init(&o);
  cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_ELIMIT);
  cr_assert(strstr(err.message, "need a table of 4097 x 4097 link times"), "%s", err.message);
  cr_assert_null(r);
  stp_mapping_free(m);
}
