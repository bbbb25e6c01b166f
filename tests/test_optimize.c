/* test_optimize.c: stp_optimize (include/streamtp_optimize.h) against plain
 * enumeration.  The oracle lists every ordered one-to-many mapping of a
 * small random problem, builds each through the public builder
 * (stp_mapping_build: a mapping it refuses, for a missing link, is not a
 * candidate) and evaluates it with stp_evaluate; the exact method must find
 * the same optimum to 1e-9, under both models and both objectives, and the
 * upper bound must never fall below it.  The oracle shares no code with the
 * search but the evaluator that `eval` uses. */
#include "models/pipeline/optimize/optimize.h"
#include "streamtp_build.h"
#include "streamtp_explain.h"
#include "streamtp_law.h"
#include "streamtp_optimize.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAXP 8
#define MAXS 4

/* A random problem: its arrays stay in the struct. */
typedef struct problem {
  size_t n, m;
  stp_build_stage st[MAXS];
  stp_build_processor pr[MAXP];
  stp_build_link ln[MAXP * MAXP];
  size_t nl;
  double bandwidth;
  char names[MAXP][24];
} problem;

/* Stages 1..max_s, processors n..max_p, times in [1, 10]; links: one
 * default bandwidth with a few faster or slower links, or (one problem in
 * four) no default and a random two thirds of the links, so that some
 * pairs are forbidden. */
static void sized_problem(trng *r, size_t n, size_t m, problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->m = m;
  for (size_t i = 0; i < p->n; i++)
    p->st[i] = (stp_build_stage){NULL, trng_uniform(r, 1, 10), trng_uniform(r, 1, 10)};
  for (size_t q = 0; q < p->m; q++) {
    snprintf(p->names[q], sizeof p->names[q], "P%zu", q);
    p->pr[q] = (stp_build_processor){p->names[q], trng_uniform(r, 1, 10)};
  }
  bool sparse = trng_int(r, 0, 3) == 0;
  p->bandwidth = sparse ? 0 : trng_uniform(r, 1, 10);
  for (size_t a = 0; a < p->m; a++)
    for (size_t b = 0; b < p->m; b++) {
      if (a == b)
        continue;
      bool keep = sparse ? trng_int(r, 0, 2) != 0 : trng_int(r, 0, 3) == 0;
      if (keep)
        p->ln[p->nl++] = (stp_build_link){a, b, trng_uniform(r, 1, 10)};
    }
}

static void random_problem(trng *r, size_t max_s, size_t max_p, problem *p) {
  size_t n = trng_int(r, 1, max_s);
  sized_problem(r, n, trng_int(r, n, max_p), p);
}

static stp_build_spec spec_of(const problem *p, const size_t *sizes, const size_t *teams) {
  stp_build_spec s;
  stp_build_spec_init(&s);
  s.name = "random";
  s.nstages = p->n;
  s.stages = p->st;
  s.nprocessors = p->m;
  s.processors = p->pr;
  s.bandwidth = p->bandwidth;
  s.nlinks = p->nl;
  s.links = p->ln;
  s.team_sizes = sizes;
  s.teams = teams;
  return s;
}

/* ---- the oracle -------------------------------------------------------------- */
typedef struct cand {
  double det;
  size_t sizes[MAXS], teams[MAXP];
} cand;

typedef struct oracle {
  const problem *p;
  stp_model model;
  size_t max_team;           /* 0: none */
  const unsigned char *use;  /* NULL: all */
  size_t fix_stage, fix_size; /* fix_size 0: nothing fixed */
  size_t fix_team[MAXP];
  size_t sizes[MAXS], teams[MAXP], nteam;
  bool used[MAXP];
  double best_det, best_exp;
  size_t count, feasible, exp_missing;
  cand *list;                /* the feasible mappings */
  size_t cap;
} oracle;

static stp_mapping *build(const problem *p, const size_t *sizes, const size_t *teams) {
  stp_build_spec s = spec_of(p, sizes, teams);
  stp_mapping *m;
  stp_error err = {0};
  stp_status st = stp_mapping_build(&s, &m, &err);
  if (st == STP_EINVAL)
    return NULL; /* a link that carries data has no bandwidth */
  cr_assert_eq(st, STP_OK, "%s", err.message);
  return m;
}

/* Whether the leaf keeps the fixed team. */
static bool keeps_fix(const oracle *o) {
  if (!o->fix_size)
    return true;
  size_t at = 0;
  for (size_t i = 0; i < o->fix_stage; i++)
    at += o->sizes[i];
  return o->sizes[o->fix_stage] == o->fix_size &&
         !memcmp(o->teams + at, o->fix_team, o->fix_size * sizeof *o->teams);
}

/* Every mapping's deterministic value; the list of the feasible ones. */
static void evaluate_leaf(oracle *o) {
  o->count++;
  if (!keeps_fix(o))
    return;
  stp_mapping *m = build(o->p, o->sizes, o->teams);
  if (!m)
    return;
  stp_options det_only;
  stp_options_init(&det_only);
  det_only.exp_method = STP_EXP_NONE;
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, o->model, &det_only, &r, &err), STP_OK, "%s", err.message);
  if (o->feasible == o->cap) {
    o->cap = o->cap ? 2 * o->cap : 256;
    o->list = realloc(o->list, o->cap * sizeof *o->list);
    cr_assert(o->list);
  }
  cand *c = &o->list[o->feasible++];
  c->det = r->det_throughput;
  memcpy(c->sizes, o->sizes, sizeof c->sizes);
  memcpy(c->teams, o->teams, sizeof c->teams);
  if (c->det > o->best_det)
    o->best_det = c->det;
  stp_result_free(r);
  stp_mapping_free(m);
}

/* Every ordered team for stage i from the unused processors, then on. */
static void enumerate(oracle *o, size_t i, size_t len) {
  if (i == o->p->n) {
    evaluate_leaf(o);
    return;
  }
  if (len > 0) { /* team i complete at this length; go on */
    o->sizes[i] = len;
    enumerate(o, i + 1, 0);
  }
  if (o->max_team && len == o->max_team)
    return;
  for (size_t q = 0; q < o->p->m; q++) {
    if (o->used[q] || (o->use && !o->use[q]))
      continue;
    o->used[q] = true;
    o->teams[o->nteam++] = q;
    enumerate(o, i, len + 1);
    o->nteam--;
    o->used[q] = false;
  }
}

static int by_det_desc(const void *a, const void *b) {
  double x = ((const cand *)a)->det, y = ((const cand *)b)->det;
  return (x < y) - (x > y);
}

/* The best exponential value: the mappings by decreasing det, until det
 * no longer exceeds the best exp found (exp <= det: none after can beat
 * it, so their chains need not be solved). */
static void best_exponential(oracle *o) {
  if (o->feasible == 0)
    return;
  qsort(o->list, o->feasible, sizeof *o->list, by_det_desc);
  for (size_t k = 0; k < o->feasible && o->list[k].det > o->best_exp; k++) {
    stp_mapping *m = build(o->p, o->list[k].sizes, o->list[k].teams);
    stp_result *r;
    stp_error err = {0};
    cr_assert_eq(stp_evaluate(m, o->model, NULL, &r, &err), STP_OK, "%s", err.message);
    cr_assert_eq(r->det_throughput, o->list[k].det);
    if (!r->exp_available)
      o->exp_missing++;
    else if (r->exp_throughput > o->best_exp)
      o->best_exp = r->exp_throughput;
    stp_result_free(r);
    stp_mapping_free(m);
  }
}

