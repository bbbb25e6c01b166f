/* test_latency.c: the deterministic latency over the lcm paths (latency.h)
 * against brute force over every path of random mappings, against a plain
 * Viterbi over the team members where the team sizes are coprime (R up to
 * beyond 2^64), against hand-computed closed forms, and the bounds given
 * when the program is beyond its cap. */
#include "models/pipeline/latency.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* Path j's latency straight from the mapping's times. */
static double path_latency(const stp_mapping *m, uint64_t j) {
  double sum = 0;
  for (size_t i = 0; i < m->nstages; i++) {
    size_t p = stp__team_member(m, i, (size_t)(j % stp__team_size(m, i)));
    sum += stp__comp_time(m, p);
    if (i + 1 < m->nstages)
      sum += stp__comm_time(m, p, stp__team_member(m, i + 1, (size_t)(j % stp__team_size(m, i + 1))));
  }
  return sum;
}

static stp_latency latency(const stp_mapping *m, uint64_t cap) {
  stp_latency l;
  stp_error err = {0};
  cr_assert_eq(stp__mapping_latency(m, cap, &l, &err), STP_OK, "%s", err.message);
  return l;
}

Test(latency, max_and_mean_equal_brute_force_over_every_path) {
  trng rng = {.s = 31};
  static const size_t choices[] = {1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15};
  for (int k = 0; k < 400; k++) {
    size_t n = trng_int(&rng, 1, 6), teams[6];
    uint64_t R;
    do { /* draw again until the paths can be enumerated */
      R = 1;
      for (size_t i = 0; i < n; i++) {
        teams[i] = choices[trng_int(&rng, 0, sizeof choices / sizeof *choices - 1)];
        stp__lcm_u64(R, teams[i], &R);
      }
    } while (R > 20000);
    stp_mapping *m = tgen_mapping_teams(&rng, teams, n, k % 3 == 0);
    double mx = -INFINITY, sum = 0;
    for (uint64_t j = 0; j < R; j++) {
      double v = path_latency(m, j);
      mx = fmax(mx, v);
      sum += v;
    }
    stp_latency l = latency(m, 0);
    cr_assert(l.max_exact);
    cr_assert_eq(l.paths, R);
    assert_close(l.max, mx, TOL_EXACT);
    assert_close(l.mean, sum / (double)R, TOL_EXACT);
    cr_assert(l.has_argmax && l.argmax < R, "argmax %llu of %llu", (unsigned long long)l.argmax,
              (unsigned long long)R);
    assert_close(path_latency(m, l.argmax), mx, TOL_EXACT);
    cr_assert(l.max_lower == l.max && l.max_upper == l.max);
    stp_mapping_free(m);
  }
}

/* Coprime team sizes: every tuple of members is a path (Chinese remainder
 * theorem), so the maximum is a Viterbi over the members of each team. */
static double viterbi(const stp_mapping *m) {
  double best[64], next[64];
  for (size_t a = 0; a < stp__team_size(m, 0); a++)
    best[a] = stp__comp_time(m, stp__team_member(m, 0, a));
  for (size_t i = 0; i + 1 < m->nstages; i++) {
    for (size_t b = 0; b < stp__team_size(m, i + 1); b++) {
      size_t q = stp__team_member(m, i + 1, b);
      next[b] = -INFINITY;
      for (size_t a = 0; a < stp__team_size(m, i); a++)
        next[b] = fmax(next[b], best[a] + stp__comm_time(m, stp__team_member(m, i, a), q));
      next[b] += stp__comp_time(m, q);
    }
    memcpy(best, next, sizeof next);
  }
  double mx = -INFINITY;
  for (size_t b = 0; b < stp__team_size(m, m->nstages - 1); b++)
    mx = fmax(mx, best[b]);
  return mx;
}

Test(latency, coprime_teams_beyond_enumeration_equal_a_viterbi) {
  static const size_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59};
  trng rng = {.s = 32};
  for (size_t n = 10; n <= 17; n++) {
    size_t teams[17];
    for (size_t i = 0; i < n; i++) /* the first n primes, shuffled */
      teams[i] = primes[i];
    for (size_t i = n - 1; i > 0; i--) {
      size_t r = trng_int(&rng, 0, i), tmp = teams[i];
      teams[i] = teams[r];
      teams[r] = tmp;
    }
    stp_mapping *m = tgen_mapping_teams(&rng, teams, n, false);
    stp_latency l = latency(m, 0);
    cr_assert(l.max_exact);
    assert_close(l.max, viterbi(m), TOL_EXACT);
    if (n >= 16) { /* 2 * 3 * ... * 53 > 2^64 */
      cr_assert_eq(l.paths, 0);
      cr_assert(!l.has_argmax);
    } else {
      cr_assert(l.paths > 0 && l.has_argmax && l.argmax < l.paths);
      assert_close(path_latency(m, l.argmax), l.max, TOL_EXACT);
    }
    /* the cells are the sizes of the separators' products, not R */
    cr_assert(l.cells < 20000, "%llu cells", (unsigned long long)l.cells);
    stp_mapping_free(m);
  }
}

