/* redistribute.c: the record of one strategy of a block-cyclic
 * redistribution (streamtp redistribute) and its text: the problem and
 * its communication grid, then the schedule with its costs, one row per
 * step; a table of the strategies opens with the problem they share. */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"
#include "streamtp_redistribute.h"

#include <math.h>
#include <string.h>

#define TEXT_GRID_MAX 32 /* larger grids only in the JSON */

static json_t *grid_json(const stp_redist_result *r) {
  json_t *g = json_array();
  for (uint64_t p = 0; g && p < r->info.P; p++) {
    json_t *row = json_array();
    for (uint64_t q = 0; row && q < r->info.Q; q++)
      json_array_append_new(row, stp__ju64(stp_redist_length(r->rd, p, q)));
    json_array_append_new(g, row);
  }
  return g;
}

static json_t *steps_json(const stp_redist_schedule *sc) {
  json_t *steps = json_array();
  for (uint64_t k = 0; steps && k < stp_redist_schedule_steps(sc); k++) {
    json_t *step = json_array();
    for (uint64_t i = 0; step && i < stp_redist_step_size(sc, k); i++) {
      uint64_t p, q, l;
      stp_redist_step_message(sc, k, i, &p, &q, &l);
      json_array_append_new(step, json_pack("{s:o,s:o,s:o}", "from", stp__ju64(p), "to",
                                            stp__ju64(q), "length", stp__ju64(l)));
    }
    json_array_append_new(steps, step);
  }
  return steps;
}

/* "exact_law": {"law", "makespan", "method", "estimated_error", "step_shapes"},
 * or {"law", "makespan": null, "reason"}. */
static json_t *law_json(const char *law, const stp_redist_law_costs *l) {
  json_t *j = stp__law_json(law, "makespan", l->makespan, l->computed ? NULL : l->reason);
  if (l->computed) {
    stp__jset(j, "method", stp__jstr(l->method));
    stp__jset(j, "estimated_error", stp__jnum(l->error));
    stp__jset(j, "step_shapes", stp__ju64(l->distinct));
  }
  return j;
}

/* The limits of the run: the memory budget, the seed, and the search's own. */
static json_t *limits_json(const stp_redist_result *r) {
  const stp_redist_run_options *o = &r->options;
  json_t *l = json_object();
  stp__jset(l, "max_memory", stp__ju64(stp_control_memory_budget(&o->control)));
  if (o->simulate)
    stp__jset(l, "seed", stp__ju64(o->seed));
  stp__jset(l, "max_steps", o->max_steps ? stp__ju64(o->max_steps) : json_null());
  stp__jset(l, "max_nodes", stp__ju64(o->max_nodes ? o->max_nodes : 1000000)); /* the 0 of
                                                                                   stp_redist_options */
  stp__jset(l, "max_work", stp__jnum(o->max_work > 0 ? o->max_work : STP_REDIST_DEFAULT_MAX_WORK));
  return l;
}

static json_t *problem_json(const stp_redist_result *r) {
  const stp_redist_info *in = &r->info;
  json_t *j = json_object();
  const char *keys[] = {"P", "Q", "r", "s", "L", "g", "M"};
  uint64_t values[] = {in->P, in->Q, in->r, in->s, in->L, in->g, r->options.cost.M};
  for (size_t k = 0; k < sizeof values / sizeof *values; k++)
    stp__jset(j, keys[k], stp__ju64(values[k]));
  stp__jset(j, "alpha", stp__jnum(r->options.cost.alpha));
  stp__jset(j, "beta", stp__jnum(r->options.cost.beta));
  stp__jset(j, "grid", grid_json(r));
  stp__jset(j, "messages", stp__ju64(in->messages));
  stp__jset(j, "ns_opt", stp__ju64(in->ns_opt));
  return j;
}

