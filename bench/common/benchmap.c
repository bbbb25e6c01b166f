/* benchmap.c: seeded generator and synthetic mappings for the benchmarks. */
#include "benchmap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t bench_rng_next(bench_rng *r) {
  uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

double bench_rng_uniform(bench_rng *r, double lo, double hi) {
  return lo + (hi - lo) * (double)(bench_rng_next(r) >> 11) * 0x1p-53;
}

uint64_t bench_rng_below(bench_rng *r, uint64_t n) {
  return bench_rng_next(r) % n; /* the bias is irrelevant for benchmarks */
}

/* A growing string; after a failure it is freed and stays NULL. */
typedef struct sbuf {
  char *s;
  size_t len, cap;
  bool failed;
} sbuf;

static void sb_fail(sbuf *b) {
  free(b->s);
  *b = (sbuf){.failed = true};
}

static void sb_printf(sbuf *b, const char *fmt, ...) {
  while (!b->failed) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int k = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k < 0) {
      sb_fail(b);
    } else if ((size_t)k < room) {
      b->len += (size_t)k;
      return;
    } else {
      size_t cap = 2 * (b->cap + (size_t)k + 64);
      char *s = realloc(b->s, cap);
      if (!s) {
        sb_fail(b);
      } else {
        b->s = s;
        b->cap = cap;
      }
    }
  }
}

char *bench_mapping_json(const size_t *teams, size_t nstages, const char *model, uint64_t seed,
                         bool homogeneous) {
  bench_rng r = {seed};
  sbuf b = {0};
#define DRAW() (homogeneous ? 1.0 : bench_rng_uniform(&r, 1, 10))
  sb_printf(&b, "{\"model\": \"%s\",\n\"stages\": [", model);
  for (size_t i = 0; i < nstages; i++)
    sb_printf(&b, "%s{\"name\": \"T%zu\", \"work\": %.17g, \"output\": %.17g}", i ? ", " : "", i,
              DRAW(), DRAW());
  sb_printf(&b, "],\n\"processors\": [");
  size_t total = 0;
  for (size_t i = 0; i < nstages; i++)
    total += teams[i];
  for (size_t p = 0; p < total; p++)
    sb_printf(&b, "%s{\"name\": \"P%zu\", \"speed\": %.17g}", p ? ", " : "", p, DRAW());
  sb_printf(&b, "],\n\"links\": [");
  size_t first = 0;
  bool any = false;
  for (size_t i = 0; i + 1 < nstages; i++) {
    for (size_t a = 0; a < teams[i]; a++)
      for (size_t c = 0; c < teams[i + 1]; c++) {
        sb_printf(&b, "%s{\"from\": \"P%zu\", \"to\": \"P%zu\", \"bandwidth\": %.17g}",
                  any ? ",\n" : "", first + a, first + teams[i] + c, DRAW());
        any = true;
      }
    first += teams[i];
  }
  sb_printf(&b, "],\n\"mapping\": [");
  first = 0;
  for (size_t i = 0; i < nstages; i++) {
    sb_printf(&b, "%s[", i ? ", " : "");
    for (size_t k = 0; k < teams[i]; k++)
      sb_printf(&b, "%s\"P%zu\"", k ? ", " : "", first + k);
    sb_printf(&b, "]");
    first += teams[i];
  }
  sb_printf(&b, "]}\n");
#undef DRAW
  return b.s;
}
