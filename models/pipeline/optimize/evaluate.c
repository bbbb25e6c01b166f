/* evaluate.c: the evaluator of stp_optimize's candidates (optimize.h):
 * item by item, with a cache of the transfer patterns and Strict mappings
 * already solved; a Strict candidate is evaluated on the problem's
 * platform with the candidate's teams (stp_teams).  Under the law
 * objective a pattern's (or a Strict mapping's) value is the phase-type
 * chain of exact_law.c, kept where the exponential value goes: one
 * objective per run, so that slot holds the objective's value.  The
 * latency constraint is checked on the candidates valued exactly, with
 * the tables of latency.h. */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"
#include "models/pipeline/components.h"
#include "models/pipeline/deterministic.h"
#include "models/pipeline/exponential.h"
#include "models/pipeline/pattern_chain.h"
#include "models/pipeline/strict_chain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the cache: keys are short sequences of 32-bit words -------------------
 * A transfer pattern: (column, u, senders, receivers); a Strict mapping or
 * prefix: (STRICT_KEY | stages, team sizes, members).  Values: the
 * deterministic rate and, once computed, the exponential one.  When it
 * holds CACHE_MAX_BYTES it is emptied and starts again. */
#define CACHE_MAX_BYTES ((size_t)64 << 20)
#define STRICT_KEY 0x80000000u

enum { EXP_UNKNOWN = 0, EXP_DONE, EXP_BEYOND };

typedef struct cache_entry {
  uint64_t hash;
  size_t off;     /* its key in the arena */
  uint32_t len;
  int exp_state;
  double det, exp; /* NaN until computed; exp: the exp or law objective's value */
} cache_entry;

struct stp_opt_cache {
  cache_entry *e;
  size_t n, cap;
  uint32_t *arena;
  size_t used, arena_cap;
  uint32_t *slot; /* entry index + 1, 0: empty; size a power of two */
  size_t size;
};

