/* maxplus.c: the (max,+) simulation kernel of maxplus.h: building a compact
 * event graph (means, samplers, places), compiling it to flat arrays in
 * evaluation order (inputs as offsets into a row-major history), and
 * playing runs of it a block of rows at a time.  The row loop is the hot
 * path of every simulation in streamtp: no allocation, no division, no call. */
#include "engine/maxplus.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MP_BLOCK_CELLS 8192 /* transitions x block: factors of a block stay in L1/L2 */
#define MP_BLOCK_MAX 512
#define MP_HIST_MAX (UINT64_C(1) << 27) /* firing dates kept by one run: 1 GiB */
#define MP_DEGREE_MAX 4                  /* inputs unrolled in the row loop */
#define MP_CHAIN_ONLY 2                  /* g->chain: the chain is the only input */

static void compiled_clear(stp_mp_graph *g);

/* ---- building ------------------------------------------------------------------- */
stp_status stp__mp_graph_init(stp_mp_graph *g, size_t n, stp_error *err) {
  *g = (stp_mp_graph){.n = n};
  g->period = stp__malloc_array(n, sizeof *g->period);
  g->mean_off = stp__malloc_array(n + 1, sizeof *g->mean_off);
  g->means = stp__calloc(n, sizeof *g->means);
  g->sampler = stp__calloc(n, sizeof *g->sampler);
  if (!g->period || !g->mean_off || !g->means || !g->sampler) {
    stp__mp_graph_clear(g);
    return stp__oom(err, "allocating a simulation graph");
  }
  for (size_t t = 0; t < n; t++) {
    g->period[t] = 1;
    g->mean_off[t] = t;
  }
  g->mean_off[n] = n;
  return STP_OK;
}

void stp__mp_graph_clear(stp_mp_graph *g) {
  if (!g)
    return;
  free(g->period);
  free(g->mean_off);
  free(g->means);
  free(g->sampler);
  free(g->pfrom);
  free(g->pto);
  free(g->ptok);
  compiled_clear(g);
  *g = (stp_mp_graph){0};
}

/* Means are kept in one array; a transition given a period > 1 moves its
 * means to the end (the old slot stays unused: builders set each once). */
stp_status stp__mp_set_means(stp_mp_graph *g, size_t t, const double *means, size_t period,
                             stp_error *err) {
  if (period == 1) {
    g->means[g->mean_off[t]] = means[0];
    return STP_OK;
  }
  size_t at = g->mean_off[g->n], total;
  if (__builtin_add_overflow(at, period, &total))
    return stp__fail(err, STP_ELIMIT, "too many mean times");
  double *m = realloc(g->means, total * sizeof *m);
  if (!m || total > SIZE_MAX / sizeof *m)
    return stp__oom(err, "storing mean times");
  memcpy(m + at, means, period * sizeof *m);
  g->means = m;
  g->mean_off[t] = at;
  g->mean_off[g->n] = total;
  g->period[t] = period;
  g->compiled = false;
  return STP_OK;
}

void stp__mp_set_sampler(stp_mp_graph *g, size_t t, stp_mp_sampler s) { g->sampler[t] = s; }

stp_status stp__mp_add_place(stp_mp_graph *g, size_t from, size_t to, uint64_t tokens,
                             stp_error *err) {
  if (g->nplaces == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    void *const arrays[] = {&g->pfrom, &g->pto, &g->ptok};
    const size_t sizes[] = {sizeof *g->pfrom, sizeof *g->pto, sizeof *g->ptok};
    if (!stp__grow_arrays(cap, 3, arrays, sizes))
      return stp__oom(err, "adding a place to a simulation graph");
    g->cap = cap;
  }
  g->pfrom[g->nplaces] = from;
  g->pto[g->nplaces] = to;
  g->ptok[g->nplaces] = tokens;
  g->nplaces++;
  g->compiled = false;
  return STP_OK;
}

/* ---- compiling ------------------------------------------------------------------ */
/* Positions: the identity when every token-free place goes forward, else
 * Kahn's order over the token-free places. */