static void run(oracle *o) {
  enumerate(o, 0, 0);
  best_exponential(o);
  free(o->list);
  o->list = NULL;
}

static oracle run_oracle(const problem *p, stp_model model, size_t max_team,
                         const unsigned char *use) {
  oracle o = {.p = p, .model = model, .max_team = max_team, .use = use};
  run(&o);
  return o;
}

/* Ordered one-to-many mappings of m processors on n stages, by formula:
 * sum over k used of m!/(m-k)! * C(k-1, n-1). */
static size_t mapping_count(size_t n, size_t m) {
  size_t total = 0;
  for (size_t k = n; k <= m; k++) {
    size_t arr = 1, c = 1;
    for (size_t j = 0; j < k; j++)
      arr *= m - j;
    for (size_t j = 1; j < n; j++)
      c = c * (k - j) / j;
    total += arr * c;
  }
  return total;
}

/* ---- running the optimiser ------------------------------------------------------ */
static stp_optimize_result *optimize(const problem *p, stp_model model, stp_objective obj,
                                     stp_optimize_method method, const stp_optimize_options *base) {
  stp_build_spec s = spec_of(p, NULL, NULL);
  stp_problem *pb;
  stp_error err = {0};
  cr_assert_eq(stp_problem_build(&s, &pb, &err), STP_OK, "%s", err.message);
  stp_optimize_options o;
  if (base)
    o = *base;
  else
    stp_optimize_options_init(&o);
  o.model = model;
  o.objective = obj;
  o.method = method;
  stp_optimize_result *res = NULL;
  stp_status st = stp_optimize(pb, &o, &res, &err);
  cr_assert_eq(st, STP_OK, "%s", err.message);
  stp_problem_free(pb);
  return res;
}

Test(optimize, mapping_count_of_the_oracle) {
  /* the oracle enumerates exactly the ordered one-to-many mappings */
  problem p = {0};
  trng r = {.s = 7};
  for (int k = 0; k < 6; k++) {
    random_problem(&r, 3, 5, &p);
    p.bandwidth = 1; /* every link exists: all candidates feasible */
    oracle o = run_oracle(&p, STP_MODEL_OVERLAP, 0, NULL);
    cr_assert_eq(o.count, mapping_count(p.n, p.m), "%zu stages, %zu processors: %zu vs %zu", p.n,
                 p.m, o.count, mapping_count(p.n, p.m));
    cr_assert_eq(o.feasible, o.count);
  }
  cr_assert_eq(mapping_count(3, 6), 12720);
}

/* ---- the internal functions ---------------------------------------------------- */
/* A problem's space, evaluator, run and bound for the internal functions
 * (no teams fixed: the free stages are 0..n-1). */
typedef struct context {
  stp_problem *pb;
  stp_optimize_options o;
  stp_opt_space sp;
  stp_opt_eval ev;
  stp_opt_run run;
  stp_opt_bound b;
} context;

