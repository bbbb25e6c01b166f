// mcr_lemon.cpp: second reference on mean-only graphs (every edge holds one
// token, so the cycle ratio is the cycle mean).  Times LEMON's HowardMmc
// (minimum mean cycle, run on negated durations) on one benchmark graph
// file, best of REPEAT runs; only findCycleMean() is timed.  A graph with
// other token counts is reported as "skipped" (LEMON has no ratio form).
//
// Usage: mcr_lemon FILE [REPEAT]
#include "graphfile.h"

#include <lemon/howard_mmc.h>
#include <lemon/static_graph.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <utility>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: mcr_lemon FILE [REPEAT]\n");
    return 2;
  }
  long repeat;
  if (bench_repeat_arg("mcr_lemon", argc, argv, 2, &repeat))
    return 2;
  bench_graph bg;
  char msg[1024];
  if (bench_graph_read(argv[1], &bg, msg, sizeof msg)) {
    std::fprintf(stderr, "mcr_lemon: %s\n", msg);
    return 1;
  }
  for (uint64_t e = 0; e < bg.m; e++)
    if (bg.tok[e] != 1) {
      std::printf("skipped=not-mean-only\n");
      bench_graph_free(&bg);
      return 0;
    }
  // StaticDigraph wants arcs sorted by source; arc k is then order[k].
  std::vector<uint64_t> order(bg.m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint64_t a, uint64_t b) { return bg.src[a] < bg.src[b]; });
  std::vector<std::pair<int, int>> arcs(bg.m);
  for (uint64_t k = 0; k < bg.m; k++)
    arcs[k] = {(int)bg.src[order[k]], (int)bg.dst[order[k]]};
  lemon::StaticDigraph g;
  g.build((int)bg.n, arcs.begin(), arcs.end());
  lemon::StaticDigraph::ArcMap<double> cost(g);
  for (uint64_t k = 0; k < bg.m; k++)
    cost[g.arc((int)k)] = -bg.w[order[k]];
  bench_graph_free(&bg);
  double best = 1e300, mean = 0;
  for (long k = 0; k < repeat; k++) {
    lemon::HowardMmc<lemon::StaticDigraph, lemon::StaticDigraph::ArcMap<double>> mmc(g, cost);
    auto t0 = std::chrono::steady_clock::now();
    auto cause = mmc.findCycleMean();
    std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    if (cause != decltype(mmc)::OPTIMAL) {
      std::fprintf(stderr, "mcr_lemon: %s: no optimal cycle found\n", argv[1]);
      return 1;
    }
    mean = -mmc.cycleMean();
    best = std::min(best, dt.count());
  }
  std::printf("ratio=%.17g seconds=%.6f\n", mean, best);
  return 0;
}
