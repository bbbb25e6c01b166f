/* test_generate.c: the instance generator (stp_generate), its random
 * streams, and the mapping writer (stp_mapping_to_json / save_file).
 * Expected values come from the published reference outputs of splitmix64
 * and xoshiro256**, from combinatorics (number of compositions, link
 * counts), from the laws' moments with sigma bands, and from reading the
 * written text back with the independent reader. */
#include "base/xoshiro.h"
#include "streamtp_generate.h"
#include "support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- random streams ------------------------------------------------------ */
Test(rng, splitmix64_reference_outputs) {
  /* Vigna's splitmix64.c started from 1234567 */
  const uint64_t want[] = {UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),
                           UINT64_C(9817491932198370423), UINT64_C(4593380528125082431),
                           UINT64_C(16408922859458223821)};
  uint64_t x = 1234567;
  for (size_t k = 0; k < 5; k++)
    cr_assert_eq(stp__splitmix64(&x), want[k], "output %zu", k);
}

Test(rng, xoshiro256starstar_reference_outputs) {
  /* xoshiro256** from the state {1, 2, 3, 4} (reference test vector) */
  const uint64_t want[] = {11520, 0, 1509978240, UINT64_C(1215971899390074240),
                           UINT64_C(1216172134540287360)};
  stp_xoshiro r = {{1, 2, 3, 4}};
  for (size_t k = 0; k < 5; k++)
    cr_assert_eq(stp__xoshiro_next(&r), want[k], "output %zu", k);
}

Test(rng, below_is_uniform_and_in_range) {
  stp_xoshiro r;
  stp__xoshiro_seed(&r, 7, 0);
  size_t count[6] = {0}, n = 60000;
  for (size_t k = 0; k < n; k++) {
    uint64_t x = stp__xoshiro_below(&r, 6);
    cr_assert_lt(x, 6);
    count[x]++;
  }
  double chi2 = 0, e = (double)n / 6;
  for (size_t k = 0; k < 6; k++)
    chi2 += ((double)count[k] - e) * ((double)count[k] - e) / e;
  cr_assert_lt(chi2, 20.5, "chi-square %g with 5 degrees of freedom (p = 0.001: 20.5)", chi2);
}

Test(rng, streams_differ_by_seed_and_index) {
  stp_xoshiro a, b, c;
  stp__xoshiro_seed(&a, 1, 1);
  stp__xoshiro_seed(&b, 1, 2);
  stp__xoshiro_seed(&c, 2, 1);
  uint64_t x = stp__xoshiro_next(&a);
  cr_assert_neq(x, stp__xoshiro_next(&b));
  cr_assert_neq(x, stp__xoshiro_next(&c));
}

/* ---- the generator --------------------------------------------------------- */
static stp_mapping *gen(const stp_generate_params *p, uint64_t index) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_generate(p, index, "g", &m, &err), STP_OK, "%s", err.message);
  return m;
}

static char *text_of(const stp_mapping *m) {
  char *t = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_to_json(m, &t, NULL, &err), STP_OK, "%s", err.message);
  return t;
}

static char *generated_text(const stp_generate_params *p, uint64_t index) {
  stp_mapping *m = gen(p, index);
  char *t = text_of(m);
  stp_mapping_free(m);
  return t;
}

Test(generate, same_seed_same_text_other_seed_other_text) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.seed = 42;
  char *a = generated_text(&p, 3), *b = generated_text(&p, 3);
  cr_assert_str_eq(a, b);
  p.seed = 43;
  char *c = generated_text(&p, 3);
  cr_assert_str_neq(a, c);
  p.seed = 42;
  char *d = generated_text(&p, 4);
  cr_assert_str_neq(a, d);
  free(a);
  free(b);
  free(c);
  free(d);
}

/* Every stage has a team, every processor is in one, and the links are
 * exactly the pairs that carry data: sum over i of R_i R_(i+1) / g_i. */