static void context_start(context *c, stp_problem *pb) {
  stp_error err = {0};
  c->pb = pb;
  cr_assert_eq(stp__opt_space_init(&c->sp, c->pb, &c->o, NULL, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp__opt_eval_init(&c->ev, &c->sp, c->o.objective, &c->o.eval, &err), STP_OK,
               "%s", err.message);
  cr_assert_eq(stp__opt_run_init(&c->run, &c->sp, &c->ev, &c->o, stp__now(), &err), STP_OK,
               "%s", err.message);
  cr_assert_eq(stp__opt_bound_init(&c->sp, &c->b, NULL, &err), STP_OK, "%s", err.message);
  c->run.upper_bound = stp__opt_bound_root(&c->sp, &c->b, NULL);
}

static void context_open(context *c, const problem *p, stp_model model, stp_objective obj) {
  stp_build_spec s = spec_of(p, NULL, NULL);
  stp_error err = {0};
  stp_problem *pb;
  cr_assert_eq(stp_problem_build(&s, &pb, &err), STP_OK, "%s", err.message);
  stp_optimize_options_init(&c->o);
  c->o.model = model;
  c->o.objective = obj;
  c->o.seed = 7;
  context_start(c, pb);
}

static void context_close(context *c) {
  stp__opt_bound_free(&c->b);
  stp__opt_run_free(&c->run);
  stp__opt_eval_free(&c->ev);
  stp__opt_space_free(&c->sp);
  stp_problem_free(c->pb);
}

/* The branch and bound alone, from no incumbent (stp_optimize starts it
 * from the heuristic's best, which could hide a wrong pruning): its
 * optimum, and the root bound. */
static double cold_exact(const problem *p, stp_model model, stp_objective obj, double *root) {
  context c;
  context_open(&c, p, model, obj);
  *root = c.run.upper_bound;
  bool proved;
  double upper;
  stp_error err = {0};
  cr_assert_eq(stp__opt_exact(&c.run, &c.b, *root, &proved, &upper, &err), STP_OK, "%s",
               err.message);
  cr_assert(proved);
  cr_assert(upper == c.run.best_value);
  double best = c.run.best_value;
  context_close(&c);
  return best;
}

/* exact == enumeration on `count` random problems for one model. */
static void exact_matches_enumeration(uint64_t seed, stp_model model, int count) {
  trng r = {.s = seed};
  int compared = 0;
  for (int k = 0; k < count; k++) {
    problem p;
    random_problem(&r, 3, 6, &p);
    oracle o = run_oracle(&p, model, 0, NULL);
    if (o.feasible == 0)
      continue; /* no mapping: checked by the error test */
    cr_assert_eq(o.exp_missing, 0, "problem %d: an exponential value beyond the limits", k);
    for (int obj = 0; obj < 2; obj++) {
      double want = obj ? o.best_exp : o.best_det, root;
      assert_close(cold_exact(&p, model, (stp_objective)obj, &root), want, TOL_SOLVE);
      cr_assert(root >= want * (1 - TOL_SOLVE), "root bound %.17g below the optimum %.17g", root,
                want);
      stp_optimize_result *res = optimize(&p, model, (stp_objective)obj, STP_OPTIMIZE_EXACT, NULL);
      cr_assert(res->optimal, "problem %d (%zu stages, %zu processors): not proved", k, p.n, p.m);
      assert_close(res->value, want, TOL_SOLVE);
      cr_assert_eq(strcmp(res->method, "exact"), 0);
      cr_assert(res->upper_bound >= want * (1 - TOL_SOLVE));
      stp_optimize_result_free(res);
      /* the heuristic and random methods never claim more than the optimum */
      stp_optimize_options ho;
      stp_optimize_options_init(&ho);
      ho.max_evaluations = 300;
      res = optimize(&p, model, (stp_objective)obj, STP_OPTIMIZE_HEURISTIC, &ho);
      cr_assert(res->value <= want * (1 + TOL_SOLVE), "heuristic %.17g above the optimum %.17g",
                res->value, want);
      cr_assert(res->upper_bound >= want * (1 - TOL_SOLVE), "bound %.17g below the optimum %.17g",
                res->upper_bound, want);
      stp_optimize_result_free(res);
      compared++;
    }
  }
  cr_assert_geq(compared, count); /* most problems have mappings, both objectives count */
}

Test(optimize, exact_equals_enumeration_overlap, .timeout = 600) {
  exact_matches_enumeration(2026, STP_MODEL_OVERLAP, 110);
}

Test(optimize, exact_equals_enumeration_strict, .timeout = 600) {
  exact_matches_enumeration(4052, STP_MODEL_STRICT, 110);
}

/* --use, --max-team and --fix against the oracle restricted the same way. */
Test(optimize, constraints_equal_enumeration, .timeout = 600) {
  trng r = {.s = 99};
  int compared = 0;
  for (int k = 0; k < 40; k++) {
    problem p;
    random_problem(&r, 3, 6, &p);
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    oracle o = {.p = &p, .model = model, .max_team = trng_int(&r, 1, 3)};
    unsigned char use[MAXP] = {0};
    char use_text[64] = "", fix_text[64] = "";
    size_t nuse = 0;
    for (size_t q = 0; q < p.m; q++)
      if (trng_int(&r, 0, 3) || p.m - q <= p.n - nuse) { /* at least n processors */
        use[q] = 1;
        snprintf(use_text + strlen(use_text), sizeof use_text - strlen(use_text), "%s%s",
                 nuse++ ? "," : "", p.names[q]);
      }
    o.use = use;
    if (trng_int(&r, 0, 1)) { /* fix one stage's team, in a random order */
      o.fix_stage = trng_int(&r, 0, p.n - 1);
      snprintf(fix_text, sizeof fix_text, "T%zu=", o.fix_stage + 1);
      for (size_t q = p.m; q-- > 0 && o.fix_size < o.max_team && o.fix_size + p.n - 1 < nuse;)
        if (use[q] && trng_int(&r, 0, 1)) {
          snprintf(fix_text + strlen(fix_text), sizeof fix_text - strlen(fix_text), "%s%s",
                   o.fix_size ? "," : "", p.names[q]);
          o.fix_team[o.fix_size++] = q;
        }
    }
    run(&o);
    if (o.feasible == 0)
      continue;
    stp_optimize_options opts;
    stp_optimize_options_init(&opts);
    opts.max_team = o.max_team;
    opts.use = use_text;
    const char *fix[] = {fix_text};
    opts.fix = fix;
    opts.nfix = o.fix_size ? 1 : 0;
    for (int obj = 0; obj < 2; obj++) {
      stp_optimize_result *res = optimize(&p, model, (stp_objective)obj, STP_OPTIMIZE_EXACT, &opts);
      cr_assert(res->optimal);
      assert_close(res->value, obj ? o.best_exp : o.best_det, TOL_SOLVE);
      /* and the answer keeps them */
      const stp_mapping *m = res->mapping;
      for (size_t i = 0; i < p.n; i++) {
        cr_assert_leq(stp_mapping_team_size(m, i), o.max_team);
        for (size_t j = 0; j < stp_mapping_team_size(m, i); j++)
          cr_assert(use[stp_mapping_team_member(m, i, j)]);
      }
      if (o.fix_size) {
        cr_assert_eq(stp_mapping_team_size(m, o.fix_stage), o.fix_size);
        for (size_t j = 0; j < o.fix_size; j++)
          cr_assert_eq(stp_mapping_team_member(m, o.fix_stage, j), o.fix_team[j]);
      }
      stp_optimize_result_free(res);
      compared++;
    }
  }
  cr_assert_geq(compared, 40);
}

/* Numbering the data sets from s turns every team by s places: the same
 * throughput, the symmetry the exact search relies on. */
Test(optimize, turning_every_team_keeps_the_throughput) {
  trng r = {.s = 5};
  for (int k = 0; k < 60; k++) {
    problem p;
    random_problem(&r, 3, 7, &p);
    p.bandwidth = 2; /* every link exists */
    size_t sizes[MAXS], teams[MAXP], turned[MAXP], at = 0, lcm = 1;
    for (size_t i = 0; i < p.n; i++) {
      size_t left = p.m - at - (p.n - 1 - i);
      sizes[i] = trng_int(&r, 1, left < 3 ? left : 3);
      for (size_t j = 0; j < sizes[i]; j++, at++)
        teams[at] = at;
      size_t a = lcm, b = sizes[i];
      while (b) {
        size_t t = a % b;
        a = b;
        b = t;
      }
      lcm = lcm / a * sizes[i];
    }
    size_t shift = trng_int(&r, 1, lcm), base = 0;
    for (size_t i = 0; i < p.n; base += sizes[i++])
      for (size_t j = 0; j < sizes[i]; j++)
        turned[base + j] = teams[base + (j + shift) % sizes[i]];
    for (int model = 0; model < 2; model++) {
      stp_mapping *a = build(&p, sizes, teams), *b = build(&p, sizes, turned);
      stp_result *ra, *rb;
      stp_error err = {0};
      cr_assert_eq(stp_evaluate(a, (stp_model)model, NULL, &ra, &err), STP_OK, "%s", err.message);
      cr_assert_eq(stp_evaluate(b, (stp_model)model, NULL, &rb, &err), STP_OK, "%s", err.message);
      assert_close(ra->det_throughput, rb->det_throughput, TOL_EXACT);
      cr_assert(ra->exp_available && rb->exp_available);
      assert_close(ra->exp_throughput, rb->exp_throughput, TOL_SOLVE);
      stp_result_free(ra);
      stp_result_free(rb);
      stp_mapping_free(a);
      stp_mapping_free(b);
    }
  }
}

static stp_problem *problem_of(const problem *p, const size_t *sizes, const size_t *teams) {
  stp_build_spec s = spec_of(p, sizes, teams);
  stp_problem *pb;
  stp_error err = {0};
  cr_assert_eq(stp_problem_build(&s, &pb, &err), STP_OK, "%s", err.message);
  return pb;
}

/* ---- the heuristic's sweep of size profiles ---------------------------------------- */
/* The bound of a size profile is never below the deterministic value (so
 * neither the exponential one) of a mapping with those sizes, each of the
 * enumerated mappings checked; and it is reached by no mapping's value
 * only because it is a bound: some profile's bound is within a factor of
 * the optimum (the bound is not vacuous). */
Test(optimize, profile_bound_holds_for_every_enumerated_mapping) {
  trng r = {.s = 5};
  static const size_t stages[MAXS] = {0, 1, 2, 3};
  for (int k = 0; k < 40; k++) {
    problem p;
    random_problem(&r, 3, 6, &p);
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    oracle o = {.p = &p, .model = model};
    enumerate(&o, 0, 0);
    if (o.feasible == 0)
      continue;
    context c;
    context_open(&c, &p, model, STP_OBJECTIVE_DET);
    double tightest = INFINITY;
    for (size_t j = 0; j < o.feasible; j++) {
      double bound = stp__opt_profile_bound(&c.sp, &c.b, stages, p.n, o.list[j].sizes);
      cr_assert(bound >= o.list[j].det * (1 - TOL_SOLVE),
                "problem %d: a mapping's %.17g above its profile's bound %.17g", k,
                o.list[j].det, bound);
      tightest = fmin(tightest, bound / o.best_det);
    }
    cr_assert(tightest < 10, "problem %d: every profile bound 10 times the optimum", k);
    context_close(&c);
    free(o.list);
  }
}

/* The sweep alone, a climb on the assignment of each size profile in turn,
 * reaches the optimum of plain enumeration on nearly every small problem
 * within 20,000 candidates, under both models and objectives; when it ends
 * for having no profile left whose bound exceeds its best, its best is the
 * optimum. */
Test(optimize, profile_sweep_reaches_the_enumerated_optimum, .timeout = 600) {
  trng r = {.s = 2027};
  int found = 0, total = 0, proofs = 0;
  for (int k = 0; k < 40; k++) {
    problem p;
    random_problem(&r, 3, 6, &p);
    stp_model model = k % 4 == 3 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    oracle o = run_oracle(&p, model, 0, NULL);
    if (o.feasible == 0)
      continue;
    for (int obj = 0; obj < 2; obj++) {
      context c;
      context_open(&c, &p, model, (stp_objective)obj);
      stp_error err = {0};
      bool swept, proved;
      cr_assert_eq(stp__opt_sweep(&c.run, &c.b, 20000, &swept, &proved, &err), STP_OK, "%s",
                   err.message);
      cr_assert(swept);
      double want = obj ? o.best_exp : o.best_det, got = c.run.best_value;
      cr_assert(got <= want * (1 + TOL_SOLVE), "problem %d: %.17g above the optimum %.17g", k,
                got, want);
      bool optimum = got >= want * (1 - TOL_SOLVE);
      proofs += proved;
      if (proved)
        cr_assert(optimum, "problem %d: the sweep ended at %.17g below the optimum %.17g", k, got,
                  want);
      found += optimum;
      total++;
      context_close(&c);
    }
  }
  cr_assert_geq(total, 60);
  cr_assert_geq(found * 100, total * 95, "the optimum on %d of %d", found, total);
}

/* Same seed and budget, same candidates: the same answer; and never below
 * the problem's own mapping. */
Test(optimize, heuristic_is_reproducible_and_keeps_the_start) {
  trng r = {.s = 11};
  for (int k = 0; k < 20; k++) {
    problem p;
    random_problem(&r, 4, 8, &p);
    p.bandwidth = trng_uniform(&r, 1, 10);
    size_t sizes[MAXS], teams[MAXP];
    for (size_t i = 0; i < p.n; i++) {
      sizes[i] = 1;
      teams[i] = i;
    }
    stp_problem *pb = problem_of(&p, sizes, teams);
    cr_assert(stp_problem_start(pb) != NULL);
    stp_optimize_options o;
    stp_optimize_options_init(&o);
    o.method = STP_OPTIMIZE_HEURISTIC;
    o.max_evaluations = 200;
    o.seed = 42;
    o.objective = (stp_objective)(k % 2);
    stp_optimize_result *a, *b;
    stp_error err = {0};
    cr_assert_eq(stp_optimize(pb, &o, &a, &err), STP_OK, "%s", err.message);
    cr_assert_eq(stp_optimize(pb, &o, &b, &err), STP_OK, "%s", err.message);
    cr_assert(a->value == b->value && a->evaluated == b->evaluated);
    for (size_t i = 0; i < p.n; i++) {
      cr_assert_eq(stp_mapping_team_size(a->mapping, i), stp_mapping_team_size(b->mapping, i));
      for (size_t j = 0; j < stp_mapping_team_size(a->mapping, i); j++)
        cr_assert_eq(stp_mapping_team_member(a->mapping, i, j),
                     stp_mapping_team_member(b->mapping, i, j));
    }
    cr_assert(a->value >= a->start);
    cr_assert((a->timed_out || a->optimal) && !a->interrupted);
    cr_assert_eq(strcmp(a->method, "heuristic"), 0);
    /* the constructive start and the answer never exceed the bound */
    cr_assert(a->constructive <= a->value && a->value <= a->upper_bound);
    assert_close(a->gap, (a->upper_bound - a->value) / a->upper_bound, TOL_EXACT);
    stp_optimize_result_free(a);
    stp_optimize_result_free(b);
    stp_problem_free(pb);
  }
}

/* The sequence of candidates a run evaluates, as a running hash (FNV-1a of
 * every team, in order) and a count. */
typedef struct sequence {
  uint64_t hash, count;
} sequence;

static void record(const stp_opt_space *sp, const stp_opt_cand *c, void *data) {
  sequence *q = data;
  for (size_t i = 0; i < sp->N; i++)
    for (size_t k = 0; k <= c->size[i]; k++) {
      uint64_t v = k < c->size[i] ? stp__opt_team(sp, c, i)[k] : UINT64_MAX; /* team end */
      for (int b = 0; b < 8; b++)
        q->hash = (q->hash ^ ((v >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    }
  q->count++;
}

static sequence heuristic_sequence(const problem *p, stp_model model, stp_objective obj,
                                   uint64_t seed, uint64_t budget) {
  context c;
  context_open(&c, p, model, obj);
  c.o.seed = seed;
  sequence q = {.hash = 0xcbf29ce484222325ull};
  c.ev.trace = record;
  c.ev.trace_data = &q;
  double constructive;
  stp_error err = {0};
  cr_assert_eq(stp__opt_heuristic(&c.run, &c.b, budget, &constructive, &err), STP_OK, "%s",
               err.message);
  context_close(&c);
  return q;
}

/* The same seed gives the same sequence of candidates, whatever else runs
 * between (a cache filled by another run, other problems); another seed
 * another sequence (so that the record sees the difference). */
Test(optimize, same_seed_same_candidates) {
  trng r = {.s = 17};
  for (int k = 0; k < 12; k++) {
    problem p;
    sized_problem(&r, 2 + k % 3, 7 + k % 2, &p);
    stp_model model = k % 4 == 3 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    stp_objective obj = (stp_objective)(k % 2);
    sequence a = heuristic_sequence(&p, model, obj, 5, 3000);
    problem other;
    sized_problem(&r, 3, 6, &other);
    (void)heuristic_sequence(&other, model, obj, 5, 500);
    sequence b = heuristic_sequence(&p, model, obj, 5, 3000);
    sequence c = heuristic_sequence(&p, model, obj, 6, 3000);
    cr_assert_eq(a.count, b.count);
    cr_assert(a.count >= 100, "problem %d: %llu candidates", k, (unsigned long long)a.count);
    cr_assert_eq(a.hash, b.hash, "problem %d: seed 5 gave two sequences", k);
    cr_assert_neq(a.hash, c.hash, "problem %d: seeds 5 and 6 gave one sequence", k);
  }
}

/* A cancellation that comes after `left` checks. */
static int cancel_after(void *data) {
  atomic_int *left = data;
  return atomic_fetch_sub(left, 1) <= 0;
}

/* Cancelled during the search: the best mapping so far comes back, marked;
 * cancelled before any mapping was evaluated, there is nothing to return. */
Test(optimize, cancel_returns_the_best_so_far) {
  trng r = {.s = 3};
  problem p;
  sized_problem(&r, 3, 6, &p);
  p.bandwidth = 1;
  size_t sizes[] = {1, 2, 1}, teams[] = {0, 1, 2, 3};
  stp_problem *pb = problem_of(&p, sizes, teams);
  atomic_int left = 200;
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.method = STP_OPTIMIZE_EXACT;
  o.eval.control.cancel = (stp_cancel){.fn = cancel_after, .data = &left};
  stp_error err = {0};
  stp_optimize_result *res = NULL;
  cr_assert_eq(stp_optimize(pb, &o, &res, &err), STP_OK, "%s", err.message);
  cr_assert(res->interrupted && !res->optimal && !res->timed_out);
  cr_assert(res->value >= res->start && res->upper_bound >= res->value);
  oracle full = run_oracle(&p, STP_MODEL_OVERLAP, 0, NULL);
  cr_assert(res->upper_bound >= full.best_det * (1 - TOL_SOLVE));
  stp_optimize_result_free(res);
  stp_problem_free(pb);
  atomic_store(&left, 0);
  pb = problem_of(&p, NULL, NULL);
  cr_assert_eq(stp_optimize(pb, &o, &res, &err), STP_EINTERRUPTED);
  cr_assert_null(res);
  stp_problem_free(pb);
}

/* Stopped early (here after a few complete mappings, from no incumbent),
 * the branch and bound still bounds every mapping: the bound from the
 * nodes it left open is at least the optimum.  Its root is the counting
 * and capacity bound: from the team bound the search proves some of these
 * problems within those few mappings. */
Test(optimize, exact_stopped_early_gives_a_bound) {
  trng r = {.s = 8};
  for (int k = 0; k < 12; k++) {
    problem p;
    sized_problem(&r, 3, 6, &p);
    p.bandwidth = trng_uniform(&r, 1, 10);
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    oracle full = run_oracle(&p, model, 0, NULL);
    context c;
    stp_optimize_options_init(&c.o);
    c.o.model = model;
    c.o.max_evaluations = 1 + k % 4;
    context_start(&c, problem_of(&p, NULL, NULL));
    double root = stp__opt_bound_resources(&c.sp, &c.b, NULL), upper;
    bool proved;
    stp_error err = {0};
    cr_assert_eq(stp__opt_exact(&c.run, &c.b, root, &proved, &upper, &err), STP_OK, "%s",
                 err.message);
    cr_assert(!proved && c.run.stop == STP_OPT_EVALS);
    cr_assert(c.run.best_value <= full.best_det * (1 + TOL_SOLVE));
    cr_assert(upper >= full.best_det * (1 - TOL_SOLVE), "bound %.17g below the optimum %.17g",
              upper, full.best_det);
    cr_assert(upper <= root && upper >= c.run.best_value);
    context_close(&c);
  }
}

static const char *optimize_error(const problem *p, const stp_optimize_options *o,
                                  stp_status want) {
  static stp_error err;
  stp_problem *pb = problem_of(p, NULL, NULL);
  stp_optimize_result *res = NULL;
  memset(&err, 0, sizeof err);
  stp_status st = stp_optimize(pb, o, &res, &err);
  cr_assert_eq(st, want, "status %s: %s", stp_status_name(st), err.message);
  cr_assert_null(res);
  stp_problem_free(pb);
  return err.message;
}

Test(optimize, constraint_errors_say_what) {
  problem p;
  trng r = {.s = 1};
  sized_problem(&r, 3, 4, &p);
  p.n = 2; /* three stages declared, two used, until the third is needed below */
  p.bandwidth = 1;
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.use = "P0,P9";
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "use: processor \"P9\" is not declared");
  o.use = " , ";
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "use: an empty or overlong processor name");
  o.use = NULL;
  const char *fix[] = {"T1P0"};
  o.fix = fix;
  o.nfix = 1;
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "fix: \"T1P0\" is not STAGE=P1,P2,...");
  fix[0] = "T7=P0";
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "fix: stage \"T7\" is not declared");
  fix[0] = "T1=P0,P0";
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "fix T1: processor \"P0\" appears twice");
  const char *two[] = {"T1=P0", "T2=P1,P0"};
  o.fix = two;
  o.nfix = 2;
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL),
                   "fix: processor \"P0\" is in the fixed teams of \"T1\" and \"T2\"");
  two[1] = "T1=P1";
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "fix T1: the stage is fixed twice");
  o.nfix = 1;
  two[0] = "T1=P0,P1,P2";
  o.max_team = 2;
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "fix T1: a team of 3, above max-team 2");
  o.max_team = 0;
  o.use = "P1,P2";
  cr_assert_str_eq(optimize_error(&p, &o, STP_EINVAL), "fix T1: processor \"P0\" is not in use");
  /* nothing to map: three stages on two usable processors */
  stp_optimize_options_init(&o);
  p.n = 3;
  o.use = "P0,P1";
  cr_assert(strstr(optimize_error(&p, &o, STP_EINVAL), "no mapping keeps the constraints"));
  /* no link at all between different processors */
  p.n = 2;
  p.nl = 0;
  p.bandwidth = 0;
  o.use = NULL;
  cr_assert(strstr(optimize_error(&p, &o, STP_EINVAL), "no mapping keeps the constraints"));
  o.objective = STP_OBJECTIVE_EXP;
  o.eval.exp_method = STP_EXP_NONE;
  cr_assert(strstr(optimize_error(&p, &o, STP_EINVAL), "exp_method cannot be none"));
}

