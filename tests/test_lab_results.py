"""Results: summary rows, variant comparison arithmetic, CSV files and plots."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rallypoint.core.errors import MalformedInputError
from rallypoint.lab import plots
from rallypoint.lab.results import (
    SimResult,
    as_float,
    compare,
    difference,
    label,
    summarise,
    sweep,
)


def result(values: dict[str, list[float]], entropy: int = 1,
           series: dict[str, np.ndarray] | None = None) -> SimResult:
    return SimResult("test", {"p": 1}, entropy, 4, {k: as_float(v) for k, v in values.items()},
                     series=series or {})


def test_paired_difference_on_a_known_case() -> None:
    a, b = as_float([1, 2, 3, 4]), as_float([2, 4, 6, 8])
    d = difference("x", a, b, paired=True)
    # Differences 1, 2, 3, 4: mean 2.5, sd sqrt(5/3), se sd/2.
    assert d.diff == pytest.approx(2.5)
    assert d.mean_a == pytest.approx(2.5) and d.mean_b == pytest.approx(5.0)
    assert d.se == pytest.approx(math.sqrt(5 / 3) / 2)
    assert d.low == pytest.approx(2.5 - 1.959964 * d.se, abs=1e-6)
    assert d.high == pytest.approx(2.5 + 1.959964 * d.se, abs=1e-6)
    assert d.n == 4 and d.paired


def test_unpaired_difference_on_a_known_case() -> None:
    a, b = as_float([1, 2, 3, 4]), as_float([10, 12, 14])
    d = difference("x", a, b, paired=False)
    # var(a) = 5/3 over 4 runs, var(b) = 4 over 3 runs.
    assert d.diff == pytest.approx(12 - 2.5)
    assert d.se == pytest.approx(math.sqrt(5 / 3 / 4 + 4 / 3))
    assert not d.paired


def test_paired_drops_runs_missing_on_either_side() -> None:
    a, b = as_float([1, math.nan, 3, 5]), as_float([2, 7, math.nan, 9])
    d = difference("x", a, b, paired=True)
    assert d.n == 2 and d.diff == pytest.approx(2.5)


def test_compare_pairs_only_runs_from_the_same_seed() -> None:
    a = result({"x": [1, 2, 3], "only_a": [0, 0, 0]})
    same_seed = compare(a, result({"x": [2, 2, 5]}), "A", "B")
    assert [r.metric for r in same_seed.rows] == ["x"]
    assert same_seed.rows[0].paired
    other_seed = compare(a, result({"x": [2, 2, 5]}, entropy=2))
    assert not other_seed.rows[0].paired
    data = same_seed.to_json()
    assert data["a"]["label"] == "A" and data["difference"][0]["metric"] == "x"
    assert label({}) == "defaults"
    assert label({"odd_pile_limit": "ceil"}) == "odd_pile_limit=ceil"


def test_summary_rows_leave_out_missing_values() -> None:
    row = summarise("t", as_float([1, 2, math.nan, 3]))
    assert row["n"] == 3 and row["missing"] == 1
    assert row["mean"] == 2 and row["median"] == 2 and row["min"] == 1 and row["max"] == 3
    assert row["sd"] == 1 and row["se"] == pytest.approx(1 / math.sqrt(3), abs=1e-6)
    empty = summarise("t", as_float([math.nan]))
    assert empty["n"] == 0 and empty["mean"] is None


def test_json_carries_the_seed_and_histograms() -> None:
    data = result({"steps": [1, 2, 2, 4], "share": [0.5, 0.25, 0.5, 0.1]}).to_json()
    assert data["seed"]["entropy"] == 1 and data["seed"]["numpy"] == np.__version__
    assert data["seed"]["bit_generator"] == "PCG64DXSM"
    assert data["histograms"] == {"steps": {"1": 1, "2": 2, "4": 1}}
    json.dumps(data)


def test_csv_files_hold_every_run_and_the_seed(tmp_path: Path) -> None:
    series = {"fit": np.arange(6, dtype=np.float64).reshape(2, 3)}
    r = result({"x": [1, math.nan]}, series=series)
    paths = r.write_csv(tmp_path / "out.csv")
    assert [p.name for p in paths] == ["out.csv", "out.steps.csv"]
    text = paths[0].read_text(encoding="utf-8").splitlines()
    assert text[0] == "# rallypoint simulate test" and '"entropy": 1' in text[2]
    rows = list(csv.reader(line for line in text if not line.startswith("#")))
    assert rows == [["run", "x"], ["0", "1"], ["1", ""]]
    steps = [line for line in paths[1].read_text(encoding="utf-8").splitlines()
             if not line.startswith("#")]
    assert steps[0] == "run,step,fit" and steps[1:] == ["0,1,0", "0,2,1", "0,3,2", "1,1,3",
                                                         "1,2,4", "1,3,5"]


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plots_are_written(tmp_path: Path, suffix: str) -> None:
    gen = np.random.default_rng(0)  # test data only: no rule rolls here
    a = result({"steps": list(gen.integers(1, 6, 200)), "turns": list(gen.normal(5, 2, 200))})
    b = result({"steps": list(gen.integers(2, 7, 200)), "turns": list(gen.normal(6, 2, 200))})
    hist = plots.histograms(tmp_path / f"h{suffix}", {"A": a.metrics, "B": b.metrics},
                            ["steps", "turns"], "test", {"steps": {1.0: 0.2, 2.0: 0.2}})
    fan = plots.fan_chart(tmp_path / f"f{suffix}", {"A": {"fit": gen.normal(3, 1, (50, 30))},
                                                    "B": {"fit": gen.normal(4, 1, (50, 30))}},
                          "fan")
    bars = plots.comparison_bars(tmp_path / f"c{suffix}", compare(a, b))
    swept = plots.sweep_plot(tmp_path / f"s{suffix}", sweep([a, b, a], ["x=1", "x=2", "x=3"]),
                             ["steps", "turns"], "sweep")
    for path in (hist, fan, bars, swept):
        assert path.stat().st_size > 1000
    if suffix == ".png":
        assert hist.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "<svg" in hist.read_text(encoding="utf-8")[:2000]


def test_plot_suffix_is_checked(tmp_path: Path) -> None:
    with pytest.raises(MalformedInputError, match=r"\.png or \.svg"):
        plots.fan_chart(tmp_path / "fan.jpg", {"A": {"fit": np.ones((2, 3))}}, "fan")
    assert plots.companion(Path("a/fan.png"), "compare") == Path("a/fan-compare.png")


def _captured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the plot functions would save (kept open to inspect)."""
    figures: list[Any] = []

    def keep(fig: Any, path: Path) -> Path:
        figures.append(fig)
        return path

    monkeypatch.setattr(plots, "_save", keep)
    return figures