Test(generate, teams_partition_processors_and_links_are_the_needed_pairs) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 6;
  p.processors = 17;
  for (uint64_t k = 1; k <= 50; k++) {
    stp_mapping *m = gen(&p, k);
    cr_assert_eq(m->nstages, 6);
    cr_assert_eq(m->nprocs, 17);
    size_t total = 0, links = 0;
    for (size_t i = 0; i < m->nstages; i++) {
      cr_assert_geq(stp__team_size(m, i), 1);
      total += stp__team_size(m, i);
      if (i + 1 < m->nstages)
        links += stp__team_size(m, i) * stp__team_size(m, i + 1) /
                 (size_t)stp__gcd_u64(stp__team_size(m, i), stp__team_size(m, i + 1));
    }
    cr_assert_eq(total, 17);
    for (size_t q = 0; q < m->nprocs; q++)
      cr_assert_neq(m->procs[q].stage, STP_NO_STAGE, "processor %zu is unused", q);
    cr_assert_eq(m->nlinks, links);
    cr_assert(m->bandwidth <= 0, "no default bandwidth with heterogeneous links");
    for (size_t i = 0; i + 1 < m->nstages; i++) {
      stp_transfer_shape sh = stp__transfer_shape(m, i);
      for (size_t j = 0; j < sh.g; j++)
        for (size_t a = 0; a < sh.u; a++)
          for (size_t b = 0; b < sh.v; b++) {
            double d = stp__comm_time(m, stp__transfer_sender(m, i, j, sh, a),
                                      stp__transfer_receiver(m, i, j, sh, b));
            cr_assert(d >= 5 * (1 - TOL_EXACT) && d <= 15 * (1 + TOL_EXACT), "d = %g", d);
          }
    }
    stp_mapping_free(m);
  }
}

/* Compositions of 6 into 3 positive parts: C(5, 2) = 10, equally likely. */
Test(generate, team_sizes_are_a_uniform_composition) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 3;
  p.processors = 6;
  size_t count[7][7] = {{0}}, n = 5000;
  for (uint64_t k = 1; k <= n; k++) {
    stp_mapping *m = gen(&p, k);
    count[stp__team_size(m, 0)][stp__team_size(m, 1)]++;
    stp_mapping_free(m);
  }
  double chi2 = 0, e = (double)n / 10;
  size_t cells = 0;
  for (size_t a = 1; a <= 4; a++)
    for (size_t b = 1; a + b <= 5; b++, cells++)
      chi2 += ((double)count[a][b] - e) * ((double)count[a][b] - e) / e;
  cr_assert_eq(cells, 10);
  cr_assert_lt(chi2, 27.88, "chi-square %g with 9 degrees of freedom (p = 0.001: 27.88)", chi2);
}

/* Draw n mappings with the given team-size reading and tally the sizes of
 * the first three teams (each <= 9) as cell[a][b][c]. */
static void tally_teams(stp_generate_teams how, size_t stages, size_t procs, size_t n,
                        size_t cell[10][10][10]) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = stages;
  p.processors = procs;
  p.team_sizes = how;
  for (uint64_t k = 1; k <= n; k++) {
    stp_mapping *m = gen(&p, k);
    size_t r[3] = {0, 0, 0}, used = 0;
    for (size_t i = 0; i < stages; i++) {
      cr_assert_geq(stp__team_size(m, i), 1, "stage %zu has an empty team", i);
      used += stp__team_size(m, i);
      if (i < 3)
        r[i] = stp__team_size(m, i);
    }
    cr_assert_eq(m->nprocs, procs, "every processor of the platform is declared");
    cr_assert_leq(used, procs);
    for (size_t q = 0; q < m->nprocs; q++)
      cr_assert_eq(m->procs[q].stage == STP_NO_STAGE, q >= used, "processor %zu", q);
    cell[r[0]][r[1]][r[2]]++;
    stp_mapping_free(m);
  }
}

