/* test_build.c: stp_mapping_build (include/streamtp_build.h).  A mapping
 * built from arrays must be the mapping its file describes (same times,
 * same results), and every rule of the file format must reject the same
 * mistake with the same message (the checks are shared, validate.c). */
#include "streamtp_build.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

/* Example A of the README, as arrays (examples/example-a.json). */
static stp_build_stage ex_stages[] = {
    {"T1", 710, 20}, {"T2", 290, 378}, {"T3", 300, 100}, {"T4", 200, 0}};
static stp_build_processor ex_procs[] = {{"P0", 4}, {"P1", 10}, {"P2", 3}, {"P3", 2},
                                         {"P4", 3}, {"P5", 4}, {"P6", 2}};
static stp_build_link ex_links[] = {{2, 3, 2}};
static size_t ex_sizes[] = {1, 2, 3, 1};
static size_t ex_teams[] = {0, 1, 2, 3, 4, 5, 6};

static stp_build_spec example_a(void) {
  stp_build_spec s;
  stp_build_spec_init(&s);
  s.name = "example-a";
  s.nstages = 4;
  s.stages = ex_stages;
  s.nprocessors = 7;
  s.processors = ex_procs;
  s.bandwidth = 1;
  s.nlinks = 1;
  s.links = ex_links;
  s.team_sizes = ex_sizes;
  s.teams = ex_teams;
  return s;
}

static stp_mapping *build_ok(const stp_build_spec *s) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  stp_status st = stp_mapping_build(s, &m, &err);
  cr_assert_eq(st, STP_OK, "build failed: %s", err.message);
  return m;
}

/* Every computation and transfer time of a and b agree exactly. */
static void assert_same_times(const stp_mapping *a, const stp_mapping *b) {
  cr_assert_eq(a->nstages, b->nstages);
  cr_assert_eq(a->nprocs, b->nprocs);
  for (size_t i = 0; i < a->nstages; i++) {
    cr_assert_str_eq(a->stages[i].name, b->stages[i].name);
    cr_assert_eq(stp__team_size(a, i), stp__team_size(b, i));
    for (size_t k = 0; k < stp__team_size(a, i); k++) {
      size_t p = stp__team_member(a, i, k);
      cr_assert_eq(p, stp__team_member(b, i, k));
      cr_assert_eq(stp__comp_time(a, p), stp__comp_time(b, p));
      if (i + 1 < a->nstages)
        for (size_t l = 0; l < stp__team_size(a, i + 1); l++) {
          size_t q = stp__team_member(a, i + 1, l);
          double da = stp__comm_time(a, p, q), db = stp__comm_time(b, p, q);
          cr_assert(da == db || (isnan(da) && isnan(db)), "d(%zu, %zu): %g vs %g", p, q, da, db);
        }
    }
  }
}

static void assert_same_results(const stp_mapping *a, const stp_mapping *b, stp_model model) {
  stp_result *ra, *rb;
  stp_error err = {0};
  cr_assert_eq(stp_evaluate(a, model, NULL, &ra, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp_evaluate(b, model, NULL, &rb, &err), STP_OK, "%s", err.message);
  assert_close(ra->det_throughput, rb->det_throughput, TOL_EXACT);
  cr_assert_eq(ra->exp_available, rb->exp_available);
  if (ra->exp_available)
    assert_close(ra->exp_throughput, rb->exp_throughput, TOL_EXACT);
  stp_result_free(ra);
  stp_result_free(rb);
}

Test(build, example_a_is_the_bundled_file) {
  stp_build_spec s = example_a();
  stp_mapping *built = build_ok(&s), *file = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(STP_SOURCE_DIR "/examples/example-a.json", &file, &err),
               STP_OK, "%s", err.message);
  cr_assert_str_eq(stp_mapping_name(built), "example-a");
  assert_same_times(built, file);
  assert_same_results(built, file, STP_MODEL_OVERLAP);
  assert_same_results(built, file, STP_MODEL_STRICT);
  /* The README's numbers: period 189 under Overlap. */
  stp_result *r;
  cr_assert_eq(stp_evaluate(built, STP_MODEL_OVERLAP, NULL, &r, &err), STP_OK);
  assert_close(r->det_period, 189.0, TOL_EXACT);
  stp_result_free(r);
  stp_mapping_free(built);
  stp_mapping_free(file);
}

