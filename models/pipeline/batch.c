/* batch.c: stp_batch_run.  Worker threads take inputs in order from a
 * shared counter and evaluate each into its own slot; the calling thread
 * hands finished slots to the sink in input order as soon as every earlier
 * one is done (a reorder buffer), and reports progress while it waits.
 * Workers may run at most `window` inputs ahead of the first unfinished one,
 * which bounds the results held in memory.  Workers start with every signal
 * blocked, so the application's handlers (Ctrl-C) run in the calling thread;
 * workers check options.control.cancel before each input and stp_evaluate polls it
 * in long loops.
 *
 * Thread safety of what workers call: the mapping reader keeps no global
 * state (its qsort comparators need no context), stp_evaluate works on its
 * own allocations, and Jansson's hash seed is set here before any thread
 * starts. */
#include "base/core.h"
#include "streamtp_batch.h"
#include "streamtp_explain.h"

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STP_BATCH_MAX_JOBS 1024
#define STP_BATCH_WINDOW_PER_JOB 64

typedef struct slot {
  bool done, interrupted;
  size_t nrows;
  stp_mapping *mapping;
  stp_batch_row rows[2];
  stp_result *results[2];
  char *messages[2];
  /* what the configuration asks besides (stp_batch_config) */
  stp_sensitivity_result *sensitivity[2];
  stp_utilization *utilization[2];
  stp_latency_result *latency[2];
  stp_sim_result *sim[2];
} slot;

typedef struct batch {
  const stp_batch_input *in;
  size_t n;
  const stp_batch_config *cfg;
  slot *slots;
  size_t window;
  pthread_mutex_t mu;
  pthread_cond_t done_cv;  /* a slot is done (the calling thread waits) */
  pthread_cond_t space_cv; /* the window moved, or stop (workers wait) */
  size_t next_take, next_emit, inputs_done;
  bool stop;
} batch;

void stp_batch_config_init(stp_batch_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->models = STP_BATCH_FILE_MODEL;
  stp_options_init(&cfg->options);
  cfg->progress_interval = 0.25;
  cfg->rank_by = STP_RANK_EXP;
}

/* The flag is a plain volatile int set by a signal handler: a stale read
 * only delays the stop by one input or one solver iteration. */
static bool interrupted(const batch *b) {
  return stp__cancelled(&b->cfg->options.control.cancel);
}

static void slot_clear(slot *sl) {
  for (size_t r = 0; r < 2; r++) {
    stp_result_free(sl->results[r]);
    free(sl->messages[r]);
    stp_sensitivity_result_free(sl->sensitivity[r]);
    stp_utilization_free(sl->utilization[r]);
    stp_latency_result_free(sl->latency[r]);
    stp_sim_result_free(sl->sim[r]);
  }
  stp_mapping_free(sl->mapping);
  memset(sl, 0, sizeof *sl);
}

/* The models to evaluate; with no mapping and the file's model asked for,
 * one row whose model is unknown. */
static size_t model_list(stp_batch_models want, const stp_mapping *m, stp_model out[2]) {
  switch (want) {
  case STP_BATCH_OVERLAP: out[0] = STP_MODEL_OVERLAP; return 1;
  case STP_BATCH_STRICT: out[0] = STP_MODEL_STRICT; return 1;
  case STP_BATCH_BOTH: out[0] = STP_MODEL_OVERLAP; out[1] = STP_MODEL_STRICT; return 2;
  default: out[0] = m ? stp_mapping_model(m) : STP_MODEL_OVERLAP; return 1;
  }
}

static void row_fail(slot *sl, size_t r, const stp_error *e) {
  stp_batch_row *row = &sl->rows[r];
  row->status = e->status != STP_OK ? e->status : STP_EINTERNAL;
  sl->messages[r] = stp__strdup(e->message[0] ? e->message : stp_status_message(row->status));
  /* out of memory for the message: the status still tells what happened */
  row->message = sl->messages[r] ? sl->messages[r] : stp_status_message(row->status);
  row->limit = e->limit;
  if (row->status == STP_EINTERRUPTED)
    sl->interrupted = true;
}