static stp_status eval_order(stp_mp_graph *g, stp_error *err) {
  size_t n = g->n;
  bool forward = true;
  for (size_t p = 0; p < g->nplaces; p++)
    if (g->ptok[p] == 0 && g->pfrom[p] >= g->pto[p])
      forward = false;
  if (forward) {
    for (size_t t = 0; t < n; t++)
      g->order[t] = t;
    return STP_OK;
  }
  size_t *indeg = stp__calloc(n, sizeof *indeg), *off = stp__calloc(n + 1, sizeof *off);
  size_t *adj = stp__malloc_array(g->nplaces ? g->nplaces : 1, sizeof *adj);
  stp_status st = indeg && off && adj ? STP_OK : stp__oom(err, "ordering a simulation graph");
  size_t head = 0, tail = 0;
  if (st == STP_OK) {
    for (size_t p = 0; p < g->nplaces; p++)
      if (g->ptok[p] == 0) {
        indeg[g->pto[p]]++;
        off[g->pfrom[p] + 1]++;
      }
    for (size_t t = 0; t < n; t++)
      off[t + 1] += off[t];
    for (size_t p = 0; p < g->nplaces; p++) /* indeg doubles as a fill cursor below */
      if (g->ptok[p] == 0)
        adj[off[g->pfrom[p]]++] = g->pto[p];
    for (size_t t = n; t > 0; t--)
      off[t] = off[t - 1];
    off[0] = 0;
    for (size_t t = 0; t < n; t++)
      if (indeg[t] == 0)
        g->order[tail++] = t;
    while (head < tail) {
      size_t u = g->order[head++];
      for (size_t e = off[u]; e < off[u + 1]; e++)
        if (--indeg[adj[e]] == 0)
          g->order[tail++] = adj[e];
    }
    if (tail < n)
      st = stp__fail(err, STP_EDEADLOCK, "the places without tokens form a cycle: no "
                     "transition on it can fire");
  }
  free(indeg);
  free(off);
  free(adj);
  return st;
}

/* Row by row, a token-free place from the position just before is read from
 * a register (the chain input). */
static bool chain_place(const stp_mp_graph *g, size_t p) {
  return g->ptok[p] == 0 && g->pos[g->pfrom[p]] + 1 == g->pos[g->pto[p]];
}

/* Which places the row loop reads from the history (kept[p]) and how many
 * each position has (nin[i]); the chain places get g->chain. */
static void classify(stp_mp_graph *g, uint64_t rows_max, bool *kept, size_t *nin) {
  for (size_t p = 0; p < g->nplaces; p++) {
    kept[p] = false;
    if (g->ptok[p] >= rows_max)
      continue;
    size_t i = g->pos[g->pto[p]];
    if (chain_place(g, p) && !g->chain[i]) {
      g->chain[i] = 1;
      continue;
    }
    kept[p] = true;
    nin[i]++;
  }
}

/* The padded degree d in 0..MP_DEGREE_MAX that costs the fewest operations
 * per row: every position reads d inputs, a position with more also walks
 * its overflow list, and any overflow costs every position a test. */
static size_t pick_degree(const size_t *nin, size_t n) {
  size_t best = 0;
  uint64_t best_cost = UINT64_MAX;
  for (size_t d = 0; d <= MP_DEGREE_MAX; d++) {
    uint64_t cost = (uint64_t)n * d, over = 0;
    for (size_t i = 0; i < n; i++)
      if (nin[i] > d)
        over += nin[i] - d + 2;
    cost += over + (over ? 2 * (uint64_t)n : 0);
    if (cost < best_cost) {
      best_cost = cost;
      best = d;
    }
  }
  return best;
}

/* The window of the history: S = largest token count read + 1 rows back,
 * and as many again (at least a block) to fill before moving them. */