/* Chi-square of the tallies against probabilities prob(a, b, c), over the
 * cells where it is positive; every other cell must be empty. */
static double chi_square(size_t cell[10][10][10], size_t n, double (*prob)(size_t, size_t, size_t),
                         size_t *cells) {
  double chi2 = 0, total = 0;
  *cells = 0;
  for (size_t a = 0; a < 10; a++)
    for (size_t b = 0; b < 10; b++)
      for (size_t c = 0; c < 10; c++) {
        double pr = prob(a, b, c), e = pr * (double)n;
        if (pr <= 0) {
          cr_assert_eq(cell[a][b][c], 0, "sizes (%zu, %zu, %zu) cannot be drawn", a, b, c);
          continue;
        }
        chi2 += ((double)cell[a][b][c] - e) * ((double)cell[a][b][c] - e) / e;
        total += pr;
        (*cells)++;
      }
  assert_close(total, 1, TOL_ITER);
  return chi2;
}

/* fit, 2 stages on 4 processors: the 6 vectors (a, b) with a + b <= 4. */
static double fit_2_4(size_t a, size_t b, size_t c) {
  return c == 0 && a >= 1 && b >= 1 && a + b <= 4 ? 1.0 / 6 : 0;
}
Test(generate, fit_team_sizes_are_uniform_among_those_that_fit) {
  static size_t cell[10][10][10];
  size_t n = 6000, cells;
  tally_teams(STP_TEAMS_FIT, 2, 4, n, cell);
  double chi2 = chi_square(cell, n, fit_2_4, &cells);
  cr_assert_eq(cells, 6);
  cr_assert_lt(chi2, 20.52, "chi-square %g with 5 degrees of freedom (p = 0.001: 20.52)", chi2);
}

/* independent, 3 stages on 10 processors: each size uniform in 1..3. */
static double independent_3_10(size_t a, size_t b, size_t c) {
  return a >= 1 && a <= 3 && b >= 1 && b <= 3 && c >= 1 && c <= 3 ? 1.0 / 27 : 0;
}
Test(generate, independent_team_sizes_are_uniform_in_one_to_m_over_n) {
  static size_t cell[10][10][10];
  size_t n = 5400, cells;
  tally_teams(STP_TEAMS_INDEPENDENT, 3, 10, n, cell);
  double chi2 = chi_square(cell, n, independent_3_10, &cells);
  cr_assert_eq(cells, 27);
  cr_assert_lt(chi2, 54.05, "chi-square %g with 26 degrees of freedom (p = 0.001: 54.05)", chi2);
}

/* sequential, 3 stages on 7 processors: a uniform in 1..5, then b uniform in
 * 1..(6 - a), and c = 7 - a - b. */
static double sequential_3_7(size_t a, size_t b, size_t c) {
  return a >= 1 && a <= 5 && b >= 1 && b <= 6 - a && c == 7 - a - b ? 1.0 / 5 / (double)(6 - a)
                                                                      : 0;
}
Test(generate, sequential_team_sizes_follow_the_stage_by_stage_law) {
  static size_t cell[10][10][10];
  size_t n = 7500, cells;
  tally_teams(STP_TEAMS_SEQUENTIAL, 3, 7, n, cell);
  double chi2 = chi_square(cell, n, sequential_3_7, &cells);
  cr_assert_eq(cells, 15);
  cr_assert_lt(chi2, 36.12, "chi-square %g with 14 degrees of freedom (p = 0.001: 36.12)", chi2);
}

/* --comp-per stage: one time per team; --comm-per transfer: one time per
 * pair of stages; both in their ranges, and different across stages. */
