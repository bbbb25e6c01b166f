/* mapping.c: allocation, indexing and derived times of a mapping, and the
 * public accessors of the opaque stp_mapping. */
#include "models/pipeline/mapping.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

stp_status stp__mapping_alloc(size_t nstages, size_t nprocs, size_t nlinks, size_t team_total,
                              stp_mapping **out, stp_error *err) {
  *out = NULL;
  stp_mapping *m = calloc(1, sizeof *m);
  if (!m)
    return stp__oom(err, "allocating a mapping");
  m->nstages = nstages;
  m->nprocs = nprocs;
  m->nlinks = nlinks;
  m->stages = stp__calloc(nstages, sizeof *m->stages);
  m->procs = stp__calloc(nprocs, sizeof *m->procs);
  m->links = stp__calloc(nlinks, sizeof *m->links);
  m->team_off = stp__calloc(nstages + 1, sizeof *m->team_off);
  m->team = stp__calloc(team_total, sizeof *m->team);
  if (!m->stages || !m->procs || !m->links || !m->team_off || !m->team) {
    stp_mapping_free(m);
    return stp__oom(err, "allocating a mapping");
  }
  for (size_t p = 0; p < nprocs; p++)
    m->procs[p].stage = STP_NO_STAGE;
  *out = m;
  return STP_OK;
}

void stp_mapping_free(stp_mapping *m) {
  if (!m)
    return;
  free(m->name);
  free(m->file);
  if (m->stages)
    for (size_t i = 0; i < m->nstages; i++)
      free(m->stages[i].name);
  if (m->procs)
    for (size_t p = 0; p < m->nprocs; p++)
      free(m->procs[p].name);
  free(m->stages);
  free(m->procs);
  free(m->links);
  free(m->team_off);
  free(m->team);
  stp__law_table_free(m->laws);
  free(m);
}

static int link_cmp(const void *a, const void *b) {
  const stp_link *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return 0;
}

void stp__mapping_finalize(stp_mapping *m) {
  qsort(m->links, m->nlinks, sizeof *m->links, link_cmp);
  for (size_t i = 0; i < m->nstages; i++)
    for (size_t k = 0; k < stp__team_size(m, i); k++) {
      stp_processor *p = &m->procs[stp__team_member(m, i, k)];
      p->stage = i;
      p->rank = k;
    }
}

/* First link not below (p, q) in links[lo, hi) (sorted by (from, to)); the
 * comparison is inlined: patterns and event graphs look links up once per
 * transition, up to millions of times. */
static size_t link_lower_bound(const stp_mapping *m, size_t lo, size_t hi, size_t p, size_t q) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const stp_link *l = &m->links[mid];
    if (l->from < p || (l->from == p && l->to < q))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static double bandwidth_at(const stp_mapping *m, size_t at, size_t p, size_t q) {
  if (at < m->nlinks && m->links[at].from == p && m->links[at].to == q)
    return m->links[at].bandwidth;
  return m->bandwidth;
}

size_t stp__link_entry(const stp_mapping *m, size_t p, size_t q) {
  size_t at = link_lower_bound(m, 0, m->nlinks, p, q);
  return at < m->nlinks && m->links[at].from == p && m->links[at].to == q ? at : SIZE_MAX;
}

double stp__link_bandwidth(const stp_mapping *m, size_t p, size_t q) {
  return bandwidth_at(m, link_lower_bound(m, 0, m->nlinks, p, q), p, q);
}

void stp__comm_times_to(const stp_mapping *m, size_t p, const size_t *q, size_t nq, double *out) {
  size_t lo = link_lower_bound(m, 0, m->nlinks, p, 0);
  size_t hi = link_lower_bound(m, lo, m->nlinks, p + 1, 0);
  double output = m->stages[m->procs[p].stage].output;
  for (size_t j = 0; j < nq; j++)
    out[j] = output / bandwidth_at(m, link_lower_bound(m, lo, hi, p, q[j]), p, q[j]);
}

