/* strict_chain.c: the Markov chain of the Strict model (docs/design.md 4, paper
 * section 5.1): breadth-first enumeration of the reachable markings of the
 * full event graph, and the exponential throughput from its stationary
 * distribution (the rate of firings of the last column).
 *
 * Every place of the Strict graph lies on exactly one processor's cycle,
 * which holds one token, so a marking is the position of each cycle's
 * token, packed into bit fields (strict_cycles.h; a marking enables at most
 * one transition per cycle, found in O(cycles)).  Markings are numbered in
 * discovery order by a set that holds the key in its table when it fits
 * one word (engine/wordset.h), by a fingerprinted hash set otherwise
 * (engine/keyset.h); the successors of a block of states are computed and
 * their slots fetched before any is looked up, so that the table's cache
 * misses overlap.  The
 * moves go to a compact store (solvers/movestore.h: a 32-bit target and the
 * transition per move, the rates per transition), which the throughput
 * solves in place (engine/densechain.h, stp__store_rate, shared with the
 * Overlap patterns and graph chains) and stp__strict_chain turns
 * into a general stp_chain.  The enumeration stops, with a message saying
 * how far it got, at o->max_states markings or when the markings would
 * exceed the memory budget (stp_options_memory_budget), so memory stays
 * bounded; and before anything is built, a lower bound of the markings
 * (strict_estimate) refuses in microseconds what could never fit. */
#include "base/core.h"
#include "engine/densechain.h"
#include "engine/distchain.h"
#include "engine/keyset.h"
#include "engine/wordset.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/strict_cycles.h"
#include "models/pipeline/teg.h"
#include "solvers/movestore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes per marking besides its key, for the budget: the key set's slot
 * and fingerprint (11-16), about six moves of 5 bytes, the out-degree, the
 * iterate and the transpose of the irreducibility check (12), with room to
 * spare (bench/ctmc: 72-93 bytes per state in all, keys included); the
 * one-word key set's slots hold a hash and a number (16-24 bytes instead
 * of 11-16). */
#define STP_STRICT_BYTES_PER_STATE 80
#define STP_STRICT_WORDSET_EXTRA 10

/* States whose successors are computed, and their slots fetched ahead,
 * before any of them is looked up: enough lookups in flight to hide the
 * latency of the table's cache misses (bench/README.md). */
#define BLOCK 16

/* Most parts of the one-word key set: one per level up to this many, so
 * that the lookups of one depth, which all go to one level, find their
 * part of the table in the caches (bench/README.md). */
#define STP_STRICT_MAX_PARTS 4096

/* Most cycles for which the enabled transitions of the states of a depth
 * are kept (4 + 4 x cycles bytes per state of the depth), so that a state's
 * list is derived from its parent's in O(its length) instead of testing
 * every cycle (strict_cycles.h). */
#define STP_STRICT_INCREMENTAL 32

/* ---- breadth-first enumeration ------------------------------------------------
 * Markings are token positions (strict_cycles.h); those that fit one word
 * are numbered by a stp_wordset, longer ones by a stp_keyset. */

typedef struct bfs {
  const stp_mapping *map;
  const stp_teg *teg;
  stp_strict_cycles sc;
  bool one_word;    /* the markings fit one word: ws, else set */
  uint32_t part;    /* the part of ws where the successors being looked up
                       live: their level (stp_strict_cycles.level_period) */
  stp_wordset ws;
  stp_keyset set;
  stp_movestore ms;
  uint64_t depth;   /* depth of the state being expanded */
  uint64_t max_states;
  uint64_t estimate; /* strict_estimate's lower bound, for progress */
  uint64_t budget;   /* bytes (stp_options_memory_budget) */
  double t0;
  /* the successors of a block of states, at most one per cycle each */
  uint64_t *succ;   /* BLOCK * ncycles markings */
  uint64_t *hash;   /* their hashes */
  uint32_t *by;     /* the transition that leads to each */
  uint32_t deg[BLOCK];
  /* Incremental enabling (up to STP_STRICT_INCREMENTAL cycles): the sorted
   * enabled transitions of each state of the current depth (en_cur) and of
   * the next (en_next, filled as they are found), `stride` words each: the
   * count, then the transitions. */
  bool incremental;
  uint32_t stride;
  uint32_t *en_cur, *en_next;
  uint64_t cap_cur, cap_next; /* states of room */
  uint64_t next_start;        /* the first state of the next depth */
} bfs;

static void free_markings(bfs *b);

