/* fuzz_mapping.c: libFuzzer target of the mapping reader
 * (stp_mapping_load_string), then of the analyses on what it accepts, with
 * small limits so that one input stays fast: the reader must refuse bad
 * input with a message, never crash, hang or leak, and whatever it accepts
 * must evaluate (or be refused by a limit) without crashing, to results
 * that pass fuzz_check.h (finite, ordered, exp <= det). */
#include "fuzz_check.h"
#include "streamtp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  if (stp_mapping_load_string((const char *)data, size, "fuzz.json", &m, &err) != STP_OK) {
    fuzz_refusal(&err);
    return 0;
  }
  stp_options o;
  stp_options_init(&o);
  o.max_transitions = 2000;
  o.max_states = 2000;
  for (int model = 0; model < 2; model++) {
    stp_result *r = NULL;
    if (stp_evaluate(m, (stp_model)model, &o, &r, &err) == STP_OK) {
      fuzz_check_eval_result(r);
      stp_result_free(r);
    } else {
      fuzz_refusal(&err);
    }
  }
  stp_mapping_free(m);
  return 0;
}
