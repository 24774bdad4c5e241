"""Seeds, chunks and backends: the same seed gives identical results whatever runs the chunks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from rallypoint.core.errors import MalformedInputError
from rallypoint.dice import D6, D66, TWO_D6, ChanceNode
from rallypoint.lab.backend import Backend, Chunk, make_chunks, run_chunks, split_runs
from rallypoint.lab.results import SimResult
from rallypoint.lab.rollers import (
    NumpyRoller,
    chunk_sequences,
    entropy_of,
    generator,
    natural_values,
    root_sequence,
)
from rallypoint.rulesets.platoon.front.lab_setup import PlatoonSpec
from rallypoint.rulesets.platoon.front.lab_setup import scenario_path as platoon_scenario
from rallypoint.rulesets.platoon.front.lab_sim import simulate_platoon
from rallypoint.rulesets.squares.front.lab_sim import ChainSpec, simulate_chains
from rallypoint.rulesets.tcs.front.lab_sim import (
    RestSpec,
    scenario_path,
    simulate_fo,
    simulate_rest,
)


def same(a: SimResult, b: SimResult) -> bool:
    """Identical per-run values (NaN equal to NaN) and series."""
    if a.metrics.keys() != b.metrics.keys() or a.series.keys() != b.series.keys():
        return False
    pairs = [(a.metrics[k], b.metrics[k]) for k in a.metrics]
    pairs += [(a.series[k], b.series[k]) for k in a.series]
    return all(np.array_equal(x, y, equal_nan=True) for x, y in pairs)


def test_split_runs_is_even_and_fixed() -> None:
    assert split_runs(10, 4) == [3, 3, 2, 2]
    assert split_runs(3, 8) == [1, 1, 1]
    assert sum(split_runs(1001, 32)) == 1001
    with pytest.raises(MalformedInputError):
        split_runs(0, 4)
    with pytest.raises(MalformedInputError):
        split_runs(5, 0)


def test_chunk_seeds_are_spawned_children_in_order() -> None:
    chunks = make_chunks("spec", runs=5, entropy=42, chunks=8)
    assert [c.runs for c in chunks] == [1, 1, 1, 1, 1]
    children = chunk_sequences(42, 8)
    for chunk, child in zip(chunks, children, strict=False):
        assert chunk.seed.entropy == 42
        assert chunk.seed.spawn_key == child.spawn_key == (chunk.index,)


def test_fresh_entropy_is_logged_and_repeatable() -> None:
    entropy = entropy_of(root_sequence(None))
    assert entropy > 0
    a = generator(chunk_sequences(entropy, 2)[1]).integers(0, 1 << 30, 5)
    b = generator(chunk_sequences(entropy, 2)[1]).integers(0, 1 << 30, 5)
    assert a.tolist() == b.tolist()
    with pytest.raises(MalformedInputError):
        root_sequence(-1)


def test_numpy_roller_and_natural_values_read_dice_like_the_rules() -> None:
    roller = NumpyRoller(generator(root_sequence(3)))
    faces = [roller.faces(ChanceNode("t", TWO_D6)) for _ in range(500)]
    assert all(len(f) == 2 and all(1 <= x <= 6 for x in f) for f in faces)
    assert {x for f in faces for x in f} == set(range(1, 7))
    gen = generator(root_sequence(4))
    d66 = natural_values(gen, D66, (200, 3))
    assert d66.shape == (200, 3)
    assert set(np.unique(d66 // 10)) == set(range(1, 7)) == set(np.unique(d66 % 10))
    assert set(np.unique(natural_values(gen, TWO_D6, 2000))) == set(range(2, 13))
    assert set(np.unique(natural_values(gen, D6, 500))) == set(range(1, 7))


def test_same_seed_same_results_different_seed_different() -> None:
    spec = RestSpec(str(scenario_path("example1")))
    a = simulate_rest(spec, 24, 5, 6, Backend(workers=1))
    b = simulate_rest(spec, 24, 5, 6, Backend(workers=1))
    c = simulate_rest(spec, 24, 6, 6, Backend(workers=1))
    assert same(a, b)
    assert not same(a, c)
    assert a.entropy == 5 and a.chunks == 6 and a.numpy == np.__version__


def test_chunk_results_come_back_in_chunk_order() -> None:
    chunks = make_chunks(None, runs=6, entropy=1, chunks=6)
    seen: list[int] = []
    assert run_chunks(_index, chunks, Backend(workers=1), progress=seen.append) == list(range(6))
    assert seen == [1, 2, 3, 4, 5, 6]


def _index(chunk: Chunk) -> int:
    return chunk.index


def test_local_processes_give_the_in_process_results() -> None:
    spec = RestSpec(str(scenario_path("example2")))
    alone = simulate_rest(spec, 16, 8, 4, Backend(workers=1))
    pooled = simulate_rest(spec, 16, 8, 4, Backend(workers=2))
    assert same(alone, pooled)
    assert Backend(workers=2).describe() == "2 local processes"
    assert Backend(workers=1).describe() == "in-process"
    with pytest.raises(MalformedInputError):
        Backend(workers=0).resolved_workers()


# Worker *processes* on a loaded 2-core CI machine have once missed Dask's start-up timeout; the
# threaded cluster exercises the same scheduler, TCP comms and serialisation, so CI runs that and
# RALLYPOINT_DASK_PROCESSES=1 adds the process-based cluster.
_PROCESSES = pytest.param(True, id="processes", marks=pytest.mark.skipif(
    not os.environ.get("RALLYPOINT_DASK_PROCESSES"),
    reason="set RALLYPOINT_DASK_PROCESSES=1 to test a process-based LocalCluster"))


@pytest.fixture(scope="module", params=[pytest.param(False, id="threads"), _PROCESSES])
def cluster(request: pytest.FixtureRequest) -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=request.param, threads_per_worker=1,
                                  dashboard_address=":0") as local:
        yield str(local.scheduler_address)


def test_dask_local_cluster_gives_the_in_process_results(cluster: str) -> None:
    dask = Backend(scheduler=cluster)
    here = Backend(workers=1)
    spec = RestSpec(str(scenario_path("example1")), parameters={"odd_pile_limit": "ceil"})
    assert same(simulate_rest(spec, 20, 13, 5, here), simulate_rest(spec, 20, 13, 5, dask))
    assert same(simulate_fo(11, 5000, 13, 5, here), simulate_fo(11, 5000, 13, 5, dask))
    chains = ChainSpec(modifier=-1)
    assert same(simulate_chains(chains, 3000, 13, 5, here),
                simulate_chains(chains, 3000, 13, 5, dask))
    platoon = PlatoonSpec(str(platoon_scenario(None)), days=6)
    assert same(simulate_platoon(platoon, 4, 13, 2, here),
                simulate_platoon(platoon, 4, 13, 2, dask))
    assert dask.describe().startswith("dask ")


def test_platoon_engines_give_the_same_results_in_process_and_on_local_processes() -> None:
    for engine in ("fast", "rules"):
        platoon = PlatoonSpec(str(platoon_scenario(None)), days=8, intensity=3, engine=engine)
        assert same(simulate_platoon(platoon, 6, 17, 3, Backend(workers=1)),
                    simulate_platoon(platoon, 6, 17, 3, Backend(workers=2)))


def test_scheduler_without_the_cluster_extra_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    spec = RestSpec(str(scenario_path("example1")))
    with pytest.raises(MalformedInputError) as caught:
        simulate_rest(spec, 2, 1, 1, Backend(scheduler="tcp://127.0.0.1:8786"))
    assert "rallypoint[cluster]" in (caught.value.fix or "")


def test_bad_scheduler_address_is_refused() -> None:
    pytest.importorskip("distributed")
    spec = RestSpec(str(scenario_path("example1")))
    with pytest.raises(MalformedInputError, match="not a Dask address"):
        simulate_rest(spec, 2, 1, 1, Backend(scheduler="nonsense"))


def test_the_cli_imports_no_heavy_module_until_a_command_runs(tmp_path: Path) -> None:
    # The CLI must stay fast: the lab is imported lazily, never by `rallypoint --help`.
    import subprocess
    import sys

    code = ("import sys, rallypoint.cli.main; "
            "print(sorted(m for m in ('numpy', 'matplotlib', 'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path)
    assert out.stdout.strip() == "[]"
