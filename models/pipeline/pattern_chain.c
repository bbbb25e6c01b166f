/* pattern_chain.c: the Markov chain of a folded u x v transfer pattern
 * (docs/design.md 4, paper section 5.2, fig. 8-9), enumerated and ranked
 * directly, without a hash table.
 *
 * Unfold the pattern: data set t uses transition t mod uv and may go once
 * t-u (same sender) and t-v (same receiver) are done.  With a = min(u, v)
 * and b = max(u, v) (the pattern is symmetric in u and v with the same
 * labels k), put data set t at every point (x, y) of Z^2 with
 * t = x*b + y*a: t-a is (x, y-1) and t-b is (x-1, y), so the completed data
 * sets form a down-set of Z^2, periodic under (x, y) -> (x+a, y-b).  Its
 * border is a staircase: column heights h(x), non-increasing, with
 * h(x+a) = h(x) - b.  Modulo a shift of every h by b (t by ab, the folding),
 * a state is
 *   y0 = h(0) mod b   and   d_x = h(x-1) - h(x) >= 0 for x = 1..a,
 * with d_1 + ... + d_a = b: b chips on a ring of a sites.  Column x can
 * fire (the cell (x, h(x)+1), transition k = (x*b + (h(x)+1)*a) mod ab)
 * when d_x > 0 (d_0 = d_a): one chip moves from site x to site x+1, and
 * for x = 0 the counter y0 advances.  Hence S(u, v) = b * C(a+b-1, a-1)
 * states (the paper's count, as pairs of Young diagrams).
 *
 * A composition d is the word of b stars and a-1 bars "d_1 stars | d_2
 * stars | ... | d_a stars"; it is ranked by the positions p_1 < ... <
 * p_(a-1) of its bars in the combinatorial number system (rank = sum of
 * C(p_i, i)), and state (y0, d) gets index y0 * C(a+b-1, a-1) + rank.  A
 * move x >= 1 swaps bar x with the star before it; move 0 rotates the word
 * (its last star becomes the first letter).  Both change the rank by a few
 * binomials, so every row of the generator is written in O(a).
 *
 * Two routes share the ranking.  stp__pattern_chain writes the general
 * stp_chain in rank order (for `ctmc`'s exports and solvers).  The
 * throughput (stp__pattern_exp_rate) writes the compact store of
 * engine/densechain.h and solves it in place by the level-order sweep: the
 * states are numbered level by level (the data sets completed mod ab, the
 * levels of that sweep), so that a target's number is the first number of
 * the next level plus its composition's place in its class, read from an
 * array over the compositions; no search, no index over the states.  The
 * rows are the same and the levels are those a breadth-first numbering
 * gives, so the stationary vector is the same up to the order of its
 * sums. */
#include "base/core.h"
#include "engine/distchain.h"
#include "engine/densechain.h"
#include "models/pipeline/pattern_chain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pattern_space {
  size_t a, b;    /* ring sites and chips: min(u, v), max(u, v) */
  size_t bars;    /* a - 1 */
  size_t len;     /* a + b - 1 letters */
  int64_t words;  /* C(len, bars) */
  int64_t states; /* b * words */
  int64_t *binom; /* binom[p * (bars + 1) + i] = C(p, i) for p <= len, i <= bars */
} pattern_space;

static inline int64_t binom(const pattern_space *ps, size_t p, size_t i) {
  return ps->binom[p * (ps->bars + 1) + i];
}

/* C(n, k) exactly, or false above 2^63 (k <= n/2 keeps the terms small). */
static bool binomial_u64(uint64_t n, uint64_t k, uint64_t *out) {
  if (k > n - k)
    k = n - k;
  unsigned __int128 c = 1;
  for (uint64_t i = 0; i < k; i++) {
    c = c * (n - i) / (i + 1); /* exact: c * (n-i) is divisible by i+1 */
    if (c > (unsigned __int128)INT64_MAX)
      return false;
  }
  *out = (uint64_t)c;
  return true;
}

bool stp__pattern_state_count(size_t u, size_t v, uint64_t *out) {
  uint64_t words;
  if (u == 0 || v == 0 || !binomial_u64((uint64_t)u + v - 1, u - 1, &words))
    return false;
  return stp__mul_u64(words, v, out) && *out <= (uint64_t)INT64_MAX;
}