static stp_status history_size(stp_mp_graph *g, const bool *kept, stp_error *err) {
  uint64_t top = 0, cells;
  for (size_t p = 0; p < g->nplaces; p++)
    if (kept[p] && g->ptok[p] > top)
      top = g->ptok[p];
  g->keep = (size_t)top + 1;
  g->window = g->keep + (g->keep > g->block ? g->keep : g->block);
  g->stride = g->n + 1;
  if (!stp__mul_u64(g->window, g->stride, &cells) || cells > MP_HIST_MAX)
    return stp__fail(err, STP_ELIMIT, "the simulation history would keep %zu rows of %zu "
                     "firing dates (a place holds %llu tokens; limit %llu dates)",
                     g->window, g->stride, (unsigned long long)top,
                     (unsigned long long)MP_HIST_MAX);
  return STP_OK;
}

/* Means cycled over period + block - 1 entries: a block starting anywhere in
 * the cycle reads them in a row. */
static stp_status extend_means(stp_mp_graph *g, stp_error *err) {
  uint64_t total = 0;
  for (size_t t = 0; t < g->n; t++) {
    g->ext_off[t] = (size_t)total;
    if (g->period[t] > 1)
      total += g->period[t] + g->block - 1;
  }
  if (total > MP_HIST_MAX)
    return stp__fail(err, STP_ELIMIT, "too many periodic mean times (%llu)",
                     (unsigned long long)total);
  if (!(g->ext = stp__malloc_array(total ? (size_t)total : 1, sizeof *g->ext)))
    return stp__oom(err, "compiling a simulation graph");
  for (size_t t = 0; t < g->n; t++)
    for (size_t e = 0, p = g->period[t]; p > 1 && e < p + g->block - 1; e++)
      g->ext[g->ext_off[t] + e] = g->means[g->mean_off[t] + e % p];
  return STP_OK;
}

static stp_status inputs(stp_mp_graph *g, const bool *kept, const size_t *nin, stp_error *err) {
  size_t n = g->n, d = g->degree, nover = 0;
  for (size_t i = 0; i < n; i++)
    nover += nin[i] > d ? nin[i] - d : 0;
  g->in = stp__malloc_array(d > 0 ? n * d : 1, sizeof *g->in);
  g->over_off = stp__calloc(n + 1, sizeof *g->over_off);
  g->over = stp__malloc_array(nover ? nover : 1, sizeof *g->over);
  size_t *fill = stp__calloc(n, sizeof *fill);
  if (!g->in || !g->over_off || !g->over || !fill) {
    free(fill);
    return stp__oom(err, "compiling a simulation graph");
  }
  for (size_t i = 0; i < n; i++) {
    g->over_off[i + 1] = g->over_off[i] + (nin[i] > d ? nin[i] - d : 0);
    for (size_t q = 0; q < d; q++)
      g->in[i * d + q] = (stp_mp_input){.off = (ptrdiff_t)n}; /* the origin column */
  }
  for (size_t p = 0; p < g->nplaces; p++) {
    if (!kept[p])
      continue;
    size_t i = g->pos[g->pto[p]], q = fill[i]++;
    stp_mp_input e = {.off = (ptrdiff_t)g->pos[g->pfrom[p]] -
                             (ptrdiff_t)g->ptok[p] * (ptrdiff_t)g->stride};
    if (q < d)
      g->in[i * d + q] = e;
    else
      g->over[g->over_off[i] + q - d] = e;
  }
  free(fill);
  return STP_OK;
}

static void compiled_clear(stp_mp_graph *g) {
  free(g->order);
  free(g->pos);
  free(g->chain);
  free(g->in);
  free(g->over_off);
  free(g->over);
  free(g->ext_off);
  free(g->ext);
  g->ext_off = NULL;
  g->ext = NULL;
  g->order = g->pos = g->over_off = NULL;
  g->chain = NULL;
  g->in = g->over = NULL;
  g->compiled = false;
}