static uint64_t key_hash(const uint32_t *k, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  for (size_t i = 0; i < n; i++) {
    h ^= k[i];
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

static void cache_free(stp_opt_cache *c) {
  if (!c)
    return;
  free(c->e);
  free(c->arena);
  free(c->slot);
  free(c);
}

static void cache_clear(stp_opt_cache *c) {
  c->n = c->used = 0;
  memset(c->slot, 0, c->size * sizeof *c->slot);
}

/* What the entries hold (not the room kept for them: after a clear the
 * arrays keep their size, and the next entries reuse it). */
static size_t cache_bytes(const stp_opt_cache *c) {
  return c->n * (sizeof *c->e + 2 * sizeof *c->slot) + c->used * sizeof *c->arena;
}

static bool cache_rehash(stp_opt_cache *c, size_t size) {
  uint32_t *slot = stp__calloc(size, sizeof *slot);
  if (!slot)
    return false;
  for (size_t k = 0; k < c->n; k++) {
    size_t at = c->e[k].hash & (size - 1);
    while (slot[at])
      at = (at + 1) & (size - 1);
    slot[at] = (uint32_t)(k + 1);
  }
  free(c->slot);
  c->slot = slot;
  c->size = size;
  return true;
}

/* Room for one more entry of len words; false when out of memory. */
static bool cache_room(stp_opt_cache *c, size_t len) {
  if (cache_bytes(c) > CACHE_MAX_BYTES)
    cache_clear(c);
  if (c->n + 1 > c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 1024;
    cache_entry *e = realloc(c->e, cap * sizeof *e);
    if (!e)
      return false;
    c->e = e;
    c->cap = cap;
  }
  if (c->used + len > c->arena_cap) {
    size_t cap = c->arena_cap ? 2 * c->arena_cap : 16384;
    while (cap < c->used + len)
      cap *= 2;
    uint32_t *a = realloc(c->arena, cap * sizeof *a);
    if (!a)
      return false;
    c->arena = a;
    c->arena_cap = cap;
  }
  if (2 * (c->n + 1) > c->size && !cache_rehash(c, 2 * c->size))
    return false;
  return true;
}

/* The entry of key k (added with NaN values when new); NULL: out of memory.
 * Valid until the next call. */
static cache_entry *cache_find(stp_opt_cache *c, const uint32_t *k, size_t len) {
  uint64_t h = key_hash(k, len);
  size_t at = h & (c->size - 1);
  for (uint32_t s; (s = c->slot[at]); at = (at + 1) & (c->size - 1)) {
    cache_entry *e = &c->e[s - 1];
    if (e->hash == h && e->len == len && !memcmp(c->arena + e->off, k, len * sizeof *k))
      return e;
  }
  if (!cache_room(c, len))
    return NULL;
  at = h & (c->size - 1); /* the table may have been emptied or grown */
  while (c->slot[at])
    at = (at + 1) & (c->size - 1);
  cache_entry *e = &c->e[c->n];
  *e = (cache_entry){.hash = h, .off = c->used, .len = (uint32_t)len, .det = NAN, .exp = NAN};
  memcpy(c->arena + c->used, k, len * sizeof *k);
  c->used += len;
  c->slot[at] = (uint32_t)(++c->n);
  return e;
}

static stp_opt_cache *cache_new(void) {
  stp_opt_cache *c = calloc(1, sizeof *c);
  if (c && !cache_rehash(c, 4096)) {
    free(c);
    return NULL;
  }
  return c;
}

/* ---- the evaluator ------------------------------------------------------------ */
void stp__opt_eval_free(stp_opt_eval *ev) {
  if (!ev)
    return;
  cache_free(ev->cache);
  stp__law_columns_free(&ev->lc);
  free(ev->team_off);
  free(ev->team);
  free(ev->times);
  free(ev->snd);
  free(ev->rcv);
  free(ev->key);
  free(ev->touched);
  free(ev->sums);
  memset(ev, 0, sizeof *ev);
}

stp_status stp__opt_eval_init(stp_opt_eval *ev, const stp_opt_space *sp, stp_objective obj,
                              const stp_options *opts, stp_error *err) {
  memset(ev, 0, sizeof *ev);
  size_t N = sp->N, M = sp->M;
  ev->sp = sp;
  ev->objective = obj;
  ev->nitems = sp->model == STP_MODEL_STRICT ? 1 : 2 * N - 1;
  ev->opts = *opts;
  ev->opts.control.progress = (stp_progress){0}; /* the run reports; evaluations do not */
  ev->opts.control.max_memory = stp_options_memory_budget(opts);
  ev->least_latency = INFINITY;
  if (obj == STP_OBJECTIVE_LAW) {
    stp_status s = stp__law_columns_resolve(sp->plat, &ev->opts, &ev->lc, err);
    if (s == STP_EINVAL)
      stp_error_prefix(err, "%s: the law objective needs phase-type laws (exp, erlang, "
                            "hyperexp, coxian, ph)", sp->plat->file);
    if (s == STP_OK && ev->lc.ncols == 0)
      s = stp__fail(err, STP_EINVAL, "the law objective needs a law");
    if (s != STP_OK) {
      stp__law_columns_free(&ev->lc);
      return s;
    }
  }
  ev->cache = cache_new();
  ev->team_off = stp__calloc(N + 1, sizeof *ev->team_off);
  ev->team = stp__calloc(M, sizeof *ev->team);
  ev->snd = stp__calloc(M, sizeof *ev->snd);
  ev->rcv = stp__calloc(M, sizeof *ev->rcv);
  ev->key = stp__calloc(N + M + 2, sizeof *ev->key);
  ev->touched = stp__calloc(2 * N, 1);
  ev->sums = stp__calloc(M, sizeof *ev->sums);
  if (!ev->cache || !ev->team_off || !ev->team || !ev->snd || !ev->rcv || !ev->key ||
      !ev->touched || !ev->sums) {
    stp__opt_eval_free(ev);
    return stp__oom(err, "preparing the search");
  }
  return STP_OK;
}

stp_status stp__opt_vals_alloc(const stp_opt_eval *ev, stp_opt_vals *v, stp_error *err) {
  *v = (stp_opt_vals){.value = -INFINITY, .second = INFINITY};
  v->item = stp__calloc(ev->nitems, sizeof *v->item);
  return v->item ? STP_OK : stp__oom(err, "preparing the search");
}

void stp__opt_vals_free(stp_opt_vals *v) {
  free(v->item);
  v->item = NULL;
}

void stp__opt_vals_copy(const stp_opt_eval *ev, stp_opt_vals *dst, const stp_opt_vals *src) {
  double *item = dst->item;
  *dst = *src;
  dst->item = item;
  memcpy(item, src->item, ev->nitems * sizeof *item);
}

/* ---- items ---------------------------------------------------------------------------- */
static double comp_item(const stp_opt_eval *ev, const stp_opt_cand *c, size_t i) {
  const size_t *t = stp__opt_team(ev->sp, c, i);
  double slowest = 0;
  for (size_t k = 0; k < c->size[i]; k++)
    if (ev->sp->comp[i * ev->sp->M + t[k]] > slowest)
      slowest = ev->sp->comp[i * ev->sp->M + t[k]];
  return (double)c->size[i] / slowest;
}

/* The outcome s of a chain solved for entry e: beyond a cap of the search
 * (capped), not a limit of the run, the entry stays unknown; beyond the
 * run's limits it is marked so (the candidate has no value); an error goes
 * to err (local: its message). */
static stp_status settle(stp_opt_eval *ev, cache_entry *e, stp_status s, bool capped,
                         const stp_error *local, stp_error *err) {
  if (s == STP_ELIMIT && capped) {
    ev->capped_now = true;
    return s;
  }
  if (s != STP_OK && s != STP_ELIMIT) {
    if (err)
      *err = *local;
    return s;
  }
  e->exp_state = s == STP_ELIMIT ? EXP_BEYOND : EXP_DONE;
  return s;
}

/* The exponential value of a cached entry, computed once. */
static stp_status entry_exp(stp_opt_eval *ev, cache_entry *e, size_t u, size_t v, stp_error *err) {
  if (e->exp_state == EXP_UNKNOWN) {
    const char *method;
    stp_ctmc_info info = {0};
    stp_error local = {0};
    stp_status s = stp__pattern_exp_value(u, v, ev->times, &ev->opts, &e->exp, &method, &info,
                                          &local);
    return settle(ev, e, s, false, &local, err);
  }
  return e->exp_state == EXP_BEYOND ? STP_ELIMIT : STP_OK;
}

/* The law objective's value of a cached pattern entry of column col
 * (ev->times its times), computed once: the phase-type chain of
 * exact_law.c (ELIMIT beyond the limits, remembered). */
static stp_status entry_law(stp_opt_eval *ev, cache_entry *e, size_t u, size_t v, size_t col,
                            stp_error *err) {
  if (e->exp_state == EXP_UNKNOWN) {
    stp_error local = {0};
    stp_status s = stp__law_pattern_rate(u, v, ev->times, ev->lc.cox[col], &ev->opts, &e->exp,
                                         &local);
    return settle(ev, e, s, false, &local, err);
  }
  return e->exp_state == EXP_BEYOND ? STP_ELIMIT : STP_OK;
}

/* A bound on the deterministic rate of the u x v pattern of ev->times
 * without its graph (uv steps, where the graph and Howard's iteration of a
 * 3,000 x 3,500 pattern take seconds no deadline interrupts): each sender
 * cycles over its v transitions with one token, each receiver over its u,
 * so the maximum cycle ratio is at least the largest of those sums, and
 * the rate uv / ratio at most uv over it. */
static double circuit_bound(stp_opt_eval *ev, size_t u, size_t v) {
  double *snd = ev->sums, *rcv = ev->sums + u;
  memset(ev->sums, 0, (u + v) * sizeof *ev->sums);
  for (size_t k = 0; k < u * v; k++) {
    snd[k % u] += ev->times[k];
    rcv[k % v] += ev->times[k];
  }
  double most = 0;
  for (size_t k = 0; k < u + v; k++)
    most = fmax(most, ev->sums[k]);
  return (double)(u * v) / most;
}

/* Component j of transfer i -> i+1 (g copies of a u x v pattern): its
 * value, or a value <= thr as soon as one is known. */
static stp_status component_value(stp_opt_eval *ev, const stp_opt_cand *c, size_t i, size_t j,
                                  size_t g, size_t u, size_t v, double thr, double *out,
                                  stp_error *err) {
  const size_t *a = stp__opt_team(ev->sp, c, i), *b = stp__opt_team(ev->sp, c, i + 1);
  uint32_t *key = ev->key;
  key[0] = (uint32_t)(2 * i + 1);
  key[1] = (uint32_t)u;
  for (size_t s = 0; s < u; s++)
    key[2 + s] = (uint32_t)(ev->snd[s] = a[j + g * s]);
  for (size_t r = 0; r < v; r++)
    key[2 + u + r] = (uint32_t)(ev->rcv[r] = b[j + g * r]);
  if ((uint64_t)u * v > ev->opts.max_transitions)
    return STP_ELIMIT;
  /* the memory budget before the pattern's graph is built, as eval checks
   * it (components.c): a candidate beyond it is skipped, so that the
   * answer's final evaluation fits too */
  if ((double)u * (double)v * STP_PATTERN_DET_BYTES > (double)ev->opts.control.max_memory)
    return STP_ELIMIT;
  if (u * v > ev->times_cap) {
    double *t = realloc(ev->times, u * v * sizeof *t);
    if (!t)
      return stp__oom(err, "building a transfer pattern");
    ev->times = t;
    ev->times_cap = u * v;
  }
  for (size_t k = 0; k < u * v; k++)
    if ((ev->times[k] = stp__opt_link_time(ev->sp, i, ev->snd[k % u], ev->rcv[k % v])) < 0) {
      *out = -INFINITY; /* a link without bandwidth would carry data */
      return STP_OK;
    }
  cache_entry *e = cache_find(ev->cache, key, 2 + u + v);
  if (!e)
    return stp__oom(err, "caching transfer patterns");
  if (isnan(e->det) && thr > -INFINITY) {
    double above = (double)g * circuit_bound(ev, u, v);
    if (above <= thr) { /* a loser, known without the pattern's graph */
      *out = above;
      return STP_OK;
    }
  }
  if (isnan(e->det))
    STP_CHECK(stp__pattern_det_rate(u, v, ev->times, &ev->opts, &e->det, err));
  *out = (double)g * e->det;
  /* a u x 1 or 1 x v pattern is one circuit with one token: its rate is
   * uv over the sum of its mean times whatever the law (renewal), the
   * deterministic value; stp_evaluate solves its small chain, to the same
   * value within the solver's precision */
  if (*out <= thr || ev->objective == STP_OBJECTIVE_DET || u == 1 || v == 1)
    return STP_OK;
  uint64_t states;
  if (ev->objective == STP_OBJECTIVE_LAW && ev->lc.cox[2 * i + 1]->n > 1) {
    /* a law of several phases: its chain (a column of one phase is the
     * exponential one, below, as eval reuses the exponential value) */
    if (e->exp_state == EXP_UNKNOWN && ev->chain_cap &&
        (!stp__pattern_state_count(u, v, &states) || states > ev->chain_cap)) {
      ev->capped_now = true;
      return STP_ELIMIT;
    }
    STP_CHECK(entry_law(ev, e, u, v, 2 * i + 1, err));
    *out = (double)g * e->exp;
    return STP_OK;
  }
  /* before its chain: with every link at the pattern's fastest time the
   * exponential rate is larger (daters grow with the times, pathwise), and
   * that is Theorem 4's uv / (d_min (u + v - 1)) */
  double fastest = ev->times[0];
  for (size_t k = 1; k < u * v; k++)
    fastest = fmin(fastest, ev->times[k]);
  double above = (double)g * (double)(u * v) / (fastest * (double)(u + v - 1));
  if (e->exp_state == EXP_UNKNOWN && above <= thr) {
    *out = fmin(*out, above);
    return STP_OK;
  }
  if (e->exp_state == EXP_UNKNOWN && ev->chain_cap &&
      (!stp__pattern_state_count(u, v, &states) || states > ev->chain_cap)) {
    ev->capped_now = true; /* the heuristic's cap: not solved, not a limit */
    return STP_ELIMIT;
  }
  STP_CHECK(entry_exp(ev, e, u, v, err));
  *out = (double)g * e->exp;
  return STP_OK;
}

stp_status stp__opt_component(stp_opt_eval *ev, const stp_opt_cand *c, size_t i, size_t j, size_t g,
                              size_t u, size_t v, double threshold, double *value, stp_error *err) {
  return component_value(ev, c, i, j, g, u, v, threshold, value, err);
}

static stp_status transfer_item(stp_opt_eval *ev, const stp_opt_cand *c, size_t i, double thr,
                                double *out, stp_error *err) {
  size_t g = (size_t)stp__gcd_u64(c->size[i], c->size[i + 1]);
  size_t u = c->size[i] / g, v = c->size[i + 1] / g;
  double best = INFINITY;
  for (size_t j = 0; j < g; j++) {
    double val;
    STP_CHECK(component_value(ev, c, i, j, g, u, v, thr, &val, err));
    if (val < best)
      best = val;
    if (best <= thr)
      break;
  }
  *out = best;
  return STP_OK;
}

/* Stages 0..n-1 of c as teams on the platform. */
static stp_teams set_teams(stp_opt_eval *ev, const stp_opt_cand *c, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    ev->team_off[i] = at;
    const size_t *t = stp__opt_team(ev->sp, c, i);
    for (size_t k = 0; k < c->size[i]; k++)
      ev->team[at++] = t[k];
  }
  ev->team_off[n] = at;
  return (stp_teams){n, ev->team_off, ev->team};
}

/* The cache entry of stages 0..n-1 of c under Strict. */
static cache_entry *strict_entry(stp_opt_eval *ev, const stp_opt_cand *c, size_t n) {
  uint32_t *key = ev->key;
  size_t len = 0;
  key[len++] = STRICT_KEY | (uint32_t)n;
  for (size_t i = 0; i < n; i++)
    key[len++] = (uint32_t)c->size[i];
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < c->size[i]; k++)
      key[len++] = (uint32_t)stp__opt_team(ev->sp, c, i)[k];
  return cache_find(ev->cache, key, len);
}

