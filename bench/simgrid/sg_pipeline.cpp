/* sg_pipeline.cpp: the peer check of `streamtp simulate`: plays a streamtp
 * mapping file (docs/format.md) in SimGrid S4U, the simulator of the paper, for
 * N data sets, and prints the throughput measured the same way as streamtp
 * (in-order completions after a warm-up) and the wall time.
 *
 * Platform: one host per processor (speed = its speed), one private link per
 * pair of processors that exchange data (bandwidth = the mapping's, zero
 * latency, every network correction factor neutralised: a transfer of
 * delta bytes takes exactly delta / bandwidth, as in the paper's model).
 * Sizes are scaled by SIZE_SCALE because SimGrid counts whole bytes.
 *
 * Overlap: each processor runs three actors (reception, computation,
 * emission), each serving its data sets in round-robin order; a transfer
 * is a rendezvous on the link's mailbox, so it starts when the sender has
 * computed the data set and finished its previous emission and the
 * receiver has finished its previous reception (docs/design.md 2).
 * Strict: one actor per processor does receive -> compute -> send.
 * Times: det (the means) or exp (mean x Exp(1)), drawn by each actor from
 * its own std::mt19937_64. */
#include <jansson.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

static constexpr double SIZE_SCALE = 1e6;

struct Mapping {
  std::vector<std::string> stage;
  std::vector<double> work, output;
  std::vector<std::string> proc;
  std::vector<double> speed;
  std::vector<std::vector<int>> team;
  double bandwidth = 0;
  std::map<std::pair<int, int>, double> link;

  double bw(int p, int q) const {
    auto it = link.find({p, q});
    return it != link.end() ? it->second : bandwidth;
  }
};

struct Run {
  bool strict = false, exp = false;
  long total = 0, warmup = 0;
  unsigned long long seed = 1;
  std::vector<double> done; /* completion time of each data set */
};

static Mapping g_map;
static Run g_run;
static int g_dummy;

[[noreturn]] static void die(const std::string &msg) {
  std::fprintf(stderr, "sg_pipeline: %s\n", msg.c_str());
  std::exit(2);
}

static Mapping load(const char *path) {
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  if (!root)
    die(std::string(path) + ": " + je.text);
  Mapping m;
  std::map<std::string, int> index;
  json_t *v;
  size_t k;
  json_array_foreach(json_object_get(root, "stages"), k, v) {
    json_t *name = json_object_get(v, "name"), *out = json_object_get(v, "output");
    m.stage.push_back(name ? json_string_value(name) : "T" + std::to_string(k + 1));
    m.work.push_back(json_number_value(json_object_get(v, "work")));
    m.output.push_back(out ? json_number_value(out) : 0);
  }
  json_array_foreach(json_object_get(root, "processors"), k, v) {
    index[json_string_value(json_object_get(v, "name"))] = (int)k;
    m.proc.push_back(json_string_value(json_object_get(v, "name")));
    m.speed.push_back(json_number_value(json_object_get(v, "speed")));
  }
  if (json_t *b = json_object_get(root, "bandwidth"))
    m.bandwidth = json_number_value(b);
  json_array_foreach(json_object_get(root, "links"), k, v) {
    int p = index.at(json_string_value(json_object_get(v, "from")));
    int q = index.at(json_string_value(json_object_get(v, "to")));
    m.link[{p, q}] = json_number_value(json_object_get(v, "bandwidth"));
  }
  json_array_foreach(json_object_get(root, "mapping"), k, v) {
    std::vector<int> t;
    size_t j;
    json_t *w;
    json_array_foreach(v, j, w) t.push_back(index.at(json_string_value(w)));
    m.team.push_back(t);
  }
  json_decref(root);
  return m;
}

static std::string link_name(int p, int q) { return g_map.proc[p] + "->" + g_map.proc[q]; }

/* Hosts, and one link and route per pair that talks (a = b mod gcd). */
static void build_platform() {
  auto *zone = sg4::create_full_zone("pipeline");
  std::vector<sg4::Host *> host;
  for (size_t p = 0; p < g_map.proc.size(); p++)
    host.push_back(zone->create_host(g_map.proc[p], g_map.speed[p]));
  for (size_t i = 0; i + 1 < g_map.team.size(); i++) {
    const auto &a = g_map.team[i], &b = g_map.team[i + 1];
    size_t g = std::__gcd(a.size(), b.size());
    for (size_t x = 0; x < a.size(); x++)
      for (size_t y = 0; y < b.size(); y++) {
        if (x % g != y % g)
          continue;
        int p = a[x], q = b[y];
        auto *l = zone->create_link(link_name(p, q), g_map.bw(p, q) * SIZE_SCALE)->set_latency(0);
        l->seal();
        zone->add_route(host[p]->get_netpoint(), host[q]->get_netpoint(), nullptr, nullptr,
                        {sg4::LinkInRoute(l)}, false);
      }
  }
  zone->seal();
}

struct Draw {
  std::mt19937_64 gen;
  std::exponential_distribution<double> e{1.0};
  explicit Draw(unsigned long long seed) : gen(seed) {}
  double operator()() { return g_run.exp ? e(gen) : 1.0; }
};

static unsigned long long actor_seed(int p, int role) {
  return g_run.seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)(3 * p + role + 1);
}

static sg4::Mailbox *mailbox(int p, int q) { return sg4::Mailbox::by_name(link_name(p, q)); }