static stp_status space_init(pattern_space *ps, size_t u, size_t v, stp_error *err) {
  memset(ps, 0, sizeof *ps);
  ps->a = u < v ? u : v;
  ps->b = u < v ? v : u;
  ps->bars = ps->a - 1;
  ps->len = ps->a + ps->b - 1;
  uint64_t words;
  if (!binomial_u64(ps->len, ps->bars, &words))
    return stp__fail(err, STP_ELIMIT, "the pattern is too large to index");
  ps->words = (int64_t)words;
  ps->states = (int64_t)(words * ps->b);
  /* bars <= len / 2, so every C(p, i) here is at most C(len, bars). */
  ps->binom = stp__malloc_array((ps->len + 1) * (ps->bars + 1), sizeof *ps->binom);
  if (!ps->binom)
    return stp__oom(err, "indexing the pattern's states");
  for (size_t p = 0; p <= ps->len; p++)
    for (size_t i = 0; i <= ps->bars; i++)
      ps->binom[p * (ps->bars + 1) + i] =
          i == 0 ? 1 : p == 0 ? 0 : binom(ps, p - 1, i - 1) + binom(ps, p - 1, i);
  return STP_OK;
}

/* Next set of bar positions in colex order (the rank order); pos[0] = -1
 * and pos[bars + 1] = len are sentinels. */
static void next_combination(int64_t *pos, size_t bars) {
  for (size_t i = 1; i <= bars; i++) {
    if (pos[i] + 1 < pos[i + 1]) {
      pos[i]++;
      for (size_t r = 1; r < i; r++)
        pos[r] = (int64_t)r - 1;
      return;
    }
  }
}

/* Transition fired by column x when its height is h: k = (x*b + (h+1)*a) mod ab. */
static uint32_t fired(const pattern_space *ps, size_t x, int64_t h) {
  int64_t b = (int64_t)ps->b, y = ((h + 1) % b + b) % b;
  return (uint32_t)(((uint64_t)x * ps->b + (uint64_t)y * ps->a) % ((uint64_t)ps->a * ps->b));
}

typedef struct row_writer {
  stp_chain *c;
  const double *times;
  int64_t at, cap; /* next move, room (the count of moves, known in advance) */
} row_writer;

static inline void emit(row_writer *w, int64_t to, uint32_t k) {
  if (w->at < w->cap) {
    w->c->moves->j[w->at] = to;
    w->c->moves->x[w->at] = 1.0 / w->times[k];
    w->c->event[w->at] = k;
  }
  w->at++; /* counted beyond the room too, for the check in fill_chain */
}

/* The row of state (y0, pos) with rank `rank`. */
static void write_row(const pattern_space *ps, int64_t y0, const int64_t *pos, int64_t rank,
                      row_writer *w) {
  int64_t b = (int64_t)ps->b, len = (int64_t)ps->len;
  /* Move 0: the last letter is a star; every bar moves one place right. */
  if (ps->bars == 0 || pos[ps->bars] < len - 1) {
    int64_t r = 0;
    for (size_t i = 1; i <= ps->bars; i++)
      r += binom(ps, (size_t)pos[i] + 1, i);
    emit(w, ((y0 + 1) % b) * ps->words + r, fired(ps, 0, y0));
  }
  for (size_t x = 1; x <= ps->bars; x++) {
    int64_t h = y0 - (pos[x] - (int64_t)(x - 1)); /* stars before bar x */
    if (pos[x] - 1 > pos[x - 1]) /* a star just before bar x: d_x > 0 */
      emit(w,
           y0 * ps->words + rank - binom(ps, (size_t)pos[x], x) +
               binom(ps, (size_t)pos[x] - 1, x),
           fired(ps, x, h));
  }
}

