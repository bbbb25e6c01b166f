/* strict_chain.c: the Markov chain of the Strict model (docs/design.md 4, paper
 * section 5.1): breadth-first enumeration of the reachable markings of the
 * full event graph, and the exponential throughput from its stationary
 * distribution (the rate of firings of the last column).
 *
 * Every place of the Strict graph lies on a processor's cycle that holds
 * exactly one token, so a place holds 0 or 1 token and a marking is a bit
 * string, stored packed.  Markings are numbered in discovery order through
 * an open-addressing hash table (linear probing) of 32-bit state numbers;
 * the generator is written row by row as states leave the queue.  The
 * enumeration stops, with a message saying how far it got, at
 * o->max_states markings or when the markings would exceed the memory
 * budget (stp_options_memory_budget), so memory stays bounded; and before
 * anything is built, a lower bound of the markings (strict_estimate) refuses
 * in microseconds what could never fit. */
#include "base/core.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/teg.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY_SLOT UINT32_MAX
/* Bytes per marking besides its bits: two hash slots (load <= 1/2), a row
 * offset, and about three moves of 20 bytes. */
#define STP_STRICT_BYTES_PER_STATE 80

/* ---- the net: input and output places of each transition ------------------ */

typedef struct net {
  uint32_t ntrans;
  size_t words;        /* 64-bit words per marking */
  uint64_t *in_off;    /* ntrans + 1 */
  uint64_t *in_place;  /* input places, transition by transition */
  const stp_digraph *g;  /* output places of t: edges g->off[t] .. g->off[t+1]-1 */
  double *rate;        /* 1 / mean firing time */
} net;

static void net_free(net *n) {
  free(n->in_off);
  free(n->in_place);
  free(n->rate);
}

static stp_status net_init(const stp_teg *t, net *n, stp_error *err) {
  const stp_digraph *g = t->g;
  memset(n, 0, sizeof *n);
  n->ntrans = g->n;
  n->g = g;
  n->words = (size_t)((g->m + 63) / 64);
  n->in_off = stp__calloc((size_t)g->n + 1, sizeof *n->in_off);
  n->in_place = stp__malloc_array((size_t)g->m, sizeof *n->in_place);
  n->rate = stp__malloc_array(g->n, sizeof *n->rate);
  uint64_t *next = stp__malloc_array((size_t)g->n + 1, sizeof *next);
  if (!n->in_off || !n->in_place || !n->rate || !next) {
    free(next);
    net_free(n);
    return stp__oom(err, "preparing the Strict event graph");
  }
  for (uint64_t e = 0; e < g->m; e++)
    n->in_off[g->dst[e] + 1]++;
  for (uint32_t v = 0; v < g->n; v++)
    n->in_off[v + 1] += n->in_off[v];
  memcpy(next, n->in_off, (size_t)g->n * sizeof *next);
  for (uint64_t e = 0; e < g->m; e++)
    n->in_place[next[g->dst[e]]++] = e;
  free(next);
  for (uint32_t v = 0; v < g->n; v++)
    n->rate[v] = 1.0 / t->time[v];
  return STP_OK;
}

static inline bool marked(const uint64_t *m, uint64_t place) {
  return (m[place / 64] >> (place % 64)) & 1;
}

static bool enabled(const net *n, const uint64_t *m, uint32_t t) {
  for (uint64_t k = n->in_off[t]; k < n->in_off[t + 1]; k++)
    if (!marked(m, n->in_place[k]))
      return false;
  return true;
}

/* Fire t in m into next; false if a place would hold two tokens. */
static bool fire(const net *n, const uint64_t *m, uint32_t t, uint64_t *next) {
  memcpy(next, m, n->words * sizeof *next);
  for (uint64_t k = n->in_off[t]; k < n->in_off[t + 1]; k++)
    next[n->in_place[k] / 64] &= ~(UINT64_C(1) << (n->in_place[k] % 64));
  for (uint64_t e = n->g->off[t]; e < n->g->off[t + 1]; e++) {
    if (marked(next, e))
      return false;
    next[e / 64] |= UINT64_C(1) << (e % 64);
  }
  return true;
}

