/* test_stationary_bands.c: the level-order Gauss-Seidel on a compact move
 * store (solvers/stationary_bands.h) against the general solvers on the
 * same chain (stationary.c's level-order Gauss-Seidel, which it must match
 * sweep for sweep, and UMFPACK), on closed rings of exponential servers
 * enumerated breadth first; the firing rates against the throughput of the
 * ring's product form; and its refusals: a chain without levels, a
 * reducible one. */
#include "engine/keyset.h"
#include "solvers/movestore.h"
#include "solvers/stationary.h"
#include "solvers/stationary_bands.h"
#include "support/testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A closed ring of c stations (c <= 8) holding k customers, station i
 * serving at rate mu[i] (label i) and sending to i + 1 mod c: a state is
 * the occupancy vector, one byte per station in one word.  Enumerated
 * breadth first into ms; the depth of a state is the number of services
 * since the start, and its level (total position of the customers) mod c:
 * the chain has period c. */
static void ring_chain(unsigned c, unsigned k, const double *mu, stp_movestore *ms) {
  stp_keyset ks;
  stp_error err = {0};
  cr_assert_eq(stp__keyset_init(&ks, 1, 1u << 20, &err), STP_OK);
  cr_assert_eq(stp__movestore_init(ms, c, mu, &err), STP_OK);
  uint64_t start = k; /* everyone at station 0 */
  uint32_t id;
  bool added;
  cr_assert_eq(stp__keyset_add(&ks, &start, stp__keyset_hash(&ks, &start), &id, &added, &err),
               STP_OK);
  uint64_t depth_end = 1;
  for (uint64_t s = 0; s < ks.count; s++) {
    bool band = s == 0 || s == depth_end;
    if (s && s == depth_end)
      depth_end = ks.count;
    uint64_t m = *stp__keyset_key(&ks, s), row = ms->nmoves;
    for (unsigned i = 0; i < c; i++) {
      if (((m >> (8 * i)) & 0xff) == 0)
        continue;
      unsigned j = (i + 1) % c;
      uint64_t next = m - (UINT64_C(1) << (8 * i)) + (UINT64_C(1) << (8 * j));
      cr_assert_eq(stp__keyset_add(&ks, &next, stp__keyset_hash(&ks, &next), &id, &added, &err),
                   STP_OK);
      cr_assert_eq(stp__movestore_push(ms, id, i, &err), STP_OK);
    }
    cr_assert_eq(stp__movestore_end_row(ms, row, band, &err), STP_OK);
  }
  stp__keyset_free(&ks);
}

static void options(stp_stationary_options *o, stp_stationary_method m) {
  stp__stationary_options_init(o);
  o->method = m;
}

Test(stationary_bands, matches_the_general_solvers_sweep_for_sweep) {
  const double mu[] = {1.0, 2.5, 0.7, 3.1, 1.9};
  stp_movestore ms;
  ring_chain(5, 6, mu, &ms);
  cr_assert_eq(ms.nstates, 210); /* C(6 + 4, 4) */
  stp_stationary_options o;
  options(&o, STP_STATIONARY_AUTO);
  stp_stationary_info bi, gi, di;
  double *pb, *pg, *pd;
  stp_error err = {0};
  cr_assert_eq(stp__bands_solve(&ms, &o, &pb, &bi, &err), STP_OK, "%s", err.message);
  cr_assert_eq(bi.period, 5);
  cr_assert_leq(bi.residual, o.tolerance);
  stp_csr *q;
  uint32_t *label;
  cr_assert_eq(stp__movestore_to_csr(&ms, &q, &label, &err), STP_OK);
  options(&o, STP_STATIONARY_ITERATIVE);
  cr_assert_eq(stp__stationary_solve(q, &o, &pg, &gi, &err), STP_OK, "%s", err.message);
  options(&o, STP_STATIONARY_DIRECT);
  cr_assert_eq(stp__stationary_solve(q, &o, &pd, &di, &err), STP_OK, "%s", err.message);
  cr_assert_eq(bi.iterations, gi.iterations, "sweeps: compact %zu, general %zu", bi.iterations,
               gi.iterations);
  cr_assert_eq(bi.period, gi.period);
  for (uint64_t s = 0; s < ms.nstates; s++) {
    /* the same sums in the same order: the same iterate */
    cr_assert(stp__close(pb[s], pg[s], TOL_EXACT, 0), "state %llu: %.17g vs %.17g",
              (unsigned long long)s, pb[s], pg[s]);
    cr_assert(stp__close(pb[s], pd[s], TOL_ITER, 0), "state %llu: %.17g vs UMFPACK %.17g",
              (unsigned long long)s, pb[s], pd[s]);
  }
  free(pb);
  free(pg);
  free(pd);
  free(label);
  stp__csr_free(q);
  stp__movestore_free(&ms);
}

