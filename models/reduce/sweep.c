/* sweep.c: makespans of n = 1..N in one pass (stp_reduce_sweep in
 * streamtp_reduce.h).  The paper's algorithms add machines in index order
 * and never revise a choice, so machine n + 1 joins the tree of n as a leaf
 * of child[n + 1].  A leaf is ready at 0 and has the largest index, so it
 * is received first; its child's reductions shift, the child becomes ready
 * later, moves back in its own child's order, and so on to the sink: only
 * that path is retimed, and the walk stops where a ready time does not
 * change.  The result equals stp_reduce_build's at every n (the tests
 * check it). */
#include "streamtp_reduce.h"

#include "base/core.h"
#include "models/reduce/greedy.h"

#include <stdlib.h>

struct stp_reduce_sweep {
  stp_reduce_spec spec;
  stp__rcost k;
  stp__greedy tree;
  uint64_t n;          /* machines so far */
  uint64_t *first;     /* u's block: recv[first[u] .. first[u] + len[u] - 1] */
  uint64_t *len;
  uint64_t *recv;      /* senders in reception order */
  uint64_t *pos;       /* pos[v]: v's place in its child's block */
  stp__rtime *ready;   /* end of the last reduction of u */
  stp__rtime alg2_len; /* Algorithm 2: max t_i so far */
};

void stp_reduce_sweep_free(stp_reduce_sweep *s) {
  if (!s)
    return;
  stp__greedy_free(&s->tree);
  free(s->first);
  free(s->len);
  free(s->recv);
  free(s->pos);
  free(s->ready);
  free(s);
}

static stp_status alloc_blocks(stp_reduce_sweep *s, stp_error *err) {
  size_t m = (size_t)s->spec.n + 2;
  s->first = stp__calloc(m, sizeof *s->first);
  s->len = stp__calloc(m, sizeof *s->len);
  s->recv = stp__calloc(m, sizeof *s->recv);
  s->pos = stp__calloc(m, sizeof *s->pos);
  s->ready = stp__calloc(m, sizeof *s->ready);
  if (!s->first || !s->len || !s->recv || !s->pos || !s->ready)
    return stp__oom(err, "reduction sweep");
  /* blocks sized by the senders each machine has in the tree of N */
  for (uint64_t v = 2; v <= s->spec.n; v++)
    s->first[s->tree.child[v] + 1]++;
  for (uint64_t u = 1; u <= s->spec.n; u++)
    s->first[u + 1] += s->first[u];
  return STP_OK;
}

stp_status stp_reduce_sweep_new(const stp_reduce_spec *spec, stp_reduce_sweep **out,
                                stp_error *err) {
  *out = NULL;
  stp_reduce_sweep *s = stp__calloc(1, sizeof *s);
  if (!s)
    return stp__oom(err, "reduction sweep");
  s->spec = *spec;
  s->k = (stp__rcost){spec->d, spec->c};
  stp_status st = stp__reduce_check(spec, err);
  if (st == STP_OK)
    st = stp__reduce_check_memory(spec, err);
  if (st == STP_OK)
    st = stp__greedy_build(spec, &s->tree, err);
  if (st == STP_OK && spec->algorithm != STP_REDUCE_ALG2)
    st = alloc_blocks(s, err);
  if (st != STP_OK) {
    stp_reduce_sweep_free(s);
    return st;
  }
  *out = s;
  return STP_OK;
}

/* u's ready time from its current receptions (schedule.c's rule). */
static stp__rtime retime(const stp_reduce_sweep *s, uint64_t u) {
  stp__rtime port = {0, 0, 0}, reduced = {0, 0, 0};
  for (uint64_t j = s->first[u]; j < s->first[u] + s->len[u]; j++) {
    stp__rtime x = stp__rtime_max(s->ready[s->recv[j]], port);
    port = stp__rtime_add(s->k, x, 1, 0);
    reduced = stp__rtime_add(s->k, stp__rtime_max(port, reduced), 0, 1);
  }
  return reduced;
}

/* a is received before b: earlier ready time, ties larger index first. */
static bool before(const stp_reduce_sweep *s, uint64_t a, uint64_t b) {
  int c = stp__rtime_cmp(s->ready[a], s->ready[b]);
  return c < 0 || (c == 0 && a > b);
}

/* u became ready later: move it back in its child's order. */
static void move_back(stp_reduce_sweep *s, uint64_t u) {
  uint64_t w = s->tree.child[u], *b = s->recv + s->first[w], j = s->pos[u];
  while (j + 1 < s->len[w] && before(s, b[j + 1], u)) {
    b[j] = b[j + 1];
    s->pos[b[j]] = j;
    j++;
  }
  b[j] = u;
  s->pos[u] = j;
}

static void add_leaf(stp_reduce_sweep *s, uint64_t v) {
  uint64_t u = s->tree.child[v], *b = s->recv + s->first[u];
  for (uint64_t j = s->len[u]; j > 0; j--) {
    b[j] = b[j - 1];
    s->pos[b[j]] = j;
  }
  b[0] = v; /* ready at 0 with the largest index: received first */
  s->pos[v] = 0;
  s->len[u]++;
  s->ready[v] = (stp__rtime){0, 0, 0};
  for (;;) {
    stp__rtime was = s->ready[u];
    s->ready[u] = retime(s, u);
    if (u == 1 || stp__rtime_cmp(s->ready[u], was) == 0)
      break;
    move_back(s, u);
    u = s->tree.child[u];
  }
}

int stp_reduce_sweep_next(stp_reduce_sweep *s, uint64_t *n, double *makespan) {
  if (s->n >= s->spec.n)
    return 0;
  uint64_t v = ++s->n;
  if (s->spec.algorithm == STP_REDUCE_ALG2) {
    if (v >= 2)
      s->alg2_len = stp__rtime_max(s->alg2_len, s->tree.t[v]);
    *makespan = s->alg2_len.v;
  } else {
    if (v >= 2)
      add_leaf(s, v);
    *makespan = s->ready[1].v;
  }
  *n = v;
  return 1;
}
