/* optimize_eval.c: the search space of stp_optimize (constraints, candidate
 * teams) and the evaluator of candidates, item by item, with a cache of the
 * transfer patterns and Strict mappings already solved (optimize_eval.h). */
#include "models/pipeline/optimize_eval.h"

#include "base/core.h"
#include "models/pipeline/components.h"
#include "models/pipeline/deterministic.h"
#include "models/pipeline/exponential.h"
#include "models/pipeline/pattern_chain.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/validate.h"

#include <math.h>
#include <stdio.h>
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
  double det, exp; /* NaN until computed */
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

/* ---- constraints -------------------------------------------------------------- */
static stp_status index_of(const stp_name_index *ix, const char *name, size_t n, const char *what,
                           const char *opt, size_t *out, stp_error *err) {
  char buf[STP_MAX_NAME + 1];
  if (n == 0 || n > STP_MAX_NAME)
    return stp__fail(err, STP_EINVAL, "%s: an empty or overlong %s name", opt, what);
  memcpy(buf, name, n);
  buf[n] = '\0';
  *out = stp__name_index_find(ix, buf);
  if (*out == SIZE_MAX)
    return stp__fail(err, STP_EINVAL, "%s: %s \"%s\" is not declared", opt, what, buf);
  return STP_OK;
}

/* Calls fn(x, item, length) for each comma-separated item of s, spaces
 * around it trimmed. */
static stp_status each_item(const char *s, stp_status (*fn)(void *, const char *, size_t, stp_error *),
                            void *ctx, stp_error *err) {
  while (*s) {
    const char *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    const char *a = s, *b = s + n;
    while (a < b && *a == ' ')
      a++;
    while (b > a && b[-1] == ' ')
      b--;
    STP_CHECK(fn(ctx, a, (size_t)(b - a), err));
    s += n + (end != NULL);
  }
  return STP_OK;
}

typedef struct parse_ctx {
  stp_opt *x;
  const stp_name_index *procs;
  unsigned char *mark; /* M */
  size_t *list, n;     /* a fixed team being read */
  const char *opt;
} parse_ctx;

static stp_status use_one(void *v, const char *name, size_t n, stp_error *err) {
  parse_ctx *pc = v;
  size_t p;
  STP_CHECK(index_of(pc->procs, name, n, "processor", "use", &p, err));
  pc->mark[p] = 1;
  pc->n++;
  return STP_OK;
}

static stp_status fix_one(void *v, const char *name, size_t n, stp_error *err) {
  parse_ctx *pc = v;
  size_t p;
  STP_CHECK(index_of(pc->procs, name, n, "processor", pc->opt, &p, err));
  for (size_t k = 0; k < pc->n; k++)
    if (pc->list[k] == p)
      return stp__fail(err, STP_EINVAL, "%s: processor \"%s\" appears twice", pc->opt,
                       pc->x->base->procs[p].name);
  pc->list[pc->n++] = p;
  return STP_OK;
}

/* "STAGE=P,..." into the fixed team of that stage. */
static stp_status parse_fix(stp_opt *x, const char *spec, const stp_name_index *stages,
                            const stp_name_index *procs, size_t **teams, size_t *sizes,
                            stp_error *err) {
  const char *eq = spec ? strchr(spec, '=') : NULL;
  if (!eq)
    return stp__fail(err, STP_EINVAL, "fix: \"%s\" is not STAGE=P1,P2,...", spec ? spec : "");
  size_t i;
  STP_CHECK(index_of(stages, spec, (size_t)(eq - spec), "stage", "fix", &i, err));
  char opt[STP_MAX_NAME + 16];
  snprintf(opt, sizeof opt, "fix %s", x->base->stages[i].name);
  if (teams[i])
    return stp__fail(err, STP_EINVAL, "%s: the stage is fixed twice", opt);
  if (!(teams[i] = stp__malloc_array(x->M, sizeof **teams)))
    return stp__oom(err, "reading constraints");
  parse_ctx pc = {.x = x, .procs = procs, .list = teams[i], .opt = opt};
  STP_CHECK(each_item(eq + 1, fix_one, &pc, err));
  if (pc.n == 0)
    return stp__fail(err, STP_EINVAL, "%s: the team is empty", opt);
  sizes[i] = pc.n;
  return STP_OK;
}