stp_status stp__mp_graph_compile(stp_mp_graph *g, uint64_t rows_max, size_t watch,
                                 stp_error *err) {
  size_t n = g->n;
  compiled_clear(g);
  if (n == 0)
    return stp__fail(err, STP_EINVAL, "a simulation graph needs a transition");
  if (n >= UINT32_MAX)
    return stp__fail(err, STP_ELIMIT, "a simulation graph holds at most %lu transitions",
                     (unsigned long)UINT32_MAX - 1);
  for (size_t p = 0; p < g->nplaces; p++)
    if (g->pfrom[p] == g->pto[p] && g->ptok[p] == 0)
      return stp__fail(err, STP_EDEADLOCK, "a self-loop without a token: the transition "
                       "can never fire");
  g->watch = watch;
  g->block = MP_BLOCK_CELLS / n;
  g->block = g->block < 1 ? 1 : g->block > MP_BLOCK_MAX ? MP_BLOCK_MAX : g->block;
  if (rows_max < g->block) /* short runs (one row per DAG run): a smaller window; the */
    g->block = rows_max < 1 ? 1 : (size_t)rows_max; /* draws are the same (n <= rows_max) */
  g->order = stp__malloc_array(n, sizeof *g->order);
  g->pos = stp__malloc_array(n, sizeof *g->pos);
  g->chain = stp__calloc(n, sizeof *g->chain);
  g->ext_off = stp__malloc_array(n, sizeof *g->ext_off);
  bool *kept = stp__calloc(g->nplaces ? g->nplaces : 1, sizeof *kept);
  size_t *nin = stp__calloc(n, sizeof *nin);
  stp_status st = g->order && g->pos && g->chain && g->ext_off && kept && nin
                      ? eval_order(g, err)
                      : stp__oom(err, "compiling a simulation graph");
  if (st == STP_OK) {
    for (size_t i = 0; i < n; i++)
      g->pos[g->order[i]] = i;
    classify(g, rows_max, kept, nin);
    g->degree = pick_degree(nin, n);
    for (size_t i = 0; i < n; i++) /* no other input: no max on the critical path */
      if (g->chain[i] && nin[i] == 0)
        g->chain[i] = MP_CHAIN_ONLY;
    st = history_size(g, kept, err);
  }
  if (st == STP_OK)
    st = inputs(g, kept, nin, err);
  if (st == STP_OK)
    st = extend_means(g, err);
  free(kept);
  free(nin);
  if (st != STP_OK) {
    compiled_clear(g);
    return st;
  }
  g->compiled = true;
  return STP_OK;
}

/* Times that never change: no draw and a single mean. */
static bool times_fixed(const stp_mp_graph *g, size_t t) {
  const stp_mp_sampler *s = &g->sampler[t];
  return g->period[t] == 1 && (!s->law || stp__law_is_det(s->law)) && !s->round_law;
}

/* ---- runs ----------------------------------------------------------------------- */
void stp__mp_run_clear(stp_mp_run *r) {
  if (!r)
    return;
  stp__rng_free(r->rng);
  free(r->hist);
  free(r->cyc);
  free(r->xi);
  free(r->draws);
  free(r->rpos);
  free(r->rsize);
  *r = (stp_mp_run){0};
}

void stp__mp_run_reset(stp_mp_run *r, uint64_t seed, uint64_t stream) {
  const stp_mp_graph *g = r->g;
  stp__rng_seed(r->rng, seed, stream);
  r->k = 0;
  r->origin = 0;
  r->done = 0;
  memset(r->hist, 0, g->window * g->stride * sizeof *r->hist);
  r->row = g->keep; /* rows before it: the initial marking, at the origin */
  memset(r->cyc, 0, g->n * sizeof *r->cyc);
  memset(r->rpos, 0, g->n * sizeof *r->rpos);
  memset(r->rsize, 0, g->n * sizeof *r->rsize);
  for (size_t t = 0; t < g->n; t++) /* fixed times are never drawn again */
    if (times_fixed(g, t))
      for (size_t j = 0; j < g->block; j++)
        r->xi[g->pos[t] * g->block + j] = g->means[g->mean_off[t]];
}