Test(generate, per_stage_and_per_transfer_times_are_shared) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 4;
  p.processors = 12;
  p.team_sizes = STP_TEAMS_FIT; /* unused processors get a time too */
  p.comp_per = STP_COMP_PER_STAGE;
  p.comm_per = STP_COMM_PER_TRANSFER;
  for (uint64_t k = 1; k <= 30; k++) {
    stp_mapping *m = gen(&p, k);
    for (size_t i = 0; i < m->nstages; i++) {
      double c = stp__comp_time(m, stp__team_member(m, i, 0));
      cr_assert(c >= 5 * (1 - TOL_EXACT) && c <= 15 * (1 + TOL_EXACT), "c = %g", c);
      for (size_t x = 1; x < stp__team_size(m, i); x++)
        assert_close(stp__comp_time(m, stp__team_member(m, i, x)), c, 0);
      if (i > 0)
        cr_assert_neq(c, stp__comp_time(m, stp__team_member(m, i - 1, 0)));
    }
    for (size_t q = 0; q < m->nprocs; q++)
      cr_assert(m->procs[q].speed >= 1.0 / 15 * (1 - TOL_EXACT) &&
                m->procs[q].speed <= 1.0 / 5 * (1 + TOL_EXACT), "speed %g", m->procs[q].speed);
    double prev = 0;
    for (size_t i = 0; i + 1 < m->nstages; i++) {
      stp_transfer_shape sh = stp__transfer_shape(m, i);
      double d0 = stp__comm_time(m, stp__transfer_sender(m, i, 0, sh, 0),
                                 stp__transfer_receiver(m, i, 0, sh, 0));
      cr_assert(d0 >= 5 * (1 - TOL_EXACT) && d0 <= 15 * (1 + TOL_EXACT), "d = %g", d0);
      cr_assert_neq(d0, prev);
      for (size_t j = 0; j < sh.g; j++)
        for (size_t a = 0; a < sh.u; a++)
          for (size_t b = 0; b < sh.v; b++)
            assert_close(stp__comm_time(m, stp__transfer_sender(m, i, j, sh, a),
                                        stp__transfer_receiver(m, i, j, sh, b)),
                         d0, 0);
      prev = d0;
    }
    stp_mapping_free(m);
  }
}

/* --comm-per processor: d_pq = max(a_p, a_q) for per-processor times a.
 * Then a_p <= lo_p = min over p's links of d <= d_pq for each link p -> q,
 * so max(lo_p, lo_q) = d_pq on every link: checked without knowing a. */
Test(generate, per_processor_link_times_are_the_slower_end) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 5;
  p.processors = 14;
  p.comm_per = STP_COMM_PER_PROCESSOR;
  for (uint64_t k = 1; k <= 30; k++) {
    stp_mapping *m = gen(&p, k);
    double *lo = malloc(m->nprocs * sizeof *lo);
    for (size_t q = 0; q < m->nprocs; q++)
      lo[q] = INFINITY;
    for (size_t l = 0; l < m->nlinks; l++) {
      double d = stp__comm_time(m, m->links[l].from, m->links[l].to);
      cr_assert(d >= 5 * (1 - TOL_EXACT) && d <= 15 * (1 + TOL_EXACT), "d = %g", d);
      lo[m->links[l].from] = fmin(lo[m->links[l].from], d);
      lo[m->links[l].to] = fmin(lo[m->links[l].to], d);
    }
    for (size_t l = 0; l < m->nlinks; l++)
      assert_close(stp__comm_time(m, m->links[l].from, m->links[l].to),
                   fmax(lo[m->links[l].from], lo[m->links[l].to]), 0);
    free(lo);
    stp_mapping_free(m);
  }
}

/* Mean of the computation times (uniform times) or of the speeds (uniform
 * rates) against the law's mean, within 4 standard errors. */