/* Fixed teams: disjoint, within --use and --max-team, times within range. */
static stp_status check_fixed(stp_opt *x, const unsigned char *use, stp_error *err) {
  for (size_t i = 0; i < x->N; i++)
    for (size_t k = x->fixed_off[i]; k < x->fixed_off[i + 1]; k++) {
      size_t p = x->fixed[k];
      const char *st = x->base->stages[i].name, *pn = x->base->procs[p].name;
      if (x->reserved[p] != STP_OPT_NONE)
        return stp__fail(err, STP_EINVAL, "fix: processor \"%s\" is in the fixed teams of "
                         "\"%s\" and \"%s\"", pn, x->base->stages[x->reserved[p]].name, st);
      x->reserved[p] = i;
      if (use && !use[p])
        return stp__fail(err, STP_EINVAL, "fix %s: processor \"%s\" is not in use", st, pn);
      if (!stp__time_ok(x->comp[i * x->M + p]))
        return stp__fail(err, STP_EINVAL, "fix %s: the computation time on \"%s\" (%g) is "
                         "outside [%g, %g]", st, pn, x->comp[i * x->M + p], STP_MIN_TIME,
                         STP_MAX_TIME);
    }
  for (size_t i = 0; i < x->N; i++)
    if (x->fixed_off[i + 1] - x->fixed_off[i] > x->kmax)
      return stp__fail(err, STP_EINVAL, "fix %s: a team of %zu, above max-team %zu",
                       x->base->stages[i].name, x->fixed_off[i + 1] - x->fixed_off[i], x->kmax);
  return STP_OK;
}

static stp_status read_fixed(stp_opt *x, const stp_optimize_options *o, const stp_name_index *procs,
                             stp_error *err) {
  size_t **teams = stp__calloc(x->N, sizeof *teams), *sizes = stp__calloc(x->N, sizeof *sizes);
  stp_name_index stages = {0};
  stp_status s = teams && sizes ? stp__name_index_build_stages(&stages, x->base, err)
                                : stp__oom(err, "reading constraints");
  for (size_t k = 0; k < o->nfix && s == STP_OK; k++)
    s = parse_fix(x, o->fix[k], &stages, procs, teams, sizes, err);
  size_t total = 0;
  for (size_t i = 0; s == STP_OK && i < x->N; i++) {
    x->fixed_off[i] = total;
    for (size_t k = 0; k < sizes[i]; k++)
      x->fixed[total++] = teams[i][k];
  }
  if (s == STP_OK)
    x->fixed_off[x->N] = total;
  for (size_t i = 0; teams && i < x->N; i++)
    free(teams[i]);
  free(teams);
  free(sizes);
  stp__name_index_free(&stages);
  return s;
}

static stp_status read_constraints(stp_opt *x, const stp_optimize_options *o, stp_error *err) {
  stp_name_index procs = {0};
  unsigned char *use = NULL;
  STP_CHECK(stp__name_index_build_procs(&procs, x->base, err));
  stp_status s = STP_OK;
  if (o->use) {
    use = stp__calloc(x->M, 1);
    parse_ctx pc = {.x = x, .procs = &procs, .mark = use};
    s = use ? each_item(o->use, use_one, &pc, err) : stp__oom(err, "reading constraints");
    if (s == STP_OK && pc.n == 0)
      s = stp__fail(err, STP_EINVAL, "use: no processor named");
  }
  if (s == STP_OK)
    s = read_fixed(x, o, &procs, err);
  if (s == STP_OK)
    s = check_fixed(x, use, err);
  for (size_t i = 0; s == STP_OK && i < x->N; i++)
    for (size_t p = 0; p < x->M; p++) {
      bool fixed_here = x->reserved[p] == i;
      bool free_stage = x->fixed_off[i + 1] == x->fixed_off[i];
      x->allowed[i * x->M + p] =
          fixed_here || (free_stage && x->reserved[p] == STP_OPT_NONE && (!use || use[p]) &&
                         stp__time_ok(x->comp[i * x->M + p]));
    }
  free(use);
  stp__name_index_free(&procs);
  return s;
}

