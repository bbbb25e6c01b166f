/* generate.c: random instances following the protocol of the paper's
 * section 7.1 (Table 1): "all relevant parameters (processor speeds, link
 * bandwidths, number of processors computing the same stage) were randomly
 * chosen uniformly within the ranges indicated".
 *
 * Our reading of it, fixed here and documented in the README:
 * - team sizes: a uniformly random composition of M processors into N
 *   positive parts (every stage gets one processor at least, every processor
 *   is used), unless the caller fixes them; team i holds the next R_i
 *   processors in order (times are i.i.d., so no shuffling is needed).
 *   Other readings (stp_generate_teams) let processors stay unused or draw
 *   the sizes stage by stage; notebooks-data compares them on Table 1;
 * - times, not speeds, are uniform in the ranges (the table gives times):
 *   work and output are 1, speed = 1 / c_p and bandwidth = 1 / d_pq
 *   (STP_DRAW_RATES makes speeds and bandwidths uniform instead, and
 *   STP_DRAW_INTEGER_TIMES draws integer times: the README compares the
 *   three readings on Table 1);
 * - one link entry per pair that carries data (docs/design.md 4), each with its
 *   own time; a single default bandwidth when the range is one value
 *   (STP_COMM_PER_TRANSFER gives the links of a transfer one shared time,
 *   STP_COMM_PER_PROCESSOR each processor a time, p -> q taking the larger
 *   of p's and q's, STP_COMP_PER_STAGE the processors of a team one shared
 *   time).
 *
 * Instance `index` uses its own xoshiro256** stream (models/xoshiro.h),
 * drawn in a fixed order: team sizes, computation times (in processor
 * order; per stage: stage order, then the unused processors), communication
 * times (in (stage, component, sender, receiver) order; per transfer: stage
 * order; per processor: processor order).  A uniform time
 * is lo + (hi - lo) * u with u a 53-bit fraction, the same double on every
 * IEEE machine (ISO C mode: no contraction into a fused multiply-add). */
#include "base/core.h"
#include "models/pipeline/mapping.h"
#include "base/xoshiro.h"
#include "streamtp_generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A speed or bandwidth: the inverse of a time in [lo, hi] drawn as asked. */
static double draw_rate(stp_xoshiro *r, double lo, double hi, stp_generate_draw how) {
  switch (how) {
  case STP_DRAW_RATES:
    return 1.0 / hi + (1.0 / lo - 1.0 / hi) * stp__xoshiro_unit(r);
  case STP_DRAW_INTEGER_TIMES: {
    double a = ceil(lo);
    return 1.0 / (a + (double)stp__xoshiro_below(r, (uint64_t)(floor(hi) - a) + 1));
  }
  default:
    return 1.0 / (lo + (hi - lo) * stp__xoshiro_unit(r));
  }
}

void stp_generate_params_init(stp_generate_params *p) {
  memset(p, 0, sizeof *p);
  p->stages = 10;
  p->processors = 20;
  p->comp_min = p->comm_min = 5;
  p->comp_max = p->comm_max = 15;
  p->model = STP_MODEL_OVERLAP;
  p->seed = 1;
}

static stp_status check_range(const char *what, double lo, double hi, stp_generate_draw how,
                              stp_error *err) {
  bool integer = how == STP_DRAW_INTEGER_TIMES;
  if (!(isfinite(lo) && isfinite(hi) && lo > 0 && lo <= hi))
    return stp__fail(err, STP_EINVAL,
                     "%s times must satisfy 0 < min <= max (finite), got [%g, %g]", what, lo, hi);
  if (integer && !(ceil(lo) <= floor(hi) && floor(hi) < 0x1.0p53))
    return stp__fail(err, STP_EINVAL, "%s times: no integer in [%g, %g] (or too large)", what,
                     lo, hi);
  return STP_OK;
}

static stp_status check_teams(const stp_generate_params *p, size_t *nprocs, stp_error *err) {
  size_t total = 0;
  for (size_t i = 0; i < p->stages; i++) {
    if (p->teams[i] == 0)
      return stp__fail(err, STP_EINVAL, "the team of stage %zu is empty", i + 1);
    if (p->teams[i] > STP_GENERATE_MAX_PROCESSORS - total)
      return stp__fail(err, STP_ELIMIT, "the teams hold more than %d processors",
                       STP_GENERATE_MAX_PROCESSORS);
    total += p->teams[i];
  }
  if (p->processors && p->processors != total)
    return stp__fail(err, STP_EINVAL,
                     "the teams hold %zu processors but %zu processors were asked for", total,
                     p->processors);
  *nprocs = total;
  return STP_OK;
}

