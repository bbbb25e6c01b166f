/* graph.c: building, checking and reading back the generic event graph.
 * Names are hashed (the library's map, base/hash.h) because compilers emit
 * graphs of millions of transitions and look names up while adding places. */
#include "engine/graph.h"

#include "base/core.h"
#include "solvers/laws.h"
#include "solvers/scc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

stp_status stp_graph_new(const char *name, stp_graph **out, stp_error *err) {
  *out = NULL;
  stp_graph *g = stp__calloc(1, sizeof *g);
  if (!g || !(g->name = stp__strdup(name ? name : "")) ||
      stp__hmap_init(&g->tmap, 16, NULL) != STP_OK) {
    stp_graph_free(g);
    return stp__oom(err, "event graph");
  }
  *out = g;
  return STP_OK;
}

void stp_graph_free(stp_graph *g) {
  if (!g) return;
  for (size_t t = 0; t < g->nt; t++) {
    free(g->tname[t]);
    stp__law_free(g->law[t]);
  }
  for (size_t r = 0; r < g->nr; r++) free(g->rname[r]);
  free(g->rname);
  stp__hmap_free(&g->rmap);
  free(g->res);
  free(g->tname);
  free(g->time);
  free(g->law);
  free(g->output);
  free(g->pfrom);
  free(g->pto);
  free(g->ptok);
  stp__hmap_free(&g->tmap);
  free(g->name);
  free(g);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * size);
  if (!q) return false;
  *p = q;
  *cap = n; /* without it every addition reallocates (quadratic under ASan) */
  return true;
}

static bool grow_transitions(stp_graph *g) {
  size_t cap = g->cap_t, need = g->nt + 1;
  size_t c1 = cap, c2 = cap, c3 = cap, c4 = cap;
  if (!grow((void **)&g->tname, &c1, need, sizeof *g->tname) ||
      !grow((void **)&g->time, &c2, need, sizeof *g->time) ||
      !grow((void **)&g->output, &c3, need, sizeof *g->output) ||
      (g->res && !grow((void **)&g->res, &c4, need, sizeof *g->res)) ||
      !grow((void **)&g->law, &cap, need, sizeof *g->law))
    return false;
  g->cap_t = cap;
  return true;
}

double stp_graph_memory_estimate(uint64_t transitions, uint64_t places, int simulate) {
  double bytes = 120.0 * (double)transitions + 30.0 * (double)places;
  return simulate ? 2 * bytes : bytes;
}

stp_status stp_graph_add_transition(stp_graph *g, const char *name, double time, stp_law *law,
                                    size_t *index, stp_error *err) {
  stp_status s = STP_EINVAL;
  if (!name || !*name) {
    stp__fail(err, s, "a transition needs a non-empty name");
    goto fail;
  }
  if (!isfinite(time) || time < 0) {
    stp__fail(err, s, "transition '%s': time %g is not a finite number >= 0", name, time);
    goto fail;
  }
  if (time != 0 && (time < STP_TIME_MIN || time > STP_TIME_MAX)) {
    stp__fail(err, s, "transition '%s': time %g is outside [%g, %g] (or 0): sums of such "
              "times would overflow or underflow; rescale the units",
              name, time, STP_TIME_MIN, STP_TIME_MAX);
    goto fail;
  }
  if (g->nt >= STP_GRAPH_MAX_TRANSITIONS) {
    stp__fail(err, STP_ELIMIT, "more than %llu transitions",
              (unsigned long long)STP_GRAPH_MAX_TRANSITIONS);
    s = STP_ELIMIT;
    goto fail;
  }
  stp_hmap_probe p;
  if (stp__hmap_find_name(&g->tmap, g->tname, name, &p) != SIZE_MAX) {
    stp__fail(err, s, "duplicate transition name '%s'", name);
    goto fail;
  }
  char *copy = stp__strdup(name);
  if (!copy || !grow_transitions(g)) {
    free(copy);
    s = stp__oom(err, "event graph transitions");
    goto fail;
  }
  g->tname[g->nt] = copy;
  g->time[g->nt] = time;
  g->law[g->nt] = law;
  g->output[g->nt] = 0;
  if (g->res) g->res[g->nt] = 0;
  if (index) *index = g->nt;
  g->nt++;
  /* out of memory growing the table: it still holds every name, fuller */
  if (stp__hmap_add(&g->tmap, &p, stp__hmap_name_hash, g->tname, NULL) != STP_OK)
    return stp__oom(err, "event graph name table");
  return STP_OK;
fail:
  stp__law_free(law);
  return s;
}