static void bfs_free(bfs *b) {
  free_markings(b);
  stp__movestore_free(&b->ms);
  stp__strict_cycles_free(&b->sc);
  free(b->succ);
  free(b->hash);
  free(b->by);
  free(b->en_cur);
  free(b->en_next);
}

static inline uint64_t state_count(const bfs *b) {
  return b->one_word ? b->ws.count : b->set.count;
}

static inline uint64_t state_limit(const bfs *b) {
  return b->one_word ? b->ws.limit : b->set.limit;
}

static inline uint64_t key_hash(const bfs *b, const uint64_t *key) {
  return b->one_word ? stp__wordset_hash(key[0]) : stp__keyset_hash(&b->set, key);
}

static inline stp_status key_add(bfs *b, const uint64_t *key, uint64_t hash, uint32_t *number,
                                 bool *added, stp_error *err) {
  if (b->one_word) {
    uint32_t found = stp__wordset_find(&b->ws, b->part, hash);
    if (found) {
      *number = found - 1;
      *added = false;
      return STP_OK;
    }
  }
  return b->one_word ? stp__wordset_add(&b->ws, b->part, key[0], hash, number, added, err)
                     : stp__keyset_add(&b->set, key, hash, number, added, err);
}

static inline const uint64_t *key_of(const bfs *b, uint64_t s) {
  return b->one_word ? &b->ws.keys[s] : stp__keyset_key(&b->set, s);
}

/* Room for `need` lists of `stride` words in *lists (grown by half). */
static bool grow_lists(uint32_t **lists, uint64_t *cap, uint64_t need, uint32_t stride) {
  if (need <= *cap)
    return true;
  uint64_t c = *cap < 1024 ? 1024 : *cap + *cap / 2;
  c = c < need ? need : c;
  uint32_t *p = realloc(*lists, (size_t)c * stride * sizeof *p);
  if (!p)
    return false;
  *lists = p;
  *cap = c;
  return true;
}

static stp_status initial_marking(bfs *b, stp_error *err) {
  b->part = 0; /* depth 0 */
  uint64_t *m0 = stp__calloc(b->sc.words, sizeof *m0);
  if (!m0)
    return stp__oom(err, "enumerating the Strict markings");
  stp__strict_cycles_pack(&b->sc, b->sc.init, m0);
  uint32_t index;
  bool added;
  stp_status s = key_add(b, m0, key_hash(b, m0), &index, &added, err);
  if (s == STP_OK && b->incremental) {
    s = grow_lists(&b->en_cur, &b->cap_cur, 1, b->stride)
            ? STP_OK
            : stp__oom(err, "enumerating the Strict markings");
    if (s == STP_OK)
      b->en_cur[0] = stp__strict_cycles_enabled(&b->sc, m0, b->en_cur + 1);
  }
  free(m0);
  return s;
}

static stp_status limit_reached(const bfs *b, uint64_t expanded, stp_error *err) {
  if (state_limit(b) == b->max_states)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, 0, b->max_states, 0},
                           "%s: the Strict Markov chain has more than %llu reachable markings "
                           "(enumeration stopped at depth %llu, after expanding %llu markings)",
                           b->map->file, (unsigned long long)state_limit(b),
                           (unsigned long long)b->depth, (unsigned long long)expanded);
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, 0, b->budget, 0},
                         "%s: the Strict Markov chain has more than %llu reachable markings of "
                         "%llu places each, beyond the memory budget of %.3g GiB (stopped at "
                         "depth %llu)",
                         b->map->file, (unsigned long long)state_limit(b),
                         (unsigned long long)b->teg->g->m, (double)b->budget / 1073741824.0,
                         (unsigned long long)b->depth);
}

static bool alloc_successors(bfs *b) {
  size_t n = (size_t)BLOCK * b->sc.ncycles;
  b->succ = stp__malloc_array(n * b->sc.words, sizeof *b->succ);
  b->hash = stp__malloc_array(n, sizeof *b->hash);
  b->by = stp__malloc_array(n, sizeof *b->by);
  return b->succ && b->hash && b->by;
}

/* The successors of states first .. end-1 (at most BLOCK), in order: per
 * state, its enabled transitions in increasing order and the markings they
 * lead to, hashed, their slots fetched ahead. */