static stp_status fill_chain(const pattern_space *ps, const double *times, int64_t nmoves,
                             stp_chain *c, stp_error *err) {
  int64_t *pos = stp__malloc_array(ps->bars + 2, sizeof *pos);
  if (!pos)
    return stp__oom(err, "enumerating the pattern's states");
  row_writer w = {.c = c, .times = times, .at = 0, .cap = nmoves};
  int64_t s = 0;
  for (int64_t y0 = 0; y0 < (int64_t)ps->b; y0++) {
    pos[0] = -1;
    for (size_t i = 1; i <= ps->bars; i++)
      pos[i] = (int64_t)i - 1;
    pos[ps->bars + 1] = (int64_t)ps->len;
    for (int64_t rank = 0; rank < ps->words; rank++, s++) {
      c->moves->p[s] = w.at < w.cap ? w.at : w.cap;
      write_row(ps, y0, pos, rank, &w);
      next_combination(pos, ps->bars);
    }
  }
  c->moves->p[s] = w.at < w.cap ? w.at : w.cap;
  free(pos);
  if (w.at != w.cap)
    return stp__fail(err, STP_EINTERNAL, "pattern chain: %lld moves generated, %lld expected",
                     (long long)w.at, (long long)w.cap);
  return STP_OK;
}

/* Moves: each of the a sites holds a chip in b * C(len-1, bars) states
 * (for u = v = 1, one move from the only state back to itself). */
static int64_t move_count(const pattern_space *ps) {
  return binom(ps, ps->len - 1, ps->bars) * (int64_t)(ps->a * ps->b);
}

/* ---- the dense route: states numbered level by level ------------------------- */

/* Each move completes one data set, so a state's count of completed data
 * sets mod ab is its level, and the moves go from level phi to phi + 1 mod
 * ab (the chain's period is ab: a cycle returns to the same staircase,
 * shifted by whole folds of ab data sets, and firing every cell of one fold
 * is such a cycle).  Counting from state 0 (y0 = 0, the bars first),
 *   phi = a*y0 - c (mod ab),  c = D_1 + ... + D_(a-1),
 * where D_x = d_1 + ... + d_x is the count of stars before bar x.  So level
 * phi holds the compositions with c = -phi (mod a), each once, with
 * y0 = ((phi + c) mod ab) / a, and the level order of the breadth-first
 * search (its depth mod ab) is phi.  States are numbered level by level,
 * each level's compositions in rank order: the number of a target is the
 * first number of the next level plus the target composition's place in
 * its class, read from an array over the compositions (b times fewer than
 * the states), with no lookup per state. */

/* The bar positions of a rank (colex: the largest binomial first). */
static void unrank(const pattern_space *ps, int64_t rank, int64_t *pos) {
  size_t p = ps->len;
  for (size_t i = ps->bars; i >= 1; i--) {
    do
      p--;
    while (binom(ps, p, i) > rank);
    pos[i] = (int64_t)p;
    rank -= binom(ps, p, i);
  }
}

/* The bit mask of the bar positions. */
static uint64_t bar_mask(const pattern_space *ps, const int64_t *pos) {
  uint64_t m = 0;
  for (size_t i = 1; i <= ps->bars; i++)
    m |= UINT64_C(1) << pos[i];
  return m;
}

typedef struct level_space {
  const pattern_space *ps;
  uint64_t ab;
  uint64_t *first;   /* a + 1: where each class (c mod a) starts in member */
  int64_t *member;   /* words: the ranks, class by class, in rank order */
  uint64_t *mask;    /* words, as member: the bar mask (len <= 64), else NULL */
  uint32_t *csum;    /* words, as member: c mod ab */
  uint32_t *place;   /* per rank: its position within its class */
  uint64_t *offset;  /* ab: first state of each level */
  uint32_t *label;   /* a * b: the transition fired by column x at y = h + 1 mod b */
} level_space;

static void levels_free(level_space *ls) {
  free(ls->first);
  free(ls->member);
  free(ls->mask);
  free(ls->csum);
  free(ls->place);
  free(ls->offset);
  free(ls->label);
}

/* c mod ab of the composition whose bars are at pos (stars before bar x:
 * pos[x] - (x - 1)). */
static uint64_t star_sum(const pattern_space *ps, const int64_t *pos, uint64_t ab) {
  uint64_t c = 0;
  for (size_t x = 1; x <= ps->bars; x++)
    c += (uint64_t)(pos[x] - (int64_t)(x - 1));
  return c % ab;
}

static void first_combination(const pattern_space *ps, int64_t *pos) {
  pos[0] = -1;
  for (size_t i = 1; i <= ps->bars; i++)
    pos[i] = (int64_t)i - 1;
  pos[ps->bars + 1] = (int64_t)ps->len;
}

/* The classes of the compositions and the levels' first states: two passes
 * over the compositions in rank order. */