/* What row r adds to its evaluation (eval --sensitivity, --utilization,
 * --latency): as eval computes them, the same options. */
static stp_status explain_row(const stp_batch_config *cfg, slot *sl, size_t r, stp_error *e) {
  stp_batch_row *row = &sl->rows[r];
  if (cfg->sensitivity) {
    STP_CHECK(stp_sensitivity_compute(sl->mapping, row->model, &cfg->options,
                                      &sl->sensitivity[r], e));
    stp_sensitivity_rank(sl->sensitivity[r], (stp_rank_by)cfg->rank_by);
    row->sensitivity = sl->sensitivity[r];
    row->top = cfg->top;
  }
  if (cfg->utilization) {
    STP_CHECK(stp_utilization_compute(sl->mapping, sl->results[r], &sl->utilization[r], e));
    row->utilization = sl->utilization[r];
  }
  if (cfg->latency) {
    STP_CHECK(stp_latency_compute(sl->mapping, 1000, &sl->latency[r], e));
    row->latency = sl->latency[r];
  }
  return STP_OK;
}

/* Row r as a Monte Carlo run: the configuration's options, stopped by the
 * batch's cancel. */
static stp_status simulate_row(const stp_batch_config *cfg, slot *sl, size_t r, stp_error *e) {
  stp_sim_options o = *cfg->simulate;
  o.control = cfg->options.control;
  o.eval.control = cfg->options.control;
  STP_CHECK(stp_simulate(sl->mapping, sl->rows[r].model, &o, &sl->sim[r], e));
  sl->rows[r].sim = sl->sim[r];
  return STP_OK;
}

static stp_status run_row(const stp_batch_config *cfg, slot *sl, size_t r, stp_error *e) {
  if (cfg->simulate)
    return simulate_row(cfg, sl, r, e);
  STP_CHECK(stp_evaluate(sl->mapping, sl->rows[r].model, &cfg->options, &sl->results[r], e));
  sl->rows[r].result = sl->results[r];
  return explain_row(cfg, sl, r, e);
}

/* Row r of a loaded mapping; its time counts the reading too.  A row that
 * fails holds no result. */
static void evaluate_row(batch *b, slot *sl, size_t r, double reading) {
  stp_batch_row *row = &sl->rows[r];
  stp_error e = {0};
  double t0 = stp__now();
  if (interrupted(b)) {
    stp__fail(&e, STP_EINTERRUPTED, "%s: interrupted before evaluation", row->path);
    row_fail(sl, r, &e);
  } else if (run_row(b->cfg, sl, r, &e) != STP_OK) {
    *row = (stp_batch_row){.input = row->input, .path = row->path, .mapping = row->mapping,
                           .model_known = row->model_known, .model = row->model,
                           .simulated = row->simulated};
    row_fail(sl, r, &e);
  }
  row->seconds = reading + (stp__now() - t0);
}

static void process(batch *b, size_t k) {
  slot *sl = &b->slots[k];
  const stp_batch_input *in = &b->in[k];
  double t0 = stp__now();
  stp_error e = {0};
  if (in->status != STP_OK)
    stp__fail(&e, in->status, "%s", in->message ? in->message : stp_status_message(in->status));
  else
    stp_mapping_load_file(in->path, &sl->mapping, &e);
  double loaded = stp__now() - t0;
  stp_model models[2];
  sl->nrows = model_list(b->cfg->models, sl->mapping, models);
  for (size_t r = 0; r < sl->nrows; r++) {
    sl->rows[r] = (stp_batch_row){.input = k, .path = in->path, .mapping = sl->mapping,
                                  .model = models[r], .status = STP_OK,
                                  .model_known = sl->mapping ||
                                                 b->cfg->models != STP_BATCH_FILE_MODEL,
                                  .simulated = b->cfg->simulate != NULL};
    if (sl->mapping) {
      evaluate_row(b, sl, r, loaded);
    } else {
      row_fail(sl, r, &e);
      sl->rows[r].seconds = loaded;
    }
  }
}