/* ---- the context ------------------------------------------------------------------ */
void stp__opt_free(stp_opt *x) {
  if (!x)
    return;
  free(x->allowed);
  free(x->fixed_off);
  free(x->fixed);
  free(x->reserved);
  free(x->comp);
  free(x->bw);
  cache_free(x->cache);
  free(x->view_procs);
  free(x->view_off);
  free(x->view_team);
  free(x->times);
  free(x->snd);
  free(x->rcv);
  free(x->key);
  free(x->touched);
  stp__opt_cand_free(&x->best);
  memset(x, 0, sizeof *x);
}

/* A dense table of bandwidths up to this many processors (8 MiB). */
#define DENSE_BW_MAX 1024

static void fill_tables(stp_opt *x) {
  const stp_mapping *b = x->base;
  for (size_t i = 0; i < x->N; i++)
    for (size_t p = 0; p < x->M; p++)
      x->comp[i * x->M + p] = b->stages[i].work / b->procs[p].speed;
  for (size_t p = 0; x->bw && p < x->M; p++)
    for (size_t q = 0; q < x->M; q++)
      x->bw[p * x->M + q] = p == q ? 0 : stp__link_bandwidth(b, p, q);
  for (size_t p = 0; p < x->M; p++)
    x->reserved[p] = STP_OPT_NONE;
  /* the view: the platform's arrays, its own teams and processor indexing */
  x->view = *b;
  x->view.procs = x->view_procs;
  x->view.team_off = x->view_off;
  x->view.team = x->view_team;
  x->view.laws = NULL;
  memcpy(x->view_procs, b->procs, x->M * sizeof *b->procs);
}

stp_status stp__opt_init(stp_opt *x, const stp_problem *pb, const stp_optimize_options *o,
                         stp_error *err) {
  memset(x, 0, sizeof *x);
  x->pb = pb;
  x->base = pb->base;
  x->opts = o;
  x->model = o->model;
  x->objective = o->objective;
  x->N = pb->base->nstages;
  x->M = pb->base->nprocs;
  x->kmax = o->max_team && o->max_team < x->M ? o->max_team : x->M;
  x->nitems = x->model == STP_MODEL_STRICT ? 1 : 2 * x->N - 1;
  x->eval = o->eval;
  x->shown = o->eval.control.progress; /* the search's progress; each evaluation's is off */
  x->eval.control.progress = (stp_progress){0};
  x->eval.control.max_memory = stp_options_memory_budget(&o->eval);
  x->best_value = -INFINITY;
  x->upper_bound = INFINITY;
  x->t0 = x->last_progress = stp__now();
  x->deadline = o->time_limit > 0 ? x->t0 + o->time_limit : INFINITY;
  x->max_evals = o->max_evaluations;
  size_t N = x->N, M = x->M;
  if ((uint64_t)N * M > STP_OPT_MAX_CELLS)
    return stp__fail(err, STP_ELIMIT,
                     "%s: %zu stages x %zu processors is above the %d the optimiser searches",
                     x->base->file, N, M, STP_OPT_MAX_CELLS);
  x->allowed = stp__calloc(N * M, 1);
  x->fixed_off = stp__calloc(N + 1, sizeof *x->fixed_off);
  x->fixed = stp__calloc(M, sizeof *x->fixed);
  x->reserved = stp__calloc(M, sizeof *x->reserved);
  x->comp = stp__calloc(N * M, sizeof *x->comp);
  x->bw = M <= DENSE_BW_MAX ? stp__calloc(M * M, sizeof *x->bw) : NULL;
  x->cache = cache_new();
  x->view_procs = stp__calloc(M, sizeof *x->view_procs);
  x->view_off = stp__calloc(N + 1, sizeof *x->view_off);
  x->view_team = stp__calloc(M, sizeof *x->view_team);
  x->snd = stp__calloc(M, sizeof *x->snd);
  x->rcv = stp__calloc(M, sizeof *x->rcv);
  x->key = stp__calloc(N + M + 2, sizeof *x->key);
  x->touched = stp__calloc(2 * N, 1);
  if (!x->allowed || !x->fixed_off || !x->fixed || !x->reserved || !x->comp ||
      (M <= DENSE_BW_MAX && !x->bw) || !x->cache || !x->view_procs || !x->view_off ||
      !x->view_team || !x->snd || !x->rcv || !x->key || !x->touched) {
    stp__opt_free(x);
    return stp__oom(err, "preparing the search");
  }
  fill_tables(x);
  stp_status s = read_constraints(x, o, err);
  if (s == STP_OK)
    s = stp__opt_cand_alloc(x, &x->best, err);
  if (s != STP_OK)
    stp__opt_free(x);
  return s;
}

