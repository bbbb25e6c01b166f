/* fuzz_graph.c: libFuzzer target of the graph-file reader
 * (stp_graph_read_string), then of what it accepts: the exact analyses with
 * a small chain cap and a short Monte Carlo, whose results must pass
 * fuzz_check.h (finite, ordered, deterministic on the right side of the
 * exponential), and a write-read round trip (stp_graph_write_json
 * promises that reading its output back gives the same graph).  Inputs
 * naming an "empirical" law are cut off: fuzz_samples covers sample files
 * without letting the fuzzer open arbitrary paths. */
#include "fuzz_check.h"
#include "streamtp_graph.h"
#include "streamtp_graph_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has(const uint8_t *data, size_t size, const char *word) {
  size_t n = strlen(word);
  for (size_t k = 0; k + n <= size; k++)
    if (memcmp(data + k, word, n) == 0)
      return 1;
  return 0;
}

/* Writing g and reading it back must give the same sizes and times. */
static void round_trip(const stp_graph *g) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return;
  stp_error err = {0};
  stp_status st = stp_graph_write_json(g, f, &err);
  fclose(f);
  stp_graph *h = NULL;
  if (st == STP_OK && stp_graph_read_string(text, len, "round-trip.json", &h, &err) != STP_OK)
    abort(); /* the writer wrote what the reader refuses */
  if (h) {
    size_t n = stp_graph_transition_count(g);
    if (stp_graph_transition_count(h) != n || stp_graph_place_count(h) != stp_graph_place_count(g))
      abort();
    for (size_t t = 0; t < n; t++)
      if (stp_graph_transition_time(h, t) != stp_graph_transition_time(g, t) ||
          strcmp(stp_graph_transition_name(h, t), stp_graph_transition_name(g, t)) != 0)
        abort();
    stp_graph_free(h);
  }
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (has(data, size, "empirical"))
    return 0;
  stp_graph *g = NULL;
  stp_error err = {0};
  if (stp_graph_read_string((const char *)data, size, "fuzz.json", &g, &err) != STP_OK) {
    if (!err.message[0])
      abort(); /* every refusal says why */
    return 0;
  }
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.max_states = 2000;
  stp_graph_result r;
  if (stp_graph_analyze(g, &o, &r, &err) == STP_OK) {
    fuzz_check_graph_result(&r);
    stp_graph_result_free(&r);
  } else {
    fuzz_refusal(&err);
  }
  if (stp_graph_transition_count(g) <= 1000)
    fuzz_simulate_graph(g, 3, 100);
  round_trip(g);
  stp_graph_free(g);
  return 0;
}
