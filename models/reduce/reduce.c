/* reduce.c: the public face of the reduction trees (streamtp_reduce.h):
 * checks a specification, builds its tree (greedy.c), schedules it
 * (schedule.c) and gives the paper's bounds; dag.c compiles the schedule. */
#include "streamtp_reduce.h"

#include "base/core.h"
#include "models/reduce/greedy.h"
#include "models/reduce/schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct stp_reduce {
  stp_reduce_spec spec;
  stp__greedy tree;
  stp__schedule sched;
  double *start; /* start[v], v = 2..n, as values */
  double makespan;
};

void stp_reduce_spec_init(stp_reduce_spec *s, uint64_t n, double d, double c) {
  *s = (stp_reduce_spec){.n = n, .d = d, .c = c, .tree = STP_REDUCE_OPTIMAL,
                         .algorithm = STP_REDUCE_ALG1, .K = 0};
}

static const char *const tree_names[] = {"optimal", "binomial", "fibonacci"};

const char *stp_reduce_tree_name(stp_reduce_tree t) {
  return (unsigned)t < 3 ? tree_names[t] : "?";
}

const char *stp_reduce_algorithm_name(stp_reduce_algorithm a) {
  switch (a) {
  case STP_REDUCE_ALG1: return "alg1";
  case STP_REDUCE_ALG2: return "alg2";
  case STP_REDUCE_ALG3: return "alg3";
  }
  return "?";
}

stp_status stp_reduce_tree_parse(const char *s, stp_reduce_tree *out) {
  for (int t = 0; s && t < 3; t++)
    if (strcmp(s, tree_names[t]) == 0) {
      *out = (stp_reduce_tree)t;
      return STP_OK;
    }
  return STP_EINVAL;
}

void stp_reduce_free(stp_reduce *r) {
  if (!r)
    return;
  stp__greedy_free(&r->tree);
  stp__schedule_free(&r->sched);
  free(r->start);
  free(r);
}

/* Algorithm 2's schedule: reversed times t_i become starts t_n - t_i (the
 * paper's line 14 adds a spurious + c: the last transfer would then start
 * c after the first reduction could), receptions in increasing start. */
static stp_status schedule_alg2(stp_reduce *r, stp__rcost k, stp_error *err) {
  uint64_t n = r->spec.n;
  stp__rtime *key = stp__calloc((size_t)n + 1, sizeof *key);
  if (!key)
    return stp__oom(err, "reduction schedule");
  stp__rtime tn = r->tree.t[n];
  for (uint64_t v = 2; v <= n; v++)
    key[v] = stp__rtime_make(k, tn.p - r->tree.t[v].p, tn.q - r->tree.t[v].q);
  stp_status s = stp__schedule_orders(n, r->tree.child, key, &r->sched, err);
  for (uint64_t v = 2; s == STP_OK && v <= n; v++)
    r->sched.start[v] = key[v];
  free(key);
  r->makespan = r->tree.length.v;
  return s;
}

/* The tree and its schedule within spec->control's budget, checked before
 * anything is built. */
stp_status stp__reduce_check_memory(const stp_reduce_spec *spec, stp_error *err) {
  uint64_t budget = stp_control_memory_budget(&spec->control);
  double bytes = (double)spec->n * STP_REDUCE_BYTES_PER_MACHINE;
  if (bytes <= (double)budget)
    return STP_OK;
  uint64_t need = stp__u64_sat(bytes);
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, need, budget, need},
                         "n = %llu: the tree and its schedule need about %.3g GiB, above the "
                         "memory budget of %.3g GiB",
                         (unsigned long long)spec->n, bytes / 1073741824.0,
                         (double)budget / 1073741824.0);
}

stp_status stp_reduce_build(const stp_reduce_spec *spec, stp_reduce **out, stp_error *err) {
  *out = NULL;
  STP_CHECK(stp__reduce_check(spec, err));
  STP_CHECK(stp__reduce_check_memory(spec, err));
  stp_reduce *r = stp__calloc(1, sizeof *r);
  if (!r)
    return stp__oom(err, "reduction tree");
  r->spec = *spec;
  if (spec->algorithm == STP_REDUCE_ALG1)
    r->spec.K = 0;
  stp__rcost real = {spec->d, spec->c};
  stp_status s = stp__greedy_build(spec, &r->tree, err);
  if (s != STP_OK) {
    free(r);
    return s;
  }
  if (spec->algorithm == STP_REDUCE_ALG2) {
    s = schedule_alg2(r, real, err);
  } else {
    s = stp__schedule_eval(spec->n, r->tree.child, real, &r->sched, err);
    if (s == STP_OK)
      r->makespan = r->sched.makespan.v;
  }
  if (s == STP_OK && !(r->start = stp__calloc((size_t)spec->n + 1, sizeof *r->start)))
    s = stp__oom(err, "reduction schedule");
  if (s != STP_OK) {
    stp_reduce_free(r);
    return s;
  }
  r->start[0] = r->start[1] = NAN;
  for (uint64_t v = 2; v <= spec->n; v++)
    r->start[v] = r->sched.start[v].v;
  *out = r;
  return STP_OK;
}

