/* dot.c: a reduction tree in Graphviz DOT (stp_reduce_write_dot): machine
 * v -> c_v labelled with the start of v's transfer, the sink drawn as a
 * double circle; numbers in the C locale, whatever the process's. */
#include "streamtp_reduce.h"

#include "base/core.h"
#include "base/numfmt.h"

#include <errno.h>
#include <string.h>

stp_status stp_reduce_write_dot(const stp_reduce *r, FILE *f, stp_error *err) {
  const stp_reduce_spec *s = stp_reduce_get_spec(r);
  fprintf(f, "digraph \"reduce-%s-n%llu\" {\n  rankdir=BT;\n  node [shape=circle];\n"
             "  1 [shape=doublecircle];\n",
          stp_reduce_tree_name(s->tree), (unsigned long long)s->n);
  for (uint64_t v = 2; v <= s->n; v++)
    stp__fprintf(f, "  %llu -> %llu [label=\"%g\"];\n", (unsigned long long)v,
                 (unsigned long long)stp_reduce_child(r, v), stp_reduce_transfer_start(r, v));
  fprintf(f, "}\n");
  if (ferror(f))
    return stp__fail(err, STP_EIO, "writing the tree's DOT: %s", strerror(errno));
  return STP_OK;
}