/* ---- candidates --------------------------------------------------------------------- */
stp_status stp__opt_cand_alloc(const stp_opt *x, stp_opt_cand *c, stp_error *err) {
  c->size = stp__calloc(x->N, sizeof *c->size);
  c->mem = stp__calloc(x->N * x->kmax, sizeof *c->mem);
  c->owner = stp__malloc_array(x->M, sizeof *c->owner);
  if (!c->size || !c->mem || !c->owner) {
    stp__opt_cand_free(c);
    return stp__oom(err, "preparing the search");
  }
  for (size_t p = 0; p < x->M; p++)
    c->owner[p] = STP_OPT_NONE;
  return STP_OK;
}

void stp__opt_cand_free(stp_opt_cand *c) {
  free(c->size);
  free(c->mem);
  free(c->owner);
  c->size = c->mem = c->owner = NULL;
}

void stp__opt_cand_copy(const stp_opt *x, stp_opt_cand *dst, const stp_opt_cand *src) {
  memcpy(dst->size, src->size, x->N * sizeof *dst->size);
  memcpy(dst->mem, src->mem, x->N * x->kmax * sizeof *dst->mem);
  memcpy(dst->owner, src->owner, x->M * sizeof *dst->owner);
}

void stp__opt_cand_clear(const stp_opt *x, stp_opt_cand *c) {
  memset(c->size, 0, x->N * sizeof *c->size);
  for (size_t p = 0; p < x->M; p++)
    c->owner[p] = STP_OPT_NONE;
}

void stp__opt_cand_insert(const stp_opt *x, stp_opt_cand *c, size_t i, size_t y, size_t p) {
  size_t *t = stp__opt_team(x, c, i);
  memmove(t + y + 1, t + y, (c->size[i] - y) * sizeof *t);
  t[y] = p;
  c->size[i]++;
  c->owner[p] = i;
}

size_t stp__opt_cand_remove(const stp_opt *x, stp_opt_cand *c, size_t i, size_t y) {
  size_t *t = stp__opt_team(x, c, i), p = t[y];
  memmove(t + y, t + y + 1, (c->size[i] - y - 1) * sizeof *t);
  c->size[i]--;
  c->owner[p] = STP_OPT_NONE;
  return p;
}

void stp__opt_cand_fixed(const stp_opt *x, stp_opt_cand *c) {
  stp__opt_cand_clear(x, c);
  for (size_t i = 0; i < x->N; i++)
    for (size_t k = x->fixed_off[i]; k < x->fixed_off[i + 1]; k++)
      stp__opt_cand_insert(x, c, i, c->size[i], x->fixed[k]);
}

bool stp__opt_cand_valid(const stp_opt *x, const stp_opt_cand *c) {
  for (size_t i = 0; i < x->N; i++) {
    if (c->size[i] == 0 || c->size[i] > x->kmax)
      return false;
    const size_t *t = stp__opt_team(x, c, i);
    for (size_t k = 0; k < c->size[i]; k++)
      if (!x->allowed[i * x->M + t[k]] || c->owner[t[k]] != i)
        return false;
    if (stp__opt_fixed_size(x, i) &&
        memcmp(t, x->fixed + x->fixed_off[i], c->size[i] * sizeof *t))
      return false;
  }
  return true;
}

