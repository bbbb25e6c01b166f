/* optimize.c: stp_optimize (include/streamtp_optimize.h): options, the
 * choice of method, the starting mapping, and the result: the best mapping
 * built through stp_mapping_build and evaluated by stp_evaluate, so that
 * its values are exactly those `eval` gives for it. */
#include "base/core.h"
#include "models/pipeline/optimize_bound.h"
#include "models/pipeline/optimize_eval.h"
#include "models/pipeline/optimize_exact.h"
#include "models/pipeline/optimize_search.h"
#include "models/pipeline/problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* auto: exact when there are at most this many mappings to choose from
 * (bench/optimize/README.md: branch and bound proves such problems in
 * seconds). */
#define AUTO_EXACT_MAX 1e9
/* The heuristic's budget when no limit is given (seconds). */
#define HEURISTIC_DEFAULT_SECONDS 10.0
/* The random method's mappings when no limit is given. */
#define RANDOM_DEFAULT_COUNT 1000
/* The exact method starts from the heuristic run for this many
 * evaluations per processor (a deterministic budget). */
#define EXACT_WARM_START 20

void stp_optimize_options_init(stp_optimize_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->model = STP_MODEL_OVERLAP;
  o->objective = STP_OBJECTIVE_DET;
  o->method = STP_OPTIMIZE_AUTO;
  o->seed = 1;
  stp_options_init(&o->eval);
}

const char *stp_objective_name(stp_objective o) { return o == STP_OBJECTIVE_EXP ? "exp" : "det"; }

stp_status stp_objective_parse(const char *s, stp_objective *out) {
  if (s && strcmp(s, "det") == 0)
    *out = STP_OBJECTIVE_DET;
  else if (s && strcmp(s, "exp") == 0)
    *out = STP_OBJECTIVE_EXP;
  else
    return STP_EINVAL;
  return STP_OK;
}

static const char *const method_names[] = {"auto", "exact", "heuristic", "random"};

const char *stp_optimize_method_name(stp_optimize_method m) {
  return (unsigned)m < 4 ? method_names[m] : "unknown";
}

stp_status stp_optimize_method_parse(const char *s, stp_optimize_method *out) {
  for (unsigned k = 0; s && k < 4; k++)
    if (strcmp(s, method_names[k]) == 0) {
      *out = (stp_optimize_method)k;
      return STP_OK;
    }
  return STP_EINVAL;
}

void stp_optimize_result_free(stp_optimize_result *r) {
  if (!r)
    return;
  stp_mapping_free(r->mapping);
  stp_result_free(r->eval);
  free(r->note);
  free(r);
}

static stp_status check_options(const stp_optimize_options *o, stp_error *err) {
  if (o->model != STP_MODEL_OVERLAP && o->model != STP_MODEL_STRICT)
    return stp__fail(err, STP_EINVAL, "stp_optimize: unknown model %d", (int)o->model);
  if (o->objective != STP_OBJECTIVE_DET && o->objective != STP_OBJECTIVE_EXP)
    return stp__fail(err, STP_EINVAL, "stp_optimize: unknown objective %d", (int)o->objective);
  if ((unsigned)o->method > STP_OPTIMIZE_RANDOM)
    return stp__fail(err, STP_EINVAL, "stp_optimize: unknown method %d", (int)o->method);
  if (isnan(o->time_limit))
    return stp__fail(err, STP_EINVAL, "stp_optimize: the time limit is NaN");
  if (o->nfix && !o->fix)
    return stp__fail(err, STP_EINVAL, "stp_optimize: nfix > 0 but fix is NULL");
  if (o->eval.exp_method == STP_EXP_NONE && o->objective == STP_OBJECTIVE_EXP)
    return stp__fail(err, STP_EINVAL,
                     "the exp objective needs exponential values: exp_method cannot be none");
  return STP_OK;
}

/* The number of mappings (ordered teams) of the free stages, counting the
 * processors allowed somewhere: sum over team sizes of M! / (M - used)!
 * (an estimate: a processor allowed at one stage only counts everywhere). */
static double mapping_count(const stp_opt *x, size_t nfree) {
  size_t n = 0;
  for (size_t i = 0; i < x->N; i++)
    n += !stp__opt_fixed_size(x, i);
  double *ways = stp__calloc(nfree + 1, sizeof *ways), *next = stp__calloc(nfree + 1, sizeof *next);
  if (!ways || !next) {
    free(ways);
    free(next);
    return INFINITY;
  }
  ways[0] = 1;
  for (size_t i = 0; i < n; i++) {
    memset(next, 0, (nfree + 1) * sizeof *next);
    for (size_t used = 0; used <= nfree; used++) {
      double w = ways[used];
      for (size_t r = 1; w > 0 && r <= x->kmax && used + r <= nfree; r++) {
        w *= (double)(nfree - used - r + 1); /* ordered choices of r more */
        next[used + r] += w;
      }
    }
    memcpy(ways, next, (nfree + 1) * sizeof *ways);
  }
  double total = 0;
  for (size_t used = 0; used <= nfree; used++)
    total += ways[used];
  free(ways);
  free(next);
  return total;
}