stp_status stp__mp_run_init(stp_mp_run *r, const stp_mp_graph *g, uint64_t seed,
                            uint64_t stream, stp_error *err) {
  *r = (stp_mp_run){.g = g};
  if (!g->compiled)
    return stp__fail(err, STP_EINVAL, "stp__mp_run_init: the graph is not compiled");
  r->rng = stp__rng_alloc(seed, stream);
  r->hist = stp__malloc_array(g->window * g->stride, sizeof *r->hist);
  r->cyc = stp__malloc_array(g->n, sizeof *r->cyc);
  r->xi = stp__malloc_array(g->n * g->block, sizeof *r->xi);
  r->draws = stp__malloc_array(g->block, sizeof *r->draws);
  r->rpos = stp__malloc_array(g->n, sizeof *r->rpos);
  r->rsize = stp__malloc_array(g->n, sizeof *r->rsize);
  if (!r->rng || !r->hist || !r->cyc || !r->xi || !r->draws || !r->rpos ||
      !r->rsize) {
    stp__mp_run_clear(r);
    return stp__oom(err, "allocating a simulation run");
  }
  stp__mp_run_reset(r, seed, stream);
  return STP_OK;
}

/* Multiply the factors x[0..n) of transition t by the shared factor of each
 * firing's round (one draw of round_law per round). */
static void apply_rounds(const stp_mp_sampler *s, stp_mp_run *r, size_t t, double *x,
                         size_t n) {
  uint64_t len = s->round, pos = r->rpos[t];
  uint64_t first = pos == 0 ? 0 : len - pos; /* first round starting in the block */
  size_t starts = first < n ? 1 + (size_t)((n - 1 - first) / len) : 0;
  stp__law_fill(s->round_law, r->rng, r->draws, starts);
  double size = r->rsize[t];
  size_t next = 0;
  for (size_t j = 0; j < n; j++) {
    if (pos == 0)
      size = r->draws[next++];
    x[j] *= size;
    pos = pos + 1 == len ? 0 : pos + 1;
  }
  r->rsize[t] = size;
  r->rpos[t] = pos;
}

/* x[j] = mean of row j times x[j] (ones: x holds no factor, x[j] = mean):
 * mean[0] for every row (one mean) or mean[j] (means cycled in g->ext).
 * mean * 1 == mean exactly, so copying gives the same times as multiplying. */
static void apply_means(const double *mean, bool cycled, bool ones, double *x, size_t n) {
  if (cycled && ones)
    memcpy(x, mean, n * sizeof *x);
  else if (cycled)
    for (size_t j = 0; j < n; j++)
      x[j] = mean[j] * x[j];
  else if (ones)
    for (size_t j = 0; j < n; j++)
      x[j] = mean[0];
  else
    for (size_t j = 0, m = 0; j < n; j++)
      x[j] = mean[m] * x[j];
}

/* Firing times of the next n rows: factors drawn transition by transition
 * in index order, then multiplied by the means (cycling with the firing
 * index), out of the critical loop; per-firing laws multiply in the draw
 * pass (stp__law_fill_times), the same products.  Drawing inside the row
 * loop instead was measured slower (docs/design.md, "The random stream"). */
static void fill_block(stp_mp_run *r, size_t n) {
  const stp_mp_graph *g = r->g;
  for (size_t t = 0; t < g->n; t++) {
    if (times_fixed(g, t))
      continue;
    const stp_mp_sampler *s = &g->sampler[t];
    size_t i = g->pos[t], p = g->period[t];
    double *x = r->xi + i * g->block;
    bool drawn = s->law && !stp__law_is_det(s->law);
    const double *mean = p == 1 ? g->means + g->mean_off[t] : g->ext + g->ext_off[t] + r->cyc[i];
    if (p > 1)
      r->cyc[i] = (size_t)((r->cyc[i] + n) % p);
    if (drawn && !s->round_law) { /* the means in the same pass as the draws */
      stp__law_fill_times(s->law, r->rng, x, n, mean, p > 1);
      continue;
    }
    if (drawn)
      stp__law_fill(s->law, r->rng, x, n);
    else if (s->round_law)
      for (size_t j = 0; j < n; j++)
        x[j] = 1;
    if (s->round_law)
      apply_rounds(s, r, t, x, n);
    apply_means(mean, p > 1, !drawn && !s->round_law, x, n);
  }
}

static inline double max2(double a, double b) { return a > b ? a : b; }

/* The window is full: its last S rows move to its start. */
static void slide(stp_mp_run *r) {
  const stp_mp_graph *g = r->g;
  memmove(r->hist, r->hist + (g->window - g->keep) * g->stride,
          g->keep * g->stride * sizeof *r->hist);
  r->row = g->keep;
}

