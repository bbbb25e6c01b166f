/* bound_teams.c: the team bound (optimize.h, "bounds"; docs/design.md,
 * "Choosing the mapping"): the largest, over every vector of team sizes,
 * of the throughput that the members' resource cycle-times allow once the
 * sizes fix the link patterns between consecutive teams and the teams are
 * disjoint.  The counting bound gives every processor its fastest partner
 * and lets every stage take the fastest processors; this one knows how
 * many partners each member has, and which stage gets which processor.
 *
 * Why it is an upper bound.  Take any mapping, of sizes R (R_i = |team i|)
 * and value theta (det or exp; exp <= det).  With g = gcd(R_i, R_{i+1}),
 * u_i = R_i / g and v_i = R_{i+1} / g, the member p of team i sends its
 * data sets in turn to v_i distinct members of team i+1 (those at the
 * positions of its own class mod g), each equally often, and receives
 * from u_{i-1} distinct members of team i-1 (docs/design.md 3, the
 * resource cycle-times):
 *   C_comp(p) = c_i(p) / R_i,
 *   C_out(p)  = sum over its receivers q of d_i(p, q) / (R_i v_i)
 *            >= OUT_i(p, v_i) / (v_i R_i),
 *   C_in(p)   = sum over its senders a of d_{i-1}(a, p) / (R_i u_{i-1})
 *            >= IN_i(p, u_{i-1}) / (u_{i-1} R_i),
 * where OUT_i(p, v) is the sum of the v smallest transfer times from p to
 * processors allowed at stage i+1 (other than p, with a usable link), and
 * IN_i(p, u) that of the u smallest into p from processors allowed at
 * i-1: the actual partners are such processors, distinct.  The period is
 * at least every resource cycle-time, C_exec(p) = max of the three
 * (Overlap) or their sum (Strict), so theta <= e_i(p) = R_i / t_i(p),
 * t_i(p) = R_i C_exec's lower bound above, for every member p of every
 * team.  Hence at theta each free stage i finds R_i processors with
 * e_i(p) >= theta, distinct from the other stages' (the teams are
 * disjoint): a b-matching of stages to processors exists (Hall), and every
 * member of a fixed team has e_i(p) >= theta.  theta*(R), the largest
 * theta for which this holds, is therefore >= theta; it is one of the
 * values e_i(p) (the matching changes only there), found by bisection over
 * them.  Every mapping has some sizes R, so max over R of theta*(R) bounds
 * every mapping.  The sizes are enumerated depth first, a profile (or a
 * prefix of one) skipped when even without the matching (the R_i-th
 * largest e_i of each stage whose partners are known; v = 1 for the last
 * sized stage, a lower t since OUT_i(p, v) / v grows with v) it cannot
 * exceed the largest theta* found: those it skips are below that maximum.
 * When the work budget or the cancel stops the enumeration, no bound comes
 * out of it (the caller's stands). */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The tables of partner sums hold N x M x (kmax + 1) values each; above
 * this many the team bound is not computed (2 x 16 MB). */
#define TEAM_TABLE_CELLS ((size_t)1 << 21)
/* At most this many values in the sorted lists of t_i for the (u, v) met. */
#define TEAM_SORTED_CELLS ((size_t)1 << 22)
/* The enumeration's work in table reads: a node costs N, a matching
 * slots x N x M; past it the enumeration gives up.  About 0.1-0.3 s. */
#define TEAM_WORK 3e7
/* The cancel is polled every this many units of work. */
#define TEAM_POLL 1e5

typedef struct team_bound {
  const stp_opt_space *sp;
  size_t N, M, K;
  bool strict;
  double *in, *out;   /* N * M * (K + 1): IN_i(p, k), OUT_i(p, k); INFINITY when fewer */
  size_t *list_at;    /* N * (K + 1) * (K + 1): offset + 1 of stage i's sorted t for (u, v) */
  size_t *list_n;     /* same: how many finite */
  double *pool;       /* the sorted lists */
  size_t pool_used, pool_cap;
  size_t *size;       /* N: the profile being built */
  double best;        /* the largest theta* so far */
  double work, next_poll;
  bool stopped;       /* budget or cancel: no bound */
  const stp_cancel *cancel;
  /* the matching's scratch */
  unsigned char *acc; /* N * M: e_i(p) >= theta */
  size_t *match;      /* M: the stage p serves, STP_OPT_NONE */
  unsigned char *seen;
  double *cand;       /* N * M: the values bisected */
} team_bound;

