/* test_batch.c: stp_batch_collect and stp_batch_run: the input list
 * (recursion, sorting, *.json only), rows in input order whatever the number
 * of workers, error rows for bad files, models, summary counts, the sink
 * stopping the batch, and the interrupt flag.  Each row is checked against a
 * direct stp_evaluate of the same file in this thread; the sensitivities,
 * utilization and latency a row adds against a tandem's closed forms, and
 * Monte Carlo rows against stp_simulate with the same seed. */
#include "streamtp_batch.h"
#include "streamtp_explain.h"
#include "streamtp_generate.h"
#include "support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a scratch directory of mapping files -------------------------------- */
typedef struct scratch {
  char dir[64];
  char *files[512];
  size_t n;
} scratch;

static void scratch_init(scratch *s) {
  memset(s, 0, sizeof *s);
  strcpy(s->dir, "/tmp/stp_batch_XXXXXX");
  cr_assert_not_null(mkdtemp(s->dir));
}

static char *scratch_path(scratch *s, const char *rel) {
  char *p = stp__asprintf("%s/%s", s->dir, rel);
  cr_assert_lt(s->n, 512);
  s->files[s->n++] = p;
  return p;
}

static char *write_text(scratch *s, const char *rel, const char *text) {
  char *p = scratch_path(s, rel);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f, "%s", p);
  fputs(text, f);
  fclose(f);
  return p;
}

static char *write_generated(scratch *s, const char *rel, uint64_t index, stp_model model) {
  stp_generate_params p;
  stp_generate_params_init(&p);
  p.stages = 3;
  p.processors = 7;
  p.model = model;
  stp_mapping *m;
  stp_error err = {0};
  cr_assert_eq(stp_generate(&p, index, "gen", &m, &err), STP_OK, "%s", err.message);
  char *path = scratch_path(s, rel);
  cr_assert_eq(stp_mapping_save_file(m, path, &err), STP_OK, "%s", err.message);
  stp_mapping_free(m);
  return path;
}

static void make_dir(scratch *s, const char *rel) {
  char *p = scratch_path(s, rel);
  cr_assert_eq(mkdir(p, 0700), 0, "%s", p);
}

static void scratch_free(scratch *s) {
  for (size_t k = s->n; k-- > 0;) { /* files before the directories holding them */
    remove(s->files[k]);
    free(s->files[k]);
  }
  rmdir(s->dir);
}

/* ---- collecting inputs ----------------------------------------------------- */
Test(batch_collect, directories_expand_sorted_and_files_stay_in_order) {
  scratch s;
  scratch_init(&s);
  make_dir(&s, "d");
  make_dir(&s, "d/sub");
  make_dir(&s, "d/empty");
  write_text(&s, "d/b.json", "{}");
  write_text(&s, "d/a.json", "{}");
  write_text(&s, "d/sub/c.json", "{}");
  write_text(&s, "d/notes.txt", "not a mapping");
  write_text(&s, "d/sub/x.json.bak", "{}");
  write_text(&s, "z.json", "{}");
  char *link = scratch_path(&s, "d/loop");
  cr_assert_eq(symlink(s.dir, link), 0); /* not followed: no loop, no duplicate */
  char d[128], z[128], missing[128];
  snprintf(d, sizeof d, "%s/d", s.dir);
  snprintf(z, sizeof z, "%s/z.json", s.dir);
  snprintf(missing, sizeof missing, "%s/missing.json", s.dir);
  const char *args[] = {z, d, missing};
  stp_batch_input *in;
  size_t n;
  stp_error err = {0};
  cr_assert_eq(stp_batch_collect(args, 3, &in, &n, &err), STP_OK, "%s", err.message);
  const char *want[] = {"z.json", "d/a.json", "d/b.json", "d/sub/c.json", "missing.json"};
  cr_assert_eq(n, 5);
  for (size_t k = 0; k < n; k++) {
    char full[160];
    snprintf(full, sizeof full, "%s/%s", s.dir, want[k]);
    cr_assert_str_eq(in[k].path, full);
    cr_assert_eq(in[k].status, STP_OK);
  }
  stp_batch_inputs_free(in, n);
  scratch_free(&s);
}

