/* test_fileio.c: files written whole (stp_atomic_*, base/fileio.c).  The
 * new contents replace the old only at a successful commit: a failed write
 * (a file size limit standing in for a full disk, /dev/full), a failed
 * rename, an abort or a writer killed by SIGKILL in the middle all leave
 * the old file byte for byte, and no temporary behind except the one a
 * killed writer could not remove.  Permission bits, symbolic links,
 * devices, FIFOs (with Ctrl-C while waiting for a reader) and refusals.
 * And a path rewritten to be read from another directory (optimize -o). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/core.h"
#include "base/fileio.h"
#include "streamtp_law.h"
#include "support/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];
static char path[128];

static void make_dir(void) {
  strcpy(dir, "/tmp/stp-fileio-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/answer.json", dir);
}

static void put(const char *p, const char *text) {
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

/* The whole file (static buffer), "" when absent. */
static const char *get(const char *p) {
  static char buf[1 << 16];
  buf[0] = '\0';
  FILE *f = fopen(p, "rb");
  if (!f)
    return buf;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Entries of dir other than . and .. */
static int entries(void) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

static void clean(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

static stp_atomic_file *open_ok(const char *p, FILE **f) {
  stp_atomic_file *a = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_atomic_open(p, &a, f, &err), STP_OK, "%s", err.message);
  cr_assert_not_null(a);
  cr_assert_not_null(*f);
  return a;
}

Test(fileio, a_new_file_appears_only_at_commit_with_the_umask_mode) {
  make_dir();
  mode_t mask = umask(022);
  FILE *f;
  stp_atomic_file *a = open_ok(path, &f);
  fputs("{\"new\": 1}\n", f);
  cr_assert_str_eq(get(path), ""); /* not there yet */
  cr_assert_eq(entries(), 1);      /* the temporary beside it */
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_OK, "%s", err.message);
  cr_assert_str_eq(get(path), "{\"new\": 1}\n");
  cr_assert_eq(entries(), 1); /* the file alone */
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0644);
  umask(mask);
  clean();
}

Test(fileio, an_old_file_keeps_its_mode_and_is_replaced_whole) {
  make_dir();
  put(path, "old contents, longer than the new ones\n");
  cr_assert_eq(chmod(path, 0640), 0);
  FILE *f;
  stp_atomic_file *a = open_ok(path, &f);
  fputs("new\n", f);
  cr_assert_str_eq(get(path), "old contents, longer than the new ones\n");
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_OK, "%s", err.message);
  cr_assert_str_eq(get(path), "new\n");
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0640);
  cr_assert_eq(entries(), 1);
  clean();
}

Test(fileio, abort_leaves_the_old_file_and_no_temporary) {
  make_dir();
  put(path, "old\n");
  FILE *f;
  stp_atomic_file *a = open_ok(path, &f);
  fputs("half of a new file", f);
  stp_atomic_abort(a);
  stp_atomic_abort(NULL);
  cr_assert_str_eq(get(path), "old\n");
  cr_assert_eq(entries(), 1);
  clean();
}

/* The file size limit makes the temporary's writes fail (EFBIG) as a full
 * disk would (ENOSPC): in a child, since the limit is per process. */
Test(fileio, a_failed_write_leaves_the_old_file_and_removes_the_temporary) {
  make_dir();
  put(path, "old\n");
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {.rlim_cur = 3000, .rlim_max = RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
      _exit(10);
    stp_atomic_file *a;
    FILE *f;
    stp_error err = {0};
    if (stp_atomic_open(path, &a, &f, &err) != STP_OK)
      _exit(11);
    for (int k = 0; k < 10000; k++)
      fprintf(f, "row %d\n", k);
    stp_status s = stp_atomic_commit(a, &err);
    _exit(s == STP_EIO && strstr(err.message, "answer.json: cannot write: File too large") ? 0
                                                                                           : 12);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  cr_assert_str_eq(get(path), "old\n");
  cr_assert_eq(entries(), 1);
  clean();
}

Test(fileio, dev_full_is_written_in_place_and_the_commit_fails) {
  FILE *f;
  stp_atomic_file *a = open_ok("/dev/full", &f);
  fputs("anything\n", f);
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_EIO);
  cr_assert_str_eq(err.message, "/dev/full: cannot write: No space left on device");
}