static void tb_free(team_bound *t) {
  free(t->in);
  free(t->out);
  free(t->list_at);
  free(t->list_n);
  free(t->pool);
  free(t->size);
  free(t->acc);
  free(t->match);
  free(t->seen);
  free(t->cand);
}

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Prefix sums of the sorted transfer times of stage `st`'s output between
 * p and the processors allowed at stage `other` (into p when into):
 * row[k] for k = 0..K, INFINITY past the partners there are. */
static void partner_sums(const team_bound *t, size_t st, size_t other, size_t p, bool into,
                         double *scratch, double *row) {
  const stp_opt_space *sp = t->sp;
  size_t n = 0;
  for (size_t q = 0; q < t->M; q++) {
    if (q == p || !sp->allowed[other * t->M + q])
      continue;
    size_t from = into ? q : p, to = into ? p : q;
    double bw = sp->bw[from * t->M + to];
    if (bw > 0 && stp__opt_link_ok(sp, st, from, to))
      scratch[n++] = sp->plat->stages[st].output / bw;
  }
  qsort(scratch, n, sizeof *scratch, by_double);
  row[0] = 0;
  for (size_t k = 1; k <= t->K; k++)
    row[k] = k <= n ? row[k - 1] + scratch[k - 1] : INFINITY;
}

static bool tb_tables(team_bound *t) {
  const stp_opt_space *sp = t->sp;
  size_t N = t->N, M = t->M, K1 = t->K + 1;
  t->in = stp__malloc_array(N * M * K1, sizeof *t->in);
  t->out = stp__malloc_array(N * M * K1, sizeof *t->out);
  t->list_at = stp__calloc(N * K1 * K1, sizeof *t->list_at);
  t->list_n = stp__calloc(N * K1 * K1, sizeof *t->list_n);
  t->size = stp__calloc(N, sizeof *t->size);
  t->acc = stp__calloc(N * M, 1);
  t->match = stp__malloc_array(M, sizeof *t->match);
  t->seen = stp__calloc(M, 1);
  t->cand = stp__malloc_array(N * M, sizeof *t->cand);
  double *scratch = stp__malloc_array(M, sizeof *scratch);
  bool ok = t->in && t->out && t->list_at && t->list_n && t->size && t->acc && t->match &&
            t->seen && t->cand && scratch;
  for (size_t i = 0; ok && i < N; i++) {
    if (stp__cancelled(t->cancel)) {
      ok = false;
      break;
    }
    for (size_t p = 0; p < M; p++) {
      double *in = t->in + (i * M + p) * K1, *out = t->out + (i * M + p) * K1;
      if (!sp->allowed[i * M + p]) {
        for (size_t k = 0; k < K1; k++)
          in[k] = out[k] = INFINITY; /* never read: p cannot serve i */
        continue;
      }
      if (i > 0)
        partner_sums(t, i - 1, i - 1, p, true, scratch, in);
      else
        memset(in, 0, K1 * sizeof *in); /* the first stage receives nothing */
      if (i + 1 < N)
        partner_sums(t, i, i + 1, p, false, scratch, out);
      else
        memset(out, 0, K1 * sizeof *out);
    }
  }
  free(scratch);
  return ok;
}

/* t_i(p) of a member with u senders and v receivers (INFINITY: it cannot). */
static double busy_time(const team_bound *t, size_t i, size_t p, size_t u, size_t v) {
  size_t K1 = t->K + 1, at = (i * t->M + p) * K1;
  double c = t->sp->comp[i * t->M + p];
  double in = u <= t->K ? t->in[at + u] / (double)u : INFINITY;
  double out = v <= t->K ? t->out[at + v] / (double)v : INFINITY;
  return t->strict ? c + in + out : fmax(c, fmax(in, out));
}

/* The free processors' t_i for (u, v), sorted (NULL: out of room). */
static const double *sorted_times(team_bound *t, size_t i, size_t u, size_t v, size_t *n) {
  size_t K1 = t->K + 1, key = (i * K1 + u) * K1 + v;
  if (t->list_at[key]) {
    *n = t->list_n[key];
    return t->pool + t->list_at[key] - 1;
  }
  if (t->pool_used + t->M > TEAM_SORTED_CELLS)
    return NULL;
  if (t->pool_used + t->M > t->pool_cap) {
    size_t cap = t->pool_cap ? 2 * t->pool_cap : 16 * t->M;
    double *p = realloc(t->pool, cap * sizeof *p);
    if (!p)
      return NULL;
    t->pool = p;
    t->pool_cap = cap;
  }
  double *list = t->pool + t->pool_used;
  size_t k = 0;
  for (size_t p = 0; p < t->M; p++) {
    if (!t->sp->allowed[i * t->M + p] || t->sp->reserved[p] != STP_OPT_NONE)
      continue;
    double b = busy_time(t, i, p, u, v);
    if (isfinite(b) && b > 0)
      list[k++] = b;
  }
  qsort(list, k, sizeof *list, by_double);
  t->list_at[key] = t->pool_used + 1;
  t->list_n[key] = k;
  t->pool_used += t->M;
  t->work += (double)t->M;
  *n = k;
  return list;
}

