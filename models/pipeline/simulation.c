/* simulation.c: the driver behind stp_simulate: mapping -> the event graph
 * of one data set (a transition per column, means cycling through the team
 * members, places linking two uses of a processor) and column laws -> runs
 * of the (max,+) kernel of engine/maxplus.h, grouped by engine/montecarlo.h
 * (warm-up, batch means or independent replications) -> throughput, 95%
 * confidence interval, and its position relative to the exact bounds of
 * stp_evaluate.
 *
 * Firing times are mean x unit-mean factor.  Independent case: one factor
 * per firing, from the law of its column (stage or transfer).  Associated
 * case (paper 2.4, 6.2): the time of the n-th use of a resource is
 * w_i(n) / s_p(n) (or delta_i(n) / b_pq(n)); the task-size factor w_i(n)
 * (delta_i(n)) follows the column's law and is shared by the n-th data set
 * of every resource of the column, i.e. by a round of R_i consecutive data
 * sets for a computation column (lcm(R_i, R_(i+1)) for a transfer column,
 * one data set per link); the resource factor follows the resource law (det
 * by default), one draw per firing. */
#include "base/core.h"
#include "base/rng.h"
#include "engine/maxplus.h"
#include "engine/montecarlo.h"
#include "models/pipeline/mapping.h"
#include "models/pipeline/simulation.h"
#include "solvers/laws.h"
#include "streamtp_explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIM_MAX_TABLE (UINT64_C(1) << 24) /* entries of one transfer table */
#define SIM_BOUND_RTOL 1e-9

void stp_sim_options_init(stp_sim_options *o) {
  memset(o, 0, sizeof *o);
  o->datasets = 1000000;
  o->warmup = STP_SIM_AUTO;
  o->batches = 20;
  o->replications = 0;
  o->seed = 1;
  o->bounds = 1;
  stp_options_init(&o->eval);
}

void stp_sim_result_free(stp_sim_result *r) {
  if (!r)
    return;
  free(r->law);
  free(r->resource_law);
  for (size_t c = 0; r->column_law && c < r->ncolumns; c++)
    free(r->column_law[c]);
  free(r->column_law);
  free(r->bounds_reason);
  stp_utilization_free(r->utilization);
  stp_latency_result_free(r->latency);
  free(r);
}

/* ---- the event graph of a data set: one transition per column --------------------- */
/* Transfer tables are refused beyond SIM_MAX_TABLE entries each (R_i x R_(i+1)). */
static stp_status check_tables(const stp_mapping *m, stp_error *err) {
  for (size_t i = 0; i + 1 < m->nstages; i++) {
    uint64_t n;
    if (!stp__mul_u64(stp__team_size(m, i), stp__team_size(m, i + 1), &n) || n > SIM_MAX_TABLE)
      return stp__fail(err, STP_ELIMIT,
                       "%s: the transfers after stage \"%s\" need a table of %zu x %zu link times "
                       "(limit %llu entries)", m->file, m->stages[i].name,
                       stp__team_size(m, i), stp__team_size(m, i + 1),
                       (unsigned long long)SIM_MAX_TABLE);
  }
  return STP_OK;
}

/* Means of column c over one cycle of its resources: data set n computes on
 * team_i[n mod R_i] and sends from team_i[n mod R_i] to
 * team_(i+1)[n mod R_(i+1)], a cycle of lcm(R_i, R_(i+1)) <= R_i R_(i+1). */
static stp_status column_means(const stp_mapping *m, size_t c, stp_mp_graph *g, stp_error *err) {
  size_t i = c / 2, ra = stp__team_size(m, i), rb = c % 2 ? stp__team_size(m, i + 1) : 1;
  uint64_t period = ra;
  if (c % 2)
    stp__lcm_u64(ra, rb, &period); /* <= R_i R_(i+1), which check_tables bounded */
  double *mean = stp__malloc_array((size_t)period, sizeof *mean);
  if (!mean)
    return stp__oom(err, "building the simulation graph");
  for (size_t n = 0; n < period; n++)
    mean[n] = c % 2 ? stp__comm_time(m, stp__team_member(m, i, n % ra),
                                     stp__team_member(m, i + 1, n % rb))
                    : stp__comp_time(m, stp__team_member(m, i, n));
  stp_status st = stp__mp_set_means(g, c, mean, (size_t)period, err);
  free(mean);
  return st;
}