/* Limits of the Strict graph are not errors of the search: the candidate
 * is skipped. */
static stp_status strict_det(stp_opt_eval *ev, const stp_opt_cand *c, size_t n, cache_entry **out,
                             stp_error *err) {
  cache_entry *e = strict_entry(ev, c, n);
  if (!(*out = e))
    return stp__oom(err, "caching mappings");
  if (!isnan(e->det))
    return STP_OK;
  stp_teams tm = set_teams(ev, c, n);
  stp_error local = {0};
  stp_status s = stp__det_strict_teams(ev->sp->plat, &tm, &ev->opts, &e->det, &local);
  if (s != STP_OK && s != STP_ELIMIT && err)
    *err = local;
  return s;
}


/* The exponential throughput of stages 0..n-1 of c (its cache entry e). */
static stp_status strict_exp(stp_opt_eval *ev, const stp_opt_cand *c, size_t n, cache_entry *e,
                             stp_error *err) {
  if (e->exp_state == EXP_UNKNOWN) {
    stp_teams tm = set_teams(ev, c, n);
    stp_ctmc_info info = {0};
    stp_error local = {0};
    stp_options o = ev->opts; /* the heuristic enumerates no chain above its cap */
    bool capped = ev->chain_cap && ev->chain_cap < o.max_states;
    if (capped)
      o.max_states = ev->chain_cap;
    stp_status s = stp__strict_exp_throughput_teams(ev->sp->plat, &tm, &o, &e->exp, &info,
                                                    &local);
    return settle(ev, e, s, capped, &local, err);
  }
  return e->exp_state == EXP_BEYOND ? STP_ELIMIT : STP_OK;
}

