/* sim_explain.c: what stp_simulate adds when asked to explain a throughput
 * (docs/design.md, "Explaining a throughput"; simulation.h):
 *
 * - utilization: the main run itself, observed: the firing times of every
 *   column summed by team member (the kernel's mean entries) over each
 *   group, folded onto the resources of stp_utilization_compute and divided
 *   by the group's time; mean and Student interval over the groups, the
 *   same interval as the throughput's.  The dates, hence the throughput,
 *   are those of an unobserved run.
 * - latency: a second run with the same groups and seed, the source
 *   throttled (one more transition releasing a data set every 1 / rate),
 *   the time from the start of each data set's first computation to the end
 *   of its last; mean and interval over the groups, quantiles over the data
 *   sets.  Only a throttled source gives a finite latency: the event graph
 *   is not strongly connected, and a source at or above the throughput
 *   lets data sets pile up before the bottleneck. */
#include "base/core.h"
#include "models/pipeline/simulation.h"
#include "streamtp_explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LATENCY_RATE_SHARE 0.95 /* default source: this share of the throughput */
#define LATENCY_LISTED 1000     /* paths listed by the deterministic latency, as eval */

/* ---- utilization --------------------------------------------------------------------- */
/* The items of eval's utilization from the bounds the simulation computed
 * (an evaluation holding only the throughputs it needs). */
static stp_status utilization_items(const stp_mapping *m, stp_model model, stp_sim_result *r,
                                    stp_error *err) {
  stp_result ev = {.model = model, .det_throughput = r->upper,
                   .exp_available = isfinite(r->lower), .exp_throughput = r->lower};
  ev.exact_law.available = isfinite(r->law_exact);
  ev.exact_law.throughput = r->law_exact;
  stp_utilization *u = NULL;
  STP_CHECK(stp_utilization_compute(m, &ev, &u, err));
  r->utilization = u;
  return STP_OK;
}

/* Which resources a firing of a mean entry keeps busy: one or two items. */
typedef struct busy_map {
  size_t nentries, nitems;
  size_t *item;     /* 2 per entry: items of u, SIZE_MAX for none */
  double *busy;     /* the kernel's sums by entry */
  double *frac;     /* groups x nitems */
} busy_map;

static size_t item_of(const size_t *index, size_t p, stp_port port) { return index[3 * p + port]; }

/* Column c = 2i (stage i on team_i[n]) or 2i + 1 (team_i[n mod R_i] sends
 * to team_(i+1)[n mod R_(i+1)]): Overlap, the computation or the two
 * ports; Strict, the processors. */
static void map_column(const stp_mapping *m, stp_model model, const stp_mp_graph *g, size_t c,
                       const size_t *index, size_t *item) {
  size_t i = c / 2, ra = stp__team_size(m, i), off = g->mean_off[c];
  bool strict = model == STP_MODEL_STRICT;
  for (size_t n = 0; n < g->period[c]; n++) {
    size_t *it = item + 2 * (off + n);
    if (c % 2 == 0) {
      it[0] = item_of(index, stp__team_member(m, i, n % ra), STP_PORT_COMPUTE);
      continue;
    }
    size_t from = stp__team_member(m, i, n % ra);
    size_t to = stp__team_member(m, i + 1, n % stp__team_size(m, i + 1));
    it[0] = item_of(index, from, strict ? STP_PORT_COMPUTE : STP_PORT_OUT);
    it[1] = item_of(index, to, strict ? STP_PORT_COMPUTE : STP_PORT_IN);
  }
}

static stp_status busy_map_init(const stp_mapping *m, stp_model model, const stp_sim_setup *s,
                                const stp_utilization *u, double *frac, busy_map *b,
                                stp_error *err) {
  const stp_mp_graph *g = &s->graph;
  *b = (busy_map){.nentries = g->mean_off[g->n], .nitems = u->n, .frac = frac};
  size_t *index = stp__malloc_array(3 * m->nprocs, sizeof *index);
  b->item = stp__malloc_array(2 * b->nentries, sizeof *b->item);
  b->busy = stp__calloc(b->nentries, sizeof *b->busy);
  if (!index || !b->item || !b->busy) {
    free(index);
    return stp__oom(err, "observing the busy times");
  }
  for (size_t k = 0; k < 3 * m->nprocs; k++)
    index[k] = SIZE_MAX;
  for (size_t k = 0; k < u->n; k++)
    index[3 * u->items[k].processor + u->items[k].port] = k;
  for (size_t e = 0; e < 2 * b->nentries; e++)
    b->item[e] = SIZE_MAX;
  for (size_t c = 0; c < s->ncols; c++)
    map_column(m, model, g, c, index, b->item);
  free(index);
  return STP_OK;
}