const stp_reduce_spec *stp_reduce_get_spec(const stp_reduce *r) { return &r->spec; }

uint64_t stp_reduce_child(const stp_reduce *r, uint64_t i) {
  return i >= 2 && i <= r->spec.n ? r->tree.child[i] : 0;
}

double stp_reduce_transfer_start(const stp_reduce *r, uint64_t i) {
  return i >= 2 && i <= r->spec.n ? r->start[i] : NAN;
}

uint64_t stp_reduce_reception_count(const stp_reduce *r, uint64_t u) {
  return u >= 1 && u <= r->spec.n ? r->sched.first[u + 1] - r->sched.first[u] : 0;
}

uint64_t stp_reduce_reception(const stp_reduce *r, uint64_t u, uint64_t k) {
  return k < stp_reduce_reception_count(r, u) ? r->sched.recv[r->sched.first[u] + k] : 0;
}

double stp_reduce_makespan(const stp_reduce *r) { return r->makespan; }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t stp_reduce_ideals_lower(const stp_reduce *r) {
  const stp_reduce_spec *s = &r->spec;
  uint64_t n = s->n, chain = n > 1 ? 2 * (n - 1) + 1 : 1; /* a topological order's prefixes */
  /* Start times must separate a transfer from what precedes it: all times
   * positive and the smallest above the rounding of the largest start */
  double lo = fmin(s->d, s->c), hi = fmax(s->d, s->c);
  if (n < 2 || s->algorithm == STP_REDUCE_ALG2 || !(lo > 0) ||
      lo * 0x1p48 <= (double)n * (s->d + s->c) + hi)
    return chain;
  double *t = stp__malloc_array((size_t)n - 1, sizeof *t);
  if (!t)
    return chain;
  for (uint64_t v = 2; v <= n; v++)
    t[v - 2] = r->start[v];
  qsort(t, (size_t)n - 1, sizeof *t, cmp_double);
  uint64_t bound = 1;
  for (size_t i = 0, j; i < n - 1; i = j) {
    for (j = i; j < n - 1 && t[j] == t[i]; j++)
      ;
    size_t w = j - i;
    bound = sat_add(bound, w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1);
  }
  free(t);
  return bound > chain ? bound : chain;
}

/* ---- the paper's bounds ------------------------------------------------------ */

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

double stp_reduce_opt_lower(uint64_t n, double d, double c) {
  return n < 1 ? NAN : stp__ceil_log2(n) * fmax(d, c);
}

double stp_reduce_opt_upper(uint64_t n, double d, double c) {
  return n < 1 ? NAN : stp__ceil_log2(n) * (d + c);
}

double stp_reduce_length_bound(const stp_reduce_spec *s) {
  uint64_t n = s->n, K = s->K;
  /* The paper's bounds are of its algorithms, which run with the real (d, c):
   * a binomial or Fibonacci tree runs them with other costs, and breaks them
   * (fuzz_params: Fibonacci, Algorithm 3, n = 9570, K = 5, d = 1e-3, c = 0
   * takes 1917 d > Corollary 11's 1916 d). */
  if (s->algorithm == STP_REDUCE_ALG1 || s->tree != STP_REDUCE_OPTIMAL || K < 1 || K > n / 2)
    return NAN;
  double dc = s->d + s->c;
  if (s->algorithm == STP_REDUCE_ALG2) {
    /* Proposition 8 as printed, (floor(log2 K + 1) + ceil(n / K - 2)) (d + c),
     * is false (n = 6, K = 3, d = c = 1: Algorithm 2 takes 5 > 4): the
     * first mode ends with 2^(floor(log2 K) + 1) machines, and the second
     * adds K per step for the remaining n - 2^(floor(log2 K) + 1). */
    unsigned f = stp__floor_log2(K);
    return (double)(f + 1 + ceil_div(n - (UINT64_C(1) << (f + 1)), K)) * dc;
  }
  /* Corollary 11: (ceil(log2 K + 1) + ceil(n / K - 2)) (d + c). */
  return (double)(stp__ceil_log2(K) + 1 + ceil_div(n, K) - 2) * dc;
}