/* The places of the recurrence of DESIGN.md 2, column c = 2i (computation
 * of stage i) or 2i + 1 (transfer i -> i + 1), a place with R tokens linking
 * two uses of one processor R data sets apart:
 * - both models: c - 1 -> c without token (the data set's own order);
 * - Overlap: each column waits for its previous use of the same port: 2i
 *   -> 2i (R_i tokens: the computing processor), 2i+1 -> 2i+1 (R_i: the
 *   sender's emissions; R_(i+1): the receiver's receptions);
 * - Strict: a processor's first action on a data set (its reception, or its
 *   computation at stage 0) waits for its last action (its emission, or its
 *   computation at the last stage) on its previous data set. */
static stp_status column_places(const stp_mapping *m, stp_model model, stp_mp_graph *g,
                                stp_error *err) {
  size_t ns = m->nstages, ncols = 2 * ns - 1;
  for (size_t c = 1; c < ncols; c++)
    STP_CHECK(stp__mp_add_place(g, c - 1, c, 0, err));
  for (size_t i = 0; i < ns; i++) {
    uint64_t r = stp__team_size(m, i);
    if (model == STP_MODEL_STRICT) {
      size_t first = i == 0 ? 0 : 2 * i - 1, last = i + 1 == ns ? 2 * i : 2 * i + 1;
      STP_CHECK(stp__mp_add_place(g, last, first, r, err));
      continue;
    }
    STP_CHECK(stp__mp_add_place(g, 2 * i, 2 * i, r, err));
    if (i + 1 < ns) {
      STP_CHECK(stp__mp_add_place(g, 2 * i + 1, 2 * i + 1, r, err));
      STP_CHECK(stp__mp_add_place(g, 2 * i + 1, 2 * i + 1, stp__team_size(m, i + 1), err));
    }
  }
  return STP_OK;
}

/* ---- the setup shared by every run -------------------------------------------------- */
void stp__sim_setup_clear(stp_sim_setup *s) {
  stp__mp_graph_clear(&s->graph);
  free(s->law);
  stp__law_free(s->exp_law);
  *s = (stp_sim_setup){0};
}

static const stp_law *column_law(const stp_mapping *m, const stp_law *dflt, size_t c) {
  const stp_law_table *t = m->laws;
  const stp_law *set = t ? (c % 2 ? t->transfer[c / 2] : t->stage[c / 2]) : NULL;
  return set ? set : dflt;
}

/* The default law: the options', else the file's "default", else exp. */
static stp_status default_law(const stp_mapping *m, const stp_sim_options *o, stp_sim_setup *s,
                              const stp_law **out, stp_error *err) {
  *out = o->law ? o->law : m->laws ? m->laws->dflt : NULL;
  if (*out)
    return STP_OK;
  STP_CHECK(stp__law_parse("exp", NULL, &s->exp_law, err));
  *out = s->exp_law;
  return STP_OK;
}

/* Samplers.  Independent case: one draw of the column's law per firing.
 * Associated case: the resource factor per firing (det by default) times
 * the task-size factor shared by a round of R_i data sets (computation) or
 * lcm(R_i, R_(i+1)) (transfer, one data set per link). */
static void column_samplers(const stp_mapping *m, stp_sim_setup *s) {
  for (size_t c = 0; c < s->ncols; c++) {
    size_t i = c / 2;
    stp_mp_sampler sp = {.law = s->law[c]};
    if (s->associated) {
      sp = (stp_mp_sampler){.law = s->resource, .round_law = s->law[c],
                            .round = stp__team_size(m, i)};
      if (c % 2) /* <= R_i * R_(i+1), which check_tables bounded */
        stp__lcm_u64(stp__team_size(m, i), stp__team_size(m, i + 1), &sp.round);
    }
    stp__mp_set_sampler(&s->graph, c, sp);
  }
}

/* The throttled source: one more transition after the columns, firing
 * every `interval` (its own previous firing, one token) and releasing the
 * data set to the first column (no token). */
