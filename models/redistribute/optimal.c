/* optimal.c: minimum total cost over all schedules, exactly.
 *
 * A step costs its longest message, so a schedule's total cost depends only
 * on its profile: n_t steps of cost w_t for each distinct length
 * w_0 > w_1 > ... > w_{m-1}.  Given a profile, group the steps of cost w_t
 * into block t.  A message of length w_l may sit in any block t <= l, and
 * block t, a union of n_t matchings, has at most n_t messages at any
 * processor; conversely, any assignment of messages to blocks with at most
 * n_t messages per processor in block t splits into n_t matchings per block
 * (Konig: a bipartite graph of degree n is n-edge-colourable), which is a
 * schedule of cost at most sum_t n_t w_t.  So the optimum is the first
 * feasible profile in order of (total cost, steps), and the colour
 * permutations of a step-by-step search never arise.
 *
 * Profiles: with N_t = n_0 + ... + n_t and Delta_t the maximum degree of
 * the messages of length >= w_t, every schedule has N_t >= Delta_t; that
 * also gives the lower bound sum_t (w_t - w_t+1) Delta_t.  Only profiles
 * between it and the incumbent (a heuristic's schedule) are enumerated, and
 * a profile whose prefix sums are all at most those of a refuted one is
 * refuted without search (feasibility is monotone in them).
 *
 * Feasibility of a profile is a search over the block of each message with
 * unit propagation (a message with one block left takes it) and, at every
 * node, one flow test per pair t < u: the messages of level <= u (which
 * only use blocks 0..u) split into blocks {0..t} and {t+1..u}; a valid
 * completion picks, among the undecided ones, a set going to the first
 * part with every processor within its two capacities, which is a
 * degree-interval subgraph (solvers/bdegree.h).  With two lengths the test
 * is exact; beyond, it prunes and the search decides. */
#include "models/redistribute/optimal.h"

#include "base/core.h"
#include "solvers/bcolour.h"
#include "solvers/bdegree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_NODES UINT64_C(1000000)
#define MAX_PROFILE_WORDS (UINT64_C(1) << 25)

typedef struct opt {
  const stp_redist *rd;
  size_t E, V, m;
  uint64_t *w;      /* m distinct lengths, decreasing */
  uint32_t *lvl;    /* E: level of each message */
  uint64_t *delta;  /* m: max degree of the messages of level <= t */
  uint32_t *n;      /* m: the profile under test */
  uint64_t *N;      /* m: its prefix sums */
  int32_t *blk;     /* E: block of each message, -1 undecided */
  uint32_t *use;    /* V x m: messages of each processor in each block */
  size_t *trail, ntrail;
  /* flow test scratch */
  uint32_t *fu, *fv;
  int64_t *lo, *hi, *in, *out, *fr;
  uint64_t nodes, max_nodes;
  const stp_cancel *cancel;
  stp_status status;
  stp_error *err;
} opt;

static inline size_t vp(const opt *o, size_t e) { return o->rd->from[e]; }
static inline size_t vq(const opt *o, size_t e) { return (size_t)o->rd->P + o->rd->to[e]; }

static inline bool allowed(const opt *o, size_t e, size_t i) {
  return i <= o->lvl[e] && o->n[i] > 0 && o->use[vp(o, e) * o->m + i] < o->n[i] &&
         o->use[vq(o, e) * o->m + i] < o->n[i];
}

static void assign(opt *o, size_t e, size_t i) {
  o->blk[e] = (int32_t)i;
  o->use[vp(o, e) * o->m + i]++;
  o->use[vq(o, e) * o->m + i]++;
  o->trail[o->ntrail++] = e;
}

static void undo_to(opt *o, size_t mark) {
  while (o->ntrail > mark) {
    size_t e = o->trail[--o->ntrail];
    size_t i = (size_t)o->blk[e];
    o->use[vp(o, e) * o->m + i]--;
    o->use[vq(o, e) * o->m + i]--;
    o->blk[e] = -1;
  }
}

