/* strict_cycles.c: the processor cycles of the Strict event graph and the
 * packed token positions of strict_cycles.h.  The cycles are read off the
 * mapping (teg.c builds each processor's cycle from its rows and actions)
 * and every one of their places is looked up among the graph's edges, so
 * that a graph that is not made of one-token cycles covering every place
 * once is refused rather than enumerated wrongly. */
#include "models/pipeline/strict_cycles.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define STP_STRICT_CYCLES_LOCAL 32 /* cycles whose candidates are ranked on the stack */

void stp__strict_cycles_free(stp_strict_cycles *sc) {
  if (!sc)
    return;
  free(sc->len);
  free(sc->word);
  free(sc->shift);
  free(sc->mask);
  free(sc->init);
  free(sc->first);
  free(sc->enters);
  free(sc->place);
  free(sc->cand);
  free(sc->cyc);
  free(sc->pos);
  free(sc->fire_word);
  free(sc->fire_delta);
  memset(sc, 0, sizeof *sc);
}

static uint32_t cycle_count(const stp_teams *tm) {
  uint32_t n = 0;
  for (size_t i = 0; i < tm->nstages; i++)
    n += (uint32_t)stp__teams_size(tm, i);
  return n;
}

static stp_status allocate(stp_strict_cycles *sc, uint64_t places, stp_error *err) {
  uint32_t nc = sc->ncycles, nt = sc->ntrans;
  sc->len = stp__calloc(nc, sizeof *sc->len);
  sc->word = stp__calloc(nc, sizeof *sc->word);
  sc->shift = stp__calloc(nc, sizeof *sc->shift);
  sc->mask = stp__calloc(nc, sizeof *sc->mask);
  sc->init = stp__calloc(nc, sizeof *sc->init);
  sc->first = stp__calloc((size_t)nc + 1, sizeof *sc->first);
  sc->enters = stp__malloc_array((size_t)places + 1, sizeof *sc->enters);
  sc->place = stp__malloc_array((size_t)places + 1, sizeof *sc->place);
  sc->cand = stp__calloc((size_t)places + 1, sizeof *sc->cand);
  sc->cyc = stp__malloc_array(nt, sizeof *sc->cyc);
  sc->pos = stp__calloc(nt, sizeof *sc->pos);
  sc->fire_word = stp__calloc(nt, sizeof *sc->fire_word);
  sc->fire_delta = stp__calloc(nt, sizeof *sc->fire_delta);
  if (!sc->len || !sc->word || !sc->shift || !sc->mask || !sc->init || !sc->first ||
      !sc->enters || !sc->place || !sc->cand || !sc->cyc || !sc->pos || !sc->fire_word || !sc->fire_delta)
    return stp__oom(err, "preparing the Strict markings");
  for (uint32_t t = 0; t < nt; t++)
    sc->cyc[t][0] = sc->cyc[t][1] = NONE;
  return STP_OK;
}

/* The first edge u -> v not used yet (UINT64_MAX if none). */
static uint64_t find_place(const stp_digraph *g, uint32_t u, uint32_t v, const uint8_t *used) {
  for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
    if (g->dst[e] == v && !used[e])
      return e;
  return UINT64_MAX;
}

static stp_status not_cycles(const stp_teg *t, const char *why, stp_error *err) {
  return stp__fail(err, STP_EINTERNAL,
                   "%s: the Strict event graph is not made of one-token processor cycles (%s)",
                   t->map->file, why);
}

/* Cycle c: processor k of team i, over rows k, k + R_i, ... and its actions
 * first..last on each; position x is the place entering its x-th action. */
static stp_status add_cycle(stp_strict_cycles *sc, const stp_teg *t, uint32_t c, size_t i,
                            size_t k, uint8_t *used, stp_error *err) {
  const stp_teams *tm = &t->teams;
  const stp_digraph *g = t->g;
  size_t ri = stp__teams_size(tm, i);
  uint32_t first = i > 0 ? (uint32_t)(2 * i - 1) : (uint32_t)(2 * i);
  uint32_t last = i + 1 < tm->nstages ? (uint32_t)(2 * i + 1) : (uint32_t)(2 * i);
  uint32_t actions = last - first + 1;
  uint64_t len = (t->nrows / ri) * actions;
  sc->len[c] = (uint32_t)len;
  sc->first[c + 1] = sc->first[c] + len;
  uint32_t tokens = 0;
  for (uint64_t x = 0; x < len; x++) {
    uint64_t px = x ? x - 1 : len - 1;
    uint32_t v = (uint32_t)((k + (x / actions) * ri) * t->ncols + first + x % actions);
    uint32_t u = (uint32_t)((k + (px / actions) * ri) * t->ncols + first + px % actions);
    uint64_t e = find_place(g, u, v, used);
    if (e == UINT64_MAX)
      return not_cycles(t, "a place of a cycle is missing", err);
    used[e] = 1;
    sc->enters[sc->first[c] + x] = v;
    sc->place[sc->first[c] + x] = e;
    if (g->tok[e]) {
      tokens += g->tok[e];
      sc->init[c] = (uint32_t)x;
    }
    int slot = sc->cyc[v][0] == NONE ? 0 : 1;
    if (slot == 1 && sc->cyc[v][1] != NONE)
      return not_cycles(t, "a transition on three cycles", err);
    sc->cyc[v][slot] = c;
    sc->pos[v][slot] = (uint32_t)x;
  }
  if (tokens != 1)
    return not_cycles(t, "a cycle without exactly one token", err);
  return STP_OK;
}

