/* reach.h: the exponential throughput of a timed event graph from the
 * Markov chains of its reachable markings (docs/design.md, "Beyond
 * pipelines").  Each strongly connected component is solved on its own
 * (its internal places only: the places between components are unbounded
 * and never enter a chain) and the graph runs as fast as its slowest
 * component.  Transitions are single servers: enabled when every input
 * place of the component holds a token, firing at rate 1 / time. */
#ifndef STP_ENGINE_REACH_H
#define STP_ENGINE_REACH_H

#include "engine/graph.h"
#include "solvers/phasetype.h"

typedef struct stp_reach_stats {
  uint64_t states;     /* states of the largest component's chain */
  uint32_t components; /* strongly connected components */
  double residual;     /* worst scaled residual of the stationary solves */
  const char *solver;  /* stationary solver of the largest chain */
  const char *solver_reason; /* why it was chosen (static), or NULL */
  size_t sweeps;       /* its sweeps (0: direct solver) */
} stp_reach_stats;

/* Throughput (counted as in stp_graph_result) of the TEG g (checked: every
 * cycle marked, times > 0) when the time of transition t is its mean times
 * a draw of the law ph[t] (mean 1, Coxian form, solvers/phasetype.h; ph
 * NULL or ph[t] NULL: exponential): a state is a marking and the phase of
 * each enabled transition.  o gives max_states, the memory budget
 * (o->control: checked on a lower bound of the states before enumerating,
 * then on the keys and moves held), cancellation, progress and the solver
 * tolerance.  STP_ELIMIT with a
 * reason when a component's chain exceeds them. */
/* Refusals known before a phase-type chain's tables are built, for a
 * component whose transitions reach `phases` phases in all (P_t each:
 * stp__reach_phases), holding `tokens` tokens, whose transitions enabled at
 * the start reach `start` phase vectors (the product of their P_t): STP_ELIMIT
 * when at least max(start, phases / tokens) states exceed o->max_states or
 * the memory budget, or the tables (32 bytes a phase) the budget. */
stp_status stp__reach_ph_precheck(uint64_t phases, uint64_t tokens, uint64_t start,
                                  const stp_options *o, stp_error *err);
/* The phases a Coxian form reaches (it goes on from phase i only where
 * next_i > 0); 1 for NULL (exponential). */
uint64_t stp__reach_phases(const struct stp_coxian *c);

stp_status stp__reach_throughput_ph(const stp_graph *g, const stp_options *o,
                                    const stp_coxian *const *ph, double *throughput,
                                    stp_reach_stats *stats, stp_error *err);

/* The same throughput, and for each strongly connected component at the
 * minimum (within tie_rtol), the derivative of the log of its rate with
 * respect to the log of every transition's mean time (dlog: g->nt
 * entries, 0 outside the component), handed to fn: a law of mean x is x
 * times a law of mean 1, so every phase rate of a transition scales as
 * 1 / its time.  One adjoint solve per such component
 * (engine/chain_adjoint.h; its worst residual in *adjoint_residual).  For
 * the sensitivities under a law (models/pipeline/sensitivity.c). */
typedef stp_status (*stp_reach_gradient_fn)(void *ctx, const double *dlog, stp_error *err);
stp_status stp__reach_gradient_ph(const stp_graph *g, const stp_options *o,
                                  const stp_coxian *const *ph, double tie_rtol,
                                  stp_reach_gradient_fn fn, void *ctx, double *throughput,
                                  stp_reach_stats *stats, double *adjoint_residual,
                                  stp_error *err);

/* Every time exponential; control may be NULL (never cancelled, no
 * progress, the default budget). */
stp_status stp__reach_throughput(const stp_graph *g, uint64_t max_states, const stp_control *control,
                                 double *throughput, stp_reach_stats *stats, stp_error *err);

#endif /* STP_ENGINE_REACH_H */