/* The ring's throughput from its product form: pi(n) proportional to
 * prod_i (1/mu_i)^{n_i}; the flow through station 0 is
 * mu_0 P(n_0 > 0) = G(k - 1) / G(k), G the normalising constant. */
static double ring_throughput(unsigned c, unsigned k, const double *mu) {
  double g[32] = {1}; /* G over the first i stations, by population (Buzen) */
  for (unsigned p = 1; p <= k; p++)
    g[p] = pow(1 / mu[0], p);
  for (unsigned i = 1; i < c; i++)
    for (unsigned p = 1; p <= k; p++)
      g[p] += g[p - 1] / mu[i];
  return g[k - 1] / g[k];
}

Test(stationary_bands, firing_rates_give_the_product_form_throughput) {
  const double mu[] = {1.3, 0.4, 2.2};
  stp_movestore ms;
  ring_chain(3, 7, mu, &ms);
  stp_stationary_options o;
  options(&o, STP_STATIONARY_AUTO);
  stp_stationary_info info;
  double *pi;
  stp_error err = {0};
  cr_assert_eq(stp__bands_solve(&ms, &o, &pi, &info, &err), STP_OK, "%s", err.message);
  double fire[3];
  stp__bands_label_rates(&ms, pi, fire);
  double x = ring_throughput(3, 7, mu);
  for (int i = 0; i < 3; i++)
    cr_assert(stp__close(fire[i], x, TOL_ITER, 0), "station %d: %.17g vs %.17g", i, fire[i], x);
  free(pi);
  stp__movestore_free(&ms);
}

Test(stationary_bands, refuses_a_chain_without_levels_and_a_reducible_one) {
  const double rate[] = {1.0, 2.0};
  stp_movestore ms;
  stp_error err = {0};
  stp_stationary_options o;
  options(&o, STP_STATIONARY_AUTO);
  stp_stationary_info info;
  double *pi;
  /* 0 -> 1, 1 -> 0, 1 -> 1 ... and 0 -> 0 via a triangle 0 -> 1 -> 2 -> 0
   * with a shortcut 1 -> 0: cycles of lengths 2 and 3, period 1 */
  cr_assert_eq(stp__movestore_init(&ms, 2, rate, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 1, 0, &err), STP_OK);
  cr_assert_eq(stp__movestore_end_row(&ms, 0, true, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 2, 0, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 0, 1, &err), STP_OK);
  cr_assert_eq(stp__movestore_end_row(&ms, 1, true, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 0, 0, &err), STP_OK);
  cr_assert_eq(stp__movestore_end_row(&ms, 3, true, &err), STP_OK);
  cr_assert_eq(stp__bands_solve(&ms, &o, &pi, &info, &err), STP_ENUMERIC);
  cr_assert(strstr(err.message, "no levels"), "%s", err.message);
  stp__movestore_free(&ms);
  /* 0 -> 1 -> 2 -> 1: state 2 never comes back to 0 (period 2) */
  cr_assert_eq(stp__movestore_init(&ms, 2, rate, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 1, 0, &err), STP_OK);
  cr_assert_eq(stp__movestore_end_row(&ms, 0, true, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 2, 0, &err), STP_OK);
  cr_assert_eq(stp__movestore_end_row(&ms, 1, true, &err), STP_OK);
  cr_assert_eq(stp__movestore_push(&ms, 1, 1, &err), STP_OK);
  cr_assert_eq(stp__movestore_end_row(&ms, 2, true, &err), STP_OK);
  cr_assert_eq(stp__bands_solve(&ms, &o, &pi, &info, &err), STP_ENUMERIC);
  cr_assert(strstr(err.message, "cannot reach state 0"), "%s", err.message);
  stp__movestore_free(&ms);
}

/* A layered chain: p levels of w states (w coprime to 7), state (l, j)
 * moving to (l + 1 mod p, 7j + 5i + 1 mod w) for i < deg(j), by label
 * (l, i) of rate 0.5 + ((13 l + 7 i) mod 17) / 8, and, where self_every
 * divides j + 1, back to itself as well; numbered breadth first from
 * (0, 0).  The row lengths (deg) decide which loops the compact sweep
 * takes (rows in lanes of 8, 12 or 16 moves, longer rows and chains with
 * moves back in plain loops). */
