/* test_bcast.c: the broadcast family without the event graph: the platform
 * reader (values and every documented error with its position), the
 * intra-cluster times and Table 1 (printed forms, the (max,+) values of the
 * trees, the binomial erratum), the seven heuristics on platforms worked
 * out by hand round by round, and Lowekamp's partition on hand-made
 * matrices and on the paper's Table 4. */
#include "streamtp_bcast.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static stp_bcast_platform *platform(const char *json) {
  stp_error err = {0};
  stp_bcast_platform *p = NULL;
  stp_status s = stp_bcast_platform_load_string(json, strlen(json), "grid.json", &p, &err);
  cr_assert_eq(s, STP_OK, "loading failed: %s", err.message);
  return p;
}

static const char *platform_error(const char *json, size_t len) {
  static stp_error err;
  memset(&err, 0, sizeof err);
  stp_bcast_platform *p = NULL;
  stp_status s = stp_bcast_platform_load_string(json, len, "grid.json", &p, &err);
  cr_assert_neq(s, STP_OK, "accepted: %s", json);
  cr_assert_null(p);
  cr_assert_eq(s, STP_EINVAL);
  return err.message;
}

/* ---- hand-worked platforms ------------------------------------------------------
 * Clusters of one machine have T = 0; a cluster of 2 with L = 0 and g = t has
 * T = t under every intra algorithm (one send, no latency). */

/* P4: root A.  cost_ij = g_ij + L_ij.
 *        L   g   cost          T: A 0, B 10, C 1, D 5
 *   A-B  1   4   5
 *   A-C  2   1   3
 *   A-D  4   2   6
 *   B-C  1   2   3
 *   B-D  3   1   4
 *   C-D  1   3   4                                                          */
static const char *P4 =
    "{\"clusters\": [{\"name\": \"A\", \"size\": 1, \"L\": 0, \"g\": 0},\n"
    " {\"name\": \"B\", \"size\": 2, \"L\": 0, \"g\": 10},\n"
    " {\"name\": \"C\", \"size\": 2, \"L\": 0, \"g\": 1},\n"
    " {\"name\": \"D\", \"size\": 2, \"L\": 0, \"g\": 5}],\n"
    " \"inter\": {\"L\": [[0,1,2,4],[1,0,1,3],[2,1,0,1],[4,3,1,0]],\n"
    "            \"g\": [[0,4,1,2],[4,0,2,1],[1,2,0,3],[2,1,3,0]]}}";

typedef struct want_send {
  size_t from, to;
  double start, arrival;
} want_send;

static void check_schedule(const stp_bcast_platform *p, stp_bcast_heuristic h,
                           const stp_bcast_options *o, const want_send *w, double makespan) {
  stp_bcast_schedule s;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_schedule_compute(p, o, h, &s, &err), STP_OK, "%s", err.message);
  for (size_t k = 0; k + 1 < stp_bcast_cluster_count(p); k++) {
    cr_assert_eq(s.sends[k].from, w[k].from, "%s round %zu: sender %zu, expected %zu",
                 stp_bcast_heuristic_name(h), k + 1, s.sends[k].from, w[k].from);
    cr_assert_eq(s.sends[k].to, w[k].to, "%s round %zu: receiver %zu, expected %zu",
                 stp_bcast_heuristic_name(h), k + 1, s.sends[k].to, w[k].to);
    assert_close(s.sends[k].start, w[k].start, TOL_EXACT);
    assert_close(s.sends[k].arrival, w[k].arrival, TOL_EXACT);
  }
  assert_close(s.makespan, makespan, TOL_EXACT);
  stp_bcast_schedule_free(&s);
}

enum { A, B, C, D };

Test(bcast_heuristics, p4_flat) {
  /* Root A sends to B, C, D in index order:
   *   A->B start 0, RT_A 4, B at 5;  A->C start 4, RT_A 5, C at 7;
   *   A->D start 5, RT_A 7, D at 11.
   * makespan = max(A 7+0, B 5+10, C 7+1, D 11+5) = 16. */
  stp_bcast_platform *p = platform(P4);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  want_send w[] = {{A, B, 0, 5}, {A, C, 4, 7}, {A, D, 5, 11}};
  check_schedule(p, STP_BCAST_FLAT, &o, w, 16);
  stp_bcast_platform_free(p);
}

Test(bcast_heuristics, p4_fef) {
  /* Least L_ij: r1 L_AB 1 < L_AC 2 < L_AD 4 -> A->B (start 0, RT_A 4, B at 5).
   * r2: L_AC 2, L_AD 4, L_BC 1, L_BD 3 -> B->C (start 5, RT_B 7, C at 8).
   * r3: L_AD 4, L_BD 3, L_CD 1 -> C->D (start 8, RT_C 11, D at 12).
   * makespan = max(A 4, B 7+10, C 11+1, D 12+5) = 17. */
  stp_bcast_platform *p = platform(P4);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  want_send w[] = {{A, B, 0, 5}, {B, C, 5, 8}, {C, D, 8, 12}};
  check_schedule(p, STP_BCAST_FEF, &o, w, 17);
  stp_bcast_platform_free(p);
}

