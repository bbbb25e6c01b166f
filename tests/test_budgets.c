/* test_budgets.c: limits checked before the memory is spent (issue 34,
 * item 3), on cases whose counts are known in closed form.
 *  - The order-ideal chain of a path DAG under erlang:k=2 (2n + 1 states)
 *    is solved within a 1 GiB address space (its scratch took n^2 words:
 *    80 GB for 100,000 transitions, a bogus "out of memory").
 *  - A ring holding one token under erlang:k: its chain has exactly n k
 *    states (one marking per transition, k phases each), which the bound
 *    sum P_t / tokens gives: refused below it, solved at it; on 50,000
 *    transitions under erlang:k=1024 the phase tables (32 bytes a phase)
 *    are refused against the memory budget, the deterministic value kept.
 *  - An Overlap pattern u x v under erlang:k=1024: P^min(u, v) states at
 *    the start, refused before the pattern's graph is built.
 *  - The deterministic value of a 440 x 441 pattern refused against a
 *    memory budget of 1 MiB, naming the pattern. */
#include "graphutil.h"
#include "solvers/laws.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static stp_law *law_of(const char *spec) {
  stp_law *law = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_law_parse(spec, NULL, &law, &err), STP_OK, "%s: %s", spec, err.message);
  return law;
}

/* stp_graph_analyze under spec, without the exponential value. */
static void analyze(const stp_graph *g, const char *spec, uint64_t max_states,
                    uint64_t max_memory, stp_graph_result *r) {
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.exponential = 0;
  o.max_states = max_states;
  o.control.max_memory = max_memory;
  stp_law *law = law_of(spec);
  o.law = law;
  stp_error err = {0};
  cr_assert_eq(stp_graph_analyze(g, &o, r, &err), STP_OK, "%s", err.message);
  cr_assert(r->law_asked);
  stp_law_free(law);
}

static void assert_contains(const char *text, const char *part) {
  cr_assert(text && strstr(text, part), "\"%s\" lacks \"%s\"", text ? text : "(null)", part);
}

/* A path t0 -> ... -> t(n-1) with times 1, 2, 3, 1, 2, 3, ... */
static stp_graph *path(size_t n, double *sum) {
  stp_graph *g = tg_new();
  *sum = 0;
  for (size_t i = 0; i < n; i++) {
    tg_add(g, NULL, (double)(1 + i % 3), NULL);
    *sum += (double)(1 + i % 3);
    if (i)
      tg_place(g, i - 1, i, 0);
  }
  return g;
}

/* A ring of n transitions whose closing place holds one token. */
static stp_graph *ring(size_t n, double *sum) {
  stp_graph *g = tg_new();
  *sum = 0;
  for (size_t i = 0; i < n; i++) {
    tg_add(g, NULL, (double)(1 + i % 3), NULL);
    *sum += (double)(1 + i % 3);
  }
  for (size_t i = 0; i < n; i++)
    tg_place(g, i, (i + 1) % n, i + 1 == n);
  return g;
}

/* In a child limited to 1 GiB of address space (not under ASan, whose
 * shadow memory needs far more): the makespan of a path is the sum of its
 * means under any law, over 2 n + 1 states (every prefix, the running
 * task in one of its two phases, and the end). */
Test(budgets, a_path_dag_under_erlang_2_fits_in_a_small_address_space) {
  size_t n = 20000;
  double sum;
  stp_graph *g = path(n, &sum);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    struct rlimit lim = {.rlim_cur = (rlim_t)1 << 30, .rlim_max = RLIM_INFINITY};
    if (!UNDER_ASAN && setrlimit(RLIMIT_AS, &lim) != 0)
      _exit(10);
    stp_graph_options o;
    stp_graph_options_init(&o);
    o.exponential = 0;
    stp_law *law = NULL;
    stp_error err = {0};
    if (stp_law_parse("erlang:k=2", NULL, &law, &err) != STP_OK)
      _exit(11);
    o.law = law;
    stp_graph_result r;
    if (stp_graph_analyze(g, &o, &r, &err) != STP_OK) {
      fprintf(stderr, "%s\n", err.message);
      _exit(12);
    }
    int ok = r.law_computed && r.law_value == sum && r.law_states == 2 * n + 1;
    if (!ok)
      fprintf(stderr, "computed %d, %.17g (want %.17g), %llu states: %s\n", r.law_computed,
              r.law_value, sum, (unsigned long long)r.law_states, r.law_reason);
    _exit(ok ? 0 : 13);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  stp_graph_free(g);
}