static void successors(bfs *b, uint64_t first, uint64_t depth_start, uint64_t end) {
  size_t words = b->sc.words;
  uint32_t k = 0;
  for (uint64_t s = first; s < end; s++) {
    const uint64_t *cur = key_of(b, s);
    uint32_t n;
    if (b->incremental) {
      const uint32_t *list = b->en_cur + (s - depth_start) * b->stride;
      n = list[0];
      memcpy(b->by + k, list + 1, n * sizeof *list);
    } else {
      n = stp__strict_cycles_enabled(&b->sc, cur, b->by + k);
    }
    for (uint32_t i = k; i < k + n; i++) {
      uint64_t *next = b->succ + (size_t)i * words;
      stp__strict_cycles_fire(&b->sc, cur, b->by[i], next);
      b->hash[i] = key_hash(b, next);
#if defined(__GNUC__) /* here, not in a function: GCC drops a function made of prefetches */
      if (b->one_word) {
        const stp_wordset_part *t = &b->ws.part[b->part];
        uint64_t at = stp__wordset_slot(&b->ws, b->part, b->hash[i]);
        __builtin_prefetch(t->hash + at);
        __builtin_prefetch(t->num + at);
      } else {
        __builtin_prefetch(&b->set.map.slot[stp__hmap_home(b->hash[i], b->set.map.size)]);
      }
#endif
    }
    b->deg[s - first] = n;
    k += n;
  }
}

/* The enabled transitions of new state j (of the next depth), reached by
 * firing t from a state that enables the n transitions of `before`. */
static stp_status list_new_state(bfs *b, uint32_t j, const uint32_t *before, uint32_t n,
                                 uint32_t t, const uint64_t *next, stp_error *err) {
  uint64_t at = j - b->next_start;
  if (!grow_lists(&b->en_next, &b->cap_next, at + 1, b->stride))
    return stp__oom(err, "enumerating the Strict markings");
  uint32_t *list = b->en_next + at * b->stride;
  list[0] = stp__strict_cycles_enabled_after(&b->sc, before, n, t, next, list + 1);
  return STP_OK;
}

/* Writes the row of state s, whose n successors start at number k of the
 * block's (successors() computed them). */
static stp_status write_row(bfs *b, uint64_t s, uint32_t n, uint32_t k, bool new_band,
                            stp_error *err) {
  if (n == 0)
    return stp__fail(err, STP_EDEADLOCK,
                     "%s: the Strict event graph reaches a marking (number %llu, depth %llu) "
                     "where no transition can fire",
                     b->map->file, (unsigned long long)s, (unsigned long long)b->depth);
  uint64_t row = b->ms.nmoves;
  for (uint32_t i = k; i < k + n; i++) {
    uint32_t j;
    bool added;
    const uint64_t *next = b->succ + (size_t)i * b->sc.words;
    stp_status st = key_add(b, next, b->hash[i], &j, &added, err);
    if (st == STP_ELIMIT)
      return limit_reached(b, s, err);
    STP_CHECK(st);
    if (added && b->incremental) /* a state of the next depth: its enabled transitions */
      STP_CHECK(list_new_state(b, j, b->by + k, n, b->by[i], next, err));
    STP_CHECK(stp__movestore_push(&b->ms, j, b->by[i], err));
  }
  return stp__movestore_end_row(&b->ms, row, new_band, err);
}

/* The part of the key set where the markings at depth d live: their level
 * d mod the period of levels, folded onto the parts. */
static uint32_t part_of_depth(const bfs *b, uint64_t d) {
  return b->one_word ? (uint32_t)(d % b->sc.level_period % b->ws.nparts) : 0;
}

/* The next depth's lists become the current ones. */
static void swap_lists(bfs *b) {
  uint32_t *l = b->en_cur;
  uint64_t c = b->cap_cur;
  b->en_cur = b->en_next;
  b->cap_cur = b->cap_next;
  b->en_next = l;
  b->cap_next = c;
}

/* Sizes the part of the next depth for the states it will likely get: as
 * many as this depth has, times this depth's growth over the previous one
 * (at most 2).  An estimate: the part still grows if it falls short. */
static stp_status reserve_next_depth(bfs *b, uint64_t prev, uint64_t cur, stp_error *err) {
  double growth = prev ? (double)cur / (double)prev : 1.0;
  if (growth > 2.0)
    growth = 2.0;
  return stp__wordset_reserve(&b->ws, b->part, (uint64_t)((double)cur * growth), err);
}

/* Breadth first, one depth after the other, in blocks of at most BLOCK
 * states that do not straddle two depths (the successors of a block all
 * live in one part of the key set). */
