/* model.c: Table 1 of Steffenel 2006 (intra-cluster broadcast models) as
 * printed, and the (max,+) makespan of each algorithm's tree computed from
 * the tree itself, so that the two can be compared (docs/design.md,
 * "Broadcast": the binomial row swaps its floor and ceiling). */

#include "base/core.h"
#include "base/inputrules.h"
#include "streamtp_bcast.h"

#include <math.h>
#include <stdlib.h>

static const char *const alg_names[STP_BCAST_ALG_COUNT] = {
    "flat",     "flat-rdv",     "seg-flat",     "chain",           "chain-rdv", "seg-chain",
    "binary",   "binomial",     "binomial-rdv", "seg-binomial",    "scatter-collect"};

const char *stp_bcast_alg_name(stp_bcast_alg a) {
  return (unsigned)a < STP_BCAST_ALG_COUNT ? alg_names[a] : "?";
}

double stp_bcast_model_formula(stp_bcast_alg a, const stp_bcast_model_params *q) {
  double P = (double)q->P, L = q->L, g = q->g, gs = q->gs, g1 = q->g1, k = (double)q->k;
  double cl = stp__ceil_log2(q->P), fl = stp__floor_log2(q->P);
  switch (a) {
  case STP_BCAST_ALG_FLAT: return L + (P - 1) * g;
  case STP_BCAST_ALG_FLAT_RDV: return 3 * L + (P - 1) * g + 2 * g1;
  case STP_BCAST_ALG_SEG_FLAT: return L + (P - 1) * (gs * k);
  case STP_BCAST_ALG_CHAIN: return (P - 1) * (g + L);
  case STP_BCAST_ALG_CHAIN_RDV: return (P - 1) * (g + 2 * g1 + 3 * L);
  case STP_BCAST_ALG_SEG_CHAIN: return (P - 1) * (gs + L) + gs * (k - 1);
  case STP_BCAST_ALG_BINARY: return cl * (2 * g + L);
  /* As printed: ceil on L, floor on g (see stp_bcast_intra_time). */
  case STP_BCAST_ALG_BINOMIAL: return cl * L + fl * g;
  case STP_BCAST_ALG_BINOMIAL_RDV: return cl * (2 * g1 + 3 * L) + fl * g;
  case STP_BCAST_ALG_SEG_BINOMIAL: return cl * L + fl * gs * k;
  case STP_BCAST_ALG_SCATTER_COLLECT: return (log2(P) + P - 1) * L + 2 * ((P - 1) / P) * g;
  default: return NAN;
  }
}

/* The children of v in its send order; returns the next child after
 * `prev` (SIZE_MAX = first), SIZE_MAX when none is left. */
static uint64_t next_child(stp_bcast_alg a, uint64_t P, uint64_t v, uint64_t prev) {
  switch (a) {
  case STP_BCAST_ALG_FLAT:
  case STP_BCAST_ALG_SEG_FLAT:
    if (v != 0)
      return UINT64_MAX;
    return prev == UINT64_MAX ? 1 : (prev + 1 < P ? prev + 1 : UINT64_MAX);
  case STP_BCAST_ALG_CHAIN:
  case STP_BCAST_ALG_SEG_CHAIN:
    return prev == UINT64_MAX && v + 1 < P ? v + 1 : UINT64_MAX;
  case STP_BCAST_ALG_BINOMIAL: {
    /* MPICH: v receives from v - lowbit(v) and sends to v + mask for masks
     * below lowbit(v) (the root: below 2^ceil(log2 P)), largest first. */
    uint64_t mask = prev == UINT64_MAX
                        ? (v == 0 ? (UINT64_C(1) << stp__ceil_log2(P)) : (v & (~v + 1)))
                        : prev - v;
    for (mask >>= 1; mask; mask >>= 1)
      if (v + mask < P)
        return v + mask;
    return UINT64_MAX;
  }
  default:
    return UINT64_MAX;
  }
}

static bool segmented(stp_bcast_alg a) {
  return a == STP_BCAST_ALG_SEG_FLAT || a == STP_BCAST_ALG_SEG_CHAIN;
}

#define MODEL_DAG_MAX UINT64_C(10000000)

/* Each node's parent has a smaller index in the three trees, so one pass
 * in index order sees every reception before the node forwards it.  A
 * sender serves its children one after the other, each with all segments
 * in order; a segment leaves once it has arrived and the previous send has
 * ended. */
stp_status stp_bcast_model_dag(stp_bcast_alg a, const stp_bcast_model_params *q, double *out,
                               stp_error *err) {
  *out = NAN;
  if (q->P < 2 || q->k < 1)
    return stp__fail(err, STP_EINVAL, "Table 1 needs P >= 2 and k >= 1");
  /* Times in the accepted range (the CLI's own check, here for C callers):
   * then P k of them add up to a finite makespan. */
  const double times[] = {q->L, q->g, q->gs, q->g1};
  const char *const names[] = {"L", "g", "gs", "g1"};
  char msg[256];
  for (int i = 0; i < 4; i++)
    if (!stp__rule_time(times[i], true, names[i], "Table 1", msg, sizeof msg))
      return stp__fail(err, STP_EINVAL, "%s", msg);
  if (a != STP_BCAST_ALG_FLAT && a != STP_BCAST_ALG_SEG_FLAT && a != STP_BCAST_ALG_CHAIN &&
      a != STP_BCAST_ALG_SEG_CHAIN && a != STP_BCAST_ALG_BINOMIAL)
    return STP_OK;
  uint64_t k = segmented(a) ? q->k : 1, cells;
  if (!stp__mul_u64(q->P, k, &cells) || cells > MODEL_DAG_MAX)
    return stp__fail(err, STP_ELIMIT, "the tree of P = %llu with %llu segments is beyond %llu "
                     "receptions", (unsigned long long)q->P, (unsigned long long)k,
                     (unsigned long long)MODEL_DAG_MAX);
  double gap = segmented(a) ? q->gs : q->g;
  double *r = stp__calloc((size_t)cells, sizeof *r); /* r[v*k + s]: segment s at v */
  if (!r)
    return stp__oom(err, "evaluating a Table 1 tree");
  double makespan = 0;
  for (uint64_t v = 0; v < q->P; v++) {
    double busy = 0; /* end of v's previous send */
    for (uint64_t c = next_child(a, q->P, v, UINT64_MAX); c != UINT64_MAX;
         c = next_child(a, q->P, v, c))
      for (uint64_t s = 0; s < k; s++) {
        double start = fmax(busy, r[v * k + s]);
        busy = start + gap;
        r[c * k + s] = busy + q->L;
        makespan = fmax(makespan, r[c * k + s]);
      }
  }
  free(r);
  *out = makespan;
  return stp__check_finite(makespan, "the makespan of a Table 1 tree", err);
}
