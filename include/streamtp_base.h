/* streamtp_base.h: what every part of libstreamtp and its users share:
 * the version, status codes, error messages with context, cancellation and
 * the limits of the analyses.  It includes nothing else of streamtp: it is
 * the public half of the ground floor (docs/design.md, "Floors").
 *
 * Conventions: every fallible function returns an stp_status and writes its
 * outputs through pointers; on failure nothing leaks, *out is NULL and the
 * stp_error passed by the caller holds a message with context.  The library
 * never prints, exits or aborts on bad input.  Free functions accept NULL.
 */
#ifndef STREAMTP_BASE_H
#define STREAMTP_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions the shared library exports; everything else is hidden. */
#if defined(__GNUC__)
#define STP_API __attribute__((visibility("default")))
#else
#define STP_API
#endif

#define STP_VERSION "0.1.0"
/* The version of the library actually loaded (STP_VERSION when it was
 * built): what bindings that load it at run time (Python) report. */
STP_API const char *stp_version(void);

/* ---- status codes --------------------------------------------------------
 * One table generates the enum, the names and the default messages. */
#define STP_STATUS_MAP(X)                                                   \
  X(OK, "success")                                                          \
  X(EINVAL, "invalid input")                                                \
  X(EIO, "cannot read or write a file")                                     \
  X(ELIMIT, "beyond a size limit")                                          \
  X(EDEADLOCK, "deadlock: a cycle of the event graph holds no token")       \
  X(ENUMERIC, "numerical failure")                                          \
  X(ENOMEM, "out of memory")                                                \
  X(EINTERRUPTED, "interrupted")                                            \
  X(EINTERNAL, "internal error")

typedef enum {
#define STP_STATUS_ENUM_(name, msg) STP_##name,
  STP_STATUS_MAP(STP_STATUS_ENUM_)
#undef STP_STATUS_ENUM_
  STP_STATUS_COUNT_
} stp_status;

/* "EINVAL", ... */
STP_API const char *stp_status_name(stp_status s);
/* A one-line default description of the status. */
STP_API const char *stp_status_message(stp_status s);
/* 1 when the status means the input (file, option, size) is at fault and
 * 0 when it means an internal failure (memory, numerics, bug). */
STP_API int stp_status_is_input_error(stp_status s);

/* Where a confidence interval [lo, hi] lies relative to the exact bounds
 * [lower, upper] of the same quantity, with a relative slack of 1e-9:
 * "above" (lo above a finite upper), "below" (hi below a finite lower),
 * "within" (both bounds finite, neither of the others) or "unknown".  The
 * same words in every command that checks a Monte Carlo estimate against
 * its bounds. */
STP_API const char *stp_interval_position(double lo, double hi, double lower, double upper);

/* The accepted range of every time (and of every quantity a time is made
 * of) that a file, an option or an array hands the library: 0 where a
 * reader allows it, else [STP_TIME_MIN, STP_TIME_MAX].  Sums of up to 10^8
 * such times along a schedule, and the rates 1 / time of the Markov chains,
 * then stay far from overflow and underflow (docs/format.md, "Numbers"). */
#define STP_TIME_MIN 1e-150
#define STP_TIME_MAX 1e150

/* ---- limits ----------------------------------------------------------------
 * The sizes a caller may raise (SQLite's sqlite3_limit categories): a
 * computation that would go beyond one fails with STP_ELIMIT, or leaves a
 * value missing with a reason, and says which limit, the size it needed and
 * the size allowed.  The library's message describes the limit in its own
 * words and names no option of a front end: the command line appends
 * "raise --max-states", Python its keyword argument (docs/guide/c.md,
 * "Errors and limits").  One table generates the kinds and their names,
 * each set by: STATES (Markov chain states, or order
 * ideals: stp_options.max_states, stp_graph_options.max_states, ...),
 * TRANSITIONS (the full event graph: stp_options.max_transitions), MEMORY
 * (bytes: stp_control.max_memory), NODES (search nodes:
 * stp_redist_options.max_nodes), WORK (elementary steps of a search:
 * stp_redist_options.max_work).  NONE: not a limit a caller sets. */
#define STP_LIMIT_MAP(X)                                                    \
  X(NONE, "none")                                                           \
  X(STATES, "states")                                                       \
  X(TRANSITIONS, "transitions")                                             \
  X(MEMORY, "memory")                                                       \
  X(NODES, "nodes")                                                         \
  X(WORK, "work")

typedef enum {
#define STP_LIMIT_ENUM_(name, word) STP_LIMIT_##name,
  STP_LIMIT_MAP(STP_LIMIT_ENUM_)
#undef STP_LIMIT_ENUM_
  STP_LIMIT_COUNT_
} stp_limit_kind;

/* "states", "memory", ... ("none" for STP_LIMIT_NONE). */
STP_API const char *stp_limit_name(stp_limit_kind k);