static stp_status enumerate(bfs *b, const stp_options *o, stp_error *err) {
  stp_status s = alloc_successors(b) ? initial_marking(b, err)
                                      : stp__oom(err, "enumerating the Strict markings");
  uint64_t prev_start = 0, depth_start = 0, depth_end = 1; /* the states of the
                                                              previous and current depths */
  for (uint64_t first = 0, end; s == STP_OK && first < state_count(b); first = end) {
    if (first == depth_end) {
      b->depth++;
      prev_start = depth_start;
      depth_start = first;
      depth_end = state_count(b);
      swap_lists(b);
    }
    b->next_start = depth_end;
    end = first + BLOCK < depth_end ? first + BLOCK : depth_end;
    b->part = part_of_depth(b, b->depth + 1);
    if (first == depth_start && b->one_word)
      s = reserve_next_depth(b, depth_start - prev_start, depth_end - depth_start, err);
    successors(b, first, depth_start, end);
    for (uint64_t st = first, k = 0; s == STP_OK && st < end; k += b->deg[st - first], st++) {
      if (st % 1024 == 0) {
        stp__progress(&o->control, "enumerating the Strict markings", state_count(b), b->estimate, b->t0);
        if (stp__cancelled(&o->control.cancel)) {
          s = stp__fail(err, STP_EINTERRUPTED, "interrupted while enumerating the Strict markings");
          break;
        }
      }
      s = write_row(b, st, b->deg[st - first], (uint32_t)k, st == depth_start, err);
    }
  }
  return s;
}

static uint64_t marking_limit(const stp_options *o, size_t words) {
  uint64_t limit = o->max_states;
  uint64_t per_state = words * sizeof(uint64_t) + STP_STRICT_BYTES_PER_STATE +
                       (words == 1 ? STP_STRICT_WORDSET_EXTRA : 0);
  uint64_t by_bytes = stp_options_memory_budget(o) / per_state;
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
uint64_t stp__strict_min_markings_teams(const stp_teams *tm) {
  uint64_t rows, best = 0;
  if (!stp__teams_lcm(tm, &rows))
    return UINT64_MAX;
  size_t first = stp__teams_size(tm, 0);
  best = first >= 64 ? UINT64_MAX : UINT64_C(1) << first;
  for (size_t i = 0; i < tm->nstages; i++) {
    uint64_t len = rows / stp__teams_size(tm, i) * (1 + (i > 0) + (i + 1 < tm->nstages));
    if (len > best)
      best = len;
  }
  return best;
}

uint64_t stp__strict_min_markings(const stp_mapping *m) {
  stp_teams tm = stp__teams_of(m);
  return stp__strict_min_markings_teams(&tm);
}

static stp_status strict_estimate(const stp_mapping *m, const stp_teams *tm, const stp_options *o,
                                  uint64_t *lower, stp_error *err) {
  STP_CHECK(stp__teg_check_size_teams(m, tm, STP_MODEL_STRICT, o->max_transitions, err));
  STP_CHECK(stp__teg_check_memory_teams(m, tm, STP_MODEL_STRICT, stp_options_memory_budget(o),
                                        err));
  uint64_t places = stp__teg_place_count_teams(m, tm, STP_MODEL_STRICT);
  *lower = stp__strict_min_markings_teams(tm);
  if (*lower > o->max_states)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, *lower, o->max_states, 0},
                           "%s: the Strict Markov chain has at least %llu reachable markings (a "
                           "processor's cycle has that many places), above the limit of %llu",
                           m->file, (unsigned long long)*lower, (unsigned long long)o->max_states);
  double bytes = (double)*lower * ((double)((places + 63) / 64) * 8 + STP_STRICT_BYTES_PER_STATE);
  uint64_t budget = stp_options_memory_budget(o);
  if (bytes > (double)budget)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget, 0},
                           "%s: the Strict Markov chain has at least %llu reachable markings of "
                           "%llu places each, at least %.3g GiB, above the memory budget of "
                           "%.3g GiB",
                           m->file, (unsigned long long)*lower, (unsigned long long)places,
                           bytes / 1073741824.0, (double)budget / 1073741824.0);
  return STP_OK;
}

/* The move store, with one rate per transition (1 / its mean time). */
static stp_status init_moves(bfs *b, stp_error *err) {
  double *rate = stp__malloc_array(b->sc.ntrans, sizeof *rate);
  if (!rate)
    return stp__oom(err, "enumerating the Strict markings");
  for (uint32_t t = 0; t < b->sc.ntrans; t++)
    rate[t] = 1.0 / b->teg->time[t];
  stp_status s = stp__movestore_init(&b->ms, b->sc.ntrans, rate, err);
  free(rate);
  return s;
}

