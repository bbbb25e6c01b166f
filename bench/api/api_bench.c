/* api_bench.c: how many candidate mappings per second a C heuristic can
 * evaluate through stp_mapping_build (streamtp_build.h) + stp_evaluate +
 * stp_mapping_free, on Example A (4 stages, 7 processors) and on a 10-stage
 * mapping (21 processors, teams of 1 to 3, R = 6), against the same work
 * through JSON text (stp_mapping_load_string).  Each cell runs for at least
 * the given seconds, 5 times; the median rate is printed.
 * Usage: api_bench [SECONDS_PER_CELL]   (default 0.5) */
#include "streamtp.h"
#include "streamtp_build.h"
#include "../common/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { return bench_clock(CLOCK_MONOTONIC); }

typedef struct bench_case {
  const char *label;
  stp_build_spec spec;
  char *json; /* the same mapping as a file */
} bench_case;

/* ---- Example A (examples/example-a.json) ---------------------------------- */
static stp_build_stage a_stages[] = {{"T1", 710, 20}, {"T2", 290, 378}, {"T3", 300, 100},
                                     {"T4", 200, 0}};
static stp_build_processor a_procs[] = {{"P0", 4}, {"P1", 10}, {"P2", 3}, {"P3", 2},
                                        {"P4", 3}, {"P5", 4}, {"P6", 2}};
static stp_build_link a_links[] = {{2, 3, 2}};
static size_t a_sizes[] = {1, 2, 3, 1}, a_teams[] = {0, 1, 2, 3, 4, 5, 6};

/* ---- 10 stages: teams 1 2 3 2 1 3 2 1 3 3, speeds and bandwidths varied ---- */
#define TEN 10
#define TEN_PROCS 21
static stp_build_stage t_stages[TEN];
static stp_build_processor t_procs[TEN_PROCS];
static stp_build_link t_links[TEN_PROCS];
static size_t t_sizes[TEN] = {1, 2, 3, 2, 1, 3, 2, 1, 3, 3}, t_teams[TEN_PROCS];
static char t_names[TEN + TEN_PROCS][8];

static size_t ten_init(void) {
  for (size_t i = 0; i < TEN; i++) {
    snprintf(t_names[i], 8, "T%zu", i + 1);
    t_stages[i] = (stp_build_stage){t_names[i], 100 + 37 * (double)((i * 7) % 11),
                                    i + 1 < TEN ? 20 + 9 * (double)((i * 5) % 7) : 0};
  }
  for (size_t p = 0; p < TEN_PROCS; p++) {
    snprintf(t_names[TEN + p], 8, "P%zu", p);
    t_procs[p] = (stp_build_processor){t_names[TEN + p], 2 + (double)((p * 3) % 9)};
    t_teams[p] = p;
  }
  size_t nl = 0; /* a faster link from every processor to the next one */
  for (size_t p = 0; p + 1 < TEN_PROCS; p += 2)
    t_links[nl++] = (stp_build_link){p, p + 1, 3};
  return nl;
}

/* The spec as a mapping file. */
static char *to_json(const stp_build_spec *s) {
  size_t cap = 1 << 16, n = 0;
  char *j = malloc(cap);
#define PUT(...) n += (size_t)snprintf(j + n, cap - n, __VA_ARGS__)
  PUT("{\"name\":\"%s\",\"stages\":[", s->name);
  for (size_t i = 0; i < s->nstages; i++)
    PUT("%s{\"name\":\"%s\",\"work\":%.17g,\"output\":%.17g}", i ? "," : "", s->stages[i].name,
        s->stages[i].work, s->stages[i].output);
  PUT("],\"processors\":[");
  for (size_t p = 0; p < s->nprocessors; p++)
    PUT("%s{\"name\":\"%s\",\"speed\":%.17g}", p ? "," : "", s->processors[p].name,
        s->processors[p].speed);
  PUT("],\"bandwidth\":%.17g,\"links\":[", s->bandwidth);
  for (size_t k = 0; k < s->nlinks; k++)
    PUT("%s{\"from\":\"%s\",\"to\":\"%s\",\"bandwidth\":%.17g}", k ? "," : "",
        s->processors[s->links[k].from].name, s->processors[s->links[k].to].name,
        s->links[k].bandwidth);
  PUT("],\"mapping\":[");
  for (size_t i = 0, at = 0; i < s->nstages; i++) {
    PUT("%s[", i ? "," : "");
    for (size_t k = 0; k < s->team_sizes[i]; k++, at++)
      PUT("%s\"%s\"", k ? "," : "", s->processors[s->teams[at]].name);
    PUT("]");
  }
  PUT("]}");
#undef PUT
  return j;
}