/* Unit propagation; false on a message with no block left. */
static bool propagate(opt *o) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t e = 0; e < o->E; e++) {
      if (o->blk[e] >= 0)
        continue;
      size_t cnt = 0, last = 0;
      for (size_t i = 0; i <= o->lvl[e] && cnt < 2; i++)
        if (allowed(o, e, i)) {
          cnt++;
          last = i;
        }
      if (cnt == 0)
        return false;
      if (cnt == 1) {
        assign(o, e, last);
        changed = true;
      }
    }
  }
  return true;
}

/* The split test for blocks {0..t} | {t+1..u} on the messages of level
 * <= u (they never use a block beyond u). */
static bool split_feasible(opt *o, size_t t, size_t u) {
  int64_t Nin = (int64_t)o->N[t], Nout = (int64_t)(o->N[u] - o->N[t]);
  memset(o->in, 0, o->V * sizeof *o->in);
  memset(o->out, 0, o->V * sizeof *o->out);
  memset(o->fr, 0, o->V * sizeof *o->fr);
  size_t nf = 0;
  for (size_t e = 0; e < o->E; e++) {
    if (o->lvl[e] > u)
      continue;
    size_t a = vp(o, e), b = vq(o, e);
    bool can_in, can_out;
    if (o->blk[e] >= 0) {
      can_in = (size_t)o->blk[e] <= t;
      can_out = !can_in;
    } else {
      can_in = can_out = false;
      for (size_t i = 0; i <= o->lvl[e]; i++)
        if (allowed(o, e, i))
          *(i <= t ? &can_in : &can_out) = true;
    }
    if (can_in && can_out) {
      o->fu[nf] = (uint32_t)a;
      o->fv[nf] = (uint32_t)(b - o->rd->P);
      nf++;
      o->fr[a]++;
      o->fr[b]++;
    } else if (can_in) {
      o->in[a]++;
      o->in[b]++;
    } else {
      o->out[a]++;
      o->out[b]++;
    }
  }
  for (size_t x = 0; x < o->V; x++) {
    int64_t l = o->out[x] + o->fr[x] - Nout, h = Nin - o->in[x];
    o->lo[x] = l > 0 ? l : 0;
    o->hi[x] = h < o->fr[x] ? h : o->fr[x];
    if (o->lo[x] > o->hi[x])
      return false;
  }
  if (nf == 0)
    return true;
  bool ok;
  stp_status s = stp__bdegree_feasible((size_t)o->rd->P, (size_t)o->rd->Q, nf, o->fu, o->fv,
                                       o->lo, o->hi, &ok, NULL, o->err);
  if (s != STP_OK) {
    o->status = s;
    return false;
  }
  return ok;
}

/* 1: a completion exists (kept on the trail); 0: none; -1: stopped. */
static int search(opt *o) {
  if (++o->nodes > o->max_nodes) {
    o->status = stp__fail_limit(o->err, (stp_limit){STP_LIMIT_NODES, 0, o->max_nodes, 0},
                                "optimal: no proof within %llu search nodes",
                                (unsigned long long)o->max_nodes);
    return -1;
  }
  if ((o->nodes & 1023) == 0 && stp__cancelled(o->cancel)) {
    o->status = stp__fail(o->err, STP_EINTERRUPTED, "optimal: interrupted");
    return -1;
  }
  size_t mark = o->ntrail;
  if (!propagate(o)) {
    undo_to(o, mark);
    return 0;
  }
  for (size_t u = 1; u < o->m; u++)
    for (size_t t = 0; t < u; t++)
      if (!split_feasible(o, t, u)) {
        undo_to(o, mark);
        return o->status == STP_OK ? 0 : -1;
      }
  /* branch on the undecided message with the fewest blocks left (longest first) */
  size_t best = SIZE_MAX, best_cnt = SIZE_MAX;
  for (size_t e = 0; e < o->E; e++) {
    if (o->blk[e] >= 0)
      continue;
    size_t cnt = 0;
    for (size_t i = 0; i <= o->lvl[e]; i++)
      cnt += allowed(o, e, i);
    if (cnt < best_cnt || (cnt == best_cnt && o->lvl[e] < o->lvl[best])) {
      best = e;
      best_cnt = cnt;
    }
  }
  if (best == SIZE_MAX)
    return 1;
  /* the cheapest block first: it keeps the expensive ones for long messages */
  for (size_t i = o->lvl[best] + 1; i-- > 0;) {
    if (!allowed(o, best, i))
      continue;
    size_t m2 = o->ntrail;
    assign(o, best, i);
    int r = search(o);
    if (r != 0)
      return r;
    undo_to(o, m2);
  }
  undo_to(o, mark);
  return 0;
}