/* The markings are no longer needed once the moves are written. */
static void free_markings(bfs *b) {
  stp__wordset_free(&b->ws);
  stp__keyset_free(&b->set);
}

/* The enumeration of m's markings into b (keys, moves and cycles set up). */
static stp_status strict_enumerate(bfs *b, const stp_mapping *m, const stp_teams *tm,
                                   const stp_options *o, unsigned word_bits, stp_teg **teg,
                                   stp_error *err) {
  *b = (bfs){.map = m, .max_states = o->max_states, .t0 = stp__now(),
             .budget = stp_options_memory_budget(o)};
  STP_CHECK(strict_estimate(m, tm, o, &b->estimate, err));
  STP_CHECK(stp__teg_build_teams(m, tm, STP_MODEL_STRICT, o->max_transitions, teg, err));
  b->teg = *teg;
  stp_status s = stp__strict_cycles_init(&b->sc, *teg, word_bits, err);
  if (s == STP_OK) {
    uint64_t limit = marking_limit(o, b->sc.words);
    b->one_word = b->sc.words == 1;
    b->incremental = b->sc.ncycles <= STP_STRICT_INCREMENTAL;
    b->stride = b->sc.ncycles + 1;
    uint64_t parts = b->sc.level_period < STP_STRICT_MAX_PARTS ? b->sc.level_period
                                                                : STP_STRICT_MAX_PARTS;
    s = b->one_word ? stp__wordset_init(&b->ws, (uint32_t)parts, limit, err)
                    : stp__keyset_init(&b->set, b->sc.words, limit, err);
  }
  if (s == STP_OK)
    s = init_moves(b, err);
  if (s == STP_OK)
    s = enumerate(b, o, err);
  return s;
}

/* Per transition: 1 when its firing completes a data set (the last column). */
/* Which transitions complete a data set: the last column of each row (a
 * counted transition, as stp_chain counts data sets). */
static uint8_t *counted_transitions(const bfs *b, stp_error *err) {
  const stp_teg *teg = b->teg;
  uint8_t *counted = stp__calloc(b->sc.ntrans ? b->sc.ntrans : 1, 1);
  if (!counted) {
    stp__oom(err, "building the Strict Markov chain");
    return NULL;
  }
  for (uint32_t t = 0; t < teg->g->n; t++)
    counted[t] = t % teg->ncols == teg->ncols - 1;
  return counted;
}

stp_status stp__strict_chain(const stp_mapping *m, const stp_options *o, stp_chain **out,
                             stp_error *err) {
  return stp__strict_chain_packed(m, o, 64, out, err);
}

stp_status stp__strict_chain_packed(const stp_mapping *m, const stp_options *o, unsigned word_bits,
                                    stp_chain **out, stp_error *err) {
  *out = NULL;
  double t0 = stp__now();
  bfs b;
  stp_teg *teg = NULL;
  uint8_t *counted = NULL;
  stp_teams tm = stp__teams_of(m);
  stp_status s = strict_enumerate(&b, m, &tm, o, word_bits, &teg, err);
  free_markings(&b);
  if (s == STP_OK)
    s = (counted = counted_transitions(&b, err)) ? STP_OK : STP_ENOMEM;
  if (s == STP_OK)
    s = stp__store_to_chain(&b.ms, counted, stp__now() - t0, out, err);
  free(counted);
  bfs_free(&b);
  stp__teg_free(teg);
  return s;
}

/* ---- across MPI ranks (engine/distchain.h) ------------------------------------------
 * The same markings and moves, enumerated by the distributed engine: the
 * successors of a packed marking are its enabled transitions fired, in
 * increasing order, as in successors() above. */

typedef struct strict_source {
  const stp_strict_cycles *sc;
  uint32_t *enabled; /* ncycles: at most one enabled transition per cycle */
} strict_source;

static stp_status strict_successors(void *ctx, const uint64_t *key, stp_dense_row *row,
                                    stp_error *err) {
  const strict_source *ss = ctx;
  uint32_t n = stp__strict_cycles_enabled(ss->sc, key, ss->enabled);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t *next = stp__dense_row_next(row);
    if (!next)
      return stp__oom(err, "enumerating the Strict markings");
    stp__strict_cycles_fire(ss->sc, key, ss->enabled[i], next);
    stp__dense_row_add(row, ss->enabled[i]);
  }
  return STP_OK;
}