Test(bcast_heuristics, p4_ecef_and_ecef_la) {
  /* ECEF, least RT_i + g_ij + L_ij:
   * r1: AB 5, AC 3, AD 6 -> A->C (start 0, RT_A 1, C at 3).
   * r2: AB 1+5 = 6, AD 1+6 = 7, CB 3+3 = 6, CD 3+4 = 7: tie AB = CB, the
   *     smallest (i, j) wins -> A->B (start 1, RT_A 5, B at 6).
   * r3: AD 5+6 = 11, BD 6+4 = 10, CD 3+4 = 7 -> C->D (start 3, RT_C 6, D at 7).
   * makespan = max(A 5, B 6+10, C 6+1, D 7+5) = 16.
   * ECEF-LA adds F_j = min over the other k of B of cost_jk:
   * r1: F_B = min(3, 4) = 3, F_C = min(3, 4) = 3, F_D = min(4, 4) = 4:
   *     AB 8, AC 6, AD 10 -> A->C;  r2: F_B = F_D = 4: AB 10, AD 11, CB 10,
   *     CD 11 -> A->B (tie);  r3: F_D = 0 -> C->D.  The same schedule. */
  stp_bcast_platform *p = platform(P4);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  want_send w[] = {{A, C, 0, 3}, {A, B, 1, 6}, {C, D, 3, 7}};
  check_schedule(p, STP_BCAST_ECEF, &o, w, 16);
  check_schedule(p, STP_BCAST_ECEF_LA, &o, w, 16);
  stp_bcast_platform_free(p);
}

Test(bcast_heuristics, p4_lookahead_with_T_and_bottomup) {
  /* ECEF-LAt, F_j = min over the other k of B of cost_jk + T_k:
   * r1: F_B = min(3+1, 4+5) = 4, F_C = min(3+10, 4+5) = 9, F_D = min(4+10, 4+1) = 5:
   *     AB 5+4 = 9, AC 3+9 = 12, AD 6+5 = 11 -> A->B (start 0, RT_A 4, B at 5).
   * r2: F_C = 4+5 = 9, F_D = 4+1 = 5: AC 4+3+9 = 16, AD 4+6+5 = 15,
   *     BC 5+3+9 = 17, BD 5+4+5 = 14 -> B->D (start 5, RT_B 6, D at 9).
   * r3: F_C = 0: AC 4+3 = 7, BC 6+3 = 9, DC 9+4 = 13 -> A->C (start 4, RT_A 5, C at 7).
   * makespan = max(A 5, B 6+10, C 7+1, D 9+5) = 16.
   * ECEF-LAT (max): r1 F_B = 9, F_C = 13, F_D = 14: AB 14, AC 16, AD 20 -> A->B;
   * then one k is left in B and max = min: the same schedule.
   * BottomUp, j maximising min_i (RT_i + cost_ij + T_j):
   * r1: B 5+10 = 15, C 3+1 = 4, D 6+5 = 11 -> A->B.
   * r2: C: min(A 4+3, B 5+3) + 1 = 8 (A); D: min(A 4+6, B 5+4) + 5 = 14 (B) -> B->D.
   * r3: C: min(A 4+3, B 6+3, D 9+4) -> A->C.  The same schedule again. */
  stp_bcast_platform *p = platform(P4);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  want_send w[] = {{A, B, 0, 5}, {B, D, 5, 9}, {A, C, 4, 7}};
  check_schedule(p, STP_BCAST_ECEF_LAT, &o, w, 16);
  check_schedule(p, STP_BCAST_ECEF_LAT_MAX, &o, w, 16);
  check_schedule(p, STP_BCAST_BOTTOMUP, &o, w, 16);
  stp_bcast_platform_free(p);
}

/* R: root A, where the lookahead changes ECEF's choices.
 *        L    g    cost
 *   A-B  1    1    2
 *   A-C  1    2    3
 *   A-D  5    5    10
 *   B-C  25   25   50
 *   B-D  25   25   50
 *   C-D  0.5  0.5  1          T_D = TD (0 in R, 20 in R20), the others 0. */
#define R_PLATFORM(TD)                                                                      \
  "{\"clusters\": [{\"name\": \"A\", \"size\": 1, \"L\": 0, \"g\": 0},"                    \
  " {\"name\": \"B\", \"size\": 1, \"L\": 0, \"g\": 0},"                                    \
  " {\"name\": \"C\", \"size\": 1, \"L\": 0, \"g\": 0},"                                    \
  " {\"name\": \"D\", \"size\": 2, \"L\": 0, \"g\": " #TD "}],"                             \
  " \"inter\": {\"L\": [[0,1,1,5],[1,0,25,25],[1,25,0,0.5],[5,25,0.5,0]],"                 \
  "            \"g\": [[0,1,2,5],[1,0,25,25],[2,25,0,0.5],[5,25,0.5,0]]}}"

Test(bcast_heuristics, r_lookahead_beats_ecef) {
  /* ECEF: r1 AB 2, AC 3, AD 10 -> A->B (start 0, RT_A 1, B at 2).
   *       r2 AC 1+3 = 4, AD 11, BC 52, BD 52 -> A->C (start 1, RT_A 3, C at 4).
   *       r3 AD 13, BD 52, CD 4+1 = 5 -> C->D (start 4, RT_C 4.5, D at 5).  makespan 5.
   * ECEF-LA: r1 F_B = min(50, 50) = 50, F_C = min(50, 1) = 1, F_D = min(50, 1) = 1:
   *       AB 52, AC 4, AD 11 -> A->C (start 0, RT_A 2, C at 3).
   *       r2 F_B = F_D = 50: AB 2+2+50 = 54, AD 62, CB 103, CD 3+1+50 = 54: tie,
   *       smallest (i, j) -> A->B (start 2, RT_A 3, B at 4).
   *       r3 AD 13, BD 54, CD 3+1 = 4 -> C->D (start 3, RT_C 3.5, D at 4).  makespan 4. */
  stp_bcast_platform *p = platform(R_PLATFORM(0));
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  want_send ecef[] = {{A, B, 0, 2}, {A, C, 1, 4}, {C, D, 4, 5}};
  want_send la[] = {{A, C, 0, 3}, {A, B, 2, 4}, {C, D, 3, 4}};
  check_schedule(p, STP_BCAST_ECEF, &o, ecef, 5);
  check_schedule(p, STP_BCAST_ECEF_LA, &o, la, 4);
  stp_bcast_platform_free(p);
}

