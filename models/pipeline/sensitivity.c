/* sensitivity.c: the elasticities of a mapping's throughput with respect to
 * its parameters (streamtp_explain.h; docs/design.md, "Sensitivities").
 *
 * Every time is a ratio of two parameters (c_p = w_i / s_p, d_pq =
 * delta_i / b_pq), so d log x / d log theta is +1, -1 or 0, and a
 * parameter's elasticity is a sum over the transitions whose time it sets.
 * The throughput is a minimum: over the Overlap components, over the
 * groups of rows of a Strict mapping that share no processor, and (det)
 * over cycles.  The elasticity from above is the smallest over what ties
 * at the minimum, from below the largest; a component that the parameter
 * does not touch counts as 0.  det: the critical graph of each tied cycle
 * ratio (solvers/mcr_critical.h); exp: one adjoint solve per tied chain
 * (engine/chain_adjoint.h); under a phase-type law, the same on the chains
 * of markings and phases (engine/reach.h, stp__reach_gradient_ph). */
#include "base/core.h"
#include "engine/chain_adjoint.h"
#include "engine/graph.h"
#include "engine/reach.h"
#include "models/pipeline/components.h"
#include "models/pipeline/exact_law.h"
#include "models/pipeline/mapping.h"
#include "models/pipeline/pattern_chain.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/teg.h"
#include "solvers/mcr_critical.h"
#include "solvers/mcr_howard.h"
#include "streamtp_explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two values closer than this tie at a minimum (as the critical resources). */
#define TIE_RTOL 1e-9

const char *stp_param_kind_name(stp_param_kind k) {
  switch (k) {
  case STP_PARAM_SPEED: return "speed";
  case STP_PARAM_BANDWIDTH: return "bandwidth";
  case STP_PARAM_WORK: return "work";
  case STP_PARAM_OUTPUT: return "output";
  }
  return "?";
}

/* ---- the parameters ------------------------------------------------------------------ */
typedef struct params {
  const stp_mapping *m;
  size_t n;
  size_t dflt;              /* index of the default bandwidth, SIZE_MAX: none */
  size_t link0, work0, out0; /* first index of each kind (speeds from 0) */
} params;

static params params_of(const stp_mapping *m) {
  params P = {.m = m, .dflt = SIZE_MAX};
  size_t at = m->nprocs;
  if (m->bandwidth > 0)
    P.dflt = at++;
  P.link0 = at;
  at += m->nlinks;
  P.work0 = at;
  at += m->nstages;
  P.out0 = at;
  at += m->nstages - 1;
  P.n = at;
  return P;
}

/* What a transition's time depends on: d log x = coef[0] d log theta[idx[0]]
 * + coef[1] d log theta[idx[1]]. */
typedef struct dep {
  size_t idx[2];
  double coef[2];
} dep;

static dep comp_dep(const params *P, size_t p) {
  return (dep){{p, P->work0 + P->m->procs[p].stage}, {-1, 1}};
}

static dep link_dep(const params *P, size_t i, size_t p, size_t q) {
  size_t l = stp__link_entry(P->m, p, q);
  return (dep){{l == SIZE_MAX ? P->dflt : P->link0 + l, P->out0 + i}, {-1, 1}};
}

/* ---- the minimum over tied parts ------------------------------------------------------- */
/* One objective's one-sided elasticities, gathered over the parts that tie
 * at the minimum: right = min, left = max, a part that leaves a parameter
 * alone counting as 0 (seen[] counts the parts that touched it). */
typedef struct slopes {
  size_t n, parts;
  double *right, *left;
  size_t *seen;
  /* one part's values, sparse */
  double *pr, *pl;
  size_t *touched, ntouched;
  unsigned char *mark;
} slopes;

