/* distchain.c: the distributed chain's entry without events, and, where
 * the library was built without PETSc (distchain.h), the refusal of every
 * call, saying how to build it; with -DSTP_PETSC=ON, distchain_petsc.c
 * holds the engine instead. */
#include "engine/distchain.h"

#include "base/core.h"
#include "streamtp_distributed.h"

stp_status stp__dist_rate(const stp_dense_source *src, const uint8_t *counted,
                          const stp_options *o, double *rate, stp_ctmc_info *info,
                          stp_error *err) {
  stp_dense_events ev = {src ? src->nlabels : 0, NULL, counted}; /* label l is event l */
  return stp__dist_events_rate(src, &ev, o, rate, info, err);
}

#ifndef STP_PETSC
int stp_distributed_available(void) { return 0; }

void stp_distributed_finalize(void) {}

stp_status stp__dist_events_rate(const stp_dense_source *src, const stp_dense_events *ev,
                                 const stp_options *o, double *rate, stp_ctmc_info *info,
                                 stp_error *err) {
  (void)src;
  (void)ev;
  (void)o;
  (void)rate;
  (void)info;
  return stp__fail(err, STP_EINVAL,
                   "this streamtp was built without PETSc: the distributed chain needs "
                   "`cmake -DSTP_PETSC=ON` (scripts/deps.sh cluster; docs/cluster.md)");
}
#endif