static void check_comp_mean(stp_generate_draw how, double lo, double hi, bool of_speed,
                            double mean, double sd) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.draw = how;
  p.comp_min = lo;
  p.comp_max = hi;
  double sum = 0;
  size_t n = 0;
  for (uint64_t k = 1; k <= 200; k++) {
    stp_mapping *m = gen(&p, k);
    for (size_t q = 0; q < m->nprocs; q++, n++) {
      double c = stp__comp_time(m, q);
      cr_assert(c >= lo * (1 - TOL_EXACT) && c <= hi * (1 + TOL_EXACT), "c = %g", c);
      sum += of_speed ? m->procs[q].speed : c;
    }
    stp_mapping_free(m);
  }
  double se = sd / sqrt((double)n);
  cr_assert_lt(fabs(sum / (double)n - mean), 4 * se, "mean %g, expected %g +- %g", sum / (double)n,
               mean, 4 * se);
}

Test(generate, uniform_times_have_the_uniform_mean) {
  check_comp_mean(STP_DRAW_TIMES, 10, 1000, false, 505, 990 / sqrt(12));
}

Test(generate, uniform_rates_have_the_uniform_mean) {
  double a = 1.0 / 15, b = 1.0 / 5;
  check_comp_mean(STP_DRAW_RATES, 5, 15, true, (a + b) / 2, (b - a) / sqrt(12));
}

Test(generate, integer_times_are_integers_with_the_right_mean) {
  check_comp_mean(STP_DRAW_INTEGER_TIMES, 5, 15, false, 10, sqrt((11.0 * 11 - 1) / 12));
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.draw = STP_DRAW_INTEGER_TIMES;
  stp_mapping *m = gen(&p, 1);
  for (size_t q = 0; q < m->nprocs; q++) {
    double c = stp__comp_time(m, q);
    assert_close(c, round(c), TOL_EXACT);
  }
  stp_mapping_free(m);
}

Test(generate, one_comm_value_gives_a_default_bandwidth_and_no_links) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  size_t teams[] = {3, 5};
  p.stages = 2;
  p.processors = 0;
  p.teams = teams;
  p.comp_min = p.comp_max = 0.001;
  p.comm_min = p.comm_max = 7;
  stp_mapping *m = gen(&p, 1);
  cr_assert_eq(m->nlinks, 0);
  cr_assert_eq(stp__team_size(m, 0), 3);
  cr_assert_eq(stp__team_size(m, 1), 5);
  for (size_t a = 0; a < 3; a++)
    for (size_t b = 0; b < 5; b++)
      assert_close(stp__comm_time(m, stp__team_member(m, 0, a), stp__team_member(m, 1, b)), 7,
                   TOL_EXACT);
  for (size_t q = 0; q < m->nprocs; q++)
    assert_close(stp__comp_time(m, q), 0.001, TOL_EXACT);
  stp_mapping_free(m);
}

static void expect_error(const stp_generate_params *p, stp_status want, const char *part) {
  stp_mapping *m = (stp_mapping *)1;
  stp_error err = {0};
  cr_assert_eq(stp_generate(p, 1, "g", &m, &err), want, "%s", err.message);
  cr_assert_null(m);
  cr_assert(strstr(err.message, part), "message \"%s\" lacks \"%s\"", err.message, part);
}

