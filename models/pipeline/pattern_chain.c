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
 * throughput (stp__pattern_exp_rate) takes the dense route of
 * engine/densechain.h: the states are numbered breadth first from state 0
 * through the index of their ranks (no hash table: 4 bytes per state, and
 * 8 for the rank of each number while enumerating), the moves go to the
 * compact store and the level-order sweep solves in place.  A key is the
 * rank and, while the word has at most 64 letters, the bars as a bit mask,
 * so that a row is written from the mask (longer words are unranked, in
 * O(a + b)).  The rows are the same; only the numbering differs, so the
 * stationary vector is the same up to the order of its sums. */
#include "base/core.h"
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

/* ---- the dense route ---------------------------------------------------------- */

/* The bar positions of a rank (colex: the largest binomial first). */
static void unrank(const pattern_space *ps, int64_t rank, int64_t *pos) {
  pos[0] = -1;
  pos[ps->bars + 1] = (int64_t)ps->len;
  size_t p = ps->len;
  for (size_t i = ps->bars; i >= 1; i--) {
    do
      p--;
    while (binom(ps, p, i) > rank);
    pos[i] = (int64_t)p;
    rank -= binom(ps, p, i);
  }
}

typedef struct dense_ctx {
  const pattern_space *ps;
  int64_t *pos;
  bool masks; /* keys carry the bar positions as a bit mask (len <= 64) */
} dense_ctx;

/* The bit mask of the bar positions. */
static uint64_t bar_mask(const pattern_space *ps, const int64_t *pos) {
  uint64_t m = 0;
  for (size_t i = 1; i <= ps->bars; i++)
    m |= UINT64_C(1) << pos[i];
  return m;
}

static inline stp_status dense_emit(const dense_ctx *d, stp_dense_row *row, int64_t to,
                                    uint64_t mask, uint32_t k, stp_error *err) {
  uint64_t *key = stp__dense_row_next(row);
  if (!key)
    return stp__oom(err, "enumerating the pattern's states");
  key[0] = (uint64_t)to;
  if (d->masks)
    key[1] = mask;
  stp__dense_row_add(row, k);
  return STP_OK;
}

/* The row of state key[0], as write_row writes it (the same moves in the
 * same order).  Its bars come from the mask in key[1] when there is one
 * (a few word operations), else from unranking. */
static stp_status dense_successors(void *ctx, const uint64_t *key, stp_dense_row *row,
                                   stp_error *err) {
  const dense_ctx *d = ctx;
  const pattern_space *ps = d->ps;
  int64_t *pos = d->pos, b = (int64_t)ps->b, len = (int64_t)ps->len;
  int64_t y0 = (int64_t)key[0] / ps->words, rank = (int64_t)key[0] % ps->words;
  uint64_t mask = 0;
  if (d->masks) {
    mask = key[1];
    pos[0] = -1;
    pos[ps->bars + 1] = len;
    uint64_t m = mask;
    for (size_t i = 1; i <= ps->bars; i++, m &= m - 1)
      pos[i] = __builtin_ctzll(m);
  } else {
    unrank(ps, rank, pos);
  }
  if (ps->bars == 0 || pos[ps->bars] < len - 1) { /* move 0: every bar one place right */
    int64_t r = 0;
    for (size_t i = 1; i <= ps->bars; i++)
      r += binom(ps, (size_t)pos[i] + 1, i);
    STP_CHECK(dense_emit(d, row, ((y0 + 1) % b) * ps->words + r, mask << 1, fired(ps, 0, y0),
                         err));
  }
  for (size_t x = 1; x <= ps->bars; x++) { /* move x: bar x one place left */
    int64_t h = y0 - (pos[x] - (int64_t)(x - 1));
    if (pos[x] - 1 > pos[x - 1])
      STP_CHECK(dense_emit(d, row,
                           y0 * ps->words + rank - binom(ps, (size_t)pos[x], x) +
                               binom(ps, (size_t)pos[x] - 1, x),
                           d->masks ? mask ^ (UINT64_C(3) << (pos[x] - 1)) : 0,
                           fired(ps, x, h), err));
  }
  return STP_OK;
}

