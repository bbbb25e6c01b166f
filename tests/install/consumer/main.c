/* main.c: a user program built against an installed libstreamtp (by
 * tests/install/run.sh, once with pkg-config and once with CMake): it loads
 * a mapping file and prints its deterministic and exponential throughputs. */
#include <stdio.h>
#include <streamtp/streamtp.h>

int main(int argc, char **argv) {
  stp_error err = {0};
  stp_mapping *m = NULL;
  stp_result *r = NULL;
  if (argc != 2 || stp_mapping_load_file(argv[1], &m, &err) != STP_OK ||
      stp_evaluate(m, stp_mapping_model(m), NULL, &r, &err) != STP_OK) {
    fprintf(stderr, "consumer: %s\n", argc == 2 ? err.message : "usage: consumer FILE");
    stp_mapping_free(m);
    return 2;
  }
  printf("%s %.17g %.17g\n", stp_mapping_name(m), r->det_throughput, r->exp_throughput);
  stp_result_free(r);
  stp_mapping_free(m);
  return 0;
}
