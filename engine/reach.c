/* reach.c: breadth-first enumeration of the reachable markings of each
 * strongly connected component of a timed event graph, and the firing rate
 * of the component from the chain's stationary distribution (see reach.h).
 * A marking is one counter per internal place, a byte wide when the
 * component's tokens fit in a byte (a token never leaves its cycles, so no
 * place holds more than the component's total), else 32 bits.  Markings are
 * numbered in discovery order through an open-addressing hash table; moves
 * are written row by row as states leave the queue, which is the row order
 * the stationary solvers want. */
#include "engine/reach.h"

#include "base/core.h"
#include "engine/chain.h"
#include "solvers/mcr_howard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One component: its transitions (local numbering) and internal places. */
typedef struct comp {
  uint32_t nt, np;
  uint32_t *trans;           /* local -> global transition */
  uint32_t *in_off, *in_pl;  /* input places (local) of each local transition */
  uint32_t *out_off, *out_pl;
  uint32_t *init;            /* initial tokens of each local place */
  size_t cell;               /* bytes per place in a marking: 1 or 4 */
} comp;

typedef struct markset {
  size_t bytes;              /* per marking */
  uint64_t n, cap;
  uint8_t *marks;
  uint32_t *slot;            /* marking number + 1; 0 = empty */
  uint64_t nslot;
} markset;

typedef struct movebuf {
  int64_t n, cap;
  int64_t *to;
  double *rate;
  uint32_t *event;
} movebuf;

static void comp_free(comp *c) {
  free(c->trans);
  free(c->in_off);
  free(c->in_pl);
  free(c->out_off);
  free(c->out_pl);
  free(c->init);
}

static inline uint32_t get(const comp *c, const uint8_t *m, uint32_t p) {
  if (c->cell == 1) return m[p];
  uint32_t v;
  memcpy(&v, m + 4 * (size_t)p, 4);
  return v;
}

static inline void put(const comp *c, uint8_t *m, uint32_t p, uint32_t v) {
  if (c->cell == 1)
    m[p] = (uint8_t)v;
  else
    memcpy(m + 4 * (size_t)p, &v, 4);
}

/* Gathers component k: its transitions and the places inside it. */
static bool comp_build(const stp_graph *g, const uint32_t *cid, uint32_t k, const uint32_t *local,
                       comp *c) {
  memset(c, 0, sizeof *c);
  for (size_t t = 0; t < g->nt; t++) c->nt += cid[t] == k;
  for (size_t p = 0; p < g->np; p++) c->np += cid[g->pfrom[p]] == k && cid[g->pto[p]] == k;
  c->trans = stp__malloc_array(c->nt, sizeof *c->trans);
  c->in_off = stp__calloc(c->nt + 1, sizeof *c->in_off);
  c->out_off = stp__calloc(c->nt + 1, sizeof *c->out_off);
  c->in_pl = stp__malloc_array(c->np ? c->np : 1, sizeof *c->in_pl);
  c->out_pl = stp__malloc_array(c->np ? c->np : 1, sizeof *c->out_pl);
  c->init = stp__malloc_array(c->np ? c->np : 1, sizeof *c->init);
  uint32_t *fill_in = stp__calloc(c->nt + 1, sizeof *fill_in);
  uint32_t *fill_out = stp__calloc(c->nt + 1, sizeof *fill_out);
  bool ok = c->trans && c->in_off && c->out_off && c->in_pl && c->out_pl && c->init && fill_in &&
            fill_out;
  uint64_t total = 0;
  for (size_t t = 0, i = 0; ok && t < g->nt; t++)
    if (cid[t] == k) c->trans[i++] = (uint32_t)t;
  for (size_t p = 0; ok && p < g->np; p++)
    if (cid[g->pfrom[p]] == k && cid[g->pto[p]] == k) {
      c->in_off[local[g->pto[p]] + 1]++;
      c->out_off[local[g->pfrom[p]] + 1]++;
    }
  for (uint32_t t = 0; ok && t < c->nt; t++) {
    c->in_off[t + 1] += c->in_off[t];
    c->out_off[t + 1] += c->out_off[t];
  }
  if (ok) {
    memcpy(fill_in, c->in_off, (c->nt + 1) * sizeof *fill_in);
    memcpy(fill_out, c->out_off, (c->nt + 1) * sizeof *fill_out);
  }
  for (size_t p = 0, q = 0; ok && p < g->np; p++)
    if (cid[g->pfrom[p]] == k && cid[g->pto[p]] == k) {
      c->init[q] = (uint32_t)g->ptok[p];
      total += g->ptok[p];
      c->in_pl[fill_in[local[g->pto[p]]]++] = (uint32_t)q;
      c->out_pl[fill_out[local[g->pfrom[p]]]++] = (uint32_t)q;
      q++;
    }
  c->cell = total <= UINT8_MAX ? 1 : 4;
  free(fill_in);
  free(fill_out);
  return ok && total <= UINT32_MAX;
}