static stp_status levels_init(level_space *ls, const pattern_space *ps, int64_t *pos,
                              stp_error *err) {
  size_t a = ps->a, b = ps->b, words = (size_t)ps->words;
  memset(ls, 0, sizeof *ls);
  ls->ps = ps;
  ls->ab = (uint64_t)a * b;
  ls->first = stp__calloc(a + 1, sizeof *ls->first);
  ls->member = stp__malloc_array(words, sizeof *ls->member);
  ls->mask = ps->len <= 64 ? stp__malloc_array(words, sizeof *ls->mask) : NULL;
  ls->csum = stp__malloc_array(words, sizeof *ls->csum);
  ls->place = stp__malloc_array(words, sizeof *ls->place);
  ls->offset = stp__malloc_array((size_t)ls->ab, sizeof *ls->offset);
  ls->label = stp__malloc_array((size_t)ls->ab, sizeof *ls->label);
  if (!ls->first || !ls->member || (ps->len <= 64 && !ls->mask) || !ls->csum || !ls->place ||
      !ls->offset || !ls->label)
    return stp__oom(err, "numbering the pattern's states");
  first_combination(ps, pos);
  for (size_t r = 0; r < words; r++, next_combination(pos, ps->bars)) {
    size_t cls = (size_t)(star_sum(ps, pos, ls->ab) % a);
    ls->place[r] = (uint32_t)ls->first[cls + 1]++; /* first[cls + 1] counts class cls */
  }
  for (size_t cls = 0; cls < a; cls++)
    ls->first[cls + 1] += ls->first[cls];
  first_combination(ps, pos);
  for (size_t r = 0; r < words; r++, next_combination(pos, ps->bars)) {
    uint64_t c = star_sum(ps, pos, ls->ab);
    size_t at = (size_t)(ls->first[c % a] + ls->place[r]);
    ls->member[at] = (int64_t)r;
    ls->csum[at] = (uint32_t)c;
    if (ls->mask)
      ls->mask[at] = bar_mask(ps, pos);
  }
  for (uint64_t phi = 0, n = 0; phi < ls->ab; phi++) {
    size_t cls = (size_t)((a - phi % a) % a);
    ls->offset[phi] = n;
    n += ls->first[cls + 1] - ls->first[cls];
  }
  for (size_t x = 0; x < a; x++)
    for (size_t y = 0; y < b; y++)
      ls->label[x * b + y] = (uint32_t)((x * b + y * a) % ls->ab);
  return STP_OK;
}

/* The transition fired by column x at height h + 1 = y0 - D_x + 1
 * (-b < y0 - D_x + 1 <= b). */
static inline uint32_t level_label(const level_space *ls, size_t x, int64_t y) {
  int64_t b = (int64_t)ls->ps->b;
  y = y < 0 ? y + b : y >= b ? y - b : y;
  return ls->label[x * (size_t)b + (size_t)y];
}

/* The row of the state of level phi whose composition is member j (bars at
 * pos), as write_row writes it: the same moves in the same order. */
static stp_status level_row(const level_space *ls, uint64_t phi, size_t j, const int64_t *pos,
                            stp_movestore *ms, bool new_band, stp_error *err) {
  const pattern_space *ps = ls->ps;
  int64_t len = (int64_t)ps->len, rank = ls->member[j];
  int64_t y0 = (int64_t)(((phi + ls->csum[j]) % ls->ab) / ps->a);
  uint64_t next = phi + 1 == ls->ab ? 0 : phi + 1;
  uint32_t base = (uint32_t)ls->offset[next];
  uint64_t start = ms->nmoves;
  if (ps->bars == 0 || pos[ps->bars] < len - 1) { /* move 0: every bar one place right */
    int64_t r = 0;
    for (size_t i = 1; i <= ps->bars; i++)
      r += binom(ps, (size_t)pos[i] + 1, i);
    STP_CHECK(stp__movestore_push(ms, base + ls->place[r], level_label(ls, 0, y0 + 1), err));
  }
  for (size_t x = 1; x <= ps->bars; x++) /* move x: bar x one place left, if d_x > 0 */
    if (pos[x] - 1 > pos[x - 1]) {
      int64_t r = rank - binom(ps, (size_t)pos[x], x) + binom(ps, (size_t)pos[x] - 1, x);
      int64_t h = y0 - (pos[x] - (int64_t)(x - 1));
      STP_CHECK(stp__movestore_push(ms, base + ls->place[r], level_label(ls, x, h + 1), err));
    }
  return stp__movestore_end_row(ms, start, new_band, err);
}