Test(bcast_heuristics, r20_min_max_lookahead_and_bottomup) {
  /* T_D = 20.  ECEF-LAt: r1 F_B = min(50+0, 50+20) = 50, F_C = min(50+0, 1+20) = 21,
   *       F_D = min(50+0, 1+0) = 1: AB 52, AC 24, AD 11 -> A->D (start 0, RT_A 5, D at 10).
   *       r2 F_B = 50+0, F_C = 50+0: AB 5+2+50 = 57, AC 58, DB 110, DC 61 -> A->B
   *       (start 5, RT_A 6, B at 7).  r3 AC 6+3 = 9, BC 57, DC 11 -> A->C (start 6,
   *       RT_A 8, C at 9).  makespan = max(A 8, B 7, C 9, D 10+20) = 30.
   * ECEF-LAT (max): r1 F_B = max(50, 70) = 70, F_C = max(50, 21) = 50, F_D = max(50, 1) = 50:
   *       AB 72, AC 53, AD 60 -> A->C (start 0, RT_A 2, C at 3).
   *       r2 F_B = 50+20 = 70, F_D = 50+0 = 50: AB 74, AD 62, CB 123, CD 3+1+50 = 54
   *       -> C->D (start 3, RT_C 3.5, D at 4).  r3 AB 2+2 = 4, CB 53.5, DB 54 -> A->B
   *       (start 2, RT_A 3, B at 4).  makespan = max(3, 4, 3.5, 4+20) = 24.
   * BottomUp: r1 B 2, C 3, D 10+20 = 30 -> A->D (start 0, RT_A 5, D at 10).
   *       r2 B min(A 7, D 60) = 7, C min(A 8, D 11) = 8 -> A->C (start 5, RT_A 7, C at 8).
   *       r3 B min(A 9, D 60, C 58) -> A->B (start 7, RT_A 8, B at 9).  makespan 30.
   * ECEF ignores T: the schedule of R, D at 5, makespan 5+20 = 25. */
  stp_bcast_platform *p = platform(R_PLATFORM(20));
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  want_send lat[] = {{A, D, 0, 10}, {A, B, 5, 7}, {A, C, 6, 9}};
  want_send max[] = {{A, C, 0, 3}, {C, D, 3, 4}, {A, B, 2, 4}};
  want_send bu[] = {{A, D, 0, 10}, {A, C, 5, 8}, {A, B, 7, 9}};
  want_send ecef[] = {{A, B, 0, 2}, {A, C, 1, 4}, {C, D, 4, 5}};
  check_schedule(p, STP_BCAST_ECEF_LAT, &o, lat, 30);
  check_schedule(p, STP_BCAST_ECEF_LAT_MAX, &o, max, 24);
  check_schedule(p, STP_BCAST_BOTTOMUP, &o, bu, 30);
  check_schedule(p, STP_BCAST_ECEF, &o, ecef, 25);
  stp_bcast_platform_free(p);
}

/* Q3: three clusters, root Y (not the first), affine gaps at --size 2.
 *   X: 4 machines, L 1, g = 1 + 0.5 * 2 = 2: binomial T = 2 g + 2 L = 6.
 *   Y: 1 machine: T = 0.
 *   Z: 3 machines, L 2, g 1: binomial T = ceil(log2 3) g + floor(log2 3) L = 2 + 2 = 4
 *      (Table 1 as printed, ceil on L and floor on g, would say 2 L + g = 5).
 *   X-Y: L 1, g = 0 + 1 * 2 = 2 (cost 3);  X-Z: L 3, g 1 (4);  Y-Z: L 1, g 1 (2). */
static const char *Q3 =
    "{\"clusters\": [{\"name\": \"X\", \"size\": 4, \"L\": 1, \"g\": {\"g0\": 1, \"per_byte\": 0.5}},"
    " {\"name\": \"Y\", \"size\": 1, \"L\": 7, \"g\": 7},"
    " {\"name\": \"Z\", \"size\": 3, \"L\": 2, \"g\": 1}],"
    " \"inter\": {\"L\": [[null,1,3],[1,null,1],[3,1,null]],"
    "  \"g\": [[0,{\"g0\": 0, \"per_byte\": 1},1],[{\"g0\": 0, \"per_byte\": 1},0,1],[1,1,0]]},"
    " \"root\": \"Y\"}";

