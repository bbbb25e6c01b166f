/* validate.c: the rules of a mapping (docs/format.md, "Mapping files"),
 * shared by the file reader and the C builder; see validate.h. */
#include "models/pipeline/validate.h"

#include "base/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

stp_status stp__check_fail(const stp_check_sink *s, stp_jpath path, bool at_key,
                           const char *fmt, ...) {
  char what[STP_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  stp__vsnprintf(what, sizeof what, fmt, ap); /* "2.5", never "2,5", under any locale */
  va_end(ap);
  return s->report(s, &path, at_key, what);
}

stp_status stp__check_positive(const stp_check_sink *s, double x, stp_jpath path,
                               const char *what, bool allow_zero) {
  char p[256], msg[STP_ERROR_MAX];
  stp__jpath_format(&path, p, sizeof p);
  if (!stp__rule_positive(x, allow_zero, what, p, msg, sizeof msg))
    return s->report(s, &path, false, msg);
  return STP_OK;
}

stp_status stp__check_name(const stp_check_sink *s, const char *name, size_t n, stp_jpath path,
                           const char *what) {
  char msg[STP_ERROR_MAX];
  if (!stp__rule_name(name, n, what, msg, sizeof msg))
    return s->report(s, &path, false, msg);
  return STP_OK;
}

stp_status stp__check_count(const stp_check_sink *s, const char *key, size_t n, bool required,
                            size_t max) {
  stp_jpath p = stp__jpath_key((stp_jpath){0}, key);
  if (required && n == 0)
    return stp__check_fail(s, p, false, "\"%s\" must not be empty", key);
  if (n > max)
    return stp__check_fail(s, p, false, "\"%s\" has %zu entries; the limit is %zu", key, n, max);
  return STP_OK;
}

stp_status stp__check_team_count(const stp_check_sink *s, size_t nteams, size_t nstages) {
  if (nteams == nstages)
    return STP_OK;
  return stp__check_fail(s, stp__jpath_key((stp_jpath){0}, "mapping"), false,
                         "\"mapping\" has %zu team%s but the pipeline has %zu stage%s", nteams,
                         nteams == 1 ? "" : "s", nstages, nstages == 1 ? "" : "s");
}

stp_status stp__check_team_size(const stp_check_sink *s, size_t i, size_t size) {
  if (size > 0)
    return STP_OK;
  return stp__check_fail(s, stp__jpath_index(stp__jpath_key((stp_jpath){0}, "mapping"), i), false,
                         "the team of stage %zu (mapping[%zu]) is empty", i + 1, i);
}

/* ---- names ------------------------------------------------------------------ */
static int name_rec_cmp(const void *a, const void *b) {
  const stp_name_rec *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

static stp_status index_alloc(stp_name_index *ix, size_t n, stp_error *err) {
  ix->n = n;
  ix->rec = stp__malloc_array(n ? n : 1, sizeof *ix->rec);
  return ix->rec ? STP_OK : stp__oom(err, "indexing names");
}

static void index_sort(stp_name_index *ix) {
  qsort(ix->rec, ix->n, sizeof *ix->rec, name_rec_cmp);
}

stp_status stp__name_index_build_procs(stp_name_index *ix, const stp_mapping *m, stp_error *err) {
  STP_CHECK(index_alloc(ix, m->nprocs, err));
  for (size_t p = 0; p < m->nprocs; p++)
    ix->rec[p] = (stp_name_rec){.name = m->procs[p].name, .index = p};
  index_sort(ix);
  return STP_OK;
}

stp_status stp__name_index_build_stages(stp_name_index *ix, const stp_mapping *m, stp_error *err) {
  STP_CHECK(index_alloc(ix, m->nstages, err));
  for (size_t i = 0; i < m->nstages; i++)
    ix->rec[i] = (stp_name_rec){.name = m->stages[i].name, .index = i};
  index_sort(ix);
  return STP_OK;
}

size_t stp__name_index_find(const stp_name_index *ix, const char *name) {
  size_t lo = 0, hi = ix->n;
  while (lo < hi) { /* first record whose name is >= name */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(ix->rec[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ix->n && strcmp(ix->rec[lo].name, name) == 0 ? ix->rec[lo].index : SIZE_MAX;
}

void stp__name_index_free(stp_name_index *ix) {
  free(ix->rec);
  ix->rec = NULL;
  ix->n = 0;
}

/* Stage names are distinct: sorted once, then neighbours compared, so that
 * 100,000 stages (the limit) take milliseconds, not a pairwise minute. */
stp_status stp__check_stage_names(const stp_check_sink *s, const stp_mapping *m) {
  stp_name_index ix;
  STP_CHECK(stp__name_index_build_stages(&ix, m, s->err));
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "stages");
  stp_status st = STP_OK;
  for (size_t k = 1; k < ix.n && st == STP_OK; k++) {
    const stp_name_rec *a = &ix.rec[k - 1], *b = &ix.rec[k];
    if (strcmp(a->name, b->name) == 0) /* sorted by index among equals */
      st = stp__check_fail(s, stp__jpath_index(base, b->index), false,
                           "stage name \"%s\" is used twice (stages[%zu] and stages[%zu])",
                           a->name, a->index, b->index);
  }
  stp__name_index_free(&ix);
  return st;
}

stp_status stp__check_processor_names(const stp_check_sink *s, const stp_mapping *m,
                                      const stp_name_index *ix) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "processors");
  (void)m;
  for (size_t k = 1; k < ix->n; k++) {
    const stp_name_rec *a = &ix->rec[k - 1], *b = &ix->rec[k];
    if (strcmp(a->name, b->name) == 0) /* sorted by index among equals */
      return stp__check_fail(
          s, stp__jpath_key(stp__jpath_index(base, b->index), "name"), false,
          "processor name \"%s\" is declared twice (processors[%zu] and processors[%zu])",
          a->name, a->index, b->index);
  }
  return STP_OK;
}

/* ---- links ------------------------------------------------------------------ */
stp_status stp__check_link(const stp_check_sink *s, const stp_mapping *m, size_t k) {
  const stp_link *lk = &m->links[k];
  if (lk->from == lk->to)
    return stp__check_fail(s, stp__jpath_index(stp__jpath_key((stp_jpath){0}, "links"), k), false,
                           "link from \"%s\" to itself", m->procs[lk->from].name);
  return STP_OK;
}

typedef struct link_rec {
  size_t from, to, index;
} link_rec;

static int link_rec_cmp(const void *a, const void *b) {
  const link_rec *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

stp_status stp__check_links_unique(const stp_check_sink *s, const stp_mapping *m) {
  if (m->nlinks < 2)
    return STP_OK;
  link_rec *rec = stp__malloc_array(m->nlinks, sizeof *rec);
  if (!rec)
    return stp__oom(s->err, "checking links");
  for (size_t k = 0; k < m->nlinks; k++)
    rec[k] = (link_rec){.from = m->links[k].from, .to = m->links[k].to, .index = k};
  qsort(rec, m->nlinks, sizeof *rec, link_rec_cmp);
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "links");
  stp_status st = STP_OK;
  for (size_t k = 1; k < m->nlinks && st == STP_OK; k++)
    if (rec[k].from == rec[k - 1].from && rec[k].to == rec[k - 1].to)
      st = stp__check_fail(s, stp__jpath_index(base, rec[k].index), false,
                           "the link \"%s\" -> \"%s\" is declared twice (links[%zu] and links[%zu])",
                           m->procs[rec[k].from].name, m->procs[rec[k].to].name,
                           rec[k - 1].index, rec[k].index);
  free(rec);
  return st;
}

/* ---- teams and times ---------------------------------------------------------- */
stp_status stp__check_teams(const stp_check_sink *s, const stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  size_t *where = stp__malloc_array(m->nprocs, sizeof *where); /* team index of each proc */
  if (!where)
    return stp__oom(s->err, "checking the mapping");
  for (size_t p = 0; p < m->nprocs; p++)
    where[p] = SIZE_MAX;
  stp_status st = STP_OK;
  for (size_t i = 0; i < m->nstages && st == STP_OK; i++)
    for (size_t k = 0; k < stp__team_size(m, i) && st == STP_OK; k++) {
      size_t q = stp__team_member(m, i, k);
      stp_jpath p = stp__jpath_index(stp__jpath_index(base, i), k);
      if (where[q] == i)
        st = stp__check_fail(s, p, false, "processor \"%s\" appears twice in mapping[%zu]",
                             m->procs[q].name, i);
      else if (where[q] != SIZE_MAX)
        st = stp__check_fail(s, p, false,
                             "processor \"%s\" is in two teams (mapping[%zu] and mapping[%zu]); "
                             "a processor runs at most one stage",
                             m->procs[q].name, where[q], i);
      where[q] = i;
    }
  free(where);
  return st;
}

/* Times far from 1 are refused: a cycle of the event graph sums up to
 * R (2N - 1) < 2^64 * 2e5 times, and 1e150 * 4e24 stays far below the
 * largest double (1.8e308), as do the rates 1/time of the Markov chains;
 * beyond, sums would overflow to inf and the throughput read 0. */
bool stp__time_ok(double t) { return t >= STP_MIN_TIME && t <= STP_MAX_TIME; }

/* what: "the ... time of ... (work / speed", closed here with its value. */
static stp_status bad_time(const stp_check_sink *s, stp_jpath at, const char *what, double t) {
  if (isfinite(t) && t > 0)
    return stp__check_fail(s, at, false,
                           "%s = %g) is outside [%g, %g]: sums of such times along the event "
                           "graph would overflow; rescale the units (e.g. work in Mflop, times "
                           "in ms)",
                           what, t, STP_MIN_TIME, STP_MAX_TIME);
  return stp__check_fail(s, at, false, "%s = %g) is not a finite positive number", what, t);
}

static stp_status check_comp_times(const stp_check_sink *s, const stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  for (size_t i = 0; i < m->nstages; i++)
    for (size_t k = 0; k < stp__team_size(m, i); k++) {
      size_t p = stp__team_member(m, i, k);
      double c = stp__comp_time(m, p);
      if (!stp__time_ok(c)) {
        char what[2 * STP_MAX_NAME + 96];
        snprintf(what, sizeof what, "the computation time of stage \"%s\" on \"%s\" (work / speed",
                 m->stages[i].name, m->procs[p].name);
        return bad_time(s, stp__jpath_index(stp__jpath_index(base, i), k), what, c);
      }
    }
  return STP_OK;
}

/* The transfer p -> q after stage i, over a declared link. */
static stp_status check_comm_time(const stp_check_sink *s, const stp_mapping *m, size_t i,
                                  size_t p, size_t q) {
  double d = stp__comm_time(m, p, q);
  if (stp__time_ok(d))
    return STP_OK;
  char what[2 * STP_MAX_NAME + 96];
  snprintf(what, sizeof what, "the transfer time from \"%s\" to \"%s\" (output / bandwidth",
           m->procs[p].name, m->procs[q].name);
  stp_jpath at = stp__jpath_index(
      stp__jpath_index(stp__jpath_key((stp_jpath){0}, "mapping"), i + 1), m->procs[q].rank);
  return bad_time(s, at, what, d);
}

/* Transfer i without a default bandwidth: every pair of its components
 * needs a link.  The walk stops at the first pair without one, so it costs
 * at most (declared links + 1) lookups, whatever the teams' sizes. */
static stp_status find_missing_link(const stp_check_sink *s, const stp_mapping *m, size_t i) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  stp_transfer_shape sh = stp__transfer_shape(m, i);
  for (size_t j = 0; j < sh.g; j++)
    for (size_t a = 0; a < sh.u; a++)
      for (size_t b = 0; b < sh.v; b++) {
        size_t p = stp__transfer_sender(m, i, j, sh, a);
        size_t q = stp__transfer_receiver(m, i, j, sh, b);
        if (stp__link_bandwidth(m, p, q) == 0)
          return stp__check_fail(
              s, stp__jpath_index(stp__jpath_index(base, i + 1), j + sh.g * b), false,
              "no bandwidth for the link \"%s\" -> \"%s\", which carries the output of stage "
              "\"%s\": add it to \"links\" or set a default \"bandwidth\"",
              m->procs[p].name, m->procs[q].name, m->stages[i].name);
      }
  return STP_OK;
}

/* Transfer i when some of its pairs use the default bandwidth: their time
 * is the same for all, checked once. */
static stp_status check_default_time(const stp_check_sink *s, const stp_mapping *m, size_t i) {
  double d = m->stages[i].output / m->bandwidth;
  if (stp__time_ok(d))
    return STP_OK;
  char what[STP_MAX_NAME + 96];
  snprintf(what, sizeof what,
           "the transfer time of stage \"%s\"'s output at the default bandwidth "
           "(output / bandwidth",
           m->stages[i].name);
  return bad_time(s, stp__jpath_key((stp_jpath){0}, "bandwidth"), what, d);
}

/* Every link that carries data (docs/design.md: sender team_i[j+g*a] talks
 * to every receiver team_(i+1)[j+g*b] of its component) needs a bandwidth,
 * and every time derived from the mapping must lie in [STP_MIN_TIME,
 * STP_MAX_TIME].  The declared links are checked one by one and the default
 * bandwidth once per transfer that uses it: never the R_i x R_(i+1) / g pairs
 * one by one, which two teams of 50,000 make 2.5e9. */
stp_status stp__check_times(const stp_check_sink *s, const stp_mapping *m) {
  STP_CHECK(check_comp_times(s, m));
  if (m->nstages < 2)
    return STP_OK;
  uint64_t *carrying = stp__calloc(m->nstages, sizeof *carrying); /* declared links per transfer */
  if (!carrying)
    return stp__oom(s->err, "checking links");
  stp_status st = STP_OK;
  for (size_t k = 0; k < m->nlinks && st == STP_OK; k++) {
    const stp_processor *p = &m->procs[m->links[k].from], *q = &m->procs[m->links[k].to];
    size_t i = p->stage;
    if (i == STP_NO_STAGE || i + 1 >= m->nstages || q->stage != i + 1)
      continue;
    size_t g = stp__transfer_shape(m, i).g;
    if (p->rank % g != q->rank % g)
      continue; /* declared, but carries nothing */
    carrying[i]++;
    st = check_comm_time(s, m, i, m->links[k].from, m->links[k].to);
  }
  for (size_t i = 0; i + 1 < m->nstages && st == STP_OK; i++) {
    stp_transfer_shape sh = stp__transfer_shape(m, i);
    uint64_t pairs = (uint64_t)sh.g * sh.u * sh.v; /* <= 1e12: teams hold <= 1e6 each */
    if (carrying[i] == pairs)
      continue; /* every pair has its own link */
    st = m->bandwidth == 0 ? find_missing_link(s, m, i) : check_default_time(s, m, i);
  }
  free(carrying);
  return st;
}
