/* fuzz_law_parse.h: the check fuzz_law and fuzz_samples make of one law
 * spec: stp_law_parse accepts it (the law is freed) or refuses it with a
 * message; a refusal without one aborts, which libFuzzer reports. */
#ifndef STP_FUZZ_LAW_PARSE_H
#define STP_FUZZ_LAW_PARSE_H

#include "streamtp.h"
#include "streamtp_law.h"

#include <stdlib.h>

static inline void fuzz_law_parse(const char *spec) {
  stp_law *law = NULL;
  stp_error err = {0};
  if (stp_law_parse(spec, NULL, &law, &err) != STP_OK) {
    if (!err.message[0])
      abort();
    return;
  }
  stp_law_free(law);
}

#endif