/* ---- profiles ---------------------------------------------------------------- */

typedef struct profiles {
  uint32_t *n; /* count x m */
  uint64_t *tc, *ns;
  size_t count, cap;
  size_t m;
  uint64_t ub_tc, ub_ns, max_steps;
  stp_status status;
} profiles;

static void add_profile(profiles *pr, const uint32_t *n, uint64_t tc, uint64_t ns) {
  if (pr->status != STP_OK)
    return;
  if (pr->count == pr->cap) {
    size_t cap = pr->cap ? 2 * pr->cap : 64;
    if ((uint64_t)cap * pr->m > MAX_PROFILE_WORDS) {
      pr->status = STP_ELIMIT;
      return;
    }
    void *const arrays[] = {&pr->n, &pr->tc, &pr->ns};
    const size_t sizes[] = {pr->m * sizeof *pr->n, sizeof *pr->tc, sizeof *pr->ns};
    if (!stp__grow_arrays(cap, 3, arrays, sizes)) {
      pr->status = STP_ENOMEM;
      return;
    }
    pr->cap = cap;
  }
  memcpy(pr->n + pr->count * pr->m, n, pr->m * sizeof *n);
  pr->tc[pr->count] = tc;
  pr->ns[pr->count] = ns;
  pr->count++;
}

/* Cost of the cheapest completion of levels t+1.. from N steps. */
static uint64_t rest_bound(const opt *o, size_t t, uint64_t N, uint64_t *final_N) {
  uint64_t extra = 0, cur = N;
  for (size_t u = t + 1; u < o->m; u++) {
    uint64_t need = cur > o->delta[u] ? cur : o->delta[u];
    extra += o->w[u] * (need - cur);
    cur = need;
  }
  *final_N = cur;
  return extra;
}

static void enumerate(const opt *o, profiles *pr, uint32_t *n, size_t t, uint64_t Nprev,
                      uint64_t tc) {
  uint64_t lo = o->delta[t] > Nprev ? o->delta[t] - Nprev : 0;
  for (uint64_t k = lo; pr->status == STP_OK; k++) {
    uint64_t N = Nprev + k, fin;
    uint64_t cost = tc + k * o->w[t];
    uint64_t bound = cost + rest_bound(o, t, N, &fin);
    if (bound > pr->ub_tc || fin > pr->max_steps)
      break; /* both grow with k */
    n[t] = (uint32_t)k;
    if (t + 1 < o->m) {
      enumerate(o, pr, n, t + 1, N, cost);
    } else if (cost < pr->ub_tc || (cost == pr->ub_tc && N < pr->ub_ns)) {
      add_profile(pr, n, cost, N);
    }
  }
}

