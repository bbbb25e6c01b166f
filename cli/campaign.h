/* campaign.h: a batch run as a campaign of independent jobs (docs/cluster.md):
 * the share of the inputs one job takes (--shard I/N, or from a Slurm job
 * array's variables), what an earlier run of that job already wrote
 * (--resume OUT), and the merge of the jobs' outputs into the rows of one
 * run, in input order (--merge PARTS).  A row belongs to an input by its
 * "file" field (the path as listed) and to one of the input's rows by its
 * "model"; its "status" says whether it stands (rowfile.h). */
#ifndef STP_CAMPAIGN_H
#define STP_CAMPAIGN_H

#include "cli/rowfile.h"
#include "streamtp_batch.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- shards ---------------------------------------------------------------------- */

/* "I/N" with 0 <= I < N: false with msg filled otherwise. */
bool campaign_parse_shard(const char *s, uint64_t *index, uint64_t *count, char *msg, size_t n);
/* The shard of a Slurm array task: I = (SLURM_ARRAY_TASK_ID - MIN) / STEP and
 * N = SLURM_ARRAY_TASK_COUNT.  0: not in an array task; 1: *index, *count
 * and `from` (what it was derived from) filled; -1: an array whose indices
 * are not a range (msg says why: --shard is then needed). */
int campaign_shard_from_env(uint64_t *index, uint64_t *count, char *from, size_t nfrom,
                            char *msg, size_t n);
/* Input k belongs to shard I of N when k mod N = I: every shard gets the
 * same number of inputs to within one, whatever the machine, and inputs
 * whose cost grows along the list are spread over all shards.  Fills
 * *out with the inputs of the shard (shallow copies: the strings stay
 * those of in) and *nout. */
bool campaign_select_shard(const stp_batch_input *in, size_t n, uint64_t index, uint64_t count,
                           stp_batch_input **out, size_t *nout);

/* ---- the rows a campaign expects ----------------------------------------------------
 * Slot s = k * per + r is row r of input k: per = 2 under --model both
 * (overlap, then strict), else 1. */
typedef struct campaign {
  const stp_batch_input *in;
  size_t n, per;
  stp_batch_models models;
  stp_names *paths; /* input index by path */
  /* The options its rows are made with, as rows record them: every row
   * that succeeded holds key k (a JSON path, a CSV column) with the value
   * want[k] ("*": an object or array; NULL: null, empty or absent), else it
   * is foreign (made by another batch).  Set by the caller; at most
   * ROWFILE_MAX_KEYS. */
  const char *keys[ROWFILE_MAX_KEYS + 1];
  const char *want[ROWFILE_MAX_KEYS];
} campaign;

/* False (msg filled) when out of memory or when two inputs have the same
 * path (their rows could not be told apart). */
bool campaign_init(campaign *c, const stp_batch_input *in, size_t n, stp_batch_models models,
                   char *msg, size_t nmsg);
void campaign_free(campaign *c);
/* The slot of a row, or -1 when the campaign has no such row (its file is
 * not an input, or its model is not one asked for). */
int64_t campaign_slot(const campaign *c, const char *file, uint8_t model);
/* The slot of a row as the batch hands it over: input k, its model. */
int64_t campaign_row_slot(const campaign *c, size_t k, stp_model model);

/* ---- --resume OUT ----------------------------------------------------------------- */

typedef struct campaign_resume {
  uint8_t *status;      /* per slot: ROW_* of its standing row, or ROW_CUT: none */
  size_t inputs_done;   /* inputs whose every row stands */
  size_t rows_done;
  bool has_header;      /* OUT already starts with the CSV header */
  int format;           /* of OUT (ROWFILE_CSV or ROWFILE_JSONL) */
  uint64_t dropped;     /* bytes of an incomplete last record, cut off */
} campaign_resume;

