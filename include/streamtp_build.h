/* streamtp_build.h: build a mapping from C arrays, without a file.
 *
 * A scheduling heuristic written in C can evaluate thousands of candidate
 * mappings this way: describe the stages, the processors, the links and the
 * teams, call stp_mapping_build, then stp_evaluate or stp_simulate
 * (streamtp.h) and stp_mapping_free.  The mapping passes exactly the checks
 * of a mapping file (docs/format.md, "Mapping files"), with the same
 * messages; they name the offending entry by its place in the file format:
 * stages[i], processors[p], links[k], and mapping[i][k] for member k of the
 * team of stage i.  Example (Example A of the README, bench/api/):
 *
 *   stp_build_stage st[] = {{"T1", 710, 20}, {"T2", 290, 378}, ...};
 *   stp_build_processor pr[] = {{"P0", 4}, {"P1", 10}, ...};
 *   stp_build_link ln[] = {{2, 3, 2.0}};            // P2 -> P3, bandwidth 2
 *   size_t sizes[] = {1, 2, 3, 1}, teams[] = {0, 1, 2, 3, 4, 5, 6};
 *   stp_build_spec spec;
 *   stp_build_spec_init(&spec);
 *   spec.stages = st; spec.nstages = 4; spec.processors = pr; spec.nprocessors = 7;
 *   spec.bandwidth = 1; spec.links = ln; spec.nlinks = 1;
 *   spec.team_sizes = sizes; spec.teams = teams;
 *   stp_mapping *m; stp_error err;
 *   if (stp_mapping_build(&spec, &m, &err) != STP_OK) puts(err.message);
 */
#ifndef STREAMTP_BUILD_H
#define STREAMTP_BUILD_H

#include "streamtp_pipeline.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stp_build_stage {
  const char *name; /* NULL: "T1", "T2", ... (copied) */
  double work;      /* > 0 */
  double output;    /* > 0; >= 0 and unused for the last stage */
} stp_build_stage;

typedef struct stp_build_processor {
  const char *name; /* NULL: "P0", "P1", ... (copied); unique */
  double speed;     /* > 0 */
} stp_build_processor;

typedef struct stp_build_link {
  size_t from, to;  /* processor indices */
  double bandwidth; /* > 0 */
} stp_build_link;

typedef struct stp_build_spec {
  const char *name;  /* the mapping's name; NULL: "mapping" */
  stp_model model;   /* what stp_mapping_model returns (default overlap) */
  size_t nstages;
  const stp_build_stage *stages;
  size_t nprocessors;
  const stp_build_processor *processors;
  double bandwidth;  /* default bandwidth of every link; 0: none */
  size_t nlinks;
  const stp_build_link *links; /* overrides of the default, may be NULL when nlinks = 0 */
  const size_t *team_sizes;    /* nstages entries, R_i >= 1 */
  const size_t *teams;         /* processor indices, team after team (sum of team_sizes) */
} stp_build_spec;

/* Zero counts, NULL arrays, no default bandwidth, Overlap. */
STP_API void stp_build_spec_init(stp_build_spec *spec);

/* A mapping from spec (every string and array is copied: spec may be freed
 * afterwards).  STP_EINVAL with a message for every rule a mapping file
 * obeys (positive finite values, unique names, a processor in at most one
 * team, a bandwidth for every link that carries data, positive times) and
 * for indices out of range; STP_ENOMEM.  Cost: O(links log links +
 * processors log processors + the links that carry data). */
STP_API stp_status stp_mapping_build(const stp_build_spec *spec, stp_mapping **out,
                                     stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_BUILD_H */
