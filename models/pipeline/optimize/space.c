/* space.c: the problem space of stp_optimize (optimize.h): the constraints
 * (--use, --fix, --max-team) parsed into which processor may serve which
 * stage, the tables of times, and the candidates' teams. */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"
#include "models/pipeline/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  stp_opt_space *sp;
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
                       pc->sp->plat->procs[p].name);
  pc->list[pc->n++] = p;
  return STP_OK;
}

/* "STAGE=P,..." into the fixed team of that stage. */
static stp_status parse_fix(stp_opt_space *sp, const char *spec, const stp_name_index *stages,
                            const stp_name_index *procs, size_t **teams, size_t *sizes,
                            stp_error *err) {
  const char *eq = spec ? strchr(spec, '=') : NULL;
  if (!eq)
    return stp__fail(err, STP_EINVAL, "fix: \"%s\" is not STAGE=P1,P2,...", spec ? spec : "");
  size_t i;
  STP_CHECK(index_of(stages, spec, (size_t)(eq - spec), "stage", "fix", &i, err));
  char opt[STP_MAX_NAME + 16];
  snprintf(opt, sizeof opt, "fix %s", sp->plat->stages[i].name);
  if (teams[i])
    return stp__fail(err, STP_EINVAL, "%s: the stage is fixed twice", opt);
  if (!(teams[i] = stp__malloc_array(sp->M, sizeof **teams)))
    return stp__oom(err, "reading constraints");
  parse_ctx pc = {.sp = sp, .procs = procs, .list = teams[i], .opt = opt};
  STP_CHECK(each_item(eq + 1, fix_one, &pc, err));
  if (pc.n == 0)
    return stp__fail(err, STP_EINVAL, "%s: the team is empty", opt);
  sizes[i] = pc.n;
  return STP_OK;
}

/* Fixed teams: disjoint, within --use and --max-team, times within range. */
static stp_status check_fixed(stp_opt_space *sp, const unsigned char *use, stp_error *err) {
  for (size_t i = 0; i < sp->N; i++)
    for (size_t k = sp->fixed_off[i]; k < sp->fixed_off[i + 1]; k++) {
      size_t p = sp->fixed[k];
      const char *st = sp->plat->stages[i].name, *pn = sp->plat->procs[p].name;
      if (sp->reserved[p] != STP_OPT_NONE)
        return stp__fail(err, STP_EINVAL, "fix: processor \"%s\" is in the fixed teams of "
                         "\"%s\" and \"%s\"", pn, sp->plat->stages[sp->reserved[p]].name, st);
      sp->reserved[p] = i;
      if (use && !use[p])
        return stp__fail(err, STP_EINVAL, "fix %s: processor \"%s\" is not in use", st, pn);
      if (!stp__time_ok(sp->comp[i * sp->M + p]))
        return stp__fail(err, STP_EINVAL, "fix %s: the computation time on \"%s\" (%g) is "
                         "outside [%g, %g]", st, pn, sp->comp[i * sp->M + p], STP_MIN_TIME,
                         STP_MAX_TIME);
    }
  for (size_t i = 0; i < sp->N; i++)
    if (sp->fixed_off[i + 1] - sp->fixed_off[i] > sp->kmax)
      return stp__fail(err, STP_EINVAL, "fix %s: a team of %zu, above max-team %zu",
                       sp->plat->stages[i].name, sp->fixed_off[i + 1] - sp->fixed_off[i],
                       sp->kmax);
  return STP_OK;
}

static stp_status read_fixed(stp_opt_space *sp, const stp_optimize_options *o,
                             const stp_name_index *procs, stp_error *err) {
  size_t **teams = stp__calloc(sp->N, sizeof *teams), *sizes = stp__calloc(sp->N, sizeof *sizes);
  stp_name_index stages = {0};
  stp_status s = teams && sizes ? stp__name_index_build_stages(&stages, sp->plat, err)
                                : stp__oom(err, "reading constraints");
  for (size_t k = 0; k < o->nfix && s == STP_OK; k++)
    s = parse_fix(sp, o->fix[k], &stages, procs, teams, sizes, err);
  size_t total = 0;
  for (size_t i = 0; s == STP_OK && i < sp->N; i++) {
    sp->fixed_off[i] = total;
    for (size_t k = 0; k < sizes[i]; k++)
      sp->fixed[total++] = teams[i][k];
  }
  if (s == STP_OK)
    sp->fixed_off[sp->N] = total;
  for (size_t i = 0; teams && i < sp->N; i++)
    free(teams[i]);
  free(teams);
  free(sizes);
  stp__name_index_free(&stages);
  return s;
}

