/* heuristics.c: the inter-cluster schedules of Steffenel 2006, section 5
 * (Flat, FEF, ECEF, ECEF-LA, ECEF-LAt, ECEF-LAT, BottomUp), with the pair
 * rules and tie-breaks of docs/format.md.  Round after round a sender i of
 * A (clusters holding the message) and a receiver j of B are picked; the
 * send starts at RT_i, holds i for g_ij, and j has the message L_ij later.
 * Every cluster broadcasts inside after its last send. */
#include "models/bcast/platform.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const heuristic_names[STP_BCAST_HEURISTIC_COUNT] = {
    "flat", "fef", "ecef", "ecef-la", "ecef-lat", "ecef-lat-max", "bottomup"};

const char *stp_bcast_heuristic_name(stp_bcast_heuristic h) {
  return (unsigned)h < STP_BCAST_HEURISTIC_COUNT ? heuristic_names[h] : "?";
}

stp_status stp_bcast_heuristic_parse(const char *s, stp_bcast_heuristic *h) {
  for (unsigned k = 0; k < STP_BCAST_HEURISTIC_COUNT; k++)
    if (s && strcmp(s, heuristic_names[k]) == 0) {
      *h = (stp_bcast_heuristic)k;
      return STP_OK;
    }
  return STP_EINVAL;
}

/* Ties within rounding go to the pair met first (smallest (i, j)): sums of
 * the same times taken in another order must not break a tie. */
#define TIE_REL 1e-12

static bool better(double v, double best, bool maximise) {
  if (isnan(best))
    return true;
  if (stp__close(v, best, TIE_REL, 0))
    return false;
  return maximise ? v > best : v < best;
}

typedef struct state {
  const stp__bcast_times *t;
  stp_bcast_heuristic h;
  bool *inA;
  double *RT;
  double *F; /* lookahead of each j in B, this round */
} state;

static double cost(const state *st, size_t i, size_t j) {
  size_t n = st->t->n;
  return st->RT[i] + st->t->G[i * n + j] + st->t->L[i * n + j];
}

/* F_j over k in B, k != j (0 when B = {j}): g_jk + L_jk (+ T_k), min or max. */
static void lookahead(state *st) {
  const stp__bcast_times *t = st->t;
  size_t n = t->n;
  bool with_T = st->h != STP_BCAST_ECEF_LA, maximise = st->h == STP_BCAST_ECEF_LAT_MAX;
  for (size_t j = 0; j < n; j++) {
    if (st->inA[j])
      continue;
    double f = NAN;
    for (size_t k = 0; k < n; k++) {
      if (st->inA[k] || k == j)
        continue;
      double v = t->G[j * n + k] + t->L[j * n + k] + (with_T ? t->T[k] : 0);
      if (isnan(f) || (maximise ? v > f : v < f))
        f = v;
    }
    st->F[j] = isnan(f) ? 0 : f;
  }
}

/* The value a pair (i, j) is ranked by (smaller is better). */
static double pair_value(const state *st, size_t i, size_t j) {
  size_t n = st->t->n;
  switch (st->h) {
  case STP_BCAST_FEF: return st->t->L[i * n + j];
  case STP_BCAST_ECEF: return cost(st, i, j);
  default: return cost(st, i, j) + st->F[j]; /* the ECEF-LA family */
  }
}

/* flat: (root, smallest j in B). */
static void pick_flat(const state *st, size_t *bi, size_t *bj) {
  *bi = st->t->root;
  for (size_t j = 0; j < st->t->n; j++)
    if (!st->inA[j]) {
      *bj = j;
      return;
    }
}

/* fef, ecef, ecef-la*: the pair of least value, ties to the smallest (i, j). */
static void pick_min_pair(const state *st, size_t *bi, size_t *bj) {
  double best = NAN;
  for (size_t i = 0; i < st->t->n; i++) {
    if (!st->inA[i])
      continue;
    for (size_t j = 0; j < st->t->n; j++) {
      if (st->inA[j])
        continue;
      double v = pair_value(st, i, j);
      if (better(v, best, false)) {
        best = v;
        *bi = i;
        *bj = j;
      }
    }
  }
}

