/* optimize.c: stp_optimize (include/streamtp_optimize.h): options, the
 * choice of method, the starting mapping, and the result: the best mapping
 * built through stp_mapping_build and evaluated by stp_evaluate, so that
 * its values are exactly those `eval` gives for it. */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"

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

const char *stp_objective_name(stp_objective o) {
  return o == STP_OBJECTIVE_LAW ? "law" : o == STP_OBJECTIVE_EXP ? "exp" : "det";
}

stp_status stp_objective_parse(const char *s, stp_objective *out) {
  if (s && strcmp(s, "det") == 0)
    *out = STP_OBJECTIVE_DET;
  else if (s && strcmp(s, "exp") == 0)
    *out = STP_OBJECTIVE_EXP;
  else if (s && strcmp(s, "law") == 0)
    *out = STP_OBJECTIVE_LAW;
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
  if ((unsigned)o->objective > STP_OBJECTIVE_LAW)
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
  if (o->objective == STP_OBJECTIVE_LAW && !o->eval.law)
    return stp__fail(err, STP_EINVAL, "the law objective needs a law (eval.law)");
  if (isnan(o->max_latency) || o->max_latency < 0)
    return stp__fail(err, STP_EINVAL, "stp_optimize: the latency limit must be a number >= 0");
  return STP_OK;
}

/* A lower bound on the mappings of n free stages on nfree processors:
 * the ordered sequences of n + j distinct processors, the first 1 + j the
 * team of one stage, one each for the others, j up to kmax - 1; it stops
 * once above cap. */
static double mapping_floor(const stp_opt_space *sp, size_t n, size_t nfree, double cap) {
  size_t j = sp->kmax - 1 < nfree - n ? sp->kmax - 1 : nfree - n;
  double w = 1;
  for (size_t k = 0; k < n + j && w <= cap; k++)
    w *= (double)(nfree - k);
  return w;
}

/* The number of mappings (ordered teams) of the free stages, counting the
 * processors allowed somewhere: sum over team sizes of M! / (M - used)!
 * (an estimate: a processor allowed at one stage only counts everywhere).
 * Only whether it exceeds cap matters: past cap, INFINITY, known at once
 * from mapping_floor (the count below is n x nfree x kmax steps: 1.4e10
 * on 3,000 x 3,000, seconds no deadline stopped); cancelled, INFINITY. */