static stp_status read_constraints(stp_opt_space *sp, const stp_optimize_options *o,
                                   stp_error *err) {
  stp_name_index procs = {0};
  unsigned char *use = NULL;
  STP_CHECK(stp__name_index_build_procs(&procs, sp->plat, err));
  stp_status s = STP_OK;
  if (o->use) {
    use = stp__calloc(sp->M, 1);
    parse_ctx pc = {.sp = sp, .procs = &procs, .mark = use};
    s = use ? each_item(o->use, use_one, &pc, err) : stp__oom(err, "reading constraints");
    if (s == STP_OK && pc.n == 0)
      s = stp__fail(err, STP_EINVAL, "use: no processor named");
  }
  if (s == STP_OK)
    s = read_fixed(sp, o, &procs, err);
  if (s == STP_OK)
    s = check_fixed(sp, use, err);
  for (size_t i = 0; s == STP_OK && i < sp->N; i++)
    for (size_t p = 0; p < sp->M; p++) {
      bool fixed_here = sp->reserved[p] == i;
      bool free_stage = sp->fixed_off[i + 1] == sp->fixed_off[i];
      sp->allowed[i * sp->M + p] =
          fixed_here || (free_stage && sp->reserved[p] == STP_OPT_NONE && (!use || use[p]) &&
                         stp__time_ok(sp->comp[i * sp->M + p]));
    }
  free(use);
  stp__name_index_free(&procs);
  return s;
}

/* ---- the space ------------------------------------------------------------------ */
void stp__opt_space_free(stp_opt_space *sp) {
  if (!sp)
    return;
  free(sp->allowed);
  free(sp->fixed_off);
  free(sp->fixed);
  free(sp->reserved);
  free(sp->comp);
  free(sp->bw);
  memset(sp, 0, sizeof *sp);
}

/* The tables, a stage (or a processor's row of bandwidths) at a time, so
 * that a cancellation stops a large set-up. */
static stp_status fill_tables(stp_opt_space *sp, const stp_cancel *cancel, stp_error *err) {
  const stp_mapping *b = sp->plat;
  for (size_t i = 0; i < sp->N; i++) {
    if (stp__cancelled(cancel))
      return stp__fail(err, STP_EINTERRUPTED, "%s: interrupted while preparing the search",
                       b->file);
    for (size_t p = 0; p < sp->M; p++)
      sp->comp[i * sp->M + p] = b->stages[i].work / b->procs[p].speed;
  }
  for (size_t p = 0; sp->bw && p < sp->M; p++)
    for (size_t q = 0; q < sp->M; q++)
      sp->bw[p * sp->M + q] = p == q ? 0 : stp__link_bandwidth(b, p, q);
  for (size_t p = 0; p < sp->M; p++)
    sp->reserved[p] = STP_OPT_NONE;
  return STP_OK;
}

stp_status stp__opt_space_init(stp_opt_space *sp, const stp_problem *pb,
                               const stp_optimize_options *o, const stp_cancel *cancel,
                               stp_error *err) {
  memset(sp, 0, sizeof *sp);
  sp->pb = pb;
  sp->plat = pb->base;
  sp->model = o->model;
  sp->N = pb->base->nstages;
  sp->M = pb->base->nprocs;
  sp->kmax = o->max_team && o->max_team < sp->M ? o->max_team : sp->M;
  size_t N = sp->N, M = sp->M;
  if ((uint64_t)N * M > STP_OPT_MAX_CELLS)
    return stp__fail(err, STP_ELIMIT,
                     "%s: %zu stages x %zu processors is above the %d the optimiser searches",
                     sp->plat->file, N, M, STP_OPT_MAX_CELLS);
  sp->allowed = stp__calloc(N * M, 1);
  sp->fixed_off = stp__calloc(N + 1, sizeof *sp->fixed_off);
  sp->fixed = stp__calloc(M, sizeof *sp->fixed);
  sp->reserved = stp__calloc(M, sizeof *sp->reserved);
  sp->comp = stp__calloc(N * M, sizeof *sp->comp);
  sp->bw = M <= STP_OPT_DENSE_BW_MAX ? stp__calloc(M * M, sizeof *sp->bw) : NULL;
  if (!sp->allowed || !sp->fixed_off || !sp->fixed || !sp->reserved || !sp->comp ||
      (M <= STP_OPT_DENSE_BW_MAX && !sp->bw)) {
    stp__opt_space_free(sp);
    return stp__oom(err, "preparing the search");
  }
  stp_status s = fill_tables(sp, cancel, err);
  if (s == STP_OK)
    s = read_constraints(sp, o, err);
  if (s != STP_OK)
    stp__opt_space_free(sp);
  return s;
}