static stp_status check_params(const stp_generate_params *p, size_t *nprocs, stp_error *err) {
  if (p->stages == 0)
    return stp__fail(err, STP_EINVAL, "the pipeline needs at least one stage");
  if (p->stages > STP_GENERATE_MAX_STAGES)
    return stp__fail(err, STP_ELIMIT, "%zu stages; the limit is %d", p->stages,
                     STP_GENERATE_MAX_STAGES);
  if (p->model != STP_MODEL_OVERLAP && p->model != STP_MODEL_STRICT)
    return stp__fail(err, STP_EINVAL, "unknown model %d", (int)p->model);
  if (p->draw != STP_DRAW_TIMES && p->draw != STP_DRAW_RATES && p->draw != STP_DRAW_INTEGER_TIMES)
    return stp__fail(err, STP_EINVAL, "unknown way of drawing times %d", (int)p->draw);
  if ((unsigned)p->team_sizes > STP_TEAMS_SEQUENTIAL)
    return stp__fail(err, STP_EINVAL, "unknown way of drawing team sizes %d", (int)p->team_sizes);
  if (p->comp_per != STP_COMP_PER_PROCESSOR && p->comp_per != STP_COMP_PER_STAGE)
    return stp__fail(err, STP_EINVAL, "unknown scope of computation times %d", (int)p->comp_per);
  if (p->comm_per != STP_COMM_PER_LINK && p->comm_per != STP_COMM_PER_TRANSFER &&
      p->comm_per != STP_COMM_PER_PROCESSOR)
    return stp__fail(err, STP_EINVAL, "unknown scope of communication times %d",
                     (int)p->comm_per);
  STP_CHECK(check_range("computation", p->comp_min, p->comp_max, p->draw, err));
  STP_CHECK(check_range("communication", p->comm_min, p->comm_max, p->draw, err));
  if (p->all_links && p->comm_per == STP_COMM_PER_TRANSFER)
    return stp__fail(err, STP_EINVAL,
                     "all links: communication times per link or per processor, not per transfer");
  if (p->teams && p->team_sizes != STP_TEAMS_COMPOSITION)
    return stp__fail(err, STP_EINVAL, "team sizes are fixed: they cannot also be drawn");
  if (p->teams)
    return check_teams(p, nprocs, err);
  if (p->processors < p->stages)
    return stp__fail(err, STP_EINVAL,
                     "%zu processors cannot serve %zu stages: every stage needs one at least",
                     p->processors, p->stages);
  if (p->processors > STP_GENERATE_MAX_PROCESSORS)
    return stp__fail(err, STP_ELIMIT, "%zu processors; the limit is %d", p->processors,
                     STP_GENERATE_MAX_PROCESSORS);
  *nprocs = p->processors;
  return STP_OK;
}