/* After group g: its busy times onto the resources, over its time. */
static void busy_group_done(void *ctx, uint32_t group, double elapsed) {
  busy_map *b = ctx;
  double *f = b->frac + (size_t)group * b->nitems;
  for (size_t e = 0; e < b->nentries; e++)
    for (int j = 0; j < 2; j++)
      if (b->item[2 * e + j] != SIZE_MAX)
        f[b->item[2 * e + j]] += b->busy[e];
  for (size_t k = 0; k < b->nitems; k++)
    f[k] = elapsed > 0 ? f[k] / elapsed : NAN;
  memset(b->busy, 0, b->nentries * sizeof *b->busy);
}

stp_status stp__sim_run_utilization(const stp_mapping *m, stp_model model,
                                    const stp_sim_setup *s, const stp_sim_counts *c,
                                    const stp_control *control, stp_sim_result *r,
                                    double *elapsed, double **frac, stp_error *err) {
  *frac = NULL;
  STP_CHECK(utilization_items(m, model, r, err));
  size_t n = r->utilization->n;
  double *f = stp__calloc((size_t)c->mc.groups * (n ? n : 1), sizeof *f);
  if (!f)
    return stp__oom(err, "observing the busy times");
  busy_map b;
  stp_status st = busy_map_init(m, model, s, r->utilization, f, &b, err);
  stp_mp_observer obs = {.busy = b.busy};
  if (st == STP_OK)
    st = stp__mc_run_groups_observed(&s->graph, &c->mc, control, elapsed, &obs,
                                     busy_group_done, &b, err);
  free(b.item);
  free(b.busy);
  if (st != STP_OK) {
    free(f);
    return st;
  }
  *frac = f;
  return STP_OK;
}

void stp__sim_utilization_stats(stp_sim_result *r, const double *frac, uint32_t groups) {
  stp_utilization *u = r->utilization;
  double *x = stp__malloc_array(groups, sizeof *x);
  for (size_t k = 0; x && k < u->n; k++) {
    for (uint32_t g = 0; g < groups; g++)
      x[g] = frac[(size_t)g * u->n + k];
    double mean, h = stp__sim_halfwidth(x, groups, &mean);
    u->items[k].sim = mean;
    u->items[k].sim_low = mean - h;
    u->items[k].sim_high = mean + h;
  }
  free(x); /* out of memory: the simulated values stay NaN */
}

/* ---- latency ------------------------------------------------------------------------- */
typedef struct span_groups {
  const double *span; /* the run's latencies, group after group */
  uint64_t per_group;
  double *mean;       /* by group */
} span_groups;

static void span_group_done(void *ctx, uint32_t group, double elapsed) {
  (void)elapsed;
  span_groups *sg = ctx;
  sg->mean[group] = stp__mc_mean(sg->span + group * sg->per_group, (size_t)sg->per_group);
}

static void swap(double *x, ptrdiff_t i, ptrdiff_t j) {
  double t = x[i];
  x[i] = x[j];
  x[j] = t;
}

/* Hoare's selection (median of three): x[k] becomes the k-th smallest of
 * x[0..n), with none larger before it and none smaller after it; expected
 * time O(n), where sorting 2e7 latencies took seconds. */