/* ---- the set of markings ------------------------------------------------------ */

typedef struct marking_set {
  size_t words;
  uint64_t count, cap; /* markings stored, room */
  uint64_t limit;      /* most markings accepted */
  uint64_t *marks;     /* count * words */
  uint32_t *slot;      /* hash table of marking numbers */
  uint64_t mask;       /* table size - 1 (a power of two) */
} marking_set;

static void set_free(marking_set *ms) {
  free(ms->marks);
  free(ms->slot);
}

static uint64_t hash_marking(const uint64_t *m, size_t words) {
  uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ words;
  for (size_t k = 0; k < words; k++) {
    h ^= m[k];
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 31;
  }
  return h * UINT64_C(0x94D049BB133111EB);
}

static stp_status table_resize(marking_set *ms, uint64_t size, stp_error *err) {
  uint32_t *slot = stp__malloc_array((size_t)size, sizeof *slot);
  if (!slot)
    return stp__oom(err, "enumerating the Strict markings");
  memset(slot, 0xff, (size_t)size * sizeof *slot);
  for (uint64_t s = 0; s < ms->count; s++) {
    uint64_t h = hash_marking(ms->marks + s * ms->words, ms->words) & (size - 1);
    while (slot[h] != EMPTY_SLOT)
      h = (h + 1) & (size - 1);
    slot[h] = (uint32_t)s;
  }
  free(ms->slot);
  ms->slot = slot;
  ms->mask = size - 1;
  return STP_OK;
}

static stp_status set_init(marking_set *ms, size_t words, uint64_t limit, stp_error *err) {
  memset(ms, 0, sizeof *ms);
  ms->words = words;
  ms->limit = limit;
  ms->cap = 1024;
  ms->marks = stp__malloc_array((size_t)ms->cap * words, sizeof *ms->marks);
  if (!ms->marks)
    return stp__oom(err, "enumerating the Strict markings");
  return table_resize(ms, 2048, err);
}

static stp_status set_grow(marking_set *ms, stp_error *err) {
  uint64_t cap = ms->cap * 2;
  uint64_t *marks = realloc(ms->marks, (size_t)cap * ms->words * sizeof *marks);
  if (!marks)
    return stp__oom(err, "enumerating the Strict markings");
  ms->marks = marks;
  ms->cap = cap;
  return STP_OK;
}

/* Number of marking m, inserting it when new.  STP_ELIMIT when a new
 * marking would exceed the limit. */
static stp_status set_find_or_add(marking_set *ms, const uint64_t *m, uint32_t *index,
                                  stp_error *err) {
  size_t bytes = ms->words * sizeof *m;
  uint64_t h = hash_marking(m, ms->words) & ms->mask;
  for (; ms->slot[h] != EMPTY_SLOT; h = (h + 1) & ms->mask)
    if (memcmp(ms->marks + (uint64_t)ms->slot[h] * ms->words, m, bytes) == 0) {
      *index = ms->slot[h];
      return STP_OK;
    }
  if (ms->count >= ms->limit)
    return STP_ELIMIT; /* the caller writes the message: it knows the depth */
  if (ms->count == ms->cap)
    STP_CHECK(set_grow(ms, err));
  memcpy(ms->marks + ms->count * ms->words, m, bytes);
  ms->slot[h] = (uint32_t)ms->count;
  *index = (uint32_t)ms->count++;
  if (2 * ms->count > ms->mask + 1) /* keep the load factor at most 1/2 */
    return table_resize(ms, 2 * (ms->mask + 1), err);
  return STP_OK;
}

/* ---- the moves, growing as states are expanded -------------------------------- */

typedef struct move_buffer {
  uint64_t n, cap;
  int64_t *to;
  double *rate;
  uint32_t *event;
} move_buffer;

static void moves_free(move_buffer *mb) {
  free(mb->to);
  free(mb->rate);
  free(mb->event);
}

