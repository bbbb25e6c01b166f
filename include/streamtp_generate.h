/* streamtp_generate.h: random instances and mapping files.
 *
 * stp_generate builds random mappings following the protocol of the paper's
 * section 7.1 (Table 1): a pipeline of N stages on M processors, every
 * processor in exactly one team, computation and communication times drawn
 * uniformly in given ranges.  It is seeded and portable: the same parameters,
 * seed and index give the same mapping on every machine.  stp_mapping_to_json
 * and stp_mapping_save_file write any mapping back as a mapping file
 * (docs/format.md) that reads back to the same mapping.
 */
#ifndef STREAMTP_GENERATE_H
#define STREAMTP_GENERATE_H

#include "streamtp_pipeline.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest instance stp_generate builds (links grow like the product of
 * neighbouring team sizes). */
#define STP_GENERATE_MAX_STAGES 10000
#define STP_GENERATE_MAX_PROCESSORS 100000
#define STP_GENERATE_MAX_LINKS 10000000

/* How a time in [min, max] is drawn. */
typedef enum {
  STP_DRAW_TIMES = 0,     /* the time is uniform in [min, max] */
  STP_DRAW_RATES = 1,     /* the speed or bandwidth, 1/time, is uniform in [1/max, 1/min] */
  STP_DRAW_INTEGER_TIMES  /* the time is a uniform integer in [min, max] */
} stp_generate_draw;

/* How random team sizes R_1..R_N are drawn for M processors (the paper only
 * says that "the number of processors computing the same stage" is chosen
 * uniformly; these are the readings compared in notebooks-data/README.md). */
typedef enum {
  STP_TEAMS_COMPOSITION = 0, /* uniform over the splits of M into N positive parts
                                (every processor used) */
  STP_TEAMS_FIT,             /* uniform over the size vectors with R_1 + ... + R_N <= M:
                                sizes uniform in 1..M-N+1, redrawn until they fit
                                (processors may stay unused) */
  STP_TEAMS_INDEPENDENT,     /* each R_i uniform in 1..floor(M/N), independently
                                (processors may stay unused) */
  STP_TEAMS_SEQUENTIAL       /* stage by stage, R_i uniform in 1..(processors left
                                minus one per later stage); the last stage takes
                                the rest (every processor used) */
} stp_generate_teams;

/* Which resources get their own time. */
typedef enum {
  STP_COMP_PER_PROCESSOR = 0, /* one computation time per processor */
  STP_COMP_PER_STAGE          /* one per stage, shared by its team */
} stp_generate_comp;
typedef enum {
  STP_COMM_PER_LINK = 0,      /* one communication time per link that carries data */
  STP_COMM_PER_TRANSFER,      /* one per pair of consecutive stages, shared by its links */
  STP_COMM_PER_PROCESSOR      /* one per processor (its private link, as in a SimGrid
                                 cluster); p -> q takes the larger of the two times */
} stp_generate_comm;

typedef struct stp_generate_params {
  size_t stages;       /* N >= 1 */
  size_t processors;   /* M >= N; 0 with teams: the sum of the teams */
  const size_t *teams; /* N team sizes, or NULL for random sizes drawn as team_sizes says */
  stp_generate_teams team_sizes;
  double comp_min, comp_max; /* computation times, uniform in [min, max] */
  double comm_min, comm_max; /* communication times, uniform in [min, max] */
  stp_generate_draw draw;
  stp_generate_comp comp_per;
  stp_generate_comm comm_per;
  stp_model model;     /* written into the mapping */
  uint64_t seed;
  bool all_links;      /* a link for every ordered pair of processors, not only for the
                          pairs that carry data (problems for stp_optimize, which may
                          pair any two); per link or per processor only */
} stp_generate_params;

/* Fill p with the defaults: 10 stages on 20 processors, random teams, times
 * in [5, 15], Overlap, seed 1. */
STP_API void stp_generate_params_init(stp_generate_params *p);

/* Instance number `index` of the family (p, seed), named `name`.  Each index
 * has its own random stream, so instance k does not depend on how many are
 * generated.  Stage i has work 1 and output 1; processor p has speed 1 / c_p
 * with c_p its drawn computation time; each link that carries data
 * (docs/design.md 4) gets bandwidth 1 / d with d its drawn communication time, or
 * a single default bandwidth when comm_min = comm_max; with all_links, every
 * ordered pair of distinct processors gets its own link, drawn in (from,
 * to) order after the computation times.  All M processors are
 * declared, also those that team_sizes leaves unused.  EINVAL for bad
 * parameters (team_sizes other than COMPOSITION with fixed teams), ELIMIT
 * beyond the STP_GENERATE_MAX_* sizes. */
STP_API stp_status stp_generate(const stp_generate_params *p, uint64_t index, const char *name,
                        stp_mapping **out, stp_error *err);

/* The mapping as mapping-file text (docs/format.md), NUL-terminated, one stage,
 * processor or link per line.  Numbers are written with the fewest digits
 * that read back to the same double. */
STP_API stp_status stp_mapping_to_json(const stp_mapping *m, char **text, size_t *len, stp_error *err);
/* Write that text to path, whole (stp_atomic_open: a temporary renamed over
 * the old file once complete); EIO names the path. */
STP_API stp_status stp_mapping_save_file(const stp_mapping *m, const char *path, stp_error *err);

/* ---- an experiment written to a directory (streamtp generate -o DIR) ------------- */
#define STP_GENERATE_MAX_FILES UINT64_C(10000000)

typedef struct stp_generate_files_options {
  const char *directory; /* made, with its parents, when missing */
  const char *prefix;    /* mapping k is DIRECTORY/PREFIX-0000k.json (at least 5 digits) */
  uint64_t count;        /* 1 .. STP_GENERATE_MAX_FILES */
  int force;             /* write over PREFIX-*.json of another run */
  stp_control control;   /* cancel (between two files: every file written is whole) */
} stp_generate_files_options;

/* prefix "map", count 1, no force. */
STP_API void stp_generate_files_options_init(stp_generate_files_options *o);

typedef struct stp_generate_files_result {
  char *directory, *prefix;
  uint64_t count;     /* files of the run: paths[0 .. count) */
  char **paths;
  uint64_t written;   /* among them, written now */
  uint64_t unchanged; /* already there with this very content (a rerun) */
} stp_generate_files_result;
STP_API void stp_generate_files_result_free(stp_generate_files_result *r);

/* Write mappings 1 .. o->count of p (stp_generate, named PREFIX-0000k) as
 * files, each whole (stp_atomic_open), leaving a file that holds exactly
 * that mapping already as it is.  Refuses (STP_EINVAL, naming a file),
 * before writing anything, a directory holding PREFIX-*.json that are not
 * this run's (another run's experiment), unless o->force.  Errors: those of
 * stp_generate; EIO (a directory that cannot be made, a file that cannot be
 * written); EINTERRUPTED. */
STP_API stp_status stp_generate_files(const stp_generate_params *p,
                                      const stp_generate_files_options *o,
                                      stp_generate_files_result **out, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_GENERATE_H */
