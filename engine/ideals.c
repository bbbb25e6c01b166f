/* ideals.c: E[makespan] of an exponential activity DAG over its order
 * ideals, two levels at a time (see ideals.h).  An ideal is a bitset of W
 * words; a level is a hash set of such bitsets with one value each.  Graphs
 * of up to MASK_MAX transitions keep one predecessor and one successor mask
 * per transition, so that "is t ready in S" and "is a maximal in S" are W
 * word operations; larger graphs walk adjacency lists instead. */
#include "engine/ideals.h"

#include "base/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK_MAX 4096

typedef struct level {
  size_t W, n, cap;  /* states held, capacity of keys/val */
  uint64_t *keys;    /* n * W words */
  double *val;       /* E[T(S)] once solved; the weighted sum meanwhile */
  double *rsum;      /* total rate out of S; < 0: S moves on at once */
  uint32_t *slot;    /* index + 1, 0 = empty; nslot a power of two */
  size_t nslot;
} level;

/* The DAG renumbered so that a chain decomposition (greedy, along places)
 * occupies consecutive bits: the next transition of a chain is then bit
 * t + 1, so the only candidates to be maximal in S are the last bits of
 * chains and the bits of S right before one not in S: a few word operations
 * find them, and each state costs O(chains + W), not O(n). */
typedef struct dag {
  size_t n, W, nchains;
  double *time, *rate;            /* by new number; rate = 1 / time (0: instantaneous) */
  uint64_t *first, *last, *valid; /* W words: chain starts, chain ends, bits < n */
  uint64_t *pred, *succ;          /* n * W masks, or NULL (lists) */
  uint32_t *poff, *padj, *soff, *sadj; /* CSR predecessor/successor lists */
} dag;

static uint64_t key_hash(const uint64_t *k, size_t W) {
  uint64_t h = UINT64_C(0x9e3779b97f4a7c15);
  for (size_t i = 0; i < W; i++) {
    h ^= k[i];
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 31;
  }
  return h;
}

/* Keys are a few words: inline loops beat memcmp/memcpy calls here, which
 * run once per probe and per move (profiled: a third of the time). */
static inline bool key_eq(const uint64_t *a, const uint64_t *b, size_t W) {
  for (size_t w = 0; w < W; w++)
    if (a[w] != b[w]) return false;
  return true;
}

static inline void key_copy(uint64_t *dst, const uint64_t *src, size_t W) {
  for (size_t w = 0; w < W; w++) dst[w] = src[w];
}

static void level_free(level *l) {
  free(l->keys);
  free(l->val);
  free(l->rsum);
  free(l->slot);
  memset(l, 0, sizeof *l);
}

/* A level about to hold some `expect` states (the neighbouring level's
 * size: levels change size slowly), so that its table rarely regrows. */
static bool level_init(level *l, size_t W, size_t expect) {
  memset(l, 0, sizeof *l);
  l->W = W;
  l->nslot = 64;
  while (l->nslot < 2 * expect) l->nslot *= 2;
  l->slot = stp__calloc(l->nslot, sizeof *l->slot);
  return l->slot != NULL;
}

/* Index of key in l, or SIZE_MAX; *at = the slot where it is or would go. */
static size_t level_find(const level *l, const uint64_t *key, size_t *at) {
  size_t mask = l->nslot - 1, i = (size_t)key_hash(key, l->W) & mask;
  for (; l->slot[i]; i = (i + 1) & mask)
    if (key_eq(l->keys + (size_t)(l->slot[i] - 1) * l->W, key, l->W)) {
      if (at) *at = i;
      return l->slot[i] - 1;
    }
  if (at) *at = i;
  return SIZE_MAX;
}

static bool level_rehash(level *l) {
  size_t nslot = l->nslot * 2;
  uint32_t *slot = stp__calloc(nslot, sizeof *slot);
  if (!slot) return false;
  free(l->slot);
  l->slot = slot;
  l->nslot = nslot;
  for (size_t s = 0; s < l->n; s++) {
    size_t at;
    level_find(l, l->keys + s * l->W, &at);
    l->slot[at] = (uint32_t)(s + 1);
  }
  return true;
}

/* Index of key in l, added (value and rate 0) when absent.  SIZE_MAX when
 * out of memory. */
static size_t level_add(level *l, const uint64_t *key) {
  size_t at, i = level_find(l, key, &at);
  if (i != SIZE_MAX) return i;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    void *const arrays[] = {&l->keys, &l->val, &l->rsum};
    const size_t sizes[] = {l->W * sizeof *l->keys, sizeof *l->val, sizeof *l->rsum};
    if (!stp__grow_arrays(cap, 3, arrays, sizes)) return SIZE_MAX;
    l->cap = cap;
  }
  if (l->n >= UINT32_MAX - 1) return SIZE_MAX;
  i = l->n++;
  key_copy(l->keys + i * l->W, key, l->W);
  l->val[i] = 0;
  l->rsum[i] = 0;
  l->slot[at] = (uint32_t)(i + 1);
  /* load <= 1/2: a slot is 4 bytes, short probes are worth more */
  if (2 * l->n > l->nslot && !level_rehash(l)) return SIZE_MAX;
  return i;
}