double stp__opt_link_time(const stp_opt_space *sp, size_t i, size_t p, size_t q) {
  double bw = sp->bw ? sp->bw[p * sp->M + q] : stp__link_bandwidth(sp->plat, p, q);
  if (!(bw > 0))
    return -1;
  double d = sp->plat->stages[i].output / bw;
  return stp__time_ok(d) ? d : -1;
}

bool stp__opt_link_ok(const stp_opt_space *sp, size_t i, size_t p, size_t q) {
  return p != q && stp__opt_link_time(sp, i, p, q) > 0;
}

/* ---- candidates --------------------------------------------------------------------- */
stp_status stp__opt_cand_alloc(const stp_opt_space *sp, stp_opt_cand *c, stp_error *err) {
  c->size = stp__calloc(sp->N, sizeof *c->size);
  c->mem = stp__calloc(sp->N * sp->kmax, sizeof *c->mem);
  c->owner = stp__malloc_array(sp->M, sizeof *c->owner);
  if (!c->size || !c->mem || !c->owner) {
    stp__opt_cand_free(c);
    return stp__oom(err, "preparing the search");
  }
  for (size_t p = 0; p < sp->M; p++)
    c->owner[p] = STP_OPT_NONE;
  return STP_OK;
}

void stp__opt_cand_free(stp_opt_cand *c) {
  free(c->size);
  free(c->mem);
  free(c->owner);
  c->size = c->mem = c->owner = NULL;
}

void stp__opt_cand_copy(const stp_opt_space *sp, stp_opt_cand *dst, const stp_opt_cand *src) {
  memcpy(dst->size, src->size, sp->N * sizeof *dst->size);
  memcpy(dst->mem, src->mem, sp->N * sp->kmax * sizeof *dst->mem);
  memcpy(dst->owner, src->owner, sp->M * sizeof *dst->owner);
}

void stp__opt_cand_clear(const stp_opt_space *sp, stp_opt_cand *c) {
  memset(c->size, 0, sp->N * sizeof *c->size);
  for (size_t p = 0; p < sp->M; p++)
    c->owner[p] = STP_OPT_NONE;
}

void stp__opt_cand_insert(const stp_opt_space *sp, stp_opt_cand *c, size_t i, size_t y, size_t p) {
  size_t *t = stp__opt_team(sp, c, i);
  memmove(t + y + 1, t + y, (c->size[i] - y) * sizeof *t);
  t[y] = p;
  c->size[i]++;
  c->owner[p] = i;
}

size_t stp__opt_cand_remove(const stp_opt_space *sp, stp_opt_cand *c, size_t i, size_t y) {
  size_t *t = stp__opt_team(sp, c, i), p = t[y];
  memmove(t + y, t + y + 1, (c->size[i] - y - 1) * sizeof *t);
  c->size[i]--;
  c->owner[p] = STP_OPT_NONE;
  return p;
}

void stp__opt_cand_fixed(const stp_opt_space *sp, stp_opt_cand *c) {
  stp__opt_cand_clear(sp, c);
  for (size_t i = 0; i < sp->N; i++)
    for (size_t k = sp->fixed_off[i]; k < sp->fixed_off[i + 1]; k++)
      stp__opt_cand_insert(sp, c, i, c->size[i], sp->fixed[k]);
}

bool stp__opt_cand_valid(const stp_opt_space *sp, const stp_opt_cand *c) {
  for (size_t i = 0; i < sp->N; i++) {
    if (c->size[i] == 0 || c->size[i] > sp->kmax)
      return false;
    const size_t *t = stp__opt_team(sp, c, i);
    for (size_t k = 0; k < c->size[i]; k++)
      if (!sp->allowed[i * sp->M + t[k]] || c->owner[t[k]] != i)
        return false;
    if (stp__opt_fixed_size(sp, i) &&
        memcmp(t, sp->fixed + sp->fixed_off[i], c->size[i] * sizeof *t))
      return false;
  }
  return true;
}

bool stp__opt_transfer_ok(const stp_opt_space *sp, const stp_opt_cand *c, size_t i) {
  const size_t *a = stp__opt_team(sp, c, i), *b = stp__opt_team(sp, c, i + 1);
  size_t g = (size_t)stp__gcd_u64(c->size[i], c->size[i + 1]);
  for (size_t s = 0; s < c->size[i]; s++)
    for (size_t r = s % g; r < c->size[i + 1]; r += g)
      if (stp__opt_link_time(sp, i, a[s], b[r]) < 0)
        return false;
  return true;
}