/* Every row, level by level; a level is a band of the store. */
static stp_status level_rows(const level_space *ls, int64_t *pos, const stp_options *o,
                             stp_dense_chain *dc, stp_error *err) {
  const pattern_space *ps = ls->ps;
  double t0 = stp__now();
  for (uint64_t phi = 0; phi < ls->ab; phi++) {
    size_t cls = (size_t)((ps->a - phi % ps->a) % ps->a);
    for (size_t j = (size_t)ls->first[cls]; j < ls->first[cls + 1]; j++) {
      if (dc->ms.nstates % 1024 == 0) {
        stp__progress(&o->control, "the pattern's states", dc->ms.nstates, (uint64_t)ps->states, t0);
        if (stp__cancelled(&o->control.cancel))
          return stp__fail(err, STP_EINTERRUPTED,
                           "interrupted while enumerating the pattern's states");
      }
      if (ls->mask) {
        uint64_t m = ls->mask[j];
        for (size_t i = 1; i <= ps->bars; i++, m &= m - 1)
          pos[i] = __builtin_ctzll(m);
      } else {
        unrank(ps, ls->member[j], pos);
      }
      STP_CHECK(level_row(ls, phi, j, pos, &dc->ms, j == ls->first[cls], err));
    }
    dc->depth = phi;
  }
  dc->expanded = dc->ms.nstates;
  return STP_OK;
}

/* The chain of the pattern in its compact store. */
static stp_status dense_pattern(const pattern_space *ps, const double *times, size_t nlabels,
                                const stp_options *o, stp_dense_chain *dc, stp_error *err) {
  memset(dc, 0, sizeof *dc);
  double t0 = stp__now();
  if ((uint64_t)ps->states > STP_KEYSET_MAX)
    return stp__fail(err, STP_ELIMIT, "the pattern's chain has %lld states, more than 32-bit "
                     "state numbers take", (long long)ps->states);
  double *rate = stp__malloc_array(nlabels, sizeof *rate);
  int64_t *pos = stp__malloc_array(ps->bars + 2, sizeof *pos);
  level_space ls = {0};
  stp_status s = rate && pos ? STP_OK : stp__oom(err, "enumerating the pattern's states");
  for (size_t k = 0; s == STP_OK && k < nlabels; k++)
    rate[k] = 1.0 / times[k];
  if (s == STP_OK)
    s = stp__movestore_init(&dc->ms, (uint32_t)nlabels, rate, err);
  if (s == STP_OK)
    s = levels_init(&ls, ps, pos, err);
  if (s == STP_OK) {
    pos[0] = -1;
    pos[ps->bars + 1] = (int64_t)ps->len;
    s = level_rows(&ls, pos, o, dc, err);
  }
  if (s == STP_OK && dc->ms.nstates != (uint64_t)ps->states)
    s = stp__fail(err, STP_EINTERNAL, "pattern chain: %llu states written, %lld expected",
                  (unsigned long long)dc->ms.nstates, (long long)ps->states);
  levels_free(&ls);
  free(rate);
  free(pos);
  dc->seconds = stp__now() - t0;
  return s;
}

static stp_status check_pattern(size_t u, size_t v, const double *times, uint64_t max_states,
                                stp_error *err) {
  if (u == 0 || v == 0 || stp__gcd_u64(u, v) != 1)
    return stp__fail(err, STP_EINVAL, "a %zu x %zu transfer pattern needs gcd(u, v) = 1", u, v);
  uint64_t states = 0;
  if (!stp__pattern_state_count(u, v, &states) || states > max_states) {
    double approx = exp(lgamma((double)(u + v)) - lgamma((double)u) - lgamma((double)v));
    uint64_t need = states > max_states ? states : stp__u64_sat(approx);
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, need, max_states, need},
                           "the %zu x %zu pattern's Markov chain has %.4g states, above the "
                           "limit of %llu",
                           u, v, approx, (unsigned long long)max_states);
  }
  if ((uint64_t)u * v > UINT32_MAX)
    return stp__fail(err, STP_ELIMIT, "the %zu x %zu pattern has too many transitions", u, v);
  for (size_t k = 0; k < u * v; k++)
    if (!(times[k] > 0) || !isfinite(times[k]))
      return stp__fail(err, STP_EINVAL, "transition %zu of the pattern has mean time %g",
                       k, times[k]);
  return STP_OK;
}

