/* run.c: `streamtp redistribute` as one library call (stp_redist_run): the
 * checks of the whole problem before anything runs, then each strategy
 * asked for with its costs, its exact cost under a phase-type law and the
 * Monte Carlo of its barrier schedule. */
#include "streamtp_redistribute.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

void stp_redist_run_options_init(stp_redist_run_options *o) {
  memset(o, 0, sizeof *o);
  o->cost.beta = 1;
  o->strategy = STP_REDIST_STRATEGY_DEFAULT;
  o->seed = 1;
}

void stp_redist_result_free(stp_redist_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->count; i++)
    stp_redist_schedule_free(r->strategies[i].schedule);
  free(r->strategies);
  free(r->law);
  stp_redist_free(r->rd);
  free(r);
}

size_t stp_redist_result_count(const stp_redist_result *r) { return r ? r->count : 0; }

/* The strategies of o->strategy, in the order they run. */
static stp_status strategies(const stp_redist *rd, int strategy, stp_redist_strategy *list,
                             size_t *n, stp_error *err) {
  stp_error why;
  bool class_applies = stp_redist_class_applies(rd, &why) == STP_OK;
  *n = 0;
  if (strategy == STP_REDIST_STRATEGY_DEFAULT) { /* the paper's schedule */
    list[(*n)++] = class_applies ? STP_REDIST_CLASS : STP_REDIST_STEPWISE;
    return STP_OK;
  }
  if (strategy != STP_REDIST_STRATEGY_ALL) {
    if (strategy < 0 || strategy > STP_REDIST_OPTIMAL)
      return stp__fail(err, STP_EINVAL, "unknown strategy %d", strategy);
    if (strategy == STP_REDIST_CLASS && !class_applies)
      return stp__fail(err, STP_EINVAL, "%s", why.message);
    list[(*n)++] = (stp_redist_strategy)strategy;
    return STP_OK;
  }
  if (class_applies)
    list[(*n)++] = STP_REDIST_CLASS;
  list[(*n)++] = STP_REDIST_STEPWISE;
  list[(*n)++] = STP_REDIST_GREEDY;
  list[(*n)++] = STP_REDIST_CATERPILLAR;
  return STP_OK;
}

/* The problem and every check that comes before a schedule is built. */
static stp_status check_problem(const stp_redist_run_options *o, stp_redist_result *r,
                                stp_error *err) {
  STP_CHECK(stp_redist_new(o->P, o->Q, o->r, o->s, &r->rd, err));
  stp_redist_get_info(r->rd, &r->info);
  if (r->options.cost.M == 0)
    r->options.cost.M = r->info.L;
  STP_CHECK(stp_redist_cost_check(r->rd, &r->options.cost, err));
  /* the record holds the grid and every message: refused before it is built */
  STP_CHECK(stp__within_budget(&o->control, "the JSON record of the grid and its messages",
                          40.0 * (double)r->info.P * (double)r->info.Q +
                              400.0 * (double)r->info.messages, err));
  if (o->law && !(r->law = stp__strdup(stp_law_spec(o->law))))
    return stp__oom(err, "the law's spec");
  return STP_OK;
}

/* Monte Carlo of one schedule's barrier DAG, any law. */
static stp_status simulate(const stp_redist_run_options *o, const stp_redist_result *r,
                           stp_redist_strategy_result *x, stp_error *err) {
  uint64_t ns = stp_redist_schedule_steps(x->schedule), m = r->info.messages;
  STP_CHECK(stp__within_budget(&o->control, "the barrier schedule's event graph",
                          stp_graph_memory_estimate(m + ns, 2 * m + ns, 1), err));
  stp_graph *g;
  STP_CHECK(stp_redist_schedule_graph(r->rd, x->schedule, &r->options.cost, &g, err));
  stp_graph_sim_options so;
  stp_graph_sim_options_init(&so);
  so.runs = o->simulate;
  so.seed = o->seed;
  so.law = o->law;
  so.control = o->control;
  stp_status s = stp_graph_simulate(g, &so, &x->sim, err);
  stp_graph_free(g);
  x->simulated = s == STP_OK;
  return s;
}

/* The law of the exact cost: the law alone, or with a simulation when it is
 * phase-type (a law meant for the simulation only gives no "not
 * phase-type" reason). */
static const stp_law *exact_law(const stp_redist_run_options *o) {
  return o->law && (!o->simulate || stp_law_phases(o->law) > 0) ? o->law : NULL;
}

static stp_status run_one(const stp_redist_run_options *o, stp_redist_result *r,
                          stp_redist_strategy strategy, stp_error *err) {
  stp_redist_strategy_result *x = &r->strategies[r->count];
  double t0 = stp__now();
  memset(x, 0, sizeof *x);
  stp_redist_options so = {.max_steps = o->max_steps, .max_nodes = o->max_nodes,
                           .max_work = o->max_work, .control = o->control};
  STP_CHECK(stp_redist_schedule_new(r->rd, strategy, &so, &x->schedule, err));
  r->count++; /* from here on freed with r */
  STP_CHECK(stp_redist_evaluate(r->rd, x->schedule, &r->options.cost, &x->costs, err));
  const stp_law *law = exact_law(o);
  if (law) {
    STP_CHECK(stp_redist_evaluate_law(r->rd, x->schedule, &r->options.cost, law, &o->control,
                                      &x->law, err));
    x->law_asked = 1;
  }
  if (o->simulate)
    STP_CHECK(simulate(o, r, x, err));
  x->seconds = stp__now() - t0;
  return STP_OK;
}

stp_status stp_redist_run(const stp_redist_run_options *o, stp_redist_result **out,
                          stp_error *err) {
  *out = NULL;
  stp_redist_result *r = calloc(1, sizeof *r);
  stp_redist_strategy list[5];
  size_t n = 0;
  if (!r)
    return stp__oom(err, "a redistribution");
  r->options = *o;
  r->options.law = NULL;
  stp_status s = check_problem(o, r, err);
  if (s == STP_OK)
    s = strategies(r->rd, o->strategy, list, &n, err);
  if (s == STP_OK && !(r->strategies = calloc(n, sizeof *r->strategies)))
    s = stp__oom(err, "a redistribution");
  if (s != STP_OK) {
    stp_redist_result_free(r);
    return s;
  }
  *out = r;
  for (size_t i = 0; i < n && s == STP_OK; i++) {
    s = run_one(o, r, list[i], err);
    if (s == STP_OK && stp__cancelled(&o->control.cancel) && i + 1 < n)
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
  }
  return s;
}