stp_status stp__opt_vals_alloc(const stp_opt *x, stp_opt_vals *v, stp_error *err) {
  *v = (stp_opt_vals){.value = -INFINITY, .second = INFINITY};
  v->item = stp__calloc(x->nitems, sizeof *v->item);
  return v->item ? STP_OK : stp__oom(err, "preparing the search");
}

void stp__opt_vals_free(stp_opt_vals *v) {
  free(v->item);
  v->item = NULL;
}

void stp__opt_vals_copy(const stp_opt *x, stp_opt_vals *dst, const stp_opt_vals *src) {
  double *item = dst->item;
  *dst = *src;
  dst->item = item;
  memcpy(item, src->item, x->nitems * sizeof *item);
}

/* ---- items ---------------------------------------------------------------------------- */
/* Time of the output of stage i on p -> q, or -1 when that link may not
 * carry it. */
static double link_time(const stp_opt *x, size_t i, size_t p, size_t q) {
  double bw = x->bw ? x->bw[p * x->M + q] : stp__link_bandwidth(x->base, p, q);
  if (!(bw > 0))
    return -1;
  double d = x->base->stages[i].output / bw;
  return stp__time_ok(d) ? d : -1;
}

bool stp__opt_link_ok(const stp_opt *x, size_t i, size_t p, size_t q) {
  return p != q && link_time(x, i, p, q) > 0;
}

bool stp__opt_transfer_ok(const stp_opt *x, const stp_opt_cand *c, size_t i) {
  const size_t *a = stp__opt_team(x, c, i), *b = stp__opt_team(x, c, i + 1);
  size_t g = (size_t)stp__gcd_u64(c->size[i], c->size[i + 1]);
  for (size_t s = 0; s < c->size[i]; s++)
    for (size_t r = s % g; r < c->size[i + 1]; r += g)
      if (link_time(x, i, a[s], b[r]) < 0)
        return false;
  return true;
}

static double comp_item(const stp_opt *x, const stp_opt_cand *c, size_t i) {
  const size_t *t = stp__opt_team(x, c, i);
  double slowest = 0;
  for (size_t k = 0; k < c->size[i]; k++)
    if (x->comp[i * x->M + t[k]] > slowest)
      slowest = x->comp[i * x->M + t[k]];
  return (double)c->size[i] / slowest;
}

/* The exponential value of a cached entry, computed once. */
static stp_status entry_exp(stp_opt *x, cache_entry *e, size_t u, size_t v, stp_error *err) {
  if (e->exp_state == EXP_UNKNOWN) {
    const char *method;
    stp_ctmc_info info = {0};
    stp_error local = {0};
    stp_status s = stp__pattern_exp_value(u, v, x->times, &x->eval, &e->exp, &method, &info,
                                          &local);
    if (s == STP_ELIMIT)
      e->exp_state = EXP_BEYOND;
    else if (s != STP_OK)
      return err ? (*err = local, s) : s;
    else
      e->exp_state = EXP_DONE;
  }
  return e->exp_state == EXP_BEYOND ? STP_ELIMIT : STP_OK;
}

/* Component j of transfer i -> i+1 (g copies of a u x v pattern): its
 * value, or a value <= thr as soon as one is known. */