double stp__comp_time(const stp_mapping *m, size_t p) {
  return m->stages[m->procs[p].stage].work / m->procs[p].speed;
}

double stp__comm_time(const stp_mapping *m, size_t p, size_t q) {
  return m->stages[m->procs[p].stage].output / stp__link_bandwidth(m, p, q);
}

bool stp__teams_lcm(const stp_teams *t, uint64_t *out) {
  uint64_t r = 1;
  for (size_t i = 0; i < t->nstages; i++)
    if (!stp__lcm_u64(r, stp__teams_size(t, i), &r))
      return false;
  *out = r;
  return true;
}

bool stp__mapping_lcm(const stp_mapping *m, uint64_t *out) {
  stp_teams t = stp__teams_of(m);
  return stp__teams_lcm(&t, out);
}

stp_transfer_shape stp__transfer_shape(const stp_mapping *m, size_t i) {
  size_t ri = stp__team_size(m, i), rj = stp__team_size(m, i + 1);
  size_t g = (size_t)stp__gcd_u64(ri, rj);
  return (stp_transfer_shape){.g = g, .u = ri / g, .v = rj / g};
}

/* ---- public accessors ---------------------------------------------------- */
const char *stp_mapping_name(const stp_mapping *m) { return m->name; }
const char *stp_mapping_file(const stp_mapping *m) { return m->file; }
stp_model stp_mapping_model(const stp_mapping *m) { return m->model; }
size_t stp_mapping_stage_count(const stp_mapping *m) { return m->nstages; }
size_t stp_mapping_processor_count(const stp_mapping *m) { return m->nprocs; }
const char *stp_mapping_stage_name(const stp_mapping *m, size_t i) {
  return i < m->nstages ? m->stages[i].name : NULL;
}
const char *stp_mapping_processor_name(const stp_mapping *m, size_t p) {
  return p < m->nprocs ? m->procs[p].name : NULL;
}
size_t stp_mapping_team_size(const stp_mapping *m, size_t i) {
  return i < m->nstages ? stp__team_size(m, i) : 0;
}
size_t stp_mapping_team_member(const stp_mapping *m, size_t i, size_t k) {
  return stp__team_member(m, i, k);
}

stp_status stp_mapping_paths(const stp_mapping *m, uint64_t *out, stp_error *err) {
  if (!stp__mapping_lcm(m, out)) {
    *out = 0;
    return stp__fail(err, STP_ELIMIT,
                     "%s: the number of paths lcm(team sizes) exceeds 2^64", m->file);
  }
  return STP_OK;
}

const char *stp_model_name(stp_model m) {
  return m == STP_MODEL_STRICT ? "strict" : "overlap";
}

stp_status stp_model_parse(const char *s, stp_model *out) {
  if (s && strcmp(s, "overlap") == 0) {
    *out = STP_MODEL_OVERLAP;
    return STP_OK;
  }
  if (s && strcmp(s, "strict") == 0) {
    *out = STP_MODEL_STRICT;
    return STP_OK;
  }
  return STP_EINVAL;
}

stp_law_table *stp__law_table_alloc(size_t nstages) {
  stp_law_table *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->n = nstages;
  t->stage = stp__calloc(nstages, sizeof *t->stage);
  t->transfer = stp__calloc(nstages, sizeof *t->transfer);
  if (!t->stage || !t->transfer) {
    stp__law_table_free(t);
    return NULL;
  }
  return t;
}

void stp__law_table_free(stp_law_table *t) {
  if (!t)
    return;
  stp__law_free(t->dflt);
  for (size_t i = 0; t->stage && i < t->n; i++)
    stp__law_free(t->stage[i]);
  for (size_t i = 0; t->transfer && i < t->n; i++)
    stp__law_free(t->transfer[i]);
  free(t->stage);
  free(t->transfer);
  free(t);
}
