"""The processes of `python -m acp_core explore --workers W` (command line only).

Owns: `paused_collector` (an explore run without the cyclic garbage collector),
`memory_low` (whether the machine's available memory has fallen under a sixth),
`level_workers` (`explore`'s persistent workers: this process and `workers - 1`
processes forked from it, each serving a `WorkerHost` over a pipe), `map_shards` (a
`map_shards` for `explore`: this process alone, a local process pool sharing each level
with this process, or a Dask client), the pickled call a shard's worker runs, and
`new_run_id` (a run's name, from the process id and the clock).
Must not know: the search or the alphabet (`explore.py`), argument parsing (`__main__`).

Like `__main__`, this module may start processes and read the clock (tests/test_purity.py
names the two); nothing in the core imports it.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any, Final

from acp_core._errors import AcpError, ArgumentError
from acp_core._research._explore_shards import pack_expansions, unpack_expansions
from acp_core._research._explore_workers import Request, WorkerHost

__all__ = [
    "ProcessWorkers",
    "level_workers",
    "map_shards",
    "memory_low",
    "new_run_id",
    "paused_collector",
    "pickled_call",
]


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """The cyclic garbage collector off for the block (processes forked in it inherit that).

    An explore run keeps every state it reached, millions of tracked objects that are never
    garbage; the collector rescans them as they accumulate, which took a third of one
    process's time (2026-08, depth 10: 12.9 against 8.9 s), while the values hold almost no
    cycles (180 objects were left for it at the end of that run) and the peak memory was
    the same (208 and 209 MB). Reference counting still frees everything else."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


#: An explore run stops inside a level once less than this share of the machine's memory
#: is available (a round of a level's expansion can take a few hundred megabytes more).
LOW_MEMORY: Final = 1 / 6


def memory_low(meminfo: str = "/proc/meminfo") -> bool:
    """Whether less than `LOW_MEMORY` of the machine's memory is available (Linux's
    `MemAvailable`: free memory and the caches the kernel can drop); False where that
    cannot be read."""
    try:
        with open(meminfo, encoding="ascii") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        total = int(fields["MemTotal"].split()[0])
        available = int(fields["MemAvailable"].split()[0])
    except (OSError, KeyError, ValueError, IndexError):
        return False
    return available < total * LOW_MEMORY


class ProcessWorkers:
    """Worker 0 in this process, the others each in a forked process behind a pipe: a
    call sends every other worker its request, answers worker 0's here, then reads theirs
    (requests and answers cross as pickles, in this thread)."""

    def __init__(self, pipes: Sequence[Connection]) -> None:
        self.pipes = list(pipes)
        self.local = WorkerHost()

    @property
    def size(self) -> int:
        return 1 + len(self.pipes)

    def call(self, requests: Sequence[Request]) -> list[Any]:
        for pipe, request in zip(self.pipes, requests[1:], strict=True):
            pipe.send_bytes(pickle.dumps(request, pickle.HIGHEST_PROTOCOL))
        answers = [self.local.handle(requests[0])]
        for pipe in self.pipes:
            ok, answer = pickle.loads(pipe.recv_bytes())
            if not ok:
                raise AcpError(f"an explore worker failed: {answer}")
            answers.append(answer)
        return answers


def _serve(pipe: Connection) -> None:
    # A forked worker: answer requests until the pipe closes (or a None request).
    host = WorkerHost()
    while True:
        try:
            request = pickle.loads(pipe.recv_bytes())
        except EOFError:
            return
        if request is None:
            return
        try:
            reply = (True, host.handle(request))
        except Exception as exc:  # reported to the coordinator, not lost
            reply = (False, f"{type(exc).__name__}: {exc}")
        pipe.send_bytes(pickle.dumps(reply, pickle.HIGHEST_PROTOCOL))


@contextlib.contextmanager
def level_workers(workers: int) -> Iterator[ProcessWorkers | None]:
    """`workers` persistent workers (this process one of them), or None where processes
    cannot be forked: the coordinator compares fingerprints (`hash`) across processes, and
    only a fork shares this interpreter's hash seed."""
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield None
        return
    context = multiprocessing.get_context("fork")
    pipes: list[Connection] = []
    processes = []
    try:
        for _ in range(workers - 1):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs,), daemon=True)
            process.start()
            theirs.close()
            pipes.append(mine)
            processes.append(process)
        yield ProcessWorkers(pipes)
    finally:
        for pipe in pipes:
            with contextlib.suppress(OSError):
                pipe.send_bytes(pickle.dumps(None))
            pipe.close()
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()


@contextlib.contextmanager
def map_shards(workers: int, executor: str, scheduler: str | None) -> Iterator[Any]:
    """A `map_shards` for `explore`: this process, a local process pool, or Dask."""
    if executor == "dask":
        try:
            import dask.distributed as dd  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            msg = "--executor dask needs: pip install 'acp-core[distributed]'"
            raise ArgumentError(msg) from None
        new_cluster: Any = dd.LocalCluster
        new_client: Any = dd.Client
        cluster = None if scheduler else new_cluster(n_workers=max(workers, 1), processes=True)
        with new_client(scheduler or cluster) as client:
            yield lambda fn, tasks: client.gather(client.map(fn, tasks, pure=False))
        if cluster is not None:
            cluster.close()
    elif workers > 1:
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        # This process is one of the workers: it expands shards from the front of each
        # level while `workers - 1` processes take them from the back, two in flight each,
        # until the two ends meet (so neither waits for the other; a shipped shard costs
        # its process more than a shard here costs this one: its nodes arrive without
        # their checker states). Tasks and results cross as bytes pickled in this thread:
        # the pool's own threads would pickle them while this one works, holding the GIL.
        with ProcessPoolExecutor(workers - 1) as pool:
            in_flight = 2 * (workers - 1)

            def front_and_back(fn: Callable[[Any], Any], tasks: list[Any]) -> list[Any]:
                results: list[Any] = [None] * len(tasks)
                pending: dict[Any, int] = {}
                front, back = 0, len(tasks)
                while front < back or pending:
                    for future in [f for f in pending if f.done()]:
                        index = pending.pop(future)
                        packed = pickle.loads(future.result())
                        results[index] = unpack_expansions(tasks[index], packed)
                    while len(pending) < in_flight and back - 1 > front:  # one stays here
                        back -= 1
                        blob = pickle.dumps(tasks[back])
                        pending[pool.submit(pickled_call, fn, blob)] = back
                    if front < back:
                        results[front] = fn(tasks[front])
                        front += 1
                    elif pending:
                        wait(pending, return_when=FIRST_COMPLETED)
                return results

            yield front_and_back
    else:
        yield lambda fn, tasks: [fn(t) for t in tasks]


def pickled_call(fn: Callable[[Any], Any], blob: bytes) -> bytes:
    # In a worker: the task's expansions, packed (`pack_expansions`) and pickled.
    task = pickle.loads(blob)
    return pickle.dumps(pack_expansions(task, fn(task)))


def new_run_id() -> str:
    """A name for one `explore` run, unique among the runs a pool of workers serves."""
    return f"{os.getpid()}-{time.time_ns()}"
