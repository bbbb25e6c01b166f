/* campaign.c: shards, resume and merge of batch runs (campaign.h).  Rows
 * are matched to inputs through an index of the input paths (stp_names), and are
 * never re-encoded: a resumed run appends, a merge copies each row's bytes
 * from the part that holds it, so that N shards merged give byte for byte
 * the rows of one run (timing fields aside). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include "cli/campaign.h"

#include "cli/rowfile.h"
#include "cli/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REPORT_MAX 10 /* lost, duplicated or foreign rows named, of each kind */

static bool say(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool say(char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return false;
}

/* say, returning rc (a CLI_* status). */
static int sayc(int rc, char *msg, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int sayc(int rc, char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return rc;
}

/* ---- shards -------------------------------------------------------------------------- */

static bool parse_count(const char *s, const char *end, uint64_t *v) {
  if (s == end || end - s > 18)
    return false;
  uint64_t x = 0;
  for (const char *p = s; p < end; p++) {
    if (*p < '0' || *p > '9')
      return false;
    x = 10 * x + (uint64_t)(*p - '0');
  }
  *v = x;
  return true;
}

bool campaign_parse_shard(const char *s, uint64_t *index, uint64_t *count, char *msg, size_t n) {
  const char *slash = strchr(s, '/');
  if (!slash || !parse_count(s, slash, index) || !parse_count(slash + 1, s + strlen(s), count))
    return say(msg, n, "--shard: '%s' is not I/N (shard I of N, counted from 0: 0/4 .. 3/4)", s);
  if (*count == 0 || *index >= *count)
    return say(msg, n, "--shard: '%s': I must be at least 0 and below N (0/%" PRIu64 " .. %" PRIu64
               "/%" PRIu64 ")", s, *count ? *count : 1, (*count ? *count : 1) - 1,
               *count ? *count : 1);
  return true;
}

static bool env_u64(const char *name, uint64_t *v) {
  const char *s = getenv(name);
  return s && parse_count(s, s + strlen(s), v);
}

int campaign_shard_from_env(uint64_t *index, uint64_t *count, char *from, size_t nfrom,
                            char *msg, size_t n) {
  uint64_t id, min, max, step = 1, tasks = 0;
  if (!getenv("SLURM_ARRAY_TASK_ID"))
    return 0;
  if (!env_u64("SLURM_ARRAY_TASK_ID", &id) || !env_u64("SLURM_ARRAY_TASK_MIN", &min) ||
      !env_u64("SLURM_ARRAY_TASK_MAX", &max) || id < min || id > max ||
      (getenv("SLURM_ARRAY_TASK_STEP") && !env_u64("SLURM_ARRAY_TASK_STEP", &step)) || step == 0 ||
      (getenv("SLURM_ARRAY_TASK_COUNT") && !env_u64("SLURM_ARRAY_TASK_COUNT", &tasks))) {
    say(msg, n, "cannot read the shard from SLURM_ARRAY_TASK_ID, _MIN, _MAX, _STEP and _COUNT; "
        "give --shard I/N");
    return -1;
  }
  uint64_t range = (max - min) / step + 1;
  if (!getenv("SLURM_ARRAY_TASK_COUNT"))
    tasks = range;
  if ((id - min) % step || tasks != range || (max - min) % step) {
    say(msg, n, "the job array's indices are not the range %" PRIu64 "-%" PRIu64 ":%" PRIu64
        " (%" PRIu64 " tasks): give --shard I/N", min, max, step, tasks);
    return -1;
  }
  *index = (id - min) / step;
  *count = tasks;
  snprintf(from, nfrom, "SLURM_ARRAY_TASK_ID=%" PRIu64 " of %" PRIu64 "-%" PRIu64, id, min, max);
  return 1;
}

bool campaign_select_shard(const stp_batch_input *in, size_t n, uint64_t index, uint64_t count,
                           stp_batch_input **out, size_t *nout) {
  size_t m = n > index ? (size_t)((n - 1 - index) / count + 1) : 0;
  *out = malloc((m ? m : 1) * sizeof **out);
  if (!*out)
    return false;
  for (size_t j = 0, k = (size_t)index; j < m; j++, k += (size_t)count)
    (*out)[j] = in[k];
  *nout = m;
  return true;
}

/* ---- the rows a campaign expects --------------------------------------------------- */

/* The input named path, or SIZE_MAX. */
static size_t find_input(const campaign *c, const char *path) {
  return stp_names_find(c->paths, path);
}

bool campaign_init(campaign *c, const stp_batch_input *in, size_t n, stp_batch_models models,
                   char *msg, size_t nmsg) {
  *c = (campaign){.in = in, .n = n, .models = models, .per = models == STP_BATCH_BOTH ? 2 : 1};
  stp_error err = {0};
  if (stp_names_new(&c->paths, &err) != STP_OK)
    return say(msg, nmsg, "out of memory indexing %zu inputs", n);
  for (size_t k = 0; k < n; k++) {
    size_t at;
    int added;
    if (stp_names_add(c->paths, in[k].path, &at, &added, &err) != STP_OK) {
      campaign_free(c);
      return say(msg, nmsg, "indexing %zu inputs: %s", n, err.message);
    }
    if (!added) {
      campaign_free(c);
      return say(msg, nmsg, "the inputs name '%s' twice: rows of a campaign are told apart by "
                 "their file", in[k].path);
    }
  }
  return true;
}

void campaign_free(campaign *c) {
  stp_names_free(c->paths);
  c->paths = NULL;
}

int64_t campaign_slot(const campaign *c, const char *file, uint8_t model) {
  size_t k = find_input(c, file);
  if (k == SIZE_MAX)
    return -1;
  switch (c->models) {
  case STP_BATCH_OVERLAP: return model == ROW_MODEL_OVERLAP ? (int64_t)k : -1;
  case STP_BATCH_STRICT: return model == ROW_MODEL_STRICT ? (int64_t)k : -1;
  case STP_BATCH_BOTH:
    return model == ROW_MODEL_OVERLAP  ? (int64_t)(2 * k)
           : model == ROW_MODEL_STRICT ? (int64_t)(2 * k + 1)
                                       : -1;
  default: /* each file's own model, or none when it could not be read */
    return model == ROW_MODEL_OTHER ? -1 : (int64_t)k;
  }
}

int64_t campaign_row_slot(const campaign *c, size_t k, stp_model model) {
  return (int64_t)(k * c->per) + (c->per == 2 && model == STP_MODEL_STRICT);
}

static const char *row_model_text(uint8_t model) {
  return model == ROW_MODEL_NONE ? "no model" : rowfile_model_name(model);
}

/* The first key of a row that succeeded whose value is not the campaign's
 * (its options are another batch's), or -1. */
static int other_options(const campaign *c, const rowfile_row *row) {
  for (int k = 0; row->status == ROW_OK && k < ROWFILE_MAX_KEYS && c->keys[k]; k++) {
    const char *got = row->values[k], *want = c->want[k];
    if (row->known[k] && (want ? !got || strcmp(got, want) != 0 : got != NULL))
      return k;
  }
  return -1;
}

/* "simulation.seed 3, this batch's 1" */
static const char *options_text(const campaign *c, const rowfile_row *row, int k, char *buf,
                                size_t n) {
  const char *got = row->values[k], *want = c->want[k];
  snprintf(buf, n, "%s %s, this batch's %s", c->keys[k],
           !got ? "absent" : strcmp(got, "*") == 0 ? "present" : got,
           !want ? "absent" : strcmp(want, "*") == 0 ? "present" : want);
  return buf;
}

/* ---- --resume OUT ------------------------------------------------------------------ */

typedef struct resume_job {
  const campaign *c;
  campaign_resume *r;
} resume_job;

/* A row of OUT into r->status; false (msg) on a foreign or repeated row. */
static bool note_done(void *ctx, const rowfile *rf, const rowfile_row *row, char *msg, size_t n) {
  resume_job *j = ctx;
  int64_t slot = campaign_slot(j->c, row->file, row->model);
  if (slot < 0)
    return say(msg, n, "%s:%" PRIu64 ": a row of %s (%s) that this batch does not make: is "
               "--resume given another shard's output, or other inputs or --model?",
               rf->path, row->line, row->file, row_model_text(row->model));
  if (row->status == ROW_CUT)
    return true;
  int other = other_options(j->c, row);
  char why[512];
  if (other >= 0)
    return say(msg, n, "%s:%" PRIu64 ": a row of %s (%s) made with other options (%s): is "
               "--resume given the output of another batch?", rf->path, row->line, row->file,
               row_model_text(row->model), options_text(j->c, row, other, why, sizeof why));
  if (j->r->status[slot] != ROW_CUT)
    return say(msg, n, "%s:%" PRIu64 ": a second row of %s (%s)", rf->path, row->line,
               row->file, row_model_text(row->model));
  j->r->status[slot] = row->status;
  j->r->rows_done++;
  return true;
}

static void count_inputs_done(const campaign *c, campaign_resume *r) {
  for (size_t k = 0; k < c->n; k++) {
    bool all = true;
    for (size_t j = 0; j < c->per; j++)
      all = all && r->status[k * c->per + j] != ROW_CUT;
    r->inputs_done += all;
  }
}

/* The start of a field as batch writes it: unquoted up to a comma, or
 * quoted with doubled quotes (CSV); a JSON string after {"file": (JSON
 * lines).  Decodes what the bytes hold into out; *closed: the field ended
 * within them.  False when the bytes cannot start such a field. */
static bool csv_field_start(const char *s, size_t n, char *out, size_t *len, bool *closed) {
  size_t k = 0, o = 0;
  bool quoted = n > 0 && s[0] == '"';
  *closed = false;
  for (k = quoted; k < n; k++) {
    if (quoted && s[k] == '"') {
      if (k + 1 == n)
        break; /* a doubled quote or the closing one: unknown yet */
      if (s[k + 1] != '"') {
        *closed = s[k + 1] == ',';
        *len = o;
        return *closed;
      }
      k++;
    } else if (!quoted && s[k] == ',') {
      *closed = true;
      break;
    } else if (!quoted && (s[k] == '"' || s[k] == '\r')) {
      return false;
    }
    out[o++] = s[k];
  }
  *len = o;
  return true;
}

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* UTF-8 of code point u (an escape \uXXXX; surrogates as they come: the
 * comparison then fails, which only refuses to cut). */
static size_t put_utf8(char *out, unsigned u) {
  if (u < 0x80)
    return out[0] = (char)u, 1;
  if (u < 0x800)
    return out[0] = (char)(0xC0 | u >> 6), out[1] = (char)(0x80 | (u & 0x3F)), 2;
  out[0] = (char)(0xE0 | u >> 12);
  out[1] = (char)(0x80 | (u >> 6 & 0x3F));
  out[2] = (char)(0x80 | (u & 0x3F));
  return 3;
}

static bool json_field_start(const char *s, size_t n, char *out, size_t *len, bool *closed) {
  static const char key[] = "{\"file\":\"";
  size_t klen = sizeof key - 1, o = 0;
  *closed = false;
  *len = 0;
  if (memcmp(s, key, n < klen ? n : klen) != 0)
    return false;
  for (size_t k = klen; k < n; k++) {
    char c = s[k];
    if (c == '"') {
      *closed = true;
      break;
    }
    if (c != '\\') {
      out[o++] = c;
      continue;
    }
    if (k + 1 >= n)
      break;
    char e = s[++k];
    const char *plain = strchr("\"\\/bfnrt", e);
    if (e != 'u' && !plain)
      return false;
    if (e != 'u') {
      out[o++] = "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
      continue;
    }
    if (k + 4 >= n)
      break;
    unsigned u = 0;
    for (int d = 1; d <= 4; d++) {
      int h = hex_digit(s[k + d]);
      if (h < 0)
        return false;
      u = 16 * u + (unsigned)h;
    }
    o += put_utf8(out + o, u);
    k += 4;
  }
  *len = o;
  return true;
}

/* Whether the incomplete last record of OUT is the start of one of this
 * campaign's rows: its file field names an input (or, cut inside it, is
 * the start of one's path). */
static bool tail_starts_a_row(const campaign *c, const rowfile *rf) {
  char *field = malloc(rf->ntail + 1);
  size_t len = 0;
  bool closed = false;
  bool ok = field && (rf->format == ROWFILE_CSV
                          ? csv_field_start(rf->tail, rf->ntail, field, &len, &closed)
                          : json_field_start(rf->tail, rf->ntail, field, &len, &closed));
  if (ok && closed) {
    field[len] = '\0';
    ok = strlen(field) == len && find_input(c, field) != SIZE_MAX;
  } else if (ok) {
    ok = false;
    for (size_t k = 0; !ok && k < c->n; k++)
      ok = strncmp(c->in[k].path, field, len) == 0 && strlen(c->in[k].path) >= len;
  }
  free(field);
  return ok;
}

/* Cut OUT after its last complete record (a run killed while writing),
 * once the rest is known to be its rows and the cut part a row's start. */
static int drop_incomplete(const campaign *c, const rowfile *rf, campaign_resume *r, char *msg,
                           size_t n) {
  if (rf->size <= rf->complete)
    return CLI_OK;
  bool header = rf->complete == 0; /* the start of the header alone (rowfile_read checked it) */
  if (!header && !tail_starts_a_row(c, rf))
    return sayc(CLI_USAGE, msg, n, "%s: its last line (%" PRIu64 " bytes without a line break, "
                "from byte %" PRIu64 ") is not the start of a row of this batch: not cut off; end "
                "the line or remove it by hand", rf->path, rf->size - rf->complete, rf->complete);
  if (truncate(rf->path, (off_t)rf->complete) != 0)
    return sayc(CLI_FAILURE, msg, n, "%s: cannot cut off its incomplete last row: %s", rf->path,
                strerror(errno));
  r->dropped = rf->size - rf->complete;
  return CLI_OK;
}

int campaign_resume_read(const campaign *c, const char *out, int format, const char *csv_header,
                         campaign_resume *r, char *msg, size_t n) {
  memset(r, 0, sizeof *r);
  size_t slots = c->n * c->per;
  if (!(r->status = malloc(slots ? slots : 1)))
    return sayc(CLI_FAILURE, msg, n, "out of memory");
  memset(r->status, ROW_CUT, slots);
  r->format = format == ROWFILE_GUESS ? ROWFILE_CSV : format;
  struct stat st;
  if (stat(out, &st) != 0 && errno == ENOENT)
    return CLI_OK; /* nothing done yet */
  rowfile *rf = malloc(sizeof *rf);
  if (!rf)
    return sayc(CLI_FAILURE, msg, n, "out of memory");
  resume_job job = {.c = c, .r = r};
  int rc = rowfile_read_keys(out, format, csv_header, c->keys, note_done, &job, rf, msg, n);
  if (rc == CLI_OK && rf->size > 0)
    r->format = rf->format;
  if (rc == CLI_OK && rf->header && strcmp(rf->header, csv_header) != 0)
    rc = sayc(CLI_USAGE, msg, n, "%s: its CSV header is not the one this streamtp writes "
              "(another version, or other options?): merge or move it before resuming", out);
  if (rc == CLI_OK)
    rc = drop_incomplete(c, rf, r, msg, n);
  if (rc == CLI_OK)
    count_inputs_done(c, r);
  r->has_header = rc == CLI_OK && rf->header;
  rowfile_free(rf);
  free(rf);
  return rc;
}

void campaign_resume_free(campaign_resume *r) {
  free(r->status);
  r->status = NULL;
}

/* ---- one writer per output ------------------------------------------------------- */

/* DIR/.NAME.lock for path (a symbolic link resolved: two names of one file
 * share its lock). */
static char *lock_path(const char *path) {
  char *real = realpath(path, NULL);
  const char *p = real ? real : path, *slash = strrchr(p, '/');
  int dirlen = slash ? (int)(slash - p + 1) : 0;
  size_t len = strlen(p) + 8;
  char *out = malloc(len);
  if (out)
    snprintf(out, len, "%.*s.%s.lock", dirlen, p, p + dirlen);
  free(real);
  return out;
}

/* What the holder writes into the lock file (a failed write leaves the
 * lock held, only not described). */
static void describe_self(int fd) {
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0)
    snprintf(host, sizeof host, "an unknown host");
  time_t now = time(NULL);
  struct tm tm;
  char when[64] = "";
  if (gmtime_r(&now, &tm))
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  char me[512];
  int len = snprintf(me, sizeof me, "pid %ld on %s since %s\n", (long)getpid(), host, when);
  if (ftruncate(fd, 0) == 0 && len > 0)
    (void)!pwrite(fd, me, (size_t)len < sizeof me ? (size_t)len : sizeof me - 1, 0);
}

static void read_holder(int fd, char *holder, size_t n) {
  ssize_t got = pread(fd, holder, n - 1, 0);
  holder[got > 0 ? got : 0] = '\0';
  holder[strcspn(holder, "\n")] = '\0';
  if (!*holder)
    snprintf(holder, n, "another process");
}

/* Ctrl-C ends the wait: false.  A tenth of a second between tries. */
static bool nap(void) {
  struct timespec t = {.tv_nsec = 100000000};
  nanosleep(&t, NULL);
  return !cli_interrupted();
}

/* The lock is ours when the file we locked is still the one at that path
 * (a holder that ended removed it: then take the new one). */
static bool still_there(int fd, const char *path) {
  struct stat a, b;
  return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

int campaign_make_parent(const char *out) {
  const char *slash = strrchr(out, '/');
  if (!slash || slash == out)
    return CLI_OK; /* the current directory, or / */
  char *dir = strndup(out, (size_t)(slash - out));
  if (!dir) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  stp_error err = {0};
  int rc = stp_make_dirs(dir, &err) == STP_OK ? CLI_OK : CLI_USAGE;
  if (rc != CLI_OK)
    cli_error("%s: %s", out, err.message);
  free(dir);
  return rc;
}

int campaign_lock_take(const char *out, campaign_lock *l) {
  *l = (campaign_lock){.fd = -1};
  struct stat st;
  if (stat(out, &st) == 0 && !S_ISREG(st.st_mode))
    return CLI_OK; /* a device or a FIFO: whoever reads it sees what arrives */
  int made = campaign_make_parent(out);
  if (made != CLI_OK)
    return made;
  if (!(l->path = lock_path(out))) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  for (bool said = false;;) {
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        cli_error("%s: cannot create: %s", out, strerror(errno));
      else
        cli_error("%s: cannot create the lock file %s: %s", out, l->path, strerror(errno));
      campaign_lock_release(l);
      return CLI_USAGE;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    int got = fcntl(fd, F_SETLK, &fl);
    if (got == 0 && still_there(fd, l->path)) {
      describe_self(fd);
      l->fd = fd;
      return CLI_OK;
    }
    if (got == 0) { /* its holder removed it as we locked it: take the new one */
      close(fd);
      continue;
    }
    if (errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP) {
      fprintf(stderr, "streamtp: warning: %s: the file system takes no locks (%s): nothing keeps "
              "a second batch from writing it at the same time\n", out, strerror(errno));
      close(fd);
      free(l->path);
      l->path = NULL;
      return CLI_OK;
    }
    char holder[512];
    read_holder(fd, holder, sizeof holder);
    close(fd);
    if (!said)
      fprintf(stderr, "streamtp: batch: %s is being written by %s: waiting for it to end "
              "(Ctrl-C to stop)\n", out, holder);
    said = true;
    if (!nap()) {
      campaign_lock_release(l);
      return CLI_INTERRUPTED;
    }
  }
}

void campaign_lock_release(campaign_lock *l) {
  if (l->fd >= 0) {
    unlink(l->path); /* while still held: a waiter then sees it gone */
    close(l->fd);
  }
  free(l->path);
  *l = (campaign_lock){.fd = -1};
}

bool campaign_lock_holder(const char *path, char *holder, size_t n) {
  char *lp = lock_path(path);
  int fd = lp ? open(lp, O_RDONLY | O_CLOEXEC) : -1;
  free(lp);
  if (fd < 0)
    return false;
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  bool held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  if (held)
    read_holder(fd, holder, n);
  close(fd);
  return held;
}

/* ---- --merge PARTS ---------------------------------------------------------------- */

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

bool campaign_list_parts(const char *parts, char ***files, size_t *nfiles, char *msg, size_t n) {
  *files = NULL;
  *nfiles = 0;
  struct stat st;
  if (stat(parts, &st) != 0)
    return say(msg, n, "--merge: %s: %s", parts, strerror(errno));
  size_t cap = 16, count = 0;
  char **v = malloc(cap * sizeof *v);
  if (!v)
    return say(msg, n, "out of memory");
  if (!S_ISDIR(st.st_mode)) {
    if (!(v[count++] = strdup(parts)))
      goto oom;
    *files = v;
    *nfiles = count;
    return true;
  }
  DIR *d = opendir(parts);
  if (!d) {
    free(v);
    return say(msg, n, "--merge: %s: %s", parts, strerror(errno));
  }
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    size_t len = strlen(parts) + strlen(e->d_name) + 2;
    char *path = malloc(len);
    if (!path) {
      closedir(d);
      goto oom;
    }
    snprintf(path, len, "%s/%s", parts, e->d_name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
      free(path);
      continue;
    }
    if (count == cap) {
      char **p = realloc(v, 2 * cap * sizeof *p);
      if (!p) {
        free(path);
        closedir(d);
        goto oom;
      }
      v = p;
      cap *= 2;
    }
    v[count++] = path;
  }
  closedir(d);
  if (count == 0) {
    free(v);
    return say(msg, n, "--merge: %s: no file in this directory", parts);
  }
  qsort(v, count, sizeof *v, by_name);
  *files = v;
  *nfiles = count;
  return true;
oom:
  for (size_t k = 0; k < count; k++)
    free(v[k]);
  free(v);
  return say(msg, n, "out of memory");
}

/* What is wrong with the parts, kind by kind: the first few named. */
typedef struct complaints {
  size_t foreign, duplicated, lost;
} complaints;

static void complain(size_t *count, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void complain(size_t *count, const char *fmt, ...) {
  if (++*count > REPORT_MAX)
    return;
  va_list ap;
  va_start(ap, fmt);
  cli_verror(fmt, ap);
  va_end(ap);
}

typedef struct part_job {
  const campaign *c;
  campaign_plan *plan;
  complaints *bad;
  uint32_t part;
} part_job;

/* A row of part p into the plan (what is wrong is said, and counted). */
static bool index_row(void *ctx, const rowfile *rf, const rowfile_row *row, char *msg, size_t n) {
  (void)msg;
  (void)n;
  part_job *j = ctx;
  int64_t slot = campaign_slot(j->c, row->file, row->model);
  if (slot < 0) {
    complain(&j->bad->foreign, "%s:%" PRIu64 ": foreign row: %s (%s) is not among the inputs "
             "(or their models) of this merge", rf->path, row->line, row->file,
             row_model_text(row->model));
    return true;
  }
  if (row->status == ROW_CUT)
    return true; /* an interrupted try: another row must stand for it */
  int other = other_options(j->c, row);
  if (other >= 0) {
    char why[512];
    complain(&j->bad->foreign, "%s:%" PRIu64 ": foreign row: %s (%s) was made with other "
             "options (%s)", rf->path, row->line, row->file, row_model_text(row->model),
             options_text(j->c, row, other, why, sizeof why));
    return true;
  }
  campaign_source *s = &j->plan->src[slot];
  if (s->part != UINT32_MAX && s->model != row->model) {
    /* each file's own model: one input, two models; made with two --model */
    complain(&j->bad->foreign, "%s:%" PRIu64 ": foreign row: %s (%s), where %s holds its row "
             "(%s): were the parts made with different --model? Merge the parts of each "
             "--model apart, giving that --model", rf->path, row->line, row->file,
             row_model_text(row->model), j->plan->parts[s->part], row_model_text(s->model));
    return true;
  }
  if (s->part != UINT32_MAX) {
    complain(&j->bad->duplicated, "%s:%" PRIu64 ": duplicated row: %s (%s) is also in %s",
             rf->path, row->line, row->file, row_model_text(row->model),
             j->plan->parts[s->part]);
    return true;
  }
  *s = (campaign_source){.part = j->part, .status = row->status, .model = row->model,
                         .offset = row->offset, .length = row->length};
  return true;
}

static int read_part(const campaign *c, uint32_t p, int *format, campaign_plan *plan,
                     complaints *bad) {
  char msg[1024];
  rowfile *rf = malloc(sizeof *rf);
  if (!rf) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  part_job job = {.c = c, .plan = plan, .bad = bad, .part = p};
  int rc = rowfile_read_keys(plan->parts[p], *format, NULL, c->keys, index_row, &job, rf, msg,
                             sizeof msg);
  if (rc != CLI_OK)
    cli_error("%s", msg);
  if (rc == CLI_OK && rf->size > rf->complete) {
    cli_error("%s: its last row is incomplete (%" PRIu64 " bytes; a job killed while writing "
              "it?): resume that shard first", rf->path, rf->size - rf->complete);
    rc = CLI_USAGE;
  }
  if (rc == CLI_OK && (rf->nrows || rf->header)) {
    if (*format == ROWFILE_GUESS)
      *format = rf->format;
    if (rf->format != *format) {
      cli_error("%s: its rows are %s, those before %s", rf->path,
                rf->format == ROWFILE_CSV ? "CSV" : "JSON lines",
                *format == ROWFILE_CSV ? "CSV" : "JSON lines");
      rc = CLI_USAGE;
    } else if (rf->header && !plan->header) {
      plan->header = rf->header;
      rf->header = NULL;
    } else if (rf->header && strcmp(rf->header, plan->header) != 0) {
      cli_error("%s: its CSV header differs from that of the parts before it", rf->path);
      rc = CLI_USAGE;
    }
  }
  rowfile_free(rf);
  free(rf);
  return rc;
}

static void report_lost(const campaign *c, const campaign_plan *p, complaints *bad) {
  for (size_t s = 0; s < p->nslots; s++) {
    if (p->src[s].part != UINT32_MAX)
      continue;
    const char *model = c->models == STP_BATCH_BOTH ? (s % 2 ? "strict" : "overlap")
                        : c->models == STP_BATCH_OVERLAP ? "overlap"
                        : c->models == STP_BATCH_STRICT  ? "strict"
                                                         : "its model";
    complain(&bad->lost, "lost row: %s (%s) is in no part (or only cut short by an interrupt)",
             c->in[s / c->per].path, model);
  }
}

static void summarise(const char *what, size_t count) {
  if (count > REPORT_MAX)
    fprintf(stderr, "streamtp: error: ... %zu %s rows in all\n", count, what);
}

int campaign_merge_check(const campaign *c, char *const *parts, size_t nparts, int format,
                         campaign_plan *p) {
  *p = (campaign_plan){.parts = parts, .nparts = nparts, .nslots = c->n * c->per};
  if (!(p->src = malloc((p->nslots ? p->nslots : 1) * sizeof *p->src))) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  for (size_t s = 0; s < p->nslots; s++)
    p->src[s] = (campaign_source){.part = UINT32_MAX};
  complaints bad = {0};
  int rc = CLI_OK;
  for (uint32_t k = 0; k < nparts && rc != CLI_FAILURE; k++) {
    int r = read_part(c, k, &format, p, &bad);
    rc = r != CLI_OK ? r : rc;
  }
  p->format = format == ROWFILE_GUESS ? ROWFILE_CSV : format;
  if (rc == CLI_FAILURE)
    return rc;
  report_lost(c, p, &bad);
  summarise("foreign", bad.foreign);
  summarise("duplicated", bad.duplicated);
  summarise("lost", bad.lost);
  if (bad.foreign || bad.duplicated || bad.lost) {
    cli_error("the parts are not the rows of this batch: %zu lost, %zu duplicated, %zu foreign "
              "(nothing written)", bad.lost, bad.duplicated, bad.foreign);
    rc = CLI_USAGE;
  }
  return rc;
}

bool campaign_plan_has_file(const campaign_plan *p, const char *path) {
  struct stat a, b;
  if (stat(path, &a) != 0)
    return false;
  for (size_t k = 0; k < p->nparts; k++)
    if (stat(p->parts[k], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
      return true;
  return false;
}

/* Open parts, a few at a time: a campaign may have more parts than a
 * process may open files, and its rows alternate between them. */
typedef struct part_cache {
  FILE **f;
  size_t cap, open, clock;
  const campaign_plan *p;
} part_cache;

static size_t open_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return 64;
  if (rl.rlim_cur < rl.rlim_max) { /* ask for what the hard limit allows */
    rlim_t want = rl.rlim_max == RLIM_INFINITY ? 65536 : rl.rlim_max;
    struct rlimit up = {.rlim_cur = want, .rlim_max = rl.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &up) == 0)
      rl.rlim_cur = want;
  }
  return rl.rlim_cur > 80 ? (size_t)(rl.rlim_cur - 32) : 48;
}

static FILE *part_file(part_cache *pc, uint32_t k) {
  if (pc->f[k])
    return pc->f[k];
  while (pc->open >= pc->cap) { /* close another, round robin */
    pc->clock = (pc->clock + 1) % pc->p->nparts;
    if (pc->f[pc->clock] && pc->clock != k) {
      fclose(pc->f[pc->clock]);
      pc->f[pc->clock] = NULL;
      pc->open--;
    }
  }
  if ((pc->f[k] = fopen(pc->p->parts[k], "rb")))
    pc->open++;
  return pc->f[k];
}

/* Copy one row's bytes from its part to out: COPY_*. */
enum { COPIED, COPY_READ_FAILED, COPY_WRITE_FAILED };
static int copy_row(part_cache *pc, const campaign_source *s, FILE *out, char **buf,
                    size_t *cap) {
  FILE *f = part_file(pc, s->part);
  if (!f)
    return COPY_READ_FAILED;
  if (s->length > *cap) {
    char *b = realloc(*buf, s->length);
    if (!b)
      return COPY_READ_FAILED;
    *buf = b;
    *cap = s->length;
  }
  if (fseeko(f, (off_t)s->offset, SEEK_SET) != 0 || fread(*buf, 1, s->length, f) != s->length ||
      (*buf)[s->length - 1] != '\n')
    return COPY_READ_FAILED;
  return cli_write_record(out, *buf, s->length) ? COPIED : COPY_WRITE_FAILED;
}

int campaign_merge_write(const campaign_plan *p, FILE *out, campaign_merged *m) {
  memset(m, 0, sizeof *m);
  part_cache pc = {.p = p, .cap = open_limit()};
  pc.f = calloc(p->nparts ? p->nparts : 1, sizeof *pc.f);
  char *buf = NULL;
  size_t cap = 0;
  int got = !pc.f ? COPY_READ_FAILED
            : !p->header || cli_write_record(out, p->header, strlen(p->header)) ? COPIED
                                                                                : COPY_WRITE_FAILED;
  for (size_t s = 0; got == COPIED && s < p->nslots; s++) {
    const campaign_source *src = &p->src[s];
    if ((got = copy_row(&pc, src, out, &buf, &cap)) == COPY_READ_FAILED)
      cli_error("%s: cannot copy its row at byte %" PRIu64 " (did it change since the check?)",
                p->parts[src->part], src->offset);
    m->rows++;
    m->failed_rows += src->status != ROW_OK;
    m->input_errors += src->status == ROW_INPUT_ERROR;
    m->internal_errors += src->status == ROW_INTERNAL_ERROR;
  }
  if (!pc.f)
    cli_error("out of memory");
  for (size_t k = 0; pc.f && k < p->nparts; k++)
    if (pc.f[k])
      fclose(pc.f[k]);
  free(pc.f);
  free(buf);
  /* a failed write is said by whoever owns out: cli_finish (standard
   * output) or the commit of the file written whole */
  return got == COPIED ? CLI_OK : CLI_FAILURE;
}

void campaign_plan_free(campaign_plan *p) {
  free(p->header);
  free(p->src);
  memset(p, 0, sizeof *p);
}
