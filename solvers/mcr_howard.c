/* mcr_howard.c: Howard's policy iteration for the maximum cycle ratio.
 *
 * A policy picks one out-edge per node; the policy graph then has exactly
 * one cycle per connected piece.  Value determination gives each node the
 * ratio lam of the cycle it reaches and a bias x (x[u] = w - lam*tok + x[succ]);
 * improvement first moves every node to the best ratio it can reach, then
 * follows edges that raise the bias.  At the fixed point the largest
 * policy-cycle ratio is optimal.  The whole graph is first taken as one
 * class (no strongly connected components: nodes without in-edges drop
 * out); only when some node cannot reach the best policy cycle, or has no
 * out-edge, are the components computed and the edges between them left
 * out, so that every node kept has a choice and trivial components drop
 * out.  The answer is computed from the critical cycle itself (sum of
 * durations / sum of tokens), so it is exact up to that one sum.
 *
 * What makes it fast on event graphs (bench/README.md has the numbers and
 * the graph families behind each point):
 * - nodes are renumbered in reverse topological order of the token-free
 *   edges (the deadlock check computes that order anyway), and the
 *   improvement sweeps nodes in that order, raising biases in place: a gain
 *   travels back along a whole token-free path in one sweep, where a plain
 *   Howard needs one iteration per edge of it;
 * - a better ratio spreads to the whole component in one backward search,
 *   not one edge per iteration;
 * - the initial policy is a longest path in the token-free graph (every
 *   out-edge of a transition has the same duration, so the usual "heaviest
 *   edge" is a tie);
 * - a worklist carries gains across token edges within an iteration, under
 *   a budget that grows while the best ratio holds; on large graphs whose
 *   numbering gives it no order, each in-edge carries where its source's
 *   in-edges start, so that a step of the worklist waits for one cache
 *   miss instead of two;
 * - the preparation keeps what it needs of a node in one record, and
 *   fetches the records of the nodes that edges lead to ahead of time;
 * - evaluation takes the nodes in the order of the previous one, so that
 *   it mostly streams instead of chasing pointers; on large graphs with few
 *   tokens it values whole token-free chains in passes over the internal
 *   order, and new policy cycles through their roots;
 * - when the token-free edges say nothing about the order (nearly every
 *   node is a source of them) and the input numbering is scattered, the
 *   sweep cannot carry gains, and the worklist's budget starts at a whole
 *   pass over the edges instead of a quarter;
 * - where the improvement's raises alternate with non-raises in no order
 *   (random graphs), the sweep goes by blocks: a branch-free pass lists the
 *   edges that raise, and only those are relaxed (sweep_blocks());
 * - the iterations stop as soon as an improvement ends with an empty
 *   worklist: its raised biases are then a fixed point, and the evaluation
 *   that the textbook stop needs would only confirm it (settle()). */
#include "solvers/mcr_howard.h"

#include "base/core.h"
#include "solvers/scc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* The loops that reach nodes in no memory order (the fill of the in-edges,
 * the spread's search and the worklist) fetch ahead from this many nodes
 * on: with 80 bytes per node and 20 per edge, and the input graph beside
 * them, the arrays then outgrow a core's second-level cache (1 MB on the
 * machine measured).  On bench/mcr at 1e4 nodes that took
 * 4 % off random's solve, 8 % off ladder-tok-shuffled's and 18 % off
 * strict-shuffled's, the others keeping their times, although the
 * prefetches add a tenth to the instructions of those loops. */
#define PREFETCH_FROM 5000

/* The passes that stream or nearly so (the count of in-edges, the
 * evaluation in the previous order) fetch ahead only from this many nodes
 * on, and the methods for large graphs start there too (the chain
 * evaluation and the worklist's copy of the edge starts, see
 * evaluate_chains() and worklist_starts()): at 1e4 nodes each cost more
 * than it saved (bench/mcr). */
#define LARGE_FROM 50000

/* Edges per block of sweep_blocks(), and the largest arena where the
 * blocks pay: beyond it the sweep waits on memory, which hides the
 * mispredicted branches that the blocks spare (on bench/mcr's random
 * graphs and a machine with a 32 MB last-level cache: 9 % faster at 1e5
 * nodes, a 16 MB arena; 8 % slower at 3e5 nodes, 48 MB). */
#define SWEEP_BLOCK 64
#define SWEEP_BLOCKS_UPTO ((size_t)24 << 20)

/* A hint to fetch memory that a loop will read a few steps later. */
#if defined(__GNUC__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)(addr))
#endif

/* A function kept out of its caller: inlined, sweep_blocks() changed the
 * layout of the loops around it, and graphs that never use it took 2-5 %
 * longer (bench/mcr at 1e4 nodes). */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* A test that holds on few graphs, whose code is laid out after the rest
 * (without it, random-1e4 of bench/mcr took 1 % longer). */
#if defined(__GNUC__)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)
#else
#define UNLIKELY(c) (c)
#endif

/* Rare paths, kept out of the loops they would otherwise be inlined into. */
#if defined(__GNUC__)
#define COLD __attribute__((cold, noinline))
#else
#define COLD
#endif

/* fmax/fmin without their NaN rules, so that they compile to one instruction
 * (no NaN reaches them: durations are finite). */
static inline double max_d(double a, double b) {
  return a > b ? a : b;
}
static inline double min_d(double a, double b) {
  return a < b ? a : b;
}

void stp__mcr_result_clear(stp_mcr_result *res) {
  if (!res)
    return;
  free(res->cycle);
  memset(res, 0, sizeof *res);
}

/* ---- Howard ----------------------------------------------------------------
 * Layout: the solver works on the edges inside strongly connected
 * components only, stored by destination (in-edges), because every step
 * after the initial policy propagates information backwards: from a node
 * to the nodes that may point at it.  The policy keeps a copy of the chosen
 * edge per node, so that evaluation reads one array instead of two.  All
 * arrays are indexed by internal node numbers (orig[] maps them back). */
typedef struct in_edge {
  uint32_t src;
  uint32_t tok;
  double w;
} in_edge;

typedef struct policy_edge {
  uint32_t dst; /* NONE: inactive node (its component is trivial) */
  uint32_t tok;
  double w;
} policy_edge;

typedef struct node_value {
  double x;   /* bias */
  double lam; /* ratio of the policy cycle the node reaches */
} node_value;

typedef struct howard {
  uint32_t n;
  uint64_t m;           /* internal edges */
  uint32_t *comp;       /* SCC of each node */
  uint32_t *orig;       /* node of g for each internal node */
  uint32_t ncomp;
  uint64_t *in_off;     /* n + 1 */
  in_edge *in;          /* m, grouped by destination */
  uint32_t *in_dst;     /* m: the destination of each in-edge (the sweep) */
  policy_edge *pi;
  node_value *val;
  /* Not unsigned char, which may alias anything: a store through one would
   * make the compiler load every field of the struct again. */
  uint16_t *mark;       /* evaluate(): 0, ON_WALK or DONE */
  bool *flag;           /* n + ncomp: seen/behind flags, worklist flags */
  uint32_t *queue;      /* n + 1: walk path, search queue, worklist ring */
  uint32_t *order;      /* active nodes in the order the last evaluation valued them */
  uint32_t *order_next;
  void *arena;          /* the one allocation holding all of the above */
  size_t arena_bytes;
  size_t norder;        /* 0 before the first evaluation */
  double *comp_best;    /* best policy-cycle ratio per component */
  double *comp_worst;   /* worst one (equal to the best: nothing to spread) */
  double wscale;        /* largest |duration| of an internal edge */
  uint32_t tok_max;     /* largest token count of an internal edge */
  double lam_scale;     /* largest |ratio| of a policy cycle (evaluate) */
  uint32_t best_handle; /* a node on the best policy cycle */
  double best_ratio;
  unsigned budget_scale; /* worklist budget, in quarter passes over the edges */
  unsigned budget_base;  /* its value when it starts again (token_free_order) */
  bool budget_spent;     /* the last worklist stopped on its budget */
  stp_mcr_sweep sweep;   /* the caller's choice (stp_mcr_options) */
  bool sweep_blocks;     /* the next sweep goes by blocks (sweep_blocks()) */
  bool single;           /* one class: the components were not computed (below) */
  bool uncovered;        /* single: some node cannot reach the best policy cycle */
  uint32_t nactive;      /* nodes with a policy edge */
  /* Optional (worklist_starts()): where the in-edges of each in-edge's
   * source start (m), and of each queued node (n + 1, beside queue). */
  uint64_t *src_start;
  uint64_t *queue_start;
  const stp_digraph *g;  /* the input, for its out-edges (spread_best_ratio) */
  const struct prep_node *prep; /* its nodes' internal numbers (.rank) */
} howard;

