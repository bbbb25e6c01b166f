/* overlap_bench.c: how long stp_evaluate takes on Overlap mappings whose
 * number of paths (lcm of the team sizes) grows to 1e13 and beyond, teams of
 * up to 100 processors.  The Overlap method never builds the event graph of
 * R = lcm rows: it solves one folded u x v pattern per transfer component, so
 * the time should stay flat in R.  For each mapping it times, over many
 * repetitions (the mapping is loaded once):
 *   - the deterministic evaluation (opts.exp_method = STP_EXP_NONE) with
 *     heterogeneous times (every pattern goes through Howard);
 *   - the same with homogeneous times;
 *   - the full default evaluation (exponential part too) with homogeneous
 *     times, where the exponential value comes from closed forms.
 * Prints a markdown table; exit status 1 if a deterministic evaluation with
 * teams of at most 100 processors takes 10 ms or more (the target).
 *
 * Usage: overlap_bench [MIN_SECONDS_PER_CELL]   (default 0.2) */
#include "bench/common/benchmap.h"
#include "streamtp.h"
#include "../common/clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET_SECONDS 0.010
#define MAX_STAGES 16

typedef struct config {
  const char *label;
  size_t nstages;
  size_t teams[MAX_STAGES];
} config;

/* Prefixes of the primes 31..61 (lcm = product: 1147 .. 1.8e13), the primes
 * below 100 at the top end, and teams sharing factors (g > 1 copies of each
 * pattern). */
static const config configs[] = {
    {"primes", 2, {31, 37}},
    {"primes", 3, {31, 37, 41}},
    {"primes", 4, {31, 37, 41, 43}},
    {"primes", 5, {31, 37, 41, 43, 47}},
    {"primes", 6, {31, 37, 41, 43, 47, 53}},
    {"primes", 7, {31, 37, 41, 43, 47, 53, 59}},
    {"primes", 8, {31, 37, 41, 43, 47, 53, 59, 61}},
    {"primes", 7, {67, 71, 73, 79, 83, 89, 97}},
    {"primes", 8, {61, 67, 71, 73, 79, 83, 89, 97}},
    {"shared", 4, {60, 84, 90, 100}},
    {"shared", 8, {96, 100, 98, 99, 91, 95, 88, 85}},
    {"small", 8, {2, 3, 5, 7, 11, 13, 17, 19}},
};

static double now(void) { return bench_clock(CLOCK_MONOTONIC); }

static stp_mapping *load(const config *c, bool homogeneous) {
  char *json = bench_mapping_json(c->teams, c->nstages, "overlap", 7, homogeneous);
  if (!json) {
    fprintf(stderr, "overlap_bench: out of memory\n");
    return NULL;
  }
  stp_mapping *m = NULL;
  stp_error err = {0};
  if (stp_mapping_load_string(json, strlen(json), "bench", &m, &err) != STP_OK)
    fprintf(stderr, "overlap_bench: %s\n", err.message);
  free(json);
  return m;
}

/* Mean seconds per stp_evaluate over at least min_seconds (and 5 calls);
 * *last receives the last result (caller frees).  Negative on failure. */
static double time_evaluate(const stp_mapping *m, stp_exp_method exp, double min_seconds,
                            stp_result **last) {
  stp_options o;
  stp_options_init(&o);
  o.exp_method = exp;
  *last = NULL;
  size_t calls = 0;
  double t0 = now(), t = 0;
  while (calls < 5 || t < min_seconds) {
    stp_result *r = NULL;
    stp_error err = {0};
    if (stp_evaluate(m, STP_MODEL_OVERLAP, &o, &r, &err) != STP_OK) {
      fprintf(stderr, "overlap_bench: %s\n", err.message);
      stp_result_free(*last);
      *last = NULL;
      return -1;
    }
    stp_result_free(*last);
    *last = r;
    calls++;
    t = now() - t0;
  }
  return t / (double)calls;
}

static void teams_text(const config *c, char *buf, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < c->nstages && at < n; i++)
    at += (size_t)snprintf(buf + at, n - at, "%s%zu", i ? "," : "", c->teams[i]);
}

/* lcm of the teams as a decimal string, or "> 2^64". */
static void paths_text(const stp_result *r, char *buf, size_t n) {
  if (r->paths)
    snprintf(buf, n, "%.3g", (double)r->paths);
  else
    snprintf(buf, n, "> 2^64");
}

static size_t largest_pattern(const stp_result *r) {
  size_t best = 0;
  for (size_t k = 0; k < r->ncomponents; k++)
    if (r->components[k].u * r->components[k].v > best)
      best = r->components[k].u * r->components[k].v;
  return best;
}

int main(int argc, char **argv) {
  double min_seconds = 0.2;
  if (argc > 2) {
    fprintf(stderr, "usage: overlap_bench [MIN_SECONDS_PER_CELL]\n");
    return 2;
  }
  if (argc == 2) {
    char *end;
    errno = 0;
    min_seconds = strtod(argv[1], &end);
    if (*end || errno || !isfinite(min_seconds) || min_seconds < 0) {
      fprintf(stderr, "overlap_bench: MIN_SECONDS_PER_CELL must be a number >= 0\n");
      return 2;
    }
  }
  printf("| teams | stages | paths (lcm) | components | largest pattern | det. ms "
         "(heterogeneous) | det. ms (homogeneous) | det. + exp. ms (homogeneous) | exp. method |\n"
         "|---|---|---|---|---|---|---|---|---|\n");
  int rc = 0;
  for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
    const config *c = &configs[k];
    stp_mapping *het = load(c, false), *hom = load(c, true);
    stp_result *rh = NULL, *rd = NULL, *re = NULL;
    double th = -1, td = -1, te = -1;
    if (het && hom) {
      th = time_evaluate(het, STP_EXP_NONE, min_seconds, &rh);
      td = time_evaluate(hom, STP_EXP_NONE, min_seconds, &rd);
      te = time_evaluate(hom, STP_EXP_AUTO, min_seconds, &re);
    }
    if (th < 0 || td < 0 || te < 0) {
      rc = 1;
    } else {
      char teams[256], paths[64];
      teams_text(c, teams, sizeof teams);
      paths_text(rh, paths, sizeof paths);
      size_t maxteam = 0;
      for (size_t i = 0; i < c->nstages; i++)
        maxteam = c->teams[i] > maxteam ? c->teams[i] : maxteam;
      bool over = maxteam <= 100 && (th >= TARGET_SECONDS || td >= TARGET_SECONDS);
      rc |= over;
      printf("| %s | %zu | %s | %zu | %zu | %.3f%s | %.3f | %.3f | %s |\n", teams, c->nstages,
             paths, rh->ncomponents, largest_pattern(rh), 1e3 * th, over ? " (over 10 ms)" : "",
             1e3 * td, 1e3 * te, re->exp_available ? re->exp_method : "unavailable");
    }
    stp_result_free(rh);
    stp_result_free(rd);
    stp_result_free(re);
    stp_mapping_free(het);
    stp_mapping_free(hom);
  }
  return rc;
}