static size_t level_bytes(const level *l) {
  return l->cap * (l->W * 8 + 2 * sizeof(double)) + l->nslot * sizeof(uint32_t);
}

static inline bool has(const uint64_t *s, size_t t) { return (s[t >> 6] >> (t & 63)) & 1; }

/* a in s is maximal in s: none of its successors is in s. */
static bool maximal(const dag *d, const uint64_t *s, size_t a) {
  if (d->succ) {
    const uint64_t *m = d->succ + a * d->W;
    for (size_t w = 0; w < d->W; w++)
      if (m[w] & s[w]) return false;
    return true;
  }
  for (uint32_t e = d->soff[a]; e < d->soff[a + 1]; e++)
    if (has(s, d->sadj[e])) return false;
  return true;
}

/* Children of a block of states, gathered before they are looked up. */
typedef struct batch {
  size_t cap;        /* children held at most (>= chains) */
  uint64_t *keys;    /* cap * W words */
  uint32_t *parent, *move;
} batch;

static void dag_free(dag *d) {
  free(d->time);
  free(d->rate);
  free(d->first);
  free(d->last);
  free(d->valid);
  free(d->pred);
  free(d->succ);
  free(d->poff);
  free(d->padj);
  free(d->soff);
  free(d->sadj);
}

/* Adjacency lists (CSR) of one direction: edge p goes from[p] -> to[p]. */
static bool csr(size_t n, size_t m, const uint32_t *from, const uint32_t *to, uint32_t **off,
                uint32_t **adj) {
  *off = stp__calloc(n + 1, sizeof **off);
  *adj = stp__malloc_array(m ? m : 1, sizeof **adj);
  if (!*off || !*adj) return false;
  for (size_t p = 0; p < m; p++) (*off)[from[p] + 1]++;
  for (size_t t = 0; t < n; t++) (*off)[t + 1] += (*off)[t];
  uint32_t *fill = stp__malloc_array(n + 1, sizeof *fill);
  if (!fill) return false;
  memcpy(fill, *off, (n + 1) * sizeof *fill);
  for (size_t p = 0; p < m; p++) (*adj)[fill[from[p]]++] = to[p];
  free(fill);
  return true;
}

/* pos[t] = new number of transition t: chains laid out one after the
 * other, each in its order.  Greedy decomposition: in topological order, t
 * extends the chain of the first predecessor that still ends its chain. */
static bool chain_numbering(const stp_graph *g, uint32_t *pos, uint8_t *is_first,
                            uint8_t *is_last) {
  size_t n = g->nt;
  uint32_t *order = NULL, *next = stp__malloc_array(n, sizeof *next), *poff = NULL, *padj = NULL;
  uint8_t *tail = stp__calloc(n, 1);
  bool ok = next && tail && csr(n, g->np, g->pto, g->pfrom, &poff, &padj) &&
            stp__graph_topo_order(g, &order, NULL) == STP_OK;
  for (size_t k = 0; ok && k < n; k++) {
    uint32_t t = order[k];
    next[t] = UINT32_MAX;
    is_first[t] = 1;
    for (uint32_t e = poff[t]; e < poff[t + 1]; e++) {
      uint32_t u = padj[e];
      if (tail[u]) {
        tail[u] = 0;
        next[u] = t;
        is_first[t] = 0;
        break;
      }
    }
    tail[t] = 1;
  }
  uint32_t at = 0;
  for (size_t k = 0; ok && k < n; k++)
    if (is_first[order[k]])
      for (uint32_t t = order[k]; t != UINT32_MAX; t = next[t]) {
        is_last[at] = next[t] == UINT32_MAX;
        pos[t] = at++;
      }
  free(order);
  free(next);
  free(poff);
  free(padj);
  free(tail);
  return ok;
}