typedef struct stp_limit {
  stp_limit_kind kind; /* STP_LIMIT_NONE: no limit of a caller's (or no error) */
  /* In the kind's unit (states, transitions, bytes, nodes, steps):
   * needed: what the computation needs at least, above allowed (the count
   * reached when it stopped at the limit, a lower bound proved before
   * starting, or the estimate it was refused on); allowed: the limit in
   * force; estimate: the library's estimate of the whole need where it has
   * one (0: none). */
  uint64_t needed, allowed, estimate;
} stp_limit;

#define STP_ERROR_MAX 1024
typedef struct stp_error {
  stp_status status;
  char message[STP_ERROR_MAX]; /* "file:line:col: what is wrong" */
  stp_limit limit;             /* with STP_ELIMIT: which limit, needed and allowed */
} stp_error;

/* Prefix err's message with the formatted text and ": " (keeps the status);
 * callers add context ("file.json: ...") as an error travels up. */
#if defined(__GNUC__)
STP_API void stp_error_prefix(stp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#else
STP_API void stp_error_prefix(stp_error *err, const char *fmt, ...);
#endif

/* ---- numbers as text --------------------------------------------------------
 * The shortest of %.15g, %.16g and %.17g that reads back (strtod) to exactly
 * x, with a '.' whatever the locale: 0.2 -> "0.2", not 0.20000000000000001.
 * Not finite: "inf", "-inf", "nan".  Writes at most n bytes (NUL included)
 * and returns what snprintf returns (n >= 32 always suffices). */
STP_API int stp_format_double(double x, char *buf, size_t n);

/* ---- names in pictures ------------------------------------------------------
 * s (a name: any bytes, from a file, or a file name made a default name)
 * written to f so that the SVG or Graphviz file around it stays
 * well-formed: as XML 1.0 character data or a double-quoted attribute value
 * (& < > " as entities, tab, line feed and return as character
 * references), or as the inside of a DOT quoted string (" and \ after a
 * backslash).  What neither may hold is written as text: a byte that is
 * not UTF-8 as \xNN (as the JSON of such a name), a control character as
 * \xNN, U+FFFE and U+FFFF as \ufffe and \uffff (in DOT with the
 * backslash doubled, so that it is not read as an escape).  NULL: nothing. */
STP_API void stp_write_xml_text(FILE *f, const char *s);
STP_API void stp_write_dot_text(FILE *f, const char *s);

/* ---- files written whole ---------------------------------------------------
 * A file that is written whole (an answer, a picture, a merged campaign, a
 * chain export) goes to a temporary file beside it, which replaces the old
 * file only once complete: a full disk, a failed write or a kill leaves the
 * old file or the new one, never a mixture (docs/format.md, "Files written
 * whole").
 *
 * stp_atomic_open(path, &a, &f, err) gives a stream f to write the new
 * contents to, and a handle a to finish with exactly one of
 * stp_atomic_commit (the new file replaces the old) or stp_atomic_abort
 * (the old file stays); never fclose(f).  What path may name:
 *  - nothing yet (the directory must exist), or a regular file: the
 *    temporary is DIR/.NAME.stp-XXXXXX in the file's own directory (so that
 *    rename() replaces it in one step), created with the old file's
 *    permission bits (a new file: 0666 less the umask); a symbolic link is
 *    followed, the file it names is replaced and the link kept.  The
 *    replaced file gets a new inode: hard links to it keep the old contents.
 *  - a character device (/dev/null, /dev/full, a terminal), a FIFO, or a
 *    symbolic link under /dev/ or /proc/ (/dev/stdout, /dev/fd/N): written
 *    directly, as the shell's '>' would (a FIFO's open waits for a reader:
 *    a signal that interrupts it, not restarted, gives STP_EINTERRUPTED);
 *  - a directory, a block device or a socket: refused (STP_EIO), and so is
 *    "-" (STP_EINVAL): standard output is the caller's to write.
 * On failure *out and *f are NULL, nothing is created and err says why. */
typedef struct stp_atomic_file stp_atomic_file;
STP_API stp_status stp_atomic_open(const char *path, stp_atomic_file **out, FILE **f,
                                   stp_error *err);
/* Flush, fsync, and rename the temporary over path (a direct write: flush
 * and close).  Frees a.  On failure (a write error seen on f at any time,
 * a full disk, EIO) the temporary is removed, the old file is left as it
 * was, and err says "PATH: cannot write: REASON". */
STP_API stp_status stp_atomic_commit(stp_atomic_file *a, stp_error *err);
/* Removes the temporary (a direct write: just closes) and frees; NULL ok. */
STP_API void stp_atomic_abort(stp_atomic_file *a);
/* mkdir -p: dir and its missing parents (an existing directory is fine).
 * STP_EIO "DIR: cannot create the directory: REASON". */
STP_API stp_status stp_make_dirs(const char *dir, stp_error *err);

/* ---- an index of names ------------------------------------------------------
 * Numbers distinct strings 0, 1, 2, ... in the order they are added and
 * finds one back in constant time (the library's hash map): for a front end
 * that matches what it reads back (the rows of a campaign) to its inputs by
 * name.  The strings are copied. */
typedef struct stp_names stp_names;
STP_API stp_status stp_names_new(stp_names **out, stp_error *err);
STP_API void stp_names_free(stp_names *names);
/* The index of s, added when new (*added = 1, else 0; added may be NULL). */
STP_API stp_status stp_names_add(stp_names *names, const char *s, size_t *index, int *added,
                                 stp_error *err);
/* The index of s, or SIZE_MAX when it was never added. */
STP_API size_t stp_names_find(const stp_names *names, const char *s);

/* ---- analysis options ------------------------------------------------------ */
typedef enum {
  STP_EXP_AUTO = 0,    /* closed form where it holds, Markov chain otherwise */
  STP_EXP_CLOSED_FORM, /* refuse where no closed form holds */
  STP_EXP_CTMC,        /* always solve the Markov chain (checks the closed form) */
  STP_EXP_NONE         /* skip the exponential computation */
} stp_exp_method;

/* Cancellation: long computations call fn(data) now and then (once per
 * iteration or per block of work) and stop with STP_EINTERRUPTED when it
 * returns nonzero.  Evaluations may run in several threads at once (batch):
 * fn must then be thread-safe, e.g. an atomic load of a flag that a signal
 * handler sets.  fn = NULL: never cancelled. */
typedef struct stp_cancel {
  int (*fn)(void *data);
  void *data;
} stp_cancel;

/* Progress of a long computation (the enumeration of a Markov chain):
 * called now and then from the computing thread with what is being done,
 * how far it got, and an estimate of the total (0: none).  The callee
 * decides what to show and when (the CLI: on standard error after 1 s). */
typedef struct stp_progress_info {
  const char *what;  /* "enumerating the Strict markings" */
  uint64_t done;     /* states found so far */
  uint64_t estimate; /* a lower bound of the total, 0 if unknown */
  double seconds;    /* since this computation started */
} stp_progress_info;
typedef struct stp_progress {
  void (*fn)(const stp_progress_info *info, void *data);
  void *data;
} stp_progress;

/* ---- the run contract -------------------------------------------------------
 * What every long computation of the library obeys, whichever domain it
 * serves (docs/design.md, "The run contract"): each analysis takes one
 * stp_control in its options and
 *  - polls control.cancel often enough to stop within a fraction of a
 *    second (STP_EINTERRUPTED, nothing returned);
 *  - reports through control.progress what it is doing;
 *  - checks control.max_memory on an estimate before its large allocations
 *    and refuses with STP_ELIMIT and the limit STP_LIMIT_MEMORY rather
 *    than running out of memory.
 * A zero-initialised stp_control means: never cancelled, no progress, the
 * default budget. */
typedef struct stp_control {
  stp_cancel cancel;     /* see stp_cancel; fn = NULL: never cancelled */
  stp_progress progress; /* see stp_progress; fn = NULL: none */
  uint64_t max_memory;   /* bytes; 0: STP_DEFAULT_MEMORY_FRACTION of the physical memory */
} stp_control;

#define STP_DEFAULT_MEMORY_FRACTION 0.25
/* The budget c->max_memory stands for (its default resolved; c may be NULL). */
STP_API uint64_t stp_control_memory_budget(const stp_control *c);
/* A ready-made cancel function: nonzero when the int at `data` is nonzero
 * (read atomically), so that a signal handler or another thread can stop a
 * computation by setting it: {.fn = stp_cancel_flag, .data = &flag} with
 * `volatile sig_atomic_t` or `atomic_int` flag. */
STP_API int stp_cancel_flag(void *data);

typedef struct stp_options {
  uint64_t max_transitions; /* full event graph size limit (Strict, teg) */
  uint64_t max_states;      /* Markov chain size limit */
  stp_exp_method exp_method;
  double solver_tolerance;  /* accepted scaled residual of stationary solves */
  /* Cancel, progress and the memory budget of a chain's states and of the
   * full Strict event graph (checked on an estimate before building and
   * enforced while enumerating). */
  stp_control control;
  /* The exact value under a phase-type law (streamtp_law.h; docs/design.md,
   * "Phase-type laws"): the law of the times that the mapping file's
   * "laws" do not set; NULL: the file's "laws" default, else exp, and no
   * such value at all when the file has no "laws" or sets one that is not
   * phase-type (those are for simulate). */
  const struct stp_law *law;
  /* Nonzero: solve the Markov chains across the ranks of an MPI job
   * (streamtp_distributed.h; collective); 0: in this process. */
  int distributed;
} stp_options;

/* The budget o->control.max_memory stands for (its default resolved). */
STP_API uint64_t stp_options_memory_budget(const stp_options *o);

#define STP_DEFAULT_MAX_TRANSITIONS UINT64_C(20000000)
#define STP_DEFAULT_MAX_STATES UINT64_C(2000000)
STP_API void stp_options_init(stp_options *o);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_BASE_H */
