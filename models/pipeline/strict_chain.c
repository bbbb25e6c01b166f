/* strict_chain.c: the Markov chain of the Strict model (docs/design.md 4, paper
 * section 5.1): breadth-first enumeration of the reachable markings of the
 * full event graph, and the exponential throughput from its stationary
 * distribution (the rate of firings of the last column).
 *
 * Every place of the Strict graph lies on a processor's cycle that holds
 * exactly one token, so a place holds 0 or 1 token and a marking is a bit
 * string, stored packed; a transition is enabled when its input bits are
 * all set, tested a 64-bit word at a time.  Markings are numbered in
 * discovery order by a fingerprinted hash set (engine/keyset.h) and the
 * moves go to a compact store (solvers/movestore.h: a 32-bit target and the
 * transition per move, the rates per transition), which the throughput
 * solves in place (solvers/stationary_bands.h) and stp__strict_chain turns
 * into a general stp_chain.  The enumeration stops, with a message saying
 * how far it got, at o->max_states markings or when the markings would
 * exceed the memory budget (stp_options_memory_budget), so memory stays
 * bounded; and before anything is built, a lower bound of the markings
 * (strict_estimate) refuses in microseconds what could never fit. */
#include "base/core.h"
#include "engine/keyset.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/teg.h"
#include "solvers/movestore.h"
#include "solvers/stationary_bands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes per marking besides its bits, for the budget: the key set's slot
 * and fingerprint (11-16), about six moves of 5 bytes, the out-degree, the
 * iterate and the transpose of the irreducibility check (12), with room to
 * spare (bench/ctmc: 76-93 bytes per state in all, bits included). */
#define STP_STRICT_BYTES_PER_STATE 80

/* ---- the net: input and output places of each transition, as word masks --- */

typedef struct word_mask {
  uint64_t word;
  uint64_t mask;
} word_mask;

typedef struct net {
  uint32_t ntrans;
  size_t words;       /* 64-bit words per marking */
  uint64_t *in_off;   /* ntrans + 1, into in */
  uint64_t *out_off;  /* ntrans + 1, into out */
  word_mask *in;      /* input places of each transition, one mask per word */
  word_mask *out;     /* output places likewise */
  double *rate;       /* 1 / mean firing time */
} net;

static void net_free(net *n) {
  free(n->in_off);
  free(n->out_off);
  free(n->in);
  free(n->out);
  free(n->rate);
}

/* Appends place p to the masks of the current transition (places come in
 * increasing order, so one word's places are consecutive). */
static void add_place(word_mask *wm, uint64_t *count, uint64_t first, uint64_t p) {
  if (*count > first && wm[*count - 1].word == p / 64)
    wm[*count - 1].mask |= UINT64_C(1) << (p % 64);
  else
    wm[(*count)++] = (word_mask){p / 64, UINT64_C(1) << (p % 64)};
}

static stp_status net_init(const stp_teg *t, net *n, stp_error *err) {
  const stp_digraph *g = t->g;
  memset(n, 0, sizeof *n);
  n->ntrans = g->n;
  n->words = g->m ? (size_t)((g->m + 63) / 64) : 1;
  n->in_off = stp__calloc((size_t)g->n + 1, sizeof *n->in_off);
  n->out_off = stp__calloc((size_t)g->n + 1, sizeof *n->out_off);
  n->in = stp__malloc_array((size_t)g->m + 1, sizeof *n->in);
  n->out = stp__malloc_array((size_t)g->m + 1, sizeof *n->out);
  n->rate = stp__malloc_array(g->n, sizeof *n->rate);
  uint64_t *in_place_off = stp__calloc((size_t)g->n + 1, sizeof *in_place_off);
  uint64_t *in_place = stp__malloc_array((size_t)g->m + 1, sizeof *in_place);
  if (!n->in_off || !n->out_off || !n->in || !n->out || !n->rate || !in_place_off ||
      !in_place) {
    free(in_place_off);
    free(in_place);
    net_free(n);
    return stp__oom(err, "preparing the Strict event graph");
  }
  /* input places grouped by transition, in increasing order */
  for (uint64_t e = 0; e < g->m; e++)
    in_place_off[g->dst[e] + 1]++;
  for (uint32_t v = 0; v < g->n; v++)
    in_place_off[v + 1] += in_place_off[v];
  for (uint64_t e = 0; e < g->m; e++)
    in_place[in_place_off[g->dst[e]]++] = e;
  for (uint32_t v = g->n; v > 0; v--)
    in_place_off[v] = in_place_off[v - 1];
  in_place_off[0] = 0;
  uint64_t ni = 0, no = 0;
  for (uint32_t v = 0; v < g->n; v++) {
    n->in_off[v] = ni;
    for (uint64_t k = in_place_off[v]; k < in_place_off[v + 1]; k++)
      add_place(n->in, &ni, n->in_off[v], in_place[k]);
    n->out_off[v] = no;
    for (uint64_t e = g->off[v]; e < g->off[v + 1]; e++) /* output places: v's edges */
      add_place(n->out, &no, n->out_off[v], e);
    n->rate[v] = 1.0 / t->time[v];
  }
  n->in_off[g->n] = ni;
  n->out_off[g->n] = no;
  free(in_place_off);
  free(in_place);
  return STP_OK;
}