/* Bit fields, first fit: a field never straddles two words (nor exceeds
 * word_bits, unless a field alone needs more). */
static void lay_out_fields(stp_strict_cycles *sc, unsigned word_bits) {
  unsigned word = 0, used = 0;
  for (uint32_t c = 0; c < sc->ncycles; c++) {
    unsigned width = stp__ceil_log2(sc->len[c]);
    if (used > 0 && used + width > word_bits) {
      word++;
      used = 0;
    }
    sc->word[c] = word;
    sc->shift[c] = (uint8_t)used;
    sc->mask[c] = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
    used += width;
  }
  sc->words = (size_t)word + 1;
}

/* What moves cycle c's token from position x to the next, added to its word
 * (modulo 2^64: exact, since the field holds x). */
static uint64_t step(const stp_strict_cycles *sc, uint32_t c, uint32_t x) {
  uint64_t next = x + 1 < sc->len[c] ? x + 1 : 0;
  return (next << sc->shift[c]) - ((uint64_t)x << sc->shift[c]);
}

/* The candidate of each (cycle, position): see stp_strict_candidate. */
static void set_candidates(stp_strict_cycles *sc) {
  for (uint32_t c = 0; c < sc->ncycles; c++)
    for (uint64_t x = 0; x < sc->len[c]; x++) {
      stp_strict_candidate *r = &sc->cand[sc->first[c] + x];
      uint32_t t = sc->enters[sc->first[c] + x], c1 = sc->cyc[t][1];
      *r = (stp_strict_candidate){.t = t};
      if (sc->cyc[t][0] != c)
        r->pos = 1; /* found from its first cycle */
      else if (c1 != NONE)
        *r = (stp_strict_candidate){.t = t, .pos = sc->pos[t][1], .word = sc->word[c1],
                                    .shift = sc->shift[c1], .mask = sc->mask[c1]};
    }
}

static stp_status set_firings(stp_strict_cycles *sc, const stp_teg *t, stp_error *err) {
  for (uint32_t v = 0; v < sc->ntrans; v++) {
    uint32_t c0 = sc->cyc[v][0], c1 = sc->cyc[v][1];
    if (c0 == NONE)
      return not_cycles(t, "a transition on no cycle", err);
    sc->fire_word[v][0] = sc->word[c0];
    sc->fire_delta[v][0] = step(sc, c0, sc->pos[v][0]);
    if (c1 == NONE)
      continue;
    uint64_t d = step(sc, c1, sc->pos[v][1]);
    if (sc->word[c1] == sc->word[c0]) {
      sc->fire_delta[v][0] += d;
    } else {
      sc->fire_word[v][1] = sc->word[c1];
      sc->fire_delta[v][1] = d;
    }
  }
  return STP_OK;
}

/* True when the cycles, joined by the transfers they share, form one
 * component: then the graph is connected (every transition and place lies
 * on a cycle, and a cycle is connected). */
static bool connected(const stp_strict_cycles *sc) {
  uint32_t *root = stp__malloc_array(sc->ncycles, sizeof *root);
  if (!root)
    return false; /* only costs speed: one level */
  for (uint32_t c = 0; c < sc->ncycles; c++)
    root[c] = c;
  uint32_t parts = sc->ncycles;
  for (uint32_t t = 0; t < sc->ntrans; t++) {
    if (sc->cyc[t][1] == NONE)
      continue;
    uint32_t a = sc->cyc[t][0], b = sc->cyc[t][1];
    while (root[a] != a)
      a = root[a] = root[root[a]];
    while (root[b] != b)
      b = root[b] = root[root[b]];
    if (a != b) {
      root[a] = b;
      parts--;
    }
  }
  free(root);
  return parts == 1;
}

