/* fuzz_params.c: libFuzzer target of the option-driven analyses, whose
 * inputs are numbers rather than files: reduction trees (streamtp_reduce.h),
 * block-cyclic redistributions (streamtp_redistribute.h) and the broadcast
 * trees of Table 1 (stp_bcast_model_dag).  The input bytes pick the family
 * and its parameters (fuzz_bytes.h) up to the sizes where issue 26 found
 * unbounded time and memory (reduce n = 10^8, redistribute grids of up to
 * 2 x 10^6 cells, times of 1e308), with a small memory budget and work limit:
 * every refusal must say why, and every result is checked (fuzz_check.h)
 * against an independent computation:
 *   reduce: Lemma 5's lower bound <= makespan, <= Proposition 6's upper
 *     bound (optimal tree, Algorithm 1) and the schedule's length bound
 *     (Algorithms 2, 3); the DAG of the schedule gives the same makespan and
 *     at least stp_reduce_ideals_lower ideals;
 *   redistribute: the schedule passes its check, NS >= ns_opt, the steps
 *     hold every message, cost = alpha NS + beta (M/L) TC, the exponential
 *     cost >= it, and the barrier DAG's makespan is the cost;
 *   bcast model: finite, at least L + g (one transfer). */
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "streamtp_bcast.h"
#include "streamtp_redistribute.h"
#include "streamtp_reduce.h"

#include <stdint.h>
#include <stdlib.h>

static const uint64_t budgets[] = {1 << 20, 8 << 20, 16 << 20};

/* The DAG g analysed with a small chain cap: its checked result's
 * deterministic makespan (NaN when refused); its ideals into *states. */
static double dag_makespan(stp_graph *g, uint64_t *states) {
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.max_states = 2000;
  stp_graph_result r;
  stp_error err = {0};
  *states = 0;
  if (stp_graph_analyze(g, &o, &r, &err) != STP_OK) {
    fuzz_refusal(&err);
    return NAN;
  }
  fuzz_check_graph_result(&r);
  double m = r.det_makespan;
  if (r.exp_computed)
    *states = r.exp_states;
  stp_graph_result_free(&r);
  return m;
}

static void fuzz_reduce(fuzz_bytes *b) {
  stp_reduce_spec spec;
  stp_reduce_spec_init(&spec, fuzz_size(b, 9), fuzz_time(b), fuzz_time(b));
  spec.tree = (stp_reduce_tree)(fuzz_take(b, 1) % 3);
  spec.algorithm = (stp_reduce_algorithm)(1 + fuzz_take(b, 1) % 3);
  spec.K = fuzz_size(b, 3);
  spec.control.max_memory = FUZZ_PICK(b, budgets);
  stp_reduce *r = NULL;
  stp_error err = {0};
  if (stp_reduce_build(&spec, &r, &err) != STP_OK) {
    fuzz_refusal(&err);
    return;
  }
  double m = stp_reduce_makespan(r);
  uint64_t n = spec.n;
  fuzz_le("reduce: Lemma 5 lower bound <= makespan", stp_reduce_opt_lower(n, spec.d, spec.c), m);
  if (spec.tree == STP_REDUCE_OPTIMAL && spec.algorithm == STP_REDUCE_ALG1)
    fuzz_le("reduce: optimal makespan <= Proposition 6", m, stp_reduce_opt_upper(n, spec.d, spec.c));
  double bound = stp_reduce_length_bound(&spec);
  if (!isnan(bound))
    fuzz_le("reduce: makespan <= the length bound", m, bound);
  if (n <= 2000 && spec.algorithm != STP_REDUCE_ALG2) {
    stp_graph *g = NULL;
    if (stp_reduce_graph(r, &g, &err) == STP_OK) {
      uint64_t states;
      double dm = dag_makespan(g, &states);
      if (!isnan(dm))
        fuzz_near("reduce: the DAG's makespan is the schedule's", dm, m);
      if (states && spec.d > 0 && spec.c > 0 && states < stp_reduce_ideals_lower(r))
        fuzz_fail("reduce: ideals below stp_reduce_ideals_lower", (double)states,
                  (double)stp_reduce_ideals_lower(r));
      stp_graph_free(g);
    } else {
      fuzz_refusal(&err);
    }
  }
  stp_reduce_free(r);
}