Test(bcast_heuristics, q3_root_affine_gaps_and_erratum) {
  enum { X, Y, Z };
  stp_bcast_platform *p = platform(Q3);
  cr_assert(stp_bcast_platform_needs_size(p));
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  o.size = 2;
  o.has_size = 1;
  /* Flat from Y: Y->X (start 0, RT_Y 2, X at 3), Y->Z (start 2, RT_Y 3, Z at 4);
   * makespan = max(X 3+6, Y 3, Z 4+4) = 9. */
  want_send flat[] = {{Y, X, 0, 3}, {Y, Z, 2, 4}};
  check_schedule(p, STP_BCAST_FLAT, &o, flat, 9);
  /* ECEF: r1 YX 3, YZ 2 -> Y->Z (start 0, RT_Y 1, Z at 2); r2 YX 1+3 = 4, ZX 2+4 = 6
   * -> Y->X (start 1, RT_Y 3, X at 4); makespan = max(X 4+6, Y 3, Z 2+4) = 10. */
  want_send ecef[] = {{Y, Z, 0, 2}, {Y, X, 1, 4}};
  check_schedule(p, STP_BCAST_ECEF, &o, ecef, 10);
  /* BottomUp: r1 X 3+6 = 9, Z 2+4 = 6 -> Y->X; r2 Z min(Y 2+2, X 3+4) -> Y->Z: the
   * flat schedule, 9, better than ECEF here because X's inside broadcast is long. */
  check_schedule(p, STP_BCAST_BOTTOMUP, &o, flat, 9);
  stp_bcast_schedule s;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_schedule_compute(p, &o, STP_BCAST_FLAT, &s, &err), STP_OK);
  assert_close(s.T[X], 6, TOL_EXACT);
  assert_close(s.T[Y], 0, TOL_EXACT);
  assert_close(s.T[Z], 4, TOL_EXACT); /* corrected binomial; the printed row gives 5 */
  cr_assert_eq(s.root, Y);
  stp_bcast_schedule_free(&s);
  /* --root overrides the file's root; without --size the affine gaps are refused. */
  o.root = Z;
  want_send fromz[] = {{Z, X, 0, 4}, {Z, Y, 1, 3}};
  check_schedule(p, STP_BCAST_FLAT, &o, fromz, 10); /* Z->X X at 4, Z->Y; X 4+6 = 10 */
  o.has_size = 0;
  cr_assert_eq(stp_bcast_schedule_compute(p, &o, STP_BCAST_FLAT, &s, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "a message size is required"), "%s", err.message);
  stp_bcast_platform_free(p);
}

Test(bcast_heuristics, one_cluster_and_names) {
  stp_bcast_platform *p = platform("{\"clusters\": [{\"name\": \"solo\", \"size\": 8, \"L\": 1, "
                                   "\"g\": 2}], \"inter\": {\"L\": [[0]], \"g\": [[0]]}}");
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  /* binomial of 8: 3 g + 3 L = 9 */
  check_schedule(p, STP_BCAST_ECEF, &o, NULL, 9);
  o.intra = STP_BCAST_INTRA_CHAIN; /* 7 (g + L) = 21 */
  check_schedule(p, STP_BCAST_BOTTOMUP, &o, NULL, 21);
  o.intra = STP_BCAST_INTRA_FLAT; /* L + 7 g = 15 */
  check_schedule(p, STP_BCAST_FLAT, &o, NULL, 15);
  stp_bcast_platform_free(p);
  for (int h = 0; h < STP_BCAST_HEURISTIC_COUNT; h++) {
    stp_bcast_heuristic back;
    cr_assert_eq(stp_bcast_heuristic_parse(stp_bcast_heuristic_name(h), &back), STP_OK);
    cr_assert_eq((int)back, h);
  }
  stp_bcast_heuristic hh;
  cr_assert_eq(stp_bcast_heuristic_parse("ecef-LA", &hh), STP_EINVAL);
}

/* ---- intra-cluster times and Table 1 ---------------------------------------------- */

/* floor and ceil of log2 by repeated halving and doubling (not the library's). */
static int flog2(uint64_t n) {
  int k = -1;
  for (; n; n /= 2)
    k++;
  return k;
}
static int clog2(uint64_t n) {
  int k = 0;
  for (uint64_t p = 1; p < n; p *= 2)
    k++;
  return k;
}

Test(bcast_model, printed_forms_p2_to_64) {
  /* Table 1 retyped from the paper, row by row. */
  const double L = 50, g = 120, gs = 35, g1 = 3;
  const uint64_t k = 4;
  for (uint64_t P = 2; P <= 64; P++) {
    stp_bcast_model_params q = {.P = P, .L = L, .g = g, .k = k, .gs = gs, .g1 = g1};
    double Pm = (double)P - 1, c = clog2(P), f = flog2(P);
    double want[STP_BCAST_ALG_COUNT] = {
        [STP_BCAST_ALG_FLAT] = L + Pm * g,
        [STP_BCAST_ALG_FLAT_RDV] = 3 * L + Pm * g + 2 * g1,
        [STP_BCAST_ALG_SEG_FLAT] = L + Pm * (gs * k),
        [STP_BCAST_ALG_CHAIN] = Pm * (g + L),
        [STP_BCAST_ALG_CHAIN_RDV] = Pm * (g + 2 * g1 + 3 * L),
        [STP_BCAST_ALG_SEG_CHAIN] = Pm * (gs + L) + gs * (k - 1),
        [STP_BCAST_ALG_BINARY] = c * (2 * g + L),
        [STP_BCAST_ALG_BINOMIAL] = c * L + f * g,
        [STP_BCAST_ALG_BINOMIAL_RDV] = c * (2 * g1 + 3 * L) + f * g,
        [STP_BCAST_ALG_SEG_BINOMIAL] = c * L + f * gs * k,
        [STP_BCAST_ALG_SCATTER_COLLECT] = (log2((double)P) + Pm) * L + 2 * (Pm / P) * g};
    for (int a = 0; a < STP_BCAST_ALG_COUNT; a++)
      assert_close(stp_bcast_model_formula(a, &q), want[a], TOL_EXACT);
  }
  /* P = 24, L = 50, g = 120 by hand: flat 50 + 23 * 120 = 2810; binomial as printed
   * 5 * 50 + 4 * 120 = 730; chain 23 * 170 = 3910. */
  stp_bcast_model_params q = {.P = 24, .L = 50, .g = 120, .k = 1, .gs = 120};
  assert_close(stp_bcast_model_formula(STP_BCAST_ALG_FLAT, &q), 2810, TOL_EXACT);
  assert_close(stp_bcast_model_formula(STP_BCAST_ALG_BINOMIAL, &q), 730, TOL_EXACT);
  assert_close(stp_bcast_model_formula(STP_BCAST_ALG_CHAIN, &q), 3910, TOL_EXACT);
}

