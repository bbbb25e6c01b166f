/* components.h: the independent components of the Overlap event graph
 * (docs/design.md section 4).  Every cycle of the Overlap graph stays in one
 * column; a computation column splits into one cycle per processor, a
 * transfer column i -> i+1 into g = gcd(R_i, R_(i+1)) components, each the
 * repetition of a folded u x v pattern.  Nothing here depends on R. */
#ifndef STP_COMPONENTS_H
#define STP_COMPONENTS_H

#include "models/pipeline/mapping.h"
#include "solvers/digraph.h"

typedef struct stp_component {
  stp_component_kind kind;
  size_t stage; /* computed stage, or sending stage */
  size_t index; /* j: processor rank for computations, 0..g-1 for transfers */
  size_t g, u, v;
  size_t *snd;  /* u senders (the processor, for a computation) */
  size_t *rcv;  /* v receivers (NULL for a computation) */
} stp_component;

typedef struct stp_component_set {
  size_t n;
  stp_component *c;
} stp_component_set;

/* All components, column by column (computation of stage 0, transfer 0->1,
 * computation of stage 1, ...). */
stp_status stp__components_build(const stp_mapping *m, stp_component_set *out, stp_error *err);
void stp__components_free(stp_component_set *cs);

/* Transition k (0 <= k < uv) of a transfer pattern is the link
 * snd[k mod u] -> rcv[k mod v]. */
static inline size_t stp__pattern_sender(const stp_component *c, size_t k) {
  return c->snd[k % c->u];
}
static inline size_t stp__pattern_receiver(const stp_component *c, size_t k) {
  return c->rcv[k % c->v];
}
/* Mean firing times of the uv pattern transitions (caller frees). */
stp_status stp__pattern_times(const stp_mapping *m, const stp_component *c, double **out,
                              stp_error *err);
/* The folded pattern as an event graph: each sender cycles over its v
 * transitions in increasing k, each receiver over its u transitions; the
 * closing places hold one token. */
stp_status stp__pattern_graph(const stp_component *c, const double *times, stp_digraph **out,
                              stp_error *err);

/* Inner deterministic rate of a u x v transfer pattern whose transition k
 * takes times[k]: uv / lambda, lambda its maximum cycle ratio (Howard); a
 * component of g copies bounds the data-set rate by g times this. */
stp_status stp__pattern_det_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_error *err);
/* Peak bytes per transition of a pattern's deterministic rate: its times,
 * edge list, digraph and Howard's policy and values (measured: 165 for the
 * 4400 x 4401 pattern, 3.19 GB, and for 999 x 1001); the optimiser's
 * evaluator checks its budget with it too. */
#define STP_PATTERN_DET_BYTES 170
/* Deterministic bound on the data-set rate from one component:
 * R_i / c_p for a computation, g * uv / lambda(pattern) for a transfer. */
stp_status stp__component_det_throughput(const stp_mapping *m, const stp_component *c,
                                         const stp_options *o, double *rho, stp_error *err);
/* STP_ELIMIT when the folded pattern has more than max_transitions transitions. */
stp_status stp__pattern_check_size(const stp_mapping *m, const stp_component *c,
                                   uint64_t max_transitions, stp_error *err);

#endif /* STP_COMPONENTS_H */