Test(generate, bad_parameters_are_refused_with_a_reason) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 0;
  expect_error(&p, STP_EINVAL, "at least one stage");
  stp_generate_params_init(&p);
  p.processors = 9;
  expect_error(&p, STP_EINVAL, "9 processors cannot serve 10 stages");
  stp_generate_params_init(&p);
  p.comm_min = 20;
  expect_error(&p, STP_EINVAL, "communication times must satisfy");
  stp_generate_params_init(&p);
  p.comp_min = 0;
  expect_error(&p, STP_EINVAL, "computation times must satisfy");
  stp_generate_params_init(&p);
  p.draw = STP_DRAW_INTEGER_TIMES;
  p.comp_min = 5.2;
  p.comp_max = 5.8;
  expect_error(&p, STP_EINVAL, "no integer in [5.2, 5.8]");
  stp_generate_params_init(&p);
  size_t teams[] = {2, 0};
  p.stages = 2;
  p.teams = teams;
  p.processors = 0;
  expect_error(&p, STP_EINVAL, "the team of stage 2 is empty");
  teams[1] = 3;
  p.processors = 4;
  expect_error(&p, STP_EINVAL, "the teams hold 5 processors but 4");
  stp_generate_params_init(&p);
  p.processors = STP_GENERATE_MAX_PROCESSORS + 1;
  expect_error(&p, STP_ELIMIT, "the limit is");
  stp_generate_params_init(&p);
  p.stages = 2;
  p.teams = teams;
  p.processors = 0;
  p.team_sizes = STP_TEAMS_FIT;
  expect_error(&p, STP_EINVAL, "team sizes are fixed: they cannot also be drawn");
  stp_generate_params_init(&p);
  p.team_sizes = (stp_generate_teams)7;
  expect_error(&p, STP_EINVAL, "unknown way of drawing team sizes 7");
  stp_generate_params_init(&p);
  p.comp_per = (stp_generate_comp)2;
  expect_error(&p, STP_EINVAL, "unknown scope of computation times 2");
  stp_generate_params_init(&p);
  p.comm_per = (stp_generate_comm)3;
  expect_error(&p, STP_EINVAL, "unknown scope of communication times 3");
  stp_generate_params_init(&p);
  p.comm_per = STP_COMM_PER_PROCESSOR; /* with a single comm value: one default bandwidth */
  p.comm_min = p.comm_max = 4;
  stp_mapping *m = gen(&p, 1);
  cr_assert_eq(m->nlinks, 0);
  assert_close(m->bandwidth, 0.25, TOL_EXACT);
  stp_mapping_free(m);
}

/* ---- the writer ------------------------------------------------------------ */
static void assert_same_mapping(const stp_mapping *a, const stp_mapping *b) {
  cr_assert_str_eq(a->name, b->name);
  cr_assert_eq(a->model, b->model);
  cr_assert_eq(a->nstages, b->nstages);
  cr_assert_eq(a->nprocs, b->nprocs);
  cr_assert_eq(a->nlinks, b->nlinks);
  assert_close(a->bandwidth, b->bandwidth, 0);
  for (size_t i = 0; i < a->nstages; i++) {
    cr_assert_str_eq(a->stages[i].name, b->stages[i].name);
    assert_close(a->stages[i].work, b->stages[i].work, 0);
    if (i + 1 < a->nstages)
      assert_close(a->stages[i].output, b->stages[i].output, 0);
    cr_assert_eq(stp__team_size(a, i), stp__team_size(b, i));
    for (size_t k = 0; k < stp__team_size(a, i); k++)
      cr_assert_eq(stp__team_member(a, i, k), stp__team_member(b, i, k));
  }
  for (size_t q = 0; q < a->nprocs; q++) {
    cr_assert_str_eq(a->procs[q].name, b->procs[q].name);
    assert_close(a->procs[q].speed, b->procs[q].speed, 0); /* exact round trip */
  }
  for (size_t l = 0; l < a->nlinks; l++) {
    cr_assert_eq(a->links[l].from, b->links[l].from);
    cr_assert_eq(a->links[l].to, b->links[l].to);
    assert_close(a->links[l].bandwidth, b->links[l].bandwidth, 0);
  }
}

static stp_mapping *reread(const stp_mapping *m) {
  char *t = text_of(m);
  stp_mapping *back = load_json(t);
  free(t);
  return back;
}

Test(writer, random_mappings_read_back_identical) {
  trng r = {2024};
  for (int k = 0; k < 40; k++) {
    tgen p = {.nstages = 1 + (size_t)(k % 6), .max_team = 5, .homogeneous_links = k % 3 == 0,
              .model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP};
    stp_mapping *m = tgen_mapping(&r, &p);
    stp_mapping *back = reread(m);
    assert_same_mapping(m, back);
    stp_mapping_free(m);
    stp_mapping_free(back);
  }
}

