/* reader.h: limits of the mapping reader (reader.c). */
#ifndef STP_READER_H
#define STP_READER_H

#include "base/fileio.h"
#include "streamtp_pipeline.h"

#include <stdbool.h>
#include <stddef.h>

#define STP_MAX_STAGES 100000
#define STP_MAX_PROCESSORS 1000000
#define STP_MAX_LINKS 10000000

/* A mapping file whose "mapping" may be absent: an optimisation problem
 * (streamtp_optimize.h).  Without it every team is empty (*has_teams
 * false) and the result is a platform, not a mapping the analyses take:
 * only the optimiser reads it.  Otherwise the same checks and messages as
 * stp_mapping_load_string. */
stp_status stp__problem_read(const char *text, size_t len, const char *label, stp_mapping **out,
                             bool *has_teams, stp_error *err);

#endif /* STP_READER_H */