static stp_status slopes_init(slopes *s, size_t n, stp_error *err) {
  *s = (slopes){.n = n};
  s->right = stp__malloc_array(n, sizeof *s->right);
  s->left = stp__malloc_array(n, sizeof *s->left);
  s->seen = stp__calloc(n, sizeof *s->seen);
  s->pr = stp__calloc(n, sizeof *s->pr);
  s->pl = stp__calloc(n, sizeof *s->pl);
  s->touched = stp__malloc_array(n, sizeof *s->touched);
  s->mark = stp__calloc(n, 1);
  if (!s->right || !s->left || !s->seen || !s->pr || !s->pl || !s->touched || !s->mark)
    return stp__oom(err, "computing sensitivities");
  for (size_t k = 0; k < n; k++) {
    s->right[k] = INFINITY;
    s->left[k] = -INFINITY;
  }
  return STP_OK;
}

static void slopes_free(slopes *s) {
  free(s->right);
  free(s->left);
  free(s->seen);
  free(s->pr);
  free(s->pl);
  free(s->touched);
  free(s->mark);
}

static void part_touch(slopes *s, size_t k) {
  if (k == SIZE_MAX || s->mark[k])
    return;
  s->mark[k] = 1;
  s->pr[k] = s->pl[k] = 0;
  s->touched[s->ntouched++] = k;
}

static void part_add(slopes *s, size_t k, double right, double left) {
  part_touch(s, k);
  if (k == SIZE_MAX)
    return;
  s->pr[k] += right;
  s->pl[k] += left;
}

/* Closes one part: its values join the minimum. */
static void part_end(slopes *s) {
  for (size_t t = 0; t < s->ntouched; t++) {
    size_t k = s->touched[t];
    s->right[k] = fmin(s->right[k], s->pr[k]);
    s->left[k] = fmax(s->left[k], s->pl[k]);
    s->seen[k]++;
    s->mark[k] = 0;
  }
  s->ntouched = 0;
  s->parts++;
}

/* The gathered values into each item's slope (after every part). */
static void slopes_store(const slopes *s, stp_sensitivity *items, size_t which) {
  for (size_t k = 0; k < s->n; k++) {
    double r = s->right[k], l = s->left[k];
    if (s->seen[k] < s->parts) { /* some tied part leaves it alone */
      r = fmin(r, 0);
      l = fmax(l, 0);
    }
    if (s->parts == 0)
      r = l = 0;
    stp_slope v = {.elasticity = r, .right = r, .left = l};
    stp_slope *dst = which == 0 ? &items[k].det : which == 1 ? &items[k].exp : &items[k].law;
    *dst = v;
  }
}

/* ---- det: the critical graph of one cycle ratio ----------------------------------------- */
typedef dep (*dep_fn)(const params *P, const void *ctx, uint32_t node);

/* One part whose throughput is proportional to 1 / lambda*(g): for every
 * parameter that a critical transition depends on, the slopes of lambda*
 * in its direction.  time[node] is the node's firing time. */
static stp_status det_part(const params *P, const stp_digraph *g, const double *time, dep_fn fn,
                           const void *ctx, slopes *acc, stp_error *err) {
  stp_mcr_result r = {0};
  STP_CHECK(stp__mcr_howard(g, NULL, &r, err));
  double lambda = r.ratio;
  stp__mcr_result_clear(&r);
  stp_mcr_critical crit;
  STP_CHECK(stp__mcr_critical(g, lambda, &crit, err));
  double *h = stp__calloc(g->n, sizeof *h);
  dep *deps = stp__malloc_array(g->n, sizeof *deps);
  size_t *todo = stp__malloc_array(2 * (size_t)crit.g->n, sizeof *todo);
  stp_status s = h && deps && todo ? STP_OK : stp__oom(err, "computing sensitivities");
  size_t ntodo = 0;
  for (uint32_t u = 0; s == STP_OK && u < g->n; u++)
    deps[u] = fn(P, ctx, u);
  for (uint32_t k = 0; s == STP_OK && k < crit.g->n; k++)
    for (int d = 0; d < 2; d++) {
      size_t idx = deps[crit.node[k]].idx[d];
      if (idx != SIZE_MAX && !acc->mark[idx]) {
        part_touch(acc, idx);
        todo[ntodo++] = idx;
      }
    }
  for (size_t t = 0; s == STP_OK && t < ntodo; t++) {
    size_t idx = todo[t];
    for (uint32_t u = 0; u < g->n; u++) {
      h[u] = 0;
      for (int d = 0; d < 2; d++)
        if (deps[u].idx[d] == idx)
          h[u] += deps[u].coef[d] * time[u];
    }
    double hi, lo;
    s = stp__mcr_critical_slopes(&crit, h, &hi, &lo, err);
    if (s == STP_OK) /* rho ~ 1 / lambda: d log rho = -d lambda / lambda */
      part_add(acc, idx, -hi / lambda, -lo / lambda);
  }
  if (s == STP_OK)
    part_end(acc);
  free(h);
  free(deps);
  free(todo);
  stp__mcr_critical_free(&crit);
  return s;
}