static double dag(stp_bcast_alg a, const stp_bcast_model_params *q) {
  double v;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_model_dag(a, q, &v, &err), STP_OK, "%s", err.message);
  return v;
}

Test(bcast_model, dag_equals_formula_flat_chain_segmented) {
  const double Ls[] = {50, 0.5, 0};
  const double gss[] = {35, 200};
  for (size_t li = 0; li < 3; li++)
    for (size_t gi = 0; gi < 2; gi++)
      for (uint64_t k = 1; k <= 5; k += 2)
        for (uint64_t P = 2; P <= 64; P++) {
          stp_bcast_model_params q = {.P = P, .L = Ls[li], .g = 120, .k = k, .gs = gss[gi]};
          const stp_bcast_alg same[] = {STP_BCAST_ALG_FLAT, STP_BCAST_ALG_SEG_FLAT,
                                        STP_BCAST_ALG_CHAIN, STP_BCAST_ALG_SEG_CHAIN};
          for (size_t s = 0; s < 4; s++)
            assert_close(dag(same[s], &q), stp_bcast_model_formula(same[s], &q), TOL_EXACT);
          const stp_bcast_alg none[] = {STP_BCAST_ALG_FLAT_RDV, STP_BCAST_ALG_CHAIN_RDV,
                                        STP_BCAST_ALG_BINARY, STP_BCAST_ALG_BINOMIAL_RDV,
                                        STP_BCAST_ALG_SEG_BINOMIAL,
                                        STP_BCAST_ALG_SCATTER_COLLECT};
          for (size_t s = 0; s < 6; s++)
            cr_assert(isnan(dag(none[s], &q)));
        }
}

/* Erratum: Table 1 of Steffenel 2006 prints the binomial tree as
 * ceil(log2 P) L + floor(log2 P) g(m).  On MPICH's binomial tree (largest
 * subtree first) the longest path crosses ceil(log2 P) gaps (the root's
 * sends before the deepest subtree) and floor(log2 P) latencies (the depth):
 * ceil(log2 P) g + floor(log2 P) L.  Both agree at powers of two only. */
Test(bcast_model, binomial_erratum) {
  for (uint64_t P = 2; P <= 64; P++) {
    stp_bcast_model_params q = {.P = P, .L = 50, .g = 120, .k = 1, .gs = 120};
    double d = dag(STP_BCAST_ALG_BINOMIAL, &q);
    assert_close(d, clog2(P) * 120.0 + flog2(P) * 50.0, TOL_EXACT);
    assert_close(stp_bcast_intra_time(STP_BCAST_INTRA_BINOMIAL, P, 50, 120), d, TOL_EXACT);
    bool pow2 = (P & (P - 1)) == 0;
    double printed = stp_bcast_model_formula(STP_BCAST_ALG_BINOMIAL, &q);
    if (pow2)
      assert_close(d, printed, TOL_EXACT);
    else /* g > L here, so the corrected value exceeds the printed one by g - L */
      assert_close(d - printed, 120.0 - 50.0, TOL_EXACT);
  }
  /* P = 3 by hand: the root sends to 2 (done at g, lands g + L), then to 1
   * (done at 2 g, lands 2 g + L): 2 g + L, not the printed 2 L + g. */
  stp_bcast_model_params q = {.P = 3, .L = 1, .g = 10, .k = 1, .gs = 10};
  assert_close(dag(STP_BCAST_ALG_BINOMIAL, &q), 21, TOL_EXACT);
  assert_close(stp_bcast_model_formula(STP_BCAST_ALG_BINOMIAL, &q), 12, TOL_EXACT);
}

Test(bcast_model, intra_times_and_limits) {
  assert_close(stp_bcast_intra_time(STP_BCAST_INTRA_FLAT, 5, 2, 3), 2 + 4 * 3, TOL_EXACT);
  assert_close(stp_bcast_intra_time(STP_BCAST_INTRA_CHAIN, 5, 2, 3), 4 * 5, TOL_EXACT);
  assert_close(stp_bcast_intra_time(STP_BCAST_INTRA_BINOMIAL, 5, 2, 3), 3 * 3 + 2 * 2, TOL_EXACT);
  for (int a = 0; a < 3; a++)
    assert_close(stp_bcast_intra_time(a, 1, 2, 3), 0, TOL_EXACT);
  stp_bcast_model_params q = {.P = 1000000, .L = 1, .g = 1, .k = 100, .gs = 1};
  double v;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_model_dag(STP_BCAST_ALG_SEG_CHAIN, &q, &v, &err), STP_ELIMIT);
  q.P = 1;
  cr_assert_eq(stp_bcast_model_dag(STP_BCAST_ALG_FLAT, &q, &v, &err), STP_EINVAL);
  /* times outside [1e-150, 1e150] are refused (issue 26: 1e308 gave inf) */
  q.P = 4, q.L = 1e308;
  cr_assert_eq(stp_bcast_model_dag(STP_BCAST_ALG_FLAT, &q, &v, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "L (Table 1) = 1e+308 is outside"), "%s", err.message);
  q.L = 1, q.g = 5e-324;
  cr_assert_eq(stp_bcast_model_dag(STP_BCAST_ALG_CHAIN, &q, &v, &err), STP_EINVAL);
  q.g = 1e150, q.L = 1e150;
  cr_assert_eq(stp_bcast_model_dag(STP_BCAST_ALG_CHAIN, &q, &v, &err), STP_OK, "%s", err.message);
  assert_close(v, 3 * 2e150, 1e-12);
}