/* Senders per receiver into stage i and receivers per sender out of it,
 * for the sizes of stages i-1..i+1 (1 at the ends). */
static size_t senders(const team_bound *t, size_t i) {
  if (i == 0)
    return 1;
  return t->size[i - 1] / (size_t)stp__gcd_u64(t->size[i - 1], t->size[i]);
}

static size_t receivers(const team_bound *t, size_t i, size_t next) {
  if (i + 1 == t->N)
    return 1;
  return next / (size_t)stp__gcd_u64(t->size[i], next);
}

/* The most stage i can reach with v receivers per member, the matching
 * aside: a fixed team its slowest member's e_i, a free one the R_i-th
 * largest e_i of the free processors.  NaN: out of room. */
static double stage_cap(team_bound *t, size_t i, size_t v) {
  const stp_opt_space *sp = t->sp;
  size_t r = t->size[i], u = senders(t, i);
  if (stp__opt_fixed_size(sp, i)) {
    double cap = INFINITY;
    for (size_t k = sp->fixed_off[i]; k < sp->fixed_off[i + 1]; k++)
      cap = fmin(cap, (double)r / busy_time(t, i, sp->fixed[k], u, v));
    return cap;
  }
  size_t n;
  const double *list = sorted_times(t, i, u, v, &n);
  if (!list)
    return NAN;
  return r <= n ? (double)r / list[r - 1] : 0;
}

/* Whether free stage i finds one more processor able (acc) by an
 * augmenting path (Kuhn's, on the stages' slots). */
static bool augment(team_bound *t, size_t i) {
  for (size_t p = 0; p < t->M; p++) {
    if (t->seen[p] || !t->acc[i * t->M + p])
      continue;
    t->seen[p] = 1;
    if (t->match[p] == STP_OPT_NONE || augment(t, t->match[p])) {
      t->match[p] = i;
      return true;
    }
  }
  return false;
}

/* Whether every free stage i < n finds size[i] distinct free processors
 * with e_i(p) >= theta (the receivers per member in v[i]). */
static bool matches(team_bound *t, const size_t *v, double theta, size_t n) {
  const stp_opt_space *sp = t->sp;
  size_t M = t->M, slots = 0;
  for (size_t i = 0; i < n; i++) {
    if (stp__opt_fixed_size(sp, i))
      continue;
    size_t u = senders(t, i);
    for (size_t p = 0; p < M; p++)
      t->acc[i * M + p] = sp->allowed[i * M + p] && sp->reserved[p] == STP_OPT_NONE &&
                          (double)t->size[i] / busy_time(t, i, p, u, v[i]) >= theta;
    slots += t->size[i];
  }
  t->work += (double)slots * (double)t->N * (double)M;
  for (size_t p = 0; p < M; p++)
    t->match[p] = STP_OPT_NONE;
  for (size_t i = 0; i < n; i++)
    for (size_t s = 0; s < t->size[i] && !stp__opt_fixed_size(sp, i); s++) {
      memset(t->seen, 0, M);
      if (!augment(t, i))
        return false;
    }
  return true;
}

/* A complete profile whose caps allow `top`: theta*, if above the best. */
static void profile_leaf(team_bound *t, double top) {
  const stp_opt_space *sp = t->sp;
  size_t v[64], *vv = t->N <= 64 ? v : stp__malloc_array(t->N, sizeof *vv);
  if (!vv) {
    t->stopped = true;
    return;
  }
  /* top itself (a mapping whose members all reach it matches there), and
   * the values between the best and top: the members' smallest e_i is one */
  size_t n = 0;
  t->cand[n++] = top;
  for (size_t i = 0; i < t->N; i++) {
    vv[i] = receivers(t, i, i + 1 < t->N ? t->size[i + 1] : 1);
    if (stp__opt_fixed_size(sp, i))
      continue;
    size_t u = senders(t, i);
    for (size_t p = 0; p < t->M; p++) {
      if (!sp->allowed[i * t->M + p] || sp->reserved[p] != STP_OPT_NONE)
        continue;
      double e = (double)t->size[i] / busy_time(t, i, p, u, vv[i]);
      if (e > t->best && e < top)
        t->cand[n++] = e;
    }
  }
  qsort(t->cand, n, sizeof *t->cand, by_double);
  /* the largest candidate that matches: feasibility only falls as theta grows */
  if (matches(t, vv, t->cand[0], t->N)) {
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (matches(t, vv, t->cand[mid], t->N))
        lo = mid;
      else
        hi = mid;
    }
    t->best = fmax(t->best, t->cand[lo]);
  }
  if (vv != v)
    free(vv);
}