Test(build, defaults_and_copies) {
  stp_build_stage st[] = {{NULL, 10, 4}, {NULL, 6, 0}};
  stp_build_processor pr[] = {{NULL, 2}, {NULL, 3}};
  size_t sizes[] = {1, 1}, teams[] = {1, 0};
  stp_build_spec s;
  stp_build_spec_init(&s);
  s.nstages = 2, s.stages = st, s.nprocessors = 2, s.processors = pr, s.bandwidth = 8;
  s.team_sizes = sizes, s.teams = teams, s.model = STP_MODEL_STRICT;
  stp_mapping *m = build_ok(&s);
  st[0].work = -1; /* the mapping holds copies */
  cr_assert_str_eq(stp_mapping_name(m), "mapping");
  cr_assert_eq(stp_mapping_model(m), STP_MODEL_STRICT);
  cr_assert_str_eq(stp_mapping_stage_name(m, 1), "T2");
  cr_assert_str_eq(stp_mapping_processor_name(m, 0), "P0");
  assert_close(stp__comp_time(m, 1), 10.0 / 3.0, TOL_EXACT); /* P1 runs T1: 10 / 3 */
  assert_close(stp__comp_time(m, 0), 3.0, TOL_EXACT);        /* P0 runs T2: 6 / 2 */
  assert_close(stp__comm_time(m, 1, 0), 0.5, TOL_EXACT);
  stp_mapping_free(m);
}

/* Random mappings, taken apart into arrays and built again: same times,
 * same throughputs (both models). */
Test(build, random_mappings_round_trip) {
  trng r = {.s = 2024};
  for (int n = 0; n < 20; n++) {
    tgen g = {.nstages = 2 + n % 4, .max_team = 3, .homogeneous_links = n % 2};
    stp_mapping *a = tgen_mapping(&r, &g);
    stp_build_stage st[8];
    stp_build_processor pr[64];
    stp_build_link ln[512];
    size_t sizes[8], teams[64];
    for (size_t i = 0; i < a->nstages; i++) {
      st[i] = (stp_build_stage){a->stages[i].name, a->stages[i].work, a->stages[i].output};
      sizes[i] = stp__team_size(a, i);
    }
    for (size_t p = 0; p < a->nprocs; p++)
      pr[p] = (stp_build_processor){a->procs[p].name, a->procs[p].speed};
    for (size_t k = 0; k < a->nlinks; k++)
      ln[k] = (stp_build_link){a->links[k].from, a->links[k].to, a->links[k].bandwidth};
    memcpy(teams, a->team, a->team_off[a->nstages] * sizeof *teams);
    stp_build_spec s;
    stp_build_spec_init(&s);
    s.nstages = a->nstages, s.stages = st, s.nprocessors = a->nprocs, s.processors = pr;
    s.bandwidth = a->bandwidth, s.nlinks = a->nlinks, s.links = ln;
    s.team_sizes = sizes, s.teams = teams;
    stp_mapping *b = build_ok(&s);
    assert_same_times(a, b);
    assert_same_results(a, b, STP_MODEL_OVERLAP);
    if (a->nstages <= 3)
      assert_same_results(a, b, STP_MODEL_STRICT);
    stp_mapping_free(a);
    stp_mapping_free(b);
  }
}

/* ---- one mistake, two ways in, one message ---------------------------------
 * The base: T1 (work 10, output 4) on A, T2 (work 6) on B, bandwidth 8. */
#define J_STAGES "\"stages\":[{\"name\":\"T1\",\"work\":10,\"output\":4},{\"name\":\"T2\",\"work\":6}]"
#define J_PROCS "\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\",\"speed\":3}]"
#define J_TEAMS "\"mapping\":[[\"A\"],[\"B\"]]"

typedef struct base {
  stp_build_stage st[2];
  stp_build_processor pr[3];
  stp_build_link ln[2];
  size_t sizes[2], teams[3];
  stp_build_spec s;
} base;

static void base_init(base *b) {
  *b = (base){.st = {{"T1", 10, 4}, {"T2", 6, 0}},
              .pr = {{"A", 2}, {"B", 3}, {"C", 1}},
              .ln = {{0, 1, 2}, {1, 0, 2}},
              .sizes = {1, 1},
              .teams = {0, 1, 2}};
  stp_build_spec_init(&b->s);
  b->s.nstages = 2, b->s.stages = b->st, b->s.nprocessors = 2, b->s.processors = b->pr;
  b->s.bandwidth = 8, b->s.team_sizes = b->sizes, b->s.teams = b->teams;
}

typedef struct twin {
  const char *json;         /* the mistake in a file */
  void (*mutate)(base *b);  /* the same mistake in arrays */
  const char *want;         /* the message, after the location */
} twin;