Test(batch_collect, no_arguments_give_an_empty_list) {
  stp_batch_input *in = (stp_batch_input *)1;
  size_t n = 7;
  cr_assert_eq(stp_batch_collect(NULL, 0, &in, &n, NULL), STP_OK);
  cr_assert_eq(n, 0);
  cr_assert_null(in);
  stp_batch_inputs_free(NULL, 0);
}

/* ---- running ------------------------------------------------------------------- */
typedef struct seen_row {
  size_t input;
  stp_model model;
  int model_known;
  stp_status status;
  double det;
  char message[256];
} seen_row;

typedef struct recorder {
  seen_row rows[1200];
  size_t n;
  size_t stop_after;            /* 0: never */
  stp_status stop_with;         /* STP_OK: set the interrupt flag instead */
  atomic_int *flag;
  size_t progress_calls, last_progress_done;
} recorder;

static stp_status record(const stp_batch_row *row, void *ctx, stp_error *err) {
  recorder *r = ctx;
  cr_assert_lt(r->n, 1200);
  seen_row *s = &r->rows[r->n++];
  *s = (seen_row){.input = row->input, .model = row->model, .model_known = row->model_known,
                  .status = row->status,
                  .det = row->result ? row->result->det_throughput : NAN};
  cr_assert_eq(row->status == STP_OK, row->result != NULL);
  cr_assert_eq(row->status == STP_OK, row->message == NULL);
  if (row->message)
    snprintf(s->message, sizeof s->message, "%s", row->message);
  if (r->stop_after && r->n == r->stop_after) {
    if (r->stop_with != STP_OK)
      return stp__fail(err, r->stop_with, "the sink gives up");
    atomic_store(r->flag, 1);
  }
  return STP_OK;
}

static void on_progress(const stp_batch_summary *s, void *ctx) {
  recorder *r = ctx;
  r->progress_calls++;
  r->last_progress_done = s->inputs_done;
}

static stp_status run(const stp_batch_input *in, size_t n, size_t jobs, stp_batch_models models,
                      recorder *rec, stp_batch_summary *sum, stp_error *err) {
  stp_batch_config cfg;
  stp_batch_config_init(&cfg);
  cfg.jobs = jobs;
  cfg.models = models;
  cfg.options.exp_method = STP_EXP_NONE;
  cfg.options.control.cancel = TEST_CANCEL(rec->flag);
  cfg.sink = record;
  cfg.progress = on_progress;
  cfg.ctx = rec;
  return stp_batch_run(in, n, &cfg, sum, err);
}

static stp_batch_input *inputs_of(char **paths, size_t n) {
  stp_batch_input *in = calloc(n, sizeof *in);
  for (size_t k = 0; k < n; k++)
    in[k] = (stp_batch_input){.path = stp__strdup(paths[k])};
  return in;
}

static double direct_det(const char *path, stp_model model) {
  stp_mapping *m;
  stp_result *r;
  stp_error err = {0};
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_NONE;
  cr_assert_eq(stp_mapping_load_file(path, &m, &err), STP_OK, "%s", err.message);
  cr_assert_eq(stp_evaluate(m, model, &o, &r, &err), STP_OK, "%s", err.message);
  double d = r->det_throughput;
  stp_result_free(r);
  stp_mapping_free(m);
  return d;
}

/* good, bad JSON, good (strict), unknown key, missing, good */
static size_t mixed_files(scratch *s, char **paths) {
  paths[0] = write_generated(s, "g1.json", 1, STP_MODEL_OVERLAP);
  paths[1] = write_text(s, "bad.json", "{\"stages\": [");
  paths[2] = write_generated(s, "g2.json", 2, STP_MODEL_STRICT);
  paths[3] = write_text(s, "key.json",
                        "{\"stages\": [{\"work\": 1}], \"processors\": [{\"name\": \"P\", "
                        "\"speed\": 1}], \"mapping\": [[\"P\"]], \"colour\": 1}");
  paths[4] = stp__asprintf("%s/missing.json", s->dir);
  paths[5] = write_generated(s, "g3.json", 3, STP_MODEL_OVERLAP);
  return 6;
}