/* A node on the walk in progress (every walk values all its nodes before
 * the next one starts, so one state suffices), or valued. */
#define ON_WALK 1
#define DONE 2

/* Does the input order put the ends of an edge far apart (mean |u - v| above
 * n / 16; a random numbering gives n / 3, a grid or an event graph built
 * stage by stage a few percent)?  Estimated on the out-edges of at most
 * 256 nodes spread evenly over the numbering: over a random numbering
 * |u - v| / n has mean 1/3 and standard deviation 0.24, so 256 edges put
 * the estimate some 18 standard errors above the threshold (4096 nodes
 * cost 20 instructions per node at 1e4 nodes, 3.5 % of a solve of
 * bench/mcr's ladder-tok-shuffled).  Not COLD: GCC optimizes cold
 * functions for size, and it runs on every solve of a graph whose
 * token-free edges hardly order the nodes. */
static bool scattered(const stp_digraph *g) {
  uint32_t stride = g->n > 256 ? g->n / 256 : 1;
  uint64_t sum = 0, count = 0;
  for (uint32_t u = 0; u < g->n; u += stride)
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++, count++)
      sum += g->dst[e] > u ? g->dst[e] - u : u - g->dst[e];
  return (double)sum > (double)count * g->n / 16;
}

/* What the preparation keeps per node of g, in one 16-byte record so that
 * the passes that reach a node through an edge take one cache miss for all
 * of it (the in-edge fill read a rank, then a cursor at that rank: two
 * dependent misses per edge, and most of the preparation's time on
 * bench/mcr's ladder-tok-shuffled at 1e6 nodes).  count: the node's
 * in-edges from its own component, then the fill's cursor; tf_in: its
 * token-free in-edges not yet taken by Kahn's algorithm; rank: its
 * internal number. */
typedef struct prep_node {
  uint64_t count;
  uint32_t tf_in;
  uint32_t rank;
} prep_node;
_Static_assert(sizeof(prep_node) <= sizeof(stp_scc_node), "prep_node overlays stp_scc_node");

/* Counts the in-edges e0..e1-1 in their targets' records (one class).
 * Called with prefetch constant, so that the loop without it (below 50,000
 * nodes, or the last edges) carries no test: the test alone cost 8 % on
 * strict-shuffled-1e4, whose preparation is most of its solve. */
static inline void count_in_edges(prep_node *p, const uint32_t *dst, const uint32_t *tok,
                                  uint64_t e0, uint64_t e1, bool prefetch) {
  for (uint64_t e = e0; e < e1; e++) {
    if (prefetch)
      PREFETCH(&p[dst[e + 32]]);
    prep_node *d = &p[dst[e]];
    d->tf_in += tok[e] == 0;
    d->count++;
  }
}

/* The internal numbering: Kahn's algorithm on the token-free edges,
 * reversed (sinks first), so that every token-free edge goes from a larger
 * internal number to a smaller one.  (A depth-first order, seeded by the
 * postorder of the whole graph so that most token edges also go backwards,
 * was measured too: 28 % fewer instructions on ladder-tok-shuffled but
 * 15-25 % more on random and torus-mean graphs; so was the postorder
 * alone, where the order says nothing: the larger budget below costs
 * fewer instructions and spares the search's cache misses on large
 * graphs; bench/README.md.)  When the token-free edges hardly order the
 * nodes and their numbering is scattered, the worklist gets a whole pass
 * over the edges as its budget (budget_base): the sweep then carries
 * almost no gain, and the worklist has to do its work.  The first pass
 * over the edges also counts each node's in-edges from its own component.
 * Returns false when the token-free edges hold a cycle (a deadlock).  p
 * (zeroed) and queue: n entries. */
static inline bool token_free_order(howard *h, const stp_digraph *g, bool single,
                                    const uint32_t *comp_g, prep_node *p, uint32_t *queue) {
  const uint32_t *dst = g->dst, *tok = g->tok;
  const uint64_t *off = g->off;
  if (single) { /* prefetching 32 edges ahead: 3 % at 1e6 nodes */
    uint64_t prefetch_end = g->n >= LARGE_FROM && g->m > 32 ? g->m - 32 : 0;
    count_in_edges(p, dst, tok, 0, prefetch_end, true);
    count_in_edges(p, dst, tok, prefetch_end, g->m, false);
  } else {
    for (uint32_t u = 0; u < g->n; u++)
      for (uint64_t e = off[u]; e < off[u + 1]; e++) {
        prep_node *d = &p[dst[e]];
        d->tf_in += tok[e] == 0;
        d->count += comp_g[dst[e]] == comp_g[u];
      }
  }
  size_t head = 0, tail = 0;
  for (uint32_t u = 0; u < g->n; u++)
    if (p[u].tf_in == 0)
      queue[tail++] = u;
  h->budget_base = tail > g->n - g->n / 10 && scattered(g) ? 4 : 1;
  while (head < tail) {
    uint32_t u = queue[head++];
    for (uint64_t e = off[u]; e < off[u + 1]; e++) {
      uint32_t v = dst[e];
      if (tok[e] == 0 && --p[v].tf_in == 0)
        queue[tail++] = v;
    }
  }
  if (tail != g->n)
    return false;
  for (size_t k = 0; k < tail; k++)
    h->orig[tail - 1 - k] = queue[k];
  return true;
}

/* Is (cand, tok, d) a better initial choice than (best, best_tok, best_d)?
 * Larger value first; on a tie an edge holding tokens before a token-free
 * one, then the smaller internal target. */
static inline bool better_start(double cand, bool tok, uint32_t d, double best, bool best_tok,
                                uint32_t best_d) {
  if (cand != best)
    return cand > best;
  return tok != best_tok ? tok : d < best_d;
}

/* What in_edges_and_policy() gathers on the way. */
typedef struct fill_state {
  uint32_t nactive, tok_max;
  double wscale;
} fill_state;

/* The in-edges from internal nodes r0..r1-1 and their initial policy (see
 * below); called with prefetch constant, as count_in_edges(). */