stp_status stp__opt_strict_prefix(stp_opt_eval *ev, const stp_opt_cand *c, size_t n, double threshold,
                                  double *value, stp_error *err) {
  for (size_t i = 0; i + 1 < n; i++)
    if (!stp__opt_transfer_ok(ev->sp, c, i)) {
      *value = -INFINITY;
      return STP_OK;
    }
  cache_entry *e;
  STP_CHECK(strict_det(ev, c, n, &e, err));
  *value = e->det;
  /* law: the deterministic bound of the cut pipeline (valid for every law) */
  if (*value <= threshold || ev->objective != STP_OBJECTIVE_EXP || n == ev->sp->N)
    return STP_OK;
  /* exp: the cut pipeline's exponential value bounds too, and is tighter */
  stp_status s = strict_exp(ev, c, n, e, err);
  if (s == STP_OK)
    *value = fmin(*value, e->exp);
  return s == STP_ELIMIT ? STP_OK : s; /* beyond the limits: the det bound stands */
}

/* Whether every column's law has one phase (the law objective is then the
 * exponential chain's, as eval reuses it). */
static bool all_exponential(const stp_opt_eval *ev) {
  for (size_t k = 0; k < ev->lc.ncols; k++)
    if (ev->lc.cox[k]->n > 1)
      return false;
  return true;
}

