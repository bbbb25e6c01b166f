/* run.c: the run contract every command goes through (run.h, "The run
 * contract"; docs/format.md, "Shell conventions").  cli_run_command wraps
 * each command's run: it catches Ctrl-C into a flag that the library polls
 * through cli_control(), starts the progress reporter, takes --max-memory
 * (which cli_parse gives every command), and afterwards turns the outcome
 * into the exit status: output that could not be written (exit 1 with the
 * reason, or 141 quietly on a closed pipe) and interrupts (130) win over
 * what the command returned.  Records leave whole or not at all; commands
 * start no new work after an interrupt (cli_go_on), and batch still writes
 * the rows of the files it had started, as docs/format.md says.  Errors are
 * said here too: "streamtp: error: ...", with the option that raises a
 * library limit, and the exit status of their kind. */
#include "cli/run.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int interrupt_flag;
static int write_errno;        /* the first failed write to standard output, 0: none */
static int file_write_errno;   /* the last failed record written to another stream */
static uint64_t memory_budget; /* --max-memory in bytes, 0: the default */

static void on_sigint(int sig) {
  (void)sig;
  atomic_store(&interrupt_flag, 1);
}

bool cli_interrupted(void) { return atomic_load(&interrupt_flag) != 0; }

stp_cancel cli_cancel(void) {
  return (stp_cancel){.fn = stp_cancel_flag, .data = (void *)&interrupt_flag};
}

void cli_set_memory_budget(uint64_t bytes) { memory_budget = bytes; }

uint64_t cli_memory_budget(void) {
  stp_control c = {.max_memory = memory_budget};
  return stp_control_memory_budget(&c);
}

bool cli_within_budget(const char *what, double bytes) {
  uint64_t budget = cli_memory_budget();
  if (bytes <= (double)budget)
    return true;
  cli_error("%s needs about %.3g GiB, above the memory budget of %.3g GiB (--max-memory)", what,
            bytes / 1073741824.0, (double)budget / 1073741824.0);
  return false;
}

stp_control cli_control(void) {
  return (stp_control){.cancel = cli_cancel(), .progress = cli_progress(),
                       .max_memory = memory_budget};
}