/* ---- the Overlap components ------------------------------------------------------------- */
static dep pattern_dep(const params *P, const void *ctx, uint32_t k) {
  const stp_component *c = ctx;
  return link_dep(P, c->stage, stp__pattern_sender(c, k), stp__pattern_receiver(c, k));
}

/* A computation component: rho_k = R_i s_p / w_i. */
static void compute_part(const params *P, const stp_component *c, slopes *acc) {
  dep d = comp_dep(P, c->snd[0]);
  for (int k = 0; k < 2; k++)
    part_add(acc, d.idx[k], -d.coef[k], -d.coef[k]);
  part_end(acc);
}

static bool ties(double a, double best) { return stp__close(a, best, TIE_RTOL, 0); }

static stp_status det_overlap(const params *P, const stp_component_set *cs, const stp_result *r,
                              slopes *acc, stp_error *err) {
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    if (!ties(r->components[k].det_throughput, r->det_throughput))
      continue;
    if (c->kind == STP_COMPONENT_COMPUTE) {
      compute_part(P, c, acc);
      continue;
    }
    double *times = NULL;
    stp_digraph *g = NULL;
    stp_status s = stp__pattern_times(P->m, c, &times, err);
    if (s == STP_OK)
      s = stp__pattern_graph(c, times, &g, err);
    if (s == STP_OK)
      s = det_part(P, g, times, pattern_dep, c, acc, err);
    stp__digraph_free(g);
    free(times);
    STP_CHECK(s);
  }
  return STP_OK;
}

/* ---- Strict: the full event graph ------------------------------------------------------- */
/* Transition row * (2N - 1) + col of the full event graph (stp_teg and
 * stp_mapping_graph number them alike). */
typedef struct teg_ctx {
  uint32_t ncols;
} teg_ctx;

static dep teg_dep(const params *P, const void *ctx, uint32_t node) {
  uint32_t ncols = ((const teg_ctx *)ctx)->ncols;
  uint64_t row = node / ncols;
  uint32_t col = node % ncols;
  stp_teams teams = stp__teams_of(P->m);
  size_t q, p = stp__teg_processor(&teams, row, col, &q);
  return col % 2 ? link_dep(P, col / 2, p, q) : comp_dep(P, p);
}

static stp_status det_strict(const params *P, const stp_options *o, slopes *acc, stp_error *err) {
  stp_teg *t;
  STP_CHECK(stp__teg_build(P->m, STP_MODEL_STRICT, o->max_transitions, &t, err));
  teg_ctx ctx = {t->ncols};
  stp_status s = det_part(P, t->g, t->time, teg_dep, &ctx, acc, err);
  stp__teg_free(t);
  return s;
}

/* ---- exp: adjoint solves ---------------------------------------------------------------- */
typedef struct exp_acc {
  uint64_t states;
  double residual;
  size_t sweeps;
} exp_acc;

/* One part: a chain whose events are the nodes fn describes; weight[t] the
 * reward of a firing of t (the part's throughput is proportional to the
 * reward); pi its stationary distribution. */