static bool tb_stop(team_bound *t) {
  if (t->stopped)
    return true;
  if (t->work > TEAM_WORK)
    t->stopped = true;
  else if (t->work >= t->next_poll) {
    t->next_poll = t->work + TEAM_POLL;
    t->stopped = stp__cancelled(t->cancel);
  }
  return t->stopped;
}

/* The fewest processors the free stages after k need to exceed the best:
 * stage j with r members exceeds it only if r / t_(r) does, t_(r) the
 * r-th smallest t_j with one sender and one receiver (the smallest t_j
 * of any sizes).  SIZE_MAX: one of them cannot; NaN lists: stopped. */
static size_t later_need(team_bound *t, size_t k, double theta) {
  size_t total = 0;
  for (size_t j = k + 1; j < t->N; j++) {
    if (stp__opt_fixed_size(t->sp, j))
      continue;
    size_t n, r = 1;
    const double *list = sorted_times(t, j, 1, 1, &n);
    if (!list) {
      t->stopped = true;
      return SIZE_MAX;
    }
    while (r <= n && r <= t->K && !((double)r / list[r - 1] >= theta))
      r++;
    if (r > n || r > t->K)
      return SIZE_MAX;
    total += r;
  }
  return total;
}

/* Sizes of stages k.. (stages before k sized, `done` the smallest cap of
 * stages 0..k-2, whose partners are all known; `left` free processors).
 * A size is skipped when no completion can exceed the best: its caps are
 * no higher, the later stages lack processors, or stages 0..k cannot be
 * matched above the best (a completion's matching above it holds one of
 * theirs, stage k's members having v >= 1 receivers). */
static void profiles_from(team_bound *t, size_t k, size_t left, double done) {
  const stp_opt_space *sp = t->sp;
  if (tb_stop(t))
    return;
  t->work += (double)t->N;
  bool fixed = stp__opt_fixed_size(sp, k) > 0;
  size_t lo = fixed ? stp__opt_fixed_size(sp, k) : 1;
  size_t hi = fixed ? lo : t->K;
  for (size_t r = lo; r <= hi && !t->stopped; r++) {
    double above = nextafter(t->best, INFINITY);
    size_t need = later_need(t, k, above);
    if (need == SIZE_MAX || need + (fixed ? 0 : r) > left)
      break; /* larger teams leave even fewer */
    t->size[k] = r;
    double d = done;
    if (k > 0) /* stage k-1's receivers are now known */
      d = fmin(d, stage_cap(t, k - 1, receivers(t, k - 1, r)));
    double top = fmin(d, stage_cap(t, k, 1)); /* stage k: at least one receiver */
    if (isnan(top)) {
      t->stopped = true; /* out of room for the lists */
      return;
    }
    if (top <= t->best)
      continue;
    if (k + 1 == t->N) {
      profile_leaf(t, top);
      continue;
    }
    size_t v[64];
    if (k < 64 && !fixed) {
      for (size_t i = 0; i <= k; i++)
        v[i] = i < k ? receivers(t, i, t->size[i + 1]) : 1;
      if (!matches(t, v, above, k + 1))
        continue;
    }
    profiles_from(t, k + 1, fixed ? left : left - r, d);
  }
}

double stp__opt_bound_teams(const stp_opt_space *sp, const stp_opt_bound *b, double cap,
                            const stp_cancel *cancel) {
  if (!sp->bw || sp->N == 0 || !(cap > 0) ||
      (double)sp->N * (double)sp->M * (double)(sp->kmax + 1) > (double)TEAM_TABLE_CELLS ||
      stp__cancelled(cancel))
    return cap;
  team_bound t = {.sp = sp, .N = sp->N, .M = sp->M, .K = sp->kmax,
                  .strict = sp->model == STP_MODEL_STRICT, .cancel = cancel,
                  .next_poll = TEAM_POLL};
  /* fixed teams larger than kmax were refused by the space's set-up */
  double bound = cap;
  if (tb_tables(&t)) {
    /* not cap itself: a profile's theta* is computed among values up to its
     * own caps, and cut to cap only at the end */
    profiles_from(&t, 0, b->nfree, b->fixed);
    if (!t.stopped)
      bound = fmin(cap, t.best);
  }
  tb_free(&t);
  return bound;
}
