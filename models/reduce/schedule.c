/* schedule.c: reception orders and earliest times of a reduction tree
 * (schedule.h).  One pass from machine n down to the sink: when machine u
 * is reached, every sender of u (a larger index) already knows when it is
 * ready, so u's senders can be sorted and u's receptions and reductions
 * timed.  O(n log n) for the sorts, O(n) otherwise. */
#include "models/reduce/schedule.h"

#include "base/core.h"

#include <stdlib.h>

typedef struct keyed {
  stp__rtime t;
  uint64_t v;
} keyed;

static int by_ready(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  int c = stp__rtime_cmp(a->t, b->t);
  if (c)
    return c;
  return a->v > b->v ? -1 : a->v < b->v; /* ties: larger index first */
}

void stp__schedule_free(stp__schedule *s) {
  if (!s)
    return;
  free(s->first);
  free(s->recv);
  free(s->pos);
  free(s->ready);
  free(s->start);
  *s = (stp__schedule){0};
}

static stp_status alloc(uint64_t n, stp__schedule *s, stp_error *err) {
  size_t m = (size_t)n + 2;
  *s = (stp__schedule){.n = n};
  s->first = stp__calloc(m, sizeof *s->first);
  s->recv = stp__calloc(m, sizeof *s->recv);
  s->pos = stp__calloc(m, sizeof *s->pos);
  s->ready = stp__calloc(m, sizeof *s->ready);
  s->start = stp__calloc(m, sizeof *s->start);
  if (!s->first || !s->recv || !s->pos || !s->ready || !s->start) {
    stp__schedule_free(s);
    return stp__oom(err, "reduction schedule");
  }
  return STP_OK;
}

/* Counting sort of the senders by child: recv[first[u]..] unsorted. */
static void group(uint64_t n, const uint64_t *child, stp__schedule *s) {
  for (uint64_t v = 2; v <= n; v++)
    s->first[child[v] + 1]++;
  for (uint64_t u = 1; u <= n; u++)
    s->first[u + 1] += s->first[u];
  /* first[u] now starts u's block (first[1] = 0); fill with a moving cursor
   * kept in pos[], then reset pos. */
  for (uint64_t u = 1; u <= n; u++)
    s->pos[u] = s->first[u];
  for (uint64_t v = 2; v <= n; v++)
    s->recv[s->pos[child[v]]++] = v;
}

/* Sorts u's senders by key (scratch: buf, as large as the largest block). */
static void sort_block(const stp__schedule *s, uint64_t u, const stp__rtime *key, keyed *buf) {
  uint64_t a = s->first[u], b = s->first[u + 1];
  for (uint64_t j = a; j < b; j++)
    buf[j - a] = (keyed){key[s->recv[j]], s->recv[j]};
  qsort(buf, (size_t)(b - a), sizeof *buf, by_ready);
  for (uint64_t j = a; j < b; j++) {
    s->recv[j] = buf[j - a].v;
    s->pos[buf[j - a].v] = j - a;
  }
}

static keyed *scratch(const stp__schedule *s, uint64_t n) {
  uint64_t big = 1;
  for (uint64_t u = 1; u <= n; u++)
    if (s->first[u + 1] - s->first[u] > big)
      big = s->first[u + 1] - s->first[u];
  return stp__calloc((size_t)big, sizeof(keyed));
}

/* The arrays, senders grouped by child, and the sorting scratch *buf
 * (the caller frees it); on failure nothing is left allocated. */
static stp_status prepare(uint64_t n, const uint64_t *child, stp__schedule *out, keyed **buf,
                          stp_error *err) {
  STP_CHECK(alloc(n, out, err));
  group(n, child, out);
  if ((*buf = scratch(out, n)))
    return STP_OK;
  stp__schedule_free(out);
  return stp__oom(err, "reduction schedule");
}

stp_status stp__schedule_orders(uint64_t n, const uint64_t *child, const stp__rtime *key,
                                stp__schedule *out, stp_error *err) {
  keyed *buf;
  STP_CHECK(prepare(n, child, out, &buf, err));
  for (uint64_t u = 1; u <= n; u++)
    sort_block(out, u, key, buf);
  free(buf);
  return STP_OK;
}

/* Times u's receptions and reductions once its senders are ready. */
static void time_machine(stp__schedule *s, uint64_t u, stp__rcost k) {
  stp__rtime port = {0, 0, 0}, reduced = {0, 0, 0}; /* port free / local value ready at 0 */
  for (uint64_t j = s->first[u]; j < s->first[u + 1]; j++) {
    uint64_t v = s->recv[j];
    stp__rtime x = stp__rtime_max(s->ready[v], port); /* X_v */
    s->start[v] = x;
    port = stp__rtime_add(k, x, 1, 0);
    reduced = stp__rtime_add(k, stp__rtime_max(port, reduced), 0, 1); /* C_{u,j} */
  }
  s->ready[u] = reduced;
}

stp_status stp__schedule_eval(uint64_t n, const uint64_t *child, stp__rcost k,
                              stp__schedule *out, stp_error *err) {
  keyed *buf;
  STP_CHECK(prepare(n, child, out, &buf, err));
  for (uint64_t u = n; u >= 1; u--) {
    sort_block(out, u, out->ready, buf);
    time_machine(out, u, k);
  }
  free(buf);
  out->makespan = out->ready[1];
  return STP_OK;
}