static void select_kth(double *x, ptrdiff_t n, ptrdiff_t k) {
  ptrdiff_t lo = 0, hi = n - 1;
  while (hi > lo) {
    ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
    if (x[mid] < x[lo])
      swap(x, lo, mid);
    if (x[hi] < x[lo])
      swap(x, lo, hi);
    if (x[hi] < x[mid])
      swap(x, mid, hi);
    double pivot = x[mid];
    while (i <= j) { /* [lo, i) <= pivot <= (j, hi] */
      while (x[i] < pivot)
        i++;
      while (x[j] > pivot)
        j--;
      if (i <= j)
        swap(x, i++, j--);
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return; /* between j and i: all equal to the pivot */
  }
}

/* The q-quantile's index in a sample of n: the smallest order statistic
 * with at least a share q of the sample at or below it. */
static ptrdiff_t quantile_index(uint64_t n, double q) {
  double at = ceil(q * (double)n);
  return at < 1 ? 0 : (ptrdiff_t)at - 1;
}

/* The 0.5, 0.9 and 0.99 quantiles of x[0..n) (reordered): each selection
 * leaves the smaller values before it, where the next one looks. */
static void quantiles(double *x, uint64_t n, stp_sim_latency *l) {
  ptrdiff_t i99 = quantile_index(n, 0.99), i90 = quantile_index(n, 0.9),
            i50 = quantile_index(n, 0.5);
  select_kth(x, (ptrdiff_t)n, i99);
  select_kth(x, i99 + 1, i90);
  select_kth(x, i90 + 1, i50);
  l->q99 = x[i99];
  l->q90 = x[i90];
  l->q50 = x[i50];
}

/* The rate of the source: the caller's, or a share of the throughput;
 * EINVAL unless positive and below the throughput. */
static stp_status source_rate(const stp_mapping *m, const stp_sim_options *o,
                              const stp_sim_result *r, stp_sim_latency *l, stp_error *err) {
  l->rate_given = o->source_rate != 0;
  l->rate = l->rate_given ? o->source_rate : LATENCY_RATE_SHARE * r->throughput;
  if (!(l->rate > 0) || !isfinite(l->rate))
    return stp__fail(err, STP_EINVAL, "%s: the source rate must be a positive number of data "
                     "sets per time unit (got %g)", m->file, l->rate);
  if (l->rate >= r->throughput)
    return stp__fail(err, STP_EINVAL,
                     "%s: a source rate of %g data sets per time unit is not below the "
                     "simulated throughput %.8g: a saturated source lets data sets pile up "
                     "before the bottleneck, so the latency grows without bound; give a rate "
                     "below the throughput", m->file, l->rate, r->throughput);
  return STP_OK;
}

/* The throttled run: the latency of every measured data set into span. */
static stp_status throttled_run(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                                const stp_sim_counts *c, double interval, double *span,
                                double *group_mean, double *elapsed, stp_error *err) {
  stp_sim_setup s;
  STP_CHECK(stp__sim_setup_init(m, model, o, stp__mc_rows_per_run(&c->mc), interval, &s, err));
  stp_mp_observer obs = {.span = span, .first = 0, .last = s.ncols - 1};
  span_groups sg = {.span = span, .per_group = c->mc.per_group, .mean = group_mean};
  stp_status st = stp__mc_run_groups_observed(&s.graph, &c->mc, &o->control, elapsed, &obs,
                                              span_group_done, &sg, err);
  stp__sim_setup_clear(&s);
  return st;
}

static void latency_stats(double *span, uint64_t n, const double *group_mean,
                          const double *elapsed, uint32_t groups, uint64_t per_group,
                          stp_sim_latency *l) {
  double h = stp__sim_halfwidth(group_mean, groups, &l->mean), time = 0;
  l->ci_low = l->mean - h;
  l->ci_high = l->mean + h;
  for (uint32_t g = 0; g < groups; g++)
    time += elapsed[g];
  l->datasets = n;
  l->throughput = (double)(per_group * groups) / time;
  quantiles(span, n, l);
}

stp_status stp__sim_latency(const stp_mapping *m, stp_model model, const stp_sim_options *o,
                            const stp_sim_counts *c, stp_sim_result *r, stp_error *err) {
  stp_sim_latency l = {0};
  STP_CHECK(source_rate(m, o, r, &l, err));
  uint32_t groups = c->mc.groups;
  uint64_t n = c->mc.per_group * groups;
  STP_CHECK(stp__within_budget(&o->control, "the latency of every data set simulated",
                               (double)n * sizeof(double), err));
  STP_CHECK(stp_latency_compute(m, LATENCY_LISTED, &r->latency, err));
  double *span = stp__malloc_array((size_t)n, sizeof *span);
  double *gm = stp__malloc_array(groups, sizeof *gm), *elapsed = stp__calloc(groups, sizeof *elapsed);
  stp_status st = span && gm && elapsed
                      ? throttled_run(m, model, o, c, 1 / l.rate, span, gm, elapsed, err)
                      : stp__oom(err, "keeping the latency of every data set");
  if (st == STP_OK) {
    latency_stats(span, n, gm, elapsed, groups, c->mc.per_group, &l);
    r->sim_latency = l;
  }
  free(span);
  free(gm);
  free(elapsed);
  return st;
}