static bool dag_init(dag *d, const stp_graph *g) {
  memset(d, 0, sizeof *d);
  size_t n = g->nt, W = (n + 63) / 64;
  d->n = n;
  d->W = W;
  uint32_t *pos = stp__malloc_array(n, sizeof *pos);
  uint32_t *from = stp__malloc_array(g->np ? g->np : 1, sizeof *from);
  uint32_t *to = stp__malloc_array(g->np ? g->np : 1, sizeof *to);
  uint8_t *first_of = stp__calloc(n, 1), *last_at = stp__calloc(n, 1);
  d->time = stp__malloc_array(n, sizeof *d->time);
  d->rate = stp__malloc_array(n, sizeof *d->rate);
  d->first = stp__calloc(W, 8);
  d->last = stp__calloc(W, 8);
  d->valid = stp__calloc(W, 8);
  bool ok = pos && from && to && first_of && last_at && d->time && d->rate && d->first &&
            d->last && d->valid && chain_numbering(g, pos, first_of, last_at);
  for (size_t t = 0; ok && t < n; t++) {
    uint32_t q = pos[t];
    d->time[q] = g->time[t];
    d->rate[q] = g->time[t] > 0 ? 1 / g->time[t] : 0;
    if (first_of[t]) d->first[q >> 6] |= UINT64_C(1) << (q & 63);
    d->nchains += first_of[t];
    if (last_at[q]) d->last[q >> 6] |= UINT64_C(1) << (q & 63);
    d->valid[q >> 6] |= UINT64_C(1) << (q & 63);
  }
  for (size_t p = 0; ok && p < g->np; p++) {
    from[p] = pos[g->pfrom[p]];
    to[p] = pos[g->pto[p]];
  }
  ok = ok && csr(n, g->np, to, from, &d->poff, &d->padj) &&
       csr(n, g->np, from, to, &d->soff, &d->sadj);
  if (ok && n <= MASK_MAX) {
    d->pred = stp__calloc(n * W, 8);
    d->succ = stp__calloc(n * W, 8);
    ok = d->pred && d->succ;
    for (size_t p = 0; ok && p < g->np; p++) {
      size_t a = from[p], b = to[p];
      d->pred[b * W + (a >> 6)] |= UINT64_C(1) << (a & 63);
      d->succ[a * W + (b >> 6)] |= UINT64_C(1) << (b & 63);
    }
  }
  free(pos);
  free(from);
  free(to);
  free(first_of);
  free(last_at);
  return ok;
}

/* Bits of S that may be maximal: chain ends, and bits whose chain
 * successor (bit t + 1) is not in S. */
static inline uint64_t maximal_candidates(const dag *d, const uint64_t *S, size_t w) {
  uint64_t next = (S[w] >> 1) | (w + 1 < d->W ? S[w + 1] << 63 : 0);
  return S[w] & (d->last[w] | ~next);
}

/* The largest layer of the DAG by depth (longest path in places from a
 * source) is an antichain, so there are at least 2^layer ideals.  Returns
 * the largest layer, or SIZE_MAX when out of memory. */
static size_t widest_layer(const dag *d) {
  size_t n = d->n, best = 0;
  uint32_t *indeg = stp__calloc(n, sizeof *indeg), *depth = stp__calloc(n, sizeof *depth);
  uint32_t *queue = stp__malloc_array(n, sizeof *queue), *count = stp__calloc(n, sizeof *count);
  if (!indeg || !depth || !queue || !count) best = SIZE_MAX;
  size_t head = 0, tail = 0;
  for (size_t t = 0; best != SIZE_MAX && t < n; t++)
    if ((indeg[t] = d->poff[t + 1] - d->poff[t]) == 0) queue[tail++] = (uint32_t)t;
  while (best != SIZE_MAX && head < tail) {
    uint32_t t = queue[head++];
    if (++count[depth[t]] > best) best = count[depth[t]];
    for (uint32_t e = d->soff[t]; e < d->soff[t + 1]; e++) {
      uint32_t u = d->sadj[e];
      if (depth[t] + 1 > depth[u]) depth[u] = depth[t] + 1;
      if (--indeg[u] == 0) queue[tail++] = u;
    }
  }
  free(indeg);
  free(depth);
  free(queue);
  free(count);
  return best;
}

/* The states of size k and their values, from the states of size k + 1:
 * each state H of hi minus one of its maximal elements a gives S = H - a,
 * and a is ready in S.  Every move S -> S + a of the chain is met exactly
 * once this way (S + a is an ideal of size k + 1, where a is maximal), so
 * the values are summed here, with no second lookup:
 * E[T(S)] = (1 + sum_a rate_a E[T(S + a)]) / sum_a rate_a, or E[T(S + a)]
 * when a takes no time.  Returns 0, 1 when lo exceeds room states, or -1
 * when out of memory. */