static inline void fill_nodes(howard *h, const stp_digraph *g, bool single,
                              const uint32_t *comp_g, const bool *pruned, prep_node *p,
                              uint32_t r0, uint32_t r1, bool prefetch, fill_state *st) {
  /* Local copies of the arrays: the stores would otherwise make the
   * compiler load them again for every edge. */
  const uint32_t *orig = h->orig, *dst = g->dst, *tokens = g->tok;
  const uint64_t *off = g->off;
  const double *weight = g->w;
  in_edge *in = h->in;
  uint32_t *in_dst = h->in_dst;
  policy_edge *pi = h->pi;
  node_value *val = h->val;
  uint32_t nactive = st->nactive, tok_max = st->tok_max;
  double wscale = st->wscale;
  for (uint32_t r = r0; r < r1; r++) {
    if (prefetch) {
      PREFETCH(&off[orig[r + 16]]);
      uint32_t a = orig[r + 8];
      uint64_t e0 = off[a], e1 = off[a + 1];
      if (e0 < e1) /* a node without out-edge (a sink) has no dst[e0] */
        PREFETCH(&p[dst[e0]]);
      if (e0 + 1 < e1)
        PREFETCH(&p[dst[e0 + 1]]);
    }
    uint32_t u = orig[r], c = single ? 0 : comp_g[u];
    uint32_t bd = NONE, btok = 0;
    double bw = 0, bx = -INFINITY;
    uint64_t end = single && pruned[u] ? off[u] : off[u + 1];
    nactive += end > off[u];
    for (uint64_t e = off[u]; e < end; e++) {
      if (!single && comp_g[dst[e]] != c)
        continue;
      prep_node *pd = &p[dst[e]];
      uint32_t d = pd->rank, tok = tokens[e];
      uint64_t at = pd->count++;
      double w = weight[e];
      in_dst[at] = d;
      in[at] = (in_edge){r, tok, w};
      wscale = max_d(wscale, fabs(w));
      tok_max = tok > tok_max ? tok : tok_max;
      double cand = tok ? w : w + val[d].x;
      if (bd == NONE || better_start(cand, tok != 0, d, bx, btok != 0, bd)) {
        bd = d;
        btok = tok;
        bw = w;
        bx = cand;
      }
    }
    pi[r] = (policy_edge){bd, btok, bw};
    val[r].x = bx;
  }
  *st = (fill_state){nactive, tok_max, wscale};
}

/* Do the blocks of sweep_blocks() fit this graph: is the arena small
 * enough, and do few in-edges (under one in 64) come from a node at most
 * SWEEP_BLOCK after their target?  Estimated on 256 in-edges spread evenly
 * (random graphs: 0.4 %; the event graphs, grids and chains of bench/mcr
 * at 1e4 nodes: 40 to 100 %). */
static bool blocks_fit(const howard *h) {
  if (h->arena_bytes > SWEEP_BLOCKS_UPTO)
    return false;
  uint64_t stride = h->m > 256 ? h->m / 256 : 1, near = 0, count = 0;
  for (uint64_t k = 0; k < h->m; k += stride, count++)
    near += h->in[k].src - h->in_dst[k] <= SWEEP_BLOCK;
  return near < count / 64;
}

/* One pass over the nodes in internal order builds the in-edges of each
 * node that come from its own component (internal node r is orig[r], and
 * every token-free edge goes from a larger internal number to a smaller
 * one, so that the sweep of improve() visits a node before the sources of
 * its token-free in-edges and a raise travels back along token-free paths
 * within one sweep), and the initial policy.
 *
 * Initial policy: each node follows the heaviest path of token-free edges
 * ending with an edge holding tokens (a longest path in the token-free DAG,
 * counting tokens as free).  In an event graph every out-edge of a
 * transition has the same duration, so "the heaviest out-edge", the usual
 * choice, is a pure tie; this one starts from long, few-token cycles.
 * Token-free edges go to smaller internal numbers, whose values are then
 * final.  Returns false when no node has an internal edge (no cycle). */
static inline bool in_edges_and_policy(howard *h, const stp_digraph *g, bool single,
                                       const uint32_t *comp_g, const bool *pruned,
                                       prep_node *p) {
  uint32_t n = h->n;
  const uint32_t *orig = h->orig;
  uint64_t *in_off = h->in_off, sum = 0;
  for (uint32_t r = 0; r < n; r++) { /* count becomes the cursor */
    prep_node *pr = &p[orig[r]];
    uint64_t count = pr->count;
    pr->rank = r;
    in_off[r] = pr->count = sum;
    sum += count;
  }
  in_off[n] = h->m = sum;
  /* The edges reach their targets' records in no memory order: fetch those
   * of the first two edges of the node 8 ahead (on bench/mcr at 1e6 nodes,
   * 0.146 -> 0.110 s of preparation on ladder-tok-shuffled, 0.38 -> 0.27 s
   * in all on strict-shuffled; the others as before). */
  uint32_t prefetch_end = n >= PREFETCH_FROM ? n - 16 : 0;
  fill_state st = {0, 0, 0};
  fill_nodes(h, g, single, comp_g, pruned, p, 0, prefetch_end, true, &st);
  fill_nodes(h, g, single, comp_g, pruned, p, prefetch_end, n, false, &st);
  h->nactive = st.nactive;
  h->wscale = st.wscale;
  h->tok_max = st.tok_max;
  return sum > 0;
}

/* The ratio of the policy cycle through `handle`, summed along the cycle. */
static double cycle_ratio(const howard *h, uint32_t handle, uint64_t *tokens) {
  double w = 0;
  uint64_t t = 0;
  uint32_t v = handle;
  do {
    w += h->pi[v].w;
    t += h->pi[v].tok;
    v = h->pi[v].dst;
  } while (v != handle);
  *tokens = t;
  return w / (double)t;
}

static inline double bias_through(const policy_edge *p, double lam, double x_dst) {
  return p->w - lam * p->tok + x_dst;
}

/* u has its value: record it, and when, for the next evaluation. */
static inline void valued(howard *h, uint32_t u, size_t *count) {
  h->mark[u] = DONE;
  h->order_next[(*count)++] = u;
}

/* Where the smallest of a[0..len-1] is (len >= 1). */
static inline size_t index_of_smallest(const uint32_t *a, size_t len) {
  size_t j = 0;
  for (size_t k = 1; k < len; k++)
    j = a[k] < a[j] ? k : j;
  return j;
}

/* The records of a policy cycle of ratio r whose smallest node is handle. */
static void cycle_valued(howard *h, uint32_t handle, double r) {
  h->lam_scale = max_d(h->lam_scale, fabs(r));
  uint32_t c = h->single ? 0 : h->comp[handle];
  h->comp_best[c] = max_d(h->comp_best[c], r);
  h->comp_worst[c] = min_d(h->comp_worst[c], r);
  if (r > h->best_ratio) {
    h->best_ratio = r;
    h->best_handle = handle;
  }
}

/* Values on a new policy cycle (nodes cyc[0..len-1] in policy order).  The
 * bias is 0 at the smallest node, a choice that does not depend on where the
 * walk entered the cycle: an unchanged cycle keeps its values from one
 * iteration to the next, which the improvement steps rely on. */
static void value_cycle(howard *h, const uint32_t *cyc, size_t len, size_t *count) {
  size_t j = index_of_smallest(cyc, len);
  double w = 0; /* summed from cyc[j], read off the path (no pointer chasing) */
  uint64_t tokens = 0;
  for (size_t k = 0, i = j; k < len; k++, i = i + 1 < len ? i + 1 : 0) {
    w += h->pi[cyc[i]].w;
    tokens += h->pi[cyc[i]].tok;
  }
  double r = w / (double)tokens;
  h->val[cyc[j]] = (node_value){0, r};
  valued(h, cyc[j], count);
  for (size_t k = 1, i = j; k < len; k++) { /* backwards from cyc[j] */
    i = i ? i - 1 : len - 1;
    uint32_t u = cyc[i];
    h->val[u] = (node_value){bias_through(&h->pi[u], r, h->val[h->pi[u].dst].x), r};
    valued(h, u, count);
  }
  cycle_valued(h, cyc[j], r);
}

