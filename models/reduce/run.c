/* run.c: `streamtp reduce` as one library call (stp_reduce_run): for each
 * n of a range, the tree, its schedule, the exact expected makespan with
 * exponential times and under a phase-type law, Monte Carlo; a range that
 * needs makespans only is one incremental sweep.  Every stochastic value
 * comes from the schedule's DAG (stp_reduce_graph). */
#include "streamtp_reduce.h"

#include "base/core.h"
#include "models/reduce/greedy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Why Algorithm 2 and an exponential value not asked for have none. */
static const char *const REASON_ALG2 = "transfer limit: Algorithm 2 bounds the number of "
                                       "concurrent transfers, which no fixed-order DAG expresses";
static const char *const REASON_NONE = "not requested";

void stp_reduce_run_options_init(stp_reduce_run_options *o) {
  memset(o, 0, sizeof *o);
  o->n_first = o->n_last = 1;
  o->tree = STP_REDUCE_OPTIMAL;
  o->algorithm = STP_REDUCE_ALG1;
  o->exponential = 1;
  o->seed = 1;
}

size_t stp_reduce_result_count(const stp_reduce_result *r) { return r ? r->count : 0; }

static void value_free(stp_reduce_value *v) {
  free(v->children);
  free(v->starts);
  for (size_t k = 0; k < v->critical_len; k++)
    free(v->critical[k]);
  free(v->critical);
  free(v->text);
}

void stp_reduce_result_free(stp_reduce_result *r) {
  if (!r)
    return;
  for (size_t k = 0; r->values && k < r->count; k++)
    value_free(&r->values[k]);
  free(r->values);
  free(r->makespans);
  free(r->sweep_seconds);
  free(r->law);
  free(r);
}

/* The specification of one n. */
static stp_reduce_spec spec_of(const stp_reduce_run_options *o, uint64_t n) {
  stp_reduce_spec s;
  stp_reduce_spec_init(&s, n, o->d, o->c);
  s.tree = o->tree;
  s.algorithm = o->algorithm;
  s.K = o->K;
  s.control = o->control;
  return s;
}

/* The law of the exact value: the law alone, or with a simulation when it
 * is phase-type (a law meant for the simulation only gives no "not
 * phase-type" reason). */
static const stp_law *exact_law(const stp_reduce_run_options *o) {
  return o->law && (!o->simulate || stp_law_phases(o->law) > 0) ? o->law : NULL;
}

/* The caller's look at the k-th n, done. */
static stp_status done(const stp_reduce_run_options *o, const stp_reduce_result *r, size_t k,
                       stp_error *err) {
  if (o->each && o->each(r, k, o->each_data) != 0)
    return stp__fail(err, STP_EINTERRUPTED, "stopped by the caller");
  return STP_OK;
}

/* Only makespans: a range without arrays, values of a chain or runs. */
static bool sweeps(const stp_reduce_run_options *o) {
  return o->n_first < o->n_last && o->brief && !o->exponential && !o->simulate && !o->law;
}

static stp_status check(const stp_reduce_run_options *o, stp_error *err) {
  if (o->n_first < 1 || o->n_first > o->n_last)
    return stp__fail(err, STP_EINVAL, "n: the range %llu..%llu is empty",
                     (unsigned long long)o->n_first, (unsigned long long)o->n_last);
  stp_reduce_spec last = spec_of(o, o->n_last);
  STP_CHECK(stp__reduce_check(&last, err));
  STP_CHECK(stp__reduce_check_memory(&last, err)); /* the largest tree */
  if (o->simulate && o->algorithm == STP_REDUCE_ALG2)
    return stp__fail(err, STP_EINVAL, "simulate: Algorithm 2 limits concurrent transfers, "
                     "which no fixed-order DAG expresses");
  double count = (double)(o->n_last - o->n_first + 1);
  if (sweeps(o))
    return stp__within_budget(&o->control, "the makespans of the sweep", 16.0 * count, err);
  /* the values kept, and the JSON record of the largest n (2 (n - 1)
   * values of about 64 bytes each in memory) */
  double arrays = o->brief ? 0 : 8.0 * count * ((double)o->n_first + (double)o->n_last);
  return stp__within_budget(&o->control, o->brief ? "the values of the range"
                                                  : "the children and transfer starts of the "
                                                    "range and their JSON record",
                       (double)sizeof(stp_reduce_value) * count + arrays +
                           (o->brief ? 0 : 128.0 * (double)o->n_last),
                       err);
}

