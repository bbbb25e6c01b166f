/* optimize_exact.h: the exact method of stp_optimize, a branch and bound
 * over the ordered teams, stage after stage (optimize_exact.c). */
#ifndef STP_OPTIMIZE_EXACT_H
#define STP_OPTIMIZE_EXACT_H

#include "models/pipeline/optimize_bound.h"
#include "models/pipeline/optimize_eval.h"

/* Search every mapping of x, starting from the best of x (if any) and
 * keeping it updated.  root is an upper bound of every mapping's value
 * (stp__opt_bound_root).  On return *proved says whether the best of x is
 * optimal (the search ended and dropped nothing for the limits), *upper
 * bounds every mapping's value (the best's when proved).  Stopping early
 * (x->stop) is not an error. */
stp_status stp__opt_exact(stp_opt *x, const stp_opt_bound *b, double root, bool *proved,
                          double *upper, stp_error *err);

#endif /* STP_OPTIMIZE_EXACT_H */