/* The recurrence of maxplus.h over n rows whose firing times are in r->xi,
 * for a padded degree D and overflow lists or not, both known at compile
 * time (play_rows picks the instance): the row loop tests nothing per input.
 * The rows go in runs up to the end of the window, so the row loop does not
 * test for a slide. */
static inline __attribute__((always_inline)) void play(stp_mp_run *r, size_t n, const size_t D,
                                                       const bool overflow, double *span) {
  const stp_mp_graph *g = r->g;
  const size_t nt = g->n, ld = g->block, stride = g->stride, wpos = g->pos[g->watch];
  const size_t pf = span ? g->pos[r->obs->first] : 0, pl = span ? g->pos[r->obs->last] : 0;
  const uint8_t *chain = g->chain;
  const stp_mp_input *in0 = g->in, *over = g->over;
  const size_t *over_off = g->over_off;
  double origin = r->origin, done = r->done;
  for (size_t j = 0; j < n;) {
    if (r->row == g->window)
      slide(r);
    size_t run = g->window - r->row < n - j ? g->window - r->row : n - j;
    double *row = r->hist + r->row * stride;
    r->row += run;
    for (size_t end = j + run; j < end; j++, row += stride) {
      const double *tp = r->xi + j;
      const stp_mp_input *in = in0;
      double x = origin;
      for (size_t i = 0; i < nt; i++, tp += ld, in += D) {
        /* the inputs first, the chain last: one max on the row's critical path */
        double m = D > 0 ? row[in[0].off] : origin;
        for (size_t q = 1; q < D; q++)
          m = max2(m, row[in[q].off]);
        if (overflow)
          for (size_t e = over_off[i]; e < over_off[i + 1]; e++)
            m = max2(m, row[over[e].off]);
        x = (chain[i] == MP_CHAIN_ONLY ? x : chain[i] ? max2(x, m) : m) + *tp;
        row[i] = x;
      }
      if (span)
        span[j] = row[pl] - (row[pf] - r->xi[pf * ld + j]);
      done = max2(done, row[wpos]);
    }
  }
  r->k += n;
  r->done = done;
}

/* Graphs of up to this many transitions (the 3 columns of a 2-stage
 * mapping) get the row of play_small.  Not more: at 5 the offsets and chain
 * kinds no longer fit in registers and a 5-column Strict mapping ran 14 %
 * slower than play. */
#define MP_SMALL_MAX 3

/* play for a graph of exactly NT transitions without overflow lists: the
 * row unrolled, the input offsets and chain kinds copied to locals first so
 * that they stay in registers (read from g->chain, bytes that may alias the
 * dates, they are loaded again after every store).  The same operations on
 * the dates, in the same order, as play. */
static inline __attribute__((always_inline)) void play_small(stp_mp_run *r, size_t n,
                                                             const size_t D, const size_t NT) {
  const stp_mp_graph *g = r->g;
  const size_t ld = g->block, stride = g->stride, wpos = g->pos[g->watch];
  ptrdiff_t off[MP_SMALL_MAX * MP_DEGREE_MAX + 1];
  uint8_t chain[MP_SMALL_MAX];
#pragma GCC unroll 16
  for (size_t i = 0; i < NT; i++) {
    chain[i] = g->chain[i];
#pragma GCC unroll 16
    for (size_t q = 0; q < D; q++)
      off[i * D + q] = g->in[i * D + q].off;
  }
  double origin = r->origin, done = r->done;
  for (size_t j = 0; j < n;) {
    if (r->row == g->window)
      slide(r);
    size_t run = g->window - r->row < n - j ? g->window - r->row : n - j;
    double *row = r->hist + r->row * stride;
    r->row += run;
    for (size_t end = j + run; j < end; j++, row += stride) {
      const double *tp = r->xi + j;
      double x = origin;
#pragma GCC unroll 16
      for (size_t i = 0; i < NT; i++, tp += ld) {
        double m = D > 0 ? row[off[i * D]] : origin;
#pragma GCC unroll 16
        for (size_t q = 1; q < D; q++)
          m = max2(m, row[off[i * D + q]]);
        x = (chain[i] == MP_CHAIN_ONLY ? x : chain[i] ? max2(x, m) : m) + *tp;
        row[i] = x;
      }
      done = max2(done, row[wpos]);
    }
  }
  r->k += n;
  r->done = done;
}