/* bottomup: j maximising min_i (RT_i + g_ij + L_ij + T_j) (ties: smallest
 * j), sent by its argmin i (smallest i). */
static void pick_bottomup(const state *st, size_t *bi, size_t *bj) {
  double best = NAN;
  for (size_t j = 0; j < st->t->n; j++) {
    if (st->inA[j])
      continue;
    double m = NAN;
    size_t arg = 0;
    for (size_t i = 0; i < st->t->n; i++) {
      if (!st->inA[i])
        continue;
      double v = cost(st, i, j) + st->t->T[j];
      if (better(v, m, false)) {
        m = v;
        arg = i;
      }
    }
    if (better(m, best, true)) {
      best = m;
      *bi = arg;
      *bj = j;
    }
  }
}

/* One send per round; the lookahead heuristics cost O(C^2) a round, so
 * Ctrl-C is polled and progress reported every round. */
static stp_status run_rounds(state *st, const stp_control *control, stp_bcast_schedule *s,
                             stp_error *err) {
  const stp__bcast_times *t = st->t;
  size_t n = t->n;
  double t0 = stp__now();
  for (size_t r = 0; r + 1 < n; r++) {
    stp__progress(control, "broadcast rounds", r, n - 1, t0);
    if (stp__cancelled(&control->cancel))
      return stp__fail(err, STP_EINTERRUPTED, "%s: interrupted at round %zu of %zu",
                       stp_bcast_heuristic_name(st->h), r + 1, n - 1);
    size_t i = 0, j = 0;
    switch (st->h) {
    case STP_BCAST_FLAT: pick_flat(st, &i, &j); break;
    case STP_BCAST_BOTTOMUP: pick_bottomup(st, &i, &j); break;
    case STP_BCAST_ECEF_LA:
    case STP_BCAST_ECEF_LAT:
    case STP_BCAST_ECEF_LAT_MAX: lookahead(st); /* fall through */
    default: pick_min_pair(st, &i, &j); break;
    }
    double start = st->RT[i];
    st->RT[i] = start + t->G[i * n + j];
    st->RT[j] = st->RT[i] + t->L[i * n + j];
    st->inA[j] = true;
    s->sends[r] = (stp_bcast_send){.from = i, .to = j, .start = start, .arrival = st->RT[j]};
  }
  return STP_OK;
}

void stp_bcast_schedule_free(stp_bcast_schedule *s) {
  if (!s)
    return;
  free(s->T);
  free(s->ready);
  free(s->sends);
  memset(s, 0, sizeof *s);
}

stp_status stp_bcast_schedule_compute(const stp_bcast_platform *p, const stp_bcast_options *o,
                                      stp_bcast_heuristic h, stp_bcast_schedule *out,
                                      stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_bcast_schedule_compute: out is NULL");
  memset(out, 0, sizeof *out);
  if (!p || !o || (unsigned)h >= STP_BCAST_HEURISTIC_COUNT)
    return stp__fail(err, STP_EINVAL, "stp_bcast_schedule_compute: bad arguments");
  stp__bcast_times t;
  STP_CHECK(stp__bcast_times_resolve(p, o, &t, err));
  size_t n = p->n;
  state st = {.t = &t, .h = h, .inA = stp__calloc(n, sizeof(bool)),
              .RT = stp__calloc(n, sizeof(double)), .F = stp__calloc(n, sizeof(double))};
  *out = (stp_bcast_schedule){.heuristic = h, .root = t.root, .nclusters = n, .ready = st.RT,
                              .sends = stp__calloc(n, sizeof *out->sends)};
  stp_status s = STP_OK;
  if (!st.inA || !st.RT || !st.F || !out->sends) {
    s = stp__oom(err, "scheduling a broadcast");
  } else {
    st.inA[t.root] = true;
    s = run_rounds(&st, &o->control, out, err);
  }
  if (s == STP_OK) {
    for (size_t j = 0; j < n; j++)
      out->makespan = fmax(out->makespan, st.RT[j] + t.T[j]);
    out->T = t.T; /* now the schedule's */
    t.T = NULL;
  }
  free(st.inA);
  free(st.F);
  stp__bcast_times_free(&t);
  if (s != STP_OK)
    stp_bcast_schedule_free(out);
  return s;
}
