/* greedy.c: Algorithms 1, 2 and 3 of RR-7898 (greedy.h).  s_j is the
 * paper's soonest time (time reversed) at which machine j can compute and
 * send an element; the candidates are kept sorted by (s_j, j), so the first
 * is the argmin with the smallest index on ties: two FIFO queues for
 * Algorithms 1 and 3 (see below), a binary heap for Algorithm 2. */
#include "models/reduce/greedy.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>

typedef struct heap {
  uint64_t *a; /* machine indices; a[0] is the top */
  size_t len;
  const stp__rtime *s;
} heap;

static bool before(const heap *h, uint64_t x, uint64_t y) {
  int c = stp__rtime_cmp(h->s[x], h->s[y]);
  return c < 0 || (c == 0 && x < y);
}

static void sift_down(heap *h, size_t i) {
  uint64_t x = h->a[i];
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    uint64_t best = x;
    if (l < h->len && before(h, h->a[l], best))
      m = l, best = h->a[l];
    if (l + 1 < h->len && before(h, h->a[l + 1], best))
      m = l + 1, best = h->a[l + 1];
    if (m == i)
      break;
    h->a[i] = best;
    i = m;
  }
  h->a[i] = x;
}

static void push(heap *h, uint64_t x) {
  size_t i = h->len++;
  while (i > 0 && before(h, x, h->a[(i - 1) / 2])) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = x;
}

void stp__greedy_free(stp__greedy *g) {
  if (!g)
    return;
  free(g->child);
  free(g->t);
  g->child = NULL;
  g->t = NULL;
}

/* Allocates the output and the scratch s[] and heap of n + 1 entries. */
static stp_status start(uint64_t n, bool with_t, stp__greedy *out, stp__rtime **s, heap *h,
                        stp_error *err) {
  *out = (stp__greedy){.n = n};
  out->child = stp__calloc((size_t)n + 1, sizeof *out->child);
  out->t = with_t ? stp__calloc((size_t)n + 1, sizeof *out->t) : NULL;
  *s = stp__calloc((size_t)n + 1, sizeof **s);
  h->a = stp__calloc((size_t)n + 1, sizeof *h->a);
  if (!out->child || (with_t && !out->t) || !*s || !h->a) {
    stp__greedy_free(out);
    free(*s);
    free(h->a);
    *s = NULL;
    h->a = NULL;
    return stp__oom(err, "reduction tree");
  }
  h->s = *s;
  h->len = 0;
  return STP_OK;
}

static stp__rtime max_s(const stp__rtime *s, uint64_t n) {
  stp__rtime m = s[1];
  for (uint64_t i = 2; i <= n; i++)
    m = stp__rtime_max(m, s[i]);
  return m;
}

/* Algorithms 1 and 3 need no heap.  Each step pops the minimum s_M and
 * inserts two times: s_M + max(d, c) (M again) and s_M + c + d (the new
 * machine).  As the popped minimum never decreases, each kind of insertion
 * comes in nondecreasing order, and equal times of one kind come in
 * increasing index (machines with equal s_M leave in index order; new
 * machines have increasing indices).  Two FIFO queues, one per kind, thus
 * hold the candidates sorted by (s_j, j), and the minimum is the better of
 * their two fronts: O(1) a step. */
typedef struct fifo {
  uint64_t *a;
  size_t head, tail;
} fifo;

static bool fifo_first(const fifo *x, const fifo *y, const stp__rtime *s) {
  if (x->head == x->tail)
    return false;
  if (y->head == y->tail)
    return true;
  uint64_t i = x->a[x->head], j = y->a[y->head];
  int c = stp__rtime_cmp(s[i], s[j]);
  return c < 0 || (c == 0 && i < j);
}

stp_status stp__greedy_alg13(uint64_t n, stp__rcost k, uint64_t K, stp__greedy *out,
                             stp_error *err) {
  stp__rtime *s;
  heap h = {0}; /* its array serves as the two queues' storage */
  STP_CHECK(start(n, false, out, &s, &h, err));
  uint64_t *again = stp__calloc((size_t)n + 1, sizeof *again);
  if (!again) {
    stp__greedy_free(out);
    free(s);
    free(h.a);
    return stp__oom(err, "reduction tree");
  }
  fifo grown = {again, 0, 0}, fresh = {h.a, 0, 0};
  /* max(d, c) as counts: the step of line 8 (Algorithm 1) / 9 (Algorithm 3). */
  int64_t mp = k.d >= k.c ? 1 : 0, mq = 1 - mp;
  s[1] = (stp__rtime){0, 0, 0};
  fresh.a[fresh.tail++] = 1;
  for (uint64_t i = 2; i <= n; i++) {
    fifo *q = fifo_first(&grown, &fresh, s) ? &grown : &fresh;
    uint64_t M = q->a[q->head++];
    out->child[i] = M;
    s[i] = stp__rtime_add(k, s[M], 1, 1);
    s[M] = stp__rtime_add(k, s[M], mp, mq);
    grown.a[grown.tail++] = M;
    if (K == 0 || i <= K) /* Algorithm 3: only the first K machines reduce */
      fresh.a[fresh.tail++] = i;
  }
  out->length = max_s(s, n);
  free(again);
  free(s);
  free(h.a);
  return STP_OK;
}

