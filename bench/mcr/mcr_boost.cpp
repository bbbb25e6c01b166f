// mcr_boost.cpp: the peer.  Times boost::maximum_cycle_ratio (Howard's
// algorithm, boost/graph/howard_cycle_ratio.hpp) on one benchmark graph
// file, best of REPEAT runs, with durations as the first weight and tokens
// as the second.  Only the call is timed.  The graph is Boost's
// compressed_sparse_row_graph (its fastest representation for this) unless
// GRAPH is "adjlist" (adjacency_list<vecS, vecS, directedS>).  EPS is
// Boost's improvement threshold: "default" keeps mcr_float's absolute 0.005;
// a number sets it (e.g. 1e-9 to let Boost reach the exact optimum).
//
// Usage: mcr_boost FILE [REPEAT] [EPS|default] [csr|adjlist]
#include "graphfile.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/howard_cycle_ratio.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

struct edge_prop {
  double w;
  double tok;
};

double tight_eps = 0;

// mcr_float with a caller-chosen threshold instead of 0.005.
struct tight_float {
  typedef double value_type;
  static double infinity() { return std::numeric_limits<double>::infinity(); }
  static double epsilon() { return -tight_eps; }
};

template <typename Graph>
double solve(const Graph &g, bool tight) {
  auto vim = boost::get(boost::vertex_index, g);
  auto w = boost::get(&edge_prop::w, g);
  auto t = boost::get(&edge_prop::tok, g);
  if (tight)
    return boost::maximum_cycle_ratio(g, vim, w, t, nullptr, tight_float());
  return boost::maximum_cycle_ratio(g, vim, w, t);
}

template <typename Graph>
double best_of(const Graph &g, long repeat, bool tight, double *ratio) {
  double best = 1e300;
  for (long k = 0; k < repeat; k++) {
    auto t0 = std::chrono::steady_clock::now();
    *ratio = solve(g, tight);
    std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    best = std::min(best, dt.count());
  }
  return best;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 5) {
    std::fprintf(stderr, "usage: mcr_boost FILE [REPEAT] [EPS|default] [csr|adjlist]\n");
    return 2;
  }
  long repeat;
  if (bench_repeat_arg("mcr_boost", argc, argv, 2, &repeat))
    return 2;
  char *end;
  bool tight = argc > 3 && std::string(argv[3]) != "default";
  if (tight) {
    tight_eps = std::strtod(argv[3], &end);
    if (*end || !(tight_eps >= 0) || !std::isfinite(tight_eps)) {
      std::fprintf(stderr, "mcr_boost: EPS must be a finite number >= 0 or \"default\"\n");
      return 2;
    }
  }
  std::string kind = argc > 4 ? argv[4] : "csr";
  if (kind != "csr" && kind != "adjlist") {
    std::fprintf(stderr, "mcr_boost: GRAPH must be csr or adjlist\n");
    return 2;
  }
  bench_graph bg;
  char msg[1024];
  if (bench_graph_read(argv[1], &bg, msg, sizeof msg)) {
    std::fprintf(stderr, "mcr_boost: %s\n", msg);
    return 1;
  }
  std::vector<std::pair<uint32_t, uint32_t>> edges(bg.m);
  std::vector<edge_prop> props(bg.m);
  for (uint64_t e = 0; e < bg.m; e++) {
    edges[e] = {bg.src[e], bg.dst[e]};
    props[e] = {bg.w[e], (double)bg.tok[e]};
  }
  uint32_t n = bg.n;
  bench_graph_free(&bg);
  double ratio = 0, seconds;
  if (kind == "csr") {
    typedef boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, edge_prop,
                                               boost::no_property, uint32_t, uint64_t>
        graph;
    graph g(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), props.begin(), n);
    seconds = best_of(g, repeat, tight, &ratio);
  } else {
    typedef boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                  edge_prop>
        graph;
    graph g(edges.begin(), edges.end(), props.begin(), n);
    seconds = best_of(g, repeat, tight, &ratio);
  }
  std::printf("ratio=%.17g seconds=%.6f\n", ratio, seconds);
  return 0;
}