static stp_status component_value(stp_opt *x, const stp_opt_cand *c, size_t i, size_t j,
                                  size_t g, size_t u, size_t v, double thr, double *out,
                                  stp_error *err) {
  const size_t *a = stp__opt_team(x, c, i), *b = stp__opt_team(x, c, i + 1);
  uint32_t *key = x->key;
  key[0] = (uint32_t)(2 * i + 1);
  key[1] = (uint32_t)u;
  for (size_t s = 0; s < u; s++)
    key[2 + s] = (uint32_t)(x->snd[s] = a[j + g * s]);
  for (size_t r = 0; r < v; r++)
    key[2 + u + r] = (uint32_t)(x->rcv[r] = b[j + g * r]);
  if ((uint64_t)u * v > x->eval.max_transitions)
    return STP_ELIMIT;
  if (u * v > x->times_cap) {
    double *t = realloc(x->times, u * v * sizeof *t);
    if (!t)
      return stp__oom(err, "building a transfer pattern");
    x->times = t;
    x->times_cap = u * v;
  }
  for (size_t k = 0; k < u * v; k++)
    if ((x->times[k] = link_time(x, i, x->snd[k % u], x->rcv[k % v])) < 0) {
      *out = -INFINITY; /* a link without bandwidth would carry data */
      return STP_OK;
    }
  cache_entry *e = cache_find(x->cache, key, 2 + u + v);
  if (!e)
    return stp__oom(err, "caching transfer patterns");
  if (isnan(e->det))
    STP_CHECK(stp__pattern_det_rate(u, v, x->times, &x->eval, &e->det, err));
  *out = (double)g * e->det;
  /* a u x 1 or 1 x v pattern is one circuit with one token: its rate is
   * uv over the sum of its mean times whatever the law (renewal), the
   * deterministic value; stp_evaluate solves its small chain, to the same
   * value within the solver's precision */
  if (*out <= thr || x->objective == STP_OBJECTIVE_DET || u == 1 || v == 1)
    return STP_OK;
  /* before its chain: with every link at the pattern's fastest time the
   * exponential rate is larger (daters grow with the times, pathwise), and
   * that is Theorem 4's uv / (d_min (u + v - 1)) */
  double fastest = x->times[0];
  for (size_t k = 1; k < u * v; k++)
    fastest = fmin(fastest, x->times[k]);
  double above = (double)g * (double)(u * v) / (fastest * (double)(u + v - 1));
  if (e->exp_state == EXP_UNKNOWN && above <= thr) {
    *out = fmin(*out, above);
    return STP_OK;
  }
  uint64_t states;
  if (e->exp_state == EXP_UNKNOWN && x->chain_cap &&
      (!stp__pattern_state_count(u, v, &states) || states > x->chain_cap)) {
    x->capped_now = true; /* the heuristic's cap: not solved, not a limit */
    return STP_ELIMIT;
  }
  STP_CHECK(entry_exp(x, e, u, v, err));
  *out = (double)g * e->exp;
  return STP_OK;
}

stp_status stp__opt_component(stp_opt *x, const stp_opt_cand *c, size_t i, size_t j, size_t g,
                              size_t u, size_t v, double threshold, double *value, stp_error *err) {
  return component_value(x, c, i, j, g, u, v, threshold, value, err);
}

static stp_status transfer_item(stp_opt *x, const stp_opt_cand *c, size_t i, double thr,
                                double *out, stp_error *err) {
  size_t g = (size_t)stp__gcd_u64(c->size[i], c->size[i + 1]);
  size_t u = c->size[i] / g, v = c->size[i + 1] / g;
  double best = INFINITY;
  for (size_t j = 0; j < g; j++) {
    double val;
    STP_CHECK(component_value(x, c, i, j, g, u, v, thr, &val, err));
    if (val < best)
      best = val;
    if (best <= thr)
      break;
  }
  *out = best;
  return STP_OK;
}

/* The view shows stages 0..n-1 of c. */
static void set_view(stp_opt *x, const stp_opt_cand *c, size_t n) {
  stp_mapping *m = &x->view;
  for (size_t p = 0; p < x->M; p++)
    m->procs[p].stage = STP_NO_STAGE;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    m->team_off[i] = at;
    const size_t *t = stp__opt_team(x, c, i);
    for (size_t k = 0; k < c->size[i]; k++) {
      m->team[at++] = t[k];
      m->procs[t[k]].stage = i;
      m->procs[t[k]].rank = k;
    }
  }
  m->team_off[n] = at;
  m->nstages = n;
}

