/* simulation.c: the driver behind stp_simulate: mapping -> simulation plan
 * (mean times as flat arrays) and column laws -> runs of the kernel of
 * solvers/simulate.c in blocks of data sets -> warm-up, batch means or
 * independent replications -> throughput, 95% confidence interval, and its
 * position relative to the exact bounds of stp_evaluate.
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
#include "solvers/laws.h"
#include "models/pipeline/mapping.h"
#include "base/rng.h"
#include "models/pipeline/sim_kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIM_BLOCK_CELLS 8192   /* columns x block: variates of a block stay in L1/L2 */
#define SIM_BLOCK_MAX 512
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
  free(r);
}

/* ---- the plan: mean times as flat arrays -------------------------------------------- */
static void plan_clear(stp_sim_plan *p) {
  free(p->off);
  free(p->cmean);
  free(p->doff);
  free(p->dmean);
  *p = (stp_sim_plan){0};
}

/* Sizes of the transfer tables, refused beyond SIM_MAX_TABLE entries each. */
static stp_status transfer_tables(const stp_mapping *m, size_t *doff, size_t *total,
                                  stp_error *err) {
  uint64_t at = 0;
  for (size_t i = 0; i + 1 < m->nstages; i++) {
    uint64_t n;
    if (!stp__mul_u64(stp__team_size(m, i), stp__team_size(m, i + 1), &n) || n > SIM_MAX_TABLE)
      return stp__fail(err, STP_ELIMIT,
                       "%s: the transfers after stage \"%s\" need a table of %zu x %zu link times "
                       "(limit %llu entries)", m->file, m->stages[i].name,
                       stp__team_size(m, i), stp__team_size(m, i + 1),
                       (unsigned long long)SIM_MAX_TABLE);
    doff[i] = (size_t)at;
    at += n;
  }
  *total = (size_t)at;
  return STP_OK;
}

static void fill_transfer_table(const stp_mapping *m, size_t i, double *d) {
  size_t ra = stp__team_size(m, i), rb = stp__team_size(m, i + 1);
  size_t g = (size_t)stp__gcd_u64(ra, rb);
  for (size_t a = 0; a < ra; a++)
    for (size_t b = 0; b < rb; b++) /* only pairs with a = b mod g ever talk */
      d[a * rb + b] = a % g == b % g ? stp__comm_time(m, stp__team_member(m, i, a),
                                                      stp__team_member(m, i + 1, b))
                                     : NAN;
}

static stp_status plan_build(const stp_mapping *m, stp_model model, stp_sim_plan *p,
                             stp_error *err) {
  size_t ns = m->nstages, slots = m->team_off[ns], ntab = 0;
  *p = (stp_sim_plan){.model = model, .nstages = ns};
  p->off = stp__malloc_array(ns + 1, sizeof *p->off);
  p->cmean = stp__malloc_array(slots, sizeof *p->cmean);
  p->doff = stp__calloc(ns, sizeof *p->doff);
  stp_status s = p->off && p->cmean && p->doff ? transfer_tables(m, p->doff, &ntab, err)
                                               : stp__oom(err, "building the simulation plan");
  if (s == STP_OK && !(p->dmean = stp__malloc_array(ntab, sizeof *p->dmean)))
    s = stp__oom(err, "building the simulation plan");
  if (s != STP_OK) {
    plan_clear(p);
    return s;
  }
  memcpy(p->off, m->team_off, (ns + 1) * sizeof *p->off);
  for (size_t k = 0; k < slots; k++)
    p->cmean[k] = stp__comp_time(m, m->team[k]);
  for (size_t i = 0; i + 1 < ns; i++)
    fill_transfer_table(m, i, p->dmean + p->doff[i]);
  return STP_OK;
}

/* ---- the setup shared by every run -------------------------------------------------- */
typedef struct sim_setup {
  stp_sim_plan plan;
  size_t ncols, block;
  const stp_law **law;     /* per column: its law (associated: of the task size) */
  const stp_law *dflt;     /* the law of the columns the file does not set */
  bool associated;
  const stp_law *resource; /* associated case: resource factor law (NULL: det) */
  uint64_t *round;         /* associated case: data sets sharing one task-size draw */
  stp_law *exp_law;        /* owned default when neither options nor file give one */
} sim_setup;

static void setup_clear(sim_setup *s) {
  plan_clear(&s->plan);
  free(s->law);
  free(s->round);
  stp__law_free(s->exp_law);
  *s = (sim_setup){0};
}

static const stp_law *column_law(const stp_mapping *m, const stp_law *dflt, size_t c) {
  const stp_law_table *t = m->laws;
  const stp_law *set = t ? (c % 2 ? t->transfer[c / 2] : t->stage[c / 2]) : NULL;
  return set ? set : dflt;
}

