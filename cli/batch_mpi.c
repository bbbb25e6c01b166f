/* batch_mpi.c: the batch over MPI ranks (batch_mpi.h).  Messages:
 *   TASK  rank 0 -> worker: input k (8 bytes), its listing status (4), its
 *         path and its listing message, each ending with a zero byte;
 *   ROWS  worker -> rank 0: k (8), the number of rows (4), then per row its
 *         status (4), its model (4: -1 unknown, else stp_model), the length
 *         of its text (4) and the text: the JSON of its record, whose
 *         numbers (shortest round-trip) read back to the same doubles;
 *   STOP  rank 0 -> worker: no more inputs.
 * Rank 0 waits with MPI_Iprobe and short sleeps rather than in MPI_Recv,
 * which Open MPI spins in: started one rank per core, the leader leaves
 * its core to a worker. */
#include "cli/batch_mpi.h"

#include "cli/cluster.h"
#include "cli/run.h"
#include "streamtp_report.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_TASK = 1, TAG_ROWS = 2, TAG_STOP = 3 };
#define IN_FLIGHT 2        /* inputs per worker: one running, one waiting */
#define WINDOW 65536       /* inputs handed out ahead of the first unfinished one */
#define POLL_NS 100000     /* 0.1 ms between two looks at the mailbox */

static bool released;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool cancelled(const stp_cancel *c) { return c && c->fn && c->fn(c->data); }

static stp_status fail(stp_error *err, stp_status s, const char *what) {
  err->status = s;
  snprintf(err->message, sizeof err->message, "%s", what);
  return s;
}

static void nap(void) {
  struct timespec ts = {0, POLL_NS};
  nanosleep(&ts, NULL);
}

/* A growable byte buffer. */
typedef struct bytes {
  char *p;
  size_t n, cap;
} bytes;

static bool put(bytes *b, const void *x, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 1024;
    while (cap < b->n + n)
      cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q)
      return false;
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, x, n);
  b->n += n;
  return true;
}

/* Waits for a message from `source` (MPI_ANY_SOURCE) without spinning;
 * fills st.  False when cancel stopped the wait (rank 0 only passes one). */
static bool wait_message(int source, MPI_Status *st, const stp_cancel *cancel) {
  for (;;) {
    int flag = 0;
    MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, st);
    if (flag)
      return true;
    if (cancel && cancelled(cancel))
      return false;
    nap();
  }
}

/* ---- the workers ------------------------------------------------------------------- */

typedef struct work {
  bytes out;
  uint32_t rows;
  bool oom;
} work;

static stp_status keep_row(const stp_batch_row *row, void *ctx, stp_error *err) {
  work *w = ctx;
  stp_record *rec = NULL;
  char *text = NULL;
  size_t n = 0;
  stp_error e = {0};
  if (stp_batch_row_json(row, &rec, &e) == STP_OK)
    stp_record_json(rec, NULL, &text, &n, &e);
  stp_record_free(rec);
  int32_t status = (int32_t)row->status, model = row->model_known ? (int32_t)row->model : -1;
  uint32_t len = (uint32_t)n;
  bool ok = text && put(&w->out, &status, 4) && put(&w->out, &model, 4) &&
            put(&w->out, &len, 4) && put(&w->out, text, len);
  stp_free(text);
  w->rows++;
  if (ok)
    return STP_OK;
  w->oom = true;
  err->status = STP_ENOMEM;
  snprintf(err->message, sizeof err->message, "out of memory keeping the row of %s", row->path);
  return STP_ENOMEM;
}

