"""The backends that play a run's chunks through joblib's ``Parallel``: threading,
multiprocessing, or a Dask cluster (local, or at a scheduler's address).

The default backend needs none of this (``scopa_sim.runner.pools``), so joblib is imported only
here and only when one of these backends is asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from scopa_sim.runner.config import RunError


@contextlib.contextmanager
def joblib_backend(backend: str | None, workers: int, scheduler: str | None) -> Iterator[None]:
    """joblib's parallel_config for the backends that play through joblib's ``Parallel``
    (threading, multiprocessing); a Dask client for 'dask'. The default backend (None, which
    ``run`` makes of a named loky too) needs neither: its chunks go to this process, to the
    forked workers or to loky's own pool (``pools.shared_chunks``, ``chunks.chunks_in_turn``),
    so joblib is not imported for it: its import would delay a forked run's first chunk while
    every worker waited."""
    if backend is None:
        yield
        return
    from joblib import parallel_config

    if backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise RunError(
                "the dask backend needs the dask extra: pip install 'scopa-sim[dask]'"
            ) from None
        if scheduler:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, ValueError, TimeoutError) as err:
                raise RunError(
                    f"cannot reach the Dask scheduler at {scheduler} ({type(err).__name__}); "
                    "check the address (tcp://HOST:PORT) and that the scheduler is running"
                ) from None
        else:
            cluster = local_cluster(LocalCluster, workers)
            client = Client(cluster)
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield
        finally:
            client.close()
            if not scheduler:
                cluster.close()
    else:
        with parallel_config(backend=backend, n_jobs=workers):
            yield


def local_cluster(cluster_class, workers: int):
    """A Dask ``LocalCluster`` (``cluster_class``, imported by the caller, which reports a
    missing dask extra its own way) of ``workers`` one-thread processes. Its scheduler's HTTP
    server takes a free port: left to its default, 8787, it warned on stderr whenever the port
    was taken (another cluster, a notebook's dashboard) and then took another anyway."""
    return cluster_class(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