/* The problem's mapping as a candidate, when it keeps the constraints. */
static bool start_candidate(const stp_opt *x, stp_opt_cand *c) {
  const stp_mapping *m = x->base;
  stp__opt_cand_clear(x, c);
  for (size_t i = 0; i < x->N; i++) {
    if (stp__team_size(m, i) > x->kmax)
      return false;
    for (size_t k = 0; k < stp__team_size(m, i); k++)
      stp__opt_cand_insert(x, c, i, k, stp__team_member(m, i, k));
  }
  return stp__opt_cand_valid(x, c);
}

static double objective_of(const stp_result *r, stp_objective obj) {
  if (obj == STP_OBJECTIVE_DET)
    return r->det_throughput;
  return r->exp_available ? r->exp_throughput : NAN;
}

/* The start's value (stp_evaluate, as eval gives it), and the start as the
 * first best when it keeps the constraints. */
static stp_status use_start(stp_opt *x, stp_optimize_result *res, stp_error *err) {
  res->start = NAN;
  if (!x->pb->has_start)
    return STP_OK;
  stp_result *r;
  stp_error local = {0};
  stp_status s = stp_evaluate(x->base, x->model, &x->eval, &r, &local);
  if (s == STP_ELIMIT) {
    res->note = stp__asprintf("the problem's mapping is beyond the limits: %s", local.message);
    return res->note ? STP_OK : stp__oom(err, "recording a note");
  }
  if (s != STP_OK) {
    if (err)
      *err = local;
    return s;
  }
  res->start = objective_of(r, x->objective);
  stp_result_free(r);
  stp_opt_cand c;
  STP_CHECK(stp__opt_cand_alloc(x, &c, err));
  bool kept = start_candidate(x, &c);
  if (kept && !isnan(res->start))
    stp__opt_offer(x, &c, res->start);
  stp__opt_cand_free(&c);
  if (!kept &&
      !(res->note = stp__strdup("the problem's mapping breaks the constraints: not a starting "
                                "point")))
    return stp__oom(err, "recording a note");
  return STP_OK;
}

static stp_status run_method(stp_opt *x, const stp_opt_bound *b, double root,
                             stp_optimize_method method, stp_optimize_result *res,
                             stp_error *err) {
  if (method == STP_OPTIMIZE_RANDOM) {
    res->method = "random";
    return stp__opt_random(x, err);
  }
  if (method == STP_OPTIMIZE_HEURISTIC) {
    res->method = "heuristic";
    return stp__opt_heuristic(x, b, 0, &res->constructive, err);
  }
  res->method = "exact";
  double warm;
  STP_CHECK(stp__opt_heuristic(x, b, EXACT_WARM_START * (uint64_t)x->M + 200, &warm, err));
  if (x->stop != STP_OPT_RUNNING)
    return STP_OK;
  x->capped = 0; /* what the warm start left out, the search below covers */
  bool proved;
  double upper;
  STP_CHECK(stp__opt_exact(x, b, root, &proved, &upper, err));
  res->optimal = proved;
  x->upper_bound = upper;
  return STP_OK;
}

/* Why no mapping came out. */
static stp_status nothing_found(const stp_opt *x, stp_error *err) {
  if (x->stop == STP_OPT_CANCEL)
    return stp__fail(err, STP_EINTERRUPTED, "%s: interrupted before any mapping was evaluated",
                     x->base->file);
  if (x->skipped)
    return stp__fail(err, STP_ELIMIT,
                     "%s: no mapping's %s throughput is within the limits (%llu beyond them); "
                     "raise --max-states, --max-transitions or --max-memory",
                     x->base->file,
                     x->objective == STP_OBJECTIVE_EXP ? "exponential" : "deterministic",
                     (unsigned long long)x->skipped);
  if (x->stop != STP_OPT_RUNNING)
    return stp__fail(err, STP_ELIMIT, "%s: no mapping found within the %s",
                     x->base->file, x->stop == STP_OPT_TIME ? "time limit" : "evaluations");
  return stp__fail(err, STP_EINVAL,
                   "%s: no mapping keeps the constraints (every stage needs a processor it may "
                   "use, and consecutive teams the links that carry their data)",
                   x->base->file);
}

