/* graph_sim.c: Monte Carlo of any event graph (stp_graph_simulate of
 * streamtp_graph.h) on the (max,+) kernel of engine/maxplus.h.
 *
 * The kernel graph is the graph itself plus one instantaneous "completion"
 * transition fed, without tokens, by every transition that feeds no other
 * without tokens (those that can finish last in a row); its completion dates
 * are max_t x_t(k).
 * - DAG: one row per run; the makespan is the completion of row 0.
 * - TEG: every transition is single-server (a 1-token self-loop is added);
 *   a run fires firings/10 rows of warm-up, then `firings` rows; the
 *   estimate is firings / (C(end) - C(warm-up)), C = the completion dates.
 *   That is the rate of the slowest transition, i.e. the firing rate of the
 *   graph also when it is not strongly connected (transition 0 of a
 *   strongly connected graph has the same rate); the throughput is that
 *   rate times the number of output transitions, when some are marked.
 * Run r (r = 0 .. runs - 1) draws from stream r of the seed (see
 * engine/montecarlo.h): the same seed gives the same numbers everywhere,
 * and the runs are independent.  Statistics: mean, sample standard
 * deviation s, and mean -+ 1.96 s / sqrt(runs). */
#include "base/core.h"
#include "engine/maxplus.h"
#include "engine/montecarlo.h"
#include "solvers/laws.h"
#include "streamtp_graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_DEFAULT_RUNS 100
#define SIM_DEFAULT_FIRINGS 10000
#define SIM_Z95 1.96

void stp_graph_sim_options_init(stp_graph_sim_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->runs = SIM_DEFAULT_RUNS;
  o->seed = 1;
  o->firings = SIM_DEFAULT_FIRINGS;
}

/* 1 when transition t feeds another transition through a token-free place. */
static stp_status feeders(const stp_graph *g, unsigned char **out, stp_error *err) {
  size_t n = stp_graph_transition_count(g), np = stp_graph_place_count(g);
  unsigned char *feeds = stp__calloc(n, 1);
  if (!feeds)
    return stp__oom(err, "preparing a simulation");
  for (size_t p = 0; p < np; p++) {
    size_t from, to;
    uint64_t tokens;
    stp_graph_place(g, p, &from, &to, &tokens);
    if (tokens == 0 && from != to)
      feeds[from] = 1;
  }
  *out = feeds;
  return STP_OK;
}

/* The kernel graph of g: transitions 0 .. n-1 as in g (law: their own, else
 * dflt; mean 0: instantaneous, no draw), transition n the completion. */
static stp_status kernel_graph(const stp_graph *g, const stp_law *dflt, uint64_t rows_max,
                               stp_mp_graph *k, stp_error *err) {
  size_t n = stp_graph_transition_count(g), np = stp_graph_place_count(g);
  bool dag = stp_graph_is_dag(g);
  unsigned char *feeds = NULL;
  STP_CHECK(stp__mp_graph_init(k, n + 1, err));
  stp_status st = feeders(g, &feeds, err);
  for (size_t t = 0; t < n && st == STP_OK; t++) {
    double mean = stp_graph_transition_time(g, t);
    const stp_law *law = stp_graph_transition_law(g, t);
    st = stp__mp_set_means(k, t, &mean, 1, err);
    if (mean > 0)
      stp__mp_set_sampler(k, t, (stp_mp_sampler){.law = law ? law : dflt});
    if (st == STP_OK && !dag)
      st = stp__mp_add_place(k, t, t, 1, err);
    if (st == STP_OK && !feeds[t])
      st = stp__mp_add_place(k, t, n, 0, err);
  }
  for (size_t p = 0; p < np && st == STP_OK; p++) {
    size_t from, to;
    uint64_t tokens;
    stp_graph_place(g, p, &from, &to, &tokens);
    st = stp__mp_add_place(k, from, to, tokens, err);
  }
  free(feeds);
  if (st == STP_OK)
    st = stp__mp_graph_compile(k, rows_max, n, err);
  if (st != STP_OK)
    stp__mp_graph_clear(k);
  return st;
}