/* A mapping file without "mapping" is a problem; with one, its start. */
Test(optimize, problem_files) {
  const char *text = "{\"stages\": [{\"work\": 4, \"output\": 2}, {\"work\": 2}],\n"
                     " \"processors\": [{\"name\": \"a\", \"speed\": 1}, {\"name\": \"b\", "
                     "\"speed\": 2},\n  {\"name\": \"c\", \"speed\": 1}], \"bandwidth\": 1}";
  stp_problem *pb;
  stp_error err = {0};
  cr_assert_eq(stp_problem_load_string(text, strlen(text), "p.json", &pb, &err), STP_OK, "%s",
               err.message);
  cr_assert_null(stp_problem_start(pb));
  cr_assert_eq(stp_problem_stage_count(pb), 2);
  cr_assert_eq(stp_problem_processor_count(pb), 3);
  cr_assert_str_eq(stp_problem_name(pb), "p");
  stp_optimize_result *res;
  cr_assert_eq(stp_optimize(pb, NULL, &res, &err), STP_OK, "%s", err.message);
  /* by hand: T1 (work 4) on a+c (R=2, time 4 each) gives 0.5 and T2 on b
   * (time 1) gives 1, transfers of time 2 give 0.5 per sender (two senders
   * into b: its reception needs 2 per data set, so 0.5): the optimum is 0.5,
   * and b alone on T1 gives 0.5 too; no mapping beats 0.5 (b is needed on
   * one side, and the other side has at most a and c). */
  assert_close(res->value, 0.5, TOL_EXACT);
  cr_assert(res->optimal);
  stp_optimize_result_free(res);
  stp_problem_free(pb);
  const char *bad = "{\"stages\": [{\"work\": 1}], \"processors\": [{\"name\": \"a\", "
                    "\"speed\": 1}], \"mapping\": [[\"z\"]]}";
  cr_assert_eq(stp_problem_load_string(bad, strlen(bad), "q.json", &pb, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "q.json:1:"), "%s", err.message);
  cr_assert(strstr(err.message, "processor \"z\" in mapping[0][0] is not declared"));
}