Test(fileio, dev_null_takes_the_write) {
  FILE *f;
  stp_atomic_file *a = open_ok("/dev/null", &f);
  fputs("anything\n", f);
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_OK, "%s", err.message);
  struct stat st;
  cr_assert_eq(stat("/dev/null", &st), 0);
  cr_assert(S_ISCHR(st.st_mode)); /* not replaced by a regular file */
}

/* What stands at the path when the rename comes is a directory: the
 * rename fails, the temporary goes, the directory stays. */
Test(fileio, a_failed_rename_removes_the_temporary) {
  make_dir();
  FILE *f;
  stp_atomic_file *a = open_ok(path, &f);
  fputs("new\n", f);
  cr_assert_eq(mkdir(path, 0755), 0);
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_EIO);
  cr_assert(strstr(err.message, "answer.json: cannot replace: "), "%s", err.message);
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_assert(S_ISDIR(st.st_mode));
  cr_assert_eq(entries(), 1);
  clean();
}

/* A writer killed in the middle of a long write: the old file, whole. */
Test(fileio, a_writer_killed_mid_write_leaves_the_old_file) {
  make_dir();
  char old[4096];
  for (size_t k = 0; k + 1 < sizeof old; k++)
    old[k] = (char)('a' + k % 26);
  old[sizeof old - 1] = '\0';
  put(path, old);
  int ready[2];
  cr_assert_eq(pipe(ready), 0);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    stp_atomic_file *a;
    FILE *f;
    stp_error err = {0};
    if (stp_atomic_open(path, &a, &f, &err) != STP_OK)
      _exit(11);
    for (int k = 0; k < 100000; k++) /* 1.3 MB: many buffers reach the disk */
      fprintf(f, "row %06d\n", k);
    fflush(f);
    (void)!write(ready[1], "x", 1);
    for (;;)
      pause(); /* killed before the commit */
  }
  char c;
  cr_assert_eq(read(ready[0], &c, 1), 1);
  cr_assert_eq(kill(pid, SIGKILL), 0);
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFSIGNALED(status));
  cr_assert_str_eq(get(path), old);
  cr_assert_eq(entries(), 2); /* the killed writer's temporary stays behind */
  close(ready[0]);
  close(ready[1]);
  clean();
}

Test(fileio, a_symbolic_link_is_kept_and_its_file_replaced) {
  make_dir();
  char target[160], link[160];
  snprintf(target, sizeof target, "%s/target.json", dir);
  snprintf(link, sizeof link, "%s/link.json", dir);
  put(target, "old\n");
  cr_assert_eq(symlink("target.json", link), 0);
  FILE *f;
  stp_atomic_file *a = open_ok(link, &f);
  fputs("new\n", f);
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_OK, "%s", err.message);
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode));
  cr_assert_str_eq(get(target), "new\n");
  cr_assert_eq(entries(), 2);
  clean();
}

Test(fileio, directories_dashes_and_missing_directories_are_refused) {
  make_dir();
  stp_atomic_file *a = (stp_atomic_file *)1;
  FILE *f = (FILE *)1;
  stp_error err = {0};
  cr_assert_eq(stp_atomic_open(dir, &a, &f, &err), STP_EIO);
  cr_assert(strstr(err.message, ": is a directory"), "%s", err.message);
  cr_assert_null(a);
  cr_assert_null(f);
  cr_assert_eq(stp_atomic_open("-", &a, &f, &err), STP_EINVAL);
  cr_assert_eq(stp_atomic_open("", &a, &f, &err), STP_EINVAL);
  char deep[160];
  snprintf(deep, sizeof deep, "%s/no/such/dir/out.svg", dir);
  cr_assert_eq(stp_atomic_open(deep, &a, &f, &err), STP_EIO);
  cr_assert(strstr(err.message, "out.svg: cannot create: No such file"), "%s", err.message);
  cr_assert_eq(entries(), 0);
  clean();
}

/* A FIFO is written in place, to the reader that waits on it. */
Test(fileio, a_fifo_is_written_in_place) {
  make_dir();
  cr_assert_eq(mkfifo(path, 0600), 0);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    FILE *r = fopen(path, "r");
    char line[64] = "";
    _exit(r && fgets(line, sizeof line, r) && strcmp(line, "through the fifo\n") == 0 ? 0 : 1);
  }
  FILE *f;
  stp_atomic_file *a = open_ok(path, &f);
  fputs("through the fifo\n", f);
  stp_error err = {0};
  cr_assert_eq(stp_atomic_commit(a, &err), STP_OK, "%s", err.message);
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_assert(S_ISFIFO(st.st_mode));
  clean();
}