static double mapping_count(const stp_opt_space *sp, size_t nfree, double cap,
                            const stp_cancel *cancel) {
  size_t n = 0;
  for (size_t i = 0; i < sp->N; i++)
    n += !stp__opt_fixed_size(sp, i);
  if (n > nfree)
    return 0;
  if (mapping_floor(sp, n, nfree, cap) > cap)
    return INFINITY;
  double *ways = stp__calloc(nfree + 1, sizeof *ways), *next = stp__calloc(nfree + 1, sizeof *next);
  if (!ways || !next) {
    free(ways);
    free(next);
    return INFINITY;
  }
  ways[0] = 1;
  for (size_t i = 0; i < n; i++) {
    if (stp__cancelled(cancel)) {
      free(ways);
      free(next);
      return INFINITY;
    }
    memset(next, 0, (nfree + 1) * sizeof *next);
    for (size_t used = 0; used <= nfree; used++) {
      double w = ways[used];
      for (size_t r = 1; w > 0 && r <= sp->kmax && used + r <= nfree; r++) {
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
static bool start_candidate(const stp_opt_space *sp, stp_opt_cand *c) {
  const stp_mapping *m = sp->plat;
  stp__opt_cand_clear(sp, c);
  for (size_t i = 0; i < sp->N; i++) {
    if (stp__team_size(m, i) > sp->kmax)
      return false;
    for (size_t k = 0; k < stp__team_size(m, i); k++)
      stp__opt_cand_insert(sp, c, i, k, stp__team_member(m, i, k));
  }
  return stp__opt_cand_valid(sp, c);
}

static double objective_of(const stp_result *r, stp_objective obj) {
  if (obj == STP_OBJECTIVE_DET)
    return r->det_throughput;
  if (obj == STP_OBJECTIVE_LAW)
    return r->exact_law.available ? r->exact_law.throughput : NAN;
  return r->exp_available ? r->exp_throughput : NAN;
}

/* The start's evaluation stops with the run or at `until`. */
typedef struct start_clock {
  const stp_opt_run *run;
  double until;
} start_clock;

static int start_cancelled(void *data) {
  const start_clock *c = data;
  return stp__cancelled(&c->run->ev->opts.control.cancel) || stp__now() >= c->until;
}

/* The start's value (stp_evaluate, as eval gives it), and the start as the
 * first best when it keeps the constraints. */
static stp_status use_start(stp_opt_run *run, stp_optimize_result *res, stp_error *err) {
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  res->start = NAN;
  if (!sp->pb->has_start)
    return STP_OK;
  stp_result *r;
  stp_error local = {0};
  /* under the run's cancel and half the time left: the start of 3 stages x
   * 10,000 processors took 60 s, under a time limit of 10 */
  stp_options o = ev->opts;
  start_clock clock = {run, run->deadline};
  if (isfinite(run->deadline))
    clock.until = stp__now() + (run->deadline - stp__now()) / 2;
  o.control.cancel = (stp_cancel){.fn = start_cancelled, .data = &clock};
  stp_status s = stp_evaluate(sp->plat, sp->model, &o, &r, &local);
  if (s == STP_EINTERRUPTED) {
    if (stp__cancelled(&run->user_cancel))
      stp__opt_interrupted(run);
    res->note = stp__asprintf("the problem's mapping was not evaluated (%s): not a starting "
                              "point", run->stop == STP_OPT_CANCEL ? "interrupted"
                                                                   : "half the time limit");
    return res->note ? STP_OK : stp__oom(err, "recording a note");
  }
  if (s == STP_ELIMIT) {
    res->note = stp__asprintf("the problem's mapping is beyond the limits: %s", local.message);
    return res->note ? STP_OK : stp__oom(err, "recording a note");
  }
  if (s != STP_OK) {
    if (err)
      *err = local;
    return s;
  }
  res->start = objective_of(r, ev->objective);
  stp_result_free(r);
  stp_opt_cand c;
  STP_CHECK(stp__opt_cand_alloc(sp, &c, err));
  bool kept = start_candidate(sp, &c), fast = true;
  double latency = NAN;
  s = kept ? stp__opt_latency_ok(run->ev, &c, &fast, &latency, err) : STP_OK;
  if (s == STP_OK && kept && fast && !isnan(res->start))
    stp__opt_offer(run, &c, res->start);
  stp__opt_cand_free(&c);
  STP_CHECK(s);
  if (kept && !fast &&
      !(res->note = stp__asprintf("the problem's mapping has a latency of %.6g, above the "
                                  "limit of %.6g: not a starting point",
                                  latency, run->opts->max_latency)))
    return stp__oom(err, "recording a note");
  if (!kept &&
      !(res->note = stp__strdup("the problem's mapping breaks the constraints: not a starting "
                                "point")))
    return stp__oom(err, "recording a note");
  return STP_OK;
}

static stp_status run_method(stp_opt_run *run, const stp_opt_bound *b, double root,
                             stp_optimize_method method, stp_optimize_result *res,
                             stp_error *err) {
  if (method == STP_OPTIMIZE_RANDOM) {
    res->method = "random";
    return stp__opt_random(run, err);
  }
  if (method == STP_OPTIMIZE_HEURISTIC) {
    res->method = "heuristic";
    return stp__opt_heuristic(run, b, 0, &res->constructive, err);
  }
  res->method = "exact";
  double warm;
  STP_CHECK(stp__opt_heuristic(run, b, EXACT_WARM_START * (uint64_t)run->sp->M + 200, &warm,
                                err));
  if (run->stop != STP_OPT_RUNNING)
    return STP_OK;
  run->capped = 0; /* what the warm start left out, the search below covers */
  bool proved;
  double upper;
  STP_CHECK(stp__opt_exact(run, b, root, &proved, &upper, err));
  res->optimal = proved;
  run->upper_bound = upper;
  return STP_OK;
}

/* Why no mapping came out. */
static stp_status nothing_found(const stp_opt_run *run, stp_error *err) {
  const stp_opt_space *sp = run->sp;
  if (run->stop == STP_OPT_CANCEL)
    return stp__fail(err, STP_EINTERRUPTED, "%s: interrupted before any mapping was evaluated",
                     sp->plat->file);
  if (run->skipped)
    return stp__fail(err, STP_ELIMIT,
                     "%s: no mapping's %s throughput is within the limits (%llu beyond them); "
                     "raise an evaluation's limits on states, transitions or memory",
                     sp->plat->file,
                     run->ev->objective == STP_OBJECTIVE_LAW   ? "law"
                     : run->ev->objective == STP_OBJECTIVE_EXP ? "exponential"
                                                               : "deterministic",
                     (unsigned long long)run->skipped);
  const char *limit = run->stop == STP_OPT_TIME ? "time limit" : "evaluations";
  if (run->stop != STP_OPT_RUNNING && run->capped)
    return stp__fail(err, STP_ELIMIT,
                     "%s: no mapping found within the %s (%llu candidates left out whose "
                     "Markov chain has more than %llu states, a share of the limit on states)",
                     sp->plat->file, limit, (unsigned long long)run->capped,
                     (unsigned long long)run->capped_at);
  if (run->stop != STP_OPT_RUNNING)
    return stp__fail(err, STP_ELIMIT, "%s: no mapping found within the %s", sp->plat->file,
                     limit);
  if (run->ev->too_slow)
    return stp__fail(err, STP_EINVAL,
                     "%s: no mapping has a latency of at most %.6g: the %llu candidates "
                     "refused for it have %.6g at least",
                     sp->plat->file, run->opts->max_latency,
                     (unsigned long long)run->ev->too_slow, run->ev->least_latency);
  return stp__fail(err, STP_EINVAL,
                   "%s: no mapping keeps the constraints (every stage needs a processor it may "
                   "use, and consecutive teams the links that carry their data)",
                   sp->plat->file);
}

/* The answer's deterministic latency, as eval --latency gives it. */
static stp_status answer_latency(stp_optimize_result *res, stp_error *err) {
  stp_latency l;
  stp_status s = stp__mapping_latency(res->mapping, 0, &l, err);
  res->latency = res->latency_mean = NAN;
  if (s == STP_ELIMIT) /* tables beyond memory: no latency to give */
    return STP_OK;
  STP_CHECK(s);
  res->latency = l.max;
  res->latency_mean = l.mean;
  return STP_OK;
}

/* The best candidate as a mapping, evaluated as eval does. */
static stp_status finish(stp_opt_run *run, stp_optimize_result *res, stp_error *err) {
  const stp_opt_space *sp = run->sp;
  const stp_opt_eval *ev = run->ev;
  size_t *teams = stp__malloc_array(sp->M, sizeof *teams), at = 0;
  if (!teams)
    return stp__oom(err, "building the answer");
  for (size_t i = 0; i < sp->N; i++)
    for (size_t k = 0; k < run->best.size[i]; k++)
      teams[at++] = stp__opt_team(sp, &run->best, i)[k];
  stp_status s = stp__problem_mapping(sp->pb, sp->model, run->best.size, teams, &res->mapping, err);
  free(teams);
  STP_CHECK(s);
  /* as eval evaluates it; a Ctrl-C there (a Strict chain, long when the
   * search never needed it) must not lose the answer: again, uncancelled,
   * without exp when the objective is det (under exp the search solved
   * that chain already, within the limits) */
  stp_options once = ev->opts;
  once.control.cancel = run->user_cancel;
  stp_status st = stp_evaluate(res->mapping, sp->model, &once, &res->eval, err);
  if (st == STP_EINTERRUPTED) {
    once.control.cancel = (stp_cancel){0};
    if (ev->objective == STP_OBJECTIVE_DET)
      once.exp_method = STP_EXP_NONE;
    st = stp_evaluate(res->mapping, sp->model, &once, &res->eval, err);
  }
  STP_CHECK(st);
  res->value = objective_of(res->eval, ev->objective);
  STP_CHECK(answer_latency(res, err));
  if (!stp__close(res->value, run->best_value, 1e-9, 0))
    return stp__fail(err, STP_EINTERNAL,
                     "%s: the search valued its best mapping %.17g, the evaluation %.17g; this "
                     "is a bug", sp->plat->file, run->best_value, res->value);
  if (res->optimal) {
    res->upper_bound = res->value;
    res->gap = 0;
  } else {
    res->upper_bound = fmax(run->upper_bound, res->value);
    res->gap = (res->upper_bound - res->value) / res->upper_bound;
  }
  return STP_OK;
}

static stp_status conclude(stp_opt_run *run, stp_optimize_result *res, stp_error *err);

static stp_status optimize(stp_opt_run *run, const stp_optimize_options *o,
                           stp_optimize_result *res, stp_error *err) {
  const stp_opt_space *sp = run->sp;
  stp_opt_bound b;
  /* the set-up heeds the run's cancel (the caller's and the deadline): on
   * 7,000 x 7,000 processors it ran 150 s under a limit of 5 */
  const stp_cancel *cancel = &run->ev->opts.control.cancel;
  stp_optimize_method method = o->method;
  if (o->time_limit <= 0 && !o->max_evaluations && method == STP_OPTIMIZE_HEURISTIC)
    run->deadline = run->t0 + HEURISTIC_DEFAULT_SECONDS;
  /* the start first: when the set-up takes the time (3,000 x 3,000 under a
   * limit of 1 s), it is the answer */
  STP_CHECK(use_start(run, res, err));
  stp_status s = stp__opt_bound_init(sp, &b, cancel, err);
  if (s == STP_EINTERRUPTED) { /* nothing to search with: the start at most */
    stp__opt_interrupted(run);
    run->upper_bound = stp__opt_bound_quick(sp);
    res->method = stp_optimize_method_name(method == STP_OPTIMIZE_AUTO ? STP_OPTIMIZE_HEURISTIC
                                                                       : method);
    return conclude(run, res, err);
  }
  STP_CHECK(s);
  /* the team and price bounds search: a quarter of the time limit at most
   * (on 20 x 100 the price bound takes about a second), a coarser bound
   * past it */
  start_clock share = {run, run->deadline};
  if (isfinite(run->deadline))
    share.until = stp__now() + (run->deadline - stp__now()) / 4;
  double root = stp__opt_bound_root(sp, &b, &(stp_cancel){.fn = start_cancelled, .data = &share});
  run->upper_bound = root;
  if (method == STP_OPTIMIZE_AUTO)
    method = mapping_count(sp, b.nfree, AUTO_EXACT_MAX, cancel) <= AUTO_EXACT_MAX
                 ? STP_OPTIMIZE_EXACT
                 : STP_OPTIMIZE_HEURISTIC;
  if (o->time_limit <= 0 && !o->max_evaluations) {
    if (method == STP_OPTIMIZE_HEURISTIC)
      run->deadline = run->t0 + HEURISTIC_DEFAULT_SECONDS;
    if (method == STP_OPTIMIZE_RANDOM)
      run->max_evals = RANDOM_DEFAULT_COUNT;
  }
  if (s == STP_OK && stp__opt_stopping(run))
    res->method = stp_optimize_method_name(method); /* stopped in the set-up */
  else if (s == STP_OK)
    s = run_method(run, &b, root, method, res, err);
  stp__opt_bound_free(&b);
  if (s == STP_EINTERRUPTED) { /* inside an evaluation: the best so far stands */
    stp__opt_interrupted(run);
    s = STP_OK;
  }
  STP_CHECK(s);
  return conclude(run, res, err);
}

/* The result of a run that ended (its method's, or the set-up's). */
static stp_status conclude(stp_opt_run *run, stp_optimize_result *res, stp_error *err) {
  if (!res->optimal && run->best_value > -INFINITY &&
      run->best_value >= run->upper_bound - fabs(run->upper_bound) * STP_OPT_RTOL)
    res->optimal = 1; /* the best reached the bound: proved too */
  res->evaluated = run->ev->evaluated;
  res->nodes = run->nodes;
  res->skipped = run->skipped;
  res->interrupted = run->stop == STP_OPT_CANCEL;
  res->timed_out = run->stop == STP_OPT_TIME || run->stop == STP_OPT_EVALS;
  if (run->best_value == -INFINITY)
    return nothing_found(run, err);
  if (!res->optimal && run->skipped && !res->note)
    res->note = stp__asprintf("%llu candidates (or partial mappings) were beyond the limits and "
                              "not compared", (unsigned long long)run->skipped);
  else if (!res->optimal && run->capped && !res->note)
    res->note = stp__asprintf("the search left out %llu candidates whose Markov chain has more "
                              "than %llu states (a share of the limit on states)",
                              (unsigned long long)run->capped, (unsigned long long)run->capped_at);
  return finish(run, res, err);
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
                               .constructive = NAN, .latency = NAN, .latency_mean = NAN,
                               .max_latency = isinf(o->max_latency) ? 0 : o->max_latency};
  stp_opt_space sp;
  stp_opt_eval ev;
  stp_opt_run run;
  stp_status s = stp__opt_space_init(&sp, p, o, &o->eval.control.cancel, err);
  if (s == STP_OK) {
    s = stp__opt_eval_init(&ev, &sp, o->objective, &o->eval, err);
    if (s == STP_OK) {
      ev.max_latency = o->max_latency;
      s = stp__opt_run_init(&run, &sp, &ev, o, t0, err);
      if (s == STP_OK)
        s = optimize(&run, o, res, err);
      stp__opt_run_free(&run);
      stp__opt_eval_free(&ev);
    }
    stp__opt_space_free(&sp);
  }
  if (s != STP_OK) {
    stp_optimize_result_free(res);
    return s;
  }
  res->seconds = stp__now() - t0;
  *out = res;
  return STP_OK;
}