static uint64_t mark_hash(const uint8_t *m, size_t n) {
  uint64_t h = UINT64_C(1469598103934665603);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, m + i, 8);
    h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ m[i]) * UINT64_C(1099511628211);
  return h ^ (h >> 32);
}

/* Number of marking m, inserted when new (*fresh = 1).  UINT64_MAX when out
 * of memory. */
static uint64_t markset_put(markset *s, const uint8_t *m, int *fresh) {
  uint64_t mask = s->nslot - 1, i = mark_hash(m, s->bytes) & mask;
  *fresh = 0;
  for (; s->slot[i]; i = (i + 1) & mask)
    if (memcmp(s->marks + (s->slot[i] - 1) * s->bytes, m, s->bytes) == 0) return s->slot[i] - 1;
  if (s->n == s->cap) {
    uint64_t cap = s->cap ? 2 * s->cap : 1024;
    uint8_t *mk = realloc(s->marks, (size_t)(cap * s->bytes));
    if (!mk) return UINT64_MAX;
    s->marks = mk;
    s->cap = cap;
  }
  memcpy(s->marks + s->n * s->bytes, m, s->bytes);
  s->slot[i] = (uint32_t)(++s->n);
  *fresh = 1;
  if (2 * s->n > s->nslot) { /* grow the table, keep the load under 1/2 */
    uint64_t nslot = 2 * s->nslot;
    uint32_t *slot = stp__calloc((size_t)nslot, sizeof *slot);
    if (!slot) return UINT64_MAX;
    for (uint64_t k = 0; k < s->n; k++) {
      uint64_t j = mark_hash(s->marks + k * s->bytes, s->bytes) & (nslot - 1);
      while (slot[j]) j = (j + 1) & (nslot - 1);
      slot[j] = (uint32_t)(k + 1);
    }
    free(s->slot);
    s->slot = slot;
    s->nslot = nslot;
  }
  return s->n - 1;
}

static bool moves_push(movebuf *b, int64_t to, double rate, uint32_t event) {
  if (b->n == b->cap) {
    int64_t cap = b->cap ? 2 * b->cap : 1024;
    int64_t *t = realloc(b->to, (size_t)cap * sizeof *t);
    if (t) b->to = t;
    double *r = realloc(b->rate, (size_t)cap * sizeof *r);
    if (r) b->rate = r;
    uint32_t *e = realloc(b->event, (size_t)cap * sizeof *e);
    if (e) b->event = e;
    if (!t || !r || !e) return false;
    b->cap = cap;
  }
  b->to[b->n] = to;
  b->rate[b->n] = rate;
  b->event[b->n] = event;
  b->n++;
  return true;
}