/* The tree's arrays: where each machine sends, and when. */
static stp_status arrays(const stp_reduce *t, stp_reduce_value *v, stp_error *err) {
  size_t m = (size_t)(v->n - 1);
  v->children = stp__malloc_array(m ? m : 1, sizeof *v->children);
  v->starts = stp__malloc_array(m ? m : 1, sizeof *v->starts);
  if (!v->children || !v->starts)
    return stp__oom(err, "the children and transfer starts");
  for (uint64_t i = 2; i <= v->n; i++) {
    v->children[i - 2] = stp_reduce_child(t, i);
    v->starts[i - 2] = stp_reduce_transfer_start(t, i);
  }
  return STP_OK;
}

/* The reasons, copied into v->text (each may be NULL or a constant). */
static stp_status own_reasons(stp_reduce_value *v, const char *exp, const char *law,
                              stp_error *err) {
  size_t a = exp ? strlen(exp) + 1 : 0, b = law ? strlen(law) + 1 : 0;
  if (!(v->text = malloc(a + b + 1)))
    return stp__oom(err, "a reason");
  if (exp)
    v->exp_reason = memcpy(v->text, exp, a);
  if (law)
    v->law_reason = memcpy(v->text + a, law, b);
  return STP_OK;
}

static stp_status critical_path(const stp_graph *g, const stp_graph_result *r,
                                stp_reduce_value *v, stp_error *err) {
  if (!r->critical_len)
    return STP_OK;
  if (!(v->critical = calloc(r->critical_len, sizeof *v->critical)))
    return stp__oom(err, "the critical path");
  for (; v->critical_len < r->critical_len; v->critical_len++)
    if (!(v->critical[v->critical_len] =
              stp__strdup(stp_graph_transition_name(g, r->critical[v->critical_len]))))
      return stp__oom(err, "the critical path");
  return STP_OK;
}

/* The analyses of the tree's DAG: exponential and law values, critical
 * path, Monte Carlo. */
static stp_status analyse(const stp_reduce_run_options *o, const stp_reduce *t, bool exp,
                          const char *refused, stp_reduce_value *v, stp_error *err) {
  stp_graph *g;
  STP_CHECK(stp_reduce_graph(t, &g, err));
  stp_status s = STP_OK;
  const stp_law *law = exact_law(o);
  stp_graph_result r = {0};
  bool analysed = false;
  if (exp || law) {
    stp_graph_options go;
    stp_graph_options_init(&go);
    go.exponential = exp;
    go.max_states = o->max_states ? o->max_states : STP_GRAPH_DEFAULT_MAX_STATES;
    go.control = o->control;
    go.law = law;
    s = stp_graph_analyze(g, &go, &r, err);
    analysed = s == STP_OK;
  }
  if (analysed) {
    if (exp && r.exp_computed) {
      v->exp_makespan = r.exp_value;
      v->exp_states = r.exp_states;
    }
    if (law && r.law_computed) {
      v->law_makespan = r.law_value;
      v->law_states = r.law_states;
    }
    s = own_reasons(v, exp && !r.exp_computed ? r.exp_reason : refused,
                    law && !r.law_computed ? r.law_reason : NULL, err);
    if (s == STP_OK && !o->brief)
      s = critical_path(g, &r, v, err);
  } else if (s == STP_OK && refused) {
    s = own_reasons(v, refused, NULL, err);
  }
  if (s == STP_OK && o->simulate) {
    stp_graph_sim_options so;
    stp_graph_sim_options_init(&so);
    so.runs = o->simulate;
    so.seed = o->seed;
    so.law = o->law;
    so.control = o->control;
    s = stp_graph_simulate(g, &so, &v->sim, err);
    v->simulated = s == STP_OK;
  }
  if (analysed)
    stp_graph_result_free(&r);
  stp_graph_free(g);
  return s;
}