static stp_status exp_part(const params *P, const stp_chain *c, const double *pi,
                           const double *weight, dep_fn fn, const void *ctx,
                           const stp_options *o, slopes *acc, exp_acc *ea, stp_error *err) {
  double *grad = stp__malloc_array(c->nevents, sizeof *grad), value = 0;
  if (!grad)
    return stp__oom(err, "computing sensitivities");
  stp_adjoint_info info;
  stp_status s = stp__chain_reward_gradient(c, pi, weight, o, &value, grad, &info, err);
  if (s == STP_OK) {
    for (uint32_t t = 0; t < c->nevents; t++) {
      dep d = fn(P, ctx, t);
      /* d log rho / d log x_t = -(d rho / d log mu_t) / rho */
      for (int k = 0; k < 2; k++)
        part_add(acc, d.idx[k], -d.coef[k] * grad[t] / value, -d.coef[k] * grad[t] / value);
    }
    part_end(acc);
    uint64_t states = (uint64_t)c->moves->nrows;
    ea->states = states > ea->states ? states : ea->states;
    ea->residual = fmax(ea->residual, info.residual);
    ea->sweeps += info.sweeps;
  }
  free(grad);
  return s;
}

static stp_status solve_chain(const stp_chain *c, const stp_options *o, double **pi,
                              stp_error *err) {
  double rate;
  stp_ctmc_info info;
  return stp__chain_solve(c, o, STP_STATIONARY_AUTO, pi, &rate, &info, err);
}

static stp_status exp_pattern(const params *P, const stp_component *c, const stp_options *o,
                              slopes *acc, exp_acc *ea, stp_error *err) {
  double *times = NULL, *pi = NULL, *weight = NULL;
  stp_chain *ch = NULL;
  STP_CHECK(stp__pattern_times(P->m, c, &times, err));
  stp_status s = stp__pattern_check_memory(c->u, c->v, stp_options_memory_budget(o), err);
  if (s == STP_OK)
    s = stp__pattern_chain(c->u, c->v, times, o->max_states, &ch, err);
  if (s == STP_OK)
    s = solve_chain(ch, o, &pi, err);
  if (s == STP_OK) {
    weight = stp__malloc_array(ch->nevents, sizeof *weight);
    s = weight ? STP_OK : stp__oom(err, "computing sensitivities");
  }
  if (s == STP_OK) {
    for (uint32_t t = 0; t < ch->nevents; t++)
      weight[t] = 1; /* every firing carries one data set */
    s = exp_part(P, ch, pi, weight, pattern_dep, c, o, acc, ea, err);
  }
  if (s != STP_OK)
    stp_error_prefix(err, "transfer component %zu after stage \"%s\"", c->index,
                     P->m->stages[c->stage].name);
  free(weight);
  free(pi);
  stp__chain_free(ch);
  free(times);
  return s;
}

static stp_status exp_overlap(const params *P, const stp_component_set *cs, const stp_result *r,
                              const stp_options *o, slopes *acc, exp_acc *ea, stp_error *err) {
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    if (!ties(r->components[k].exp_throughput, r->exp_throughput))
      continue;
    if (c->kind == STP_COMPONENT_COMPUTE)
      compute_part(P, c, acc);
    else
      STP_CHECK(exp_pattern(P, c, o, acc, ea, err));
  }
  return STP_OK;
}

/* Strict: rows j and j' share a processor exactly when j = j' mod G, G the
 * gcd of the team sizes, so the event graph has G parts that run
 * independently and the throughput is G x R/G x the smallest rate of a
 * part's last column; one adjoint solve for each part at the minimum. */