static inline bool enabled(const net *n, const uint64_t *m, uint32_t t) {
  for (uint64_t k = n->in_off[t]; k < n->in_off[t + 1]; k++)
    if ((m[n->in[k].word] & n->in[k].mask) != n->in[k].mask)
      return false;
  return true;
}

/* Fire t in m into next; false if a place would hold two tokens. */
static inline bool fire(const net *n, const uint64_t *m, uint32_t t, uint64_t *next) {
  memcpy(next, m, n->words * sizeof *next);
  for (uint64_t k = n->in_off[t]; k < n->in_off[t + 1]; k++)
    next[n->in[k].word] &= ~n->in[k].mask;
  for (uint64_t k = n->out_off[t]; k < n->out_off[t + 1]; k++) {
    if (next[n->out[k].word] & n->out[k].mask)
      return false;
    next[n->out[k].word] |= n->out[k].mask;
  }
  return true;
}

/* ---- breadth-first enumeration ------------------------------------------------ */

typedef struct bfs {
  const stp_mapping *map;
  const stp_teg *teg;
  net net;
  stp_keyset set;
  stp_movestore ms;
  uint64_t depth;   /* depth of the state being expanded */
  uint64_t max_states;
  uint64_t estimate; /* strict_estimate's lower bound, for progress */
  uint64_t budget;   /* bytes (stp_options_memory_budget) */
  double t0;
  uint64_t *succ;   /* the successors of the state being expanded (room for cap) */
  uint32_t cap;     /* grown as needed: a state enables at most one transition
                       per processor, far fewer than ntrans on large graphs */
  uint64_t *hash;   /* their hashes */
  uint32_t *by;     /* the transition that leads to each */
} bfs;

static void bfs_free(bfs *b) {
  stp__keyset_free(&b->set);
  stp__movestore_free(&b->ms);
  net_free(&b->net);
  free(b->succ);
  free(b->hash);
  free(b->by);
}