static void *worker(void *arg) {
  batch *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->stop && b->next_take < b->n && b->next_take >= b->next_emit + b->window)
      pthread_cond_wait(&b->space_cv, &b->mu);
    if (b->stop || b->next_take >= b->n || interrupted(b))
      break;
    size_t k = b->next_take++;
    pthread_mutex_unlock(&b->mu);
    process(b, k);
    pthread_mutex_lock(&b->mu);
    b->slots[k].done = true;
    b->inputs_done++;
    pthread_cond_signal(&b->done_cv);
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

/* Hand slot k to the sink and free it.  A row an interrupt cut short is
 * handed over too, with status STP_EINTERRUPTED: the output marks it. */
static stp_status emit(batch *b, size_t k, stp_batch_summary *sum, stp_error *err) {
  slot *sl = &b->slots[k];
  stp_status s = STP_OK;
  if (sl->interrupted)
    sum->interrupted = 1;
  for (size_t r = 0; r < sl->nrows && s == STP_OK; r++) {
    const stp_batch_row *row = &sl->rows[r];
    if ((s = b->cfg->sink(row, b->cfg->ctx, err)) != STP_OK)
      break;
    sum->rows++;
    if (row->status == STP_OK)
      continue;
    sum->failed_rows++;
    if (stp_status_is_input_error(row->status))
      sum->input_errors++;
    else
      sum->internal_errors++;
  }
  slot_clear(sl);
  return s;
}

static void report_progress(batch *b, stp_batch_summary *sum, double t0) {
  if (!b->cfg->progress)
    return;
  sum->inputs_done = b->inputs_done;
  sum->seconds = stp__now() - t0;
  stp_batch_summary copy = *sum;
  pthread_mutex_unlock(&b->mu);
  b->cfg->progress(&copy, b->cfg->ctx);
  pthread_mutex_lock(&b->mu);
}

static void wait_a_little(batch *b, double seconds) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* the clock pthread_cond_timedwait uses */
  long long ns = (long long)ts.tv_nsec + (long long)(seconds * 1e9);
  ts.tv_sec += (time_t)(ns / 1000000000);
  ts.tv_nsec = (long)(ns % 1000000000);
  pthread_cond_timedwait(&b->done_cv, &b->mu, &ts);
}

/* The calling thread: emit the complete prefix as it grows. */
static stp_status drain(batch *b, stp_batch_summary *sum, double t0, stp_error *err) {
  double interval = b->cfg->progress_interval > 0 ? b->cfg->progress_interval : 0.25;
  double next_report = stp__now() + interval;
  stp_status s = STP_OK;
  pthread_mutex_lock(&b->mu);
  while (b->next_emit < b->n && s == STP_OK && !sum->interrupted) {
    if (b->slots[b->next_emit].done) {
      size_t k = b->next_emit++;
      pthread_cond_broadcast(&b->space_cv);
      pthread_mutex_unlock(&b->mu);
      s = emit(b, k, sum, err);
      pthread_mutex_lock(&b->mu);
    } else if (interrupted(b)) {
      sum->interrupted = 1;
    } else {
      wait_a_little(b, interval);
    }
    if (stp__now() >= next_report) {
      report_progress(b, sum, t0);
      next_report = stp__now() + interval;
    }
  }
  b->stop = true;
  pthread_cond_broadcast(&b->space_cv);
  pthread_mutex_unlock(&b->mu);
  return s;
}

/* After an interrupt (the workers have stopped, so every input taken is
 * done, finished or cut short): its rows, still in input order. */
static stp_status drain_rest(batch *b, stp_batch_summary *sum, stp_error *err) {
  stp_status s = STP_OK;
  for (size_t k = b->next_emit; k < b->n && s == STP_OK; k++)
    if (b->slots[k].done)
      s = emit(b, k, sum, err);
  return s;
}

