/* exact_law.c: the throughput of a mapping when its times follow
 * phase-type laws (docs/design.md, "Phase-type laws").  The phases live in
 * the generic reachability chain (engine/reach.h): this file only says
 * which graph to solve and with which law per transition.
 *
 * Overlap: the components of docs/design.md 4 stay independent under any
 * law.  A processor's computations are a renewal process (R_i / c_p);
 * a transfer component is its folded u x v pattern, written as an event
 * graph (the pattern unrolls to the component's R rows exactly, whatever
 * the law) and solved with the transfer column's law on every transition.
 * Strict: the mapping's full event graph (stp_mapping_graph), each
 * transition with its column's law.  Where a column's law is exponential
 * (one phase), the exponential value already computed is that chain's
 * value and is reused, so erlang:k=1 gives the exponential throughput to
 * the last digit. */
#include "models/pipeline/exact_law.h"

#include "base/core.h"
#include "base/inputrules.h"
#include "engine/reach.h"
#include "models/pipeline/strict_chain.h"
#include "models/pipeline/teg.h"
#include "solvers/laws.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value under any law may exceed the deterministic one only by rounding
 * (Jensen: the period is convex in the times). */
#define STP_LAW_BOUND_RTOL 1e-9

void stp__law_result_clear(stp_law_result *lr) {
  free(lr->law);
  for (size_t c = 0; c < lr->ncolumns; c++)
    free(lr->column_law[c]);
  free(lr->column_law);
  free(lr->method);
  free(lr->reason);
  memset(lr, 0, sizeof *lr);
}

/* ---- the laws of the columns ---------------------------------------------------------- */

typedef struct law_setup {
  size_t ncols;
  const stp_coxian **cox; /* per column */
  bool all_exp;           /* every column has one phase */
  stp_law exp_law;        /* "exp", where neither options nor file give a default */
  double one, zero;       /* its Coxian form */
} law_setup;

static const stp_law *default_law(const stp_mapping *m, const stp_options *o);
static bool file_laws_phase_type(const stp_mapping *m);

static const stp_law *column_law(const stp_mapping *m, const stp_law *dflt, size_t c) {
  const stp_law_table *t = m->laws;
  const stp_law *set = t ? (c % 2 ? t->transfer[c / 2] : t->stage[c / 2]) : NULL;
  return set ? set : dflt;
}

static bool is_exponential(const stp_coxian *c) { return c->n == 1; }

/* The specs into lr, the Coxian forms into ls; a law that is not
 * phase-type: STP_EINVAL with the column named. */
static stp_status resolve_laws(const stp_mapping *m, const stp_law *dflt, stp_law_result *lr,
                               law_setup *ls, stp_error *err) {
  ls->one = 1;
  ls->exp_law = (stp_law){.kind = STP_LAW_EXP, .spec = "exp", .ph = {1, &ls->one, &ls->zero}};
  ls->ncols = 2 * m->nstages - 1;
  lr->ncolumns = ls->ncols;
  lr->law = stp__strdup(dflt ? dflt->spec : "exp");
  lr->column_law = stp__calloc(ls->ncols, sizeof *lr->column_law);
  ls->cox = stp__calloc(ls->ncols, sizeof *ls->cox);
  if (!lr->law || !lr->column_law || !ls->cox)
    return stp__oom(err, "resolving laws");
  for (size_t c = 0; c < ls->ncols; c++) { /* every spec first: reported even when refused */
    const stp_law *law = column_law(m, dflt, c);
    if (!(lr->column_law[c] = stp__strdup(law ? law->spec : "exp")))
      return stp__oom(err, "resolving laws");
  }
  ls->all_exp = true;
  for (size_t c = 0; c < ls->ncols; c++) {
    const stp_law *law = column_law(m, dflt, c);
    if (!law)
      law = &ls->exp_law;
    char what[STP_MAX_NAME + 64];
    snprintf(what, sizeof what, c % 2 ? "the transfers after stage \"%s\"" : "stage \"%s\"",
             m->stages[c / 2].name);
    STP_CHECK(stp__law_coxian(law, what, &ls->cox[c], err));
    ls->all_exp &= is_exponential(ls->cox[c]);
  }
  return STP_OK;
}

/* ---- Overlap: a transfer pattern as an event graph --------------------------------- */

/* Each sender cycles over its v transitions in increasing k, each receiver
 * over its u transitions, the closing place holding one token (the
 * places of stp__pattern_graph); every transition delivers a data set. */
