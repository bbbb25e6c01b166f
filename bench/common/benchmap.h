/* benchmap.h: what the deterministic-solver benchmarks share: a seeded
 * generator (splitmix64, the same numbers on every machine) and synthetic
 * mappings with given team sizes, written as mapping-file JSON so that they
 * go through the same reader and validation as a user's file. */
#ifndef BENCH_BENCHMAP_H
#define BENCH_BENCHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bench_rng {
  uint64_t s;
} bench_rng;
uint64_t bench_rng_next(bench_rng *r);
double bench_rng_uniform(bench_rng *r, double lo, double hi); /* [lo, hi) */
uint64_t bench_rng_below(bench_rng *r, uint64_t n);          /* [0, n), n > 0 */

/* JSON text of a mapping with nstages stages and teams of the given sizes
 * (processors P0, P1, ... in team order), model "overlap" or "strict".
 * Heterogeneous: works and outputs uniform in [1, 10], speeds in [1, 10],
 * one bandwidth in [1, 10] per link between consecutive teams.
 * Homogeneous: every time is 1 (every cycle ratio ties).  Caller frees;
 * NULL when out of memory. */
char *bench_mapping_json(const size_t *teams, size_t nstages, const char *model, uint64_t seed,
                         bool homogeneous);

#endif /* BENCH_BENCHMAP_H */
