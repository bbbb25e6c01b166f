"""sweep_dask.py: the sweep of sweep_pool.py on a Dask cluster.

The points and `evaluate` are those of sweep_pool.py; Dask's distributed
scheduler (Debian: python3-distributed, in `scripts/deps.sh cluster`) hands
them to its workers.  Without --scheduler, a local cluster of worker
processes is started on this machine; with --scheduler tcp://HOST:8786 the
points go to a cluster started elsewhere (`dask-scheduler`, and
`dask-worker tcp://HOST:8786` on each node, with streamtp installed).

    python3 examples/sweep_dask.py [--workers N] [--scheduler ADDRESS] [-o rows.csv]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sweep_pool  # noqa: E402  (the grid, the mappings, evaluate)


def sweep(points, client):
    """The rows of the points, in their order, computed by the client's
    workers (client.map keeps the order of its arguments)."""
    futures = client.map(sweep_pool.evaluate, points, pure=False)
    return client.gather(futures)


def main():
    from dask.distributed import Client, LocalCluster
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("-o", "--output", default="-", help="CSV file (default: standard output)")
    a = ap.parse_args()
    if a.scheduler:
        client, cluster = Client(a.scheduler), None
    else:  # worker processes, one thread each: libstreamtp runs one evaluation per process
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        rows = sweep(sweep_pool.grid(), client)
    finally:
        client.close()
        if cluster:
            cluster.close()
    if a.output == "-":
        sweep_pool.write_csv(rows, sys.stdout)
    else:
        with open(a.output, "w", newline="") as f:
            sweep_pool.write_csv(rows, f)


if __name__ == "__main__":
    main()