/* Observed rows: play's operations with the degree read at run time (the
 * dates of play_small and play are the same), and the spans written. */
static void play_observed(stp_mp_run *r, size_t n) {
  bool over = r->g->over_off[r->g->n] > 0;
  play(r, n, r->g->degree, over, r->obs->span);
  r->obs->span += n;
}

static void play_rows(stp_mp_run *r, size_t n) {
  const stp_mp_graph *g = r->g;
  bool over = g->over_off[g->n] > 0;
  if (r->obs && r->obs->span) {
    play_observed(r, n);
    return;
  }
  if (!over && g->n <= MP_SMALL_MAX)
    switch (g->n * (MP_DEGREE_MAX + 1) + g->degree) {
#define MP_SMALL(NT)                                                                            \
  case NT * (MP_DEGREE_MAX + 1) + 0: play_small(r, n, 0, NT); return;                         \
  case NT * (MP_DEGREE_MAX + 1) + 1: play_small(r, n, 1, NT); return;                         \
  case NT * (MP_DEGREE_MAX + 1) + 2: play_small(r, n, 2, NT); return;                         \
  case NT * (MP_DEGREE_MAX + 1) + 3: play_small(r, n, 3, NT); return;                         \
  case NT * (MP_DEGREE_MAX + 1) + 4: play_small(r, n, 4, NT); return;
      MP_SMALL(1)
      MP_SMALL(2)
      MP_SMALL(3)
#undef MP_SMALL
    default: break;
    }
  switch (g->degree + (over ? MP_DEGREE_MAX + 1 : 0)) {
  case 0: play(r, n, 0, false, NULL); break;
  case 1: play(r, n, 1, false, NULL); break;
  case 2: play(r, n, 2, false, NULL); break;
  case 3: play(r, n, 3, false, NULL); break;
  case 4: play(r, n, 4, false, NULL); break;
  case 5: play(r, n, 0, true, NULL); break;
  case 6: play(r, n, 1, true, NULL); break;
  case 7: play(r, n, 2, true, NULL); break;
  case 8: play(r, n, 3, true, NULL); break;
  default: play(r, n, 4, true, NULL); break;
  }
}

/* The firing times of the next n rows, summed by mean entry (the k-th
 * firing of t uses mean k mod period[t]). */
static void add_busy(stp_mp_run *r, size_t n) {
  const stp_mp_graph *g = r->g;
  for (size_t t = 0; t < g->n; t++) {
    const double *x = r->xi + g->pos[t] * g->block;
    double *b = r->obs->busy + g->mean_off[t];
    size_t p = g->period[t], c = (size_t)(r->k % p);
    for (size_t j = 0; j < n; j++) {
      b[c] += x[j];
      c = c + 1 == p ? 0 : c + 1;
    }
  }
}

/* Move the time origin to `done` (the origin column moves with the rest). */
static void rebase(stp_mp_run *r) {
  double t0 = r->done;
  size_t cells = r->g->window * r->g->stride;
  for (size_t e = 0; e < cells; e++)
    r->hist[e] -= t0;
  r->origin -= t0;
  r->done = 0;
}

stp_status stp__mp_run_advance(stp_mp_run *r, uint64_t n, const stp_cancel *cancel,
                               double *elapsed, stp_error *err) {
  rebase(r);
  size_t block = r->g->block;
  while (n > 0) {
    if (stp__cancelled(cancel))
      return stp__fail(err, STP_EINTERRUPTED, "simulation interrupted");
    size_t nb = n < block ? (size_t)n : block;
    fill_block(r, nb);
    if (r->obs && r->obs->busy)
      add_busy(r, nb);
    play_rows(r, nb);
    n -= nb;
  }
  *elapsed = r->done;
  return STP_OK;
}