/* ---- issue 34: caps, baselines, set-up and budgets ------------------------------ */
/* The Strict chain of the mapping with teams of one, P0..P(n-1) in order. */
static uint64_t strict_states(const problem *p) {
  size_t sizes[MAXS], teams[MAXP];
  for (size_t i = 0; i < p->n; i++)
    sizes[i] = 1, teams[i] = i;
  stp_mapping *m = build(p, sizes, teams);
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, STP_MODEL_STRICT, NULL, &r, &err), STP_OK, "%s", err.message);
  uint64_t states = r->exp_states;
  stp_result_free(r);
  stp_mapping_free(m);
  return states;
}

/* n stages on n processors: every mapping has teams of one, and under
 * Strict every chain has the same number of states S (the chain's shape
 * does not depend on which processor serves where).  With max_states 2S
 * the heuristic's cap (a tenth: S / 5) is below every candidate's chain;
 * the cap must grow rather than hide them all (it answered "no mapping
 * found"), and the answer must be the optimum of the enumeration (24
 * mappings: the sweep visits them all within the budget). */
Test(optimize, strict_chain_cap_grows_until_a_candidate_fits) {
  trng r = {.s = 34};
  problem p;
  sized_problem(&r, 4, 4, &p);
  p.bandwidth = trng_uniform(&r, 1, 10);
  uint64_t S = strict_states(&p);
  cr_assert(S > 10, "%llu states", (unsigned long long)S);
  oracle full = run_oracle(&p, STP_MODEL_STRICT, 0, NULL);
  cr_assert_eq(full.exp_missing, 0);
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.eval.max_states = 2 * S;
  o.max_evaluations = 2000;
  for (int method = STP_OPTIMIZE_EXACT; method <= STP_OPTIMIZE_HEURISTIC; method++) {
    stp_optimize_result *res =
        optimize(&p, STP_MODEL_STRICT, STP_OBJECTIVE_EXP, (stp_optimize_method)method, &o);
    assert_close(res->value, full.best_exp, TOL_SOLVE);
    cr_assert_eq(res->skipped, 0);
    stp_optimize_result_free(res);
  }
  /* beyond max_states itself the candidates are skipped, and said so */
  o.eval.max_states = S - 1;
  o.method = STP_OPTIMIZE_HEURISTIC;
  o.model = STP_MODEL_STRICT;
  o.objective = STP_OBJECTIVE_EXP;
  const char *msg = optimize_error(&p, &o, STP_ELIMIT);
  cr_assert(strstr(msg, "no mapping's exponential throughput is within the limits"), "%s", msg);
}