static size_t worker_count(const stp_batch_config *cfg, size_t n) {
  size_t jobs = cfg->jobs;
  if (jobs == 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    jobs = online > 0 ? (size_t)online : 1;
  }
  if (jobs > STP_BATCH_MAX_JOBS)
    jobs = STP_BATCH_MAX_JOBS;
  return jobs < n ? jobs : n;
}

/* Start the workers with every signal blocked (they inherit the mask). */
static size_t start_workers(batch *b, pthread_t *t, size_t jobs) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  size_t started = 0;
  while (started < jobs && pthread_create(&t[started], NULL, worker, b) == 0)
    started++;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return started;
}

static stp_status run_workers(batch *b, stp_batch_summary *sum, double t0, stp_error *err) {
  size_t jobs = worker_count(b->cfg, b->n);
  b->window = jobs * STP_BATCH_WINDOW_PER_JOB;
  pthread_t *t = stp__malloc_array(jobs, sizeof *t);
  if (!t)
    return stp__oom(err, "starting the batch");
  json_object_seed(0); /* before any thread parses JSON */
  size_t started = start_workers(b, t, jobs);
  stp_status s = STP_OK;
  if (started == 0)
    s = stp__fail(err, STP_EINTERNAL, "cannot start a worker thread");
  else
    s = drain(b, sum, t0, err);
  for (size_t k = 0; k < started; k++)
    pthread_join(t[k], NULL);
  free(t);
  if (s == STP_OK && sum->interrupted)
    s = drain_rest(b, sum, err);
  return s;
}

stp_status stp_batch_run(const stp_batch_input *in, size_t n, const stp_batch_config *cfg,
                         stp_batch_summary *summary, stp_error *err) {
  stp_batch_summary sum = {.inputs = n};
  if (summary)
    *summary = sum;
  if (!cfg || !cfg->sink || (n && !in))
    return stp__fail(err, STP_EINVAL, "stp_batch_run: inputs, configuration or sink is NULL");
  if (cfg->simulate && cfg->sensitivity)
    return stp__fail(err, STP_EINVAL, "stp_batch_run: sensitivities are an evaluation's, not a "
                     "simulation's");
  if ((unsigned)cfg->rank_by > STP_RANK_LAW)
    return stp__fail(err, STP_EINVAL, "stp_batch_run: rank_by %d is no stp_rank_by",
                     cfg->rank_by);
  double t0 = stp__now();
  batch b = {.in = in, .n = n, .cfg = cfg};
  b.slots = stp__calloc(n, sizeof *b.slots);
  if (!b.slots)
    return stp__oom(err, "starting the batch");
  bool mu = pthread_mutex_init(&b.mu, NULL) == 0;
  bool done_cv = pthread_cond_init(&b.done_cv, NULL) == 0;
  bool space_cv = pthread_cond_init(&b.space_cv, NULL) == 0;
  stp_status s = STP_OK;
  if (!mu || !done_cv || !space_cv)
    s = stp__fail(err, STP_EINTERNAL, "cannot create the batch's mutex and conditions");
  else if (n)
    s = run_workers(&b, &sum, t0, err);
  for (size_t k = 0; k < n; k++) /* what an interrupt or a failing sink left */
    slot_clear(&b.slots[k]);
  sum.inputs_done = b.inputs_done;
  sum.seconds = stp__now() - t0;
  if (cfg->progress)
    cfg->progress(&sum, cfg->ctx);
  if (done_cv)
    pthread_cond_destroy(&b.done_cv);
  if (space_cv)
    pthread_cond_destroy(&b.space_cv);
  if (mu)
    pthread_mutex_destroy(&b.mu);
  free(b.slots);
  if (summary)
    *summary = sum;
  if (s == STP_OK && sum.interrupted)
    s = stp__fail(err, STP_EINTERRUPTED, "interrupted after %zu of %zu inputs", b.inputs_done,
                  n);
  return s;
}