stp_status stp_graph_add_place(stp_graph *g, size_t from, size_t to, uint64_t tokens,
                               stp_error *err) {
  if (from >= g->nt || to >= g->nt)
    return stp__fail(err, STP_EINVAL, "place %zu -> %zu: no such transition (the graph has %zu)",
                     from, to, g->nt);
  if (tokens > STP_GRAPH_MAX_TOKENS)
    return stp__fail(err, STP_ELIMIT, "place '%s' -> '%s': %llu tokens (at most %llu)",
                     g->tname[from], g->tname[to], (unsigned long long)tokens,
                     (unsigned long long)STP_GRAPH_MAX_TOKENS);
  if (g->np >= UINT32_MAX - 1)
    return stp__fail(err, STP_ELIMIT, "too many places");
  size_t cap = g->cap_p, c1 = cap, c2 = cap, need = g->np + 1;
  if (!grow((void **)&g->pfrom, &c1, need, sizeof *g->pfrom) ||
      !grow((void **)&g->pto, &c2, need, sizeof *g->pto) ||
      !grow((void **)&g->ptok, &cap, need, sizeof *g->ptok))
    return stp__oom(err, "event graph places");
  g->cap_p = cap;
  g->pfrom[g->np] = (uint32_t)from;
  g->pto[g->np] = (uint32_t)to;
  g->ptok[g->np] = tokens;
  g->np++;
  g->marked += tokens > 0;
  return STP_OK;
}

stp_status stp_graph_set_output(stp_graph *g, size_t t, stp_error *err) {
  if (t >= g->nt)
    return stp__fail(err, STP_EINVAL, "output %zu: no such transition (the graph has %zu)", t,
                     g->nt);
  g->noutputs += !g->output[t];
  g->output[t] = 1;
  return STP_OK;
}

size_t stp_graph_output_count(const stp_graph *g) { return g->noutputs; }
int stp_graph_transition_is_output(const stp_graph *g, size_t t) { return g->output[t]; }

stp_status stp__graph_digraph(const stp_graph *g, bool self_loops, stp_digraph **out,
                              stp_error *err) {
  stp_edge_list el = {0};
  uint64_t m = g->np + (self_loops ? g->nt : 0);
  STP_CHECK(stp__edges_reserve(&el, m ? m : 1, err));
  for (size_t p = 0; p < g->np; p++)
    stp__edges_push(&el, g->pfrom[p], g->pto[p], g->time[g->pfrom[p]], (uint32_t)g->ptok[p]);
  if (self_loops)
    for (size_t t = 0; t < g->nt; t++) stp__edges_push(&el, (uint32_t)t, (uint32_t)t, g->time[t], 1);
  return stp__digraph_from_edges((uint32_t)g->nt, &el, out, err);
}

void stp__graph_names(const stp_graph *g, const uint32_t *ts, size_t n, char *buf, size_t max) {
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    const char *sep = i ? " -> " : "";
    size_t need = strlen(sep) + strlen(g->tname[ts[i]]);
    if (len + need + 5 >= max) {
      snprintf(buf + len, max - len, " ...");
      return;
    }
    len += (size_t)snprintf(buf + len, max - len, "%s%s", sep, g->tname[ts[i]]);
  }
}

stp_status stp__graph_check_basic(const stp_graph *g, stp_error *err) {
  if (g->nt == 0) return stp__fail(err, STP_EINVAL, "the graph has no transition");
  if (g->marked)
    for (size_t t = 0; t < g->nt; t++)
      if (!(g->time[t] > 0))
        return stp__fail(err, STP_EINVAL,
                         "transition '%s': time 0 in a graph with tokens (a timed event graph "
                         "needs times > 0)", g->tname[t]);
  return STP_OK;
}

stp_status stp__graph_deadlock(const stp_graph *g, const uint32_t *cycle, size_t len,
                               stp_error *err) {
  char names[512];
  stp__graph_names(g, cycle, len, names, sizeof names);
  return stp__fail(err, STP_EDEADLOCK,
                   g->marked ? "deadlock: the cycle %s holds no token"
                             : "the graph has no token but a cycle: %s (a DAG must be acyclic)",
                   names);
}

stp_status stp_graph_check(const stp_graph *g, stp_error *err) {
  STP_CHECK(stp__graph_check_basic(g, err));
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  uint32_t *cycle = NULL;
  size_t len = 0;
  bool found = stp__find_token_free_cycle(d, &cycle, &len);
  stp__digraph_free(d);
  if (!found) return len == SIZE_MAX ? stp__oom(err, "cycle search") : STP_OK;
  stp_status s = stp__graph_deadlock(g, cycle, len, err);
  free(cycle);
  return s;
}

/* ---- resources: interned names ------------------------------------------------- */
/* The index of resource `name`, added when new. */
static stp_status intern_resource(stp_graph *g, const char *name, size_t *index, stp_error *err) {
  if (!g->rmap.slot) STP_CHECK(stp__hmap_init(&g->rmap, 16, err));
  stp_hmap_probe p;
  size_t found = stp__hmap_find_name(&g->rmap, g->rname, name, &p);
  if (found != SIZE_MAX) {
    *index = found;
    return STP_OK;
  }
  char *copy = stp__strdup(name);
  size_t cap = g->cap_r;
  if (!copy || !grow((void **)&g->rname, &cap, g->nr + 1, sizeof *g->rname)) {
    free(copy);
    return stp__oom(err, "event graph resources");
  }
  g->cap_r = cap;
  g->rname[g->nr] = copy;
  *index = g->nr++;
  if (stp__hmap_add(&g->rmap, &p, stp__hmap_name_hash, g->rname, NULL) != STP_OK)
    return stp__oom(err, "event graph resource table");
  return STP_OK;
}