static stp_status exp_strict(const params *P, const stp_options *o, slopes *acc, exp_acc *ea,
                             double *rho, stp_error *err) {
  const stp_mapping *m = P->m;
  uint64_t G = 0;
  for (size_t i = 0; i < m->nstages; i++)
    G = stp__gcd_u64(G, stp__team_size(m, i));
  stp_teg *t = NULL;
  stp_chain *ch = NULL;
  double *pi = NULL, *weight = NULL, *fire = NULL;
  stp_status s = stp__teg_build(m, STP_MODEL_STRICT, o->max_transitions, &t, err);
  if (s == STP_OK)
    s = stp__strict_chain(m, o, &ch, err);
  if (s == STP_OK)
    s = solve_chain(ch, o, &pi, err);
  if (s == STP_OK) {
    weight = stp__calloc(ch->nevents, sizeof *weight);
    fire = stp__calloc(G, sizeof *fire);
    s = weight && fire ? STP_OK : stp__oom(err, "computing sensitivities");
  }
  if (s == STP_OK) {
    const stp_csr *mv = ch->moves;
    for (int64_t st = 0; st < mv->nrows; st++)
      for (int64_t e = mv->p[st]; e < mv->p[st + 1]; e++)
        if (ch->counted[ch->event[e]])
          fire[(ch->event[e] / t->ncols) % G] += pi[st] * mv->x[e];
    double low = INFINITY;
    for (uint64_t g = 0; g < G; g++)
      low = fmin(low, fire[g]);
    *rho = (double)G * low; /* R x the smallest rate of a last transition */
    teg_ctx ctx = {t->ncols};
    for (uint64_t g = 0; s == STP_OK && g < G; g++) {
      if (!ties(fire[g], low))
        continue;
      for (uint32_t e = 0; e < ch->nevents; e++)
        weight[e] = ch->counted[e] && (e / t->ncols) % G == g ? (double)G : 0;
      s = exp_part(P, ch, pi, weight, teg_dep, &ctx, o, acc, ea, err);
    }
  }
  if (s != STP_OK && s != STP_ENOMEM && s != STP_EINTERRUPTED)
    stp_error_prefix(err, "%s: the Strict Markov chain", m->file);
  free(fire);
  free(weight);
  free(pi);
  stp__chain_free(ch);
  stp__teg_free(t);
  return s;
}


/* ---- under the law: the gradients of the phase-type chains ------------------------------- */
typedef struct law_part {
  const params *P;
  dep_fn fn;
  const void *ctx;
  slopes *acc;
  uint32_t nt;
} law_part;

static stp_status law_part_add(void *ctx, const double *dlog, stp_error *err) {
  (void)err;
  const law_part *lp = ctx;
  for (uint32_t t = 0; t < lp->nt; t++) {
    if (dlog[t] == 0)
      continue;
    dep d = lp->fn(lp->P, lp->ctx, t);
    for (int k = 0; k < 2; k++)
      part_add(lp->acc, d.idx[k], d.coef[k] * dlog[t], d.coef[k] * dlog[t]);
  }
  part_end(lp->acc);
  return STP_OK;
}

/* The slowest components of g (ph[t] the law of transition t) into acc. */
static stp_status law_graph(const params *P, const stp_graph *g, const stp_coxian *const *ph,
                            dep_fn fn, const void *ctx, const stp_options *o, slopes *acc,
                            exp_acc *ea, stp_error *err) {
  law_part lp = {P, fn, ctx, acc, (uint32_t)stp_graph_transition_count(g)};
  double rho, residual = 0;
  stp_reach_stats st;
  STP_CHECK(stp__reach_gradient_ph(g, o, ph, TIE_RTOL, law_part_add, &lp, &rho, &st, &residual,
                                   err));
  ea->states = st.states > ea->states ? st.states : ea->states;
  ea->residual = fmax(ea->residual, residual);
  return STP_OK;
}