/* One evaluation through the chosen path; returns the det throughput. */
static double one(const bench_case *c, int json, stp_model model, const stp_options *o) {
  stp_mapping *m;
  stp_result *r;
  stp_error err;
  stp_status s = json ? stp_mapping_load_string(c->json, strlen(c->json), c->label, &m, &err)
                      : stp_mapping_build(&c->spec, &m, &err);
  if (s != STP_OK || stp_evaluate(m, model, o, &r, &err) != STP_OK) {
    fprintf(stderr, "api_bench: %s\n", err.message);
    exit(1);
  }
  double t = r->det_throughput;
  stp_result_free(r);
  stp_mapping_free(m);
  return t;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over 5 runs of evaluations per second. */
static double rate(const bench_case *c, int json, stp_model model, const stp_options *o,
                   double seconds) {
  double rates[5];
  for (int k = 0; k < 5; k++) {
    long n = 0;
    double t0 = now(), t;
    do {
      for (int i = 0; i < 16; i++, n++)
        one(c, json, model, o);
      t = now() - t0;
    } while (t < seconds);
    rates[k] = (double)n / t;
  }
  qsort(rates, 5, sizeof rates[0], cmp_double);
  return rates[2];
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.5;
  bench_case cases[2];
  stp_build_spec_init(&cases[0].spec);
  cases[0].label = "example-a";
  cases[0].spec = (stp_build_spec){.name = "example-a", .nstages = 4, .stages = a_stages,
                                   .nprocessors = 7, .processors = a_procs, .bandwidth = 1,
                                   .nlinks = 1, .links = a_links, .team_sizes = a_sizes,
                                   .teams = a_teams};
  size_t nl = ten_init();
  cases[1].label = "ten-stages";
  cases[1].spec = (stp_build_spec){.name = "ten-stages", .nstages = TEN, .stages = t_stages,
                                   .nprocessors = TEN_PROCS, .processors = t_procs,
                                   .bandwidth = 1, .nlinks = nl, .links = t_links,
                                   .team_sizes = t_sizes, .teams = t_teams};
  for (int c = 0; c < 2; c++)
    cases[c].json = to_json(&cases[c].spec);

  struct {
    const char *what;
    stp_model model;
    stp_exp_method exp;
  } rows[] = {{"overlap, det + exp", STP_MODEL_OVERLAP, STP_EXP_AUTO},
              {"overlap, det only", STP_MODEL_OVERLAP, STP_EXP_NONE},
              {"strict, det only", STP_MODEL_STRICT, STP_EXP_NONE}};
  printf("| mapping | evaluation | C builder (eval/s) | JSON text (eval/s) | ratio | det throughput |\n"
         "|---|---|---|---|---|---|\n");
  for (int c = 0; c < 2; c++)
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
      stp_options o;
      stp_options_init(&o);
      o.exp_method = rows[k].exp;
      double tb = one(&cases[c], 0, rows[k].model, &o), tj = one(&cases[c], 1, rows[k].model, &o);
      if (tb != tj) {
        fprintf(stderr, "api_bench: %s: builder %.17g, JSON %.17g\n", cases[c].label, tb, tj);
        return 1;
      }
      double rb = rate(&cases[c], 0, rows[k].model, &o, seconds);
      double rj = rate(&cases[c], 1, rows[k].model, &o, seconds);
      printf("| %s | %s | %.0f | %.0f | %.2f | %.10g |\n", cases[c].label, rows[k].what, rb, rj,
             rb / rj, tb);
      fflush(stdout);
    }
  for (int c = 0; c < 2; c++)
    free(cases[c].json);
  return 0;
}
