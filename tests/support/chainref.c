/* chainref.c: naive reference chains and dense stationary solves for the
 * tests (see chainref.h). */
#include "chainref.h"

#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* ---- enumeration by token vectors ---------------------------------------------- */

typedef struct ref_store {
  size_t n, cap, places;
  uint8_t *tok; /* n * places */
} ref_store;

static size_t store_find_or_add(ref_store *st, const uint8_t *m, size_t max_states) {
  for (size_t s = 0; s < st->n; s++)
    if (memcmp(st->tok + s * st->places, m, st->places) == 0)
      return s;
  cr_assert(st->n < max_states, "the reference enumeration exceeds %zu markings", max_states);
  if (st->n == st->cap) {
    st->cap = st->cap ? 2 * st->cap : 64;
    st->tok = realloc(st->tok, st->cap * st->places);
    cr_assert(st->tok);
  }
  memcpy(st->tok + st->n * st->places, m, st->places);
  return st->n++;
}

static void push_move(ref_chain *c, size_t *cap, ref_move mv) {
  if (c->nmoves == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    c->moves = realloc(c->moves, *cap * sizeof *c->moves);
    cr_assert(c->moves);
  }
  c->moves[c->nmoves++] = mv;
}

ref_chain ref_enumerate(const stp_digraph *g, const double *time, size_t max_states) {
  ref_chain c = {.nevents = g->n};
  ref_store st = {.places = (size_t)g->m};
  uint8_t *m = malloc(g->m + 1), *next = malloc(g->m + 1);
  cr_assert(m && next);
  for (uint64_t e = 0; e < g->m; e++)
    m[e] = (uint8_t)g->tok[e];
  store_find_or_add(&st, m, max_states);
  size_t cap = 0;
  for (size_t s = 0; s < st.n; s++) {
    memcpy(m, st.tok + s * st.places, st.places);
    for (uint32_t t = 0; t < g->n; t++) {
      bool ok = true; /* every input place of t (an edge into t) holds a token */
      for (uint64_t e = 0; e < g->m && ok; e++)
        ok = g->dst[e] != t || m[e] > 0;
      if (!ok)
        continue;
      memcpy(next, m, st.places);
      for (uint64_t e = 0; e < g->m; e++) {
        if (g->dst[e] == t)
          next[e]--;
        if (g->src[e] == t)
          next[e]++;
      }
      size_t to = store_find_or_add(&st, next, max_states);
      push_move(&c, &cap, (ref_move){s, to, t, 1.0 / time[t]});
    }
  }
  c.n = st.n;
  free(st.tok);
  free(m);
  free(next);
  return c;
}

void ref_chain_free(ref_chain *c) {
  free(c->moves);
  memset(c, 0, sizeof *c);
}

/* ---- dense stationary solve ------------------------------------------------------ */

double *ref_stationary(const ref_chain *c) {
  size_t n = c->n;
  double *a = calloc(n * n, sizeof *a), *pi = calloc(n, sizeof *pi);
  cr_assert(a && pi);
  /* a = Q^T: a[j][i] = Q[i][j]. */
  for (size_t k = 0; k < c->nmoves; k++) {
    const ref_move *mv = &c->moves[k];
    if (mv->from == mv->to)
      continue;
    a[mv->to * n + mv->from] += mv->rate;
    a[mv->from * n + mv->from] -= mv->rate;
  }
  for (size_t i = 0; i < n; i++)
    a[(n - 1) * n + i] = 1;
  pi[n - 1] = 1;
  for (size_t col = 0; col < n; col++) {
    size_t piv = col;
    for (size_t r = col + 1; r < n; r++)
      if (fabs(a[r * n + col]) > fabs(a[piv * n + col]))
        piv = r;
    cr_assert(fabs(a[piv * n + col]) > 0, "singular reference system");
    for (size_t k = 0; k < n; k++) {
      double t = a[col * n + k];
      a[col * n + k] = a[piv * n + k];
      a[piv * n + k] = t;
    }
    double t = pi[col];
    pi[col] = pi[piv];
    pi[piv] = t;
    for (size_t r = col + 1; r < n; r++) {
      double f = a[r * n + col] / a[col * n + col];
      for (size_t k = col; k < n; k++)
        a[r * n + k] -= f * a[col * n + k];
      pi[r] -= f * pi[col];
    }
  }
  for (size_t r = n; r-- > 0;) {
    double s = pi[r];
    for (size_t k = r + 1; k < n; k++)
      s -= a[r * n + k] * pi[k];
    pi[r] = s / a[r * n + r];
  }
  free(a);
  return pi;
}

