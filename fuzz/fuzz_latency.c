/* fuzz_latency.c: libFuzzer target of the latency-matrix CSV reader of
 * `bcast --partition` (stp_bcast_latency_load_string), then of Lowekamp's
 * partition of what it accepts (rho 0.2).  The partition must cover every
 * machine once. */
#include "streamtp_bcast.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  double *w = NULL;
  size_t n = 0;
  stp_error err = {0};
  if (stp_bcast_latency_load_string((const char *)data, size, "fuzz.csv", &w, &n, &err) !=
      STP_OK) {
    if (!err.message[0])
      abort();
    return 0;
  }
  stp_bcast_partition part = {0};
  if (stp_bcast_partition_compute(w, n, 0.2, &part, &err) == STP_OK) {
    if (part.n != n || part.offsets[part.nclusters] != n)
      abort();
    stp_bcast_partition_free(&part);
  } else if (!err.message[0]) {
    abort();
  }
  free(w);
  return 0;
}