stp_status stp__pattern_chain(size_t u, size_t v, const double *times, uint64_t max_states,
                              stp_chain **out, stp_error *err) {
  *out = NULL;
  STP_CHECK(check_pattern(u, v, times, max_states, err));
  double t0 = stp__now();
  pattern_space ps = {0};
  stp_chain *c = calloc(1, sizeof *c);
  if (c)
    c->scale = 1;
  stp_status s = c ? space_init(&ps, u, v, err) : stp__oom(err, "building a pattern chain");
  int64_t nmoves = 0;
  if (s == STP_OK) {
    nmoves = move_count(&ps);
    c->nevents = (uint32_t)(u * v);
    c->event = stp__malloc_array((size_t)nmoves, sizeof *c->event);
    c->counted = stp__malloc_array(c->nevents, sizeof *c->counted);
    s = c->event && c->counted
            ? stp__csr_alloc(ps.states, ps.states, nmoves, &c->moves, err)
            : stp__oom(err, "building a pattern chain");
  }
  if (s == STP_OK) {
    memset(c->counted, 1, c->nevents); /* every firing carries one data set */
    s = fill_chain(&ps, times, nmoves, c, err);
  }
  free(ps.binom);
  if (s != STP_OK) {
    stp__chain_free(c);
    return s;
  }
  c->seconds_build = stp__now() - t0;
  *out = c;
  return STP_OK;
}

static stp_status over_budget(size_t u, size_t v, const pattern_space *ps, double bytes,
                              uint64_t budget, stp_error *err) {
  if (bytes <= (double)budget)
    return STP_OK;
  uint64_t need = stp__u64_sat(bytes);
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, need, budget, need},
                         "the %zu x %zu pattern's Markov chain (%lld states) would need about "
                         "%.3g GiB, above the memory budget of %.3g GiB",
                         u, v, (long long)ps->states, bytes / 1073741824.0,
                         (double)budget / 1073741824.0);
}

/* Bytes of the general chain (rows, moves with their events) and of its
 * solve (about four vectors of states), from the exact counts, before
 * building. */
stp_status stp__pattern_check_memory(size_t u, size_t v, uint64_t budget, stp_error *err) {
  pattern_space ps;
  if (u == 0 || v == 0 || space_init(&ps, u, v, err) != STP_OK)
    return STP_OK; /* check_pattern says what is wrong */
  double bytes = (double)ps.states * 8 * 5 + (double)move_count(&ps) * (8 + 8 + 4);
  free(ps.binom);
  return over_budget(u, v, &ps, bytes, budget, err);
}

/* Bytes of the dense route likewise: while enumerating, the out-degrees (2
 * per state), the moves (5: a 32-bit target and a one-byte label; 6 beyond
 * 256 transitions) and 24 per composition (b times fewer than the states);
 * while solving, the moves, the out-degrees, the iterate (8) and, at
 * worst, the irreducibility check's transpose (13 per state, 4 per move:
 * only where its passes over a bitset do not settle). */
static stp_status dense_check_memory(size_t u, size_t v, uint64_t budget, stp_error *err) {
  pattern_space ps;
  if (u == 0 || v == 0 || space_init(&ps, u, v, err) != STP_OK)
    return STP_OK;
  double states = (double)ps.states, moves = (double)move_count(&ps);
  double move = u * v <= 256 ? 5 : u * v <= 65536 ? 6 : 8;
  double enumerate = states * 2 + moves * move + (double)ps.words * 24;
  double solve = states * (2 + 8 + 13) + moves * (move + 4);
  free(ps.binom);
  return over_budget(u, v, &ps, enumerate > solve ? enumerate : solve, budget, err);
}

/* ---- across MPI ranks (engine/distchain.h) --------------------------------------------
 * A state's key is its index y0 * words + rank; its successors are the
 * moves of write_row, in the same order with the same labels. */