double ref_rate(const ref_chain *c, const double *pi, const uint8_t *counted) {
  double *fire = calloc(c->nevents + 1, sizeof *fire), low = INFINITY;
  cr_assert(fire);
  for (size_t k = 0; k < c->nmoves; k++)
    fire[c->moves[k].event] += pi[c->moves[k].from] * c->moves[k].rate;
  size_t n = 0;
  for (uint32_t t = 0; t < c->nevents; t++)
    if (!counted || counted[t]) {
      low = fmin(low, fire[t]);
      n++;
    }
  free(fire);
  return (double)n * low;
}

/* ---- isomorphism ----------------------------------------------------------------- */

/* The move of c out of s labelled `event`, or -1. */
static int64_t move_by_event(const stp_chain *c, int64_t s, uint32_t event, double *rate) {
  for (int64_t e = c->moves->p[s]; e < c->moves->p[s + 1]; e++)
    if (c->event[e] == event) {
      *rate = c->moves->x[e];
      return c->moves->j[e];
    }
  return -1;
}

/* Try the bijection that sends r's state 0 to c's state start. */
static bool try_from(const ref_chain *r, const stp_chain *c, int64_t start, int64_t *r2c,
                     int64_t *c2r) {
  size_t n = r->n;
  for (size_t s = 0; s < n; s++)
    r2c[s] = c2r[s] = -1;
  size_t *first = calloc(n + 1, sizeof *first);
  cr_assert(first);
  for (size_t k = 0; k < r->nmoves; k++)
    first[r->moves[k].from + 1]++;
  for (size_t s = 0; s < n; s++)
    first[s + 1] += first[s];
  /* moves are listed state by state in ref_enumerate, so first[] indexes them */
  r2c[0] = start;
  c2r[start] = 0;
  bool ok = true;
  for (size_t s = 0; s < n && ok; s++) { /* states are numbered in BFS order */
    int64_t cs = r2c[s];
    ok = cs >= 0 && (size_t)(c->moves->p[cs + 1] - c->moves->p[cs]) == first[s + 1] - first[s];
    for (size_t k = first[s]; ok && k < first[s + 1]; k++) {
      const ref_move *mv = &r->moves[k];
      double rate;
      int64_t ct = move_by_event(c, cs, mv->event, &rate);
      ok = ct >= 0 && stp__close(rate, mv->rate, 1e-15, 0);
      if (ok && r2c[mv->to] < 0 && c2r[ct] < 0) {
        r2c[mv->to] = ct;
        c2r[ct] = (int64_t)mv->to;
      }
      ok = ok && r2c[mv->to] == ct && c2r[ct] == (int64_t)mv->to;
    }
  }
  free(first);
  return ok;
}

void ref_assert_isomorphic(const ref_chain *r, const stp_chain *c) {
  cr_assert_eq((int64_t)r->n, c->moves->nrows, "the chains have %zu and %lld states", r->n,
               (long long)c->moves->nrows);
  int64_t *r2c = malloc(r->n * sizeof *r2c), *c2r = malloc(r->n * sizeof *c2r);
  cr_assert(r2c && c2r);
  bool found = false;
  for (int64_t start = 0; start < c->moves->nrows && !found; start++)
    found = try_from(r, c, start, r2c, c2r);
  free(r2c);
  free(c2r);
  cr_assert(found, "no state of the chain starts a copy of the reference chain");
}