/* A problem of n stages on m processors (arrays on the heap): times in
 * [1, 10], one bandwidth for every link. */
typedef struct wide {
  size_t n, m;
  stp_build_stage *st;
  stp_build_processor *pr;
  char (*names)[16];
  stp_problem *pb;
} wide;

static wide wide_problem(uint64_t seed, size_t n, size_t m) {
  trng r = {.s = seed};
  wide w = {.n = n, .m = m};
  w.st = calloc(n, sizeof *w.st);
  w.pr = calloc(m, sizeof *w.pr);
  w.names = calloc(m, sizeof *w.names);
  cr_assert(w.st && w.pr && w.names);
  for (size_t i = 0; i < n; i++)
    w.st[i] = (stp_build_stage){NULL, trng_uniform(&r, 1, 10), trng_uniform(&r, 1, 10)};
  for (size_t q = 0; q < m; q++) {
    snprintf(w.names[q], sizeof w.names[q], "P%zu", q);
    w.pr[q] = (stp_build_processor){w.names[q], trng_uniform(&r, 1, 10)};
  }
  stp_build_spec s;
  stp_build_spec_init(&s);
  s.name = "wide";
  s.nstages = n;
  s.stages = w.st;
  s.nprocessors = m;
  s.processors = w.pr;
  s.bandwidth = trng_uniform(&r, 1, 10);
  stp_error err = {0};
  cr_assert_eq(stp_problem_build(&s, &w.pb, &err), STP_OK, "%s", err.message);
  return w;
}

static void wide_free(wide *w) {
  stp_problem_free(w->pb);
  free(w->st);
  free(w->pr);
  free(w->names);
}

static double wide_value(const wide *w, stp_optimize_method method, uint64_t evals) {
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.method = method;
  o.max_evaluations = evals;
  o.seed = 3;
  stp_optimize_result *res;
  stp_error err = {0};
  cr_assert_eq(stp_optimize(w->pb, &o, &res, &err), STP_OK, "%s", err.message);
  double v = res->value;
  cr_assert(v <= res->upper_bound * (1 + TOL_SOLVE));
  stp_optimize_result_free(res);
  return v;
}

/* On many processors the heuristic is never below the random method with
 * the same budget and seed (3 stages x 1,000 processors: 15 after 10 s
 * against 19.2 for 1,000 random mappings): its first 1,000 evaluations are
 * the random method's draws, then it climbs from their best.  Here 3
 * stages on 300 processors (the rule holds from 200). */
Test(optimize, heuristic_not_below_random_on_many_processors) {
  wide w = wide_problem(34, 3, 300);
  double r300 = wide_value(&w, STP_OPTIMIZE_RANDOM, 300);
  double h300 = wide_value(&w, STP_OPTIMIZE_HEURISTIC, 300);
  cr_assert(h300 >= r300 * (1 - TOL_EXACT), "300 evaluations: heuristic %.17g, random %.17g",
            h300, r300);
  double r = wide_value(&w, STP_OPTIMIZE_RANDOM, 1500);
  double h = wide_value(&w, STP_OPTIMIZE_HEURISTIC, 1500);
  cr_assert(h >= r, "1500 evaluations: heuristic %.17g, random %.17g", h, r);
  wide_free(&w);
}

/* A cancellation counting its polls, firing at poll `at` (0: never). */
typedef struct poll_count {
  uint64_t polls, at, after; /* after: polls once it fired */
} poll_count;

static int counted_cancel(void *data) {
  poll_count *c = data;
  c->polls++;
  bool fire = c->at && c->polls >= c->at;
  c->after += fire;
  return fire;
}

/* The set-up of a large problem heeds the run's cancel (the caller's and
 * the deadline): on 7,000 x 7,000 processors it ran 150 s under a time
 * limit of 5, in the bound's tables (N x M log M), its capacity rounds
 * (400 x N x M) and the count of mappings that chooses the method
 * (N x M x M).  Counted, not timed: the bound's set-up polls at least once
 * a stage (the space's set-up once a stage too: 2N in all before the
 * bound), and a cancel firing at any poll of the set-up ends the run
 * within a few more polls (no mapping evaluated: EINTERRUPTED). */