static int size_cmp(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* A uniformly random composition of m into n positive parts: n - 1
 * distinct cuts among the m - 1 gaps (partial Fisher-Yates), sorted. */
static stp_status random_teams(stp_xoshiro *r, size_t n, size_t m, size_t *teams, stp_error *err) {
  size_t *gap = stp__malloc_array(m, sizeof *gap);
  if (!gap)
    return stp__oom(err, "drawing team sizes");
  for (size_t k = 0; k + 1 < m; k++)
    gap[k] = k + 1;
  for (size_t k = 0; k + 1 < n; k++) {
    size_t j = k + (size_t)stp__xoshiro_below(r, m - 1 - k);
    size_t t = gap[k];
    gap[k] = gap[j];
    gap[j] = t;
  }
  qsort(gap, n - 1, sizeof *gap, size_cmp);
  size_t prev = 0;
  for (size_t k = 0; k + 1 < n; k++) {
    teams[k] = gap[k] - prev;
    prev = gap[k];
  }
  teams[n - 1] = m - prev;
  free(gap);
  return STP_OK;
}

/* Random team sizes as p->team_sizes asks (stp_generate_teams); m >= n. */
static stp_status draw_teams(const stp_generate_params *p, stp_xoshiro *r, size_t n, size_t m,
                             size_t *teams, stp_error *err) {
  switch (p->team_sizes) {
  case STP_TEAMS_FIT: {
    /* vectors with sum <= m <-> compositions of m + 1 into n + 1 parts
     * (the last part is the unused processors plus one) */
    size_t *all = stp__malloc_array(n + 1, sizeof *all);
    if (!all)
      return stp__oom(err, "drawing team sizes");
    stp_status s = random_teams(r, n + 1, m + 1, all, err);
    if (s == STP_OK)
      memcpy(teams, all, n * sizeof *teams);
    free(all);
    return s;
  }
  case STP_TEAMS_INDEPENDENT:
    for (size_t i = 0; i < n; i++)
      teams[i] = 1 + (size_t)stp__xoshiro_below(r, m / n);
    return STP_OK;
  case STP_TEAMS_SEQUENTIAL: {
    size_t left = m;
    for (size_t i = 0; i + 1 < n; i++) {
      teams[i] = 1 + (size_t)stp__xoshiro_below(r, left - (n - 1 - i));
      left -= teams[i];
    }
    teams[n - 1] = left;
    return STP_OK;
  }
  default:
    return random_teams(r, n, m, teams, err);
  }
}

/* Links that carry data: sum over transfers of g*u*v = R_i R_(i+1) / g. */
static stp_status count_links(const size_t *teams, size_t n, size_t *out, stp_error *err) {
  uint64_t total = 0;
  for (size_t i = 0; i + 1 < n; i++) {
    uint64_t pairs;
    uint64_t g = stp__gcd_u64(teams[i], teams[i + 1]);
    if (!stp__mul_u64(teams[i] / g, teams[i + 1], &pairs) || !stp__add_u64(total, pairs, &total) ||
        total > STP_GENERATE_MAX_LINKS)
      return stp__fail(err, STP_ELIMIT, "the mapping would need more than %d links",
                       STP_GENERATE_MAX_LINKS);
  }
  *out = (size_t)total;
  return STP_OK;
}

static stp_status fill_names(stp_mapping *m, const char *name, stp_error *err) {
  m->name = stp__strdup(name);
  m->file = stp__strdup(name);
  if (!m->name || !m->file)
    return stp__oom(err, "naming a generated mapping");
  for (size_t i = 0; i < m->nstages; i++)
    if (!(m->stages[i].name = stp__asprintf("T%zu", i + 1)))
      return stp__oom(err, "naming a generated mapping");
  for (size_t p = 0; p < m->nprocs; p++)
    if (!(m->procs[p].name = stp__asprintf("P%zu", p)))
      return stp__oom(err, "naming a generated mapping");
  return STP_OK;
}

/* The communication time of each link, as p->comm_per says: one draw per
 * link, per transfer, or per processor (then a link takes the larger time of
 * its two ends: its bandwidth is the smaller one).  port holds nprocs
 * bandwidths (only used per processor). */
static void fill_links(const stp_generate_params *p, stp_xoshiro *r, double *port,
                       stp_mapping *m) {
  if (p->comm_per == STP_COMM_PER_PROCESSOR)
    for (size_t q = 0; q < m->nprocs; q++)
      port[q] = draw_rate(r, p->comm_min, p->comm_max, p->draw);
  size_t l = 0;
  for (size_t i = 0; i + 1 < m->nstages; i++) {
    stp_transfer_shape sh = stp__transfer_shape(m, i);
    double shared = p->comm_per == STP_COMM_PER_TRANSFER
                        ? draw_rate(r, p->comm_min, p->comm_max, p->draw)
                        : 0;
    for (size_t j = 0; j < sh.g; j++)
      for (size_t a = 0; a < sh.u; a++)
        for (size_t b = 0; b < sh.v; b++) {
          size_t from = stp__transfer_sender(m, i, j, sh, a);
          size_t to = stp__transfer_receiver(m, i, j, sh, b);
          double bw = p->comm_per == STP_COMM_PER_TRANSFER ? shared
                      : p->comm_per == STP_COMM_PER_PROCESSOR
                          ? (port[from] < port[to] ? port[from] : port[to])
                          : draw_rate(r, p->comm_min, p->comm_max, p->draw);
          m->links[l++] = (stp_link){.from = from, .to = to, .bandwidth = bw};
        }
  }
}

/* Every ordered pair of distinct processors, in (from, to) order. */
static void fill_all_links(const stp_generate_params *p, stp_xoshiro *r, double *port,
                           stp_mapping *m) {
  if (p->comm_per == STP_COMM_PER_PROCESSOR)
    for (size_t q = 0; q < m->nprocs; q++)
      port[q] = draw_rate(r, p->comm_min, p->comm_max, p->draw);
  size_t l = 0;
  for (size_t from = 0; from < m->nprocs; from++)
    for (size_t to = 0; to < m->nprocs; to++) {
      if (to == from)
        continue;
      double bw = p->comm_per == STP_COMM_PER_PROCESSOR
                      ? (port[from] < port[to] ? port[from] : port[to])
                      : draw_rate(r, p->comm_min, p->comm_max, p->draw);
      m->links[l++] = (stp_link){.from = from, .to = to, .bandwidth = bw};
    }
}

static void fill_times(const stp_generate_params *p, stp_xoshiro *r, const size_t *teams,
                       bool homogeneous, double *port, stp_mapping *m) {
  size_t at = 0;
  for (size_t i = 0; i < m->nstages; i++) {
    m->stages[i] = (stp_stage){.name = m->stages[i].name, .work = 1,
                               .output = i + 1 < m->nstages ? 1 : 0};
    m->team_off[i] = at;
    for (size_t k = 0; k < teams[i]; k++, at++)
      m->team[at] = at;
  }
  m->team_off[m->nstages] = at;
  if (p->comp_per == STP_COMP_PER_STAGE) {
    for (size_t i = 0; i < m->nstages; i++) {
      double speed = draw_rate(r, p->comp_min, p->comp_max, p->draw);
      for (size_t k = m->team_off[i]; k < m->team_off[i + 1]; k++)
        m->procs[k].speed = speed;
    }
    for (size_t q = at; q < m->nprocs; q++) /* unused processors */
      m->procs[q].speed = draw_rate(r, p->comp_min, p->comp_max, p->draw);
  } else {
    for (size_t q = 0; q < m->nprocs; q++)
      m->procs[q].speed = draw_rate(r, p->comp_min, p->comp_max, p->draw);
  }
  stp__mapping_finalize(m); /* teams are known: transfer shapes work from here */
  if (homogeneous) {
    m->bandwidth = 1.0 / p->comm_min;
    return;
  }
  if (p->all_links)
    fill_all_links(p, r, port, m);
  else
    fill_links(p, r, port, m);
  stp__mapping_finalize(m); /* sort the links */
}

stp_status stp_generate(const stp_generate_params *p, uint64_t index, const char *name,
                        stp_mapping **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_generate: out is NULL");
  *out = NULL;
  if (!p || !name)
    return stp__fail(err, STP_EINVAL, "stp_generate: parameters or name is NULL");
  size_t nprocs = 0, nlinks = 0;
  STP_CHECK(check_params(p, &nprocs, err));
  size_t *teams = stp__malloc_array(p->stages, sizeof *teams);
  if (!teams)
    return stp__oom(err, "drawing team sizes");
  stp_xoshiro r;
  stp__xoshiro_seed(&r, p->seed, index);
  stp_status s = STP_OK;
  if (p->teams)
    memcpy(teams, p->teams, p->stages * sizeof *teams);
  else
    s = draw_teams(p, &r, p->stages, nprocs, teams, err);
  size_t used = 0;
  for (size_t i = 0; s == STP_OK && i < p->stages; i++)
    used += teams[i];
  bool homogeneous = p->comm_max <= p->comm_min; /* a single value (min <= max): no draw */
  if (s == STP_OK && !homogeneous && p->all_links) {
    nlinks = nprocs * (nprocs - 1);
    if (nprocs > 1 && nlinks / (nprocs - 1) != nprocs) /* cannot wrap below 10^5 processors */
      s = stp__fail(err, STP_ELIMIT, "too many links");
    else if (nlinks > STP_GENERATE_MAX_LINKS)
      s = stp__fail(err, STP_ELIMIT, "%zu processors would need %zu links, above %d", nprocs,
                    nlinks, STP_GENERATE_MAX_LINKS);
  } else if (s == STP_OK && !homogeneous) {
    s = count_links(teams, p->stages, &nlinks, err);
  }
  stp_mapping *m = NULL;
  double *port = NULL;
  if (s == STP_OK && !homogeneous && p->comm_per == STP_COMM_PER_PROCESSOR &&
      !(port = stp__malloc_array(nprocs, sizeof *port)))
    s = stp__oom(err, "drawing link times");
  if (s == STP_OK)
    s = stp__mapping_alloc(p->stages, nprocs, nlinks, used, &m, err);
  if (s == STP_OK)
    s = fill_names(m, name, err);
  if (s == STP_OK) {
    m->model = p->model;
    fill_times(p, &r, teams, homogeneous, port, m);
  }
  free(port);
  free(teams);
  if (s != STP_OK) {
    stp_mapping_free(m);
    return s;
  }
  *out = m;
  return STP_OK;
}