/* ---- the reader -------------------------------------------------------------------- */

Test(bcast_reader, values) {
  stp_bcast_platform *p = platform(Q3);
  cr_assert_eq(stp_bcast_cluster_count(p), 3);
  cr_assert_str_eq(stp_bcast_cluster_name(p, 2), "Z");
  cr_assert_eq(stp_bcast_cluster_size(p, 0), 4);
  cr_assert_str_eq(stp_bcast_platform_file(p), "grid.json");
  size_t j;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_cluster_find(p, "Z", &j, &err), STP_OK);
  cr_assert_eq(j, 2);
  cr_assert_eq(stp_bcast_cluster_find(p, "W", &j, &err), STP_EINVAL);
  stp_bcast_platform_free(p);
  p = platform(P4);
  cr_assert(!stp_bcast_platform_needs_size(p));
  stp_bcast_platform_free(p);
  /* a size is a number: 4.0 and 4e0 are the integer 4 */
  p = platform("{\"clusters\": [{\"name\": \"a\", \"size\": 4.0, \"L\": 1, \"g\": 1}, "
               "{\"name\": \"b\", \"size\": 3e0, \"L\": 1, \"g\": 1}], "
               "\"inter\": {\"L\": [[0,1],[1,0]], \"g\": [[0,1],[1,0]]}}");
  cr_assert_eq(stp_bcast_cluster_size(p, 0), 4);
  cr_assert_eq(stp_bcast_cluster_size(p, 1), 3);
  stp_bcast_platform_free(p);
}

#define CL1 "{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": 1}"
#define CL2 "{\"name\": \"b\", \"size\": 2, \"L\": 1, \"g\": 1}"
#define INTER2 "\"inter\": {\"L\": [[0,1],[1,0]], \"g\": [[0,1],[1,0]]}"

typedef struct bad_case {
  const char *json, *want;
} bad_case;

static const bad_case bad_cases[] = {
    {"{\"clusters\": [,]}", "grid.json:1:15: malformed JSON"},
    {"[1]", "grid.json:1:1: the top level must be an object, not an array"},
    {"{\"clusters\": [" CL1 "], " INTER2 ", \"name\": 1}",
     "unknown key \"name\" in the top-level object"},
    {"{\"clusters\": []}", "grid.json:1:14: \"clusters\" must not be empty"},
    {"{" INTER2 "}", "grid.json:1:1: missing required key \"clusters\""},
    {"{\"clusters\": [" CL1 "]}", "missing required key \"inter\""},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 0, \"L\": 1, \"g\": 1}], " INTER2 "}",
     "grid.json:1:37: the size of cluster \"a\" must be an integer in 1..9007199254740992"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 2.5, \"L\": 1, \"g\": 1}], " INTER2 "}",
     "must be an integer in 1.."},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 9223372036854775808, \"L\": 1, \"g\": 1}], "
     INTER2 "}", "grid.json:1:37: the size of cluster \"a\" must be an integer in 1.."},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1e-320, \"g\": 1}], " INTER2 "}",
     "the latency L (clusters[0].L) = 9.99989e-321 is outside [1e-150, 1e+150] (or 0)"},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,1e308],[1e308,0]], \"g\": [[0,1],[1,0]]}}",
     "inter.L (inter.L[0][1]) = 1e+308 is outside [1e-150, 1e+150] (or 0)"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": -1, \"g\": 1}], " INTER2 "}",
     "grid.json:1:45: the latency L (clusters[0].L) must be >= 0, got -1"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": \"x\"}], " INTER2 "}",
     "the gap g (clusters[0].g) must be a number or {\"g0\": a, \"per_byte\": b}, not a string"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": {\"g0\": 1}}], " INTER2 "}",
     "missing required key \"per_byte\" in an affine gap"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": {\"g0\": 1, \"per_byte\": -2}}], "
     INTER2 "}", "per_byte (clusters[0].g.per_byte) must be >= 0, got -2"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": {\"g0\": 1, \"perbyte\": 2}}], "
     INTER2 "}", "unknown key \"perbyte\" in an affine gap"},
    {"{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": 1, \"T\": 3}], " INTER2 "}",
     "unknown key \"T\" in a cluster"},
    {"{\"clusters\": [" CL1 ", " CL1 "], " INTER2 "}",
     "cluster name \"a\" is used twice (clusters[0] and clusters[1])"},
    {"{\"clusters\": [{\"name\": \"a->b\", \"size\": 1, \"L\": 1, \"g\": 1}], " INTER2 "}",
     "must not contain \"->\""},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,1]], \"g\": [[0,1],[1,0]]}}",
     "inter.L has 1 rows; it must be 2 x 2"},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,1],[1]], \"g\": [[0,1],[1,0]]}}",
     "row 1 of inter.L has 1 entries; it must have 2"},
    {"{\"clusters\": [" CL1 ", " CL2 "],\n \"inter\": {\"L\": [[0,1],[2,0]], \"g\": [[0,1],[1,0]]}}",
     "grid.json:2:25: inter.L[1][0] differs from inter.L[0][1]: the matrix must be symmetric"},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,1],[1,0]], \"g\": [[0,1],"
     "[{\"g0\": 1, \"per_byte\": 1},0]]}}",
     "inter.g[1][0] differs from inter.g[0][1]"},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,-1],[-1,0]], \"g\": [[0,1],[1,0]]}}",
     "inter.L (inter.L[0][1]) must be >= 0, got -1"},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[\"x\",1],[1,0]], \"g\": [[0,1],[1,0]]}}",
     "the diagonal of inter.L is ignored but must be a number or null, not a string"},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,1],[1,0]]}}",
     "missing required key \"g\" in \"inter\""},
    {"{\"clusters\": [" CL1 ", " CL2 "], \"inter\": {\"L\": [[0,1],[1,0]], \"g\": [[0,1],[1,0]], "
     "\"T\": 1}}", "unknown key \"T\" in \"inter\""},
    {"{\"clusters\": [" CL1 ", " CL2 "], " INTER2 ", \"root\": \"c\"}",
     "\"root\": unknown cluster \"c\""},
};