typedef unsigned (*deg_fn)(unsigned j);
static void layered_chain(unsigned p, unsigned w, deg_fn deg, unsigned self_every,
                          stp_movestore *ms) {
  unsigned n = p * w, maxdeg = 0;
  for (unsigned j = 0; j < w; j++)
    maxdeg = deg(j) > maxdeg ? deg(j) : maxdeg;
  double *rate = malloc(p * maxdeg * sizeof *rate);
  uint32_t *num = malloc(n * sizeof *num), *order = malloc(n * sizeof *order);
  cr_assert(rate && num && order);
  for (unsigned l = 0; l < p; l++)
    for (unsigned i = 0; i < maxdeg; i++)
      rate[l * maxdeg + i] = 0.5 + (double)((13 * l + 7 * i) % 17) / 8;
  stp_error err = {0};
  cr_assert_eq(stp__movestore_init(ms, p * maxdeg, rate, &err), STP_OK);
  memset(num, 0xff, n * sizeof *num);
  uint64_t count = 1, depth_end = 1;
  num[0] = order[0] = 0;
  for (uint64_t s = 0; s < count; s++) {
    bool band = s == 0 || s == depth_end;
    if (s && s == depth_end)
      depth_end = count;
    unsigned l = order[s] / w, j = order[s] % w, nl = (l + 1) % p;
    uint64_t row = ms->nmoves;
    for (unsigned i = 0; i < deg(j); i++) {
      uint32_t t = nl * w + (7 * j + 5 * i + 1) % w;
      if (num[t] == UINT32_MAX) {
        num[t] = (uint32_t)count;
        order[count++] = t;
      }
      cr_assert_eq(stp__movestore_push(ms, num[t], l * maxdeg + i, &err), STP_OK);
    }
    if (self_every && (j + 1) % self_every == 0)
      cr_assert_eq(stp__movestore_push(ms, (uint32_t)s, l * maxdeg, &err), STP_OK);
    cr_assert_eq(stp__movestore_end_row(ms, row, band, &err), STP_OK);
  }
  cr_assert_eq(count, n);
  free(rate);
  free(num);
  free(order);
}

/* The compact solve of ms against the general level-order Gauss-Seidel
 * (the same sums: the same sweeps, values to 1e-12) and UMFPACK (an
 * independent solve: 1e-10, the sweeps' residual being about 1e-14 on
 * these well-mixed chains). */
static void check_against_general(const stp_movestore *ms) {
  stp_stationary_options o;
  options(&o, STP_STATIONARY_AUTO);
  stp_stationary_info bi, gi, di;
  double *pb, *pg, *pd;
  stp_error err = {0};
  cr_assert_eq(stp__bands_solve(ms, &o, &pb, &bi, &err), STP_OK, "%s", err.message);
  stp_csr *q;
  uint32_t *label;
  cr_assert_eq(stp__movestore_to_csr(ms, &q, &label, &err), STP_OK);
  options(&o, STP_STATIONARY_ITERATIVE);
  cr_assert_eq(stp__stationary_solve(q, &o, &pg, &gi, &err), STP_OK, "%s", err.message);
  options(&o, STP_STATIONARY_DIRECT);
  cr_assert_eq(stp__stationary_solve(q, &o, &pd, &di, &err), STP_OK, "%s", err.message);
  cr_assert_eq(bi.iterations, gi.iterations, "sweeps: compact %zu, general %zu", bi.iterations,
               gi.iterations);
  for (uint64_t s = 0; s < ms->nstates; s++) {
    cr_assert(stp__close(pb[s], pg[s], TOL_EXACT, 0), "state %llu: %.17g vs %.17g",
              (unsigned long long)s, pb[s], pg[s]);
    cr_assert(stp__close(pb[s], pd[s], 1e-10, 0), "state %llu: %.17g vs UMFPACK %.17g",
              (unsigned long long)s, pb[s], pd[s]);
  }
  free(pb);
  free(pg);
  free(pd);
  free(label);
  stp__csr_free(q);
}

static unsigned deg_1_to_20(unsigned j) { return 1 + j % 20; }         /* lanes of 16, longer rows */
static unsigned deg_mostly_short(unsigned j) { return j % 60 ? 1 + j % 8 : 20; } /* lanes of 8 */
static unsigned deg_up_to_12(unsigned j) { return 5 + j % 8; }        /* lanes of 12 */

Test(stationary_bands, rows_of_every_length_match_the_general_solvers) {
  deg_fn degs[] = {deg_1_to_20, deg_mostly_short, deg_up_to_12};
  for (unsigned k = 0; k < 3; k++)
    for (unsigned self = 0; self <= 3; self += 3) { /* without, then with moves back */
      stp_movestore ms;
      layered_chain(4, 151, degs[k], self, &ms);
      check_against_general(&ms);
      stp__movestore_free(&ms);
    }
}
