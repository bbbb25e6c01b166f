/* writer.c: stp_graph -> graph file (docs/format.md, "graph"), one
 * transition or place per line so that large exported graphs stay
 * readable with line tools; times with 17 significant digits, so that
 * reading the file back gives the same graph bit for bit. */
#include "base/core.h"
#include "solvers/laws.h"
#include "streamtp_graph_file.h"

#include <stdio.h>

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

stp_status stp_graph_write_json(const stp_graph *g, FILE *f, stp_error *err) {
  fputs("{\"name\": ", f);
  json_string(f, stp_graph_name(g));
  fputs(",\n \"transitions\": [", f);
  size_t nt = stp_graph_transition_count(g), np = stp_graph_place_count(g);
  for (size_t t = 0; t < nt; t++) {
    fputs(t ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
    json_string(f, stp_graph_transition_name(g, t));
    fprintf(f, ", \"time\": %.17g", stp_graph_transition_time(g, t));
    const stp_law *law = stp_graph_transition_law(g, t);
    if (law) {
      fputs(", \"law\": ", f);
      json_string(f, stp_law_spec(law));
    }
    if (stp_graph_transition_is_output(g, t)) fputs(", \"output\": true", f);
    size_t res = stp_graph_transition_resource(g, t);
    if (res != SIZE_MAX) {
      fputs(", \"resource\": ", f);
      json_string(f, stp_graph_resource_name(g, res));
    }
    fputc('}', f);
  }
  fputs("],\n \"places\": [", f);
  for (size_t p = 0; p < np; p++) {
    size_t from, to;
    uint64_t tokens;
    stp_graph_place(g, p, &from, &to, &tokens);
    fputs(p ? ",\n  {\"from\": " : "\n  {\"from\": ", f);
    json_string(f, stp_graph_transition_name(g, from));
    fputs(", \"to\": ", f);
    json_string(f, stp_graph_transition_name(g, to));
    fprintf(f, ", \"tokens\": %llu}", (unsigned long long)tokens);
  }
  fputs("]}\n", f);
  if (ferror(f)) return stp__fail(err, STP_EIO, "cannot write the graph file");
  return STP_OK;
}