/* ---- messages and exit statuses -------------------------------------------------- */
void cli_verror(const char *fmt, va_list ap) {
  cli_progress_clear();
  fputs("streamtp: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cli_verror(fmt, ap);
  va_end(ap);
}

/* The option that raises each limit of the library. */
static const char *const limit_options[STP_LIMIT_COUNT_] = {
    [STP_LIMIT_STATES] = "max-states",   [STP_LIMIT_TRANSITIONS] = "max-transitions",
    [STP_LIMIT_MEMORY] = "max-memory",   [STP_LIMIT_NODES] = "max-nodes",
    [STP_LIMIT_WORK] = "max-work",
};

/* msg followed by the advice for limit (none for a limit of no kind) into
 * out[0..n); returns out, or msg itself when there is no advice. */
static const char *advise(char *out, size_t n, const char *msg, const stp_limit *limit,
                          const char *simulate_model) {
  if ((unsigned)limit->kind >= STP_LIMIT_COUNT_ || !limit_options[limit->kind])
    return msg;
  snprintf(out, n, "%s; raise --%s%s%s%s", msg, limit_options[limit->kind],
           simulate_model ? " or use `streamtp simulate --model " : "",
           simulate_model ? simulate_model : "", simulate_model ? "`" : "");
  return out;
}

static int report_error(const stp_error *err, const char *simulate_model) {
  static bool said;
  if (err->status == STP_EINTERRUPTED && cli_interrupted()) {
    cli_progress_off(); /* nothing more to report, and no line to finish */
    if (!said)
      fputs("streamtp: interrupted\n", stderr);
    said = true;
    return CLI_INTERRUPTED;
  }
  const char *msg = err->message[0] ? err->message : stp_status_message(err->status);
  char text[STP_ERROR_MAX + 96];
  cli_error("%s", advise(text, sizeof text, msg, &err->limit, simulate_model));
  return stp_status_is_input_error(err->status) ? CLI_USAGE : CLI_FAILURE;
}

int cli_report_error(const stp_error *err) { return report_error(err, NULL); }

int cli_report_mapping_error(const stp_error *err, stp_model model) {
  return report_error(err, stp_model_name(model));
}

bool cli_output_ok(void) { return write_errno == 0; }

bool cli_go_on(void) { return cli_output_ok() && !cli_interrupted(); }

bool cli_write_record(FILE *f, const char *text, size_t n) {
  if (write_errno && f == stdout)
    return false; /* nothing after a failed write (loops stop on cli_go_on()) */
  /* a second Ctrl-C kills: not in the middle of a record, though */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigprocmask(SIG_BLOCK, &block, &old);
  cli_progress_hold(); /* no progress line in the middle of a record */
  errno = 0;
  bool ok = fwrite(text, 1, n, f) == n && fflush(f) == 0 && !ferror(f);
  if (!ok && f == stdout && !write_errno)
    write_errno = errno ? errno : EIO;
  else if (!ok && f != stdout)
    file_write_errno = errno ? errno : EIO;
  cli_progress_release();
  sigprocmask(SIG_SETMASK, &old, NULL);
  return ok;
}

void cli_stream_failed(int err) {
  if (!write_errno)
    write_errno = err ? err : EIO;
}

/* ---- files written whole -------------------------------------------------------- */
static stp_atomic_file *whole_stdout; /* -o FILE of eval and simulate: committed by cli_finish */

/* While a FIFO's open waits for its reader, the Ctrl-C handler does not
 * restart it: the open ends with EINTR (stp_atomic_open: EINTERRUPTED). */
static void sigint_restarts(bool restart) {
  struct sigaction sa = {.sa_handler = on_sigint,
                         .sa_flags = SA_RESETHAND | (restart ? SA_RESTART : 0)};
  sigemptyset(&sa.sa_mask);
  struct sigaction old;
  sigaction(SIGINT, NULL, &old);
  if (old.sa_handler == on_sigint && !cli_interrupted()) /* inside cli_run_command, armed */
    sigaction(SIGINT, &sa, NULL);
}

int cli_open_whole(const char *path, stp_atomic_file **a, FILE **f) {
  stp_error err = {0};
  sigint_restarts(false);
  stp_status s = stp_atomic_open(path, a, f, &err);
  sigint_restarts(true);
  if (s == STP_OK)
    return CLI_OK;
  if (s == STP_EINTERRUPTED) { /* Ctrl-C while a FIFO waited for its reader */
    atomic_store(&interrupt_flag, 1);
    fprintf(stderr, "streamtp: interrupted: %s\n", err.message);
    return CLI_INTERRUPTED;
  }
  cli_error("%s", err.message);
  return s == STP_ENOMEM ? CLI_FAILURE : CLI_USAGE;
}

int cli_commit_whole(stp_atomic_file *a, FILE *f, const char *path) {
  if (ferror(f) && file_write_errno) { /* a record failed: its reason, which the stream lost */
    stp_atomic_abort(a);
    cli_error("%s: cannot write: %s", path, strerror(file_write_errno));
    return CLI_FAILURE;
  }
  stp_error err = {0};
  if (stp_atomic_commit(a, &err) == STP_OK)
    return CLI_OK;
  cli_error("%s", err.message);
  return CLI_FAILURE;
}

int cli_output_whole(const char *path) {
  FILE *f;
  int rc = cli_open_whole(path, &whole_stdout, &f);
  if (rc != CLI_OK)
    return rc;
  fflush(stdout);
  if (dup2(fileno(f), STDOUT_FILENO) < 0) {
    cli_error("%s: cannot write: %s", path, strerror(errno));
    stp_atomic_abort(whole_stdout);
    whole_stdout = NULL;
    return CLI_FAILURE;
  }
  return CLI_OK;
}

/* The end of a command's -o FILE: kept unless a write failed, or the
 * command failed without writing anything (the old FILE then stays). */
static int finish_whole_stdout(int rc) {
  if (!whole_stdout)
    return rc;
  stp_atomic_file *a = whole_stdout;
  whole_stdout = NULL;
  off_t at = lseek(STDOUT_FILENO, 0, SEEK_CUR); /* -1 on a device: written */
  if (write_errno || (rc != CLI_OK && rc != CLI_INTERRUPTED && at == 0)) {
    stp_atomic_abort(a);
    return rc;
  }
  stp_error err = {0};
  int c = stp_atomic_commit(a, &err) == STP_OK ? CLI_OK : CLI_FAILURE;
  if (c != CLI_OK)
    cli_error("%s", err.message);
  return c != CLI_OK && rc == CLI_OK ? c : rc;
}

bool cli_record_open(cli_record *r) {
  *r = (cli_record){0};
  r->f = open_memstream(&r->buf, &r->len);
  return r->f != NULL;
}

void cli_record_discard(cli_record *r) {
  if (r->f)
    fclose(r->f);
  free(r->buf);
  *r = (cli_record){0};
}

bool cli_record_close(cli_record *r) {
  if (!r->f)
    return false;
  bool ok = !ferror(r->f);
  ok = fclose(r->f) == 0 && ok;
  ok = ok && cli_write_record(stdout, r->buf, r->len);
  free(r->buf);
  *r = (cli_record){0};
  return ok;
}

int cli_run_command(int (*run)(int argc, char **argv), int argc, char **argv) {
  struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESTART | SA_RESETHAND}, old;
  sigemptyset(&sa.sa_mask);
  atomic_store(&interrupt_flag, 0);
  write_errno = 0;
  file_write_errno = 0;
  memory_budget = 0;
  sigaction(SIGINT, &sa, &old); /* a second Ctrl-C kills as usual */
  cli_progress();               /* "working" after a second, whatever the command */
  int rc = cli_finish(run(argc, argv));
  sigaction(SIGINT, &old, NULL);
  return rc;
}

int cli_finish(int rc) {
  cli_progress_off();
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && !write_errno)
    write_errno = errno ? errno : EIO;
  rc = finish_whole_stdout(rc);
  if (write_errno == EPIPE) /* the reader went away (| head): stop quietly, as SIGPIPE would */
    return CLI_BROKEN_PIPE;
  if (write_errno) {
    cli_error("cannot write the output: %s", strerror(write_errno));
    return CLI_FAILURE;
  }
  if (cli_interrupted() && rc != CLI_INTERRUPTED) { /* a command that said nothing */
    fputs("streamtp: interrupted\n", stderr);
    return CLI_INTERRUPTED;
  }
  return rc;
}