/* One task: its input evaluated, its rows sent back. */
static void work_one(const char *msg, int len, const stp_batch_config *cfg) {
  uint64_t k;
  int32_t status;
  memcpy(&k, msg, 8);
  memcpy(&status, msg + 8, 4);
  const char *path = msg + 12, *message = path + strlen(path) + 1;
  (void)len;
  stp_batch_input in = {.path = (char *)path, .status = (stp_status)status,
                        .message = *message ? (char *)message : NULL};
  stp_batch_config one = *cfg;
  work w = {0};
  one.jobs = 1;
  one.sink = keep_row;
  one.progress = NULL;
  one.ctx = &w;
  put(&w.out, &k, 8);
  put(&w.out, &w.rows, 4); /* the count, written again below */
  stp_error err = {0};
  stp_batch_run(&in, 1, &one, NULL, &err);
  if (w.out.p && !w.oom)
    memcpy(w.out.p + 8, &w.rows, 4);
  else { /* no room for the rows: an empty answer still frees the leader */
    w.out.n = 0;
    uint32_t zero = 0;
    put(&w.out, &k, 8);
    put(&w.out, &zero, 4);
  }
  MPI_Send(w.out.p, (int)w.out.n, MPI_BYTE, 0, TAG_ROWS, MPI_COMM_WORLD);
  free(w.out.p);
}

int batch_mpi_work(const stp_batch_config *cfg) {
  char *buf = NULL;
  for (;;) {
    MPI_Status st;
    wait_message(0, &st, NULL);
    int len = 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    char *p = realloc(buf, (size_t)len + 1);
    if (!p) {
      free(buf);
      MPI_Abort(MPI_COMM_WORLD, CLI_FAILURE);
      return CLI_FAILURE;
    }
    buf = p;
    MPI_Recv(buf, len, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == TAG_STOP)
      break;
    buf[len] = '\0';
    work_one(buf, len, cfg);
  }
  free(buf);
  return CLI_OK;
}

/* ---- rank 0 ------------------------------------------------------------------------ */

typedef struct lead {
  const stp_batch_input *in;
  size_t n, next, emit, inflight;
  char **answer;          /* per input: the ROWS message, until emitted */
  int *idle, nidle;       /* workers waiting for an input */
  const batch_mpi_sink *sink;
  stp_batch_summary *sum;
  bool stop;
} lead;

static bool send_task(lead *l, int worker, stp_error *err) {
  const stp_batch_input *in = &l->in[l->next];
  bytes b = {0};
  uint64_t k = l->next;
  int32_t status = (int32_t)in->status;
  const char *message = in->message ? in->message : "";
  if (!put(&b, &k, 8) || !put(&b, &status, 4) || !put(&b, in->path, strlen(in->path) + 1) ||
      !put(&b, message, strlen(message) + 1)) {
    free(b.p);
    err->status = STP_ENOMEM;
    snprintf(err->message, sizeof err->message, "out of memory sending %s", in->path);
    return false;
  }
  MPI_Send(b.p, (int)b.n, MPI_BYTE, worker, TAG_TASK, MPI_COMM_WORLD);
  free(b.p);
  l->next++;
  l->inflight++;
  return true;
}

/* Workers get inputs while there are some within the window. */
static stp_status hand_out(lead *l, stp_error *err) {
  while (!l->stop && l->nidle > 0 && l->next < l->n && l->next < l->emit + WINDOW)
    if (!send_task(l, l->idle[--l->nidle], err))
      return STP_ENOMEM;
  return STP_OK;
}

/* The rows of input k to the sink. */
static stp_status emit_rows(lead *l, const char *msg, stp_error *err) {
  uint64_t k;
  uint32_t rows;
  memcpy(&k, msg, 8);
  memcpy(&rows, msg + 8, 4);
  const char *at = msg + 12;
  stp_status s = STP_OK;
  for (uint32_t r = 0; r < rows && s == STP_OK; r++) {
    int32_t status, model;
    uint32_t len;
    memcpy(&status, at, 4);
    memcpy(&model, at + 4, 4);
    memcpy(&len, at + 8, 4);
    batch_mpi_row row = {.json = at + 12, .len = len, .status = (stp_status)status,
                         .path = k < l->n ? l->in[k].path : "an input",
                         .model_known = model >= 0,
                         .model = model == STP_MODEL_STRICT ? STP_MODEL_STRICT : STP_MODEL_OVERLAP};
    at += 12 + len;
    s = l->sink->put(l->sink->ctx, (size_t)k, &row, err);
    if (s != STP_OK)
      break;
    l->sum->rows++;
    if (status == STP_EINTERRUPTED)
      l->sum->interrupted = 1;
    if (status != STP_OK) {
      l->sum->failed_rows++;
      if (stp_status_is_input_error((stp_status)status))
        l->sum->input_errors++;
      else
        l->sum->internal_errors++;
    }
  }
  return s;
}