static stp_status law_pattern(const params *P, const stp_component *c, const stp_law_columns *lc,
                              const stp_options *o, slopes *acc, exp_acc *ea, stp_error *err) {
  double *times = NULL;
  stp_graph *g = NULL;
  const stp_coxian **ph = stp__malloc_array(c->u * c->v, sizeof *ph);
  stp_status s = ph ? stp__pattern_times(P->m, c, &times, err)
                    : stp__oom(err, "computing sensitivities");
  if (s == STP_OK)
    s = stp__pattern_event_graph(c, times, &g, err);
  for (size_t k = 0; s == STP_OK && k < c->u * c->v; k++)
    ph[k] = lc->cox[2 * c->stage + 1];
  if (s == STP_OK)
    s = law_graph(P, g, ph, pattern_dep, c, o, acc, ea, err);
  if (s != STP_OK)
    stp_error_prefix(err, "transfer component %zu after stage \"%s\"", c->index,
                     P->m->stages[c->stage].name);
  stp_graph_free(g);
  free(times);
  free(ph);
  return s;
}

static stp_status law_overlap(const params *P, const stp_component_set *cs, const stp_result *r,
                              const stp_law_columns *lc, const stp_options *o, slopes *acc,
                              exp_acc *ea, stp_error *err) {
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    if (!ties(r->components[k].law_throughput, r->exact_law.throughput))
      continue;
    if (c->kind == STP_COMPONENT_COMPUTE) /* a renewal process, whatever the law */
      compute_part(P, c, acc);
    else
      STP_CHECK(law_pattern(P, c, lc, o, acc, ea, err));
  }
  return STP_OK;
}

static stp_status law_strict(const params *P, const stp_law_columns *lc, const stp_options *o,
                             slopes *acc, exp_acc *ea, stp_error *err) {
  stp_graph *g;
  STP_CHECK(stp_mapping_graph(P->m, STP_MODEL_STRICT, &g, err));
  size_t nt = stp_graph_transition_count(g);
  const stp_coxian **ph = stp__malloc_array(nt ? nt : 1, sizeof *ph);
  stp_status s = ph ? STP_OK : stp__oom(err, "computing sensitivities");
  for (size_t t = 0; s == STP_OK && t < nt; t++)
    ph[t] = lc->cox[t % lc->ncols];
  teg_ctx ctx = {(uint32_t)lc->ncols};
  if (s == STP_OK)
    s = law_graph(P, g, ph, teg_dep, &ctx, o, acc, ea, err);
  free(ph);
  stp_graph_free(g);
  return s;
}

/* ---- the result ------------------------------------------------------------------------- */
void stp_sensitivity_result_free(stp_sensitivity_result *r) {
  if (!r)
    return;
  for (size_t k = 0; k < r->n; k++)
    free(r->items[k].of);
  free(r->items);
  free(r->exp_reason);
  free(r->law_reason);
  free(r);
}

static stp_status name_items(const params *P, stp_sensitivity_result *r, stp_error *err) {
  const stp_mapping *m = P->m;
  r->items = stp__calloc(P->n ? P->n : 1, sizeof *r->items);
  if (!r->items)
    return stp__oom(err, "naming parameters");
  r->n = P->n;
  for (size_t k = 0; k < P->n; k++) {
    stp_sensitivity *it = &r->items[k];
    stp_slope none = {NAN, NAN, NAN};
    it->det = it->exp = it->law = none;
    if (k < m->nprocs) {
      *it = (stp_sensitivity){STP_PARAM_SPEED, stp__strdup(m->procs[k].name), k,
                              m->procs[k].speed, none, none, none};
    } else if (k == P->dflt) {
      *it = (stp_sensitivity){STP_PARAM_BANDWIDTH, stp__strdup("default"), SIZE_MAX,
                              m->bandwidth, none, none, none};
    } else if (k < P->work0) {
      const stp_link *l = &m->links[k - P->link0];
      *it = (stp_sensitivity){STP_PARAM_BANDWIDTH,
                              stp__asprintf("%s->%s", m->procs[l->from].name, m->procs[l->to].name),
                              k - P->link0, l->bandwidth, none, none, none};
    } else if (k < P->out0) {
      size_t i = k - P->work0;
      *it = (stp_sensitivity){STP_PARAM_WORK, stp__strdup(m->stages[i].name), i,
                              m->stages[i].work, none, none, none};
    } else {
      size_t i = k - P->out0;
      *it = (stp_sensitivity){STP_PARAM_OUTPUT, stp__strdup(m->stages[i].name), i,
                              m->stages[i].output, none, none, none};
    }
    if (!it->of)
      return stp__oom(err, "naming parameters");
  }
  return STP_OK;
}