stp_status stp_redist_json(const stp_redist_result *r, size_t k, stp_record **out,
                           stp_error *err) {
  *out = NULL;
  if (k >= r->count)
    return stp__fail(err, STP_EINVAL, "no strategy %zu among %zu", k, r->count);
  const stp_redist_strategy_result *x = &r->strategies[k];
  const stp_redist_schedule *sc = x->schedule;
  json_t *j = problem_json(r);
  stp__jset(j, "strategy", json_string(stp_redist_strategy_name(stp_redist_schedule_strategy(sc))));
  stp__jset(j, "steps", steps_json(sc));
  stp__jset(j, "ns", stp__ju64(stp_redist_schedule_steps(sc)));
  stp__jset(j, "tc", stp__ju64(stp_redist_schedule_tc(sc)));
  stp__jset(j, "deterministic", json_pack("{s:o}", "makespan", stp__jnum(x->costs.cost)));
  stp__jset(j, "exponential", json_pack("{s:o,s:s}", "makespan", stp__jnum(x->costs.exp_cost),
                                        "method", x->costs.exp_method));
  stp__jset(j, "bounds", stp__bounds_json(x->costs.cost, x->costs.exp_cost));
  if (x->law_asked)
    stp__jset(j, "exact_law", law_json(r->law, &x->law));
  if (stp_redist_schedule_strategy(sc) == STP_REDIST_OPTIMAL) {
    uint64_t lb, profiles, nodes;
    stp_redist_schedule_search(sc, &lb, &profiles, &nodes);
    stp__jset(j, "max_steps", r->options.max_steps ? stp__ju64(r->options.max_steps)
                                                   : json_null());
    stp__jset(j, "search", json_pack("{s:o,s:o,s:o}", "lower_bound", stp__ju64(lb), "profiles",
                                     stp__ju64(profiles), "nodes", stp__ju64(nodes)));
  }
  if (x->simulated)
    stp__jset(j, "simulation", stp__graph_sim_json(r->law, r->options.seed, &x->sim, true));
  stp__jset(j, "seconds", stp__jnum(x->seconds));
  stp__record_status(j, STP_OK, NULL);
  return stp__record_limited("redistribute", j, limits_json(r), out, err);
}

/* ---- the text ------------------------------------------------------------------- */
static uint64_t cell(const json_t *grid, uint64_t p, uint64_t q) {
  uint64_t l = 0;
  stp__jas_u64(json_array_get(json_array_get(grid, p), q), &l);
  return l;
}

/* The grid of message lengths, the paper's layout: - for no message, the
 * messages of each row and column. */
static void grid_text(FILE *f, const json_t *grid, uint64_t P, uint64_t Q) {
  int w = snprintf(NULL, 0, "%llu", (unsigned long long)Q - 1);
  for (uint64_t p = 0; p < P; p++)
    for (uint64_t q = 0; q < Q; q++) {
      int n = snprintf(NULL, 0, "%llu", (unsigned long long)cell(grid, p, q));
      w = n > w ? n : w;
    }
  fprintf(f, "\ncommunication grid (message lengths per L elements; - none)\n  send\\recv");
  for (uint64_t q = 0; q < Q; q++)
    fprintf(f, " %*llu", w, (unsigned long long)q);
  fprintf(f, "  messages\n");
  for (uint64_t p = 0; p < P; p++) {
    fprintf(f, "  %9llu", (unsigned long long)p);
    uint64_t n = 0;
    for (uint64_t q = 0; q < Q; q++) {
      uint64_t l = cell(grid, p, q);
      n += l > 0;
      if (l)
        fprintf(f, " %*llu", w, (unsigned long long)l);
      else
        fprintf(f, " %*s", w, "-");
    }
    fprintf(f, "  %llu\n", (unsigned long long)n);
  }
  fprintf(f, "  %9s", "messages");
  for (uint64_t q = 0; q < Q; q++) {
    uint64_t n = 0;
    for (uint64_t p = 0; p < P; p++)
      n += cell(grid, p, q) > 0;
    fprintf(f, " %*llu", w, (unsigned long long)n);
  }
  fprintf(f, "\n");
}

/* The problem: parameters, cost model, grid. */
static void head_text(FILE *f, const json_t *rec) {
  uint64_t P = stp__jgetu(rec, "P"), Q = stp__jgetu(rec, "Q"), L = stp__jgetu(rec, "L");
  uint64_t M = stp__jgetu(rec, "M");
  fprintf(f, "CYCLIC(%llu) on %llu -> CYCLIC(%llu) on %llu: L = %llu, g = %llu, %llu messages, "
             "ns_opt = %llu\n",
          (unsigned long long)stp__jgetu(rec, "r"), (unsigned long long)P,
          (unsigned long long)stp__jgetu(rec, "s"), (unsigned long long)Q, (unsigned long long)L,
          (unsigned long long)stp__jgetu(rec, "g"), (unsigned long long)stp__jgetu(rec, "messages"),
          (unsigned long long)stp__jgetu(rec, "ns_opt"));
  unsigned long long periods = L ? M / L : 0;
  stp__fprintf(f, "cost model: alpha = %g, beta = %g, M = %llu (%llu period%s)\n",
               stp__jgetd(rec, "alpha"), stp__jgetd(rec, "beta"), (unsigned long long)M, periods,
               periods == 1 ? "" : "s");
  if (P > TEXT_GRID_MAX || Q > TEXT_GRID_MAX)
    fprintf(f, "\ngrid: %llu x %llu (shown up to %d x %d; --json has it)\n",
            (unsigned long long)P, (unsigned long long)Q, TEXT_GRID_MAX, TEXT_GRID_MAX);
  else
    grid_text(f, stp__jget(rec, "grid"), P, Q);
}