stp_status stp__pattern_event_graph(const stp_component *c, const double *times, stp_graph **out,
                                    stp_error *err) {
  size_t u = c->u, v = c->v, n = u * v;
  STP_CHECK(stp_graph_new("pattern", out, err));
  stp_graph *g = *out;
  stp_status s = STP_OK;
  char name[32];
  for (size_t k = 0; s == STP_OK && k < n; k++) {
    snprintf(name, sizeof name, "k%zu", k);
    s = stp_graph_add_transition(g, name, times[k], NULL, NULL, err);
    if (s == STP_OK)
      s = stp_graph_set_output(g, k, err);
  }
  for (size_t a = 0; s == STP_OK && a < u; a++)
    for (size_t t = 0; s == STP_OK && t < v; t++) {
      size_t k = a + t * u, next = t + 1 < v ? k + u : a;
      s = stp_graph_add_place(g, k, next, t + 1 == v, err);
    }
  for (size_t b = 0; s == STP_OK && b < v; b++)
    for (size_t t = 0; s == STP_OK && t < u; t++) {
      size_t k = b + t * v, next = t + 1 < u ? k + v : b;
      s = stp_graph_add_place(g, k, next, t + 1 == u, err);
    }
  if (s != STP_OK) {
    stp_graph_free(g);
    *out = NULL;
  }
  return s;
}

typedef struct law_acc {
  bool used_closed, used_ctmc;
  uint64_t states;
  double residual;
  const char *solver, *solver_reason;
  size_t sweeps;
} law_acc;

static void note_chain(law_acc *acc, uint64_t states, const char *solver, const char *reason,
                       size_t sweeps, double residual) {
  acc->used_ctmc = true;
  if (states > acc->states || !acc->solver) {
    acc->states = states;
    acc->solver = solver;
    acc->solver_reason = reason;
    acc->sweeps = sweeps;
  }
  if (residual > acc->residual)
    acc->residual = residual;
}

/* Throughput of a graph whose transitions all follow one law (pattern) or
 * the law of their column (ncols > 0: transition t is column t mod ncols). */
static stp_status graph_rate(const stp_graph *g, const law_setup *ls, size_t column, size_t ncols,
                             const stp_options *o, double *rate, law_acc *acc, stp_error *err) {
  size_t nt = stp_graph_transition_count(g);
  const stp_coxian **ph = stp__malloc_array(nt ? nt : 1, sizeof *ph);
  if (!ph)
    return stp__oom(err, "phase-type laws");
  for (size_t t = 0; t < nt; t++)
    ph[t] = ls->cox[ncols ? t % ncols : column];
  stp_reach_stats st = {0};
  stp_status s = stp__reach_throughput_ph(g, o, ph, rate, &st, err);
  if (s == STP_OK)
    note_chain(acc, st.states, st.solver, st.solver_reason, st.sweeps, st.residual);
  free(ph);
  return s;
}

/* A u x v pattern under a law of P phases, refused before it is built (u
 * and v coprime: one component): its u v transitions of P phases each,
 * u + v tokens, the min(u, v) transitions k < min(u, v) enabled at the
 * start (see stp__pattern_event_graph). */
static stp_status pattern_precheck(size_t u, size_t v, const stp_coxian *cox,
                                   const stp_options *o, stp_error *err) {
  uint64_t p = stp__reach_phases(cox), uv = (uint64_t)u * v, start = 1;
  for (size_t k = 0; k < (u < v ? u : v) && start != UINT64_MAX; k++)
    if (!stp__mul_u64(start, p, &start))
      start = UINT64_MAX;
  return stp__reach_ph_precheck(uv > UINT64_MAX / p ? UINT64_MAX : uv * p, (uint64_t)u + v,
                                start, o, err);
}

static stp_status transfer_rate(const stp_mapping *m, const stp_component *c, const law_setup *ls,
                                const stp_component_result *cr, const stp_options *o,
                                double *rho, law_acc *acc, stp_error *err) {
  size_t column = 2 * c->stage + 1;
  if (is_exponential(ls->cox[column]) && isfinite(cr->exp_throughput)) {
    *rho = cr->exp_throughput; /* the same chain, already solved */
    (strcmp(cr->exp_method, "ctmc") == 0 ? note_chain(acc, cr->states, NULL, NULL, 0, cr->residual)
                                         : (void)(acc->used_closed = true));
    return STP_OK;
  }
  stp_status s = pattern_precheck(c->u, c->v, ls->cox[column], o, err);
  double *times = NULL;
  stp_graph *g = NULL;
  if (s == STP_OK)
    s = stp__pattern_times(m, c, &times, err);
  if (s == STP_OK)
    s = stp__pattern_event_graph(c, times, &g, err);
  double rate = 0;
  if (s == STP_OK)
    s = graph_rate(g, ls, column, 0, o, &rate, acc, err);
  if (s == STP_OK)
    *rho = (double)c->g * rate;
  else
    stp_error_prefix(err, "transfer component %zu after stage \"%s\"", c->index,
                     m->stages[c->stage].name);
  stp_graph_free(g);
  free(times);
  return s;
}