Test(batch_run, rows_in_input_order_with_error_rows_for_bad_files) {
  scratch s;
  scratch_init(&s);
  char *paths[6];
  size_t n = mixed_files(&s, paths);
  stp_batch_input *in = inputs_of(paths, n);
  const stp_model file_model[] = {STP_MODEL_OVERLAP, 0, STP_MODEL_STRICT, 0, 0, STP_MODEL_OVERLAP};
  const stp_status want[] = {STP_OK, STP_EINVAL, STP_OK, STP_EINVAL, STP_EIO, STP_OK};
  for (size_t jobs = 1; jobs <= 4; jobs++) {
    recorder *rec = calloc(1, sizeof *rec);
    stp_batch_summary sum;
    stp_error err = {0};
    cr_assert_eq(run(in, n, jobs, STP_BATCH_FILE_MODEL, rec, &sum, &err), STP_OK, "%s",
                 err.message);
    cr_assert_eq(rec->n, n);
    for (size_t k = 0; k < n; k++) {
      const seen_row *r = &rec->rows[k];
      cr_assert_eq(r->input, k, "jobs %zu: row %zu is input %zu", jobs, k, r->input);
      cr_assert_eq(r->status, want[k], "row %zu: %s", k, r->message);
      cr_assert_eq(r->model_known, want[k] == STP_OK);
      if (want[k] == STP_OK) {
        cr_assert_eq(r->model, file_model[k]);
        assert_close(r->det, direct_det(paths[k], file_model[k]), TOL_EXACT);
      }
    }
    cr_assert(strstr(rec->rows[1].message, "malformed JSON"), "%s", rec->rows[1].message);
    cr_assert(strstr(rec->rows[3].message, "unknown key \"colour\""), "%s", rec->rows[3].message);
    cr_assert(strstr(rec->rows[4].message, "missing.json: cannot open"), "%s",
              rec->rows[4].message);
    cr_assert_eq(sum.inputs, n);
    cr_assert_eq(sum.inputs_done, n);
    cr_assert_eq(sum.rows, n);
    cr_assert_eq(sum.failed_rows, 3);
    cr_assert_eq(sum.input_errors, 3);
    cr_assert_eq(sum.internal_errors, 0);
    cr_assert_eq(sum.interrupted, 0);
    cr_assert_geq(rec->progress_calls, 1);
    cr_assert_eq(rec->last_progress_done, n, "the last progress report sees everything");
    free(rec);
  }
  stp_batch_inputs_free(in, n);
  free(paths[4]);
  scratch_free(&s);
}

Test(batch_run, both_models_give_two_rows_per_file_overlap_first) {
  scratch s;
  scratch_init(&s);
  char *paths[6];
  size_t n = mixed_files(&s, paths);
  stp_batch_input *in = inputs_of(paths, n);
  recorder *rec = calloc(1, sizeof *rec);
  stp_error err = {0};
  cr_assert_eq(run(in, n, 2, STP_BATCH_BOTH, rec, NULL, &err), STP_OK, "%s", err.message);
  cr_assert_eq(rec->n, 2 * n);
  for (size_t k = 0; k < 2 * n; k++) {
    const seen_row *r = &rec->rows[k];
    stp_model model = k % 2 ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
    cr_assert_eq(r->input, k / 2);
    cr_assert_eq(r->model, model);
    cr_assert_eq(r->model_known, 1, "the model asked for is known even for a bad file");
    if (r->status == STP_OK)
      assert_close(r->det, direct_det(paths[k / 2], model), TOL_EXACT);
  }
  free(rec);
  stp_batch_inputs_free(in, n);
  free(paths[4]);
  scratch_free(&s);
}

/* An input that failed to be listed (a directory that cannot be read) is
 * reported by its row with the listing's status and message. */
Test(batch_run, listing_errors_become_rows) {
  stp_batch_input in[1] = {{.path = "dir", .status = STP_EIO, .message = "dir: cannot open directory"}};
  recorder *rec = calloc(1, sizeof *rec);
  stp_batch_summary sum;
  stp_error err = {0};
  cr_assert_eq(run(in, 1, 1, STP_BATCH_FILE_MODEL, rec, &sum, &err), STP_OK, "%s", err.message);
  cr_assert_eq(rec->n, 1);
  cr_assert_eq(rec->rows[0].status, STP_EIO);
  cr_assert_str_eq(rec->rows[0].message, "dir: cannot open directory");
  cr_assert_eq(sum.input_errors, 1);
  free(rec);
}