Test(bcast_reader, every_error_with_its_position) {
  for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; k++) {
    const char *msg = platform_error(bad_cases[k].json, strlen(bad_cases[k].json));
    cr_assert(strstr(msg, bad_cases[k].want), "case %zu: got \"%s\", want \"%s\"", k, msg,
              bad_cases[k].want);
  }
}

/* Platform keys are few and short: an unknown one is answered with the list
 * (models/jsonread's list_allowed), not with a "did you mean" guess. */
Test(bcast_reader, unknown_key_lists_the_allowed_keys) {
  const char *json = "{\"clusters\": [{\"name\": \"a\", \"size\": 1, \"L\": 1, \"g\": 1, "
                     "\"T\": 3}], " INTER2 "}";
  const char *msg = platform_error(json, strlen(json));
  cr_assert_str_eq(msg, "grid.json:1:56: unknown key \"T\" in a cluster (allowed: \"name\", "
                        "\"size\", \"L\", \"g\")");
}

Test(bcast_reader, nul_byte) {
  const char text[] = "{\"clusters\":\n  [\0]}";
  const char *msg = platform_error(text, sizeof text - 1);
  cr_assert(strstr(msg, "grid.json:2:4: a NUL byte"), "%s", msg);
}

/* ---- Lowekamp ------------------------------------------------------------------------- */

static stp_bcast_partition partition(const double *w, size_t n, double rho) {
  stp_bcast_partition p;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_partition_compute(w, n, rho, &p, &err), STP_OK, "%s", err.message);
  return p;
}

static void check_partition(const stp_bcast_partition *p, const size_t *sizes, size_t nc,
                            const size_t *nodes) {
  cr_assert_eq(p->nclusters, nc, "%zu clusters, expected %zu", p->nclusters, nc);
  size_t at = 0;
  for (size_t c = 0; c < nc; c++) {
    cr_assert_eq(p->sizes[c], sizes[c], "cluster %zu has %zu machines, expected %zu", c,
                 p->sizes[c], sizes[c]);
    cr_assert_eq(p->offsets[c], at);
    at += sizes[c];
  }
  if (nodes)
    for (size_t k = 0; k < p->n; k++)
      cr_assert_eq(p->nodes[k], nodes[k], "position %zu: machine %zu, expected %zu", k,
                   p->nodes[k], nodes[k]);
}

Test(bcast_partition, hand_made_five_machines) {
  /* w01 = 1, w12 = 1.25, w23 = 1.4, w34 = 1.5, every other pair 10.
   * minedge: 0 1, 1 1, 2 1.25, 3 1.4, 4 1.5; the 10s always fail the minedge test.
   * rho 0.3: (0,1) merge {0,1} submin 1; (1,2) 1.25 <= 1.3 * 1 (minedge 1 and submin
   *   of {0,1}) -> {0,1,2}; (2,3) 1.4 > 1.3 * submin 1 -> skip; (3,4) two singletons,
   *   1.5 <= 1.3 * 1.4 -> {3,4}.  Clusters {0,1,2}, {3,4}.
   * rho 0.2: (1,2) 1.25 > 1.2 * minedge(1) -> skip; (2,3) 1.4 <= 1.2 * 1.25 -> {2,3}
   *   submin 1.4; (3,4) 1.5 <= 1.2 * 1.4 = 1.68 -> {2,3,4}.  Clusters {2,3,4}, {0,1}.
   * rho 0: only (0,1) (1 <= 1 * 1).  Clusters {0,1}, {2}, {3}, {4}. */
  double w[25];
  for (size_t k = 0; k < 25; k++)
    w[k] = 10;
  const double chain[] = {1.0, 1.25, 1.4, 1.5};
  for (size_t a = 0; a < 4; a++)
    w[a * 5 + a + 1] = w[(a + 1) * 5 + a] = chain[a];
  stp_bcast_partition p = partition(w, 5, 0.3);
  check_partition(&p, (size_t[]){3, 2}, 2, (size_t[]){0, 1, 2, 3, 4});
  stp_bcast_partition_free(&p);
  p = partition(w, 5, 0.2);
  check_partition(&p, (size_t[]){3, 2}, 2, (size_t[]){2, 3, 4, 0, 1});
  stp_bcast_partition_free(&p);
  p = partition(w, 5, 0);
  check_partition(&p, (size_t[]){2, 1, 1, 1}, 4, (size_t[]){0, 1, 2, 3, 4});
  stp_bcast_partition_free(&p);
  p = partition(w, 1, 0.3); /* one machine: one cluster */
  check_partition(&p, (size_t[]){1}, 1, (size_t[]){0});
  stp_bcast_partition_free(&p);
}

