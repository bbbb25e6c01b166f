/* densechain.c: the dense enumerate-and-solve route of densechain.h.  The
 * successors of a state are all written (hashed, their table slots fetched
 * ahead) before any is looked up, so that the
 * lookups' cache misses overlap; the state being expanded is read from the
 * key store, which moves only when a key is added, after the callback. */
#include "engine/densechain.h"

#include "base/core.h"
#include "solvers/stationary_bands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void stp__dense_row_free(stp_dense_row *r) {
  free(r->key);
  free(r->hash);
  free(r->label);
}

uint64_t *stp__dense_row_next(stp_dense_row *r) {
  if (r->n == r->cap) {
    uint32_t cap = r->cap ? 2 * r->cap : 16;
    void *const arrays[] = {&r->key, &r->hash, &r->label};
    const size_t sizes[] = {r->words * sizeof *r->key, sizeof *r->hash, sizeof *r->label};
    if (!stp__grow_arrays(cap, 3, arrays, sizes))
      return NULL;
    r->cap = cap;
  }
  return r->key + (size_t)r->n * r->words;
}

void stp__dense_row_add(stp_dense_row *r, uint32_t label) {
  const uint64_t *key = r->key + (size_t)r->n * r->words;
  r->hash[r->n] = stp__keyset_hash(r->ks, key);
  stp__keyset_prefetch(r->ks, r->hash[r->n]);
  r->label[r->n++] = label;
}

/* ---- breadth-first enumeration -------------------------------------------------- */

/* Expands state st: its row of moves into dc->ms. */
static stp_status expand(const stp_dense_source *src, stp_keyset *set, stp_dense_row *row,
                         stp_dense_chain *dc, uint64_t st, bool new_band, stp_error *err) {
  row->n = 0;
  STP_CHECK(src->expand(src->ctx, stp__keyset_key(set, st), row, err));
  uint64_t start = dc->ms.nmoves;
  for (uint32_t i = 0; i < row->n; i++) {
    uint32_t j;
    bool added;
    stp_status s = stp__keyset_add(set, row->key + (size_t)i * row->words, row->hash[i], &j,
                                   &added, err);
    if (s == STP_ELIMIT)
      dc->full = true;
    STP_CHECK(s);
    STP_CHECK(stp__movestore_push(&dc->ms, j, row->label[i], err));
  }
  return stp__movestore_end_row(&dc->ms, start, new_band, err);
}

/* The keys and moves held so far, in bytes. */
static uint64_t held_bytes(const stp_keyset *set, const stp_movestore *ms) {
  return stp__keyset_bytes(set) + ms->cap_states * sizeof *ms->deg +
         ms->cap_moves * (sizeof *ms->to + ms->label_bytes) + ms->cap_bands * 16;
}

static stp_status bfs(const stp_dense_source *src, stp_keyset *set, stp_dense_row *row,
                      stp_dense_chain *dc, stp_error *err) {
  uint32_t first;
  bool added;
  stp_status s0 = stp__keyset_add(set, src->initial, stp__keyset_hash(set, src->initial), &first,
                                  &added, err);
  dc->full = s0 == STP_ELIMIT;
  STP_CHECK(s0);
  double t0 = stp__now();
  uint64_t depth_end = 1; /* first state of the next depth */
  for (uint64_t st = 0; st < set->count; st++) {
    bool new_band = st == 0 || st == depth_end;
    if (st && st == depth_end) {
      dc->depth++;
      depth_end = set->count;
    }
    if (st % 1024 == 0) { /* a clock read per state would cost 5 % of the enumeration */
      stp__progress(src->control, src->what, set->count, src->estimate, t0);
      if (src->control && stp__cancelled(&src->control->cancel))
        return stp__fail(err, STP_EINTERRUPTED, "interrupted while enumerating %s",
                         src->what ? src->what : "the states of a Markov chain");
      dc->bytes = held_bytes(set, &dc->ms);
      if (src->max_bytes && dc->bytes > src->max_bytes) {
        dc->over_budget = true;
        return STP_ELIMIT;
      }
    }
    STP_CHECK(expand(src, set, row, dc, st, new_band, err));
    dc->expanded++;
  }
  return STP_OK;
}

stp_status stp__dense_enumerate(const stp_dense_source *src, stp_dense_chain *dc,
                                stp_error *err) {
  memset(dc, 0, sizeof *dc);
  double t0 = stp__now();
  STP_CHECK(stp__movestore_init(&dc->ms, src->nlabels, src->rate, err));
  stp_keyset set;
  uint64_t limit = src->max_states < STP_KEYSET_MAX ? src->max_states : STP_KEYSET_MAX;
  stp_status s = stp__keyset_init(&set, src->words, limit, err);
  stp_dense_row row = {.words = src->words ? src->words : 1, .ks = &set};
  if (s == STP_OK)
    s = bfs(src, &set, &row, dc, err);
  if (s == STP_OK || dc->full)
    dc->bytes = held_bytes(&set, &dc->ms);
  stp__keyset_free(&set);
  stp__dense_row_free(&row);
  dc->seconds = stp__now() - t0;
  return s;
}

void stp__dense_chain_free(stp_dense_chain *dc) {
  if (!dc)
    return;
  stp__movestore_free(&dc->ms);
  memset(dc, 0, sizeof *dc);
}