static stp_status emit_ready(lead *l, stp_error *err) {
  while (l->emit < l->n && l->answer[l->emit]) {
    stp_status s = emit_rows(l, l->answer[l->emit], err);
    free(l->answer[l->emit]);
    l->answer[l->emit++] = NULL;
    if (s != STP_OK)
      return s;
  }
  return STP_OK;
}

/* One answer: stored, its worker given the next input. */
static stp_status take_answer(lead *l, const MPI_Status *st, size_t *per_rank, stp_error *err) {
  int len = 0;
  MPI_Get_count(st, MPI_BYTE, &len);
  char *msg = malloc((size_t)len + 1);
  if (!msg)
    return fail(err, STP_ENOMEM, "out of memory receiving rows");
  MPI_Recv(msg, len, MPI_BYTE, st->MPI_SOURCE, TAG_ROWS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  uint64_t k;
  memcpy(&k, msg, 8);
  l->answer[k] = msg;
  l->inflight--;
  l->sum->inputs_done++;
  if (per_rank)
    per_rank[st->MPI_SOURCE]++;
  l->idle[l->nidle++] = st->MPI_SOURCE;
  return STP_OK;
}

stp_status batch_mpi_lead(const stp_batch_input *in, size_t n, const batch_mpi_sink *sink,
                          const stp_cancel *cancel, stp_batch_summary *sum, size_t *per_rank,
                          stp_error *err) {
  int size = cli_mpi_size();
  *sum = (stp_batch_summary){.inputs = n};
  lead l = {.in = in, .n = n, .sink = sink, .sum = sum};
  l.answer = calloc(n ? n : 1, sizeof *l.answer);
  l.idle = malloc((size_t)size * IN_FLIGHT * sizeof *l.idle);
  if (!l.answer || !l.idle) {
    free(l.answer);
    free(l.idle);
    return fail(err, STP_ENOMEM, "out of memory starting the batch");
  }
  for (int slot = 0; slot < IN_FLIGHT; slot++)
    for (int w = 1; w < size; w++)
      l.idle[l.nidle++] = w;
  double t0 = now(), next_report = t0;
  double interval = sink->progress_interval > 0 ? sink->progress_interval : 0.25;
  stp_status s = hand_out(&l, err);
  while (s == STP_OK && (l.inflight > 0 || (!l.stop && l.emit < n))) {
    MPI_Status st;
    if (!wait_message(MPI_ANY_SOURCE, &st, cancel)) { /* Ctrl-C: no more inputs */
      l.stop = true;
      sum->interrupted = 1;
      if (l.inflight == 0)
        break;
      wait_message(MPI_ANY_SOURCE, &st, NULL);
    }
    s = take_answer(&l, &st, per_rank, err);
    if (s == STP_OK)
      s = emit_ready(&l, err);
    l.stop = l.stop || sum->interrupted;
    if (s == STP_OK)
      s = hand_out(&l, err);
    if (sink->progress && now() >= next_report) {
      sum->seconds = now() - t0;
      sink->progress(sum, sink->ctx);
      next_report = now() + interval;
    }
  }
  while (l.inflight > 0) { /* a failing sink: the answers still due, dropped */
    MPI_Status st;
    wait_message(MPI_ANY_SOURCE, &st, NULL);
    take_answer(&l, &st, per_rank, err);
  }
  for (size_t k = 0; k < n; k++)
    free(l.answer[k]);
  free(l.answer);
  free(l.idle);
  batch_mpi_release();
  sum->seconds = now() - t0;
  if (sink->progress)
    sink->progress(sum, sink->ctx);
  if (s == STP_OK && sum->interrupted)
    s = fail(err, STP_EINTERRUPTED, "interrupted");
  return s;
}

void batch_mpi_release(void) {
  if (released || cli_mpi_rank() != 0)
    return;
  released = true;
  for (int w = 1; w < cli_mpi_size(); w++)
    MPI_Send(NULL, 0, MPI_BYTE, w, TAG_STOP, MPI_COMM_WORLD);
}
