#!/usr/bin/python3
"""scipy_solve.py Q.mtx METHOD [TARGET [STATES.csv]]: solve pi Q = 0,
sum(pi) = 1 for the generator written by `streamtp ctmc --mtx`, with SciPy,
the way streamtp's direct solver poses it (pi[0] = 1, state 0's row and
column removed), and print one JSON line: method, seconds (the solve, not
the file reading), peak memory, the scaled residual
||pi Q||_inf / (||Q||_1 ||pi||_inf) that streamtp reports, and the data-set
rate: pi . throughput_rate from `streamtp ctmc --states` when given (the
throughput of a connected event graph), else pi . (rate out of each state)
(the same for a pattern, where every firing carries a data set).

METHOD: spsolve (SuperLU), or gmres-ilu: GMRES(50) preconditioned by an
incomplete LU (spilu, drop_tol 1e-3, fill_factor 5: the fastest of the
settings tried on the 6x7 to 8x9 patterns), run with tolerances 1e-8,
1e-10, ... each continuing from the last iterate, until the scaled residual
is at most TARGET (default 1e-13: pass the residual streamtp reached, so
both are compared at equal residual)."""
import json
import resource
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse.linalg as sla


def scaled_residual(q, pi):
    r = q.T @ pi
    return np.abs(r).max() / (abs(q).sum(axis=0).max() * np.abs(pi).max())


def reduced_system(q):
    """Q^T pi = 0 with pi[0] = 1: A x = b over states 1..n-1."""
    qt = q.T.tocsc()
    a = qt[1:, 1:].tocsc()
    b = -np.asarray(qt[1:, 0].todense()).ravel()
    return a, b


def solve_spsolve(a, b, target, q):
    return sla.spsolve(a, b), {}


def solve_gmres_ilu(a, b, target, q):
    ilu = sla.spilu(a, drop_tol=1e-3, fill_factor=5)
    m = sla.LinearOperator(a.shape, ilu.solve)
    iters = [0]

    def count(_):
        iters[0] += 1

    x, tol, info = None, 1e-8, 0
    while True:
        x, info = sla.gmres(a, b, x0=x, M=m, tol=tol, atol=0.0, restart=50, maxiter=200,
                            callback=count, callback_type="pr_norm")
        if scaled_residual(q, full_pi(x)) <= target or tol < 1e-16:
            break
        tol /= 100
    return x, {"gmres_info": int(info), "gmres_tol": tol, "iterations": iters[0],
               "ilu_nnz": int(ilu.L.nnz + ilu.U.nnz)}


def full_pi(x):
    pi = np.concatenate(([1.0], x))
    return pi / pi.sum()


def main():
    path, method = sys.argv[1], sys.argv[2]
    target = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-13
    states = sys.argv[4] if len(sys.argv) > 4 else None
    q = scipy.io.mmread(path).tocsr()
    n = q.shape[0]
    t0 = time.perf_counter()
    a, b = reduced_system(q)
    x, extra = {"spsolve": solve_spsolve, "gmres-ilu": solve_gmres_ilu}[method](a, b, target, q)
    pi = full_pi(x)
    seconds = time.perf_counter() - t0
    if states:
        reward = np.loadtxt(states, delimiter=",", skiprows=1, usecols=2, ndmin=1)
    else:
        reward = -q.diagonal()
    out = {"method": method, "states": n, "seconds": seconds,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
           "residual": float(scaled_residual(q, pi)), "rate": float(pi @ reward)}
    out.update(extra)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
