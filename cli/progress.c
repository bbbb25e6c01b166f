/* progress.c: progress of long computations on standard error.  The
 * library reports what it is doing through stp_options.progress (states so
 * far, a lower bound of the total); a reporter thread shows the latest
 * report once the command has run for a second on a terminal (a line
 * rewritten twice a second) or for five seconds elsewhere (a line every
 * five seconds), and says "working" through the phases that report nothing
 * (building a graph, strongly connected components, a simulation).  One
 * mutex orders the thread's lines with the messages and records of the main
 * thread, so that a line never lands inside a record. */
#include "cli/run.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STALE 2.0 /* seconds after which a report no longer describes the current phase */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t reporter;
static bool running, stopping, tty, line_open;
static double started, last_line;

static struct {
  bool has;
  char what[96];
  uint64_t done, estimate;
  double seconds; /* of the computation reported */
  double at;      /* when it was reported */
} snap;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_progress(const stp_progress_info *p, void *data) {
  (void)data;
  pthread_mutex_lock(&mu);
  snap.has = true;
  snprintf(snap.what, sizeof snap.what, "%s", p->what);
  snap.done = p->done;
  snap.estimate = p->estimate;
  snap.seconds = p->seconds;
  snap.at = now();
  pthread_mutex_unlock(&mu);
}

/* Called with mu held. */
static void print_line(double t) {
  char body[256];
  double elapsed = t - started;
  if (snap.has && t - snap.at < STALE) {
    char est[64] = "";
    if (snap.estimate > snap.done) /* a lower bound: once passed, it says nothing */
      snprintf(est, sizeof est, ", at least %llu in all", (unsigned long long)snap.estimate);
    snprintf(body, sizeof body, "%s: %llu so far, %.0f/s%s, %.1f s", snap.what,
             (unsigned long long)snap.done,
             snap.seconds > 0 ? (double)snap.done / snap.seconds : 0.0, est, elapsed);
  } else {
    snprintf(body, sizeof body, "working, %.1f s", elapsed);
  }
  fprintf(stderr, "%sstreamtp: %s%s", tty ? "\r" : "", body, tty ? "\033[K" : "\n");
  fflush(stderr);
  line_open = tty;
}

static void *report(void *arg) {
  (void)arg;
  double first = tty ? 1.0 : 5.0, every = tty ? 0.5 : 5.0;
  pthread_mutex_lock(&mu);
  while (!stopping) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* the clock pthread_cond_timedwait uses */
    ts.tv_nsec += 250000000L;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&wake, &mu, &ts);
    double t = now();
    if (stopping || cli_interrupted() || t - started < first || t - last_line < every)
      continue;
    last_line = t;
    print_line(t);
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

stp_progress cli_progress(void) {
  pthread_mutex_lock(&mu);
  if (!running) {
    tty = isatty(STDERR_FILENO);
    started = now();
    last_line = -1e9;
    stopping = false;
    sigset_t all, old; /* Ctrl-C must reach the main thread, not this one */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    running = pthread_create(&reporter, NULL, report, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  pthread_mutex_unlock(&mu);
  return (stp_progress){.fn = on_progress, .data = NULL};
}

void cli_progress_clear(void) {
  pthread_mutex_lock(&mu);
  if (line_open)
    fputs("\r\033[K", stderr);
  line_open = false;
  pthread_mutex_unlock(&mu);
}

void cli_progress_off(void) {
  pthread_mutex_lock(&mu);
  bool was = running;
  stopping = true;
  running = false;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&mu);
  if (was)
    pthread_join(reporter, NULL);
  cli_progress_clear();
}

void cli_progress_hold(void) {
  pthread_mutex_lock(&mu);
  if (line_open)
    fputs("\r\033[K", stderr);
  line_open = false;
}

void cli_progress_release(void) { pthread_mutex_unlock(&mu); }