stp_status stp__strict_cycles_init(stp_strict_cycles *sc, const stp_teg *t, unsigned word_bits,
                                   stp_error *err) {
  const stp_digraph *g = t->g;
  memset(sc, 0, sizeof *sc);
  sc->ncycles = cycle_count(&t->teams);
  sc->ntrans = g->n;
  uint8_t *used = stp__calloc((size_t)g->m + 1, 1);
  stp_status s = used ? allocate(sc, g->m, err) : stp__oom(err, "preparing the Strict markings");
  uint32_t c = 0;
  for (size_t i = 0; s == STP_OK && i < t->teams.nstages; i++)
    for (size_t k = 0; s == STP_OK && k < stp__teams_size(&t->teams, i); k++)
      s = add_cycle(sc, t, c++, i, k, used, err);
  if (s == STP_OK && sc->first[sc->ncycles] != g->m)
    s = not_cycles(t, "a place on no cycle", err);
  if (s == STP_OK) {
    lay_out_fields(sc, word_bits ? word_bits : 64);
    s = set_firings(sc, t, err);
  }
  if (s == STP_OK) {
    set_candidates(sc);
    sc->level_period = connected(sc) ? sc->ntrans : 1;
  }
  free(used);
  if (s != STP_OK)
    stp__strict_cycles_free(sc);
  return s;
}

void stp__strict_cycles_pack(const stp_strict_cycles *sc, const uint32_t *position,
                             uint64_t *key) {
  memset(key, 0, sc->words * sizeof *key);
  for (uint32_t c = 0; c < sc->ncycles; c++)
    key[sc->word[c]] |= (uint64_t)position[c] << sc->shift[c];
}

uint32_t stp__strict_cycles_enabled(const stp_strict_cycles *sc, const uint64_t *m,
                                    uint32_t *out) {
  uint32_t n = 0, found[STP_STRICT_CYCLES_LOCAL];
  uint32_t *f = sc->ncycles <= STP_STRICT_CYCLES_LOCAL ? found : out;
  for (uint32_t c = 0; c < sc->ncycles; c++) {
    const stp_strict_candidate *r = &sc->cand[sc->first[c] + stp__strict_cycles_at(sc, m, c)];
    f[n] = r->t;
    n += ((m[r->word] >> r->shift) & r->mask) == r->pos;
  }
  if (f == out) { /* many cycles: insertion sort in place */
    for (uint32_t i = 1; i < n; i++) {
      uint32_t t = out[i], k = i;
      for (; k > 0 && out[k - 1] > t; k--)
        out[k] = out[k - 1];
      out[k] = t;
    }
    return n;
  }
  for (uint32_t i = 0; i < n; i++) { /* each to its rank, without a branch to mispredict */
    uint32_t rank = 0;
    for (uint32_t j = 0; j < n; j++)
      rank += found[j] < found[i];
    out[rank] = found[i];
  }
  return n;
}

/* True when every cycle of transition u has its token just before u. */
static bool all_before(const stp_strict_cycles *sc, const uint64_t *m, uint32_t u) {
  for (int k = 0; k < 2 && sc->cyc[u][k] != NONE; k++)
    if (stp__strict_cycles_at(sc, m, sc->cyc[u][k]) != sc->pos[u][k])
      return false;
  return true;
}

uint32_t stp__strict_cycles_enabled_after(const stp_strict_cycles *sc, const uint32_t *before,
                                          uint32_t n, uint32_t t, const uint64_t *next,
                                          uint32_t *out) {
  uint32_t add[2], na = 0;
  for (int k = 0; k < 2 && sc->cyc[t][k] != NONE; k++) {
    uint32_t c = sc->cyc[t][k];
    uint32_t u = sc->enters[sc->first[c] + stp__strict_cycles_at(sc, next, c)];
    if ((na == 0 || add[0] != u) && all_before(sc, next, u))
      add[na++] = u;
  }
  if (na == 2 && add[0] > add[1]) {
    uint32_t x = add[0];
    add[0] = add[1];
    add[1] = x;
  }
  uint32_t o = 0, a = 0;
  for (uint32_t i = 0; i < n; i++) { /* merge: before without t, and add */
    if (before[i] == t)
      continue;
    while (a < na && add[a] < before[i])
      out[o++] = add[a++];
    out[o++] = before[i];
  }
  while (a < na)
    out[o++] = add[a++];
  return o;
}

void stp__strict_cycles_unpack(const stp_strict_cycles *sc, const uint64_t *m, uint64_t *places) {
  memset(places, 0, (size_t)((sc->first[sc->ncycles] + 63) / 64) * sizeof *places);
  for (uint32_t c = 0; c < sc->ncycles; c++) {
    uint64_t e = sc->place[sc->first[c] + stp__strict_cycles_at(sc, m, c)];
    places[e / 64] |= UINT64_C(1) << (e % 64);
  }
}