static stp_status check_args(const stp_graph *g, const stp_graph_sim_options *o,
                             stp_graph_sim_result *r, stp_error *err) {
  if (!g || !r)
    return stp__fail(err, STP_EINVAL, "stp_graph_simulate: %s is NULL", g ? "result" : "graph");
  if (o->runs < 1)
    return stp__fail(err, STP_EINVAL, "the number of runs must be at least 1");
  if (o->runs > UINT32_MAX)
    return stp__fail(err, STP_ELIMIT, "at most %lu runs", (unsigned long)UINT32_MAX);
  if (!stp_graph_is_dag(g) && o->firings < 1)
    return stp__fail(err, STP_EINVAL, "the number of firings must be at least 1");
  return stp_graph_check(g, err);
}

/* Per-run estimates -> mean, standard deviation, 95% interval.  TEG: a run
 * completes `outputs` data sets per firing (stp_graph_set_output; none
 * marked counts as one). */
static stp_status statistics(bool dag, uint64_t firings, size_t outputs, double *value,
                             size_t runs, stp_graph_sim_result *r, stp_error *err) {
  double per_run = (double)firings * (double)(outputs > 1 ? outputs : 1);
  for (size_t k = 0; k < runs && !dag; k++) {
    if (!(value[k] > 0) || !isfinite(value[k]))
      return stp__fail(err, STP_EINVAL, "run %zu: %llu firings took a time of %g", k,
                       (unsigned long long)firings, value[k]);
    value[k] = per_run / value[k];
  }
  r->runs = runs;
  r->mean = stp__mc_mean(value, runs);
  r->stddev = stp__mc_stddev(value, runs);
  double h = SIM_Z95 * r->stddev / sqrt((double)runs);
  r->ci95_lo = r->mean - h;
  r->ci95_hi = r->mean + h;
  STP_CHECK(stp__check_finite(r->mean, "the simulated mean", err));
  STP_CHECK(stp__check_finite(r->ci95_lo, "the 95% interval's low end", err));
  return stp__check_finite(r->ci95_hi, "the 95% interval's high end", err);
}

stp_status stp_graph_simulate(const stp_graph *g, const stp_graph_sim_options *o,
                              stp_graph_sim_result *r, stp_error *err) {
  stp_graph_sim_options defaults;
  if (!o) {
    stp_graph_sim_options_init(&defaults);
    o = &defaults;
  }
  STP_CHECK(check_args(g, o, r, err));
  *r = (stp_graph_sim_result){0};
  /* one value per run, and the kernel compiled from the graph */
  uint64_t budget = stp_control_memory_budget(&o->control);
  double bytes = 8.0 * (double)o->runs + stp_graph_memory_estimate(stp_graph_transition_count(g), stp_graph_place_count(g), 1) / 2;
  if (bytes > (double)budget)
    return stp__fail_limit(err,
                           (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget,
                                       stp__u64_sat(bytes)},
                           "the simulation of %llu runs needs about %.3g GiB, above the memory "
                           "budget of %.3g GiB",
                           (unsigned long long)o->runs, bytes / 1073741824.0,
                           (double)budget / 1073741824.0);
  bool dag = stp_graph_is_dag(g);
  stp_mc_groups plan = {.groups = (uint32_t)o->runs, .replicated = true, .seed = o->seed,
                        .warmup = dag ? 0 : o->firings / 10, .per_group = dag ? 1 : o->firings};
  stp_law *exp_law = NULL;
  const stp_law *dflt = o->law;
  if (!dflt)
    STP_CHECK(stp__law_parse("exp", NULL, &exp_law, err));
  dflt = dflt ? dflt : exp_law;
  stp_mp_graph k;
  double *value = stp__calloc(o->runs, sizeof *value);
  stp_status st = value ? kernel_graph(g, dflt, stp__mc_rows_per_run(&plan), &k, err)
                        : stp__oom(err, "simulating");
  if (st == STP_OK) {
    st = stp__mc_run_groups(&k, &plan, &o->control, value, err);
    stp__mp_graph_clear(&k);
  }
  if (st == STP_OK)
    st = statistics(dag, o->firings, stp_graph_output_count(g), value, o->runs, r, err);
  free(value);
  stp__law_free(exp_law);
  return st;
}