/* The cache entry of stages 0..n-1 of c under Strict. */
static cache_entry *strict_entry(stp_opt *x, const stp_opt_cand *c, size_t n) {
  uint32_t *key = x->key;
  size_t len = 0;
  key[len++] = STRICT_KEY | (uint32_t)n;
  for (size_t i = 0; i < n; i++)
    key[len++] = (uint32_t)c->size[i];
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < c->size[i]; k++)
      key[len++] = (uint32_t)stp__opt_team(x, c, i)[k];
  return cache_find(x->cache, key, len);
}

/* Limits of the Strict graph are not errors of the search: the candidate
 * is skipped. */
static stp_status strict_det(stp_opt *x, const stp_opt_cand *c, size_t n, cache_entry **out,
                             stp_error *err) {
  cache_entry *e = strict_entry(x, c, n);
  if (!(*out = e))
    return stp__oom(err, "caching mappings");
  if (!isnan(e->det))
    return STP_OK;
  set_view(x, c, n);
  stp_error local = {0};
  stp_status s = stp__det_strict(&x->view, &x->eval, &e->det, &local);
  if (s != STP_OK && s != STP_ELIMIT && err)
    *err = local;
  return s;
}

/* The exponential throughput of stages 0..n-1 of c (its cache entry e). */
static stp_status strict_exp(stp_opt *x, const stp_opt_cand *c, size_t n, cache_entry *e,
                             stp_error *err) {
  if (e->exp_state == EXP_UNKNOWN) {
    set_view(x, c, n);
    stp_ctmc_info info = {0};
    stp_error local = {0};
    stp_options o = x->eval; /* the heuristic enumerates no chain above its cap */
    bool capped = x->chain_cap && x->chain_cap < o.max_states;
    if (capped)
      o.max_states = x->chain_cap;
    stp_status s = stp__strict_exp_throughput(&x->view, &o, &e->exp, &info, &local);
    if (s == STP_ELIMIT && capped) {
      x->capped_now = true; /* not a limit of the run: left unknown */
      return s;
    }
    if (s == STP_ELIMIT) {
      e->exp_state = EXP_BEYOND;
    } else if (s != STP_OK) {
      if (err)
        *err = local;
      return s;
    } else {
      e->exp_state = EXP_DONE;
    }
  }
  return e->exp_state == EXP_BEYOND ? STP_ELIMIT : STP_OK;
}

stp_status stp__opt_strict_prefix(stp_opt *x, const stp_opt_cand *c, size_t n, double threshold,
                                  double *value, stp_error *err) {
  for (size_t i = 0; i + 1 < n; i++)
    if (!stp__opt_transfer_ok(x, c, i)) {
      *value = -INFINITY;
      return STP_OK;
    }
  cache_entry *e;
  STP_CHECK(strict_det(x, c, n, &e, err));
  *value = e->det;
  if (*value <= threshold || x->objective == STP_OBJECTIVE_DET || n == x->N)
    return STP_OK;
  /* exp: the cut pipeline's exponential value bounds too, and is tighter */
  stp_status s = strict_exp(x, c, n, e, err);
  if (s == STP_OK)
    *value = fmin(*value, e->exp);
  return s == STP_ELIMIT ? STP_OK : s; /* beyond the limits: the det bound stands */
}

static stp_status strict_item(stp_opt *x, const stp_opt_cand *c, double thr, double *out,
                              stp_error *err) {
  STP_CHECK(stp__opt_strict_prefix(x, c, x->N, thr, out, err));
  if (*out <= thr || x->objective == STP_OBJECTIVE_DET)
    return STP_OK;
  cache_entry *e = strict_entry(x, c, x->N);
  if (!e)
    return stp__oom(err, "caching mappings");
  STP_CHECK(strict_exp(x, c, x->N, e, err));
  *out = e->exp;
  return STP_OK;
}

stp_status stp__opt_item(stp_opt *x, const stp_opt_cand *c, size_t col, double thr, double *value,
                         stp_error *err) {
  if (x->model == STP_MODEL_STRICT)
    return strict_item(x, c, thr, value, err);
  if (col % 2 == 0) {
    *value = comp_item(x, c, col / 2);
    return STP_OK;
  }
  return transfer_item(x, c, col / 2, thr, value, err);
}