/* More inputs than the window (64 per worker): order holds, all rows come. */
static size_t many_files(scratch *s, char **paths, size_t n) {
  for (size_t k = 0; k < n; k++) {
    char rel[32];
    snprintf(rel, sizeof rel, "m%03zu.json", k);
    paths[k] = write_generated(s, rel, k + 1, k % 3 ? STP_MODEL_OVERLAP : STP_MODEL_STRICT);
  }
  return n;
}

Test(batch_run, more_inputs_than_the_window_keep_their_order) {
  scratch s;
  scratch_init(&s);
  char *paths[300];
  size_t n = many_files(&s, paths, 300);
  stp_batch_input *in = inputs_of(paths, n);
  recorder *rec = calloc(1, sizeof *rec);
  stp_batch_summary sum;
  stp_error err = {0};
  cr_assert_eq(run(in, n, 2, STP_BATCH_FILE_MODEL, rec, &sum, &err), STP_OK, "%s", err.message);
  cr_assert_eq(rec->n, n);
  for (size_t k = 0; k < n; k++) {
    cr_assert_eq(rec->rows[k].input, k);
    cr_assert_eq(rec->rows[k].status, STP_OK, "%s", rec->rows[k].message);
  }
  for (size_t k = 0; k < n; k += 37)
    assert_close(rec->rows[k].det, direct_det(paths[k], rec->rows[k].model), TOL_EXACT);
  cr_assert_eq(sum.failed_rows, 0);
  free(rec);
  stp_batch_inputs_free(in, n);
  scratch_free(&s);
}

/* The interrupt flag, set from the sink after 10 rows: the batch stops,
 * says so, and hands over every input it started, in input order: finished
 * rows as they are, at most one row per worker cut short and marked
 * STP_EINTERRUPTED (issue 13: no finished row is dropped). */
Test(batch_run, interrupt_stops_cleanly_keeping_rows_in_order) {
  scratch s;
  scratch_init(&s);
  char *paths[300];
  size_t n = many_files(&s, paths, 300);
  stp_batch_input *in = inputs_of(paths, n);
  atomic_int flag = 0;
  recorder *rec = calloc(1, sizeof *rec);
  rec->flag = &flag;
  rec->stop_after = 10;
  stp_batch_summary sum;
  stp_error err = {0};
  cr_assert_eq(run(in, n, 2, STP_BATCH_FILE_MODEL, rec, &sum, &err), STP_EINTERRUPTED);
  cr_assert(strstr(err.message, "interrupted after"), "%s", err.message);
  cr_assert_eq(sum.interrupted, 1);
  cr_assert_geq(rec->n, 10);
  cr_assert_lt(rec->n, n, "the batch went on after the interrupt");
  cr_assert_eq(sum.rows, rec->n);
  size_t cut = 0;
  for (size_t k = 0; k < rec->n; k++) {
    cr_assert_eq(rec->rows[k].input, k);
    if (rec->rows[k].status == STP_EINTERRUPTED)
      cut++;
    else
      cr_assert_eq(rec->rows[k].status, STP_OK, "%s", rec->rows[k].message);
  }
  cr_assert_leq(cut, 2, "%zu rows cut short with 2 workers", cut);
  free(rec);
  stp_batch_inputs_free(in, n);
  scratch_free(&s);
}

Test(batch_run, interrupt_before_the_start_gives_no_row) {
  stp_batch_input in[1] = {{.path = "never-read.json"}};
  atomic_int flag = 1;
  recorder *rec = calloc(1, sizeof *rec);
  rec->flag = &flag;
  stp_batch_summary sum;
  stp_error err = {0};
  cr_assert_eq(run(in, 1, 1, STP_BATCH_FILE_MODEL, rec, &sum, &err), STP_EINTERRUPTED);
  cr_assert_eq(rec->n, 0);
  cr_assert_eq(sum.rows, 0);
  free(rec);
}

Test(batch_run, a_failing_sink_stops_the_batch_with_its_status) {
  scratch s;
  scratch_init(&s);
  char *paths[6];
  size_t n = mixed_files(&s, paths);
  stp_batch_input *in = inputs_of(paths, n);
  recorder *rec = calloc(1, sizeof *rec);
  rec->stop_after = 2;
  rec->stop_with = STP_EIO;
  stp_batch_summary sum;
  stp_error err = {0};
  cr_assert_eq(run(in, n, 2, STP_BATCH_FILE_MODEL, rec, &sum, &err), STP_EIO);
  cr_assert_str_eq(err.message, "the sink gives up");
  cr_assert_eq(rec->n, 2);
  cr_assert_eq(sum.rows, 1, "the refused row is not counted");
  free(rec);
  stp_batch_inputs_free(in, n);
  free(paths[4]);
  scratch_free(&s);
}