static int expand_level(const dag *d, level *lo, const level *hi, batch *bt, uint64_t room) {
  size_t W = d->W;
  for (size_t h0 = 0; h0 < hi->n;) {
    /* gather the children of a block of states and prefetch their slots:
     * the table is far larger than the caches on wide DAGs, and the
     * misses, not the arithmetic, bound the speed */
    size_t nb = 0, mask = lo->nslot - 1;
    for (; h0 < hi->n && nb + d->nchains <= bt->cap; h0++) {
      const uint64_t *H = hi->keys + h0 * W;
      for (size_t w = 0; w < W; w++)
        for (uint64_t bits = maximal_candidates(d, H, w); bits; bits &= bits - 1) {
          size_t a = w * 64 + (size_t)__builtin_ctzll(bits);
          if (!maximal(d, H, a)) continue;
          uint64_t *k = bt->keys + nb * W;
          key_copy(k, H, W);
          k[a >> 6] &= ~(UINT64_C(1) << (a & 63));
          __builtin_prefetch(lo->slot + (key_hash(k, W) & mask));
          bt->parent[nb] = (uint32_t)h0;
          bt->move[nb++] = (uint32_t)a;
        }
    }
    for (size_t c = 0; c < nb; c++) {
      size_t i = level_add(lo, bt->keys + c * W), a = bt->move[c];
      if (i == SIZE_MAX) return -1;
      if (lo->n > room) return 1;
      if (lo->rsum[i] < 0) continue;
      double vh = hi->val[bt->parent[c]];
      if (d->rate[a] == 0) { /* instantaneous: S moves to S + a at once */
        lo->val[i] = vh;
        lo->rsum[i] = -1;
      } else {
        lo->val[i] += d->rate[a] * vh;
        lo->rsum[i] += d->rate[a];
      }
    }
  }
  for (size_t i = 0; i < lo->n; i++)
    if (lo->rsum[i] > 0) lo->val[i] = (1 + lo->val[i]) / lo->rsum[i];
  return 0;
}

static stp_status too_many(stp_error *err, uint64_t max_states, const char *how) {
  return stp__fail(err, STP_ELIMIT,
                   "the exponential makespan needs more than %llu states (order ideals)%s; "
                   "raise --max-states",
                   (unsigned long long)max_states, how);
}

static stp_status walk(const dag *d, uint64_t max_states, const stp_cancel *cancel,
                       double *makespan, stp_ideals_stats *st, stp_error *err) {
  size_t W = d->W;
  level hi, lo;
  uint64_t *tmp = stp__calloc(W, 8);
  /* a block of about 32 states' children, enough to hide the misses */
  batch bt = {.cap = 32 * (d->nchains ? d->nchains : 1)};
  bt.keys = stp__malloc_array(bt.cap * W, 8);
  bt.parent = stp__malloc_array(bt.cap, sizeof *bt.parent);
  bt.move = stp__malloc_array(bt.cap, sizeof *bt.move);
  stp_status s = STP_OK;
  if (!tmp || !bt.keys || !bt.parent || !bt.move || !level_init(&hi, W, 1)) {
    free(tmp);
    free(bt.keys);
    free(bt.parent);
    free(bt.move);
    return stp__oom(err, "order ideal chain");
  }
  memset(tmp, 0, W * 8);
  for (size_t t = 0; t < d->n; t++) tmp[t >> 6] |= UINT64_C(1) << (t & 63);
  if (level_add(&hi, tmp) == SIZE_MAX) s = stp__oom(err, "order ideal chain");
  if (hi.val) hi.val[0] = 0;
  st->states = 1;
  st->peak_level = 1;
  for (size_t k = d->n; s == STP_OK && k-- > 0;) {
    if (stp__cancelled(cancel)) {
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
      break;
    }
    int x = level_init(&lo, W, hi.n) ? expand_level(d, &lo, &hi, &bt, max_states - st->states)
                                     : -1;
    st->states += lo.n;
    if (lo.n > st->peak_level) st->peak_level = lo.n;
    size_t bytes = level_bytes(&lo) + level_bytes(&hi);
    if (bytes > st->peak_bytes) st->peak_bytes = bytes;
    if (x != 0) {
      level_free(&lo);
      s = x < 0 ? stp__oom(err, "order ideal chain") : too_many(err, max_states, "");
      break;
    }
    level_free(&hi);
    hi = lo;
  }
  if (s == STP_OK) *makespan = hi.val[0];
  level_free(&hi);
  free(tmp);
  free(bt.keys);
  free(bt.parent);
  free(bt.move);
  return s;
}

stp_status stp__ideals_makespan(const stp_graph *g, uint64_t max_states, const stp_cancel *cancel,
                                double *makespan, stp_ideals_stats *stats, stp_error *err) {
  stp_ideals_stats local;
  stp_ideals_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  dag d;
  stp_status s = STP_OK;
  if (!dag_init(&d, g)) {
    dag_free(&d);
    return stp__oom(err, "order ideal chain");
  }
  size_t layer = widest_layer(&d);
  if (layer == SIZE_MAX)
    s = stp__oom(err, "order ideal chain");
  else if (layer >= 63 || (UINT64_C(1) << layer) > max_states) {
    char how[96];
    snprintf(how, sizeof how, "; %zu transitions are pairwise independent, so at least 2^%zu", layer,
             layer);
    s = too_many(err, max_states, how);
  } else
    s = walk(&d, max_states, cancel, makespan, st, err);
  dag_free(&d);
  return s;
}
