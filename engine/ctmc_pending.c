/* ctmc_pending.c: TEMPORARY placeholder until the Markov-chain module lands
 * (issue 3); removed by that work. */
#include "engine/core.h"
#include "engine/ctmc.h"

stp_status stp__pattern_exp_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_ctmc_info *info, stp_error *err) {
  (void)u; (void)v; (void)times; (void)o; (void)rate; (void)info;
  return stp__fail(err, STP_ELIMIT, "Markov-chain solver not available yet");
}

stp_status stp__strict_exp_throughput(const stp_mapping *m, const stp_options *o, double *rho,
                                      stp_ctmc_info *info, stp_error *err) {
  (void)m; (void)o; (void)rho; (void)info;
  return stp__fail(err, STP_ELIMIT, "Markov-chain solver not available yet");
}