static int cmp_profile_idx(const void *a, const void *b, const profiles *pr) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  if (pr->tc[x] != pr->tc[y])
    return pr->tc[x] < pr->tc[y] ? -1 : 1;
  if (pr->ns[x] != pr->ns[y])
    return pr->ns[x] < pr->ns[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Insertion-free merge sort of indices (qsort has no context in C11). */
static void sort_idx(size_t *a, size_t *tmp, size_t n, const profiles *pr) {
  if (n < 2)
    return;
  size_t h = n / 2;
  sort_idx(a, tmp, h, pr);
  sort_idx(a + h, tmp, n - h, pr);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = cmp_profile_idx(&a[j], &a[i], pr) < 0 ? a[j++] : a[i++];
  while (i < h)
    tmp[k++] = a[i++];
  while (j < n)
    tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

/* A profile whose prefix sums N are all <= those of a refuted one is
 * infeasible too: a schedule for it would give one for the refuted profile
 * (its k-th most expensive step fits in the other's k-th, which costs at
 * least as much). */
static bool dominated(const uint64_t *refuted, size_t nref, const uint64_t *N, size_t m) {
  for (size_t i = 0; i < nref; i++) {
    const uint64_t *R = refuted + i * m;
    size_t t = 0;
    while (t < m && N[t] <= R[t])
      t++;
    if (t == m)
      return true;
  }
  return false;
}

/* ---- set-up -------------------------------------------------------------------- */

static int cmp_desc(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x > y ? -1 : x < y;
}

static void opt_free(opt *o) {
  free(o->w);
  free(o->lvl);
  free(o->delta);
  free(o->n);
  free(o->N);
  free(o->blk);
  free(o->use);
  free(o->trail);
  free(o->fu);
  free(o->fv);
  free(o->lo);
  free(o->hi);
  free(o->in);
  free(o->out);
  free(o->fr);
}

static stp_status opt_init(opt *o, const stp_redist *rd, stp_error *err) {
  *o = (opt){.rd = rd, .E = rd->nmsg, .V = (size_t)(rd->P + rd->Q), .err = err};
  size_t E = o->E, V = o->V;
  o->w = stp__malloc_array(E + 1, sizeof *o->w);
  o->lvl = stp__malloc_array(E + 1, sizeof *o->lvl);
  if (!o->w || !o->lvl)
    return stp__oom(err, "optimal schedule");
  memcpy(o->w, rd->mlen, E * sizeof *o->w);
  qsort(o->w, E, sizeof *o->w, cmp_desc);
  for (size_t k = 0; k < E; k++)
    if (k == 0 || o->w[k] != o->w[o->m - 1])
      o->w[o->m++] = o->w[k];
  size_t m = o->m;
  o->delta = stp__calloc(m, sizeof *o->delta);
  o->n = stp__calloc(m, sizeof *o->n);
  o->N = stp__calloc(m, sizeof *o->N);
  o->blk = stp__malloc_array(E + 1, sizeof *o->blk);
  o->use = stp__calloc(V * m, sizeof *o->use);
  o->trail = stp__malloc_array(E + 1, sizeof *o->trail);
  o->fu = stp__malloc_array(E + 1, sizeof *o->fu);
  o->fv = stp__malloc_array(E + 1, sizeof *o->fv);
  o->lo = stp__malloc_array(V, sizeof *o->lo);
  o->hi = stp__malloc_array(V, sizeof *o->hi);
  o->in = stp__malloc_array(V, sizeof *o->in);
  o->out = stp__malloc_array(V, sizeof *o->out);
  o->fr = stp__malloc_array(V, sizeof *o->fr);
  uint64_t *deg = stp__calloc(V, sizeof *deg);
  if (!o->delta || !o->n || !o->N || !o->blk || !o->use || !o->trail || !o->fu || !o->fv ||
      !o->lo || !o->hi || !o->in || !o->out || !o->fr || !deg) {
    free(deg);
    return stp__oom(err, "optimal schedule");
  }
  for (size_t k = 0; k < E; k++) {
    size_t lo = 0, hi = m; /* level = index of the length in w (decreasing) */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (o->w[mid] > rd->mlen[k])
        lo = mid + 1;
      else
        hi = mid;
    }
    o->lvl[k] = (uint32_t)lo;
  }
  /* Delta_t: add the messages level by level */
  uint64_t dmax = 0;
  for (size_t t = 0; t < m; t++) {
    for (size_t k = 0; k < E; k++)
      if (o->lvl[k] == t) {
        size_t a = rd->from[k], b = (size_t)rd->P + rd->to[k];
        dmax = ++deg[a] > dmax ? deg[a] : dmax;
        dmax = ++deg[b] > dmax ? deg[b] : dmax;
      }
    o->delta[t] = dmax;
  }
  free(deg);
  return STP_OK;
}

/* Feasible assignment -> steps: colour each block with its n_t colours. */
static stp_status to_steps(opt *o, uint32_t *step, stp_error *err) {
  uint32_t *u = stp__malloc_array(o->E + 1, sizeof *u), *v = stp__malloc_array(o->E + 1, sizeof *v);
  uint32_t *col = stp__malloc_array(o->E + 1, sizeof *col);
  size_t *idx = stp__malloc_array(o->E + 1, sizeof *idx);
  stp_status s = (!u || !v || !col || !idx) ? stp__oom(err, "optimal schedule") : STP_OK;
  for (size_t t = 0; t < o->m && s == STP_OK; t++) {
    size_t ne = 0;
    for (size_t e = 0; e < o->E; e++)
      if (o->blk[e] == (int32_t)t) {
        idx[ne] = e;
        u[ne] = o->rd->from[e];
        v[ne] = o->rd->to[e];
        ne++;
      }
    if (ne == 0)
      continue;
    s = stp__bcolour_edges((size_t)o->rd->P, (size_t)o->rd->Q, ne, u, v, o->n[t], col, err);
    for (size_t i = 0; i < ne && s == STP_OK; i++)
      step[idx[i]] = (uint32_t)((t ? o->N[t - 1] : 0) + col[i]);
  }
  free(u);
  free(v);
  free(col);
  free(idx);
  return s;
}

stp_status stp__redist_optimal(const stp_redist *rd, const stp_redist_options *oo,
                               const uint32_t *inc_step, uint64_t inc_ns, uint64_t inc_tc,
                               uint32_t *step, uint64_t *ns, stp__redist_search *stats,
                               stp_error *err) {
  memset(stats, 0, sizeof *stats);
  opt o;
  stp_status s = opt_init(&o, rd, err);
  if (s != STP_OK) {
    opt_free(&o);
    return s;
  }
  o.max_nodes = oo->max_nodes ? oo->max_nodes : DEFAULT_MAX_NODES;
  o.cancel = &oo->control.cancel;
  for (size_t t = 0; t < o.m; t++)
    stats->lower_bound += (o.w[t] - (t + 1 < o.m ? o.w[t + 1] : 0)) * o.delta[t];
  profiles pr = {.m = o.m, .ub_tc = inc_tc, .ub_ns = inc_ns,
                 .max_steps = oo->max_steps ? oo->max_steps : UINT64_MAX};
  enumerate(&o, &pr, o.n, 0, 0, 0);
  if (pr.status == STP_ELIMIT)
    s = stp__fail(err, STP_ELIMIT, "optimal: too many cost profiles between the lower bound "
                  "%llu and the incumbent %llu", (unsigned long long)stats->lower_bound,
                  (unsigned long long)inc_tc);
  else if (pr.status != STP_OK)
    s = stp__oom(err, "optimal: profiles");
  size_t *order = s == STP_OK ? stp__malloc_array(pr.count + 1, sizeof *order) : NULL;
  size_t *tmp = s == STP_OK ? stp__malloc_array(pr.count + 1, sizeof *tmp) : NULL;
  if (s == STP_OK && (!order || !tmp))
    s = stp__oom(err, "optimal: profiles");
  bool found = false;
  if (s == STP_OK) {
    for (size_t i = 0; i < pr.count; i++)
      order[i] = i;
    sort_idx(order, tmp, pr.count, &pr);
  }
  /* prefix sums of the refuted profiles: feasibility is monotone in them */
  uint64_t *refuted = s == STP_OK ? stp__malloc_array(pr.count * o.m + 1, sizeof *refuted) : NULL;
  size_t nref = 0;
  if (s == STP_OK && !refuted)
    s = stp__oom(err, "optimal: profiles");
  for (size_t i = 0; s == STP_OK && i < pr.count && !found; i++) {
    const uint32_t *n = pr.n + order[i] * o.m;
    uint64_t acc = 0;
    for (size_t t = 0; t < o.m; t++) {
      o.n[t] = n[t];
      acc += n[t];
      o.N[t] = acc;
    }
    if (dominated(refuted, nref, o.N, o.m)) {
      stats->profiles++;
      continue;
    }
    for (size_t e = 0; e < o.E; e++)
      o.blk[e] = -1;
    memset(o.use, 0, o.V * o.m * sizeof *o.use);
    o.ntrail = 0;
    stats->profiles++;
    int r = search(&o);
    if (r < 0)
      s = o.status;
    else if (r == 0)
      memcpy(refuted + nref++ * o.m, o.N, o.m * sizeof *o.N);
    else {
      found = true;
      s = to_steps(&o, step, err);
      *ns = pr.ns[order[i]];
    }
  }
  stats->nodes = o.nodes;
  if (s == STP_OK && !found) { /* nothing beats the incumbent */
    memcpy(step, inc_step, o.E * sizeof *step);
    *ns = inc_ns;
  }
  free(refuted);
  free(order);
  free(tmp);
  free(pr.n);
  free(pr.tc);
  free(pr.ns);
  opt_free(&o);
  return s;
}
