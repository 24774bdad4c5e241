"""Where simulation chunks run: in this process, on local worker processes, or on a Dask cluster.

The work of a run is split into a FIXED number of chunks (a parameter of the run, never the
worker count). Chunk ``i`` gets ``runs_per_chunk[i]`` runs and the ``i``-th child of the run's
root ``SeedSequence``; results are combined in chunk order. So the same seed gives identical
results in-process, on 2 local processes, on 8, or on a Dask cluster.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from rallypoint.core.errors import MalformedInputError
from rallypoint.lab.rollers import chunk_sequences

R = TypeVar("R")

DEFAULT_CHUNKS = 32
"""Chunks per run unless given: enough to keep a few dozen workers busy, few enough that each
chunk's start-up cost (building the campaign once) stays small."""


MAX_RUNS = 100_000_000
"""Most runs in one simulation (each run keeps its values: a few hundred MB at most)."""


@dataclass(frozen=True)
class Chunk:
    """One chunk of a run: what to simulate, how many runs, and its own seed.

    Attributes:
        index: Position in the run (results are combined in this order).
        runs: Runs in this chunk.
        seed: The spawned child ``SeedSequence`` for this chunk.
        spec: The simulation's parameters (picklable, the same for every chunk).
    """

    index: int
    runs: int
    seed: np.random.SeedSequence
    spec: Any


@dataclass(frozen=True)
class Backend:
    """Where chunks run.

    Attributes:
        workers: Local worker processes; ``None`` means one per core, 1 runs in this process.
        scheduler: A Dask scheduler address (``tcp://host:8786``); overrides ``workers``.
        connect_timeout: Seconds to wait for the scheduler (a busy machine can be slow to
            answer; distributed's own default is 30).
    """

    workers: int | None = None
    scheduler: str | None = None
    connect_timeout: float = 30.0

    def describe(self) -> str:
        """``"dask tcp://…"``, ``"2 local processes"`` or ``"in-process"``."""
        if self.scheduler:
            return f"dask {self.scheduler}"
        n = self.resolved_workers()
        return "in-process" if n == 1 else f"{n} local processes"

    def resolved_workers(self) -> int:
        """The local worker count (cores when not given)."""
        if self.workers is not None and self.workers < 1:
            raise MalformedInputError(f"--workers {self.workers} is not a worker count",
                                      fix="Give 1 or more (1 runs in this process).")
        return self.workers or os.cpu_count() or 1


def split_runs(runs: int, chunks: int) -> list[int]:
    """Runs per chunk: as even as possible, earlier chunks one larger; empty chunks dropped.

    Raises:
        MalformedInputError: Fewer than one run or one chunk.
    """
    if runs < 1:
        raise MalformedInputError(f"--runs {runs}: nothing to simulate",
                                  fix="Give --runs 1 or more.")
    if runs > MAX_RUNS:
        raise MalformedInputError(
            f"--runs {runs}: every run's values are kept in memory",
            fix=f"Give at most {MAX_RUNS:,} runs, or several runs with different seeds.")
    if chunks < 1:
        raise MalformedInputError(f"--chunks {chunks} is not a chunk count",
                                  fix="Give --chunks 1 or more.")
    base, extra = divmod(runs, chunks)
    return [n for n in (base + (1 if i < extra else 0) for i in range(chunks)) if n]


def make_chunks(spec: Any, runs: int, entropy: int, chunks: int = DEFAULT_CHUNKS) -> list[Chunk]:
    """The chunks of a run, each with its spawned seed (spawned for every requested chunk, so the
    children do not depend on how many turn out empty)."""
    seeds = chunk_sequences(entropy, chunks)
    return [Chunk(i, n, seeds[i], spec) for i, n in enumerate(split_runs(runs, chunks))]


def run_chunks(fn: Callable[[Chunk], R], chunks: Sequence[Chunk], backend: Backend,
               progress: Callable[[int], None] | None = None) -> list[R]:
    """Run ``fn`` on every chunk and return the results in chunk order.

    Args:
        fn: A module-level function (it is pickled to worker processes).
        chunks: From :func:`make_chunks`.
        backend: Where to run.
        progress: Called with the number of chunks finished so far, after each one.
    """
    if backend.scheduler:
        return _run_dask(fn, chunks, backend.scheduler, backend.connect_timeout, progress)
    workers = min(backend.resolved_workers(), len(chunks))
    if workers <= 1:
        results = []
        for n, chunk in enumerate(chunks, start=1):
            results.append(fn(chunk))
            if progress:
                progress(n)
        return results
    return _run_processes(fn, chunks, workers, progress)


def _run_processes(fn: Callable[[Chunk], R], chunks: Sequence[Chunk], workers: int,
                   progress: Callable[[int], None] | None) -> list[R]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawn, not fork: forking a process that may hold threads (Rich, Dask, a test runner) can
    # deadlock, and spawn behaves the same on every platform.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(fn, chunk): chunk.index for chunk in chunks}
        done: dict[int, R] = {}
        for future in as_completed(futures):
            done[futures[future]] = future.result()
            if progress:
                progress(len(done))
    return [done[chunk.index] for chunk in chunks]


def _run_dask(fn: Callable[[Chunk], R], chunks: Sequence[Chunk], address: str, timeout: float,
              progress: Callable[[int], None] | None) -> list[R]:
    try:
        # Imported by name and used as Any: the cluster extra may be absent (and distributed is
        # not fully typed); its three calls below are checked by the backend tests.
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise MalformedInputError(
            "--scheduler needs dask.distributed, which is not installed (the optional "
            "'cluster' extra)",
            fix="Install it with `uv sync --extra cluster` (or `pip install "
                "'rallypoint[cluster]'`), or drop --scheduler to run on this machine.") from None
    _check_address(address)
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise MalformedInputError(
            f"cannot reach the Dask scheduler at {address!r}: {exc}",
            fix="Start `dask scheduler` there, or drop --scheduler.") from None
    with client:
        futures = client.map(fn, list(chunks), pure=False)
        finished = distributed.as_completed(futures, loop=client.loop)
        for n, _ in enumerate(finished, start=1):
            if progress:
                progress(n)
        results: list[R] = client.gather(futures)
    return results


def _check_address(address: str) -> None:
    # A malformed address must fail here: a Client that fails half-built hangs in its destructor.
    addressing: Any = importlib.import_module("distributed.comm.addressing")
    try:
        scheme, location = addressing.parse_address(address)
        if scheme in ("tcp", "tls", "ws", "wss", "ucx"):
            addressing.parse_host_port(location)
    except ValueError as exc:
        raise MalformedInputError(f"--scheduler {address!r} is not a Dask address ({exc})",
                                  fix="Give it like tcp://10.0.0.5:8786.") from None


def concat(parts: Sequence[Mapping[str, np.ndarray[Any, Any]]]) -> dict[str, np.ndarray[Any, Any]]:
    """Join per-chunk arrays (first axis = runs) in chunk order."""
    if not parts:
        return {}
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