Test(latency, hand_computed_two_stage_mapping) {
  /* T1 (work 12) on P0 (speed 2), P1 (speed 3): 6 and 4; T2 (work 6) on
   * P2 (speed 1), P3 (speed 2), P4 (speed 3): 6, 3, 2; output 10 over
   * bandwidth 5 (2), P1 -> P3 over 1 (10).  R = 6, path j: P(j mod 2),
   * P(2 + j mod 3): 6+2+6, 4+10+3, 6+2+2, 4+2+6, 6+2+3, 4+2+2. */
  stp_mapping *m = load_json(
      "{\"stages\": [{\"name\": \"T1\", \"work\": 12, \"output\": 10},"
      " {\"name\": \"T2\", \"work\": 6, \"output\": 1}],"
      " \"processors\": [{\"name\": \"P0\", \"speed\": 2}, {\"name\": \"P1\", \"speed\": 3},"
      " {\"name\": \"P2\", \"speed\": 1}, {\"name\": \"P3\", \"speed\": 2},"
      " {\"name\": \"P4\", \"speed\": 3}], \"bandwidth\": 5,"
      " \"links\": [{\"from\": \"P1\", \"to\": \"P3\", \"bandwidth\": 1}],"
      " \"mapping\": [[\"P0\", \"P1\"], [\"P2\", \"P3\", \"P4\"]]}");
  stp_latency l = latency(m, 0);
  assert_close(l.max, 17, TOL_EXACT);
  assert_close(l.mean, (14.0 + 17 + 10 + 12 + 11 + 8) / 6, TOL_EXACT);
  cr_assert_eq(l.argmax, 1);
  cr_assert_eq(l.paths, 6);
  stp_mapping_free(m);
}

Test(latency, one_stage_is_the_slowest_member) {
  size_t teams[1] = {7};
  trng rng = {.s = 33};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 1, true);
  stp_latency l = latency(m, 0);
  double mx = 0, sum = 0;
  for (size_t a = 0; a < 7; a++) {
    double c = stp__comp_time(m, stp__team_member(m, 0, a));
    mx = fmax(mx, c);
    sum += c;
  }
  assert_close(l.max, mx, TOL_EXACT);
  assert_close(l.mean, sum / 7, TOL_EXACT);
  stp_mapping_free(m);
}

Test(latency, beyond_the_cap_gives_bounds_around_the_maximum) {
  trng rng = {.s = 34};
  size_t teams[] = {6, 10, 15, 4, 9, 10, 14};
  stp_mapping *m = tgen_mapping_teams(&rng, teams, 7, false);
  stp_latency exact = latency(m, 0);
  cr_assert(exact.max_exact && exact.cells > 100);
  stp_latency l = latency(m, 100);
  cr_assert(!l.max_exact && isnan(l.max) && !l.has_argmax);
  assert_close(l.mean, exact.mean, TOL_EXACT);
  cr_assert(l.max_lower <= exact.max && exact.max <= l.max_upper, "%g <= %g <= %g", l.max_lower,
            exact.max, l.max_upper);
  cr_assert(l.max_lower > 0);
  stp_mapping_free(m);
}

Test(latency, tables_refuse_an_empty_pipeline_or_team) {
  stp_latency_tables t;
  stp_error err = {0};
  size_t sizes[2] = {2, 0};
  cr_assert_eq(stp__latency_tables_alloc(0, sizes, &t, &err), STP_EINVAL);
  cr_assert_eq(stp__latency_tables_alloc(2, sizes, &t, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "stage 1"), "%s", err.message);
  stp__latency_tables_free(&t);
  stp__latency_tables_free(NULL);
}

/* An optimiser's candidate: the platform's times in dense tables, the teams
 * as processor lists; filled through the callbacks, the same latency as the
 * mapping of those teams. */
typedef struct cand {
  const stp_mapping *m;
  const size_t *const *team;
} cand;
static double cand_comp(const void *ctx, size_t i, size_t a) {
  const cand *c = ctx;
  return c->m->stages[i].work / c->m->procs[c->team[i][a]].speed;
}
static double cand_comm(const void *ctx, size_t i, size_t a, size_t b) {
  const cand *c = ctx;
  return c->m->stages[i].output / stp__link_bandwidth(c->m, c->team[i][a], c->team[i + 1][b]);
}

Test(latency, a_candidate_filled_by_callbacks_equals_its_mapping) {
  trng rng = {.s = 35};
  for (int k = 0; k < 50; k++) {
    tgen p = {.nstages = trng_int(&rng, 1, 5), .max_team = 7};
    stp_mapping *m = tgen_mapping(&rng, &p);
    size_t sizes[5];
    const size_t *team[5];
    for (size_t i = 0; i < m->nstages; i++) {
      sizes[i] = stp__team_size(m, i);
      team[i] = m->team + m->team_off[i];
    }
    cand c = {m, team};
    stp_latency_tables t;
    stp_error err = {0};
    cr_assert_eq(stp__latency_tables_alloc(m->nstages, sizes, &t, &err), STP_OK, "%s",
                 err.message);
    stp__latency_tables_fill(&t, cand_comp, cand_comm, &c);
    stp_latency a, b = latency(m, 0);
    cr_assert_eq(stp__latency_solve(&t, 0, &a, &err), STP_OK, "%s", err.message);
    cr_assert(a.max == b.max && a.mean == b.mean && a.argmax == b.argmax);
    stp__latency_tables_free(&t);
    stp_mapping_free(m);
  }
}