static void on_alarm(int sig) { (void)sig; }

/* No reader comes: a signal whose handler does not restart ends the wait
 * (how the CLI keeps Ctrl-C working there). */
Test(fileio, a_signal_ends_the_wait_for_a_fifo_reader) {
  make_dir();
  cr_assert_eq(mkfifo(path, 0600), 0);
  struct sigaction sa = {.sa_handler = on_alarm};
  sigemptyset(&sa.sa_mask);
  cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
  struct itimerval t = {.it_value = {.tv_usec = 100000}};
  cr_assert_eq(setitimer(ITIMER_REAL, &t, NULL), 0);
  stp_atomic_file *a;
  FILE *f;
  stp_error err = {0};
  cr_assert_eq(stp_atomic_open(path, &a, &f, &err), STP_EINTERRUPTED);
  cr_assert(strstr(err.message, "answer.json: interrupted while opening"), "%s", err.message);
  cr_assert_null(a);
  clean();
}

/* ---- stp__path_from and stp_law_spec_rebase (optimize -o's "laws") -------------- */
/* Every case by hand: the path from to_dir that names the same file as
 * from_dir/file, checked also by opening it from to_dir. */
Test(fileio, a_path_is_rewritten_relative_to_another_directory) {
  make_dir();
  char sub[160], deep[200], other[160], file[260], got_dir[200];
  snprintf(sub, sizeof sub, "%s/p", dir);
  snprintf(deep, sizeof deep, "%s/p/data", dir);
  snprintf(other, sizeof other, "%s/out/x", dir);
  cr_assert_eq(mkdir(sub, 0700), 0);
  cr_assert_eq(mkdir(deep, 0700), 0);
  snprintf(got_dir, sizeof got_dir, "%s/out", dir);
  cr_assert_eq(mkdir(got_dir, 0700), 0);
  cr_assert_eq(mkdir(other, 0700), 0);
  snprintf(file, sizeof file, "%s/t.txt", deep);
  put(file, "1\n");
  const struct {
    const char *file, *from, *to, *want;
  } c[] = {
      {"data/t.txt", sub, other, "../../p/data/t.txt"},
      {"./data/../data/t.txt", sub, sub, "data/t.txt"},
      {"t.txt", deep, dir, "p/data/t.txt"},
      {"data/t.txt", sub, deep, "t.txt"},
      {"data/t.txt", sub, "/", NULL}, /* the absolute path less its '/' */
  };
  for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
    char *p = stp__path_from(c[k].file, c[k].from, c[k].to);
    cr_assert_not_null(p);
    char *real = realpath(file, NULL);
    if (c[k].want)
      cr_expect_str_eq(p, c[k].want, "case %zu", k);
    else
      cr_expect_str_eq(p, real + 1, "case %zu", k);
    free(real);
    free(p);
  }
  char *abs = stp__path_from("/etc/hostname", sub, other);
  cr_expect_str_eq(abs, "/etc/hostname");
  free(abs);
}

Test(fileio, law_specs_naming_a_file_are_rebased_and_the_others_copied) {
  make_dir();
  char sub[160], out[160], file[260];
  snprintf(sub, sizeof sub, "%s/p", dir);
  snprintf(out, sizeof out, "%s/o", dir);
  cr_assert_eq(mkdir(sub, 0700), 0);
  cr_assert_eq(mkdir(out, 0700), 0);
  snprintf(file, sizeof file, "%s/s.txt", sub);
  put(file, "1\n2\n");
  const char *in[] = {"ph:fit=s.txt", "empirical:s.txt", "erlang:k=2", "exp", "empirical:/etc/x"};
  const char *want[] = {"ph:fit=../p/s.txt", "empirical:../p/s.txt", "erlang:k=2", "exp",
                        "empirical:/etc/x"};
  for (size_t k = 0; k < sizeof in / sizeof *in; k++) {
    char *spec = NULL;
    stp_error err = {0};
    cr_assert_eq(stp_law_spec_rebase(in[k], sub, out, &spec, &err), STP_OK, "%s", err.message);
    cr_expect_str_eq(spec, want[k]);
    free(spec);
  }
}