static stp_status moves_push(move_buffer *mb, int64_t to, double rate, uint32_t event,
                             stp_error *err) {
  if (mb->n == mb->cap) {
    uint64_t cap = mb->cap ? 2 * mb->cap : 4096;
    int64_t *t = realloc(mb->to, (size_t)cap * sizeof *t);
    if (t)
      mb->to = t;
    double *r = realloc(mb->rate, (size_t)cap * sizeof *r);
    if (r)
      mb->rate = r;
    uint32_t *e = realloc(mb->event, (size_t)cap * sizeof *e);
    if (e)
      mb->event = e;
    if (!t || !r || !e)
      return stp__oom(err, "building the Strict Markov chain");
    mb->cap = cap;
  }
  mb->to[mb->n] = to;
  mb->rate[mb->n] = rate;
  mb->event[mb->n] = event;
  mb->n++;
  return STP_OK;
}

/* ---- breadth-first enumeration ------------------------------------------------ */

typedef struct bfs {
  const stp_mapping *map;
  const stp_teg *teg;
  net net;
  marking_set set;
  move_buffer mb;
  int64_t *row;     /* row offsets of the expanded states */
  uint64_t row_cap;
  uint64_t depth;   /* depth of the state being expanded */
  uint64_t max_states;
  uint64_t estimate; /* strict_estimate's lower bound, for progress */
  uint64_t budget;   /* bytes (stp_options_memory_budget) */
  double t0;
} bfs;

static stp_status initial_marking(bfs *b, stp_error *err) {
  uint64_t *m0 = stp__calloc(b->net.words, sizeof *m0);
  if (!m0)
    return stp__oom(err, "enumerating the Strict markings");
  for (uint64_t e = 0; e < b->teg->g->m; e++)
    if (b->teg->g->tok[e])
      m0[e / 64] |= UINT64_C(1) << (e % 64);
  uint32_t index;
  stp_status s = set_find_or_add(&b->set, m0, &index, err);
  free(m0);
  return s;
}

static stp_status limit_reached(const bfs *b, uint64_t expanded, stp_error *err) {
  if (b->set.limit == b->max_states)
    return stp__fail(err, STP_ELIMIT,
                     "%s: the Strict Markov chain has more than %llu reachable markings "
                     "(enumeration stopped at depth %llu, after expanding %llu markings); raise "
                     "--max-states or use `streamtp simulate`",
                     b->map->file, (unsigned long long)b->set.limit,
                     (unsigned long long)b->depth, (unsigned long long)expanded);
  return stp__fail(err, STP_ELIMIT,
                   "%s: the Strict Markov chain has more than %llu reachable markings of %llu "
                   "places each, beyond the memory budget of %.3g GiB (--max-memory; stopped at "
                   "depth %llu); use `streamtp simulate`",
                   b->map->file, (unsigned long long)b->set.limit,
                   (unsigned long long)b->teg->g->m, (double)b->budget / 1073741824.0,
                   (unsigned long long)b->depth);
}

static stp_status row_start(bfs *b, uint64_t s, stp_error *err) {
  if (s + 1 >= b->row_cap) {
    uint64_t cap = b->row_cap ? 2 * b->row_cap : 4096;
    int64_t *row = realloc(b->row, (size_t)cap * sizeof *row);
    if (!row)
      return stp__oom(err, "building the Strict Markov chain");
    b->row = row;
    b->row_cap = cap;
  }
  b->row[s] = (int64_t)b->mb.n;
  return STP_OK;
}