static stp_status det_slopes(const params *P, stp_model model, const stp_component_set *cs,
                             const stp_result *ev, const stp_options *o,
                             stp_sensitivity_result *r, stp_error *err) {
  slopes acc;
  stp_status s = slopes_init(&acc, P->n, err);
  if (s == STP_OK)
    s = model == STP_MODEL_OVERLAP ? det_overlap(P, cs, ev, &acc, err)
                                   : det_strict(P, o, &acc, err);
  if (s == STP_OK)
    slopes_store(&acc, r->items, 0);
  slopes_free(&acc);
  return s;
}

/* A chain beyond the limits leaves exp without a value and with a reason.
 * Strict: the chain solved here gives the value too (the evaluation did
 * not solve it). */
static stp_status exp_slopes(const params *P, stp_model model, const stp_component_set *cs,
                             const stp_result *ev, const stp_options *o,
                             stp_sensitivity_result *r, stp_error *err) {
  if (o->exp_method == STP_EXP_NONE || (model == STP_MODEL_OVERLAP && !ev->exp_available)) {
    r->exp_reason = stp__strdup(ev->exp_reason ? ev->exp_reason : "not computed");
    return r->exp_reason ? STP_OK : stp__oom(err, "recording a reason");
  }
  slopes acc;
  exp_acc ea = {0};
  stp_error local = {0};
  stp_status s = slopes_init(&acc, P->n, err);
  if (s == STP_OK) {
    s = model == STP_MODEL_OVERLAP ? exp_overlap(P, cs, ev, o, &acc, &ea, &local)
                                   : exp_strict(P, o, &acc, &ea, &r->exp_throughput, &local);
    if (s == STP_OK && r->exp_throughput > r->det_throughput * (1 + TIE_RTOL))
      s = stp__fail(&local, STP_ENUMERIC,
                    "%s: the exponential throughput %.17g exceeds the deterministic one %.17g",
                    P->m->file, r->exp_throughput, r->det_throughput);
    if (s == STP_ELIMIT) {
      r->exp_reason = stp__strdup(local.message);
      s = r->exp_reason ? STP_OK : stp__oom(err, "recording a reason");
    } else if (s == STP_OK) {
      slopes_store(&acc, r->items, 1);
      r->exp_available = 1;
      r->exp_states = ea.states;
      r->exp_residual = ea.residual;
      r->exp_sweeps = ea.sweeps;
    } else if (err) {
      *err = local;
    }
  }
  slopes_free(&acc);
  return s;
}

/* Under the law of the evaluation (ev->exact_law): its value missing
 * gives its reason. */
static stp_status law_slopes(const params *P, stp_model model, const stp_component_set *cs,
                             const stp_result *ev, const stp_options *o,
                             stp_sensitivity_result *r, stp_error *err) {
  const stp_law_result *lr = &ev->exact_law;
  if (!lr->asked)
    return STP_OK;
  if (!lr->available) {
    r->law_reason = stp__strdup(lr->reason ? lr->reason : "not computed");
    return r->law_reason ? STP_OK : stp__oom(err, "recording a reason");
  }
  slopes acc;
  exp_acc ea = {0};
  stp_law_columns lc = {0};
  stp_error local = {0};
  stp_status s = slopes_init(&acc, P->n, err);
  if (s == STP_OK)
    s = stp__law_columns_resolve(P->m, o, &lc, &local);
  if (s == STP_OK)
    s = model == STP_MODEL_OVERLAP ? law_overlap(P, cs, ev, &lc, o, &acc, &ea, &local)
                                   : law_strict(P, &lc, o, &acc, &ea, &local);
  if (s == STP_ELIMIT || s == STP_EINVAL) {
    r->law_reason = stp__strdup(local.message);
    s = r->law_reason ? STP_OK : stp__oom(err, "recording a reason");
  } else if (s == STP_OK) {
    slopes_store(&acc, r->items, 2);
    r->law_available = 1;
    r->law_throughput = lr->throughput;
    r->law_residual = ea.residual;
  } else if (err) {
    *err = local;
  }
  stp__law_columns_free(&lc);
  slopes_free(&acc);
  return s;
}

