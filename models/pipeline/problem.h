/* problem.h: an optimisation problem (streamtp_optimize.h): a platform
 * (stages, processors, links) read like a mapping file whose "mapping" is
 * optional, and the arrays that stp_mapping_build takes to make any
 * candidate mapping of it with every check of a mapping file. */
#ifndef STP_PROBLEM_H
#define STP_PROBLEM_H

#include "models/pipeline/mapping.h"
#include "streamtp_build.h"
#include "streamtp_optimize.h"

#include <stdbool.h>

struct stp_problem {
  stp_mapping *base;  /* the platform; its teams are the starting mapping, else all empty */
  bool has_start;
  stp_build_spec spec; /* base as builder arrays (names borrowed from base), no teams */
  stp_build_stage *stages;
  stp_build_processor *procs;
  stp_build_link *links;
};

/* stp_mapping_build without teams when spec->team_sizes and spec->teams are
 * both NULL (*has_teams false): a platform whose teams are empty, for the
 * optimiser only (build.c). */
stp_status stp__platform_build(const stp_build_spec *spec, stp_mapping **out, bool *has_teams,
                               stp_error *err);

/* The mapping of p with these teams (team after team, sizes[i] members for
 * stage i), through stp_mapping_build: the checks of a mapping file, the
 * model `model`, named after the problem. */
stp_status stp__problem_mapping(const stp_problem *p, stp_model model, const size_t *sizes,
                                const size_t *teams, stp_mapping **out, stp_error *err);

#endif /* STP_PROBLEM_H */