static stp_status source_transition(stp_sim_setup *s, double interval, stp_error *err) {
  size_t src = s->ncols;
  STP_CHECK(stp__mp_set_means(&s->graph, src, &interval, 1, err));
  STP_CHECK(stp__mp_add_place(&s->graph, src, src, 1, err));
  return stp__mp_add_place(&s->graph, src, 0, 0, err);
}

stp_status stp__sim_setup_init(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                               uint64_t rows_max, double source_interval, stp_sim_setup *s,
                               stp_error *err) {
  *s = (stp_sim_setup){.ncols = 2 * m->nstages - 1, .associated = o->associated != 0,
                       .resource = o->resource_law};
  stp_status st = check_tables(m, err);
  if (st == STP_OK)
    st = stp__mp_graph_init(&s->graph, s->ncols + (source_interval > 0), err);
  for (size_t c = 0; c < s->ncols && st == STP_OK; c++)
    st = column_means(m, c, &s->graph, err);
  if (st == STP_OK)
    st = column_places(m, model, &s->graph, err);
  if (st == STP_OK && source_interval > 0)
    st = source_transition(s, source_interval, err);
  if (st == STP_OK) /* the in-order completions are those of the last column */
    st = stp__mp_graph_compile(&s->graph, rows_max, s->ncols - 1, err);
  if (st == STP_OK)
    st = default_law(m, o, s, &s->dflt, err);
  if (st == STP_OK && !(s->law = stp__calloc(s->ncols, sizeof *s->law)))
    st = stp__oom(err, "resolving laws");
  if (st != STP_OK) {
    stp__sim_setup_clear(s);
    return st;
  }
  for (size_t c = 0; c < s->ncols; c++)
    s->law[c] = column_law(m, s->dflt, c);
  column_samplers(m, s);
  return STP_OK;
}

/* ---- groups: batches of one run, or replications ------------------------------------ */
stp_status stp__sim_counts_init(const stp_mapping *m, const stp_sim_options *o, size_t ncols,
                              stp_sim_counts *c, stp_error *err) {
  stp_mc_groups *g = &c->mc;
  g->replicated = o->replications >= 2;
  g->groups = g->replicated ? o->replications : o->batches;
  g->seed = o->seed;
  if (g->groups < 2)
    return stp__fail(err, STP_EINVAL, "%s: at least 2 batches are needed for a confidence "
                     "interval (got %u)", m->file, g->groups);
  g->per_group = o->datasets / g->groups;
  if (g->per_group == 0)
    return stp__fail(err, STP_EINVAL, "%s: %llu data sets cannot fill %u %s", m->file,
                     (unsigned long long)o->datasets, g->groups,
                     g->replicated ? "replications" : "batches");
  uint64_t runs = g->replicated ? g->groups : 1, measured = g->per_group * g->groups, wtot;
  g->warmup = o->warmup != STP_SIM_AUTO ? o->warmup : measured / runs / 10;
  if (!stp__mul_u64(g->warmup, runs, &wtot) || !stp__add_u64(measured, wtot, &c->simulated) ||
      !stp__mul_u64(c->simulated, ncols, &c->firings))
    return stp__fail(err, STP_ELIMIT, "%s: the number of firings exceeds 2^64", m->file);
  return STP_OK;
}

double stp__sim_halfwidth(const double *x, size_t k, double *mean) {
  *mean = stp__mc_mean(x, k);
  return stp__t_quantile(0.975, (double)(k - 1)) * stp__mc_stddev(x, k) / sqrt((double)k);
}

/* Throughput = data sets / total time = 1 / mean group period; the 95%
 * interval is Student's on the group periods, mapped through 1/x. */
static stp_status group_statistics(const stp_mapping *m, const stp_sim_counts *c, double *elapsed,
                                   stp_sim_result *r, stp_error *err) {
  size_t k = c->mc.groups;
  double per = (double)c->mc.per_group;
  for (size_t g = 0; g < k; g++)
    if (!(elapsed[g] > 0) || !isfinite(elapsed[g]))
      return stp__fail(err, STP_EINVAL, "%s: a group of %llu data sets took a time of %g; "
                       "use more data sets", m->file,
                       (unsigned long long)c->mc.per_group, elapsed[g]);
  for (size_t g = 0; g < k; g++)
    elapsed[g] /= per; /* periods */
  double p, h = stp__sim_halfwidth(elapsed, k, &p);
  r->period = p;
  r->throughput = 1 / p;
  r->ci_low = 1 / (p + h);
  r->ci_high = p > h ? 1 / (p - h) : INFINITY;
  for (size_t g = 0; g < k; g++)
    elapsed[g] = 1 / elapsed[g]; /* group throughputs */
  r->stddev = stp__mc_stddev(elapsed, k);
  return STP_OK;
}