def test_equal_variants_on_a_fan_chart_are_each_still_seen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    figures = _captured(monkeypatch)
    same = np.tile(np.linspace(3.0, 5.0, 30), (20, 1))
    plots.fan_chart(Path("fan.png"), {f"v{n}": {"fit_tanks": same} for n in range(3)}, "fan")
    means = [line for line in figures[0].axes[0].get_lines()
             if not line.get_label().startswith("_")]
    assert len(means) == 3
    assert len({(m.get_linestyle(), m.get_marker()) for m in means}) == 3
    shown = []
    for m in means:
        start, step = m.get_markevery()
        shown.append(set(np.asarray(m.get_xdata())[start::step].tolist()))
    assert all(shown) and not (shown[0] & shown[1] or shown[0] & shown[2] or shown[1] & shown[2]), \
        "every variant's markers sit on days of their own"


def test_equal_variants_on_histograms_keep_their_outlines_and_exact_dots_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    figures = _captured(monkeypatch)
    values = {"turns": np.array([1.0, 2.0, 2.0, 3.0])}
    law = {"turns": {1.0: 0.25, 2.0: 0.5, 3.0: 0.25}}
    plots.histograms(Path("h.png"), {"A": values, "B": values}, ["turns"], "h",
                     exact_by_variant={"A": law, "B": law})
    ax = figures[0].axes[0]
    outlines = [p for p in ax.patches if not p.get_fill()]
    assert len(outlines) == 2 and outlines[0].get_linestyle() != outlines[1].get_linestyle()
    dots = [line for line in ax.get_lines() if line.get_label().endswith(": exact")]
    assert [d.get_marker() for d in dots] == ["o", "s"]
    assert set(dots[0].get_xdata()).isdisjoint(dots[1].get_xdata())