typedef struct pattern_source {
  const pattern_space *ps;
  int64_t *pos; /* bars + 2, with the sentinels */
} pattern_source;

static stp_status pattern_successors(void *ctx, const uint64_t *key, stp_dense_row *row,
                                     stp_error *err) {
  const pattern_source *p = ctx;
  const pattern_space *ps = p->ps;
  int64_t y0 = (int64_t)(key[0] / (uint64_t)ps->words), rank = (int64_t)(key[0] % (uint64_t)ps->words);
  int64_t b = (int64_t)ps->b, len = (int64_t)ps->len, *pos = p->pos;
  first_combination(ps, pos);
  unrank(ps, rank, pos);
  uint64_t *next;
  if (ps->bars == 0 || pos[ps->bars] < len - 1) { /* move 0: every bar one place right */
    int64_t r = 0;
    for (size_t i = 1; i <= ps->bars; i++)
      r += binom(ps, (size_t)pos[i] + 1, i);
    if (!(next = stp__dense_row_next(row)))
      return stp__oom(err, "enumerating the pattern's states");
    *next = (uint64_t)(((y0 + 1) % b) * ps->words + r);
    stp__dense_row_add(row, fired(ps, 0, y0));
  }
  for (size_t x = 1; x <= ps->bars; x++) {
    if (pos[x] - 1 <= pos[x - 1])
      continue; /* no star just before bar x */
    int64_t h = y0 - (pos[x] - (int64_t)(x - 1));
    if (!(next = stp__dense_row_next(row)))
      return stp__oom(err, "enumerating the pattern's states");
    *next = (uint64_t)(y0 * ps->words + rank - binom(ps, (size_t)pos[x], x) +
                       binom(ps, (size_t)pos[x] - 1, x));
    stp__dense_row_add(row, fired(ps, x, h));
  }
  return STP_OK;
}

static stp_status pattern_distributed(size_t u, size_t v, const double *times,
                                      const stp_options *o, double *rate, stp_ctmc_info *info,
                                      stp_error *err) {
  STP_CHECK(check_pattern(u, v, times, o->max_states, err));
  pattern_space ps;
  STP_CHECK(space_init(&ps, u, v, err));
  pattern_source p = {.ps = &ps, .pos = stp__malloc_array(ps.bars + 2, sizeof *p.pos)};
  double *rates = stp__malloc_array(u * v, sizeof *rates);
  uint8_t *counted = stp__malloc_array(u * v, 1);
  stp_status s = p.pos && rates && counted ? STP_OK : stp__oom(err, "building a pattern chain");
  if (s == STP_OK) {
    for (size_t k = 0; k < u * v; k++)
      rates[k] = 1.0 / times[k];
    memset(counted, 1, u * v); /* every firing carries one data set */
    uint64_t start = 0;        /* y0 = 0, the bars first: state 0 of write_row's order */
    stp_dense_source src = {.words = 1, .initial = &start, .nlabels = (uint32_t)(u * v),
                            .rate = rates, .expand = pattern_successors, .ctx = &p,
                            .max_states = o->max_states, .control = &o->control,
                            .what = "enumerating a pattern's states (distributed)",
                            .estimate = (uint64_t)ps.states};
    s = stp__dist_rate(&src, counted, o, rate, info, err);
  }
  free(p.pos);
  free(rates);
  free(counted);
  free(ps.binom);
  return s;
}

stp_status stp__pattern_exp_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_ctmc_info *info, stp_error *err) {
  if (o->distributed)
    return pattern_distributed(u, v, times, o, rate, info, err);
  STP_CHECK(dense_check_memory(u, v, stp_options_memory_budget(o), err));
  STP_CHECK(check_pattern(u, v, times, o->max_states, err));
  pattern_space ps;
  STP_CHECK(space_init(&ps, u, v, err));
  stp_dense_chain dc = {0};
  uint8_t *counted = stp__malloc_array(u * v, 1);
  stp_status s = counted ? dense_pattern(&ps, times, u * v, o, &dc, err)
                         : stp__oom(err, "building a pattern chain");
  free(ps.binom);
  if (s == STP_OK) {
    memset(counted, 1, u * v); /* every firing carries one data set */
    s = stp__dense_rate(&dc, counted, o, rate, info, err);
  }
  stp__dense_chain_free(&dc);
  free(counted);
  return s;
}