/* ---- solving ------------------------------------------------------------------------ */

stp_status stp__store_events_to_chain(const stp_movestore *ms, const stp_dense_events *ev,
                                      double seconds_build, stp_chain **out, stp_error *err) {
  *out = NULL;
  stp_chain *c = calloc(1, sizeof *c);
  if (!c)
    return stp__oom(err, "building a Markov chain");
  c->nevents = ev->n;
  c->scale = 1;
  c->seconds_build = seconds_build;
  c->counted = stp__malloc_array(c->nevents ? c->nevents : 1, sizeof *c->counted);
  stp_status s = c->counted ? stp__movestore_to_csr(ms, &c->moves, &c->event, err)
                            : stp__oom(err, "building a Markov chain");
  if (s != STP_OK) {
    stp__chain_free(c);
    return s;
  }
  if (ev->of)
    for (uint64_t e = 0; e < ms->nmoves; e++)
      c->event[e] = ev->of[c->event[e]];
  if (c->nevents)
    memcpy(c->counted, ev->counted, c->nevents);
  *out = c;
  return STP_OK;
}

stp_status stp__store_to_chain(const stp_movestore *ms, const uint8_t *counted,
                               double seconds_build, stp_chain **out, stp_error *err) {
  stp_dense_events ev = {ms->nlabels, NULL, counted};
  return stp__store_events_to_chain(ms, &ev, seconds_build, out, err);
}

stp_status stp__dense_to_chain(const stp_dense_chain *dc, const uint8_t *counted,
                               stp_chain **out, stp_error *err) {
  return stp__store_to_chain(&dc->ms, counted, dc->seconds, out, err);
}

static stp_status solve_general(const stp_movestore *ms, const stp_dense_events *ev,
                                double seconds_build, const stp_options *o, double *rate,
                                stp_ctmc_info *info, stp_error *err) {
  stp_chain *c;
  STP_CHECK(stp__store_events_to_chain(ms, ev, seconds_build, &c, err));
  double *pi = NULL;
  stp_status s = stp__chain_solve(c, o, STP_STATIONARY_AUTO, &pi, rate, info, err);
  free(pi);
  stp__chain_free(c);
  return s;
}

/* ncounted x the smallest long-run rate of a counted event. */
static stp_status counted_rate(const stp_movestore *ms, const stp_dense_events *ev,
                               const double *pi, double *rate, stp_error *err) {
  double *fire = stp__malloc_array(ms->nlabels ? ms->nlabels : 1, sizeof *fire);
  double *event = stp__calloc(ev->n ? ev->n : 1, sizeof *event);
  if (!fire || !event) {
    free(fire);
    free(event);
    return stp__oom(err, "computing firing rates");
  }
  stp__bands_label_rates(ms, pi, fire);
  for (uint32_t l = 0; l < ms->nlabels; l++)
    event[ev->of ? ev->of[l] : l] += fire[l];
  double low = INFINITY;
  uint32_t ncounted = 0;
  for (uint32_t e = 0; e < ev->n; e++)
    if (ev->counted[e]) {
      low = fmin(low, event[e]);
      ncounted++;
    }
  free(fire);
  free(event);
  *rate = (double)ncounted * low;
  return STP_OK;
}

static uint64_t off_diagonal(const stp_movestore *ms) {
  uint64_t nz = 0;
  for (uint64_t s = 0, e = 0; s < ms->nstates; s++)
    for (uint64_t k = 0; k < ms->deg[s]; k++, e++)
      nz += ms->to[e] != s;
  return nz;
}

stp_status stp__store_events_rate(const stp_movestore *ms, const stp_dense_events *ev,
                                  double seconds_build, const stp_options *o, double *rate,
                                  stp_ctmc_info *info, stp_error *err) {
  stp_stationary_options so;
  stp__stationary_options_init(&so);
  so.tolerance = o->solver_tolerance;
  so.cancel = o->control.cancel;
  stp_stationary_info si;
  double *pi = NULL;
  stp_error local = {0};
  stp_status s = stp__bands_solve(ms, &so, &pi, &si, &local);
  if (s == STP_ENUMERIC)
    return solve_general(ms, ev, seconds_build, o, rate, info, err);
  if (s != STP_OK) {
    if (err)
      *err = local;
    return s;
  }
  s = counted_rate(ms, ev, pi, rate, err);
  free(pi);
  *info = (stp_ctmc_info){.states = ms->nstates,
                          .nonzeros = off_diagonal(ms),
                          .residual = si.residual,
                          .solver = si.solver,
                          .solver_reason = si.reason,
                          .iterations = si.iterations,
                          .period = si.period,
                          .seconds_build = seconds_build,
                          .seconds_solve = si.seconds};
  return s;
}

stp_status stp__store_rate(const stp_movestore *ms, const uint8_t *counted,
                           double seconds_build, const stp_options *o, double *rate,
                           stp_ctmc_info *info, stp_error *err) {
  stp_dense_events ev = {ms->nlabels, NULL, counted};
  return stp__store_events_rate(ms, &ev, seconds_build, o, rate, info, err);
}

stp_status stp__dense_rate(const stp_dense_chain *dc, const uint8_t *counted,
                           const stp_options *o, double *rate, stp_ctmc_info *info,
                           stp_error *err) {
  return stp__store_rate(&dc->ms, counted, dc->seconds, o, rate, info, err);
}
