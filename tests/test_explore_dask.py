"""`explore` on Dask: a LocalCluster of processes gives exactly the one-process result.

Needs the `distributed` extra (`pip install -e '.[test,distributed]'`, which CI installs).
"""

from __future__ import annotations

from typing import Any

import pytest

from acp_core.explore import explore

distributed = pytest.importorskip(
    "dask.distributed", reason="the `distributed` extra is not installed (CI installs it)"
)


def test_a_local_cluster_of_processes_gives_the_one_process_result() -> None:
    one = explore(depth=4, sessions=2)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster,
        distributed.Client(cluster) as client,
    ):

        def on_dask(fn: Any, tasks: list[Any]) -> list[Any]:
            return list(client.gather(client.map(fn, tasks, pure=False)))

        assert explore(depth=4, sessions=2, shards=2, map_shards=on_dask) == one
