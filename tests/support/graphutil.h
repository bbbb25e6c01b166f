/* graphutil.h: building generic event graphs in tests, each step asserted
 * (a failure prints the library's message), so that the graph suites share
 * one builder instead of each writing its own. */
#ifndef STP_GRAPHUTIL_H
#define STP_GRAPHUTIL_H

#include "streamtp_graph.h"

#include <stddef.h>
#include <stdint.h>

/* An empty graph named "g". */
stp_graph *tg_new(void);
/* Adds a transition and returns its index; name NULL: "t<index>".  The graph
 * takes law (NULL: none). */
size_t tg_add(stp_graph *g, const char *name, double time, stp_law *law);
/* Adds a place a -> b holding `tokens`. */
void tg_place(stp_graph *g, size_t a, size_t b, uint64_t tokens);

#endif /* STP_GRAPHUTIL_H */
