"""tegmodel.py: a small, independent Python model of docs/design.md sections 2-3.

Reads a mapping in the docs/format.md JSON form (as a dict) and computes, for the
Overlap or Strict model:

  - the resource cycle-times (C_in, C_comp, C_out per processor), M_ct, the
    resource attaining it and the resources attaining the period;
  - the deterministic period, lambda* / R, where lambda* is the maximum cycle
    ratio of the timed event graph of docs/design.md section 2.

It is used by fit_example_a.py to search parameters quickly (floats) and to
check the result exactly (fractions.Fraction), and as a cross-check of the
C library: it shares no code with it.

Maximum cycle ratio: the only places holding a token are the closing places
of the per-processor cycles/chains. Contract every 0-token path: node k of
the reduced graph is the k-th token place (u_k -> w_k), and the arc k -> l
weighs the longest 0-token path w_k ~> u_l (firing times of both ends
included). Every cycle of the event graph with t tokens is a cycle of t arcs
of the reduced graph, so lambda* is the maximum cycle mean of the reduced
graph, computed with Karp's algorithm (super source, exact in Fractions).
"""
from fractions import Fraction
from math import gcd

NEG = None  # "no path" marker (works for floats and Fractions alike)


def _lcm(values):
    r = 1
    for v in values:
        r = r * v // gcd(r, v)
    return r


class Mapping:
    """A mapping file (dict) with its firing times in the number type num."""

    def __init__(self, doc, num=Fraction):
        self.num = num
        self.stages = doc["stages"]
        self.procs = [p["name"] for p in doc["processors"]]
        # JSON decimals are read as the decimals they spell (0.1 -> 1/10).
        conv = (lambda x: Fraction(str(x))) if num is Fraction else num
        self.speed = {p["name"]: conv(p["speed"]) for p in doc["processors"]}
        self.default_bw = conv(doc["bandwidth"]) if "bandwidth" in doc else None
        self.bw = {(l["from"], l["to"]): conv(l["bandwidth"]) for l in doc.get("links", [])}
        self.work = [conv(s["work"]) for s in self.stages]
        self.output = [conv(s.get("output", 0)) for s in self.stages]
        self.teams = doc["mapping"]
        self.n = len(self.teams)
        self.R = _lcm(len(t) for t in self.teams)
        self.ncols = 2 * self.n - 1

    def bandwidth(self, p, q):
        b = self.bw.get((p, q), self.default_bw)
        if b is None:
            raise ValueError(f"no bandwidth for link {p} -> {q}")
        return b

    def comp(self, i, p):
        return self.work[i] / self.speed[p]

    def comm(self, i, p, q):
        return self.output[i] / self.bandwidth(p, q)

    def proc(self, j, i):
        t = self.teams[i]
        return t[j % len(t)]

    def time(self, j, c):
        i = c // 2
        p = self.proc(j, i)
        if c % 2 == 0:
            return self.comp(i, p)
        return self.comm(i, p, self.proc(j, i + 1))


def cycle_times(m):
    """{proc: [C_in, C_comp, C_out]} per data set (docs/design.md section 3)."""
    zero = m.num(0)
    ct = {p: [zero, zero, zero] for team in m.teams for p in team}
    for i, team in enumerate(m.teams):
        for p in team:
            ct[p][1] = m.comp(i, p) / len(team)
    for j in range(m.R):
        for i in range(m.n - 1):
            p, q = m.proc(j, i), m.proc(j, i + 1)
            d = m.comm(i, p, q) / m.R
            ct[p][2] += d
            ct[q][0] += d
    return ct


def resources(m, model):
    """[(name, cycle-time)] in the library's order (processor order, then
    computation, in, out for Overlap; one value per processor for Strict)."""
    ct = cycle_times(m)
    out = []
    for p in m.procs:
        if p not in ct:
            continue
        cin, ccomp, cout = ct[p]
        if model == "strict":
            out.append((p, cin + ccomp + cout))
        else:
            out += [(p, ccomp), (p + " in", cin), (p + " out", cout)]
    return out


def event_graph(m, model):
    """Transitions (row, col) with firing times, 0-token arcs, token arcs."""
    R, C = m.R, m.ncols
    t = [[m.time(j, c) for c in range(C)] for j in range(R)]
    zero_arcs = [((j, c), (j, c + 1)) for j in range(R) for c in range(C - 1)]
    token_arcs = []

    def chain(rows, first, last):
        for a, b in zip(rows, rows[1:]):
            zero_arcs.append(((a, last), (b, first)))
        token_arcs.append(((rows[-1], last), (rows[0], first)))

    for i, team in enumerate(m.teams):
        for k in range(len(team)):
            rows = list(range(k, R, len(team)))
            if model == "strict":
                last = 2 * i + 1 if i < m.n - 1 else 2 * i
                first = 2 * i - 1 if i > 0 else 2 * i
                chain(rows, first, last)
            else:
                cols = [2 * i] + ([2 * i + 1] if i < m.n - 1 else []) + ([2 * i - 1] if i > 0 else [])
                for c in cols:
                    chain(rows, c, c)
    return t, zero_arcs, token_arcs


