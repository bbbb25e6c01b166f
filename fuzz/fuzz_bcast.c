/* fuzz_bcast.c: libFuzzer target of the bcast platform reader
 * (stp_bcast_platform_load_string), then of the schedules of what it
 * accepts: every heuristic on small platforms (the lookahead ones cost C^3
 * for C clusters) and the exact analysis of each schedule's DAG with a small
 * chain cap.  A refusal must say why; nothing may crash, hang or leak. */
#include "streamtp_bcast.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  stp_bcast_platform *p = NULL;
  stp_error err = {0};
  if (stp_bcast_platform_load_string((const char *)data, size, "fuzz.json", &p, &err) !=
      STP_OK) {
    if (!err.message[0])
      abort();
    return 0;
  }
  if (stp_bcast_cluster_count(p) <= 32) {
    stp_bcast_options o;
    stp_bcast_options_init(&o);
    o.size = 1000, o.has_size = 1;
    stp_graph_options go;
    stp_graph_options_init(&go);
    go.exponential = 1;
    go.max_states = 2000;
    for (int h = 0; h < STP_BCAST_HEURISTIC_COUNT; h++) {
      stp_bcast_schedule s = {0};
      if (stp_bcast_schedule_compute(p, &o, (stp_bcast_heuristic)h, &s, &err) != STP_OK) {
        if (!err.message[0])
          abort();
        continue;
      }
      stp_graph_result r = {0};
      if (stp_bcast_schedule_analyze(p, &o, &s, &go, &r, &err) == STP_OK)
        stp_graph_result_free(&r);
      stp_bcast_schedule_free(&s);
    }
  }
  stp_bcast_platform_free(p);
  return 0;
}