/* Reads OUT (a missing or empty file: nothing done) and truncates it after
 * its last complete record, when what follows is the start of one of the
 * campaign's rows.  format: ROWFILE_GUESS, or the --format given, which
 * must then be OUT's.  csv_header: the header this streamtp writes, which
 * OUT's must equal.  Refuses OUT, untouched, when it is not rows of a batch
 * (rowfile_read), holds a row the campaign does not expect (another
 * shard's, another batch's) or the same row twice, or ends in a line that
 * is not a row's start.  Returns CLI_OK, else CLI_USAGE or CLI_FAILURE with
 * msg filled. */
int campaign_resume_read(const campaign *c, const char *out, int format, const char *csv_header,
                         campaign_resume *r, char *msg, size_t n);
void campaign_resume_free(campaign_resume *r);

/* ---- one writer per output ---------------------------------------------------------
 * A batch that writes OUT (--resume OUT, -o OUT) holds an advisory lock
 * (fcntl) on DIR/.NAME.lock beside it, which says who holds it ("pid 4242
 * on node7 since 2024-05-01 12:00:00 UTC").  The kernel (or the NFS lock
 * manager) drops the lock when its holder ends, even by SIGKILL; a stale
 * lock file is harmless. */
typedef struct campaign_lock {
  int fd; /* -1: no lock held */
  char *path;
} campaign_lock;

/* Takes OUT's lock, waiting while another process holds it (said once on
 * standard error, naming the holder; Ctrl-C ends the wait).  OUT that
 * exists and is not a regular file (a device, a FIFO) gets no lock.  A
 * file system without locks (ENOLCK) gets a warning and no lock.  Returns
 * CLI_OK, CLI_INTERRUPTED, or CLI_USAGE / CLI_FAILURE with the message
 * printed. */
int campaign_lock_take(const char *out, campaign_lock *l);

/* The directory that will hold out (and its parents) made where missing,
 * as generate -o does; CLI_OK or CLI_USAGE with the message printed. */
int campaign_make_parent(const char *out);
/* Removes the lock file and drops the lock (NULL fd: nothing). */
void campaign_lock_release(campaign_lock *l);
/* True, with the holder's description in holder, when a process holds
 * path's lock now. */
bool campaign_lock_holder(const char *path, char *holder, size_t n);

/* ---- --merge PARTS ------------------------------------------------------------------- */

/* The files of the parts: a directory's regular files (not hidden, sorted
 * by name), or the file itself. */
bool campaign_list_parts(const char *parts, char ***files, size_t *nfiles, char *msg, size_t n);

typedef struct campaign_source {
  uint32_t part;   /* index in the parts; UINT32_MAX: no standing row yet */
  uint8_t status;  /* ROW_* */
  uint8_t model;   /* ROW_MODEL_* of that row */
  uint64_t offset, length;
} campaign_source;

typedef struct campaign_plan {
  char *const *parts;
  size_t nparts;
  int format;       /* of the parts */
  char *header;     /* CSV: their header */
  campaign_source *src; /* per slot */
  size_t nslots;
} campaign_plan;

/* Reads the parts and checks that they hold, between them, exactly one
 * standing row for every slot (rows an interrupt cut short are left out),
 * of one format and, for CSV, under one header.  Every lost, duplicated or
 * foreign row is reported on standard error (the first ten of each kind
 * and how many in all).  format: ROWFILE_GUESS or the --format given.
 * Returns 0, 2 (the parts are not one campaign's rows) or 1 (a read
 * failure, out of memory), the messages printed. */
int campaign_merge_check(const campaign *c, char *const *parts, size_t nparts, int format,
                         campaign_plan *p);
/* True when path (an existing file) is one of the parts. */
bool campaign_plan_has_file(const campaign_plan *p, const char *path);

typedef struct campaign_merged {
  size_t rows, failed_rows, input_errors, internal_errors;
} campaign_merged;

/* Writes the header (CSV) and the rows, in slot order, byte for byte as the
 * parts hold them.  Returns 0, or 1 after printing why (a part changed
 * since the check, a write error). */
int campaign_merge_write(const campaign_plan *p, FILE *out, campaign_merged *m);
void campaign_plan_free(campaign_plan *p);

#endif /* STP_CAMPAIGN_H */