/* The best candidate as a mapping, evaluated as eval does. */
static stp_status finish(stp_opt *x, stp_optimize_result *res, stp_error *err) {
  size_t *teams = stp__malloc_array(x->M, sizeof *teams), at = 0;
  if (!teams)
    return stp__oom(err, "building the answer");
  for (size_t i = 0; i < x->N; i++)
    for (size_t k = 0; k < x->best.size[i]; k++)
      teams[at++] = stp__opt_team(x, &x->best, i)[k];
  stp_status s = stp__problem_mapping(x->pb, x->model, x->best.size, teams, &res->mapping, err);
  free(teams);
  STP_CHECK(s);
  /* as eval evaluates it; a Ctrl-C there (a Strict chain, long when the
   * search never needed it) must not lose the answer: again, uncancelled,
   * without exp when the objective is det (under exp the search solved
   * that chain already, within the limits) */
  stp_status st = stp_evaluate(res->mapping, x->model, &x->eval, &res->eval, err);
  if (st == STP_EINTERRUPTED) {
    stp_options once = x->eval;
    once.control.cancel = (stp_cancel){0};
    if (x->objective == STP_OBJECTIVE_DET)
      once.exp_method = STP_EXP_NONE;
    st = stp_evaluate(res->mapping, x->model, &once, &res->eval, err);
  }
  STP_CHECK(st);
  res->value = objective_of(res->eval, x->objective);
  if (!stp__close(res->value, x->best_value, 1e-9, 0))
    return stp__fail(err, STP_EINTERNAL,
                     "%s: the search valued its best mapping %.17g, the evaluation %.17g; this "
                     "is a bug", x->base->file, x->best_value, res->value);
  if (res->optimal) {
    res->upper_bound = res->value;
    res->gap = 0;
  } else {
    res->upper_bound = fmax(x->upper_bound, res->value);
    res->gap = (res->upper_bound - res->value) / res->upper_bound;
  }
  return STP_OK;
}

static stp_status optimize(stp_opt *x, const stp_optimize_options *o, stp_optimize_result *res,
                           stp_error *err) {
  stp_opt_bound b;
  STP_CHECK(stp__opt_bound_init(x, &b, err));
  double root = stp__opt_bound_root(x, &b);
  x->upper_bound = root;
  stp_status s = use_start(x, res, err);
  stp_optimize_method method = o->method;
  if (method == STP_OPTIMIZE_AUTO)
    method = mapping_count(x, b.nfree) <= AUTO_EXACT_MAX ? STP_OPTIMIZE_EXACT
                                                          : STP_OPTIMIZE_HEURISTIC;
  if (o->time_limit <= 0 && !o->max_evaluations) {
    if (method == STP_OPTIMIZE_HEURISTIC)
      x->deadline = x->t0 + HEURISTIC_DEFAULT_SECONDS;
    if (method == STP_OPTIMIZE_RANDOM)
      x->max_evals = RANDOM_DEFAULT_COUNT;
  }
  if (s == STP_OK)
    s = run_method(x, &b, root, method, res, err);
  stp__opt_bound_free(&b);
  if (s == STP_EINTERRUPTED) { /* inside an evaluation: the best so far stands */
    x->stop = STP_OPT_CANCEL;
    s = STP_OK;
  }
  STP_CHECK(s);
  if (!res->optimal && x->best_value > -INFINITY &&
      x->best_value >= x->upper_bound - fabs(x->upper_bound) * STP_OPT_RTOL)
    res->optimal = 1; /* the best reached the bound: proved too */
  res->evaluated = x->evaluated;
  res->nodes = x->nodes;
  res->skipped = x->skipped;
  res->interrupted = x->stop == STP_OPT_CANCEL;
  res->timed_out = x->stop == STP_OPT_TIME || x->stop == STP_OPT_EVALS;
  if (x->best_value == -INFINITY)
    return nothing_found(x, err);
  if (!res->optimal && x->skipped && !res->note)
    res->note = stp__asprintf("%llu candidates (or partial mappings) were beyond the limits and "
                              "not compared", (unsigned long long)x->skipped);
  else if (!res->optimal && x->capped && !res->note)
    res->note = stp__asprintf("the search left out %llu candidates whose Markov chain has more "
                              "than %llu states (a share of --max-states)",
                              (unsigned long long)x->capped, (unsigned long long)x->capped_at);
  return finish(x, res, err);
}

stp_status stp_optimize(const stp_problem *p, const stp_optimize_options *o,
                        stp_optimize_result **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_optimize: out is NULL");
  *out = NULL;
  if (!p)
    return stp__fail(err, STP_EINVAL, "stp_optimize: problem is NULL");
  stp_optimize_options defaults;
  if (!o) {
    stp_optimize_options_init(&defaults);
    o = &defaults;
  }
  STP_CHECK(check_options(o, err));
  double t0 = stp__now();
  stp_optimize_result *res = calloc(1, sizeof *res);
  if (!res)
    return stp__oom(err, "allocating a result");
  *res = (stp_optimize_result){.model = o->model, .objective = o->objective, .start = NAN,
                               .constructive = NAN};
  stp_opt x;
  stp_status s = stp__opt_init(&x, p, o, err);
  if (s == STP_OK) {
    s = optimize(&x, o, res, err);
    stp__opt_free(&x);
  }
  if (s != STP_OK) {
    stp_optimize_result_free(res);
    return s;
  }
  res->seconds = stp__now() - t0;
  *out = res;
  return STP_OK;
}