/* The law objective of a whole Strict candidate (its cache entry e): the
 * candidate as a mapping, each column under its law (exact_law.c). */
static stp_status strict_law(stp_opt_eval *ev, const stp_opt_cand *c, cache_entry *e,
                             stp_error *err) {
  const stp_opt_space *sp = ev->sp;
  if (e->exp_state == EXP_UNKNOWN) {
    stp_teams tm = set_teams(ev, c, sp->N);
    stp_mapping *m = NULL;
    stp_error local = {0};
    stp_options o = ev->opts;
    bool capped = ev->chain_cap && ev->chain_cap < o.max_states;
    if (capped)
      o.max_states = ev->chain_cap;
    stp_status s = stp__problem_mapping(sp->pb, STP_MODEL_STRICT, c->size, tm.member, &m,
                                        &local);
    if (s == STP_OK)
      s = stp__law_strict_rate(m, &ev->lc, &o, &e->exp, &local);
    stp_mapping_free(m);
    return settle(ev, e, s, capped, &local, err);
  }
  return e->exp_state == EXP_BEYOND ? STP_ELIMIT : STP_OK;
}

static stp_status strict_item(stp_opt_eval *ev, const stp_opt_cand *c, double thr, double *out,
                              stp_error *err) {
  STP_CHECK(stp__opt_strict_prefix(ev, c, ev->sp->N, thr, out, err));
  if (*out <= thr || ev->objective == STP_OBJECTIVE_DET)
    return STP_OK;
  cache_entry *e = strict_entry(ev, c, ev->sp->N);
  if (!e)
    return stp__oom(err, "caching mappings");
  if (ev->objective == STP_OBJECTIVE_LAW && !all_exponential(ev))
    STP_CHECK(strict_law(ev, c, e, err));
  else
    STP_CHECK(strict_exp(ev, c, ev->sp->N, e, err));
  *out = e->exp;
  return STP_OK;
}