Test(writer, generated_mappings_read_back_identical) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.model = STP_MODEL_STRICT;
  for (uint64_t k = 1; k <= 10; k++) {
    stp_mapping *m = gen(&p, k);
    stp_mapping *back = reread(m);
    assert_same_mapping(m, back);
    stp_mapping_free(m);
    stp_mapping_free(back);
  }
}

/* Mappings that leave processors unused (they are still declared). */
Test(writer, generated_mappings_with_unused_processors_read_back_identical) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 3;
  p.processors = 9;
  p.team_sizes = STP_TEAMS_FIT;
  p.comm_per = STP_COMM_PER_TRANSFER;
  size_t unused = 0;
  for (uint64_t k = 1; k <= 10; k++) {
    stp_mapping *m = gen(&p, k);
    for (size_t q = 0; q < m->nprocs; q++)
      unused += m->procs[q].stage == STP_NO_STAGE;
    stp_mapping *back = reread(m);
    assert_same_mapping(m, back);
    stp_mapping_free(m);
    stp_mapping_free(back);
  }
  cr_assert_gt(unused, 0, "no mapping left a processor unused");
}

Test(writer, names_with_quotes_and_unicode_survive) {
  stp_mapping *m = load_json(
      "{\"name\": \"a \\\"quoted\\\" name\\\\\", \"stages\": [{\"name\": \"\xc3\xa9tape\", "
      "\"work\": 3}], \"processors\": [{\"name\": \"P,1\", \"speed\": 0.1}, "
      "{\"name\": \"idle\", \"speed\": 2}], \"mapping\": [[\"P,1\"]]}");
  stp_mapping *back = reread(m);
  assert_same_mapping(m, back);
  cr_assert_str_eq(back->name, "a \"quoted\" name\\");
  stp_mapping_free(m);
  stp_mapping_free(back);
}

/* The written example evaluates to the same throughput as the original. */
Test(writer, example_a_round_trip_keeps_the_throughput) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(STP_SOURCE_DIR "/examples/example-a.json", &m, &err), STP_OK,
               "%s", err.message);
  stp_mapping *back = reread(m);
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_NONE;
  for (int model = 0; model < 2; model++) {
    stp_result *x, *y;
    cr_assert_eq(stp_evaluate(m, (stp_model)model, &o, &x, &err), STP_OK, "%s", err.message);
    cr_assert_eq(stp_evaluate(back, (stp_model)model, &o, &y, &err), STP_OK, "%s", err.message);
    assert_close(x->det_throughput, y->det_throughput, TOL_EXACT);
    assert_close(x->max_cycle_time, y->max_cycle_time, TOL_EXACT);
    stp_result_free(x);
    stp_result_free(y);
  }
  stp_mapping_free(m);
  stp_mapping_free(back);
}

Test(writer, save_file_writes_and_reports_bad_paths) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  stp_mapping *m = gen(&p, 1);
  char dir[] = "/tmp/stp_writer_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/m.json", dir);
  stp_error err = {0};
  cr_assert_eq(stp_mapping_save_file(m, path, &err), STP_OK, "%s", err.message);
  stp_mapping *back = NULL;
  cr_assert_eq(stp_mapping_load_file(path, &back, &err), STP_OK, "%s", err.message);
  assert_same_mapping(m, back);
  snprintf(path, sizeof path, "%s/missing/m.json", dir);
  cr_assert_eq(stp_mapping_save_file(m, path, &err), STP_EIO);
  cr_assert(strstr(err.message, "missing/m.json: cannot create"), "%s", err.message);
  snprintf(path, sizeof path, "%s/m.json", dir);
  remove(path);
  rmdir(dir);
  stp_mapping_free(m);
  stp_mapping_free(back);
}