static void neg_work(base *b) { b->st[1].work = -1; }
static void zero_output(base *b) { b->st[0].output = 0; }
static void zero_speed(base *b) { b->pr[0].speed = 0; }
static void dup_stage(base *b) { b->st[1].name = "T1"; }
static void dup_proc(base *b) { b->pr[1].name = "A"; }
static void ctl_name(base *b) { b->pr[1].name = "B\t"; }
static void empty_name(base *b) { b->st[0].name = ""; }
static void self_link(base *b) { b->s.nlinks = 1, b->s.links = b->ln, b->ln[0].to = 0; }
static void twice_link(base *b) { b->s.nlinks = 2, b->s.links = b->ln, b->ln[1] = b->ln[0]; }
static void bad_link_bw(base *b) { b->s.nlinks = 1, b->s.links = b->ln, b->ln[0].bandwidth = 0; }
static void no_bw(base *b) { b->s.bandwidth = 0; }
static void two_teams(base *b) { b->s.nprocessors = 3, b->sizes[1] = 2, b->teams[1] = 0, b->teams[2] = 1; }
static void twice_team(base *b) { b->s.nprocessors = 3, b->sizes[1] = 2, b->teams[1] = 1, b->teams[2] = 1; }
static void huge_time(base *b) { b->st[0].work = 1e308, b->pr[0].speed = 1e-10; }
/* Issue 13 item 13: finite times beyond [1e-150, 1e150] are refused too. */
static void big_time(base *b) { b->st[0].work = 1e151; }
static void slow_default(base *b) { b->s.bandwidth = 1e-150; }
static void slow_link(base *b) { b->s.nlinks = 1, b->s.links = b->ln, b->ln[0].bandwidth = 1e-150; }

static const twin twins[] = {
    {"{\"stages\":[{\"name\":\"T1\",\"work\":10,\"output\":4},{\"name\":\"T2\",\"work\":-1}],"
     J_PROCS ",\"bandwidth\":8," J_TEAMS "}", neg_work, "work (stages[1].work) must be > 0, got -1"},
    {"{\"stages\":[{\"name\":\"T1\",\"work\":10,\"output\":0},{\"name\":\"T2\",\"work\":6}],"
     J_PROCS ",\"bandwidth\":8," J_TEAMS "}", zero_output, "output (stages[0].output) must be > 0, got 0"},
    {"{" J_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":0},{\"name\":\"B\",\"speed\":3}],"
     "\"bandwidth\":8," J_TEAMS "}", zero_speed, "speed (processors[0].speed) must be > 0, got 0"},
    {"{\"stages\":[{\"name\":\"T1\",\"work\":10,\"output\":4},{\"name\":\"T1\",\"work\":6}],"
     J_PROCS ",\"bandwidth\":8," J_TEAMS "}", dup_stage,
     "stage name \"T1\" is used twice (stages[0] and stages[1])"},
    {"{" J_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"A\",\"speed\":3}],"
     "\"bandwidth\":8,\"mapping\":[[\"A\"],[\"A\"]]}", dup_proc,
     "processor name \"A\" is declared twice (processors[0] and processors[1])"},
    {"{" J_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\\t\",\"speed\":3}],"
     "\"bandwidth\":8,\"mapping\":[[\"A\"],[\"B\\t\"]]}", ctl_name,
     "a processor name must not contain control characters"},
    {"{\"stages\":[{\"name\":\"\",\"work\":10,\"output\":4},{\"name\":\"T2\",\"work\":6}],"
     J_PROCS ",\"bandwidth\":8," J_TEAMS "}", empty_name, "a stage name must not be empty"},
    {"{" J_STAGES "," J_PROCS ",\"bandwidth\":8,\"links\":[{\"from\":\"A\",\"to\":\"A\","
     "\"bandwidth\":2}]," J_TEAMS "}", self_link, "link from \"A\" to itself"},
    {"{" J_STAGES "," J_PROCS ",\"bandwidth\":8,\"links\":[{\"from\":\"A\",\"to\":\"B\","
     "\"bandwidth\":2},{\"from\":\"A\",\"to\":\"B\",\"bandwidth\":2}]," J_TEAMS "}", twice_link,
     "the link \"A\" -> \"B\" is declared twice (links[0] and links[1])"},
    {"{" J_STAGES "," J_PROCS ",\"bandwidth\":8,\"links\":[{\"from\":\"A\",\"to\":\"B\","
     "\"bandwidth\":0}]," J_TEAMS "}", bad_link_bw, "bandwidth (links[0].bandwidth) must be > 0, got 0"},
    {"{" J_STAGES "," J_PROCS "," J_TEAMS "}", no_bw,
     "no bandwidth for the link \"A\" -> \"B\", which carries the output of stage \"T1\""},
    {"{" J_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\",\"speed\":3},"
     "{\"name\":\"C\",\"speed\":1}],\"bandwidth\":8,\"mapping\":[[\"A\"],[\"A\",\"B\"]]}", two_teams,
     "processor \"A\" is in two teams (mapping[0] and mapping[1]); a processor runs at most one stage"},
    {"{" J_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\",\"speed\":3},"
     "{\"name\":\"C\",\"speed\":1}],\"bandwidth\":8,\"mapping\":[[\"A\"],[\"B\",\"B\"]]}",
     twice_team, "processor \"B\" appears twice in mapping[1]"},
    {"{\"stages\":[{\"name\":\"T1\",\"work\":1e308,\"output\":4},{\"name\":\"T2\",\"work\":6}],"
     "\"processors\":[{\"name\":\"A\",\"speed\":1e-10},{\"name\":\"B\",\"speed\":3}],"
     "\"bandwidth\":8," J_TEAMS "}", huge_time,
     "the computation time of stage \"T1\" on \"A\" (work / speed = inf) is not a finite positive number"},
    {"{\"stages\":[{\"name\":\"T1\",\"work\":1e151,\"output\":4},{\"name\":\"T2\",\"work\":6}],"
     J_PROCS ",\"bandwidth\":8," J_TEAMS "}", big_time,
     "the computation time of stage \"T1\" on \"A\" (work / speed = 5e+150) is outside "
     "[1e-150, 1e+150]: sums of such times along the event graph would overflow"},
    {"{" J_STAGES "," J_PROCS ",\"bandwidth\":1e-150," J_TEAMS "}", slow_default,
     "the transfer time of stage \"T1\"'s output at the default bandwidth (output / bandwidth = "
     "4e+150) is outside [1e-150, 1e+150]"},
    {"{" J_STAGES "," J_PROCS ",\"bandwidth\":8,\"links\":[{\"from\":\"A\",\"to\":\"B\","
     "\"bandwidth\":1e-150}]," J_TEAMS "}", slow_link,
     "the transfer time from \"A\" to \"B\" (output / bandwidth = 4e+150) is outside"},
};