/* Enumerates the chain of component c into *chain. */
static stp_status enumerate(const stp_graph *g, const comp *c, uint64_t max_states,
                            const stp_cancel *cancel, stp_chain *chain, stp_error *err) {
  markset s = {.bytes = c->np ? c->np * c->cell : 1, .nslot = 1024};
  movebuf mb = {0};
  int64_t *row = NULL;
  uint64_t rowcap = 0;
  uint8_t *next = stp__calloc(1, s.bytes);
  stp_status st = STP_OK;
  s.slot = stp__calloc((size_t)s.nslot, sizeof *s.slot);
  if (!next || !s.slot) goto oom;
  for (uint32_t p = 0; p < c->np; p++) put(c, next, p, c->init[p]);
  int fresh;
  if (markset_put(&s, next, &fresh) == UINT64_MAX) goto oom;
  for (uint64_t at = 0; at < s.n; at++) {
    if ((at & 0xffff) == 0 && stp__cancelled(cancel)) {
      st = stp__fail(err, STP_EINTERRUPTED, "interrupted");
      goto done;
    }
    if (at + 2 > rowcap) {
      rowcap = rowcap ? 2 * rowcap : 1024;
      int64_t *r = realloc(row, (size_t)rowcap * sizeof *r);
      if (!r) goto oom;
      row = r;
    }
    row[at] = mb.n;
    for (uint32_t t = 0; t < c->nt; t++) {
      const uint8_t *m = s.marks + at * s.bytes;
      bool on = true;
      for (uint32_t k = c->in_off[t]; on && k < c->in_off[t + 1]; k++) on = get(c, m, c->in_pl[k]) > 0;
      if (!on) continue;
      memcpy(next, m, s.bytes);
      for (uint32_t k = c->in_off[t]; k < c->in_off[t + 1]; k++)
        put(c, next, c->in_pl[k], get(c, next, c->in_pl[k]) - 1);
      for (uint32_t k = c->out_off[t]; k < c->out_off[t + 1]; k++)
        put(c, next, c->out_pl[k], get(c, next, c->out_pl[k]) + 1);
      uint64_t to = markset_put(&s, next, &fresh);
      if (to == UINT64_MAX) goto oom;
      if (s.n > max_states) {
        st = stp__fail(err, STP_ELIMIT,
                       "the exponential throughput needs more than %llu markings (a component "
                       "of %u transitions); raise --max-states",
                       (unsigned long long)max_states, c->nt);
        goto done;
      }
      if (!moves_push(&mb, (int64_t)to, 1 / g->time[c->trans[t]], t)) goto oom;
    }
  }
  row[s.n] = mb.n;
  chain->moves = calloc(1, sizeof *chain->moves);
  chain->counted = stp__calloc(c->nt, sizeof *chain->counted);
  if (!chain->moves || !chain->counted) goto oom;
  *chain->moves = (stp_csr){.nrows = (int64_t)s.n, .ncols = (int64_t)s.n, .p = row, .j = mb.to,
                            .x = mb.rate};
  chain->event = mb.event;
  chain->nevents = c->nt;
  chain->counted[0] = 1;
  chain->scale = 1;
  row = NULL;
  mb = (movebuf){0};
  goto done;
oom:
  st = stp__oom(err, "the reachability chain");
done:
  free(s.marks);
  free(s.slot);
  free(next);
  free(row);
  free(mb.to);
  free(mb.rate);
  free(mb.event);
  return st;
}

/* Firing rate of one component from its chain. */
static stp_status comp_rate(const stp_graph *g, const comp *c, uint64_t max_states,
                            const stp_cancel *cancel, double *rate, stp_reach_stats *st,
                            stp_error *err) {
  stp_chain *chain = calloc(1, sizeof *chain);
  if (!chain) return stp__oom(err, "the reachability chain");
  stp_status s = enumerate(g, c, max_states, cancel, chain, err);
  if (s == STP_OK) {
    stp_options o;
    stp_options_init(&o);
    o.max_states = max_states;
    o.cancel = *cancel;
    double *pi = NULL;
    stp_ctmc_info info = {0};
    s = stp__chain_solve(chain, &o, STP_STATIONARY_AUTO, &pi, rate, &info, err);
    free(pi);
    if (s == STP_OK && info.states >= st->states) {
      st->states = info.states;
      st->solver = info.solver;
    }
    if (s == STP_OK && info.residual > st->residual) st->residual = info.residual;
  }
  stp__chain_free(chain);
  return s;
}

stp_status stp__reach_throughput(const stp_graph *g, uint64_t max_states, const stp_cancel *cancel,
                                 double *throughput, stp_reach_stats *st, stp_error *err) {
  memset(st, 0, sizeof *st);
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  uint32_t *cid = stp__malloc_array(g->nt, sizeof *cid), count = 0;
  uint32_t *local = stp__malloc_array(g->nt, sizeof *local), *seen = NULL;
  stp_status s = cid && local ? stp__scc(d, cid, &count, err) : stp__oom(err, "components");
  stp__digraph_free(d);
  if (s == STP_OK && !(seen = stp__calloc(count ? count : 1, sizeof *seen)))
    s = stp__oom(err, "components");
  for (size_t t = 0; s == STP_OK && t < g->nt; t++) local[t] = seen[cid[t]]++;
  double slowest = INFINITY;
  st->components = count;
  for (uint32_t k = 0; s == STP_OK && k < count; k++) {
    comp c;
    double rate;
    if (!comp_build(g, cid, k, local, &c))
      s = stp__oom(err, "components");
    else if (c.np == 0) /* a lone transition: its own single server */
      rate = 1 / g->time[c.trans[0]];
    else
      s = comp_rate(g, &c, max_states, cancel, &rate, st, err);
    if (s == STP_OK && rate < slowest) slowest = rate;
    if (s == STP_OK && c.np == 0 && st->states == 0) st->states = 1;
    comp_free(&c);
  }
  free(cid);
  free(local);
  free(seen);
  if (s == STP_OK) *throughput = (g->noutputs > 1 ? (double)g->noutputs : 1.0) * slowest;
  return s;
}
