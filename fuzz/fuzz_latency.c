/* fuzz_latency.c: libFuzzer target of the latency-matrix CSV reader of
 * `bcast --partition` (stp_bcast_latency_load_string), then of Lowekamp's
 * partition of what it accepts (rho 0.2).  Every latency read off the
 * diagonal is finite, >= 0 and symmetric; the partition must cover every machine exactly
 * once, its clusters by nonincreasing size and each ascending. */
#include "fuzz_check.h"
#include "streamtp_bcast.h"

#include <stdint.h>
#include <stdlib.h>

static void check_partition(const stp_bcast_partition *part, size_t n) {
  if (part->n != n || part->offsets[0] != 0 || part->offsets[part->nclusters] != n)
    fuzz_fail("partition: offsets cover the machines", (double)part->n, (double)n);
  unsigned char *seen = calloc(n ? n : 1, 1);
  if (!seen)
    return;
  for (size_t c = 0; c < part->nclusters; c++) {
    if (part->sizes[c] != part->offsets[c + 1] - part->offsets[c] || part->sizes[c] == 0)
      fuzz_fail("partition: sizes match the offsets", (double)part->sizes[c], (double)c);
    if (c && part->sizes[c] > part->sizes[c - 1])
      fuzz_fail("partition: sizes nonincreasing", (double)part->sizes[c], (double)c);
    for (size_t i = part->offsets[c]; i < part->offsets[c + 1]; i++) {
      size_t v = part->nodes[i];
      if (v >= n || seen[v] || (i > part->offsets[c] && part->nodes[i - 1] >= v))
        fuzz_fail("partition: each machine once, ascending in its cluster", (double)v,
                  (double)i);
      seen[v] = 1;
    }
  }
  free(seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  double *w = NULL;
  size_t n = 0;
  stp_error err = {0};
  if (stp_bcast_latency_load_string((const char *)data, size, "fuzz.csv", &w, &n, &err) !=
      STP_OK) {
    fuzz_refusal(&err);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++) {
      fuzz_le("latency: finite, >= 0", 0, w[i * n + j]);
      if (w[i * n + j] != w[j * n + i])
        fuzz_fail("latency: symmetric", w[i * n + j], w[j * n + i]);
    }
  stp_bcast_partition part = {0};
  if (stp_bcast_partition_compute(w, n, 0.2, &part, &err) == STP_OK) {
    check_partition(&part, n);
    stp_bcast_partition_free(&part);
  } else {
    fuzz_refusal(&err);
  }
  free(w);
  return 0;
}