Test(optimize, setup_polls_the_cancel_on_large_problems) {
  wide w = wide_problem(7, 400, 400);
  poll_count never = {0};
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.max_evaluations = 1;
  o.eval.control.cancel = (stp_cancel){.fn = counted_cancel, .data = &never};
  stp_optimize_result *res;
  stp_error err = {0};
  cr_assert_eq(stp_optimize(w.pb, &o, &res, &err), STP_OK, "%s", err.message);
  stp_optimize_result_free(res);
  cr_assert(never.polls >= 2 * w.n, "%llu polls", (unsigned long long)never.polls);
  for (uint64_t at = w.n + 1; at <= 2 * w.n + 2; at += w.n / 4) {
    poll_count c = {.at = at};
    o.eval.control.cancel = (stp_cancel){.fn = counted_cancel, .data = &c};
    res = NULL;
    stp_status st = stp_optimize(w.pb, &o, &res, &err);
    cr_assert_eq(st, STP_EINTERRUPTED, "fired at poll %llu: %s", (unsigned long long)at,
                 stp_status_name(st));
    cr_assert_null(res);
    cr_assert(c.after <= 4, "fired at poll %llu, polled %llu times more",
              (unsigned long long)at, (unsigned long long)c.after);
  }
  /* a cancelled bound is still a bound: the first capacity round's, at
   * least the optimum of a small problem (enumeration) */
  trng r = {.s = 5};
  problem p;
  sized_problem(&r, 3, 6, &p);
  p.bandwidth = 2;
  oracle full = run_oracle(&p, STP_MODEL_OVERLAP, 0, NULL);
  context c;
  context_open(&c, &p, STP_MODEL_OVERLAP, STP_OBJECTIVE_DET);
  poll_count now = {.at = 1};
  stp_cancel cancel = {.fn = counted_cancel, .data = &now};
  double cut = stp__opt_bound_root(&c.sp, &c.b, &cancel);
  cr_assert(cut >= full.best_det * (1 - TOL_SOLVE) && cut >= c.run.upper_bound * (1 - TOL_EXACT),
            "cancelled bound %.17g, optimum %.17g, full bound %.17g", cut, full.best_det,
            c.run.upper_bound);
  context_close(&c);
  wide_free(&w);
}

/* The evaluator checks the memory budget before a transfer pattern's
 * graph (170 bytes a transition, as eval does): teams of 200 and 201 on a
 * budget of 1 MB (an 40,200-transition pattern, 6.8 MB) are beyond the
 * limits and skipped, where the search had built 2.7 GB of patterns on 3
 * x 10,000 under --max-memory 100M; teams of 200 and 200 (200 components
 * of one link) are within it. */
Test(optimize, evaluator_checks_the_memory_budget_before_a_pattern) {
  wide w = wide_problem(11, 2, 401);
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.eval.control.max_memory = 1 << 20;
  stp_opt_space sp;
  stp_opt_eval ev;
  stp_error err = {0};
  cr_assert_eq(stp__opt_space_init(&sp, w.pb, &o, NULL, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp__opt_eval_init(&ev, &sp, STP_OBJECTIVE_DET, &o.eval, &err), STP_OK, "%s",
               err.message);
  stp_opt_cand c;
  stp_opt_vals v;
  cr_assert_eq(stp__opt_cand_alloc(&sp, &c, &err), STP_OK);
  cr_assert_eq(stp__opt_vals_alloc(&ev, &v, &err), STP_OK);
  for (size_t q = 0; q < 200; q++)
    stp__opt_cand_insert(&sp, &c, 0, q, q);
  for (size_t q = 200; q < 401; q++)
    stp__opt_cand_insert(&sp, &c, 1, q - 200, q);
  cr_assert_eq(stp__opt_evaluate(&ev, &c, NULL, NULL, -INFINITY, &v, &err), STP_ELIMIT);
  stp__opt_cand_remove(&sp, &c, 1, 200);
  cr_assert_eq(stp__opt_evaluate(&ev, &c, NULL, NULL, -INFINITY, &v, &err), STP_OK, "%s",
               err.message);
  cr_assert(v.exact && v.value > 0);
  stp__opt_vals_free(&v);
  stp__opt_cand_free(&c);
  stp__opt_eval_free(&ev);
  stp__opt_space_free(&sp);
  wide_free(&w);
}

/* ---- the latency constraint and the law objective (issue 33) ------------------- */
/* The feasible mappings of the oracle (o.list), each with its latency
 * (stp_latency_compute, as eval --latency gives it) in lat[]. */
static double *latencies(oracle *o) {
  double *lat = malloc((o->feasible ? o->feasible : 1) * sizeof *lat);
  cr_assert(lat);
  for (size_t k = 0; k < o->feasible; k++) {
    stp_mapping *m = build(o->p, o->list[k].sizes, o->list[k].teams);
    stp_latency_result *l;
    stp_error err = {0};
    cr_assert_eq(stp_latency_compute(m, 0, &l, &err), STP_OK, "%s", err.message);
    cr_assert(l->max_exact);
    lat[k] = l->max;
    stp_latency_result_free(l);
    stp_mapping_free(m);
  }
  return lat;
}

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The value of mapping k under objective obj (law: the options' law). */
static double value_of(const oracle *o, size_t k, stp_objective obj, const stp_law *law) {
  stp_mapping *m = build(o->p, o->list[k].sizes, o->list[k].teams);
  stp_options opts;
  stp_options_init(&opts);
  opts.law = law;
  if (obj == STP_OBJECTIVE_LAW)
    opts.exp_method = STP_EXP_NONE; /* the law's chains do not need it */
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, o->model, &opts, &r, &err), STP_OK, "%s", err.message);
  double v = obj == STP_OBJECTIVE_DET ? r->det_throughput
             : obj == STP_OBJECTIVE_EXP ? r->exp_throughput
                                        : r->exact_law.throughput;
  cr_assert(obj == STP_OBJECTIVE_DET || (obj == STP_OBJECTIVE_EXP ? r->exp_available
                                                                   : r->exact_law.available),
            "%s", r->exact_law.reason ? r->exact_law.reason : "exp unavailable");
  stp_result_free(r);
  stp_mapping_free(m);
  return v;
}

/* The best objective over the oracle's mappings of latency <= limit (lat
 * NULL: all), by decreasing det: once det no longer beats the best, no
 * later mapping can (every value here is at most det: exp, and any law by
 * Jensen).  -INFINITY: none. */
