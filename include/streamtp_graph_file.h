/* streamtp_graph_file.h: generic event graphs (streamtp_graph.h) read from
 * and written to JSON graph files (docs/format.md, "graph"):
 *
 *   {"name": "g",
 *    "transitions": [{"name": "a", "time": 2.0, "law": "exp", "output": true}, ...],
 *    "places": [{"from": "a", "to": "b", "tokens": 0}, ...]}
 *
 * Reading checks everything the analyses need (stp_graph_check included)
 * and reports the first problem as "file:line:col: message". */
#ifndef STREAMTP_GRAPH_FILE_H
#define STREAMTP_GRAPH_FILE_H

#include <stdio.h>

#include "streamtp_base.h"
#include "streamtp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the graph file at path.  STP_EINVAL (bad content, with file:line:col),
 * STP_EDEADLOCK (a cycle without a token, named), STP_ELIMIT (sizes),
 * STP_EIO (unreadable). */
STP_API stp_status stp_graph_read_file(const char *path, stp_graph **out, stp_error *err);
/* Same from memory; label names the input in messages (NULL: "<input>"),
 * and empirical:FILE laws resolve against its directory. */
STP_API stp_status stp_graph_read_string(const char *text, size_t len, const char *label,
                                         stp_graph **out, stp_error *err);
/* Writes g as a graph file (one transition or place per line; times with 17
 * significant digits, so that reading it back gives the same graph).
 * STP_EIO on a write error. */
STP_API stp_status stp_graph_write_json(const stp_graph *g, FILE *f, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_GRAPH_FILE_H */