/* CPU seconds of this process: the simulation is single-threaded, so its
 * rate per core does not depend on what else the machine runs. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the result --------------------------------------------------------------------- */
/* Record why a bound is missing (reason is malloc'ed; NULL: out of memory). */
static stp_status missing_bound(stp_sim_result *r, char *reason, stp_error *err) {
  r->bounds_reason = reason;
  return reason ? STP_OK : stp__oom(err, "simulating");
}

/* Exact bounds from stp_evaluate; a bound beyond the limits is missing, with
 * the reason, and is not an error. */
static stp_status sim_bounds(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                             stp_sim_result *r, stp_error *err) {
  if (!o->bounds)
    return missing_bound(r, stp__strdup("not requested"), err);
  double t0 = stp__now();
  stp_result *ev = NULL;
  stp_error local = {0};
  stp_options eval = o->eval; /* the simulated laws, exactly, where they are phase-type */
  if (o->law && !o->associated && stp_law_phases(o->law) > 0)
    eval.law = o->law;
  stp_status s = stp_evaluate(m, model, &eval, &ev, &local);
  r->bounds_seconds = stp__now() - t0;
  if (s == STP_OK && !o->associated && ev->exact_law.available) {
    r->law_exact = ev->exact_law.throughput;
    r->law_states = ev->exact_law.states;
  }
  if (s == STP_OK) {
    r->upper = ev->det_throughput;
    r->lower = ev->exp_available ? ev->exp_throughput : NAN;
    r->bounds_limit = ev->exp_limit;
    s = ev->exp_available
            ? STP_OK
            : missing_bound(r, stp__asprintf("exponential throughput: %s", ev->exp_reason), err);
    stp_result_free(ev);
    return s;
  }
  if (stp_status_is_input_error(s)) {
    r->bounds_limit = local.limit;
    return missing_bound(r, stp__strdup(local.message), err);
  }
  if (err)
    *err = local;
  return s;
}

/* Where the 95% interval lies relative to [lower, upper]. */
static void place(stp_sim_result *r) {
  bool lo = isfinite(r->lower), hi = isfinite(r->upper);
  r->position = stp_interval_position(r->ci_low, r->ci_high, r->lower, r->upper);
  r->relative = lo && hi && r->upper - r->lower > SIM_BOUND_RTOL * r->upper
                    ? (r->throughput - r->lower) / (r->upper - r->lower)
                    : NAN;
}

static int laws_nbue(const stp_sim_setup *s) {
  int nbue = 1;
  for (size_t c = 0; c < s->ncols; c++) {
    int v = stp__law_nbue(s->law[c]);
    nbue = v == 0 || nbue == 0 ? 0 : v < 0 ? -1 : nbue;
  }
  if (s->resource && !stp__law_is_det(s->resource) && nbue == 1)
    nbue = -1; /* a product of N.B.U.E. factors need not be N.B.U.E. */
  return nbue;
}

static stp_status describe(stp_model model, const stp_sim_options *o, const stp_sim_setup *s,
                           const stp_sim_counts *c, stp_sim_result *r, stp_error *err) {
  *r = (stp_sim_result){.model = model, .groups = c->mc.groups,
                        .replicated = c->mc.replicated,
                        .datasets = c->mc.per_group * c->mc.groups, .warmup = c->mc.warmup,
                        .simulated = c->simulated, .firings = c->firings, .seed = o->seed,
                        .associated = s->associated, .ncolumns = s->ncols,
                        .nbue = laws_nbue(s), .lower = NAN, .upper = NAN, .relative = NAN,
                        .law_exact = NAN,
                        .position = "unknown"};
  r->law = stp__strdup(stp_law_spec(s->dflt));
  r->column_law = stp__calloc(s->ncols, sizeof *r->column_law);
  if (!r->law || !r->column_law)
    return stp__oom(err, "describing a simulation");
  if (s->associated &&
      !(r->resource_law = stp__strdup(s->resource ? stp_law_spec(s->resource) : "det")))
    return stp__oom(err, "describing a simulation");
  for (size_t k = 0; k < s->ncols; k++)
    if (!(r->column_law[k] = stp__strdup(stp_law_spec(s->law[k]))))
      return stp__oom(err, "describing a simulation");
  return STP_OK;
}

