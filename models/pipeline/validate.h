/* validate.h: the checks every mapping passes, whichever way it comes in: a
 * mapping file (reader.c) or arrays given to the C API (build.c).  Each
 * check names the offending place as a path of the file format
 * ("stages[2].work", "mapping[1][0]"); a sink turns that path into context:
 * the reader finds its line and column in the text, the builder prints the
 * path itself.  One set of rules, one set of messages. */
#ifndef STP_VALIDATE_H
#define STP_VALIDATE_H

#include "base/core.h"
#include "base/inputrules.h"
#include "base/jsonpos.h"
#include "models/pipeline/mapping.h"

#include <stdbool.h>
#include <stddef.h>

/* Every computation and transfer time lies in [STP_MIN_TIME, STP_MAX_TIME]
 * (see validate.c, stp__check_times: sums along the event graph and the
 * rates of the Markov chains stay finite): the range of every reader. */
#define STP_MIN_TIME STP_TIME_MIN
#define STP_MAX_TIME STP_TIME_MAX
/* t within [STP_MIN_TIME, STP_MAX_TIME]. */
bool stp__time_ok(double t);

/* Where the messages go.  report() records `what` (already formatted) on
 * err with the context of `path` (its member name when at_key) and returns
 * STP_EINVAL. */
typedef struct stp_check_sink {
  stp_status (*report)(const struct stp_check_sink *s, const stp_jpath *path, bool at_key,
                       const char *what);
  void *ctx;
  stp_error *err;
} stp_check_sink;

/* Format the message and hand it to the sink. */
stp_status stp__check_fail(const stp_check_sink *s, stp_jpath path, bool at_key,
                           const char *fmt, ...) STP_PRINTF(4, 5);

/* x finite and > 0 (>= 0 when allow_zero); `what` names the quantity. */
stp_status stp__check_positive(const stp_check_sink *s, double x, stp_jpath path,
                               const char *what, bool allow_zero);
/* A name of n bytes: non-empty, at most STP_MAX_NAME bytes, no control
 * character. */
stp_status stp__check_name(const stp_check_sink *s, const char *name, size_t n, stp_jpath path,
                           const char *what);

/* Sizes of the top-level arrays against the documented limits. */
stp_status stp__check_count(const stp_check_sink *s, const char *key, size_t n, bool required,
                            size_t max);
/* One team per stage, none empty (team_size(i) for i < nteams). */
stp_status stp__check_team_count(const stp_check_sink *s, size_t nteams, size_t nstages);
stp_status stp__check_team_size(const stp_check_sink *s, size_t i, size_t size);

/* Processor names sorted once, for duplicate checks and lookups by name.
 * Records carry their own keys so that qsort needs no context (readers run
 * in several threads at once under `batch --jobs`). */
typedef struct stp_name_rec {
  const char *name;
  size_t index;
} stp_name_rec;
typedef struct stp_name_index {
  size_t n;
  stp_name_rec *rec;
} stp_name_index;
/* Index the processor (stage) names of m; the names are not copied. */
stp_status stp__name_index_build_procs(stp_name_index *ix, const stp_mapping *m, stp_error *err);
stp_status stp__name_index_build_stages(stp_name_index *ix, const stp_mapping *m, stp_error *err);
/* Index of `name`, or SIZE_MAX. */
size_t stp__name_index_find(const stp_name_index *ix, const char *name);
void stp__name_index_free(stp_name_index *ix);

/* Stage names are unique; processor names are unique (ix indexes them). */
stp_status stp__check_stage_names(const stp_check_sink *s, const stp_mapping *m);
stp_status stp__check_processor_names(const stp_check_sink *s, const stp_mapping *m,
                                      const stp_name_index *ix);
/* links[k] joins two different processors; no link is declared twice. */
stp_status stp__check_link(const stp_check_sink *s, const stp_mapping *m, size_t k);
stp_status stp__check_links_unique(const stp_check_sink *s, const stp_mapping *m);
/* No processor twice in a team nor in two teams (team_off/team filled). */
stp_status stp__check_teams(const stp_check_sink *s, const stp_mapping *m);
/* After stp__mapping_finalize: every link that carries data has a
 * bandwidth, and every computation and transfer time lies in
 * [STP_MIN_TIME, STP_MAX_TIME].  Costs O(team members + links), never one
 * step per pair of communicating processors. */
stp_status stp__check_times(const stp_check_sink *s, const stp_mapping *m);

#endif /* STP_VALIDATE_H */