stp_status stp__greedy_alg2(uint64_t n, stp__rcost k, uint64_t K, stp__greedy *out,
                            stp_error *err) {
  stp__rtime *s;
  heap h = {0};
  STP_CHECK(start(n, true, out, &s, &h, err));
  stp__rtime *t = out->t;
  s[1] = (stp__rtime){0, 0, 0};
  push(&h, 1);
  stp__rtime length = {0, 0, 0};
  for (uint64_t i = 2; i <= n; i++) {
    uint64_t M = h.a[0];
    stp__rtime ready = stp__rtime_add(k, s[M], 0, 1);                  /* s_M + c */
    stp__rtime slot = i >= K + 2 ? t[i - K] : (stp__rtime){0, 0, 0};  /* t_{i-K}, 0 below 2 */
    t[i] = stp__rtime_add(k, stp__rtime_max(ready, slot), 1, 0);   /* line 8 */
    s[i] = t[i];                                                    /* line 9 */
    s[M] = stp__rtime_max(ready, stp__rtime_add(k, t[i], 0, -1));   /* line 10 */
    out->child[i] = M;
    sift_down(&h, 0);
    push(&h, i);
    length = stp__rtime_max(length, t[i]);
  }
  out->length = length;
  free(s);
  free(h.a);
  return STP_OK;
}

/* ---- a specification's tree ------------------------------------------------------ */

stp_status stp__reduce_check(const stp_reduce_spec *s, stp_error *err) {
  if (s->n < 1)
    return stp__fail(err, STP_EINVAL, "n = %llu: at least one element is needed",
                     (unsigned long long)s->n);
  if (s->n > STP_REDUCE_MAX_N)
    return stp__fail(err, STP_ELIMIT, "n = %llu is beyond the limit of %llu machines",
                     (unsigned long long)s->n, (unsigned long long)STP_REDUCE_MAX_N);
  if (!isfinite(s->d) || s->d < 0 || (s->d != 0 && (s->d < STP_TIME_MIN || s->d > STP_TIME_MAX)))
    return stp__fail(err, STP_EINVAL, "d = %g: the transfer time must be 0 or within [%g, %g]",
                     s->d, STP_TIME_MIN, STP_TIME_MAX);
  if (!isfinite(s->c) || s->c < 0 || (s->c != 0 && (s->c < STP_TIME_MIN || s->c > STP_TIME_MAX)))
    return stp__fail(err, STP_EINVAL, "c = %g: the reduction time must be 0 or within [%g, %g]",
                     s->c, STP_TIME_MIN, STP_TIME_MAX);
  if (s->d + s->c <= 0)
    return stp__fail(err, STP_EINVAL, "d = c = 0: one of the two times must be positive");
  if (s->algorithm != STP_REDUCE_ALG1 && s->algorithm != STP_REDUCE_ALG2 &&
      s->algorithm != STP_REDUCE_ALG3)
    return stp__fail(err, STP_EINVAL, "unknown algorithm %d", (int)s->algorithm);
  if ((unsigned)s->tree > STP_REDUCE_FIBONACCI)
    return stp__fail(err, STP_EINVAL, "unknown tree %d", (int)s->tree);
  if (s->algorithm != STP_REDUCE_ALG1 && s->K < 1)
    return stp__fail(err, STP_EINVAL, "K = 0: the limit of Algorithm %d must be >= 1",
                     (int)s->algorithm);
  if (s->algorithm == STP_REDUCE_ALG2 && s->tree != STP_REDUCE_OPTIMAL)
    return stp__fail(err, STP_EINVAL,
                     "Algorithm 2 (at most K transfers) builds the optimal tree only, not the "
                     "%s one: its transfer times are those of the real costs",
                     stp_reduce_tree_name(s->tree));
  return STP_OK;
}

/* The costs with which the tree is built (section 7.3 of the paper). */
static stp__rcost construction_cost(const stp_reduce_spec *s) {
  switch (s->tree) {
  case STP_REDUCE_BINOMIAL: return (stp__rcost){fmax(s->d, s->c), 0};
  case STP_REDUCE_FIBONACCI: return (stp__rcost){1, 1};
  default: return (stp__rcost){s->d, s->c};
  }
}

stp_status stp__greedy_build(const stp_reduce_spec *spec, stp__greedy *out, stp_error *err) {
  STP_CHECK(stp__reduce_check(spec, err));
  if (spec->algorithm == STP_REDUCE_ALG2)
    return stp__greedy_alg2(spec->n, (stp__rcost){spec->d, spec->c}, spec->K, out, err);
  return stp__greedy_alg13(spec->n, construction_cost(spec),
                           spec->algorithm == STP_REDUCE_ALG3 ? spec->K : 0, out, err);
}