/* The stochastic values of one tree. */
static stp_status values(const stp_reduce_run_options *o, const stp_reduce *t,
                         stp_reduce_value *v, stp_error *err) {
  v->exp_makespan = v->law_makespan = NAN;
  v->law_asked = exact_law(o) != NULL;
  if (o->algorithm == STP_REDUCE_ALG2) {
    v->exp_reason = REASON_ALG2;
    v->law_reason = v->law_asked ? REASON_ALG2 : NULL;
    return STP_OK;
  }
  if (!o->exponential)
    v->exp_reason = REASON_NONE;
  if (v->n == 1) { /* nothing to reduce: every value is 0, in every run */
    v->exp_makespan = o->exponential ? 0 : NAN;
    v->exp_states = v->law_states = 1;
    v->law_makespan = 0;
    v->sim = (stp_graph_sim_result){.runs = o->simulate};
    v->simulated = o->simulate > 0;
    return STP_OK;
  }
  if (!o->exponential && !o->simulate && !v->law_asked)
    return STP_OK;
  /* the exponential value refused before any ideal is counted; a
   * phase-type law is still computed (its own refusals come at once) */
  bool exp = o->exponential;
  uint64_t at_least = exp ? stp_reduce_ideals_lower(t) : 0;
  uint64_t cap = o->max_states ? o->max_states : STP_GRAPH_DEFAULT_MAX_STATES;
  char refused[256];
  if (at_least > cap) {
    snprintf(refused, sizeof refused,
             "the exponential makespan needs more than %llu states (order ideals); its "
             "transfers that start together give at least %llu",
             (unsigned long long)cap, (unsigned long long)at_least);
    if (!o->simulate && !v->law_asked)
      return own_reasons(v, refused, NULL, err);
    exp = false;
  }
  return analyse(o, t, exp, at_least > cap ? refused : NULL, v, err);
}

static stp_status one_n(const stp_reduce_run_options *o, uint64_t n, stp_reduce_value *v,
                        stp_error *err) {
  double t0 = stp__now();
  stp_reduce_spec spec = spec_of(o, n);
  stp_reduce *t;
  STP_CHECK(stp_reduce_build(&spec, &t, err));
  v->n = n;
  v->makespan = stp_reduce_makespan(t);
  stp_status s = o->brief ? STP_OK : arrays(t, v, err);
  if (s == STP_OK)
    s = values(o, t, v, err);
  stp_reduce_free(t);
  v->seconds = stp__now() - t0;
  return s;
}

static stp_status sweep(const stp_reduce_run_options *o, stp_reduce_result *r, stp_error *err) {
  stp_reduce_spec spec = spec_of(o, o->n_last);
  stp_reduce_sweep *sw;
  STP_CHECK(stp_reduce_sweep_new(&spec, &sw, err));
  uint64_t n;
  double m, t0 = stp__now(); /* a record's seconds: since the previous one */
  stp_status s = STP_OK;
  while (s == STP_OK && stp_reduce_sweep_next(sw, &n, &m)) { /* one n per step */
    if (n >= o->n_first) {
      r->sweep_seconds[r->count] = stp__now() - t0;
      r->makespans[r->count++] = m;
      s = done(o, r, r->count - 1, err);
      t0 = stp__now();
    }
    if (s == STP_OK && stp__cancelled(&o->control.cancel))
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
  }
  stp_reduce_sweep_free(sw);
  return s;
}

stp_status stp_reduce_run(const stp_reduce_run_options *o, stp_reduce_result **out,
                          stp_error *err) {
  *out = NULL;
  STP_CHECK(check(o, err));
  size_t count = (size_t)(o->n_last - o->n_first + 1);
  stp_reduce_result *r = calloc(1, sizeof *r);
  if (r && sweeps(o)) {
    r->makespans = stp__malloc_array(count, sizeof *r->makespans);
    r->sweep_seconds = stp__malloc_array(count, sizeof *r->sweep_seconds);
  } else if (r)
    r->values = stp__calloc(count, sizeof *r->values);
  if (r && o->law)
    r->law = stp__strdup(stp_law_spec(o->law));
  if (!r || (!r->values && (!r->makespans || !r->sweep_seconds)) || (o->law && !r->law)) {
    stp_reduce_result_free(r);
    return stp__oom(err, "the trees of the range");
  }
  r->options = *o;
  r->options.law = NULL;
  *out = r;
  if (r->makespans) {
    r->sweep_reason = o->algorithm == STP_REDUCE_ALG2 ? REASON_ALG2 : REASON_NONE;
    return sweep(o, r, err);
  }
  double t0 = stp__now();
  for (uint64_t n = o->n_first; n <= o->n_last; n++) {
    stp_status s = one_n(o, n, &r->values[r->count], err);
    r->count++; /* freed with r, done or not */
    if (s == STP_OK && n < o->n_last && stp__cancelled(&o->control.cancel))
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted");
    if (s != STP_OK) {
      value_free(&r->values[--r->count]);
      return s;
    }
    STP_CHECK(done(o, r, r->count - 1, err));
    if (count > 1)
      stp__progress(&o->control, "reduction trees", r->count, count, t0);
  }
  return STP_OK;
}