stp_status stp_graph_set_resource(stp_graph *g, size_t t, const char *resource, stp_error *err) {
  if (t >= g->nt) return stp__fail(err, STP_EINVAL, "no transition %zu", t);
  if (!resource || !*resource) {
    if (g->res) g->res[t] = 0;
    return STP_OK;
  }
  if (!g->res && !(g->res = stp__calloc(g->cap_t ? g->cap_t : 1, sizeof *g->res)))
    return stp__oom(err, "event graph resources");
  size_t r = 0;
  STP_CHECK(intern_resource(g, resource, &r, err));
  g->res[t] = (uint32_t)(r + 1);
  return STP_OK;
}

size_t stp_graph_resource_count(const stp_graph *g) { return g->nr; }
const char *stp_graph_resource_name(const stp_graph *g, size_t r) { return g->rname[r]; }
size_t stp_graph_transition_resource(const stp_graph *g, size_t t) {
  return g->res && g->res[t] ? (size_t)g->res[t] - 1 : SIZE_MAX;
}

const char *stp_graph_name(const stp_graph *g) { return g->name; }
size_t stp_graph_transition_count(const stp_graph *g) { return g->nt; }
size_t stp_graph_place_count(const stp_graph *g) { return g->np; }
const char *stp_graph_transition_name(const stp_graph *g, size_t t) { return g->tname[t]; }
double stp_graph_transition_time(const stp_graph *g, size_t t) { return g->time[t]; }
const stp_law *stp_graph_transition_law(const stp_graph *g, size_t t) { return g->law[t]; }
int stp_graph_is_dag(const stp_graph *g) { return g->marked == 0; }

void stp_graph_place(const stp_graph *g, size_t p, size_t *from, size_t *to, uint64_t *tokens) {
  if (from) *from = g->pfrom[p];
  if (to) *to = g->pto[p];
  if (tokens) *tokens = g->ptok[p];
}

stp_status stp_graph_find(const stp_graph *g, const char *name, size_t *t, stp_error *err) {
  size_t i = stp__hmap_find_name(&g->tmap, g->tname, name, NULL);
  if (i == SIZE_MAX) return stp__fail(err, STP_EINVAL, "no transition named '%s'", name);
  *t = i;
  return STP_OK;
}

void stp_graph_options_init(stp_graph_options *o) {
  memset(o, 0, sizeof *o);
  o->max_states = STP_GRAPH_DEFAULT_MAX_STATES;
  o->exponential = 1;
}

stp_status stp__graph_adjacency(const stp_graph *g, bool by_target, size_t **off, uint32_t **place,
                                stp_error *err) {
  *off = stp__calloc(g->nt + 1, sizeof **off);
  *place = stp__malloc_array(g->np ? g->np : 1, sizeof **place);
  if (!*off || !*place) {
    free(*off);
    free(*place);
    *off = NULL;
    *place = NULL;
    return stp__oom(err, "event graph adjacency");
  }
  const uint32_t *key = by_target ? g->pto : g->pfrom;
  for (size_t p = 0; p < g->np; p++) (*off)[key[p] + 1]++;
  for (size_t t = 0; t < g->nt; t++) (*off)[t + 1] += (*off)[t];
  /* fill in order of addition, then shift the offsets back */
  for (size_t p = 0; p < g->np; p++) (*place)[(*off)[key[p]]++] = (uint32_t)p;
  for (size_t t = g->nt; t > 0; t--) (*off)[t] = (*off)[t - 1];
  (*off)[0] = 0;
  return STP_OK;
}

stp_status stp__graph_topo_order(const stp_graph *g, uint32_t **order, stp_error *err) {
  size_t *off;
  uint32_t *place;
  *order = NULL;
  STP_CHECK(stp__graph_adjacency(g, false, &off, &place, err));
  uint32_t *indeg = stp__calloc(g->nt ? g->nt : 1, sizeof *indeg);
  uint32_t *q = stp__malloc_array(g->nt ? g->nt : 1, sizeof *q);
  stp_status s = STP_OK;
  if (!indeg || !q) {
    s = stp__oom(err, "topological order");
    goto done;
  }
  for (size_t p = 0; p < g->np; p++) indeg[g->pto[p]] += g->ptok[p] == 0;
  size_t head = 0, tail = 0;
  for (size_t t = 0; t < g->nt; t++)
    if (!indeg[t]) q[tail++] = (uint32_t)t;
  while (head < tail) {
    uint32_t u = q[head++];
    for (size_t e = off[u]; e < off[u + 1]; e++) {
      uint32_t p = place[e];
      if (g->ptok[p] == 0 && --indeg[g->pto[p]] == 0) q[tail++] = g->pto[p];
    }
  }
  if (tail < g->nt) {
    s = stp__fail(err, STP_EDEADLOCK, "a cycle of the event graph holds no token");
    goto done;
  }
  *order = q;
  q = NULL;
done:
  free(off);
  free(place);
  free(indeg);
  free(q);
  return s;
}
