/* test_strict_cycles.c: the markings of the Strict graph as token positions
 * (models/pipeline/strict_cycles.h) and the enumeration built on them.
 * References, computed from the graph's places alone: a transition is
 * enabled when all its input places hold a token, and firing it moves one
 * token from each input place to each output place (one bit per place),
 * and the incremental list of a successor's enabled transitions against
 * the full test;
 * the chain is checked against a plain breadth-first search over such bit
 * markings, with every transition tried in increasing order (the numbering
 * that stp__strict_chain must reproduce to the state), which also checks
 * that every move goes to the next level (depth mod level_period). */
#include "engine/keyset.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/strict_cycles.h"
#include "models/pipeline/teg.h"
#include "support/testutil.h"

#include <stdlib.h>
#include <string.h>

static size_t place_words(const stp_teg *t) {
  return (size_t)((t->g->m + 63) / 64);
}

static bool has_token(const uint64_t *bits, uint64_t e) {
  return bits[e / 64] >> (e % 64) & 1;
}

/* Brute force: all input places of transition v hold a token. */
static bool ref_enabled(const stp_teg *t, const uint64_t *bits, uint32_t v) {
  for (uint64_t e = 0; e < t->g->m; e++)
    if (t->g->dst[e] == v && !has_token(bits, e))
      return false;
  return true;
}

/* Brute force: v's input places lose their token, its output places gain one. */
static void ref_fire(const stp_teg *t, uint64_t *bits, uint32_t v) {
  for (uint64_t e = 0; e < t->g->m; e++)
    if (t->g->dst[e] == v)
      bits[e / 64] &= ~(UINT64_C(1) << (e % 64));
  for (uint64_t e = t->g->off[v]; e < t->g->off[v + 1]; e++) {
    cr_assert_not(has_token(bits, e), "place %llu would hold two tokens", (unsigned long long)e);
    bits[e / 64] |= UINT64_C(1) << (e % 64);
  }
}

static stp_teg *build(const stp_mapping *m) {
  stp_teg *t;
  stp_error err = {0};
  cr_assert_eq(stp__teg_build(m, STP_MODEL_STRICT, UINT64_MAX, &t, &err), STP_OK, "%s",
               err.message);
  return t;
}

static void init_cycles(stp_strict_cycles *sc, const stp_teg *t, unsigned word_bits) {
  stp_error err = {0};
  cr_assert_eq(stp__strict_cycles_init(sc, t, word_bits, &err), STP_OK, "%s", err.message);
}

/* Random token positions, one per cycle: any marking of one token per
 * cycle, reachable or not. */
static void random_marking(const stp_strict_cycles *sc, trng *rng, uint64_t *key) {
  uint32_t *pos = malloc(sc->ncycles * sizeof *pos);
  for (uint32_t c = 0; c < sc->ncycles; c++)
    pos[c] = (uint32_t)trng_int(rng, 0, sc->len[c] - 1);
  stp__strict_cycles_pack(sc, pos, key);
  for (uint32_t c = 0; c < sc->ncycles; c++)
    cr_assert_eq(stp__strict_cycles_at(sc, key, c), pos[c]);
  free(pos);
}

static void check_markings(const stp_mapping *m, trng *rng, unsigned word_bits) {
  stp_teg *t = build(m);
  stp_strict_cycles sc;
  init_cycles(&sc, t, word_bits);
  size_t pw = place_words(t);
  uint64_t *key = calloc(sc.words, 8), *next = calloc(sc.words, 8);
  uint64_t *bits = calloc(pw, 8), *want = calloc(pw, 8), *got = calloc(pw, 8);
  uint32_t *en = malloc(sc.ncycles * sizeof *en);
  uint32_t *en1 = malloc(sc.ncycles * sizeof *en), *en2 = malloc(sc.ncycles * sizeof *en);
  /* the initial marking is the graph's */
  stp__strict_cycles_pack(&sc, sc.init, key);
  stp__strict_cycles_unpack(&sc, key, bits);
  for (uint64_t e = 0; e < t->g->m; e++)
    cr_assert_eq(has_token(bits, e), t->g->tok[e] != 0, "place %llu", (unsigned long long)e);
  for (int round = 0; round < 200; round++) {
    random_marking(&sc, rng, key);
    stp__strict_cycles_unpack(&sc, key, bits);
    uint32_t n = stp__strict_cycles_enabled(&sc, key, en), k = 0;
    for (uint32_t v = 0; v < t->g->n; v++) {
      if (!ref_enabled(t, bits, v))
        continue;
      cr_assert_lt(k, n, "transition %u is enabled but not listed", v);
      cr_assert_eq(en[k], v, "listed %u where %u is the next enabled transition", en[k], v);
      k++;
      stp__strict_cycles_fire(&sc, key, v, next);
      stp__strict_cycles_unpack(&sc, next, got);
      memcpy(want, bits, pw * 8);
      ref_fire(t, want, v);
      cr_assert_arr_eq(got, want, pw * 8, "firing %u", v);
      /* the incremental list of the successor's enabled transitions */
      uint32_t n1 = stp__strict_cycles_enabled(&sc, next, en1);
      uint32_t n2 = stp__strict_cycles_enabled_after(&sc, en, n, v, next, en2);
      cr_assert_eq(n2, n1, "after firing %u: %u transitions listed, %u enabled", v, n2, n1);
      cr_assert_arr_eq(en2, en1, n1 * sizeof *en1, "after firing %u", v);
    }
    cr_assert_eq(k, n, "%u transitions listed, %u enabled", n, k);
  }
  free(en);
  free(en1);
  free(en2);
  free(key);
  free(next);
  free(bits);
  free(want);
  free(got);
  stp__strict_cycles_free(&sc);
  stp__teg_free(t);
}