/* Write the row of state s: every enabled transition, its next state. */
static stp_status expand(bfs *b, uint64_t s, uint64_t *cur, uint64_t *next, stp_error *err) {
  STP_CHECK(row_start(b, s, err));
  memcpy(cur, b->set.marks + s * b->net.words, b->net.words * sizeof *cur);
  for (uint32_t t = 0; t < b->net.ntrans; t++) {
    if (!enabled(&b->net, cur, t))
      continue;
    if (!fire(&b->net, cur, t, next))
      return stp__fail(err, STP_EINTERNAL,
                       "%s: firing a transition of the Strict event graph would put two tokens "
                       "in a place", b->map->file);
    uint32_t j;
    stp_status st = set_find_or_add(&b->set, next, &j, err);
    if (st == STP_ELIMIT)
      return limit_reached(b, s, err);
    STP_CHECK(st);
    STP_CHECK(moves_push(&b->mb, j, b->net.rate[t], t, err));
  }
  if ((int64_t)b->mb.n == b->row[s])
    return stp__fail(err, STP_EDEADLOCK,
                     "%s: the Strict event graph reaches a marking (number %llu, depth %llu) "
                     "where no transition can fire",
                     b->map->file, (unsigned long long)s, (unsigned long long)b->depth);
  return STP_OK;
}

static stp_status enumerate(bfs *b, const stp_options *o, stp_error *err) {
  uint64_t *cur = stp__malloc_array(b->net.words, sizeof *cur);
  uint64_t *next = stp__malloc_array(b->net.words, sizeof *next);
  stp_status s = cur && next ? initial_marking(b, err)
                             : stp__oom(err, "enumerating the Strict markings");
  uint64_t depth_end = 1; /* first state of the next depth */
  for (uint64_t st = 0; s == STP_OK && st < b->set.count; st++) {
    if (st == depth_end) {
      b->depth++;
      depth_end = b->set.count;
    }
    stp__progress(o, "enumerating the Strict markings", b->set.count, b->estimate, b->t0);
    if (st % 1024 == 0 && stp__cancelled(&o->cancel))
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted while enumerating the Strict markings");
    else
      s = expand(b, st, cur, next, err);
  }
  if (s == STP_OK)
    s = row_start(b, b->set.count, err);
  free(cur);
  free(next);
  return s;
}

/* Hand the buffers over to a chain. */
static stp_status make_chain(bfs *b, stp_chain *c, stp_error *err) {
  int64_t n = (int64_t)b->set.count;
  c->moves = calloc(1, sizeof *c->moves);
  c->counted = stp__calloc(b->net.ntrans, sizeof *c->counted);
  if (!c->moves || !c->counted)
    return stp__oom(err, "building the Strict Markov chain");
  *c->moves = (stp_csr){.nrows = n, .ncols = n, .p = b->row, .j = b->mb.to, .x = b->mb.rate};
  c->event = b->mb.event;
  b->row = NULL;
  b->mb = (move_buffer){0};
  c->nevents = b->net.ntrans;
  c->scale = 1;
  for (uint32_t t = 0; t < b->net.ntrans; t++) /* the last column completes data sets */
    c->counted[t] = t % b->teg->ncols == b->teg->ncols - 1;
  return STP_OK;
}

static uint64_t marking_limit(const stp_options *o, size_t words) {
  uint64_t limit = o->max_states;
  uint64_t by_bytes =
      stp_options_memory_budget(o) / (words * sizeof(uint64_t) + STP_STRICT_BYTES_PER_STATE);
  if (by_bytes < limit)
    limit = by_bytes;
  return limit < UINT32_MAX - 1 ? limit : UINT32_MAX - 1;
}

/* ---- the estimate, before anything is built ------------------------------------
 * Every processor's cycle holds one token, which visits each place of the
 * cycle in turn (the graph is live): so there are at least as many markings
 * as places on the longest processor cycle, (R / R_i) rows times the 1 to 3
 * actions of stage i (receive, compute, send).  Also, the first action of
 * each processor of the first team (computing its first row) is enabled in
 * the initial marking and moves only that processor's token: any subset of
 * them may fire, 2^R_1 markings.  Each marking stores one bit per place.
 * When the larger bound already exceeds --max-states or the memory budget,
 * refuse at once rather than after minutes and gigabytes. */