Test(build, same_rule_same_message_as_the_file_reader) {
  for (size_t c = 0; c < sizeof twins / sizeof twins[0]; c++) {
    stp_status fs;
    char from_file[STP_ERROR_MAX];
    snprintf(from_file, sizeof from_file, "%s", load_json_error(twins[c].json, &fs));
    cr_assert(strstr(from_file, twins[c].want), "case %zu, file: %s", c, from_file);
    base b;
    base_init(&b);
    twins[c].mutate(&b);
    stp_mapping *m = (stp_mapping *)&b; /* must be reset to NULL */
    stp_error err = {0};
    stp_status bs = stp_mapping_build(&b.s, &m, &err);
    cr_assert_eq(bs, fs, "case %zu: status %d, the file gives %d", c, bs, fs);
    cr_assert_null(m);
    cr_assert(strstr(err.message, twins[c].want), "case %zu, arrays: %s", c, err.message);
    /* Same message: the file's after its "test.json:L:C: ", the builder's after "mapping: ". */
    const char *tail = strstr(from_file, twins[c].want);
    cr_assert(strstr(err.message, tail), "case %zu: file says \"%s\", arrays say \"%s\"", c,
              from_file, err.message);
  }
}

/* What only arrays can get wrong: indices, NULL arrays, team sizes. */
Test(build, array_errors) {
  base b;
  stp_mapping *m;
  stp_error err;
#define EXPECT(setup, msg)                                                                  \
  do {                                                                                      \
    base_init(&b);                                                                          \
    setup;                                                                                  \
    memset(&err, 0, sizeof err);                                                            \
    cr_assert_eq(stp_mapping_build(&b.s, &m, &err), STP_EINVAL, "expected: %s", msg);       \
    cr_assert_null(m);                                                                      \
    cr_assert(strstr(err.message, msg), "got \"%s\", expected \"%s\"", err.message, msg);  \
  } while (0)
  EXPECT(b.teams[1] = 7, "mapping: mapping[1][0]: a team member is processor 7, but there are 2 "
                         "processors (0 to 1)");
  EXPECT((b.s.nlinks = 1, b.s.links = b.ln, b.ln[0].to = 9),
         "links[0].to: a link's \"to\" is processor 9");
  EXPECT(b.sizes[0] = 0, "the team of stage 1 (mapping[0]) is empty");
  EXPECT(b.sizes[1] = SIZE_MAX, "mapping[1]: the teams hold more members than the 2 processors");
  EXPECT(b.s.teams = NULL, "a non-empty array is NULL");
  EXPECT(b.s.nlinks = 1, "a non-empty array is NULL");
  EXPECT(b.s.nstages = 0, "\"stages\" must not be empty");
  EXPECT(b.pr[0].speed = INFINITY, "speed (processors[0].speed) must be finite");
  EXPECT(b.s.bandwidth = -1, "the default bandwidth (bandwidth) must be > 0, got -1");
  EXPECT(b.s.name = "x\ny", "\"name\" must not contain control characters");
#undef EXPECT
  cr_assert_eq(stp_mapping_build(NULL, &m, &err), STP_EINVAL);
  cr_assert_null(m);
  base_init(&b);
  cr_assert_eq(stp_mapping_build(&b.s, NULL, &err), STP_EINVAL);
}