Test(strict_cycles, enabling_and_firing_match_the_places) {
  trng rng = {41};
  for (int round = 0; round < 60; round++) {
    tgen p = {.nstages = trng_int(&rng, 1, 4), .max_team = 4, .model = STP_MODEL_STRICT};
    stp_mapping *m = tgen_mapping(&rng, &p);
    check_markings(m, &rng, 64);
    check_markings(m, &rng, 5); /* fields spread over several words */
    stp_mapping_free(m);
  }
}

Test(strict_cycles, fields_fit_their_cycles) {
  size_t teams[] = {5, 7};
  trng rng = {42};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 2, false);
  stp_teg *t = build(m);
  stp_strict_cycles sc;
  init_cycles(&sc, t, 64);
  /* R = 35: a sender cycles over 7 rows x 2 actions (4 bits), a receiver
   * over 5 x 2 (4 bits): 12 cycles, 48 bits, one word; every place once. */
  cr_assert_eq(sc.ncycles, 12);
  cr_assert_eq(sc.words, 1);
  for (uint32_t c = 0; c < 12; c++)
    cr_assert_eq(sc.len[c], c < 5 ? 14 : 10);
  cr_assert_eq(sc.first[12], t->g->m);
  cr_assert_eq(sc.level_period, t->g->n); /* connected: 35 x 3 transitions */
  stp__strict_cycles_free(&sc);
  stp__teg_free(t);
  stp_mapping_free(m);
}

/* One stage on three processors: three self-loops, not connected, so
 * depths carry no level (period 1). */
Test(strict_cycles, a_graph_in_pieces_has_one_level) {
  size_t teams[] = {3};
  trng rng = {43};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 1, false);
  stp_teg *t = build(m);
  stp_strict_cycles sc;
  init_cycles(&sc, t, 64);
  cr_assert_eq(sc.ncycles, 3);
  cr_assert_eq(sc.level_period, 1);
  stp__strict_cycles_free(&sc);
  stp__teg_free(t);
  stp_mapping_free(m);
}

/* ---- the chain against a plain breadth-first search over bit markings ---- */

typedef struct ref_bfs {
  uint64_t n, nmoves;
  uint64_t *row;    /* n + 1 */
  uint32_t *to, *by; /* per move */
  uint64_t *depth;  /* per state */
} ref_bfs;