static uint64_t min_markings(const stp_mapping *m) {
  uint64_t rows, best = 0;
  if (!stp__mapping_lcm(m, &rows))
    return UINT64_MAX;
  size_t first = stp__team_size(m, 0);
  best = first >= 64 ? UINT64_MAX : UINT64_C(1) << first;
  for (size_t i = 0; i < m->nstages; i++) {
    uint64_t len = rows / stp__team_size(m, i) * (1 + (i > 0) + (i + 1 < m->nstages));
    if (len > best)
      best = len;
  }
  return best;
}

static stp_status strict_estimate(const stp_mapping *m, const stp_options *o, uint64_t *lower,
                                  stp_error *err) {
  STP_CHECK(stp__teg_check_size(m, STP_MODEL_STRICT, o->max_transitions, err));
  STP_CHECK(stp__teg_check_memory(m, STP_MODEL_STRICT, stp_options_memory_budget(o), err));
  uint64_t places = stp__teg_place_count(m, STP_MODEL_STRICT);
  *lower = min_markings(m);
  if (*lower > o->max_states)
    return stp__fail(err, STP_ELIMIT,
                     "%s: the Strict Markov chain has at least %llu reachable markings (a "
                     "processor's cycle has that many places), above the limit of %llu "
                     "(--max-states); use `streamtp simulate`",
                     m->file, (unsigned long long)*lower, (unsigned long long)o->max_states);
  double bytes = (double)*lower * ((double)((places + 63) / 64) * 8 + STP_STRICT_BYTES_PER_STATE);
  uint64_t budget = stp_options_memory_budget(o);
  if (bytes > (double)budget)
    return stp__fail(err, STP_ELIMIT,
                     "%s: the Strict Markov chain has at least %llu reachable markings of %llu "
                     "places each, at least %.3g GiB, above the memory budget of %.3g GiB "
                     "(--max-memory); use `streamtp simulate`",
                     m->file, (unsigned long long)*lower, (unsigned long long)places,
                     bytes / 1073741824.0, (double)budget / 1073741824.0);
  return STP_OK;
}

stp_status stp__strict_chain(const stp_mapping *m, const stp_options *o, stp_chain **out,
                             stp_error *err) {
  *out = NULL;
  double t0 = stp__now();
  bfs b = {.map = m, .max_states = o->max_states, .t0 = t0,
           .budget = stp_options_memory_budget(o)};
  stp_teg *teg = NULL;
  stp_chain *c = NULL;
  STP_CHECK(strict_estimate(m, o, &b.estimate, err));
  STP_CHECK(stp__teg_build(m, STP_MODEL_STRICT, o->max_transitions, &teg, err));
  b.teg = teg;
  stp_status s = net_init(teg, &b.net, err);
  if (s == STP_OK)
    s = set_init(&b.set, b.net.words, marking_limit(o, b.net.words), err);
  if (s == STP_OK)
    s = enumerate(&b, o, err);
  if (s == STP_OK) {
    c = calloc(1, sizeof *c);
    s = c ? make_chain(&b, c, err) : stp__oom(err, "building the Strict Markov chain");
  }
  set_free(&b.set);
  moves_free(&b.mb);
  free(b.row);
  net_free(&b.net);
  stp__teg_free(teg);
  if (s != STP_OK) {
    stp__chain_free(c);
    return s;
  }
  c->seconds_build = stp__now() - t0;
  *out = c;
  return STP_OK;
}

stp_status stp__strict_exp_throughput(const stp_mapping *m, const stp_options *o, double *rho,
                                      stp_ctmc_info *info, stp_error *err) {
  stp_chain *c;
  STP_CHECK(stp__strict_chain(m, o, &c, err));
  double *pi = NULL;
  stp_status s = stp__chain_solve(c, o, STP_STATIONARY_AUTO, &pi, rho, info, err);
  if (s != STP_OK)
    stp_error_prefix(err, "%s: the Strict Markov chain (%llu states)", m->file,
                      (unsigned long long)c->moves->nrows);
  free(pi);
  stp__chain_free(c);
  return s;
}