stp_status stp__opt_item(stp_opt_eval *ev, const stp_opt_cand *c, size_t col, double thr, double *value,
                         stp_error *err) {
  if (ev->sp->model == STP_MODEL_STRICT)
    return strict_item(ev, c, thr, value, err);
  if (col % 2 == 0) {
    *value = comp_item(ev, c, col / 2);
    return STP_OK;
  }
  return transfer_item(ev, c, col / 2, thr, value, err);
}

/* value, at_min and second from complete items. */
static void summarise(const stp_opt_eval *ev, stp_opt_vals *v) {
  double lo = INFINITY;
  for (size_t k = 0; k < ev->nitems; k++)
    if (v->item[k] < lo)
      lo = v->item[k];
  v->value = lo;
  v->at_min = 0;
  v->second = INFINITY;
  for (size_t k = 0; k < ev->nitems; k++) {
    if (stp__close(v->item[k], lo, STP_OPT_RTOL, 0))
      v->at_min++;
    else if (v->item[k] < v->second)
      v->second = v->item[k];
  }
}

stp_status stp__opt_evaluate(stp_opt_eval *ev, const stp_opt_cand *c, const stp_opt_vals *cur,
                             const unsigned char *changed, double threshold, stp_opt_vals *out,
                             stp_error *err) {
  ev->evaluated++;
  if (ev->trace)
    ev->trace(ev->sp, c, ev->trace_data);
  out->exact = false;
  double kept = INFINITY;
  for (size_t col = 0; col < ev->nitems; col++) {
    size_t i = col / 2;
    bool touched = !cur || ev->sp->model == STP_MODEL_STRICT || changed[i] ||
                   (col % 2 && changed[i + 1]);
    ev->touched[col] = touched;
    if (!touched && (out->item[col] = cur->item[col]) < kept)
      kept = cur->item[col];
  }
  if (kept <= threshold) {
    out->value = kept;
    return STP_OK;
  }
  /* the computations first: they cost nothing and often decide */
  for (size_t pass = 0; pass < 2; pass++)
    for (size_t col = pass; col < ev->nitems; col += 2) {
      if (!ev->touched[col] && ev->sp->model == STP_MODEL_OVERLAP)
        continue;
      STP_CHECK(stp__opt_item(ev, c, col, threshold, &out->item[col], err));
      if (out->item[col] <= threshold) {
        out->value = out->item[col];
        return STP_OK;
      }
    }
  summarise(ev, out);
  out->exact = true;
  bool ok;
  double latency;
  if (ev->max_latency > 0 && out->value > -INFINITY) {
    STP_CHECK(stp__opt_latency_ok(ev, c, &ok, &latency, err));
    if (!ok)
      out->value = -INFINITY; /* infeasible, as a link without bandwidth */
  }
  return STP_OK;
}

