/* run.c: the run contract every command goes through (cli.h, "The run
 * contract"; docs/format.md, "Shell conventions").  cli_run_command wraps
 * each command's run: it catches Ctrl-C into a flag that the library polls
 * through cli_control(), starts the progress reporter, takes --max-memory
 * (which cli_parse gives every command), and afterwards turns the outcome
 * into the exit status: output that could not be written (exit 1 with the
 * reason, or 141 quietly on a closed pipe) and interrupts (130) win over
 * what the command returned.  Records leave whole or not at all; commands
 * start no new work after an interrupt (cli_go_on), and batch still writes
 * the rows of the files it had started, as docs/format.md says. */
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int interrupt_flag;
static int write_errno;        /* the first failed write to standard output, 0: none */
static uint64_t memory_budget; /* --max-memory in bytes, 0: the default */

static void on_sigint(int sig) {
  (void)sig;
  atomic_store(&interrupt_flag, 1);
}

bool cli_interrupted(void) { return atomic_load(&interrupt_flag) != 0; }

stp_cancel cli_cancel(void) {
  return (stp_cancel){.fn = stp_cancel_flag, .data = (void *)&interrupt_flag};
}

void cli_set_memory_budget(uint64_t bytes) {
  memory_budget = bytes;
  cli_run_limits.max_memory = bytes;
}

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
  /* whoever asks for the hooks runs a computation: "limits" then names the
   * budget it ran under, the default resolved */
  cli_run_limits.max_memory = cli_memory_budget();
  return (stp_control){.cancel = cli_cancel(), .progress = cli_progress(),
                       .max_memory = memory_budget};
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
  cli_progress_release();
  sigprocmask(SIG_SETMASK, &old, NULL);
  return ok;
}

void cli_stream_failed(int err) {
  if (!write_errno)
    write_errno = err ? err : EIO;
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

int cli_run_command(const cli_command *cmd, int argc, char **argv) {
  struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESTART | SA_RESETHAND}, old;
  sigemptyset(&sa.sa_mask);
  atomic_store(&interrupt_flag, 0);
  write_errno = 0;
  memory_budget = 0;
  sigaction(SIGINT, &sa, &old); /* a second Ctrl-C kills as usual */
  cli_progress();               /* "working" after a second, whatever the command */
  int rc = cli_finish(cmd->run(argc, argv));
  sigaction(SIGINT, &old, NULL);
  return rc;
}

int cli_finish(int rc) {
  cli_progress_off();
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && !write_errno)
    write_errno = errno ? errno : EIO;
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