static double best_under(oracle *o, const double *lat, double limit, stp_objective obj,
                         const stp_law *law) {
  size_t n = o->feasible, *order = malloc((n ? n : 1) * sizeof *order);
  cr_assert(order);
  for (size_t k = 0; k < n; k++)
    order[k] = k;
  for (size_t a = 1; a < n; a++) /* by decreasing det (insertion: small lists) */
    for (size_t b = a; b > 0 && o->list[order[b]].det > o->list[order[b - 1]].det; b--) {
      size_t t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  double best = -INFINITY;
  for (size_t j = 0; j < n && o->list[order[j]].det > best; j++) {
    size_t k = order[j];
    if (lat && lat[k] > limit)
      continue;
    double v = obj == STP_OBJECTIVE_DET ? o->list[k].det : value_of(o, k, obj, law);
    best = fmax(best, v);
  }
  free(order);
  return best;
}

static stp_optimize_result *optimize_with(const problem *p, stp_model model, stp_objective obj,
                                          stp_optimize_method method, double max_latency,
                                          const stp_law *law, uint64_t evals) {
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.max_latency = max_latency;
  o.eval.law = law;
  o.max_evaluations = evals;
  return optimize(p, model, obj, method, &o);
}

/* --max-latency: the exact method's answer is the best of the enumerated
 * mappings whose latency (stp_latency_compute of each) is at most the
 * limit, the limit drawn among the enumerated latencies so that it binds;
 * the answer's latency is reported and within it; the heuristic never
 * claims more; below every mapping's latency the run is refused. */
Test(optimize, max_latency_equals_enumeration, .timeout = 600) {
  trng r = {.s = 3333};
  int compared = 0, binding = 0;
  for (int k = 0; k < 48; k++) {
    problem p;
    random_problem(&r, 3, 6, &p);
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    stp_objective obj = k % 3 == 2 && model == STP_MODEL_OVERLAP ? STP_OBJECTIVE_EXP
                                                                  : STP_OBJECTIVE_DET;
    oracle o = {.p = &p, .model = model};
    enumerate(&o, 0, 0);
    if (o.feasible == 0) {
      free(o.list);
      continue;
    }
    double *lat = latencies(&o), *sorted = malloc(o.feasible * sizeof *sorted);
    memcpy(sorted, lat, o.feasible * sizeof *sorted);
    qsort(sorted, o.feasible, sizeof *sorted, by_double);
    double limit = sorted[trng_int(&r, 0, (int)o.feasible - 1) / 4]; /* the lowest quarter */
    double want = best_under(&o, lat, limit, obj, NULL);
    double free_best = best_under(&o, NULL, 0, obj, NULL);
    binding += want < free_best * (1 - TOL_SOLVE);
    stp_optimize_result *res = optimize_with(&p, model, obj, STP_OPTIMIZE_EXACT, limit, NULL, 0);
    cr_assert(res->optimal, "problem %d: not proved", k);
    assert_close(res->value, want, TOL_SOLVE);
    cr_assert(res->latency <= limit, "problem %d: latency %.17g above %.17g", k, res->latency,
              limit);
    cr_assert(res->upper_bound >= want * (1 - TOL_SOLVE));
    stp_optimize_result_free(res);
    res = optimize_with(&p, model, obj, STP_OPTIMIZE_HEURISTIC, limit, NULL, 300);
    cr_assert(res->value <= want * (1 + TOL_SOLVE) && res->latency <= limit);
    stp_optimize_result_free(res);
    /* below the smallest latency: no candidate */
    stp_optimize_options so;
    stp_optimize_options_init(&so);
    so.model = model;
    so.method = STP_OPTIMIZE_EXACT;
    so.max_latency = sorted[0] * (1 - 1e-6);
    const char *msg = optimize_error(&p, &so, STP_EINVAL);
    cr_assert(strstr(msg, "no mapping has a latency of at most"), "%s", msg);
    free(sorted);
    free(lat);
    free(o.list);
    compared++;
  }
  cr_assert_geq(compared, 40);
  cr_assert_geq(binding, 10, "the limit changed the optimum on %d problems only", binding);
}

/* --objective law:SPEC: the exact method's answer is the best law
 * throughput (stp_evaluate's exact_law) of the enumerated mappings, for an
 * N.B.U.E. law (erlang:k=2) and one that is not (hyperexp:cv=2), both
 * models; the deterministic upper bound lies above it for both (any law's
 * throughput is at most det: Jensen, RR-7510 section 3).  With a latency
 * limit as well, the best of those within it. */
Test(optimize, law_objective_equals_enumeration, .timeout = 900) {
  const char *specs[] = {"erlang:k=2", "hyperexp:cv=2"};
  trng r = {.s = 5151};
  int compared = 0;
  for (int k = 0; k < 24; k++) {
    problem p;
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    random_problem(&r, 3, model == STP_MODEL_STRICT ? 4 : 5, &p);
    stp_law *law;
    stp_error err = {0};
    cr_assert_eq(stp_law_parse(specs[(k / 2) % 2], NULL, &law, &err), STP_OK, "%s", err.message);
    oracle o = {.p = &p, .model = model};
    enumerate(&o, 0, 0);
    if (o.feasible == 0) {
      free(o.list);
      stp_law_free(law);
      continue;
    }
    double want = best_under(&o, NULL, 0, STP_OBJECTIVE_LAW, law);
    stp_optimize_result *res = optimize_with(&p, model, STP_OBJECTIVE_LAW, STP_OPTIMIZE_EXACT, 0,
                                             law, 0);
    cr_assert(res->optimal, "problem %d: not proved", k);
    assert_close(res->value, want, TOL_SOLVE);
    cr_assert(res->upper_bound >= want * (1 - TOL_SOLVE), "bound %.17g below %.17g",
              res->upper_bound, want);
    cr_assert_eq(res->objective, STP_OBJECTIVE_LAW);
    cr_assert_str_eq(res->eval->exact_law.law, stp_law_spec(law));
    stp_optimize_result_free(res);
    res = optimize_with(&p, model, STP_OBJECTIVE_LAW, STP_OPTIMIZE_HEURISTIC, 0, law, 200);
    cr_assert(res->value <= want * (1 + TOL_SOLVE));
    stp_optimize_result_free(res);
    if (k % 4 < 2) { /* and under a latency limit */
      double *lat = latencies(&o), limit = lat[trng_int(&r, 0, (int)o.feasible - 1)];
      double within = best_under(&o, lat, limit, STP_OBJECTIVE_LAW, law);
      res = optimize_with(&p, model, STP_OBJECTIVE_LAW, STP_OPTIMIZE_EXACT, limit, law, 0);
      assert_close(res->value, within, TOL_SOLVE);
      cr_assert(res->optimal && res->latency <= limit);
      stp_optimize_result_free(res);
      free(lat);
    }
    free(o.list);
    stp_law_free(law);
    compared++;
  }
  cr_assert_geq(compared, 20);
}

/* A law that is not phase-type, or none, is refused with the reason. */
Test(optimize, law_objective_refusals) {
  problem p;
  trng r = {.s = 2};
  sized_problem(&r, 2, 4, &p);
  p.bandwidth = 1;
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.objective = STP_OBJECTIVE_LAW;
  const char *msg = optimize_error(&p, &o, STP_EINVAL);
  cr_assert(strstr(msg, "the law objective needs a law"), "%s", msg);
  stp_law *law;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse("gamma:cv=0.5", NULL, &law, &err), STP_OK, "%s", err.message);
  o.eval.law = law;
  msg = optimize_error(&p, &o, STP_EINVAL);
  cr_assert(strstr(msg, "needs phase-type laws") && strstr(msg, "not phase-type"), "%s", msg);
  stp_law_free(law);
  stp_optimize_options_init(&o);
  o.max_latency = NAN;
  msg = optimize_error(&p, &o, STP_EINVAL);
  cr_assert(strstr(msg, "latency limit"), "%s", msg);
  cr_assert_str_eq(stp_objective_name(STP_OBJECTIVE_LAW), "law");
  stp_objective obj;
  cr_assert_eq(stp_objective_parse("law", &obj), STP_OK);
  cr_assert_eq(obj, STP_OBJECTIVE_LAW);
}