/* The default law: the options', else the file's "default", else exp. */
static stp_status default_law(const stp_mapping *m, const stp_sim_options *o, sim_setup *s,
                              const stp_law **out, stp_error *err) {
  *out = o->law ? o->law : m->laws ? m->laws->dflt : NULL;
  if (*out)
    return STP_OK;
  STP_CHECK(stp__law_parse("exp", NULL, &s->exp_law, err));
  *out = s->exp_law;
  return STP_OK;
}

static stp_status setup_init(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                             sim_setup *s, stp_error *err) {
  *s = (sim_setup){.ncols = 2 * m->nstages - 1, .associated = o->associated != 0,
                   .resource = o->resource_law};
  s->block = SIM_BLOCK_CELLS / s->ncols;
  s->block = s->block < 1 ? 1 : s->block > SIM_BLOCK_MAX ? SIM_BLOCK_MAX : s->block;
  stp_status st = plan_build(m, model, &s->plan, err);
  if (st == STP_OK)
    st = default_law(m, o, s, &s->dflt, err);
  if (st == STP_OK && !(s->law = stp__calloc(s->ncols, sizeof *s->law)))
    st = stp__oom(err, "resolving laws");
  if (st == STP_OK && s->associated && !(s->round = stp__calloc(s->ncols, sizeof *s->round)))
    st = stp__oom(err, "resolving laws");
  if (st != STP_OK) {
    setup_clear(s);
    return st;
  }
  for (size_t c = 0; c < s->ncols; c++) {
    s->law[c] = column_law(m, s->dflt, c);
    size_t i = c / 2;
    if (s->round && c % 2 == 0)
      s->round[c] = stp__team_size(m, i);
    else if (s->round) /* <= R_i * R_(i+1), which transfer_tables bounded */
      stp__lcm_u64(stp__team_size(m, i), stp__team_size(m, i + 1), &s->round[c]);
  }
  return STP_OK;
}

/* ---- one run: a generator, the kernel and the block of factors ---------------------- */
typedef struct sim_run {
  stp_rng *rng;
  stp_sim_kernel kernel;
  double *xi;      /* ncols x block factors, column-major */
  double *draws;   /* block: task-size draws of the rounds starting in a block */
  uint64_t *pos;   /* associated: position of the next data set in its round */
  double *size;    /* associated: task-size factor of the current round */
} sim_run;

static void run_clear(sim_run *r) {
  stp__rng_free(r->rng);
  stp__sim_kernel_clear(&r->kernel);
  free(r->xi);
  free(r->draws);
  free(r->pos);
  free(r->size);
  *r = (sim_run){0};
}

static stp_status run_init(const sim_setup *s, uint64_t seed, uint64_t stream, sim_run *r,
                           stp_error *err) {
  *r = (sim_run){0};
  r->rng = stp__rng_alloc(seed, stream);
  r->xi = stp__malloc_array(s->ncols * s->block, sizeof *r->xi);
  r->draws = stp__malloc_array(s->block, sizeof *r->draws);
  r->pos = stp__calloc(s->ncols, sizeof *r->pos);
  r->size = stp__calloc(s->ncols, sizeof *r->size);
  stp_status st = r->rng && r->xi && r->draws && r->pos && r->size
                      ? stp__sim_kernel_init(&r->kernel, &s->plan, err)
                      : stp__oom(err, "allocating a simulation run");
  if (st != STP_OK) {
    run_clear(r);
    return st;
  }
  for (size_t k = 0; k < s->ncols * s->block; k++) /* det columns keep these factors */
    r->xi[k] = 1;
  return STP_OK;
}

/* Associated case: multiply the resource factors x[0..n) of column c by the
 * task-size factor of each data set's round (one draw per round). */
static void apply_rounds(const sim_setup *s, sim_run *r, size_t c, double *x, size_t n) {
  uint64_t len = s->round[c], pos = r->pos[c];
  uint64_t first = pos == 0 ? 0 : len - pos; /* first round starting in the block */
  size_t starts = first < n ? 1 + (size_t)((n - 1 - first) / len) : 0;
  stp__law_fill(s->law[c], r->rng, r->draws, starts);
  double size = r->size[c];
  size_t next = 0;
  for (size_t j = 0; j < n; j++) {
    if (pos == 0)
      size = r->draws[next++];
    x[j] *= size;
    pos = pos + 1 == len ? 0 : pos + 1;
  }
  r->size[c] = size;
  r->pos[c] = pos;
}

static void fill_block(const sim_setup *s, sim_run *r, size_t n) {
  for (size_t c = 0; c < s->ncols; c++) {
    double *x = r->xi + c * s->block;
    if (!s->associated) {
      if (!stp__law_is_det(s->law[c]))
        stp__law_fill(s->law[c], r->rng, x, n);
      continue;
    }
    if (s->resource)
      stp__law_fill(s->resource, r->rng, x, n);
    else
      for (size_t j = 0; j < n; j++)
        x[j] = 1;
    apply_rounds(s, r, c, x, n);
  }
}

