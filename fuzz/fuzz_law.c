/* fuzz_law.c: libFuzzer target of the law-spec parser (stp_law_parse:
 * "gamma:cv=0.5", "beta:a=2,b=3", ...): every spec is accepted or refused
 * with a message.  "empirical:" specs are cut off: fuzz_samples covers the sample
 * files without letting the fuzzer open arbitrary paths. */
#include "fuzz_law_parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256 || memchr(data, '\0', size))
    return 0; /* a spec is a C string */
  char spec[257];
  memcpy(spec, data, size);
  spec[size] = '\0';
  if (strncmp(spec, "empirical", 9) == 0)
    return 0;
  fuzz_law_parse(spec);
  return 0;
}