static void law_text(FILE *f, const json_t *lr) {
  char detail[128];
  uint64_t shapes = stp__jgetu(lr, "step_shapes");
  stp__snprintf(detail, sizeof detail, "%s, error estimate %.1e, %llu step shape%s",
                stp__jgets(lr, "method"), stp__jgetd(lr, "estimated_error"),
                (unsigned long long)shapes, shapes == 1 ? "" : "s");
  stp__law_line(f, stp__jgets(lr, "law"), 16, "expected", stp__jgetd(lr, "makespan"),
                stp__jgets(lr, "reason"), detail);
}

static void costs_text(FILE *f, const json_t *rec) {
  double cost = stp__jgetd(rec, "deterministic.makespan");
  double exp_cost = stp__jgetd(rec, "exponential.makespan");
  stp__fprintf(f, "  cost %.10g, expected with exponential times %.10g (%s); N.B.U.E. bounds "
                  "[%.10g, %.10g]\n",
               cost, exp_cost, stp__jgets(rec, "exponential.method"), cost, exp_cost);
  if (stp__jget(rec, "exact_law"))
    law_text(f, stp__jget(rec, "exact_law"));
  const json_t *sim = stp__jget(rec, "simulation");
  if (sim) {
    stp__fprintf(f, "  Monte Carlo (%s, %llu runs, seed %llu): %.10g, ", stp__jgets(sim, "law"),
                 (unsigned long long)stp__jgetu(sim, "runs"),
                 (unsigned long long)stp__jgetu(sim, "seed"), stp__jgetd(sim, "makespan"));
    stp__ci95_text(f, sim);
    fputc('\n', f);
  }
}

static void steps_text(FILE *f, const json_t *steps) {
  fprintf(f, "  %4s %6s  messages (sender->receiver:length)\n", "step", "cost");
  for (size_t k = 0; k < json_array_size(steps); k++) {
    const json_t *step = json_array_get(steps, k);
    uint64_t cost = 0;
    for (size_t i = 0; i < json_array_size(step); i++) {
      uint64_t l = stp__jgetu(json_array_get(step, i), "length");
      cost = l > cost ? l : cost;
    }
    fprintf(f, "  %4zu %6llu ", k + 1, (unsigned long long)cost);
    for (size_t i = 0; i < json_array_size(step); i++) {
      const json_t *m = json_array_get(step, i);
      fprintf(f, " %llu->%llu:%llu", (unsigned long long)stp__jgetu(m, "from"),
              (unsigned long long)stp__jgetu(m, "to"), (unsigned long long)stp__jgetu(m, "length"));
    }
    fprintf(f, "\n");
  }
}

/* The problem before the first strategy, then the strategy's schedule. */
void stp__text_redistribute(FILE *f, const json_t *rec, size_t index) {
  if (index == 0)
    head_text(f, rec);
  fprintf(f, "\n%s: NS = %llu, TC = %llu\n", stp__jgets(rec, "strategy"),
          (unsigned long long)stp__jgetu(rec, "ns"), (unsigned long long)stp__jgetu(rec, "tc"));
  const json_t *search = stp__jget(rec, "search");
  if (search)
    fprintf(f, "  proven optimal%s: lower bound %llu, %llu cost profiles refuted or tried, %llu "
               "search nodes\n",
            json_is_null(stp__jget(rec, "max_steps")) ? "" : " within --max-steps",
            (unsigned long long)stp__jgetu(search, "lower_bound"),
            (unsigned long long)stp__jgetu(search, "profiles"),
            (unsigned long long)stp__jgetu(search, "nodes"));
  costs_text(f, rec);
  steps_text(f, stp__jget(rec, "steps"));
}

/* A table of strategies opens with the problem they share. */
void stp__preamble_redistribute(FILE *f, const json_t *first) {
  head_text(f, first);
  fputc('\n', f);
}

const char *const stp__redistribute_csv[] = {
    "P", "Q", "r", "s", "L", "g", "M", "alpha", "beta", "messages", "ns_opt", "strategy", "ns",
    "tc", "deterministic.makespan", "exponential.makespan", "exponential.method",
    "bounds.lower", "bounds.upper", "exact_law.law", "exact_law.makespan",
    "exact_law.estimated_error", "exact_law.reason", "simulation.law", "simulation.runs",
    "simulation.seed", "simulation.makespan", "simulation.ci95", "seconds", "status", "error",
    NULL};
const char *const stp__redistribute_table[] = {
    "strategy", "ns", "tc", "deterministic.makespan", "exponential.makespan",
    "exact_law.makespan", "simulation.makespan", "simulation.ci95", NULL};