/* The chain of a ring holding one token: the token's transition in each of
 * its k phases, n k states, which the bound sum P_t / tokens attains. */
Test(budgets, the_bound_of_a_ring_is_its_state_count) {
  double sum;
  stp_graph *g = ring(5, &sum);
  stp_graph_result r;
  analyze(g, "erlang:k=3", 14, 0, &r);
  cr_assert_not(r.law_computed);
  assert_contains(r.law_reason, "needs at least 15 states (the phases of every transition, at "
                                "most as many enabled at once as the component holds tokens), "
                                "above the limit of 14");
  stp_graph_result_free(&r);
  analyze(g, "erlang:k=3", 15, 0, &r);
  cr_assert(r.law_computed, "%s", r.law_reason);
  cr_assert_eq(r.law_states, 15);
  assert_close(r.law_value, 1 / sum, TOL_SOLVE); /* a renewal process */
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

Test(budgets, a_large_ring_under_erlang_1024_is_refused_before_its_tables) {
  double sum;
  stp_graph *g = ring(50000, &sum);
  stp_graph_result r;
  analyze(g, "erlang:k=1024", 2000000, (uint64_t)100 << 20, &r);
  cr_assert_not(r.law_computed);
  cr_assert_eq(r.det_throughput, 1 / sum); /* kept */
  assert_contains(r.law_reason, "the phase-type chain needs at least 51200000 states");
  stp_graph_result_free(&r);
  analyze(g, "erlang:k=1024", 100000000, (uint64_t)100 << 20, &r);
  cr_assert_not(r.law_computed);
  cr_assert_eq(r.det_throughput, 1 / sum);
  assert_contains(r.law_reason, "the phase-type chain's tables need 1.53 GiB (51200000 phases");
  stp_graph_result_free(&r);
  stp_graph_free(g);
}

static stp_mapping *two_teams(size_t u, size_t v) {
  trng rng = {34};
  size_t teams[2] = {u, v};
  return tgen_mapping_teams(&rng, teams, 2, true);
}

Test(budgets, an_overlap_pattern_under_erlang_1024_is_refused_at_the_start) {
  stp_mapping *m = two_teams(99, 101);
  stp_options o;
  stp_options_init(&o);
  stp_law *law = law_of("erlang:k=1024");
  o.law = law;
  stp_result *r;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_OK, "%s", err.message);
  cr_assert(r->exact_law.asked && !r->exact_law.available);
  assert_contains(r->exact_law.reason, "the phase-type chain needs more than 2^64 states (the "
                                       "phases of the transitions enabled at the start)");
  cr_assert(r->det_throughput > 0); /* kept */
  stp_result_free(r);
  stp_law_free(law);
  stp_mapping_free(m);
}

Test(budgets, a_pattern_beyond_the_budget_is_refused_before_its_graph) {
  stp_mapping *m = two_teams(440, 441);
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_NONE;
  o.control.max_memory = 1 << 20;
  stp_result *r = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_ELIMIT);
  cr_assert_null(r);
  assert_contains(err.message, "the transfer pattern after stage \"T1\" (440 x 441 "
                               "transitions) needs about 0.0307 GiB for its deterministic "
                               "throughput, above the memory budget of 0.000977 GiB");
  o.control.max_memory = (uint64_t)64 << 20; /* 194,040 x 170 bytes fit */
  cr_assert_eq(stp_evaluate(m, STP_MODEL_OVERLAP, &o, &r, &err), STP_OK, "%s", err.message);
  stp_result_free(r);
  stp_mapping_free(m);
}