static stp_status overlap_law(const stp_mapping *m, const stp_component_set *cs,
                              const law_setup *ls, const stp_options *o, stp_result *r,
                              law_acc *acc, double *best, stp_error *err) {
  *best = INFINITY;
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    stp_component_result *cr = &r->components[k];
    if (c->kind == STP_COMPONENT_COMPUTE) { /* a renewal process, whatever the law */
      cr->law_throughput = (double)c->g / stp__comp_time(m, c->snd[0]);
      acc->used_closed = true;
    } else {
      STP_CHECK(transfer_rate(m, c, ls, cr, o, &cr->law_throughput, acc, err));
    }
    if (cr->law_throughput < *best)
      *best = cr->law_throughput;
  }
  return STP_OK;
}

/* ---- Strict: the full event graph ------------------------------------------------------- */

/* The Strict graph of m, each transition with its column's law. */
static stp_status strict_graph_rate(const stp_mapping *m, const law_setup *ls,
                                    const stp_options *o, law_acc *acc, double *rho,
                                    stp_error *err) {
  STP_CHECK(stp__teg_check_size(m, STP_MODEL_STRICT, o->max_transitions, err));
  STP_CHECK(stp__teg_check_memory(m, STP_MODEL_STRICT, stp_options_memory_budget(o), err));
  uint64_t least = stp__strict_min_markings(m); /* each with at least one state */
  if (least > o->max_states)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, least, o->max_states, 0},
                           "%s: the Strict chain has at least %llu reachable markings (a "
                           "processor's cycle has that many places), each with the phases of "
                           "its transitions, above the limit of %llu",
                           m->file, (unsigned long long)least, (unsigned long long)o->max_states);
  stp_graph *g;
  STP_CHECK(stp_mapping_graph(m, STP_MODEL_STRICT, &g, err));
  stp_status s = graph_rate(g, ls, 0, ls->ncols, o, rho, acc, err);
  stp_graph_free(g);
  return s;
}

static stp_status strict_law(const stp_mapping *m, const law_setup *ls, const stp_options *o,
                             const stp_result *r, law_acc *acc, double *rho, stp_error *err) {
  if (ls->all_exp && r->exp_available) {
    *rho = r->exp_throughput;
    note_chain(acc, r->exp_states, r->exp_solver, r->exp_solver_reason, r->exp_sweeps,
               r->exp_residual);
    return STP_OK;
  }
  return strict_graph_rate(m, ls, o, acc, rho, err);
}

/* ---- the result ------------------------------------------------------------------------ */

static const char *method_name(const law_acc *acc) {
  if (acc->used_ctmc && acc->used_closed)
    return "closed-form+ctmc";
  return acc->used_ctmc ? "ctmc" : "closed-form";
}

static stp_status unavailable(stp_law_result *lr, const char *reason, stp_error *err) {
  lr->available = 0;
  lr->throughput = lr->period = NAN;
  free(lr->reason);
  lr->reason = stp__strdup(reason);
  return lr->reason ? STP_OK : stp__oom(err, "recording a reason");
}

static stp_status record(const stp_mapping *m, stp_result *r, double rho, const law_acc *acc,
                         stp_error *err) {
  stp_law_result *lr = &r->exact_law;
  if (rho > r->det_throughput * (1 + STP_LAW_BOUND_RTOL))
    return stp__fail(err, STP_ENUMERIC,
                     "%s: the throughput under law \"%s\" %.17g exceeds the deterministic one "
                     "%.17g; this contradicts the theory and is a bug",
                     m->file, lr->law, rho, r->det_throughput);
  lr->available = 1;
  lr->throughput = rho;
  lr->period = 1 / rho;
  lr->states = acc->states;
  lr->residual = acc->residual;
  lr->solver = acc->solver;
  lr->solver_reason = acc->solver_reason;
  lr->sweeps = acc->sweeps;
  lr->method = stp__strdup(method_name(acc));
  return lr->method ? STP_OK : stp__oom(err, "recording the method");
}

/* The file has "laws", all phase-type: they ask for the exact value (laws
 * meant for simulation only give no "not phase-type" reason). */
static bool file_laws_phase_type(const stp_mapping *m) {
  const stp_law_table *t = m->laws;
  if (!t || (t->dflt && !stp_law_phases(t->dflt)))
    return false;
  for (size_t i = 0; i < t->n; i++)
    if ((t->stage[i] && !stp_law_phases(t->stage[i])) ||
        (t->transfer[i] && !stp_law_phases(t->transfer[i])))
      return false;
  return true;
}

/* Every column's law is det: the exact value is the deterministic one
 * (eval --law det says so rather than "not phase-type"). */