/* Run n more data sets; *elapsed = time from the in-order completion of the
 * data sets before them to that of the last one. */
static stp_status run_advance(const sim_setup *s, sim_run *r, uint64_t n,
                              const stp_cancel *cancel, double *elapsed, stp_error *err) {
  stp__sim_kernel_rebase(&r->kernel);
  while (n > 0) {
    if (stp__cancelled(cancel))
      return stp__fail(err, STP_EINTERRUPTED, "simulation interrupted");
    size_t nb = n < s->block ? (size_t)n : s->block;
    fill_block(s, r, nb);
    stp__sim_kernel_run(&r->kernel, r->xi, s->block, nb);
    n -= nb;
  }
  *elapsed = r->kernel.done;
  return STP_OK;
}

/* ---- groups: batches of one run, or replications ------------------------------------ */
typedef struct sim_counts {
  uint32_t groups;
  bool replicated;
  uint64_t per_group, warmup, simulated, firings;
} sim_counts;

static stp_status counts_init(const stp_mapping *m, const stp_sim_options *o, size_t ncols,
                              sim_counts *c, stp_error *err) {
  c->replicated = o->replications >= 2;
  c->groups = c->replicated ? o->replications : o->batches;
  if (c->groups < 2)
    return stp__fail(err, STP_EINVAL, "%s: at least 2 batches are needed for a confidence "
                     "interval (got %u)", m->file, c->groups);
  c->per_group = o->datasets / c->groups;
  if (c->per_group == 0)
    return stp__fail(err, STP_EINVAL, "%s: %llu data sets cannot fill %u %s", m->file,
                     (unsigned long long)o->datasets, c->groups,
                     c->replicated ? "replications" : "batches");
  uint64_t runs = c->replicated ? c->groups : 1, measured = c->per_group * c->groups, wtot;
  c->warmup = o->warmup != STP_SIM_AUTO ? o->warmup : measured / runs / 10;
  if (!stp__mul_u64(c->warmup, runs, &wtot) || !stp__add_u64(measured, wtot, &c->simulated) ||
      !stp__mul_u64(c->simulated, ncols, &c->firings))
    return stp__fail(err, STP_ELIMIT, "%s: the number of firings exceeds 2^64", m->file);
  return STP_OK;
}

/* Elapsed time of each group. */
static stp_status run_groups(const sim_setup *s, const sim_counts *c, const stp_sim_options *o,
                             double *elapsed, stp_error *err) {
  sim_run r = {0};
  stp_status st = STP_OK;
  double ignored;
  for (uint32_t g = 0; g < c->groups && st == STP_OK; g++) {
    bool fresh = c->replicated || g == 0;
    if (fresh && g > 0)
      run_clear(&r);
    if (fresh && (st = run_init(s, o->seed, c->replicated ? g : 0, &r, err)) == STP_OK)
      st = run_advance(s, &r, c->warmup, &o->cancel, &ignored, err);
    if (st == STP_OK)
      st = run_advance(s, &r, c->per_group, &o->cancel, &elapsed[g], err);
  }
  run_clear(&r);
  return st;
}

static double mean_of(const double *x, size_t n) {
  double sum = 0;
  for (size_t k = 0; k < n; k++)
    sum += x[k];
  return sum / (double)n;
}

static double stddev_of(const double *x, size_t n) {
  double mu = mean_of(x, n), ss = 0;
  for (size_t k = 0; k < n; k++)
    ss += (x[k] - mu) * (x[k] - mu);
  return sqrt(ss / (double)(n - 1));
}

/* Throughput = data sets / total time = 1 / mean group period; the 95%
 * interval is Student's on the group periods, mapped through 1/x. */
