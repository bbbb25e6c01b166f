/* fuzz_bcast.c: libFuzzer target of the bcast platform reader
 * (stp_bcast_platform_load_string), then of the schedules of what it
 * accepts: every heuristic on small platforms (the lookahead ones cost C^3
 * for C clusters) and the exact analysis of each schedule's DAG with a small
 * chain cap.  A refusal must say why; nothing may crash, hang or leak.  The
 * results are checked (fuzz_check.h): every time of a schedule finite, each
 * send landing after it starts, the makespan the latest end, and the
 * analysis of the schedule's DAG giving that same makespan (a second
 * computation) below its exponential expectation. */
#include "fuzz_check.h"
#include "streamtp_bcast.h"

#include <stdint.h>
#include <stdlib.h>

static void check_schedule(const stp_bcast_schedule *s) {
  double latest = 0;
  for (size_t j = 0; j < s->nclusters; j++) {
    fuzz_le("bcast: intra-cluster time >= 0", 0, s->T[j]);
    fuzz_le("bcast: ready time >= 0", 0, s->ready[j]);
    if (s->ready[j] + s->T[j] > latest)
      latest = s->ready[j] + s->T[j];
  }
  for (size_t k = 0; k + 1 < s->nclusters; k++)
    fuzz_le("bcast: a send lands after it starts", s->sends[k].start, s->sends[k].arrival);
  fuzz_near("bcast: makespan = max_j (ready_j + T_j)", s->makespan, latest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  stp_bcast_platform *p = NULL;
  stp_error err = {0};
  if (stp_bcast_platform_load_string((const char *)data, size, "fuzz.json", &p, &err) !=
      STP_OK) {
    fuzz_refusal(&err);
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
        fuzz_refusal(&err);
        continue;
      }
      check_schedule(&s);
      stp_graph_result r = {0};
      if (stp_bcast_schedule_analyze(p, &o, &s, &go, &r, &err) == STP_OK) {
        fuzz_check_graph_result(&r);
        fuzz_near("bcast: the DAG's makespan is the schedule's", r.det_makespan, s.makespan);
        stp_graph_result_free(&r);
      } else {
        fuzz_refusal(&err);
      }
      stp_bcast_schedule_free(&s);
    }
  }
  stp_bcast_platform_free(p);
  return 0;
}