static stp_status strict_distributed(const stp_mapping *m, const stp_teams *tm,
                                     const stp_options *o, double *rho, stp_ctmc_info *info,
                                     stp_error *err) {
  bfs b = {.map = m};
  stp_teg *teg = NULL;
  uint64_t *m0 = NULL;
  double *rate = NULL;
  uint8_t *counted = NULL;
  strict_source ss = {.sc = &b.sc};
  stp_status s = strict_estimate(m, tm, o, &b.estimate, err);
  if (s == STP_OK)
    s = stp__teg_build_teams(m, tm, STP_MODEL_STRICT, o->max_transitions, &teg, err);
  b.teg = teg;
  if (s == STP_OK)
    s = stp__strict_cycles_init(&b.sc, teg, 64, err);
  if (s == STP_OK) {
    m0 = stp__calloc(b.sc.words, sizeof *m0);
    rate = stp__malloc_array(b.sc.ntrans ? b.sc.ntrans : 1, sizeof *rate);
    counted = counted_transitions(&b, err);
    ss.enabled = stp__malloc_array(b.sc.ncycles ? b.sc.ncycles : 1, sizeof *ss.enabled);
    s = m0 && rate && counted && ss.enabled ? STP_OK
                                            : stp__oom(err, "enumerating the Strict markings");
  }
  if (s == STP_OK) {
    stp__strict_cycles_pack(&b.sc, b.sc.init, m0);
    for (uint32_t t = 0; t < b.sc.ntrans; t++)
      rate[t] = 1.0 / teg->time[t];
    stp_dense_source src = {.words = b.sc.words, .initial = m0, .nlabels = b.sc.ntrans,
                            .rate = rate, .expand = strict_successors, .ctx = &ss,
                            .max_states = o->max_states, .control = &o->control,
                            .what = "enumerating the Strict markings (distributed)",
                            .estimate = b.estimate};
    s = stp__dist_rate(&src, counted, o, rho, info, err);
    if (s != STP_OK)
      stp_error_prefix(err, "%s: the distributed Strict Markov chain", m->file);
  }
  free(m0);
  free(rate);
  free(counted);
  free(ss.enabled);
  stp__strict_cycles_free(&b.sc);
  stp__teg_free(teg);
  return s;
}

stp_status stp__strict_store(const stp_mapping *m, const stp_options *o, stp_movestore *ms,
                             stp_error *err) {
  bfs b;
  stp_teg *teg = NULL;
  stp_teams tm = stp__teams_of(m);
  stp_status s = strict_enumerate(&b, m, &tm, o, 64, &teg, err);
  *ms = b.ms; /* handed over: bfs_free frees the rest */
  b.ms = (stp_movestore){0};
  bfs_free(&b);
  stp__teg_free(teg);
  return s;
}

/* The exponential throughput: the chain in its compact store is solved in
 * place (engine/densechain.h, stp__store_rate; info->solver names the
 * route that ran), or across MPI ranks (o->distributed). */
stp_status stp__strict_exp_throughput(const stp_mapping *m, const stp_options *o, double *rho,
                                      stp_ctmc_info *info, stp_error *err) {
  stp_teams tm = stp__teams_of(m);
  return stp__strict_exp_throughput_teams(m, &tm, o, rho, info, err);
}

stp_status stp__strict_exp_throughput_teams(const stp_mapping *m, const stp_teams *tm,
                                            const stp_options *o, double *rho,
                                            stp_ctmc_info *info, stp_error *err) {
  if (o->distributed)
    return strict_distributed(m, tm, o, rho, info, err);
  double t0 = stp__now();
  bfs b;
  stp_teg *teg = NULL;
  uint8_t *counted = NULL;
  stp_status s = strict_enumerate(&b, m, tm, o, 64, &teg, err);
  free_markings(&b);
  if (s == STP_OK)
    s = (counted = counted_transitions(&b, err)) ? STP_OK : STP_ENOMEM;
  if (s == STP_OK) {
    s = stp__store_rate(&b.ms, counted, stp__now() - t0, o, rho, info, err);
    if (s != STP_OK)
      stp_error_prefix(err, "%s: the Strict Markov chain (%llu states)", m->file,
                        (unsigned long long)b.ms.nstates);
  }
  free(counted);
  bfs_free(&b);
  stp__teg_free(teg);
  return s;
}