static bool all_det(const stp_mapping *m, const stp_law *dflt) {
  for (size_t c = 0; c < 2 * m->nstages - 1; c++) {
    const stp_law *law = column_law(m, dflt, c);
    if (!law || !stp__law_is_det(law))
      return false;
  }
  return true;
}

static stp_status record_det(stp_result *r, stp_error *err) {
  stp_law_result *lr = &r->exact_law;
  for (size_t k = 0; k < r->ncomponents; k++)
    r->components[k].law_throughput = r->components[k].det_throughput;
  lr->available = 1;
  lr->throughput = r->det_throughput;
  lr->period = r->det_period;
  lr->method = stp__strdup("deterministic");
  return lr->method ? STP_OK : stp__oom(err, "recording the method");
}

stp_status stp__law_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err) {
  stp_law_result *lr = &r->exact_law;
  lr->throughput = lr->period = NAN;
  for (size_t k = 0; k < r->ncomponents; k++)
    r->components[k].law_throughput = NAN;
  const stp_law *dflt = default_law(m, o);
  if (!o->law && !file_laws_phase_type(m))
    return STP_OK;
  lr->asked = 1;
  lr->fitted = dflt && stp_law_fit_quality(dflt, &lr->fit);
  law_setup ls = {0};
  law_acc acc = {0};
  stp_error local = {0};
  double rho = NAN;
  stp_status s = resolve_laws(m, dflt, lr, &ls, &local);
  if (s == STP_EINVAL && all_det(m, dflt)) { /* the column laws are recorded: say the value */
    free(ls.cox);
    return record_det(r, err);
  }
  if (s == STP_OK)
    s = model == STP_MODEL_OVERLAP ? overlap_law(m, cs, &ls, o, r, &acc, &rho, &local)
                                   : strict_law(m, &ls, o, r, &acc, &rho, &local);
  free(ls.cox);
  if (s == STP_EINVAL || s == STP_ELIMIT) { /* not phase-type, or beyond the limits */
    lr->limit = local.limit;
    return unavailable(lr, local.message, err);
  }
  if (s != STP_OK) {
    if (err)
      *err = local;
    return s;
  }
  return record(m, r, rho, &acc, err);
}

/* ---- the columns' laws, for the sensitivities ---------------------------------------- */
static const stp_law *default_law(const stp_mapping *m, const stp_options *o) {
  return o->law ? o->law : m->laws ? m->laws->dflt : NULL;
}

stp_status stp__law_columns_resolve(const stp_mapping *m, const stp_options *o,
                                    stp_law_columns *lc, stp_error *err) {
  memset(lc, 0, sizeof *lc);
  if (!o->law && !file_laws_phase_type(m))
    return STP_OK;
  law_setup ls = {0};
  stp_law_result lr = {0};
  stp_status s = resolve_laws(m, default_law(m, o), &lr, &ls, err);
  stp__law_result_clear(&lr);
  if (s != STP_OK) {
    free(ls.cox);
    return s;
  }
  /* the exp columns point at ls's own law: repoint them at lc's */
  lc->one = 1;
  lc->exp_law = (stp_law){.kind = STP_LAW_EXP, .spec = "exp", .ph = {1, &lc->one, &lc->zero}};
  for (size_t c = 0; c < ls.ncols; c++)
    if (ls.cox[c] == &ls.exp_law.ph)
      ls.cox[c] = &lc->exp_law.ph;
  lc->ncols = ls.ncols;
  lc->cox = ls.cox;
  return STP_OK;
}

void stp__law_columns_free(stp_law_columns *lc) {
  free(lc->cox);
  memset(lc, 0, sizeof *lc);
}

/* ---- single values, for the optimiser's law objective ------------------------------- */
stp_status stp__law_pattern_rate(size_t u, size_t v, const double *times, const stp_coxian *cox,
                                 const stp_options *o, double *rate, stp_error *err) {
  STP_CHECK(pattern_precheck(u, v, cox, o, err));
  stp_component c = {.kind = STP_COMPONENT_TRANSFER, .u = u, .v = v, .g = 1};
  stp_graph *g;
  STP_CHECK(stp__pattern_event_graph(&c, times, &g, err));
  law_setup ls = {.ncols = 1, .cox = &cox};
  law_acc acc = {0};
  stp_status s = graph_rate(g, &ls, 0, 0, o, rate, &acc, err);
  stp_graph_free(g);
  return s;
}

stp_status stp__law_strict_rate(const stp_mapping *m, const stp_law_columns *lc,
                                const stp_options *o, double *rate, stp_error *err) {
  law_setup ls = {.ncols = lc->ncols, .cox = lc->cox};
  law_acc acc = {0};
  return strict_graph_rate(m, &ls, o, &acc, rate, err);
}
