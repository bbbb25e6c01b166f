/* fuzz_samples.c: libFuzzer target of the sample files of empirical laws
 * ("empirical:FILE": one number per line, comments): the input is written to
 * a private temporary file which stp_law_parse then reads. */
#include "fuzz_law_parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void remove_file(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/stp-fuzz-samples-%ld.txt", (long)getpid());
    atexit(remove_file);
  }
  if (!fuzz_write_file(path, data, size))
    return 0;
  char spec[96];
  snprintf(spec, sizeof spec, "empirical:%s", path);
  fuzz_law_parse(spec);
  return 0;
}