stp_status stp_sensitivity_compute(const stp_mapping *m, stp_model model, const stp_options *opts,
                                   stp_sensitivity_result **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_sensitivity_compute: out is NULL");
  *out = NULL;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_sensitivity_compute: mapping is NULL");
  stp_options defaults;
  if (!opts) {
    stp_options_init(&defaults);
    opts = &defaults;
  }
  double t0 = stp__now();
  stp_sensitivity_result *r = calloc(1, sizeof *r);
  if (!r)
    return stp__oom(err, "allocating sensitivities");
  r->model = model;
  r->exp_throughput = r->law_throughput = NAN;
  params P = params_of(m);
  stp_result *ev = NULL;
  stp_component_set cs = {0};
  /* Strict: the chain is solved here once, for the value and its adjoint */
  stp_options eo = *opts;
  if (model == STP_MODEL_STRICT)
    eo.exp_method = STP_EXP_NONE;
  stp_status s = name_items(&P, r, err);
  if (s == STP_OK)
    s = stp_evaluate(m, model, &eo, &ev, err);
  if (s == STP_OK)
    s = stp__components_build(m, &cs, err);
  if (s == STP_OK) {
    r->det_throughput = ev->det_throughput;
    r->exp_throughput = model == STP_MODEL_OVERLAP && ev->exp_available ? ev->exp_throughput : NAN;
    s = det_slopes(&P, model, &cs, ev, opts, r, err);
  }
  if (s == STP_OK)
    s = exp_slopes(&P, model, &cs, ev, opts, r, err);
  if (s == STP_OK)
    s = law_slopes(&P, model, &cs, ev, opts, r, err);
  stp__components_free(&cs);
  stp_result_free(ev);
  if (s != STP_OK) {
    stp_sensitivity_result_free(r);
    return s;
  }
  r->seconds = stp__now() - t0;
  *out = r;
  return STP_OK;
}

/* ---- ranking ----------------------------------------------------------------------------- */
static const stp_slope *slope_of(const stp_sensitivity *it, stp_rank_by by) {
  return by == STP_RANK_LAW ? &it->law : by == STP_RANK_EXP ? &it->exp : &it->det;
}

typedef struct rank_key {
  double key;
  size_t at;
} rank_key;

static int cmp_rank(const void *a, const void *b) {
  const rank_key *x = a, *y = b;
  if (x->key != y->key)
    return x->key > y->key ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

void stp_sensitivity_rank(stp_sensitivity_result *r, stp_rank_by by) {
  if (!r || r->n == 0)
    return;
  if (by == STP_RANK_EXP && !r->exp_available)
    by = STP_RANK_DET;
  if (by == STP_RANK_LAW && !r->law_available)
    by = r->exp_available ? STP_RANK_EXP : STP_RANK_DET;
  r->ranked_by = by;
  rank_key *keys = stp__malloc_array(r->n, sizeof *keys);
  stp_sensitivity *copy = stp__malloc_array(r->n, sizeof *copy);
  if (!keys || !copy) { /* leave the order as it is */
    free(keys);
    free(copy);
    return;
  }
  for (size_t k = 0; k < r->n; k++) {
    double e = slope_of(&r->items[k], by)->elasticity;
    keys[k] = (rank_key){isnan(e) ? -INFINITY : e, k};
  }
  qsort(keys, r->n, sizeof *keys, cmp_rank);
  memcpy(copy, r->items, r->n * sizeof *copy);
  for (size_t k = 0; k < r->n; k++)
    r->items[k] = copy[keys[k].at];
  free(keys);
  free(copy);
}
