/* clock.h: the clock every benchmark program reads, in seconds as a double:
 * CLOCK_MONOTONIC for wall time, CLOCK_PROCESS_CPUTIME_ID for CPU time.
 * Header only, so that the benchmarks built against the public headers
 * alone (bench/api, bench/redistribute) can use it too. */
#ifndef STP_BENCH_CLOCK_H
#define STP_BENCH_CLOCK_H

#include <time.h>

static inline double bench_clock(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
