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
  double *val;
  uint32_t *slot;    /* index + 1, 0 = empty; nslot a power of two */
  size_t nslot;
} level;

typedef struct dag {
  size_t n, W;
  const double *time;
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

static void level_free(level *l) {
  free(l->keys);
  free(l->val);
  free(l->slot);
  memset(l, 0, sizeof *l);
}

static bool level_init(level *l, size_t W) {
  memset(l, 0, sizeof *l);
  l->W = W;
  l->nslot = 64;
  l->slot = stp__calloc(l->nslot, sizeof *l->slot);
  return l->slot != NULL;
}

/* Index of key in l, or SIZE_MAX; *at = the slot where it is or would go. */
static size_t level_find(const level *l, const uint64_t *key, size_t *at) {
  size_t mask = l->nslot - 1, i = (size_t)key_hash(key, l->W) & mask;
  for (; l->slot[i]; i = (i + 1) & mask)
    if (memcmp(l->keys + (size_t)(l->slot[i] - 1) * l->W, key, l->W * 8) == 0) {
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

/* Adds key when absent.  Returns false when out of memory. */
static bool level_add(level *l, const uint64_t *key) {
  size_t at;
  if (level_find(l, key, &at) != SIZE_MAX) return true;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    uint64_t *k = realloc(l->keys, cap * l->W * sizeof *k);
    if (!k) return false;
    l->keys = k;
    double *v = realloc(l->val, cap * sizeof *v);
    if (!v) return false;
    l->val = v;
    l->cap = cap;
  }
  if (l->n >= UINT32_MAX - 1) return false;
  memcpy(l->keys + l->n * l->W, key, l->W * 8);
  l->slot[at] = (uint32_t)(++l->n);
  return 4 * l->n <= 3 * l->nslot || level_rehash(l);
}

static size_t level_bytes(const level *l) {
  return l->cap * (l->W * 8 + sizeof(double)) + l->nslot * sizeof(uint32_t);
}

static inline bool has(const uint64_t *s, size_t t) { return (s[t >> 6] >> (t & 63)) & 1; }

/* t not in s is ready: all its predecessors are in s. */
static bool ready(const dag *d, const uint64_t *s, size_t t) {
  if (d->pred) {
    const uint64_t *m = d->pred + t * d->W;
    for (size_t w = 0; w < d->W; w++)
      if (m[w] & ~s[w]) return false;
    return true;
  }
  for (uint32_t e = d->poff[t]; e < d->poff[t + 1]; e++)
    if (!has(s, d->padj[e])) return false;
  return true;
}

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

static void dag_free(dag *d) {
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

static bool dag_init(dag *d, const stp_graph *g) {
  memset(d, 0, sizeof *d);
  d->n = g->nt;
  d->W = (g->nt + 63) / 64;
  d->time = g->time;
  if (!csr(g->nt, g->np, g->pto, g->pfrom, &d->poff, &d->padj) ||
      !csr(g->nt, g->np, g->pfrom, g->pto, &d->soff, &d->sadj))
    return false;
  if (g->nt > MASK_MAX) return true;
  d->pred = stp__calloc(d->n * d->W, 8);
  d->succ = stp__calloc(d->n * d->W, 8);
  if (!d->pred || !d->succ) return false;
  for (size_t p = 0; p < g->np; p++) {
    size_t a = g->pfrom[p], b = g->pto[p];
    d->pred[b * d->W + (a >> 6)] |= UINT64_C(1) << (a & 63);
    d->succ[a * d->W + (b >> 6)] |= UINT64_C(1) << (b & 63);
  }
  return true;
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

/* Values of the states of `lo` (size k) from those of `hi` (size k + 1). */
static stp_status solve_level(const dag *d, level *lo, const level *hi, uint64_t *tmp,
                              stp_error *err) {
  size_t W = d->W;
  uint64_t last = d->n % 64 ? (UINT64_C(1) << (d->n % 64)) - 1 : ~UINT64_C(0);
  for (size_t s = 0; s < lo->n; s++) {
    const uint64_t *S = lo->keys + s * W;
    double rate = 0, acc = 1, now = NAN;
    for (size_t w = 0; w < W && isnan(now); w++) {
      uint64_t free_bits = ~S[w] & (w + 1 == W ? last : ~UINT64_C(0));
      while (free_bits) {
        size_t t = w * 64 + (size_t)__builtin_ctzll(free_bits);
        free_bits &= free_bits - 1;
        if (!ready(d, S, t)) continue;
        memcpy(tmp, S, W * 8);
        tmp[t >> 6] |= UINT64_C(1) << (t & 63);
        size_t i = level_find(hi, tmp, NULL);
        if (i == SIZE_MAX) return stp__fail(err, STP_EINTERNAL, "order ideal chain: lost a state");
        if (d->time[t] == 0) { /* instantaneous: S moves to S + t at once */
          now = hi->val[i];
          break;
        }
        rate += 1 / d->time[t];
        acc += hi->val[i] / d->time[t];
      }
    }
    lo->val[s] = isnan(now) ? acc / rate : now;
  }
  return STP_OK;
}

/* The states of size k: each state of hi minus one of its maximal elements. */
static bool expand_level(const dag *d, level *lo, const level *hi, uint64_t *tmp) {
  size_t W = d->W;
  for (size_t s = 0; s < hi->n; s++) {
    const uint64_t *S = hi->keys + s * W;
    for (size_t w = 0; w < W; w++)
      for (uint64_t bits = S[w]; bits; bits &= bits - 1) {
        size_t a = w * 64 + (size_t)__builtin_ctzll(bits);
        if (!maximal(d, S, a)) continue;
        memcpy(tmp, S, W * 8);
        tmp[a >> 6] &= ~(UINT64_C(1) << (a & 63));
        if (!level_add(lo, tmp)) return false;
      }
  }
  return true;
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
  stp_status s = STP_OK;
  if (!tmp || !level_init(&hi, W)) {
    free(tmp);
    return stp__oom(err, "order ideal chain");
  }
  memset(tmp, 0, W * 8);
  for (size_t t = 0; t < d->n; t++) tmp[t >> 6] |= UINT64_C(1) << (t & 63);
  if (!level_add(&hi, tmp)) s = stp__oom(err, "order ideal chain");
  if (hi.val) hi.val[0] = 0;
  st->states = 1;
  st->peak_level = 1;
  for (size_t k = d->n; s == STP_OK && k-- > 0;) {
    if (stp__cancelled(cancel)) {
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
      break;
    }
    if (!level_init(&lo, W) || !expand_level(d, &lo, &hi, tmp)) {
      level_free(&lo);
      s = stp__oom(err, "order ideal chain");
      break;
    }
    st->states += lo.n;
    if (lo.n > st->peak_level) st->peak_level = lo.n;
    size_t bytes = level_bytes(&lo) + level_bytes(&hi);
    if (bytes > st->peak_bytes) st->peak_bytes = bytes;
    if (st->states > max_states) {
      level_free(&lo);
      s = too_many(err, max_states, "");
      break;
    }
    s = solve_level(d, &lo, &hi, tmp, err);
    level_free(&hi);
    hi = lo;
  }
  if (s == STP_OK) *makespan = hi.val[0];
  level_free(&hi);
  free(tmp);
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
    snprintf(how, sizeof how, " (%zu transitions are pairwise independent: at least 2^%zu)", layer,
             layer);
    s = too_many(err, max_states, how);
  } else
    s = walk(&d, max_states, cancel, makespan, st, err);
  dag_free(&d);
  return s;
}