/* Table 4 of the paper: latencies (microseconds) between and inside its six
 * clusters; clusters 3 and 4 have one machine (no inside latency). */
static const size_t T4_SIZE[6] = {31, 29, 6, 1, 1, 20};
static const double T4[6][6] = {
    {47.56, 62.10, 12181.52, 12187.24, 12197.49, 5210.99},
    {62.10, 47.92, 12181.52, 12198.03, 12195.22, 5211.47},
    {12181.52, 12181.52, 35.52, 60.08, 60.08, 5388.49},
    {12187.24, 12198.03, 60.08, 0, 242.47, 5393.98},
    {12197.49, 12195.22, 60.08, 242.47, 0, 5394.10},
    {5210.99, 5211.47, 5388.49, 5393.98, 5394.10, 27.53}};

/* The 88 machines, the clusters of Table 4 in order (a machine's cluster is
 * the one its index falls in), and their latencies. */
static double *table4_matrix(size_t *of) {
  size_t n = 88, m = 0;
  for (size_t c = 0; c < 6; c++)
    for (size_t k = 0; k < T4_SIZE[c]; k++)
      of[m++] = c;
  double *w = malloc(n * n * sizeof *w);
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      w[a * n + b] = a == b ? 0 : T4[of[a]][of[b]];
  return w;
}

Test(bcast_partition, table4_gives_the_papers_six_clusters) {
  /* Inside every cluster all edges are equal, so each merges first (27.53,
   * 35.52, 47.56, 47.92); the next edges, 60.08 (IDPOT 6 to either single
   * machine) and 62.10 (Orsay to Orsay), exceed 1.3 times the smaller end's
   * minedge (35.52 and 47.56), and so does everything after: the six
   * clusters of the paper at rho 0.20 and 0.30, sizes 31, 29, 20, 6, 1, 1. */
  size_t of[88];
  double *w = table4_matrix(of);
  const double rhos[] = {0.20, 0.30};
  for (size_t r = 0; r < 2; r++) {
    stp_bcast_partition p = partition(w, 88, rhos[r]);
    check_partition(&p, (size_t[]){31, 29, 20, 6, 1, 1}, 6, NULL);
    for (size_t c = 0; c < 6; c++) /* each found cluster is one cluster of Table 4 */
      for (size_t k = p.offsets[c]; k < p.offsets[c + 1]; k++)
        cr_assert_eq(of[p.nodes[k]], of[p.nodes[p.offsets[c]]]);
    stp_bcast_partition_free(&p);
  }
  /* Wide enough, Orsay's two clusters merge: 62.10 <= 1.35 * 47.56 = 64.2. */
  stp_bcast_partition p = partition(w, 88, 0.35);
  check_partition(&p, (size_t[]){60, 20, 6, 1, 1}, 5, NULL);
  stp_bcast_partition_free(&p);
  free(w);
}

Test(bcast_partition, latency_csv) {
  const char *ok = "0, 1, 10\n1,-,10\r\n10,10,\n\n";
  double *w;
  size_t n;
  stp_error err = {0};
  cr_assert_eq(stp_bcast_latency_load_string(ok, strlen(ok), "lat.csv", &w, &n, &err), STP_OK,
               "%s", err.message);
  cr_assert_eq(n, 3);
  assert_close(w[0 * 3 + 2], 10, TOL_EXACT);
  assert_close(w[1 * 3 + 0], 1, TOL_EXACT);
  free(w);
  const bad_case bad[] = {
      {"0,1\n1,0\n1,1\n", "lat.csv:3:1: more than 2 rows; the matrix must be square"},
      {"0,1,2\n1,0,2\n", "lat.csv:3:1: 2 rows for 3 columns; the matrix must be square"},
      {"0,1\n1\n", "lat.csv:2:1: row 1 has 1 entries; the matrix must be 2 x 2"},
      {"0,1\n2,0\n", "lat.csv:2:1: entry [1][0] differs from its mirror [0][1]"},
      {"0, x\nx,0\n", "lat.csv:1:4: entry [0][1] is not a number"},
      {"0,-1\n-1,0\n", "lat.csv:1:3: entry [0][1] must be 0 or a number within [1e-150, 1e+150]"},
      {"0,1e-320\n1e-320,0\n", "lat.csv:1:3: entry [0][1] must be 0 or a number within"},
      {"0,2e150\n2e150,0\n", "lat.csv:1:3: entry [0][1] must be 0 or a number within"},
      {"\n\n\n", "lat.csv:1:1: a blank line where row 0 of 1 should be"},
      {"0,1\n \n1,0\n", "lat.csv:2:1: a blank line where row 1 of 2 should be"},
      {"0,,\n", "lat.csv:1:3: entry [0][1] is empty"},
      {"", "lat.csv: empty file"},
      {"0,1\n1,\0\n", "lat.csv:2:3: a NUL byte"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    size_t len = k == sizeof bad / sizeof *bad - 1 ? 8 : strlen(bad[k].json);
    cr_assert_neq(stp_bcast_latency_load_string(bad[k].json, len, "lat.csv", &w, &n, &err),
                  STP_OK, "case %zu accepted", k);
    cr_assert(strstr(err.message, bad[k].want), "case %zu: got \"%s\", want \"%s\"", k,
              err.message, bad[k].want);
  }
}