Test(batch_run, bad_arguments_are_refused) {
  stp_batch_config cfg;
  stp_batch_config_init(&cfg);
  stp_error err = {0};
  stp_batch_summary sum;
  cr_assert_eq(stp_batch_run(NULL, 0, &cfg, &sum, &err), STP_EINVAL, "no sink");
  cr_assert(strstr(err.message, "sink"), "%s", err.message);
  cfg.sink = record;
  cr_assert_eq(stp_batch_run(NULL, 2, &cfg, &sum, &err), STP_EINVAL, "no inputs");
  cr_assert_eq(stp_batch_run(NULL, 0, &cfg, &sum, &err), STP_OK, "an empty batch");
  cr_assert_eq(sum.rows, 0);
}

/* ---- what rows add: sensitivities, utilization, latency; Monte Carlo rows ------------ */
/* A tandem without replication: T1 (work 6, output 4) on P0 (speed 2), T2
 * (work 9) on P1 (speed 1), bandwidth 2.  Overlap, deterministic: the cycle
 * times are P0 6/2 = 3, P0 out and P1 in 4/2 = 2, P1 9/1 = 9, so the
 * period is 9; a data set alone takes 3 + 2 + 9 = 14; the busy fractions
 * (P0, P0 out, P1, P1 in) are 3/9, 2/9, 1 and 2/9; only P1's speed (+1) and T2's work (-1) move the
 * throughput. */
static const char tandem[] =
    "{\"stages\": [{\"name\": \"T1\", \"work\": 6, \"output\": 4}, {\"name\": \"T2\", "
    "\"work\": 9}], \"processors\": [{\"name\": \"P0\", \"speed\": 2}, {\"name\": \"P1\", "
    "\"speed\": 1}], \"bandwidth\": 2, \"mapping\": [[\"P0\"], [\"P1\"]]}";

typedef struct explained {
  size_t n;
  int has[3];
  double util[4], util_exp_p1, exp, latency_max, latency_mean;
  double speed_p1, work_t2, others_max;
  const char *first_kind;
  double sim[2], sim_low[2];
  uint64_t seed[2];
} explained;

static stp_status keep_explained(const stp_batch_row *row, void *ctx, stp_error *err) {
  (void)err;
  explained *x = ctx;
  cr_assert_eq(row->status, STP_OK, "%s", row->message ? row->message : "");
  if (row->simulated) {
    cr_assert_lt(x->n, 2);
    cr_assert_null(row->result);
    cr_assert_not_null(row->sim);
    x->sim[x->n] = row->sim->throughput;
    x->sim_low[x->n] = row->sim->ci_low;
    x->seed[x->n++] = row->sim->seed;
    return STP_OK;
  }
  x->n++;
  x->has[0] = row->sensitivity != NULL;
  x->has[1] = row->utilization != NULL;
  x->has[2] = row->latency != NULL;
  x->exp = row->result->exp_throughput;
  const stp_utilization *u = row->utilization;
  cr_assert_eq(u->n, 4, "P0, P0 out, P1, P1 in");
  for (size_t k = 0; k < 4; k++)
    x->util[k] = u->items[k].det;
  x->util_exp_p1 = u->items[2].exp;
  x->latency_max = row->latency->max;
  x->latency_mean = row->latency->mean;
  const stp_sensitivity_result *s = row->sensitivity;
  x->first_kind = stp_param_kind_name(s->items[0].kind);
  for (size_t k = 0; k < s->n; k++) {
    const stp_sensitivity *it = &s->items[k];
    if (it->kind == STP_PARAM_SPEED && strcmp(it->of, "P1") == 0)
      x->speed_p1 = it->det.elasticity;
    else if (it->kind == STP_PARAM_WORK && strcmp(it->of, "T2") == 0)
      x->work_t2 = it->det.elasticity;
    else if (fabs(it->det.elasticity) > x->others_max)
      x->others_max = fabs(it->det.elasticity);
  }
  return STP_OK;
}