/* ---- the latency constraint ------------------------------------------------------------ */
typedef struct latency_ctx {
  const stp_opt_space *sp;
  const stp_opt_cand *c;
} latency_ctx;

static double latency_comp(const void *ctx, size_t i, size_t a) {
  const latency_ctx *x = ctx;
  return x->sp->comp[i * x->sp->M + stp__opt_team(x->sp, x->c, i)[a]];
}

static double latency_comm(const void *ctx, size_t i, size_t a, size_t b) {
  const latency_ctx *x = ctx;
  size_t p = stp__opt_team(x->sp, x->c, i)[a], q = stp__opt_team(x->sp, x->c, i + 1)[b];
  return stp__opt_link_time(x->sp, i, p, q);
}

stp_status stp__opt_latency_ok(stp_opt_eval *ev, const stp_opt_cand *c, bool *ok,
                               double *latency, stp_error *err) {
  *ok = true;
  *latency = NAN;
  if (!(ev->max_latency > 0) || isinf(ev->max_latency))
    return STP_OK;
  stp_latency_tables t;
  stp_latency l;
  latency_ctx ctx = {ev->sp, c};
  stp_status s = stp__latency_tables_alloc(ev->sp->N, c->size, &t, err);
  if (s == STP_ELIMIT) { /* tables beyond memory: the constraint cannot be shown */
    *ok = false;
    ev->too_slow++;
    return STP_OK;
  }
  STP_CHECK(s);
  stp__latency_tables_fill(&t, latency_comp, latency_comm, &ctx);
  s = stp__latency_solve(&t, 0, &l, err);
  stp__latency_tables_free(&t);
  STP_CHECK(s);
  /* beyond the program's cap only its upper bound proves the constraint */
  *latency = l.max_exact ? l.max : l.max_upper;
  *ok = *latency <= ev->max_latency;
  if (!*ok) {
    ev->too_slow++;
    ev->least_latency = fmin(ev->least_latency, l.max_exact ? l.max : l.max_lower);
  }
  return STP_OK;
}

