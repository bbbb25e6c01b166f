/* optimize_bound.h: upper bounds on the throughput of every mapping of a
 * problem (docs/design.md, "Choosing the mapping").
 *
 * A processor p serving stage i in a team of R_i handles every R_i-th data
 * set: per data set of its own it computes for c_i(p), receives for at
 * least in_i(p) (its fastest possible sender) and sends for at least
 * out_i(p) (its fastest possible receiver).  Its resource cycle-time
 * (docs/design.md 3) is then at least t_i(p) / R_i with t_i(p) the largest
 * of the three (Overlap) or their sum (Strict), and no throughput, with
 * constant or N.B.U.E. times, exceeds R_i / t_i(p).  So stage i reaches a
 * throughput theta only with R_i members of t_i(p) <= R_i / theta, and the
 * stages together need at least sum_i n_i(theta) distinct processors, n_i
 * the fewest members that can reach theta: the counting bound is the
 * largest theta for which there are enough processors.  And since
 * R_i / max t <= sum over the team of 1 / t_i(p), the stages share the
 * capacity sum_p 1 / t_i(p) of distinct processors: the capacity bound
 * (optimize_bound.c).  The root bound is the smaller of the two. */
#ifndef STP_OPTIMIZE_BOUND_H
#define STP_OPTIMIZE_BOUND_H

#include "models/pipeline/optimize_eval.h"

typedef struct stp_opt_bound {
  double *in, *out, *t;  /* N * M: in_i(p), out_i(p) (0 where none applies), t_i(p) */
  size_t *order;         /* N * M: the processors allowed at stage i by increasing t_i */
  size_t *norder;        /* N: how many */
  size_t nfree;          /* processors allowed at some stage, in no fixed team */
  double fixed;          /* the bound from the fixed teams alone (INFINITY: none) */
} stp_opt_bound;

stp_status stp__opt_bound_init(const stp_opt *x, stp_opt_bound *b, stp_error *err);
void stp__opt_bound_free(stp_opt_bound *b);

/* The bound on every mapping of the problem. */
double stp__opt_bound_root(const stp_opt *x, const stp_opt_bound *b);

/* The fewest members stage i needs to exceed theta (to reach it, when
 * !strict) from the processors p with !used[p] (used may be NULL: none), and
 * at most `room`; 0 when it cannot. */
size_t stp__opt_bound_need(const stp_opt *x, const stp_opt_bound *b, size_t i, double theta,
                           bool strict, const size_t *owner, size_t room);

#endif /* STP_OPTIMIZE_BOUND_H */