stp_status stp_simulate(const stp_mapping *m, stp_model model, const stp_sim_options *opts,
                        stp_sim_result **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_simulate: out is NULL");
  *out = NULL;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_simulate: mapping is NULL");
  stp_sim_options defaults;
  if (!opts) {
    stp_sim_options_init(&defaults);
    opts = &defaults;
  }
  stp_sim_counts c;
  stp_sim_setup s;
  STP_CHECK(stp__sim_counts_init(m, opts, 2 * m->nstages - 1, &c, err));
  STP_CHECK(stp__sim_setup_init(m, model, opts, stp__mc_rows_per_run(&c.mc), 0, &s, err));
  stp_sim_result *r = calloc(1, sizeof *r);
  double *elapsed = stp__calloc(c.mc.groups, sizeof *elapsed);
  stp_status st = r && elapsed ? describe(model, opts, &s, &c, r, err)
                               : stp__oom(err, "simulating");
  if (st == STP_OK)
    st = sim_bounds(m, model, opts, r, err);
  double t0 = stp__now(), c0 = cpu_now(), *frac = NULL;
  if (st == STP_OK && opts->utilization)
    st = stp__sim_run_utilization(m, model, &s, &c, &opts->control, r, elapsed, &frac, err);
  else if (st == STP_OK)
    st = stp__mc_run_groups(&s.graph, &c.mc, &opts->control, elapsed, err);
  if (st == STP_OK) {
    r->seconds = stp__now() - t0;
    r->cpu_seconds = cpu_now() - c0;
    st = group_statistics(m, &c, elapsed, r, err);
  }
  if (st == STP_OK && frac)
    stp__sim_utilization_stats(r, frac, c.mc.groups);
  if (st == STP_OK)
    place(r);
  if (st == STP_OK && opts->latency)
    st = stp__sim_latency(m, model, opts, &c, r, err);
  free(frac);
  free(elapsed);
  stp__sim_setup_clear(&s);
  if (st != STP_OK) {
    stp_sim_result_free(r);
    return st;
  }
  *out = r;
  return STP_OK;
}

/* One run, data set by data set: after the warm-up, the time between the
 * in-order completions of consecutive data sets (advancing the kernel by
 * one row measures exactly that, from the previous completion). */
stp_status stp_simulate_intervals(const stp_mapping *m, stp_model model,
                                  const stp_sim_options *opts, uint64_t n, double *out,
                                  stp_error *err) {
  if (!m || !out)
    return stp__fail(err, STP_EINVAL, "stp_simulate_intervals: mapping or out is NULL");
  if (n == 0)
    return stp__fail(err, STP_EINVAL, "%s: no data set to measure", m->file);
  stp_sim_options defaults;
  if (!opts) {
    stp_sim_options_init(&defaults);
    opts = &defaults;
  }
  uint64_t warmup = opts->warmup != STP_SIM_AUTO ? opts->warmup : n / 10, rows;
  if (!stp__add_u64(warmup, n, &rows))
    return stp__fail(err, STP_ELIMIT, "%s: too many data sets", m->file);
  stp_sim_setup s;
  STP_CHECK(stp__sim_setup_init(m, model, opts, rows, 0, &s, err));
  stp_mp_run r = {0};
  double ignored;
  stp_status st = stp__mp_run_init(&r, &s.graph, opts->seed, 0, err);
  if (st == STP_OK)
    st = stp__mp_run_advance(&r, warmup, &opts->control.cancel, &ignored, err);
  for (uint64_t k = 0; k < n && st == STP_OK; k++)
    st = stp__mp_run_advance(&r, 1, k % 4096 ? NULL : &opts->control.cancel, &out[k], err);
  stp__mp_run_clear(&r);
  stp__sim_setup_clear(&s);
  return st;
}