/* The value of u from its successor's. */
static inline void value_from_successor(howard *h, uint32_t u) {
  node_value s = h->val[h->pi[u].dst];
  h->val[u] = (node_value){bias_through(&h->pi[u], s.lam, s.x), s.lam};
}

/* s takes p as its policy edge (the spread step), and its value through it. */
static inline void switch_to(howard *h, uint32_t s, policy_edge p) {
  h->pi[s] = p;
  value_from_successor(h, s);
}

/* The position on path[0..len-1] of v, which the path reaches again: the
 * cycle that closes there is path[position..len-1]. */
static inline size_t cycle_start(const uint32_t *path, size_t len, uint32_t v) {
  size_t k = len;
  while (path[k - 1] != v)
    k--;
  return k - 1;
}

/* Walk the policy from start to a node with a value (or around a new
 * cycle), then value the path backwards. */
static void walk_from(howard *h, uint32_t start, size_t *count) {
  size_t len = 0;
  uint32_t v = start;
  while (h->mark[v] == 0) {
    h->mark[v] = ON_WALK;
    h->queue[len++] = v;
    v = h->pi[v].dst;
  }
  size_t stop = len; /* path[0..stop-1] get their values from their successor */
  if (h->mark[v] == ON_WALK) { /* a new cycle: path[stop..len-1], entered at v */
    stop = cycle_start(h->queue, len, v);
    value_cycle(h, h->queue + stop, len - stop, count);
  }
  for (size_t k = stop; k > 0; k--) {
    value_from_successor(h, h->queue[k - 1]);
    valued(h, h->queue[k - 1], count);
  }
}

/* One node of the evaluation pass. */
static inline void evaluate_node(howard *h, uint32_t u, size_t *count) {
  uint32_t d = h->pi[u].dst;
  if (h->mark[u] || d == NONE)
    return;
  if (h->mark[d] == DONE) {
    value_from_successor(h, u);
    valued(h, u, count);
  } else {
    walk_from(h, u, count);
  }
}

/* The sum of durations from the root r to the next root on its policy
 * path: its own edge, then the token-free chain after it (in val[].x since
 * the first pass of evaluate_chains(); 0 when the edge leads to a root). */
static inline double root_segment(const howard *h, uint32_t r) {
  uint32_t d = h->pi[r].dst;
  return h->pi[r].w + (h->pi[d].tok ? 0 : h->val[d].x);
}

/* Values on a policy cycle found by evaluate_chains(), through its roots
 * roots[0..len-1] (in policy order) only: its ratio from their segments,
 * and the roots' biases; the pass after values its chain nodes from their
 * successors.  Walking the cycle itself node by node chased pointers
 * through every node of it: on bench/mcr's strict-homog-1e6, whose policy
 * cycles cover most of the graph with one token each, three quarters of
 * the iterations' time.  Along a token-free chain the internal numbers
 * decrease down to its root, so the smallest node of the cycle is its
 * smallest root, which takes bias 0 as in value_cycle(); only the sums
 * are taken in another order (a rounding apart). */
static void value_root_cycle(howard *h, const uint32_t *roots, size_t len) {
  size_t j = index_of_smallest(roots, len);
  double w = 0;
  uint64_t tokens = 0;
  for (size_t k = 0, i = j; k < len; k++, i = i + 1 < len ? i + 1 : 0) {
    w += root_segment(h, roots[i]);
    tokens += h->pi[roots[i]].tok;
  }
  double r = w / (double)tokens, x = 0;
  h->val[roots[j]] = (node_value){0, r};
  h->mark[roots[j]] = DONE;
  for (size_t k = 1, i = j; k < len; k++) { /* backwards from roots[j] */
    i = i ? i - 1 : len - 1;
    uint32_t u = roots[i];
    x = root_segment(h, u) - r * h->pi[u].tok + x;
    h->val[u] = (node_value){x, r};
    h->mark[u] = DONE;
  }
  cycle_valued(h, roots[j], r);
}

/* Value determination by token-free chains, for large graphs where few
 * policy edges hold tokens (event graphs: one token per cycle or so).
 * There the walks above chase pointers through long token-free paths in
 * no memory order (40 % of the nodes per evaluation on strict-homog-1e6,
 * and most of its time).  A token-free policy edge goes to a smaller
 * internal number, so one pass in increasing order finds for each node the
 * root its token-free path ends at (a node whose policy edge holds tokens)
 * and the durations summed on the way; the walks then run over the roots
 * only, each root taking its successor's bias as that sum plus its root's
 * bias; a last pass in increasing order values the other nodes from their
 * successors, as the walks would.  A policy cycle is valued through its
 * roots too (value_root_cycle).  Only the roots' biases and the cycles'
 * ratios are summed in another order (a rounding apart).  anc: the order array (the next evaluation
 * starts from index order). */
static void evaluate_chains(howard *h) {
  uint32_t n = h->n, *anc = h->order, *path = h->queue;
  policy_edge *pi = h->pi;
  node_value *val = h->val;
  uint16_t *mark = h->mark;
  for (uint32_t u = 0; u < n; u++) {
    uint32_t d = pi[u].dst;
    if (d == NONE)
      continue;
    if (pi[u].tok) {
      anc[u] = u;
      val[u].x = 0;
    } else {
      anc[u] = anc[d];
      val[u].x = pi[u].w + val[d].x;
    }
  }
  for (uint32_t r = 0; r < n; r++) {
    if (mark[r] || pi[r].dst == NONE || !pi[r].tok)
      continue;
    size_t len = 0;
    uint32_t v = r;
    while (mark[v] == 0) {
      mark[v] = ON_WALK;
      path[len++] = v;
      v = anc[pi[v].dst];
    }
    size_t stop = len; /* path[0..stop-1] get their values from their successor */
    if (mark[v] == ON_WALK) { /* a cycle through root v: its nodes after path[0..stop-1] */
      stop = cycle_start(path, len, v);
      value_root_cycle(h, path + stop, len - stop);
    }
    for (size_t k = stop; k > 0; k--) {
      uint32_t u = path[k - 1], sx = pi[u].dst;
      node_value s = val[sx];
      if (mark[sx] != DONE) /* a chain node: its sum plus its root's bias */
        s = (node_value){s.x + val[anc[sx]].x, val[anc[sx]].lam};
      val[u] = (node_value){bias_through(&pi[u], s.lam, s.x), s.lam};
      mark[u] = DONE;
    }
  }
  for (uint32_t u = 0; u < n; u++)
    if (mark[u] != DONE && pi[u].dst != NONE)
      value_from_successor(h, u);
  h->norder = 0;
}

/* Few policy edges hold tokens (at most one node in 8). */
static bool few_roots(const howard *h) {
  uint32_t roots = 0;
  for (uint32_t u = 0; u < h->n; u++)
    roots += h->pi[u].dst != NONE && h->pi[u].tok != 0;
  return roots <= h->n / 8;
}

/* Value determination, O(n): the nodes are taken in the order in which the
 * previous evaluation valued them.  Where the policy did not change, a
 * node's successor then already has its value: the pass reads the order
 * array in sequence and its other accesses do not depend on one another
 * (the memory system overlaps them), instead of chasing pointers.  Nodes
 * whose successor has no value yet start a walk.  Also records the best
 * policy cycle of each component and of the whole graph. */
