/* anytime.c: part (b) and (c) of bench/optimize: the heuristic as an
 * any-time search on large problems, through the public API only
 * (streamtp_optimize.h), as a program of a user would call it.
 *
 * For each problem file and objective: the best of R random mappings
 * (method random), then one heuristic run of the longest checkpoint whose
 * progress callback records the best value found by each checkpoint (the
 * run with a shorter --time-limit would have stopped there: same seed,
 * same candidates), its constructive start, the upper bound, and the
 * candidates it evaluated per second; and, for (c), how many times per
 * second stp_evaluate evaluates the answer whole, against the heuristic's
 * incremental evaluations.  One JSON line per problem and objective.
 *
 * Usage: anytime [--checkpoints 1,10,60] [--random 1000] [--objectives det,exp]
 *                [--seed S] FILE... */
#include "streamtp_optimize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CHECKPOINTS 8

typedef struct watch {
  double at[MAX_CHECKPOINTS], best[MAX_CHECKPOINTS];
  size_t n;
} watch;

static void on_progress(const stp_optimize_progress_info *p, void *data) {
  watch *w = data;
  for (size_t k = 0; k < w->n; k++)
    if (p->seconds <= w->at[k])
      w->best[k] = p->best; /* the last report before the checkpoint */
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double objective_of(const stp_result *r, stp_objective o) {
  return o == STP_OBJECTIVE_EXP ? r->exp_throughput : r->det_throughput;
}

/* Full evaluations per second of the answer with stp_evaluate (det only
 * for det, det + exp for exp), for a second: what a program evaluating
 * each candidate whole would get, before the cost of building it. */
static double evaluate_rate(const stp_mapping *m, stp_objective obj) {
  stp_options o;
  stp_options_init(&o);
  o.exp_method = obj == STP_OBJECTIVE_EXP ? STP_EXP_AUTO : STP_EXP_NONE;
  stp_error err = {0};
  double t0 = now(), t;
  uint64_t count = 0;
  do {
    stp_result *r;
    if (stp_evaluate(m, stp_mapping_model(m), &o, &r, &err) != STP_OK)
      return NAN;
    stp_result_free(r);
    count++;
    t = now() - t0;
  } while (t < 1.0);
  return (double)count / t;
}

static void run(const char *path, stp_objective obj, const watch *w0, uint64_t random_count,
                uint64_t seed) {
  stp_problem *pb;
  stp_error err = {0};
  if (stp_problem_load_file(path, &pb, &err) != STP_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  stp_optimize_options o;
  stp_optimize_options_init(&o);
  o.model = stp_problem_model(pb);
  o.objective = obj;
  o.seed = seed;
  o.method = STP_OPTIMIZE_RANDOM;
  o.max_evaluations = random_count;
  stp_optimize_result *rnd, *h;
  if (stp_optimize(pb, &o, &rnd, &err) != STP_OK) {
    fprintf(stderr, "%s: random: %s\n", path, err.message);
    exit(1);
  }
  watch w = *w0;
  for (size_t k = 0; k < w.n; k++)
    w.best[k] = NAN;
  o.method = STP_OPTIMIZE_HEURISTIC;
  o.max_evaluations = 0;
  o.time_limit = w.at[w.n - 1];
  o.progress = on_progress;
  o.progress_data = &w;
  if (stp_optimize(pb, &o, &h, &err) != STP_OK) {
    fprintf(stderr, "%s: heuristic: %s\n", path, err.message);
    exit(1);
  }
  w.best[w.n - 1] = h->value; /* the end of the run */
  printf("{\"file\":\"%s\",\"stages\":%zu,\"processors\":%zu,\"objective\":\"%s\","
         "\"random\":%.17g,\"random_seconds\":%.6g,\"constructive\":%.17g,"
         "\"upper_bound\":%.17g,\"evaluated\":%llu,\"seconds\":%.6g,"
         "\"evaluate_per_second\":%.6g,\"best\":{",
         path, stp_problem_stage_count(pb), stp_problem_processor_count(pb),
         stp_objective_name(obj), rnd->value, rnd->seconds, h->constructive, h->upper_bound,
         (unsigned long long)h->evaluated, h->seconds, evaluate_rate(h->mapping, obj));
  for (size_t k = 0; k < w.n; k++)
    printf("%s\"%g\":%.17g", k ? "," : "", w.at[k], w.best[k]);
  printf("},\"value\":%.17g,\"optimal\":%s}\n", objective_of(h->eval, obj),
         h->optimal ? "true" : "false");
  fflush(stdout);
  stp_optimize_result_free(rnd);
  stp_optimize_result_free(h);
  stp_problem_free(pb);
}

int main(int argc, char **argv) {
  watch w = {.at = {1, 10, 60}, .n = 3};
  uint64_t random_count = 1000, seed = 1;
  const char *objectives = "det,exp";
  int k = 1;
  for (; k < argc && argv[k][0] == '-'; k++) {
    if (!strcmp(argv[k], "--checkpoints") && k + 1 < argc) {
      w.n = 0;
      for (char *s = argv[++k]; *s && w.n < MAX_CHECKPOINTS; s += *s == ',')
        w.at[w.n++] = strtod(s, &s);
    } else if (!strcmp(argv[k], "--random") && k + 1 < argc) {
      random_count = strtoull(argv[++k], NULL, 10);
    } else if (!strcmp(argv[k], "--objectives") && k + 1 < argc) {
      objectives = argv[++k];
    } else if (!strcmp(argv[k], "--seed") && k + 1 < argc) {
      seed = strtoull(argv[++k], NULL, 10);
    } else {
      fprintf(stderr, "usage: anytime [--checkpoints 1,10,60] [--random 1000] "
                      "[--objectives det,exp] [--seed S] FILE...\n");
      return 2;
    }
  }
  for (; k < argc; k++) {
    if (strstr(objectives, "det"))
      run(argv[k], STP_OBJECTIVE_DET, &w, random_count, seed);
    if (strstr(objectives, "exp"))
      run(argv[k], STP_OBJECTIVE_EXP, &w, random_count, seed);
  }
  return 0;
}