static void ref_bfs_run(const stp_teg *t, uint64_t max_states, ref_bfs *r) {
  size_t pw = place_words(t);
  stp_keyset ks;
  stp_error err = {0};
  cr_assert_eq(stp__keyset_init(&ks, pw, max_states, &err), STP_OK);
  uint64_t *bits = calloc(pw, 8), *cur = calloc(pw, 8);
  for (uint64_t e = 0; e < t->g->m; e++)
    if (t->g->tok[e])
      bits[e / 64] |= UINT64_C(1) << (e % 64);
  uint32_t num;
  bool added;
  cr_assert_eq(stp__keyset_add(&ks, bits, stp__keyset_hash(&ks, bits), &num, &added, &err), STP_OK);
  uint64_t cap = 1024;
  *r = (ref_bfs){0};
  r->row = malloc((max_states + 1) * 8);
  r->depth = malloc(max_states * 8);
  r->to = malloc(cap * 4);
  r->by = malloc(cap * 4);
  r->depth[0] = 0;
  for (uint64_t s = 0; s < ks.count; s++) {
    r->row[s] = r->nmoves;
    memcpy(cur, stp__keyset_key(&ks, s), pw * 8);
    for (uint32_t v = 0; v < t->g->n; v++) {
      if (!ref_enabled(t, cur, v))
        continue;
      memcpy(bits, cur, pw * 8);
      ref_fire(t, bits, v);
      cr_assert_eq(stp__keyset_add(&ks, bits, stp__keyset_hash(&ks, bits), &num, &added, &err),
                   STP_OK, "the reference chain exceeds %llu states",
                   (unsigned long long)max_states);
      if (added)
        r->depth[num] = r->depth[s] + 1;
      if (r->nmoves == cap) {
        cap *= 2;
        r->to = realloc(r->to, cap * 4);
        r->by = realloc(r->by, cap * 4);
      }
      r->to[r->nmoves] = num;
      r->by[r->nmoves++] = v;
    }
  }
  r->n = ks.count;
  r->row[r->n] = r->nmoves;
  free(bits);
  free(cur);
  stp__keyset_free(&ks);
}

static void ref_bfs_free(ref_bfs *r) {
  free(r->row);
  free(r->to);
  free(r->by);
  free(r->depth);
}

/* Every move goes one level up: depth(to) = depth(from) + 1 modulo the
 * period (what lets the enumeration split its key set by level). */
static void check_levels(const ref_bfs *r, uint64_t period) {
  for (uint64_t s = 0; s < r->n; s++)
    for (uint64_t e = r->row[s]; e < r->row[s + 1]; e++)
      cr_assert_eq(((int64_t)r->depth[r->to[e]] - (int64_t)r->depth[s] - 1) % (int64_t)period, 0,
                   "move %llu -> %u from depth %llu to depth %llu (period %llu)",
                   (unsigned long long)s, r->to[e], (unsigned long long)r->depth[s],
                   (unsigned long long)r->depth[r->to[e]], (unsigned long long)period);
}

static void check_same_chain(const ref_bfs *r, const stp_chain *c) {
  cr_assert_eq((uint64_t)c->moves->nrows, r->n);
  for (uint64_t s = 0; s <= r->n; s++)
    cr_assert_eq((uint64_t)c->moves->p[s], r->row[s], "row %llu", (unsigned long long)s);
  for (uint64_t e = 0; e < r->nmoves; e++) {
    cr_assert_eq((uint64_t)c->moves->j[e], r->to[e], "move %llu", (unsigned long long)e);
    cr_assert_eq(c->event[e], r->by[e], "move %llu", (unsigned long long)e);
  }
}

/* Checks the chain of m; returns its depth over its period of levels. */
static double check_chain(const stp_mapping *m, uint64_t max_states) {
  stp_teg *t = build(m);
  stp_strict_cycles sc;
  init_cycles(&sc, t, 64);
  ref_bfs r;
  ref_bfs_run(t, max_states, &r);
  check_levels(&r, sc.level_period);
  stp_options o;
  stp_options_init(&o);
  stp_error err = {0};
  for (unsigned bits = 64; bits >= 4; bits /= 4) { /* one word, then several (key set) */
    stp_chain *c;
    cr_assert_eq(stp__strict_chain_packed(m, &o, bits, &c, &err), STP_OK, "%s", err.message);
    check_same_chain(&r, c);
    stp__chain_free(c);
  }
  double depth = (double)r.depth[r.n - 1] / (double)sc.level_period;
  ref_bfs_free(&r);
  stp__strict_cycles_free(&sc);
  stp__teg_free(t);
  return depth;
}

Test(strict_cycles, chain_numbering_matches_a_plain_breadth_first_search) {
  trng rng = {44};
  for (int round = 0; round < 30; round++) {
    tgen p = {.nstages = trng_int(&rng, 1, 3), .max_team = 3, .model = STP_MODEL_STRICT};
    stp_mapping *m = tgen_mapping(&rng, &p);
    check_chain(m, 200000);
    stp_mapping_free(m);
  }
}

/* Teams 3 and 4: R = 12, 36 transitions; big enough for several blocks per
 * depth and for depths beyond one period of levels. */
Test(strict_cycles, a_deeper_chain_matches_too) {
  size_t teams[] = {3, 4};
  trng rng = {45};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 2, false);
  double depths = check_chain(m, 200000);
  cr_assert_gt(depths, 1.0, "the chain is %g periods deep", depths);
  stp_mapping_free(m);
}
