/* solver_bench.c: the stationary solve of a large Markov chain that mixes
 * slowly, in the compact move store (issue 14, part 3): level-order
 * Gauss-Seidel alone (capped) against the default, where Gauss-Seidel
 * hands over to BiCGSTAB (solvers/stationary_krylov.h).
 *
 * The chain: two blocks b = 0, 1, each a cycle of p levels of W states.
 * State (b, l, j) moves to (b, l+1 mod p, j') for j' = 2j, 2j+1 and j+1
 * (mod W, W odd), at rates drawn per level and kind in [0.5, 2]: one turn
 * of the cycle spreads the mass over the whole block (the doubling map).
 * It also moves to (1-b, l+1 mod p, j) at rate eps_b, 1e-6 from block 0
 * and 3e-6 from block 1: nearly completely decomposable.  The block is
 * then a two-state Markov chain of its own (it changes at rate eps_b
 * whatever the state), so block 0 holds eps_1 / (eps_0 + eps_1) = 3/4 of
 * the mass exactly: the check.  A Gauss-Seidel sweep (one turn) moves
 * about p (eps_0 + eps_1) / 4.6 of the error between the blocks, so it
 * needs millions of sweeps.
 *
 * States are numbered breadth first from (0, 0, 0), as the enumerations
 * of streamtp number them.  Times are CPU seconds of the process; memory
 * is the peak resident set (getrusage).  Usage:
 *   solver_bench [WIDTH [PERIOD [GS_SWEEPS]]]   (default 200003 10 200) */
#include "base/core.h"
#include "solvers/movestore.h"
#include "solvers/stationary.h"
#include "solvers/stationary_bands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const double EPS[2] = {1e-6, 3e-6};

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024;
}

typedef struct chain_shape {
  uint64_t w, p;
} chain_shape;

static uint64_t state_index(const chain_shape *c, uint64_t b, uint64_t l, uint64_t j) {
  return (b * c->p + l) * c->w + j;
}

/* The four moves of the state of index i: targets and labels (3 per
 * level for the moves within the block, then one per block for the rare
 * moves between blocks). */
static void moves_of(const chain_shape *c, uint64_t i, uint64_t *to, uint32_t *label) {
  uint64_t j = i % c->w, l = i / c->w % c->p, b = i / (c->w * c->p), nl = (l + 1) % c->p;
  uint64_t next[3] = {2 * j % c->w, (2 * j + 1) % c->w, (j + 1) % c->w};
  for (int k = 0; k < 3; k++) {
    to[k] = state_index(c, b, nl, next[k]);
    label[k] = (uint32_t)(3 * l + (uint64_t)k);
  }
  to[3] = state_index(c, 1 - b, nl, j);
  label[3] = (uint32_t)(3 * c->p + b);
}

/* Breadth-first from (0, 0, 0) into ms; block[s]: the block of state s. */
static int build(const chain_shape *c, stp_movestore *ms, uint8_t **block) {
  uint64_t n = 2 * c->w * c->p;
  uint32_t nlabels = (uint32_t)(3 * c->p + 2);
  double *rate = malloc(nlabels * sizeof *rate);
  uint32_t *num = malloc(n * sizeof *num), *order = malloc(n * sizeof *order);
  *block = malloc(n);
  if (!rate || !num || !order || !*block)
    return 1;
  uint64_t seed = 12345;
  for (uint32_t k = 0; k < 3 * c->p; k++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    rate[k] = 0.5 + 1.5 * (double)(seed >> 11) / 9007199254740992.0;
  }
  rate[3 * c->p] = EPS[0];
  rate[3 * c->p + 1] = EPS[1];
  stp_error err = {0};
  if (stp__movestore_init(ms, nlabels, rate, &err) != STP_OK)
    return 1;
  memset(num, 0xff, n * sizeof *num);
  uint64_t count = 1, depth_end = 1;
  num[0] = 0;
  order[0] = 0;
  for (uint64_t s = 0; s < count; s++) {
    bool band = s == 0 || s == depth_end;
    if (s && s == depth_end)
      depth_end = count;
    uint64_t to[4], row = ms->nmoves;
    uint32_t label[4];
    moves_of(c, order[s], to, label);
    (*block)[s] = (uint8_t)(order[s] / (c->w * c->p));
    for (int k = 0; k < 4; k++) {
      if (num[to[k]] == UINT32_MAX) {
        num[to[k]] = (uint32_t)count;
        order[count++] = (uint32_t)to[k];
      }
      if (stp__movestore_push(ms, num[to[k]], label[k], &err) != STP_OK)
        return 1;
    }
    if (stp__movestore_end_row(ms, row, band, &err) != STP_OK)
      return 1;
  }
  free(rate);
  free(num);
  free(order);
  return count == n ? 0 : 1;
}

static void solve(const stp_movestore *ms, const uint8_t *block, stp_stationary_method method,
                  size_t max_sweeps) {
  stp_stationary_options o;
  stp__stationary_options_init(&o);
  o.method = method;
  if (max_sweeps)
    o.max_sweeps = max_sweeps;
  stp_stationary_info info;
  stp_error err = {0};
  double *pi = NULL, t0 = cpu_now();
  stp_status st = stp__bands_solve(ms, &o, &pi, &info, &err);
  double t = cpu_now() - t0, mass0 = 0;
  for (uint64_t s = 0; pi && s < ms->nstates; s++)
    mass0 += block[s] ? 0 : pi[s];
  char check[96] = "-";
  if (pi)
    snprintf(check, sizeof check, "%.12f (error %.1g)", mass0, fabs(mass0 - 0.75));
  printf("| %s | %s | %zu | %.2g | %.1f | %s | %.0f |\n", info.solver,
         st == STP_OK ? "yes" : "no", info.iterations, info.residual, t, check, peak_mb());
  free(pi);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* each row as it comes */
  chain_shape c = {argc > 1 ? strtoull(argv[1], NULL, 10) : 200003,
                   argc > 2 ? strtoull(argv[2], NULL, 10) : 10};
  size_t gs_cap = argc > 3 ? strtoull(argv[3], NULL, 10) : 200;
  if (c.w < 3 || c.w % 2 == 0 || c.p < 2 || 3 * c.p + 2 > 256 || 2 * c.w * c.p >= UINT32_MAX) {
    fprintf(stderr, "solver_bench: WIDTH odd >= 3, 2 <= PERIOD <= 84, fewer than 2^32 states\n");
    return 2;
  }
  stp_movestore ms;
  uint8_t *block;
  double t0 = cpu_now();
  if (build(&c, &ms, &block)) {
    fprintf(stderr, "solver_bench: cannot build the chain\n");
    return 1;
  }
  printf("Two blocks of %llu levels x %llu states: %llu states, %llu moves, built in %.1f CPU s "
         "(store %.0f MB)\n\n", (unsigned long long)c.p, (unsigned long long)c.w,
         (unsigned long long)ms.nstates, (unsigned long long)ms.nmoves, cpu_now() - t0,
         (double)stp__movestore_bytes(&ms) / 1048576);
  printf("| solver | within 1e-9 | sweeps | scaled residual | CPU s | mass of block 0 (0.75) "
         "| peak MB so far |\n");
  printf("|---|---|---|---|---|---|---|\n");
  solve(&ms, block, STP_STATIONARY_ITERATIVE, gs_cap);
  solve(&ms, block, STP_STATIONARY_AUTO, 0);
  stp__movestore_free(&ms);
  free(block);
  return 0;
}
