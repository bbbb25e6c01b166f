/* maxplus_ref.h: a plain replay of a mapping with deterministic times, data
 * set after data set, written from the semantics of docs/design.md section 1-2
 * (not from the event graph code), to check the event-graph throughputs. */
#ifndef STP_MAXPLUS_REF_H
#define STP_MAXPLUS_REF_H

#include "models/pipeline/mapping.h"

/* Completion time of data sets 0..n-1 (out has n entries). */
void maxplus_replay(const stp_mapping *m, stp_model model, size_t n, double *out);
/* Long-run rate of in-order completions, measured after `from` data sets
 * over `periods` whole multiples of R * lcm(1..12) data sets. */
double maxplus_rate(const stp_mapping *m, stp_model model, size_t from, size_t periods);

#endif