static void check_redist_costs(const stp_redist *rd, const stp_redist_schedule *sc,
                               const stp_redist_info *info, fuzz_bytes *b) {
  stp_redist_cost c = {fuzz_time(b), fuzz_time(b), 0};
  uint64_t mult = 1 + fuzz_take(b, 1) % 3;
  if (info->L > UINT64_MAX / mult)
    return;
  c.M = info->L * mult;
  stp_redist_costs out;
  stp_error err = {0};
  if (stp_redist_evaluate(rd, sc, &c, &out, &err) != STP_OK) {
    fuzz_refusal(&err);
    return;
  }
  double ns = (double)stp_redist_schedule_steps(sc), tc = (double)stp_redist_schedule_tc(sc);
  fuzz_near("redistribute: cost = alpha NS + beta (M/L) TC", out.cost,
            c.alpha * ns + c.beta * (double)mult * tc);
  fuzz_le("redistribute: cost <= exponential cost", out.cost, out.exp_cost);
  if (info->messages <= 2000) {
    stp_graph *g = NULL;
    if (stp_redist_schedule_graph(rd, sc, &c, &g, &err) == STP_OK) {
      uint64_t states;
      double dm = dag_makespan(g, &states);
      if (!isnan(dm))
        fuzz_near("redistribute: the barrier DAG's makespan is the cost", dm, out.cost);
      stp_graph_free(g);
    } else {
      fuzz_refusal(&err);
    }
  }
}

static void fuzz_redistribute(fuzz_bytes *b) {
  uint64_t P = fuzz_size(b, 4), Q = fuzz_size(b, 4), r = fuzz_size(b, 6), s = fuzz_size(b, 6);
  stp_redist_strategy strategy = (stp_redist_strategy)(fuzz_take(b, 1) % 5);
  static const double works[] = {1e4, 1e6, 1e7};
  stp_redist_options o;
  stp_redist_options_init(&o);
  o.max_work = FUZZ_PICK(b, works);
  o.max_nodes = 10000;
  o.control.max_memory = FUZZ_PICK(b, budgets);
  if (P * Q > 2000000)
    return; /* the grid is O(P Q) by design: 4292 x 3824 took 5 s under the sanitizers */
  stp_redist *rd = NULL;
  stp_error err = {0};
  if (stp_redist_new(P, Q, r, s, &rd, &err) != STP_OK) {
    fuzz_refusal(&err);
    return;
  }
  stp_redist_info info;
  stp_redist_get_info(rd, &info);
  stp_redist_schedule *sc = NULL;
  if (stp_redist_schedule_new(rd, strategy, &o, &sc, &err) != STP_OK) {
    fuzz_refusal(&err);
    stp_redist_free(rd);
    return;
  }
  if (stp_redist_schedule_check(rd, sc, &err) != STP_OK)
    fuzz_fail(err.message, (double)strategy, 0);
  uint64_t steps = stp_redist_schedule_steps(sc), held = 0, tc = 0;
  if (steps < info.ns_opt)
    fuzz_fail("redistribute: NS >= ns_opt", (double)steps, (double)info.ns_opt);
  for (uint64_t k = 0; k < steps; k++) {
    held += stp_redist_step_size(sc, k);
    tc += stp_redist_step_cost(sc, k);
  }
  if (held != info.messages || tc != stp_redist_schedule_tc(sc))
    fuzz_fail("redistribute: the steps hold every message, TC their costs", (double)held,
              (double)info.messages);
  uint64_t lower, profiles, nodes;
  stp_redist_schedule_search(sc, &lower, &profiles, &nodes);
  if (strategy == STP_REDIST_OPTIMAL && tc < lower)
    fuzz_fail("redistribute: optimal TC >= its lower bound", (double)tc, (double)lower);
  check_redist_costs(rd, sc, &info, b);
  stp_redist_schedule_free(sc);
  stp_redist_free(rd);
}

static void fuzz_bcast_model(fuzz_bytes *b) {
  stp_bcast_model_params q = {fuzz_size(b, 8), fuzz_time(b), fuzz_time(b), fuzz_size(b, 4),
                              fuzz_time(b), fuzz_time(b)};
  stp_bcast_alg a = (stp_bcast_alg)(fuzz_take(b, 1) % STP_BCAST_ALG_COUNT);
  double out;
  stp_error err = {0};
  if (stp_bcast_model_dag(a, &q, &out, &err) != STP_OK) {
    fuzz_refusal(&err);
    return;
  }
  if (isnan(out))
    return; /* no tree for this algorithm */
  int seg = a == STP_BCAST_ALG_SEG_FLAT || a == STP_BCAST_ALG_SEG_CHAIN;
  fuzz_le("bcast model: at least one transfer", q.L + (seg ? q.gs * (double)q.k : q.g), out);
  if (a == STP_BCAST_ALG_FLAT)
    fuzz_near("bcast model: flat = L + (P - 1) g", out, stp_bcast_model_formula(a, &q));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_bytes b = {data, size};
  switch (fuzz_take(&b, 1) % 3) {
  case 0: fuzz_reduce(&b); break;
  case 1: fuzz_redistribute(&b); break;
  default: fuzz_bcast_model(&b); break;
  }
  return 0;
}