static stp_status group_statistics(const stp_mapping *m, const sim_counts *c, double *elapsed,
                                   stp_sim_result *r, stp_error *err) {
  size_t k = c->groups;
  double per = (double)c->per_group;
  for (size_t g = 0; g < k; g++)
    if (!(elapsed[g] > 0) || !isfinite(elapsed[g]))
      return stp__fail(err, STP_EINVAL, "%s: a group of %llu data sets took a time of %g; "
                       "use more data sets (--datasets)", m->file,
                       (unsigned long long)c->per_group, elapsed[g]);
  for (size_t g = 0; g < k; g++)
    elapsed[g] /= per; /* periods */
  double p = mean_of(elapsed, k);
  double h = stp__t_quantile(0.975, (double)(k - 1)) * stddev_of(elapsed, k) / sqrt((double)k);
  r->period = p;
  r->throughput = 1 / p;
  r->ci_low = 1 / (p + h);
  r->ci_high = p > h ? 1 / (p - h) : INFINITY;
  for (size_t g = 0; g < k; g++)
    elapsed[g] = 1 / elapsed[g]; /* group throughputs */
  r->stddev = stddev_of(elapsed, k);
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
  stp_status s = stp_evaluate(m, model, &o->eval, &ev, &local);
  r->bounds_seconds = stp__now() - t0;
  if (s == STP_OK) {
    r->upper = ev->det_throughput;
    r->lower = ev->exp_available ? ev->exp_throughput : NAN;
    s = ev->exp_available
            ? STP_OK
            : missing_bound(r, stp__asprintf("exponential throughput: %s", ev->exp_reason), err);
    stp_result_free(ev);
    return s;
  }
  if (stp_status_is_input_error(s))
    return missing_bound(r, stp__strdup(local.message), err);
  if (err)
    *err = local;
  return s;
}

/* Where the 95% interval lies relative to [lower, upper]. */
static void place(stp_sim_result *r) {
  bool lo = isfinite(r->lower), hi = isfinite(r->upper);
  r->position = "unknown";
  if (hi && r->ci_low > r->upper * (1 + SIM_BOUND_RTOL))
    r->position = "above";
  else if (lo && r->ci_high < r->lower * (1 - SIM_BOUND_RTOL))
    r->position = "below";
  else if (lo && hi)
    r->position = "within";
  r->relative = lo && hi && r->upper - r->lower > SIM_BOUND_RTOL * r->upper
                    ? (r->throughput - r->lower) / (r->upper - r->lower)
                    : NAN;
}

static int laws_nbue(const sim_setup *s) {
  int nbue = 1;
  for (size_t c = 0; c < s->ncols; c++) {
    int v = stp__law_nbue(s->law[c]);
    nbue = v == 0 || nbue == 0 ? 0 : v < 0 ? -1 : nbue;
  }
  if (s->resource && !stp__law_is_det(s->resource) && nbue == 1)
    nbue = -1; /* a product of N.B.U.E. factors need not be N.B.U.E. */
  return nbue;
}

static stp_status describe(stp_model model, const stp_sim_options *o, const sim_setup *s,
                           const sim_counts *c, stp_sim_result *r, stp_error *err) {
  *r = (stp_sim_result){.model = model, .groups = c->groups, .replicated = c->replicated,
                        .datasets = c->per_group * c->groups, .warmup = c->warmup,
                        .simulated = c->simulated, .firings = c->firings, .seed = o->seed,
                        .associated = s->associated, .ncolumns = s->ncols,
                        .nbue = laws_nbue(s), .lower = NAN, .upper = NAN, .relative = NAN,
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
  sim_counts c;
  sim_setup s;
  STP_CHECK(counts_init(m, opts, 2 * m->nstages - 1, &c, err));
  STP_CHECK(setup_init(m, model, opts, &s, err));
  stp_sim_result *r = calloc(1, sizeof *r);
  double *elapsed = stp__calloc(c.groups, sizeof *elapsed);
  stp_status st = r && elapsed ? describe(model, opts, &s, &c, r, err)
                               : stp__oom(err, "simulating");
  if (st == STP_OK)
    st = sim_bounds(m, model, opts, r, err);
  double t0 = stp__now(), c0 = cpu_now();
  if (st == STP_OK)
    st = run_groups(&s, &c, opts, elapsed, err);
  if (st == STP_OK) {
    r->seconds = stp__now() - t0;
    r->cpu_seconds = cpu_now() - c0;
    st = group_statistics(m, &c, elapsed, r, err);
  }
  if (st == STP_OK)
    place(r);
  free(elapsed);
  setup_clear(&s);
  if (st != STP_OK) {
    stp_sim_result_free(r);
    return st;
  }
  *out = r;
  return STP_OK;
}

/* One run, data set by data set: after the warm-up, the time between the
 * in-order completions of consecutive data sets (run_advance of one data
 * set measures exactly that, from the previous completion). */
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
  sim_setup s;
  STP_CHECK(setup_init(m, model, opts, &s, err));
  sim_run r = {0};
  double ignored;
  uint64_t warmup = opts->warmup != STP_SIM_AUTO ? opts->warmup : n / 10;
  stp_status st = run_init(&s, opts->seed, 0, &r, err);
  if (st == STP_OK)
    st = run_advance(&s, &r, warmup, &opts->cancel, &ignored, err);
  for (uint64_t k = 0; k < n && st == STP_OK; k++)
    st = run_advance(&s, &r, 1, k % 4096 ? NULL : &opts->cancel, &out[k], err);
  run_clear(&r);
  setup_clear(&s);
  return st;
}