/* value, at_min and second from complete items. */
static void summarise(const stp_opt *x, stp_opt_vals *v) {
  double lo = INFINITY;
  for (size_t k = 0; k < x->nitems; k++)
    if (v->item[k] < lo)
      lo = v->item[k];
  v->value = lo;
  v->at_min = 0;
  v->second = INFINITY;
  for (size_t k = 0; k < x->nitems; k++) {
    if (stp__close(v->item[k], lo, STP_OPT_RTOL, 0))
      v->at_min++;
    else if (v->item[k] < v->second)
      v->second = v->item[k];
  }
}

stp_status stp__opt_evaluate(stp_opt *x, const stp_opt_cand *c, const stp_opt_vals *cur,
                             const unsigned char *changed, double threshold, stp_opt_vals *out,
                             stp_error *err) {
  x->evaluated++;
  out->exact = false;
  double kept = INFINITY;
  for (size_t col = 0; col < x->nitems; col++) {
    size_t i = col / 2;
    bool touched = !cur || x->model == STP_MODEL_STRICT || changed[i] ||
                   (col % 2 && changed[i + 1]);
    x->touched[col] = touched;
    if (!touched && (out->item[col] = cur->item[col]) < kept)
      kept = cur->item[col];
  }
  if (kept <= threshold) {
    out->value = kept;
    return STP_OK;
  }
  /* the computations first: they cost nothing and often decide */
  for (size_t pass = 0; pass < 2; pass++)
    for (size_t col = pass; col < x->nitems; col += 2) {
      if (!x->touched[col] && x->model == STP_MODEL_OVERLAP)
        continue;
      STP_CHECK(stp__opt_item(x, c, col, threshold, &out->item[col], err));
      if (out->item[col] <= threshold) {
        out->value = out->item[col];
        return STP_OK;
      }
    }
  summarise(x, out);
  out->exact = true;
  return STP_OK;
}

/* ---- the best so far, budget and progress ------------------------------------------------ */
void stp__opt_offer(stp_opt *x, const stp_opt_cand *c, double v) {
  if (!(v > x->best_value))
    return;
  x->best_value = v;
  stp__opt_cand_copy(x, &x->best, c);
}

/* Progress about ten times a second. */
#define PROGRESS_EVERY 0.1

/* To the options' callback with numbers, and through the run contract's
 * control.progress as a line ("optimizing: best 0.21, bound 0.3, gap 30 %,
 * candidates: 1234 so far, ..." on the command line). */
static void report_progress(const stp_opt *x, double t) {
  double best = x->best_value > -INFINITY ? x->best_value : NAN;
  stp_optimize_progress_info info = {.best = best, .upper_bound = x->upper_bound,
                                     .gap = (x->upper_bound - best) / x->upper_bound,
                                     .evaluated = x->evaluated, .nodes = x->nodes,
                                     .seconds = t - x->t0};
  if (x->opts->progress)
    x->opts->progress(&info, x->opts->progress_data);
  if (!x->shown.fn)
    return;
  char what[96];
  snprintf(what, sizeof what, "optimizing: best %.6g, bound %.6g, gap %.2f %%, %s", best,
           info.upper_bound, 100 * info.gap, x->nodes ? "search nodes" : "candidates");
  x->shown.fn(&(stp_progress_info){.what = what, .done = x->nodes ? x->nodes : x->evaluated,
                                   .seconds = info.seconds},
              x->shown.data);
}

bool stp__opt_stopping(stp_opt *x) {
  if (x->stop != STP_OPT_RUNNING)
    return true;
  if (stp__cancelled(&x->eval.control.cancel)) {
    x->stop = STP_OPT_CANCEL;
    return true;
  }
  if (x->max_evals && x->evaluated >= x->max_evals) {
    x->stop = STP_OPT_EVALS;
    return true;
  }
  double t = stp__now();
  if (t >= x->deadline) {
    x->stop = STP_OPT_TIME;
    return true;
  }
  if ((x->opts->progress || x->shown.fn) && t - x->last_progress >= PROGRESS_EVERY) {
    x->last_progress = t;
    report_progress(x, t);
  }
  return false;
}
