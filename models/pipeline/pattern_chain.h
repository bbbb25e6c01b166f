/* pattern_chain.h: the Markov chain of the folded u x v transfer pattern of
 * an Overlap component (docs/design.md; paper section 5.2): states are pairs
 * of Young diagrams, ranked without a hash table (pattern_chain.c). */
#ifndef STP_PATTERN_CHAIN_H
#define STP_PATTERN_CHAIN_H

#include "engine/chain.h"

#include <stdbool.h>

/* S(u, v) = v * C(u+v-1, u-1), the number of states of a u x v pattern;
 * false when it exceeds 2^63. */
bool stp__pattern_state_count(size_t u, size_t v, uint64_t *out);
/* STP_ELIMIT when the general chain of a u x v pattern (stp__pattern_chain)
 * and its solve would need more than `budget` bytes (from the exact state
 * and move counts). */
stp_status stp__pattern_check_memory(size_t u, size_t v, uint64_t budget, stp_error *err);

/* The chain of a u x v transfer pattern (gcd(u, v) = 1) whose transition k
 * has an exponential firing time of mean times[k]: S(u, v) states, indexed
 * by ranking the Young-diagram pairs.  STP_ELIMIT above max_states.
 * Time and memory O(S(u, v) * min(u, v)). */
stp_status stp__pattern_chain(size_t u, size_t v, const double *times, uint64_t max_states,
                              stp_chain **out, stp_error *err);

/* Inner rate of a u x v transfer pattern (gcd(u, v) = 1) whose transition k
 * has an exponential firing time of mean times[k]: the long-run number of
 * data sets through the pattern per time unit (= u*v times the firing rate
 * of any one transition), by the dense route (engine/densechain.h: about 75
 * bytes per state at the peak).  STP_ELIMIT when S(u, v) > o->max_states or
 * the route would exceed o's memory budget. */
stp_status stp__pattern_exp_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_ctmc_info *info, stp_error *err);

#endif /* STP_PATTERN_CHAIN_H */