static void evaluate(howard *h) {
  size_t count = 0, total = h->norder ? h->norder : h->n;
  memset(h->mark, 0, (size_t)h->n * sizeof *h->mark);
  for (uint32_t c = 0; c < h->ncomp; c++) {
    h->comp_best[c] = -INFINITY;
    h->comp_worst[c] = INFINITY;
  }
  h->best_handle = NONE;
  h->best_ratio = -INFINITY;
  h->lam_scale = 0;
  if (h->n >= LARGE_FROM && few_roots(h)) {
    evaluate_chains(h);
    return;
  }
  const uint32_t *order = h->order;
  if (!h->norder) {
    for (uint32_t u = 0; u < total; u++)
      evaluate_node(h, u, &count);
  } else if (total < LARGE_FROM) {
    for (size_t k = 0; k < total; k++)
      evaluate_node(h, order[k], &count);
  } else {
    for (size_t k = 0; k < total; k++) {
      if (k + 16 < total) {
        PREFETCH(&h->pi[order[k + 16]]);
        PREFETCH(&h->val[h->pi[order[k + 8]].dst]);
      }
      evaluate_node(h, order[k], &count);
    }
  }
  uint32_t *t = h->order;
  h->order = h->order_next;
  h->order_next = t;
  h->norder = count;
}

static inline bool ratio_greater(double a, double b) {
  return a > b + 1e-13 * max_d(fabs(a), fabs(b));
}

/* The first round of the search of spread_best_ratio() when few nodes are
 * behind (count of them, seen[] 0), taken from their side: the search would
 * scan the in-edges of every node on par to find them, which cost 0.1 ms
 * to switch the 16 nodes behind in one iteration of bench/mcr's random-1e4
 * (the end of each node's in-edges is a branch that random in-degrees make
 * the predictor miss).  It gives the same result: the search takes the
 * nodes on par in increasing order and each one's in-edges in order (by
 * source, then as the source lists its out-edges), so a node behind takes
 * the first of its out-edges to the smallest node on par among its
 * targets, and the nodes switched in this round enter the queue in order
 * of that target, then of their own number.  Reads the out-edges of the
 * input (h->g, internal numbers in h->prep); sorts in order_next (free
 * between evaluations: n / 64 keys of 8 bytes).  Used for at most n / 64
 * nodes behind: each costs a few reads in no memory order and its share
 * of a sort, against about one pass over the in-edges for the search from
 * the sources.  Returns the number of nodes switched, queued in
 * h->queue[0..]. */
static size_t first_round_from_behind(howard *h, size_t count) {
  const stp_digraph *g = h->g;
  const prep_node *p = h->prep;
  uint64_t *keys = (uint64_t *)(void *)h->order_next;
  bool *seen = h->flag;
  size_t nkeys = 0;
  for (uint32_t s = 0; s < h->n && count; s++) {
    if (seen[s])
      continue;
    count--;
    uint32_t u = h->orig[s], best = NONE;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++) {
      uint32_t d = p[g->dst[e]].rank;
      if (d < best && seen[d] && h->pi[d].dst != NONE && (h->single || h->comp[d] == h->comp[s]))
        best = d;
    }
    if (best != NONE)
      keys[nkeys++] = (uint64_t)best << 32 | s;
  }
  qsort(keys, nkeys, sizeof *keys, stp__cmp_u64);
  for (size_t k = 0; k < nkeys; k++) {
    uint32_t s = (uint32_t)keys[k], d = (uint32_t)(keys[k] >> 32), u = h->orig[s];
    uint64_t e = g->off[u];
    while (p[g->dst[e]].rank != d)
      e++;
    switch_to(h, s, (policy_edge){d, g->tok[e], g->w[e]});
    seen[s] = 1;
    h->queue[k] = s;
  }
  return nkeys;
}

/* Ratio improvement, all at once: in a component whose nodes reach policy
 * cycles of different ratios, every node can reach the best one (the
 * component is strongly connected), so a backward search from the nodes
 * that already do switches all the others to it.  Edge-by-edge improvement
 * would move the best ratio one edge per iteration (see bench/mcr, family
 * "chain").  The new values are computed on the way, so the policy needs no
 * new evaluation.  With the whole graph as one class, the search tells
 * whether every node reached the best cycle (h->uncovered otherwise).
 * Returns the number of nodes switched. */
static size_t spread_best_ratio(howard *h) {
  bool *behind = h->flag + h->n; /* per component: some node is behind */
  bool any = false;
  for (uint32_t c = 0; c < h->ncomp; c++) {
    behind[c] = ratio_greater(h->comp_best[c], h->comp_worst[c]);
    any |= behind[c];
  }
  if (!any)
    return 0;
  /* Sources first: the nodes already on par with their component's best. */
  bool *seen = h->flag;
  size_t head = 0, tail = 0, changed = 0, behind_nodes = 0;
  if (h->single) { /* one component, behind: no per-node lookups */
    double best = h->comp_best[0];
    for (uint32_t u = 0; u < h->n; u++) {
      bool active = h->pi[u].dst != NONE;
      double lam = h->val[u].lam;
      seen[u] = !active || lam == best || !ratio_greater(best, lam);
      behind_nodes += !seen[u];
      if (active && seen[u])
        h->queue[tail++] = u;
    }
  } else {
    for (uint32_t u = 0; u < h->n; u++) {
      seen[u] = h->pi[u].dst == NONE || !behind[h->comp[u]] ||
                !ratio_greater(h->comp_best[h->comp[u]], h->val[u].lam);
      behind_nodes += !seen[u];
      if (h->pi[u].dst != NONE && behind[h->comp[u]] && seen[u])
        h->queue[tail++] = u;
    }
  }
  size_t sources = tail;
  if (behind_nodes <= h->n / 64) /* the search's first round, the other way */
    tail = changed = first_round_from_behind(h, behind_nodes);
  bool prefetch = h->n >= PREFETCH_FROM;
  while (head < tail) {
    if (prefetch && head + 16 < tail) { /* BFS order is no memory order: fetch ahead */
      PREFETCH(&h->in_off[h->queue[head + 16]]);
      PREFETCH(&h->in[h->in_off[h->queue[head + 8]]]);
      PREFETCH(&h->val[h->queue[head + 8]]);
    }
    uint32_t v = h->queue[head++];
    for (uint64_t k = h->in_off[v]; k < h->in_off[v + 1]; k++) {
      const in_edge *e = &h->in[k];
      if (seen[e->src])
        continue;
      seen[e->src] = 1;
      switch_to(h, e->src, (policy_edge){v, e->tok, e->w});
      h->queue[tail++] = e->src;
      changed++;
    }
  }
  /* One class, and some node cannot reach the best cycle: the graph is not
   * strongly connected and that node's best ratio may be another one. */
  h->uncovered = h->single && sources + changed < h->nactive;
  return changed;
}

/* Position k steps after i in the ring of n slots (k < n). */
static inline size_t ring_add(size_t i, size_t k, size_t n) {
  return i + k < n ? i + k : i + k - n;
}

/* What s's bias would be through in-edge e into a node of bias xv.  One
 * expression for relax_edge() and the first pass of sweep_blocks(), which
 * must never see a raise that relax_edge() would miss. */
static inline double raise_candidate(const in_edge *e, const node_value *s, double xv) {
  return e->w - s->lam * e->tok + xv;
}

/* Is *p the policy edge q (bit-identical)?  Compared as two 64-bit words,
 * without branches: on a raise it is as likely as not.  Three compares of
 * the fields, even without branches, took 2.5 % more of the solve of
 * bench/mcr's random-1e4. */