/* The chain of the pattern enumerated into its compact store. */
static stp_status dense_pattern(const pattern_space *ps, const double *times, size_t nlabels,
                                const stp_options *o, stp_dense_chain *dc, stp_error *err) {
  double *rate = stp__malloc_array(nlabels, sizeof *rate);
  int64_t *pos = stp__malloc_array(ps->bars + 2, sizeof *pos);
  stp_status s = rate && pos ? STP_OK : stp__oom(err, "enumerating the pattern's states");
  for (size_t k = 0; s == STP_OK && k < nlabels; k++)
    rate[k] = 1.0 / times[k];
  if (s == STP_OK) {
    dense_ctx ctx = {ps, pos, ps->len <= 64};
    uint64_t first[2] = {0, 0}; /* state 0: y0 = 0, the bars first */
    unrank(ps, 0, pos);
    first[1] = bar_mask(ps, pos);
    stp_dense_source src = {.words = ctx.masks ? 2 : 1, .direct = (uint64_t)ps->states,
                            .initial = first,
                            .nlabels = (uint32_t)nlabels, .rate = rate,
                            .expand = dense_successors, .ctx = &ctx,
                            .max_states = (uint64_t)ps->states, .cancel = &o->cancel,
                            .progress = o, .what = "the pattern's states",
                            .estimate = (uint64_t)ps->states};
    s = stp__dense_enumerate(&src, dc, err);
    if (s == STP_OK && dc->ms.nstates != (uint64_t)ps->states)
      s = stp__fail(err, STP_EINTERNAL, "pattern chain: %llu states reached, %lld expected",
                    (unsigned long long)dc->ms.nstates, (long long)ps->states);
  }
  free(rate);
  free(pos);
  return s;
}

static stp_status check_pattern(size_t u, size_t v, const double *times, uint64_t max_states,
                                stp_error *err) {
  if (u == 0 || v == 0 || stp__gcd_u64(u, v) != 1)
    return stp__fail(err, STP_EINVAL, "a %zu x %zu transfer pattern needs gcd(u, v) = 1", u, v);
  uint64_t states;
  if (!stp__pattern_state_count(u, v, &states) || states > max_states) {
    double approx = exp(lgamma((double)(u + v)) - lgamma((double)u) - lgamma((double)v));
    return stp__fail(err, STP_ELIMIT,
                     "the %zu x %zu pattern's Markov chain has %.4g states, above the limit "
                     "of %llu (--max-states)",
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
  return stp__fail(err, STP_ELIMIT,
                   "the %zu x %zu pattern's Markov chain (%lld states) would need about %.3g "
                   "GiB, above the memory budget of %.3g GiB (--max-memory)",
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

/* Bytes of the dense route likewise: while enumerating, the index of the
 * ranks (4 per state), the keys (8 or 16), the out-degrees (2) and the
 * moves (5: a 32-bit target and a one-byte label; 6 beyond 256
 * transitions); while solving, the moves, the out-degrees, the iterate (8)
 * and the irreducibility check's transpose (13 per state, 4 per move). */
static stp_status dense_check_memory(size_t u, size_t v, uint64_t budget, stp_error *err) {
  pattern_space ps;
  if (u == 0 || v == 0 || space_init(&ps, u, v, err) != STP_OK)
    return STP_OK;
  double states = (double)ps.states, moves = (double)move_count(&ps);
  double move = u * v <= 256 ? 5 : u * v <= 65536 ? 6 : 8;
  double enumerate = states * (4 + 16 + 2) + moves * move;
  double solve = states * (2 + 8 + 13) + moves * (move + 4);
  free(ps.binom);
  return over_budget(u, v, &ps, enumerate > solve ? enumerate : solve, budget, err);
}

stp_status stp__pattern_exp_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_ctmc_info *info, stp_error *err) {
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