def _reduced(t, zero_arcs, token_arcs, want_paths=False):
    """W[k][l]: longest 0-token path from the head of token arc k to the tail
    of token arc l (None: no path), and the paths themselves if asked."""
    succ = {}
    indeg = {}
    nodes = [(j, c) for j in range(len(t)) for c in range(len(t[0]))]
    for v in nodes:
        succ[v] = []
        indeg[v] = 0
    for a, b in zero_arcs:
        succ[a].append(b)
        indeg[b] += 1
    order, stack = [], [v for v in nodes if indeg[v] == 0]
    while stack:
        v = stack.pop()
        order.append(v)
        for w in succ[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                stack.append(w)
    if len(order) != len(nodes):
        raise ValueError("deadlock: a cycle of 0-token places")
    pos = {v: k for k, v in enumerate(order)}
    n = len(token_arcs)
    tails = {}
    for k, (u, _) in enumerate(token_arcs):
        tails.setdefault(u, []).append(k)
    W = [[NEG] * n for _ in range(n)]
    P = [[None] * n for _ in range(n)]
    for k, (_, w0) in enumerate(token_arcs):
        dist, pred = {w0: t[w0[0]][w0[1]]}, {w0: None}
        for v in order[pos[w0]:]:
            dv = dist.get(v)
            if dv is None:
                continue
            for l in tails.get(v, ()):
                if W[k][l] is None or dv > W[k][l]:
                    W[k][l] = dv
                    if want_paths:
                        path, x = [], v
                        while x is not None:
                            path.append(x)
                            x = pred[x]
                        P[k][l] = path[::-1]
            for w in succ[v]:
                cand = dv + t[w[0]][w[1]]
                if w not in dist or cand > dist[w]:
                    dist[w] = cand
                    pred[w] = v
    return (W, P) if want_paths else W


def max_cycle_ratio(t, zero_arcs, token_arcs):
    """lambda* = max over cycles of (sum of firing times) / (tokens)."""
    return _karp(_reduced(t, zero_arcs, token_arcs))


def critical_cycle(doc, model, num=Fraction):
    """(ratio, tokens, transitions) of a critical cycle, by enumerating the
    elementary cycles of the reduced graph (small graphs only)."""
    m = Mapping(doc, num)
    t, za, ta = event_graph(m, model)
    W, P = _reduced(t, za, ta, want_paths=True)
    n = len(W)
    best = [None, None]

    def dfs(start, v, seen, weight, cyc):
        for w in range(start, n):
            if W[v][w] is None:
                continue
            if w == start:
                r = (weight + W[v][w]) / len(cyc)
                if best[0] is None or r > best[0]:
                    best[0], best[1] = r, cyc[:]
            elif w not in seen:
                seen.add(w)
                cyc.append(w)
                dfs(start, w, seen, weight + W[v][w], cyc)
                cyc.pop()
                seen.discard(w)

    for s0 in range(n):
        dfs(s0, s0, {s0}, 0 * t[0][0], [s0])
    cyc = best[1]
    trans = []
    for a, b in zip(cyc, cyc[1:] + cyc[:1]):
        trans += P[a][b]
    return best[0], len(cyc), trans


def _karp(W):
    """Maximum cycle mean of the weighted digraph W (None = no arc)."""
    n = len(W)
    zero = 0 * next(x for row in W for x in row if x is not None)
    D = [[zero] * n]  # super source: D_0(v) = 0 for every v
    for k in range(1, n + 1):
        prev, cur = D[-1], [None] * n
        for u in range(n):
            if prev[u] is None:
                continue
            row = W[u]
            for v in range(n):
                if row[v] is not None:
                    c = prev[u] + row[v]
                    if cur[v] is None or c > cur[v]:
                        cur[v] = c
        D.append(cur)
    best = None
    for v in range(n):
        if D[n][v] is None:
            continue
        worst = None
        for k in range(n):
            if D[k][v] is None:
                continue
            r = (D[n][v] - D[k][v]) / (n - k)
            if worst is None or r < worst:
                worst = r
        if worst is not None and (best is None or worst > best):
            best = worst
    return best


def evaluate(doc, model, num=Fraction, rtol=1e-9):
    """Period, M_ct, its resource and the critical resources (as the CLI)."""
    m = Mapping(doc, num)
    lam = max_cycle_ratio(*event_graph(m, model))
    period = lam / m.R
    res = resources(m, model)
    mct_name, mct = None, None
    for name, v in res:  # first strict maximum, as the library reports it
        if mct is None or v > mct:
            mct_name, mct = name, v
    crit = [name for name, v in res if abs(float(v) - float(period)) <= rtol * abs(float(period))]
    return {"period": period, "max_cycle_time": mct, "max_cycle_time_resource": mct_name,
            "critical_resources": crit, "resources": res}