_Static_assert(sizeof(policy_edge) == 16, "policy_edge is two words");
static inline size_t same_edge(const policy_edge *p, const policy_edge *q) {
  uint64_t a[2], b[2];
  memcpy(a, p, sizeof a);
  memcpy(b, q, sizeof b);
  return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

/* Bias improvement through one in-edge e = s -> v (xv: v's bias): if it
 * would raise the bias of s by more than rounding, it takes over s's
 * choice, and s's bias is raised at once (Gauss-Seidel), so that the gain
 * travels on within the same sweep, also along policy edges (a raise that
 * is not a change of policy is not counted).  A raised s below `limit`
 * goes to the worklist.  The tolerance scales with the terms the biases
 * are sums of (durations and ratio x tokens): a cycle's values close only
 * up to their rounding.  Returns 1 on a change of policy.
 *
 * Past the raise test, no branch: whether s is queued already is a coin
 * flip to the predictor, so the queue's free slot at *tail is written
 * either way and *tail only moves when s joins (a ring of n + 1 slots for
 * at most n nodes always has that slot free).  Branches taken out of this
 * path: 5 % of the solve of bench/mcr's random-1e4, and a fifth of the
 * mispredicted branches of its iterations in cachegrind's model.  (The
 * raise test is a coin flip too, but a raise without that branch, which
 * writes every edge's source, was 20 % slower; sweep_blocks() takes that
 * test out of the sweep instead.)  Except where the worklist
 * carries the edge starts (worklist_starts(): large graphs whose numbering
 * gives no order): there the flag is a cache miss, and the stores and
 * *tail waiting for it held up the raises after it, 6 % of the solve of
 * ladder-tok-shuffled-1e6; the branch lets them go on. */
static inline size_t relax_edge(howard *h, const in_edge *e, uint32_t v, double xv,
                                uint32_t limit, double scale, size_t *tail) {
  uint32_t src = e->src;
  node_value *s = &h->val[src];
  double cand = raise_candidate(e, s, xv), x = s->x;
  /* Most edges do not even reach x: that test first, the tolerance after. */
  if (cand <= x || !(cand > x + 1e-12 * (fabs(x) + scale)))
    return 0;
  policy_edge p = {v, e->tok, e->w};
  size_t changed = 1 - same_edge(&h->pi[src], &p);
  h->pi[src] = p;
  s->x = cand;
  bool join = (src < limit) & !h->flag[src];
  if (UNLIKELY(h->queue_start != NULL)) {
    if (join) {
      h->flag[src] = 1;
      h->queue[*tail] = src;
      h->queue_start[*tail] = h->src_start[e - h->in];
      *tail = ring_add(*tail, 1, (size_t)h->n + 1);
    }
    return changed;
  }
  h->flag[src] |= join;
  h->queue[*tail] = src;
  *tail = ring_add(*tail, join, (size_t)h->n + 1);
  return changed;
}

/* The same through in-edges begin..end-1 of v. */
static inline size_t relax_into(howard *h, uint32_t v, uint64_t begin, uint64_t end,
                                double scale, size_t *tail) {
  size_t changed = 0;
  double xv = h->val[v].x;
  for (uint64_t k = begin; k < end; k++)
    changed += relax_edge(h, &h->in[k], v, xv, h->n, scale, tail);
  return changed;
}

/* The sweep over in-edges k0..k1-1, one edge at a time. */
static inline size_t sweep_edges(howard *h, uint64_t k0, uint64_t k1, double scale,
                                 size_t *tail) {
  size_t changed = 0;
  for (uint64_t k = k0; k < k1; k++) {
    uint32_t v = h->in_dst[k];
    changed += relax_edge(h, &h->in[k], v, h->val[v].x, v + 1, scale, tail);
  }
  return changed;
}

/* The same sweep, with the same result to the last bit, by blocks of
 * SWEEP_BLOCK edges: a first pass without branches lists the edges of the
 * block that would raise their source with the values as they are, and
 * only those go through relax_edge().  Where raises and non-raises
 * alternate (the first iterations on random graphs, where a third of the
 * edges raise, in no order), the raise test is a coin flip that the
 * predictor misses half the time; the first pass does not branch on it,
 * and the second mostly raises.  On bench/mcr's random-1e4 that took 11 %
 * off the solve.  The list holds as long as no value that a later edge of
 * the block reads has risen.  A raise lowers no other edge's chance (a
 * listed edge that no longer raises is tested again), but a raised source
 * whose own in-edges lie later in the block (its number between the
 * current target and the block's last one) could raise theirs in turn:
 * the rest of the block then goes one edge at a time.  So the blocks pay
 * where few edges come from a node shortly after their target (see
 * blocks_fit()), and while raises alternate with non-raises: a sweep by
 * blocks counts how often they do, and the next one goes by blocks only if
 * it was at least one edge in 8 (*flips: 6 to 38 % of the edges in the
 * sweeps of bench/mcr's random-1e4; 0.2 % in the first sweep of its
 * torus-1e6, whose raises run along the grid's anti-diagonals, in runs
 * that the predictor follows). */
static NOINLINE size_t sweep_blocks(howard *h, double scale, size_t *tail, uint64_t *flips) {
  uint32_t listed[SWEEP_BLOCK];
  const in_edge *in = h->in;
  const uint32_t *in_dst = h->in_dst;
  node_value *val = h->val;
  size_t changed = 0;
  uint64_t flipped = 0;
  bool was = false;
  for (uint64_t k0 = 0; k0 < h->m; k0 += SWEEP_BLOCK) {
    uint64_t k1 = h->m - k0 > SWEEP_BLOCK ? k0 + SWEEP_BLOCK : h->m, stale = k1;
    size_t count = 0;
    for (uint64_t k = k0; k < k1; k++) {
      const node_value *s = &val[in[k].src];
      bool raise = raise_candidate(&in[k], s, val[in_dst[k]].x) > s->x;
      listed[count] = (uint32_t)(k - k0);
      count += raise;
      flipped += raise != was;
      was = raise;
    }
    uint32_t last = in_dst[k1 - 1];
    for (size_t j = 0; j < count && k0 + listed[j] < stale; j++) {
      uint64_t k = k0 + listed[j];
      uint32_t v = in_dst[k], src = in[k].src;
      double before = val[src].x;
      changed += relax_edge(h, &in[k], v, val[v].x, v + 1, scale, tail);
      if (val[src].x != before && src >= v && src <= last)
        stale = k + 1;
    }
    changed += sweep_edges(h, stale, k1, scale, tail);
  }
  *flips = flipped;
  return changed;
}

/* Policy improvement on the biases (all ratios in a component are equal
 * here): one sweep over the nodes in internal order, then a worklist for
 * the nodes raised after their turn (their gain came through a token edge),
 * within a budget of budget_scale quarter passes over the edges; the next
 * iteration goes on where it stops.  Raising biases in place keeps them below the
 * values of the new policy, so each change is still an improvement, and a
 * cycle that closes on the way has a larger ratio, which the next
 * evaluation finds (the budget also stops the values climbing around such
 * a cycle).  A node raised by its own sweep (through a loop) is queued
 * too: settle() relies on every raised node's in-edges being examined
 * after its last raise.  Returns the number of policy changes. */
static size_t improve(howard *h) {
  bool *queued = h->flag;
  memset(queued, 0, h->n * sizeof *queued);
  size_t changed = 0, head = 0, tail = 0, n = (size_t)h->n + 1; /* ring of n + 1 slots */
  double scale = h->wscale + h->lam_scale * h->tok_max;
  /* The sweep as one pass over the in-edges (grouped by destination, in
   * internal order), not a loop per node: the end of a node's in-edges is
   * a branch that random in-degrees make the predictor miss. */
  if (h->sweep_blocks) {
    uint64_t flips;
    changed += sweep_blocks(h, scale, &tail, &flips);
    h->sweep_blocks = h->sweep == STP_MCR_SWEEP_BLOCKS || flips >= h->m / 8;
  } else {
    changed += sweep_edges(h, 0, h->m, scale, &tail);
  }
  /* The worklist visits nodes in no useful memory order: fetch each one's
   * edge range and edges a few pops ahead. */
  uint64_t budget = h->budget_scale * ((h->m + h->n) / 4), used = 0;
  bool prefetch = h->n >= PREFETCH_FROM;
  while (head != tail && used < budget) {
    if (prefetch && (tail >= head ? tail - head : tail + n - head) > 16) {
      PREFETCH(&h->in_off[h->queue[ring_add(head, 16, n)]]);
      uint32_t a = h->queue[ring_add(head, 8, n)];
      PREFETCH(&h->in[h->in_off[a]]);
      PREFETCH(&h->val[a]);
    }
    uint32_t v = h->queue[head];
    uint64_t begin = h->queue_start ? h->queue_start[head] : h->in_off[v], end = h->in_off[v + 1];
    head = ring_add(head, 1, n);
    queued[v] = 0;
    used += end - begin + 1;
    changed += relax_into(h, v, begin, end, scale, &tail);
  }
  h->budget_spent = head != tail;
  return changed;
}

static stp_status store_cycle(const howard *h, stp_mcr_result *res, stp_error *err) {
  size_t len = 0;
  uint32_t v = h->best_handle;
  do {
    len++;
    v = h->pi[v].dst;
  } while (v != h->best_handle);
  res->cycle = stp__malloc_array(len, sizeof *res->cycle);
  if (!res->cycle)
    return stp__oom(err, "storing the critical cycle");
  res->cycle_len = len;
  v = h->best_handle;
  for (size_t k = 0; k < len; k++, v = h->pi[v].dst)
    res->cycle[k] = h->orig[v];
  res->ratio = cycle_ratio(h, h->best_handle, &res->cycle_tokens);
  res->has_cycle = true;
  return STP_OK;
}

static stp_status deadlock(const stp_digraph *g, stp_mcr_result *res, stp_error *err) {
  uint32_t *cycle;
  size_t len;
  if (!stp__find_token_free_cycle(g, &cycle, &len))
    return len == SIZE_MAX ? stp__oom(err, "looking for a deadlock")
                           : stp__fail(err, STP_EINTERNAL, "a token-free cycle was lost");
  res->cycle = cycle;
  res->cycle_len = len;
  return stp__fail(err, STP_EDEADLOCK,
                   "deadlock: a cycle of %zu transitions holds no token", len);
}

static void drop_worklist_starts(howard *h) {
  free(h->src_start);
  free(h->queue_start);
  h->src_start = NULL;
  h->queue_start = NULL;
}

static void howard_free(howard *h) {
  drop_worklist_starts(h);
  free(h->arena);
}

/* Carves n_items items of `size` bytes from the arena at *at (16-aligned). */
static void *carve(char *base, size_t *at, size_t n_items, size_t size) {
  void *p = base ? base + *at : NULL;
  *at += (n_items * size + 15) & ~(size_t)15;
  return p;
}

/* Lays the arrays out in the arena (base NULL: only measures it). */
static size_t layout(howard *h, char *base, size_t n, uint64_t m, void **temp) {
  size_t at = 0;
  h->comp = carve(base, &at, n, sizeof *h->comp);
  h->orig = carve(base, &at, n, sizeof *h->orig);
  h->pi = carve(base, &at, n, sizeof *h->pi);
  h->val = carve(base, &at, n, sizeof *h->val);
  h->mark = carve(base, &at, n, sizeof *h->mark);
  h->queue = carve(base, &at, n + 1, sizeof *h->queue);
  h->order = carve(base, &at, n, sizeof *h->order);
  h->order_next = carve(base, &at, n, sizeof *h->order_next);
  h->comp_best = carve(base, &at, n, sizeof *h->comp_best);
  h->comp_worst = carve(base, &at, n, sizeof *h->comp_worst);
  h->flag = carve(base, &at, 2 * n, sizeof *h->flag);
  h->in_off = carve(base, &at, n + 1, sizeof *h->in_off);
  h->in = carve(base, &at, m ? m : 1, sizeof *h->in);
  h->in_dst = carve(base, &at, m ? m : 1, sizeof *h->in_dst);
  *temp = carve(base, &at, n, sizeof(stp_scc_node) + 2 * sizeof(uint32_t));
  return at;
}

/* Single class: a node without in-edges is on no cycle and no other node's
 * value depends on it, so it is left out (pruned[u] = 1) and its edges are
 * taken off its targets' in-degrees (a target later in the pass that has
 * none left goes too; one earlier stays, harmless).  Random graphs have
 * about 5 % such nodes (bench/mcr, family random); a pass over the nodes,
 * where a per-edge flag cost 6 % on event graphs, which have none. */
static void prune_sources(const stp_digraph *g, prep_node *p, bool *pruned) {
  for (uint32_t u = 0; u < g->n; u++) {
    if (p[u].count)
      continue;
    pruned[u] = 1;
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      p[g->dst[e]].count--;
  }
}

/* The preparation: (single) or Tarjan's components, the internal numbering
 * (with the deadlock check), the in-edges and the initial policy.
 * *deadlocked is set (and nothing else done) when the token-free edges hold
 * a cycle; returns whether any cycle exists (the initial policy is then
 * set).  Scratch: Tarjan's records, then the prep_node records in their
 * place, and the components by node of g in order_next (only filled
 * later). */
static bool prepare(howard *h, const stp_digraph *g, void *temp, bool *deadlocked) {
  size_t n = g->n;
  stp_scc_node *t = temp;
  uint32_t *tstack = (uint32_t *)(t + n), *call = tstack + n;
  uint32_t *comp_g = h->order_next;
  prep_node *p = temp; /* over Tarjan's records, once they are done with */
  h->g = g;
  h->prep = p;
  h->norder = 0;
  h->nactive = 0;
  if (h->single) {
    /* One pass zeroes the records and looks for sinks (a node without an
     * out-edge reaches no cycle: one class cannot hold). */
    bool *pruned = (bool *)call;
    uint32_t sinks = 0;
    for (size_t u = 0; u < n; u++) {
      p[u] = (prep_node){0, 0, 0};
      pruned[u] = 0;
      sinks += g->off[u + 1] == g->off[u];
    }
    h->single = sinks == 0;
  }
  if (h->single) {
    bool *pruned = (bool *)call;
    h->ncomp = 1; /* h->comp is not read in this case */
    *deadlocked = !token_free_order(h, g, true, NULL, p, h->queue);
    if (*deadlocked)
      return false;
    prune_sources(g, p, pruned);
    return in_edges_and_policy(h, g, true, NULL, pruned, p);
  }
  stp__scc_run(g, comp_g, &h->ncomp, t, tstack, call);
  memset(p, 0, n * sizeof *p);
  *deadlocked = !token_free_order(h, g, false, comp_g, p, h->queue);
  if (*deadlocked)
    return false;
  for (size_t r = 0; r < n; r++)
    h->comp[r] = comp_g[h->orig[r]];
  return in_edges_and_policy(h, g, false, comp_g, NULL, p);
}

/* Everything the iterations need, in one block: one allocation instead of
 * twenty, and a block that the allocator hands back whole to the next call
 * (separate arrays are returned to the system and page-faulted in again on
 * every call: a quarter of the time at 1e4 nodes, bench/mcr).  Per node:
 * 80 bytes, and 24 more while preparing; per edge: 20 bytes (and 8 more
 * per node and per edge for worklist_starts(), on some large graphs).  *temp: the
 * preparation's scratch. */
static stp_status howard_alloc(howard *h, const stp_digraph *g, void **temp, stp_error *err) {
  h->arena_bytes = layout(h, NULL, g->n, g->m, temp);
  h->arena = malloc(h->arena_bytes);
  if (!h->arena)
    return stp__oom(err, "running Howard's algorithm");
  layout(h, h->arena, g->n, g->m, temp);
  return STP_OK;
}

/* The end of the iterations.  improve() stopped with an empty worklist:
 * every edge s -> v then satisfies x[s] >= w - lam tok + x[v] up to its
 * tolerance (each raise of a bias re-examined the in-edges of the raised
 * node), and every policy edge x[s] <= w - lam tok + x[v] (x[s] was set
 * through it, or valued through it, and x[v] can only have risen since).
 * Summed over a cycle, the first bounds every cycle's ratio by lam, and the
 * second puts every policy cycle at lam or above: any cycle of the current
 * policy is critical, and no evaluation of the new policy is needed (it
 * would only confirm it: Howard's textbook stop costs one more iteration,
 * a third of the solve on bench/mcr's ladder-tok-shuffled).  The
 * handle moves to the smallest node of the cycle that the policy walk from
 * the old one ends in (found by Brent's cycle detection: no marks), as
 * value_cycle() picks it: a cycle left whole keeps its handle, and its
 * ratio is summed as before, to the last bit. */
static void settle(howard *h) {
  uint32_t tortoise = h->best_handle, hare = h->pi[tortoise].dst;
  size_t power = 1, len = 1;
  while (tortoise != hare) {
    if (power == len) {
      tortoise = hare;
      power *= 2;
      len = 0;
    }
    hare = h->pi[hare].dst;
    len++;
  }
  uint32_t smallest = hare;
  for (uint32_t v = h->pi[hare].dst; v != hare; v = h->pi[v].dst)
    smallest = v < smallest ? v : smallest;
  h->best_handle = smallest;
}

/* The worklist of improve() follows gains from node to node in no memory
 * order.  Each step reads where the node's in-edges start, then the edges,
 * and only the edges name the next node: two dependent cache misses per
 * step.  With the start of each in-edge's source stored beside it (and
 * carried in the queue), a step takes one.  Built only where the worklist
 * has to carry the gains (budget_base 4: the token-free edges give the
 * sweep no order) and the graph outgrows the caches; it costs 8 bytes per
 * edge and one pass over them (on bench/mcr's ladder-tok-shuffled at 1e6
 * nodes, 0.38 -> 0.22 s for the improvement, the pass included).  Without
 * the memory, the solver goes on without it. */
static void worklist_starts(howard *h) {
  drop_worklist_starts(h); /* the edges of a previous preparation */
  if (h->n < LARGE_FROM || h->budget_base < 4)
    return;
  h->src_start = stp__malloc_array(h->m, sizeof *h->src_start);
  h->queue_start = stp__malloc_array((size_t)h->n + 1, sizeof *h->queue_start);
  if (!h->src_start || !h->queue_start) {
    drop_worklist_starts(h);
    return;
  }
  for (uint64_t k = 0; k < h->m; k++)
    h->src_start[k] = h->in_off[h->in[k].src];
}

/* Policy iteration from the prepared initial policy.  Stops early (STP_OK,
 * h->uncovered set) when the single class turns out not to hold. */
static stp_status iterate(howard *h, const stp_mcr_options *opts, stp_mcr_result *res,
                          stp_error *err) {
  size_t n = h->n;
  size_t max_it = opts && opts->max_iterations ? opts->max_iterations
                                               : 1000 + 10 * (n < 100000 ? n : 100000);
  h->budget_scale = h->budget_base;
  /* Where the token-free edges give no order (budget_base 4), the sweep
   * carries almost nothing: on bench/mcr's ladder-tok-shuffled it raises
   * 2 of its 20,000 edges' sources, and sweeping by blocks would only add
   * its first pass (5 % of that solve). */
  h->sweep = opts ? opts->sweep : STP_MCR_SWEEP_AUTO;
  h->sweep_blocks = h->sweep == STP_MCR_SWEEP_BLOCKS ||
                    (h->sweep == STP_MCR_SWEEP_AUTO && h->budget_base == 1 && blocks_fit(h));
  h->uncovered = false;
  worklist_starts(h);
  size_t first = res->iterations;
  double t0 = stp__now();
  for (;;) {
    double previous = h->best_ratio;
    evaluate(h);
    res->iterations++;
    /* The worklist ran out but the best ratio held: it was carrying bias
     * gains, not climbing around a better cycle; let it go further. */
    bool held = res->iterations > first + 1 && !ratio_greater(h->best_ratio, previous);
    h->budget_scale = held && h->budget_spent && h->budget_scale < 64 ? 2 * h->budget_scale
                                                                  : h->budget_base;
    if (opts && opts->progress.fn)
      opts->progress.fn(&(stp_progress_info){.what = "Howard's algorithm, iterations",
                                              .done = res->iterations,
                                              .seconds = stp__now() - t0},
                        opts->progress.data);
    if (opts && stp__cancelled(&opts->cancel))
      return stp__fail(err, STP_EINTERRUPTED, "interrupted during Howard's algorithm");
    spread_best_ratio(h);
    if (h->uncovered)
      return STP_OK;
    /* No change: the policy is optimal.  Changes, but the worklist ran
     * dry: the raised biases are already a fixed point, see settle(). */
    if (improve(h) == 0)
      return STP_OK;
    if (!h->budget_spent) {
      settle(h);
      return STP_OK;
    }
    if (res->iterations >= max_it)
      return stp__fail(err, STP_ENUMERIC, "Howard's algorithm did not converge in %zu iterations",
                       max_it);
  }
}

/* The components are only needed where nodes differ in the best ratio they
 * can reach.  So the solver first treats the whole graph as one class
 * (every node active, every edge internal, no Tarjan: a fifth of the
 * instructions at 1e4 nodes), which is sound whenever the spread step
 * brings every node to the best policy cycle's ratio: at the fixed point no
 * edge then improves a bias, and summing that over any cycle bounds its
 * ratio by the best one.  Only when some node cannot reach the best cycle
 * (the graph is not strongly connected there), or a node has no out-edge,
 * does it compute the components and start again. */
stp_status stp__mcr_howard(const stp_digraph *g, const stp_mcr_options *opts, stp_mcr_result *res,
                           stp_error *err) {
  memset(res, 0, sizeof *res);
  res->ratio = -INFINITY;
  howard h = {.n = g->n};
  void *temp;
  bool deadlocked = false, cyclic = false;
  stp_status s = howard_alloc(&h, g, &temp, err);
  if (s != STP_OK)
    goto done;
  h.single = true;
  cyclic = prepare(&h, g, temp, &deadlocked);
  if (deadlocked) {
    s = deadlock(g, res, err);
    goto done;
  }
  if (!cyclic)
    goto done; /* acyclic */
  s = iterate(&h, opts, res, err);
  if (s == STP_OK && h.uncovered) {
    h.single = false;
    prepare(&h, g, temp, &deadlocked);
    s = iterate(&h, opts, res, err);
  }
  if (s == STP_OK)
    s = store_cycle(&h, res, err);
done:
  howard_free(&h);
  return s;
}