static void send(int i, int p, long n, Draw &draw) {
  const auto &next = g_map.team[i + 1];
  int q = next[n % (long)next.size()];
  auto bytes = (uint64_t)std::llround(g_map.output[i] * draw() * SIZE_SCALE);
  mailbox(p, q)->put(&g_dummy, bytes);
}

static void receive(int i, int p, long n) {
  const auto &prev = g_map.team[i - 1];
  mailbox(prev[n % (long)prev.size()], p)->get<int>();
}

static void compute(int i, long n, Draw &draw) {
  sg4::this_actor::execute(g_map.work[i] * draw());
  if ((size_t)i + 1 == g_map.team.size())
    g_run.done[n] = sg4::Engine::get_clock();
}

/* Overlap: reception, computation and emission actors linked by counting
 * semaphores (data sets reach each actor in the same order). */
static void spawn_overlap(int i, int k) {
  int p = g_map.team[i][k];
  long r = (long)g_map.team[i].size();
  bool first = i == 0, last = (size_t)i + 1 == g_map.team.size();
  auto received = sg4::Semaphore::create(0), computed = sg4::Semaphore::create(0);
  sg4::Host *h = sg4::Host::by_name(g_map.proc[p]);
  if (!first)
    sg4::Actor::create("in-" + g_map.proc[p], h, [=]() {
      for (long n = k; n < g_run.total; n += r) {
        receive(i, p, n);
        received->release();
      }
    });
  sg4::Actor::create("comp-" + g_map.proc[p], h, [=]() {
    Draw draw(actor_seed(p, 0));
    for (long n = k; n < g_run.total; n += r) {
      if (!first)
        received->acquire();
      compute(i, n, draw);
      if (!last)
        computed->release();
    }
  });
  if (!last)
    sg4::Actor::create("out-" + g_map.proc[p], h, [=]() {
      Draw draw(actor_seed(p, 1));
      for (long n = k; n < g_run.total; n += r) {
        computed->acquire();
        send(i, p, n, draw);
      }
    });
}

static void spawn_strict(int i, int k) {
  int p = g_map.team[i][k];
  long r = (long)g_map.team[i].size();
  bool first = i == 0, last = (size_t)i + 1 == g_map.team.size();
  sg4::Actor::create("proc-" + g_map.proc[p], sg4::Host::by_name(g_map.proc[p]), [=]() {
    Draw comp(actor_seed(p, 0)), out(actor_seed(p, 1));
    for (long n = k; n < g_run.total; n += r) {
      if (!first)
        receive(i, p, n);
      compute(i, n, comp);
      if (!last)
        send(i, p, n, out);
    }
  });
}

static long parse_long(const char *s) {
  char *end;
  double v = std::strtod(s, &end);
  if (*end || v < 0)
    die(std::string("bad number: ") + s);
  return (long)v;
}

int main(int argc, char **argv) {
  auto t0 = std::chrono::steady_clock::now();
  sg4::Engine engine(&argc, argv); /* consumes --cfg=... and --log=... */
  const char *file = nullptr;
  long datasets = 100000, warmup = -1;
  for (int a = 1; a < argc; a++) {
    std::string o = argv[a];
    if (o == "--model" && a + 1 < argc)
      g_run.strict = std::strcmp(argv[++a], "strict") == 0;
    else if (o == "--law" && a + 1 < argc)
      g_run.exp = std::strcmp(argv[++a], "exp") == 0;
    else if (o == "--datasets" && a + 1 < argc)
      datasets = parse_long(argv[++a]);
    else if (o == "--warmup" && a + 1 < argc)
      warmup = parse_long(argv[++a]);
    else if (o == "--seed" && a + 1 < argc)
      g_run.seed = (unsigned long long)parse_long(argv[++a]);
    else if (!file && o[0] != '-')
      file = argv[a];
    else
      die("usage: sg_pipeline FILE [--model overlap|strict] [--law det|exp] [--datasets N] "
          "[--warmup W] [--seed S]");
  }
  if (!file)
    die("no mapping file");
  /* transfers take exactly size / bandwidth: no latency, no factors */
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  sg4::Engine::set_config("network/crosstraffic:0");
  g_map = load(file);
  g_run.warmup = warmup >= 0 ? warmup : datasets / 10;
  g_run.total = datasets + g_run.warmup;
  g_run.done.assign((size_t)g_run.total, 0);
  build_platform();
  for (size_t i = 0; i < g_map.team.size(); i++)
    for (size_t k = 0; k < g_map.team[i].size(); k++)
      g_run.strict ? spawn_strict((int)i, (int)k) : spawn_overlap((int)i, (int)k);
  engine.run();
  /* in-order completions: C(n) = max over m <= n of done[m] */
  double c = 0, start = 0;
  for (long n = 0; n < g_run.total; n++) {
    c = std::max(c, g_run.done[n]);
    if (n == g_run.warmup - 1)
      start = c;
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long cols = 2 * (long)g_map.team.size() - 1;
  std::printf("{\"file\":\"%s\",\"model\":\"%s\",\"law\":\"%s\",\"datasets\":%ld,\"warmup\":%ld,"
              "\"throughput\":%.10g,\"firings\":%ld,\"wall_seconds\":%.4f}\n",
              file, g_run.strict ? "strict" : "overlap", g_run.exp ? "exp" : "det", datasets,
              g_run.warmup, (double)datasets / (c - start), g_run.total * cols, wall);
  return 0;
}
