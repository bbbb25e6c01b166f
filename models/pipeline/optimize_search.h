/* optimize_search.h: the heuristic and random methods of stp_optimize
 * (optimize_search.c): random mappings, a greedy constructive start, and a
 * local search over ordered teams with restarts. */
#ifndef STP_OPTIMIZE_SEARCH_H
#define STP_OPTIMIZE_SEARCH_H

#include "models/pipeline/optimize_bound.h"
#include "models/pipeline/optimize_eval.h"

/* While searching under exp, the heuristic solves no Markov chain of more
 * than max_states / STP_OPT_SEARCH_CHAIN_SHARE states (an Overlap transfer
 * pattern's; 20,000 by default) or max_states / STP_OPT_SEARCH_STRICT_SHARE
 * (a Strict mapping's; 200,000): such candidates (teams of 4 and 35 give a
 * pattern of 295,260 states, most of a second) are left out, and counted.
 * The exact and random methods solve every chain within max_states. */
#define STP_OPT_SEARCH_CHAIN_SHARE 100
#define STP_OPT_SEARCH_STRICT_SHARE 10

/* The best of random mappings until x stops (x->best updated). */
stp_status stp__opt_random(stp_opt *x, stp_error *err);

/* The heuristic: a constructive start (its value into *constructive, NaN
 * when there is none), then local search and restarts until x stops, the
 * best reaches the bound x->upper_bound, or `budget` evaluations (0: no
 * limit) have been made. */
stp_status stp__opt_heuristic(stp_opt *x, const stp_opt_bound *b, uint64_t budget,
                              double *constructive, stp_error *err);

/* The heuristic's sweep of size profiles alone (optimize_search.c): every
 * vector of team sizes of the free stages, best bound first, a climb on
 * the assignment of each in turn, until x stops, `budget` evaluations (0:
 * no limit), or no profile may beat the best (*proved true: the best is
 * then optimal).  *swept false: too many profiles, nothing done. */
stp_status stp__opt_sweep(stp_opt *x, const stp_opt_bound *b, uint64_t budget, bool *swept,
                          bool *proved, stp_error *err);

/* The bound on every mapping whose free stages stages[0..nstages) have
 * teams of size[k] members: stage i with R_i members is at most R_i over
 * the R_i-th smallest t_i(p) (optimize_bound.h), and at most the fixed
 * teams' bound; 0 when a stage has too few processors. */
double stp__opt_profile_bound(const stp_opt *x, const stp_opt_bound *b, const size_t *stages,
                              size_t nstages, const size_t *size);

#endif /* STP_OPTIMIZE_SEARCH_H */