static stp_status initial_marking(bfs *b, stp_error *err) {
  uint64_t *m0 = stp__calloc(b->net.words, sizeof *m0);
  if (!m0)
    return stp__oom(err, "enumerating the Strict markings");
  for (uint64_t e = 0; e < b->teg->g->m; e++)
    if (b->teg->g->tok[e])
      m0[e / 64] |= UINT64_C(1) << (e % 64);
  uint32_t index;
  bool added;
  stp_status s = stp__keyset_add(&b->set, m0, stp__keyset_hash(&b->set, m0), &index, &added, err);
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

/* Doubles the room for successors (up to one per transition). */
static bool grow_successors(bfs *b) {
  uint32_t cap = b->cap ? 2 * b->cap : 64;
  if (cap > b->net.ntrans)
    cap = b->net.ntrans;
  uint64_t *succ = realloc(b->succ, (size_t)cap * b->net.words * sizeof *succ);
  if (succ)
    b->succ = succ;
  uint64_t *hash = realloc(b->hash, (size_t)cap * sizeof *hash);
  if (hash)
    b->hash = hash;
  uint32_t *by = realloc(b->by, (size_t)cap * sizeof *by);
  if (by)
    b->by = by;
  if (!succ || !hash || !by)
    return false;
  b->cap = cap;
  return true;
}

/* Write the row of state s: every enabled transition, its next state.  The
 * successors are computed and hashed first and their slots fetched ahead,
 * so that the lookups' cache misses overlap. */
static stp_status expand(bfs *b, uint64_t s, bool new_band, stp_error *err) {
  size_t words = b->net.words;
  const uint64_t *cur = stp__keyset_key(&b->set, s); /* read before any add moves it */
  uint32_t k = 0;
  for (uint32_t t = 0; t < b->net.ntrans; t++) {
    if (!enabled(&b->net, cur, t))
      continue;
    if (k == b->cap && !grow_successors(b)) /* cur lives in the key set: unmoved */
      return stp__oom(err, "enumerating the Strict markings");
    if (!fire(&b->net, cur, t, b->succ + (size_t)k * words))
      return stp__fail(err, STP_EINTERNAL,
                       "%s: firing a transition of the Strict event graph would put two tokens "
                       "in a place", b->map->file);
    b->hash[k] = stp__keyset_hash(&b->set, b->succ + (size_t)k * words);
    stp__keyset_prefetch(&b->set, b->hash[k]);
    b->by[k++] = t;
  }
  if (k == 0)
    return stp__fail(err, STP_EDEADLOCK,
                     "%s: the Strict event graph reaches a marking (number %llu, depth %llu) "
                     "where no transition can fire",
                     b->map->file, (unsigned long long)s, (unsigned long long)b->depth);
  uint64_t row = b->ms.nmoves;
  for (uint32_t i = 0; i < k; i++) {
    uint32_t j;
    bool added;
    stp_status st = stp__keyset_add(&b->set, b->succ + (size_t)i * words, b->hash[i], &j, &added,
                                    err);
    if (st == STP_ELIMIT)
      return limit_reached(b, s, err);
    STP_CHECK(st);
    STP_CHECK(stp__movestore_push(&b->ms, j, b->by[i], err));
  }
  return stp__movestore_end_row(&b->ms, row, new_band, err);
}

static stp_status enumerate(bfs *b, const stp_options *o, stp_error *err) {
  stp_status s = grow_successors(b) ? initial_marking(b, err)
                                     : stp__oom(err, "enumerating the Strict markings");
  uint64_t depth_end = 1; /* first state of the next depth */
  for (uint64_t st = 0; s == STP_OK && st < b->set.count; st++) {
    bool new_band = st == 0 || st == depth_end;
    if (st && st == depth_end) {
      b->depth++;
      depth_end = b->set.count;
    }
    stp__progress(o, "enumerating the Strict markings", b->set.count, b->estimate, b->t0);
    if (st % 1024 == 0 && stp__cancelled(&o->cancel))
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted while enumerating the Strict markings");
    else
      s = expand(b, st, new_band, err);
  }
  return s;
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

/* The enumeration of m's markings into b (keys, moves and net set up). */
static stp_status strict_enumerate(bfs *b, const stp_mapping *m, const stp_options *o,
                                   stp_teg **teg, stp_error *err) {
  *b = (bfs){.map = m, .max_states = o->max_states, .t0 = stp__now(),
             .budget = stp_options_memory_budget(o)};
  STP_CHECK(strict_estimate(m, o, &b->estimate, err));
  STP_CHECK(stp__teg_build(m, STP_MODEL_STRICT, o->max_transitions, teg, err));
  b->teg = *teg;
  stp_status s = net_init(*teg, &b->net, err);
  if (s == STP_OK)
    s = stp__keyset_init(&b->set, b->net.words, marking_limit(o, b->net.words), err);
  if (s == STP_OK)
    s = stp__movestore_init(&b->ms, b->net.ntrans, b->net.rate, err);
  if (s == STP_OK)
    s = enumerate(b, o, err);
  return s;
}

/* Per transition: 1 when its firing completes a data set (the last column). */
static void mark_counted(const stp_teg *teg, uint8_t *counted) {
  for (uint32_t t = 0; t < teg->g->n; t++)
    counted[t] = t % teg->ncols == teg->ncols - 1;
}

/* The moves handed over to a general chain. */
static stp_status make_chain(bfs *b, stp_chain *c, stp_error *err) {
  c->counted = stp__calloc(b->net.ntrans, sizeof *c->counted);
  if (!c->counted)
    return stp__oom(err, "building the Strict Markov chain");
  STP_CHECK(stp__movestore_to_csr(&b->ms, &c->moves, &c->event, err));
  c->nevents = b->net.ntrans;
  c->scale = 1;
  mark_counted(b->teg, c->counted);
  return STP_OK;
}

stp_status stp__strict_chain(const stp_mapping *m, const stp_options *o, stp_chain **out,
                             stp_error *err) {
  *out = NULL;
  double t0 = stp__now();
  bfs b;
  stp_teg *teg = NULL;
  stp_chain *c = NULL;
  stp_status s = strict_enumerate(&b, m, o, &teg, err);
  stp__keyset_free(&b.set); /* the markings are no longer needed */
  if (s == STP_OK) {
    c = calloc(1, sizeof *c);
    s = c ? make_chain(&b, c, err) : stp__oom(err, "building the Strict Markov chain");
  }
  bfs_free(&b);
  stp__teg_free(teg);
  if (s != STP_OK) {
    stp__chain_free(c);
    return s;
  }
  c->seconds_build = stp__now() - t0;
  *out = c;
  return STP_OK;
}

/* ncounted x the smallest long-run firing rate of a counted transition
 * (stp_chain says why). */
static stp_status data_set_rate(const stp_movestore *ms, const stp_teg *teg, const double *pi,
                                double *rate, stp_error *err) {
  double *fire = stp__malloc_array(ms->nlabels, sizeof *fire);
  if (!fire)
    return stp__oom(err, "computing firing rates");
  stp__bands_label_rates(ms, pi, fire);
  double low = INFINITY;
  uint32_t ncounted = 0;
  for (uint32_t t = 0; t < ms->nlabels; t++)
    if (t % teg->ncols == teg->ncols - 1) {
      low = fire[t] < low ? fire[t] : low;
      ncounted++;
    }
  free(fire);
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

/* The general route: the moves as an stp_chain, solved by
 * stp__chain_solve (AUTO: Gauss-Seidel with its transpose, UMFPACK on a
 * small chain where it stalls or has no levels). */
static stp_status solve_general(bfs *b, const stp_options *o, double *rho, stp_ctmc_info *info,
                                stp_error *err) {
  stp_chain *c = calloc(1, sizeof *c);
  stp_status s = c ? make_chain(b, c, err) : stp__oom(err, "building the Strict Markov chain");
  double *pi = NULL;
  if (s == STP_OK)
    s = stp__chain_solve(c, o, STP_STATIONARY_AUTO, &pi, rho, info, err);
  free(pi);
  stp__chain_free(c);
  return s;
}

/* The exponential throughput from the chain in its compact store: the
 * level-order Gauss-Seidel solves it in place; where that does not apply or
 * does not converge (no levels, a stall), the general route runs instead
 * and info->solver says which did. */
static stp_status solve_compact(bfs *b, const stp_options *o, double *rho, stp_ctmc_info *info,
                                stp_error *err) {
  stp_stationary_options so;
  stp__stationary_options_init(&so);
  so.tolerance = o->solver_tolerance;
  so.cancel = o->cancel;
  stp_stationary_info si;
  double *pi = NULL;
  stp_error local = {0};
  stp_status s = stp__bands_solve(&b->ms, &so, &pi, &si, &local);
  if (s == STP_ENUMERIC)
    return solve_general(b, o, rho, info, err);
  if (s != STP_OK) {
    if (err)
      *err = local;
    return s;
  }
  s = data_set_rate(&b->ms, b->teg, pi, rho, err);
  free(pi);
  *info = (stp_ctmc_info){.states = b->ms.nstates,
                          .nonzeros = off_diagonal(&b->ms),
                          .residual = si.residual,
                          .solver = si.solver,
                          .iterations = si.iterations,
                          .period = si.period,
                          .seconds_solve = si.seconds};
  return s;
}

stp_status stp__strict_exp_throughput(const stp_mapping *m, const stp_options *o, double *rho,
                                      stp_ctmc_info *info, stp_error *err) {
  double t0 = stp__now();
  bfs b;
  stp_teg *teg = NULL;
  stp_status s = strict_enumerate(&b, m, o, &teg, err);
  stp__keyset_free(&b.set); /* the markings are no longer needed */
  double built = stp__now() - t0;
  if (s == STP_OK) {
    s = solve_compact(&b, o, rho, info, err);
    if (s == STP_OK)
      info->seconds_build = built;
    else
      stp_error_prefix(err, "%s: the Strict Markov chain (%llu states)", m->file,
                        (unsigned long long)b.ms.nstates);
  }
  bfs_free(&b);
  stp__teg_free(teg);
  return s;
}