Test(batch_run, rows_hold_the_sensitivities_utilization_and_latency_asked) {
  scratch s;
  scratch_init(&s);
  char *path = write_text(&s, "tandem.json", tandem);
  stp_batch_input *in = inputs_of(&path, 1);
  stp_batch_config cfg;
  stp_batch_config_init(&cfg);
  cfg.sink = keep_explained;
  cfg.sensitivity = cfg.utilization = cfg.latency = 1;
  cfg.rank_by = STP_RANK_DET;
  explained x = {0};
  cfg.ctx = &x;
  stp_error err = {0};
  cr_assert_eq(stp_batch_run(in, 1, &cfg, NULL, &err), STP_OK, "%s", err.message);
  cr_assert_eq(x.n, 1);
  cr_assert(x.has[0] && x.has[1] && x.has[2]);
  const double util[4] = {3.0 / 9, 2.0 / 9, 1, 2.0 / 9};
  for (size_t k = 0; k < 4; k++)
    assert_close(x.util[k], util[k], TOL_EXACT);
  assert_close(x.util_exp_p1, 9 * x.exp, TOL_EXACT); /* throughput x busy time */
  assert_close(x.latency_max, 14, TOL_EXACT);
  assert_close(x.latency_mean, 14, TOL_EXACT);
  assert_close(x.speed_p1, 1, TOL_EXACT);
  assert_close(x.work_t2, -1, TOL_EXACT);
  cr_assert_lt(x.others_max, 1e-12);
  cr_assert_str_eq(x.first_kind, "speed", "ranked by det: P1's speed first");
  stp_batch_inputs_free(in, 1);
  scratch_free(&s);
}

Test(batch_run, monte_carlo_rows_are_stp_simulate_s_whatever_the_workers) {
  scratch s;
  scratch_init(&s);
  char *paths[2] = {write_text(&s, "tandem.json", tandem),
                    write_generated(&s, "g.json", 4, STP_MODEL_OVERLAP)};
  stp_batch_input *in = inputs_of(paths, 2);
  stp_sim_options so;
  stp_sim_options_init(&so);
  so.datasets = 20000;
  so.seed = 42;
  double want[2];
  for (size_t k = 0; k < 2; k++) { /* the same runs, one by one in this thread */
    stp_mapping *m;
    stp_sim_result *r;
    stp_error err = {0};
    cr_assert_eq(stp_mapping_load_file(paths[k], &m, &err), STP_OK, "%s", err.message);
    cr_assert_eq(stp_simulate(m, STP_MODEL_OVERLAP, &so, &r, &err), STP_OK, "%s", err.message);
    want[k] = r->throughput;
    stp_sim_result_free(r);
    stp_mapping_free(m);
  }
  assert_close(want[0], 1.0 / 9, 0.05); /* a tandem of exponential stations: its slowest */
  for (size_t jobs = 1; jobs <= 2; jobs++) {
    stp_batch_config cfg;
    stp_batch_config_init(&cfg);
    cfg.jobs = jobs;
    cfg.sink = keep_explained;
    cfg.simulate = &so;
    explained x = {0};
    cfg.ctx = &x;
    stp_error err = {0};
    cr_assert_eq(stp_batch_run(in, 2, &cfg, NULL, &err), STP_OK, "%s", err.message);
    cr_assert_eq(x.n, 2);
    for (size_t k = 0; k < 2; k++) {
      cr_assert_eq(x.sim[k], want[k], "jobs %zu, row %zu: the same draws", jobs, k);
      cr_assert_eq(x.seed[k], 42);
      cr_assert_lt(x.sim_low[k], x.sim[k]);
    }
  }
  stp_batch_inputs_free(in, 2);
  scratch_free(&s);
}

Test(batch_run, a_simulation_has_no_sensitivities_and_rank_by_is_checked) {
  stp_batch_config cfg;
  stp_batch_config_init(&cfg);
  cr_assert_eq(cfg.rank_by, STP_RANK_EXP, "eval's default");
  stp_sim_options so;
  stp_sim_options_init(&so);
  cfg.sink = keep_explained;
  cfg.simulate = &so;
  cfg.sensitivity = 1;
  stp_error err = {0};
  cr_assert_eq(stp_batch_run(NULL, 0, &cfg, NULL, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "simulation"), "%s", err.message);
  cfg.simulate = NULL;
  cfg.rank_by = 7;
  cr_assert_eq(stp_batch_run(NULL, 0, &cfg, NULL, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "rank_by"), "%s", err.message);
}
