"""Simulation results: raw per-run arrays, summary rows, the seed that made them, CSV and JSON;
and the side-by-side comparison of two variants with the difference and its uncertainty.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rallypoint.lab.rollers import BIT_GENERATOR, numpy_version

FloatArray = npt.NDArray[np.float64]
Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile (the runs are many; a t quantile would change nothing)."""


@dataclass
class SimResult:
    """What one simulation run produced.

    Attributes:
        simulation: Which simulation (``"tcs"``, ``"platoon"`` …).
        parameters: Everything that determines the run besides the seed.
        entropy: The root ``SeedSequence`` entropy (``--seed``, or drawn and logged).
        chunks: The fixed chunk count the root was spawned into.
        metrics: Per-run values, one array of length ``runs`` per metric (NaN = not observed,
            e.g. no implementation within the turns simulated).
        series: Per-run, per-step values (runs × steps), e.g. fit tanks by day.
        exact: Exact values to set beside the sample (a ruleset's exact odds tables).
        notes: Caveats printed with the result.
        numpy: numpy version (its streams are not promised stable across versions).
    """

    simulation: str
    parameters: dict[str, Any]
    entropy: int
    chunks: int
    metrics: dict[str, FloatArray]
    series: dict[str, FloatArray] = field(default_factory=dict)
    exact: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    numpy: str = field(default_factory=numpy_version)

    @property
    def runs(self) -> int:
        """Number of runs."""
        first = next(iter(self.metrics.values()), None)
        return 0 if first is None else len(first)

    def seed_info(self) -> dict[str, Any]:
        """How to repeat this run exactly."""
        return {"entropy": self.entropy, "chunks": self.chunks, "bit_generator": BIT_GENERATOR,
                "numpy": self.numpy,
                "scheme": "SeedSequence(entropy).spawn(chunks); chunk i rolls with "
                          "Generator(PCG64DXSM(child i))"}

    def summary(self) -> list[dict[str, Any]]:
        """One row per metric: n, mean, sd, se, p10, median, p90, min, max."""
        return [summarise(name, values) for name, values in self.metrics.items()]

    def histograms(self, limit: int = 60) -> dict[str, dict[str, int]]:
        """Counts per value for whole-number metrics with at most ``limit`` distinct values."""
        found: dict[str, dict[str, int]] = {}
        for name, values in self.metrics.items():
            seen = values[~np.isnan(values)]
            if not len(seen) or not np.all(seen == np.round(seen)):
                continue
            keys, counts = np.unique(seen.astype(np.int64), return_counts=True)
            if len(keys) <= limit:
                found[name] = {str(int(k)): int(c) for k, c in zip(keys, counts, strict=True)}
        return found

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form: parameters, seed, summary rows, histograms, exact values."""
        result: dict[str, Any] = {
            "simulation": self.simulation, "runs": self.runs, "parameters": self.parameters,
            "seed": self.seed_info(), "summary": self.summary(), "histograms": self.histograms()}
        if self.series:
            result["series"] = {name: series_summary(values)
                                for name, values in self.series.items()}
        if self.exact:
            result["exact"] = self.exact
        if self.notes:
            result["notes"] = self.notes
        return result

    def write_csv(self, path: Path) -> list[Path]:
        """Write the per-run metrics (one row per run) to ``path``; with series, also
        ``<stem>.steps.csv`` in long form (run, step, one column per series).

        Each file starts with ``#`` comment lines giving the simulation, parameters, entropy and
        numpy version (``pandas.read_csv(path, comment="#")`` reads it).
        """
        written = [path]
        with path.open("w", newline="", encoding="utf-8") as f:
            self._header(f)
            writer = csv.writer(f)
            names = list(self.metrics)
            writer.writerow(["run", *names])
            for i in range(self.runs):
                writer.writerow([i, *(_cell(self.metrics[n][i]) for n in names)])
        if self.series:
            steps_path = path.with_name(f"{path.stem}.steps{path.suffix or '.csv'}")
            with steps_path.open("w", newline="", encoding="utf-8") as f:
                self._header(f)
                writer = csv.writer(f)
                names = list(self.series)
                width = next(iter(self.series.values())).shape[1]
                writer.writerow(["run", "step", *names])
                for i in range(self.runs):
                    for step in range(width):
                        writer.writerow([i, step + 1,
                                         *(_cell(self.series[n][i, step]) for n in names)])
            written.append(steps_path)
        return written

    def _header(self, f: Any) -> None:
        f.write(f"# rallypoint simulate {self.simulation}\n")
        f.write(f"# parameters: {json.dumps(self.parameters, sort_keys=True, default=str)}\n")
        f.write(f"# seed: {json.dumps(self.seed_info(), sort_keys=True)}\n")


def _cell(value: float) -> str:
    if math.isnan(value):
        return ""
    return str(int(value)) if value == int(value) else f"{value:.6g}"


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 6)


def summarise(name: str, values: FloatArray) -> dict[str, Any]:
    """Summary row of one metric (NaN values are left out and counted as ``missing``)."""
    seen = values[~np.isnan(values)]
    n = len(seen)
    row: dict[str, Any] = {"metric": name, "n": n, "missing": len(values) - n}
    if not n:
        return {**row, **dict.fromkeys(("mean", "sd", "se", "p10", "median", "p90", "min",
                                        "max"))}
    sd = float(np.std(seen, ddof=1)) if n > 1 else 0.0
    p10, median, p90 = (float(q) for q in np.percentile(seen, [10, 50, 90]))
    return {**row, "mean": _clean(float(np.mean(seen))), "sd": _clean(sd),
            "se": _clean(sd / math.sqrt(n)), "p10": _clean(p10), "median": _clean(median),
            "p90": _clean(p90), "min": _clean(float(seen.min())), "max": _clean(float(seen.max()))}


def series_summary(values: FloatArray) -> dict[str, list[float | None]]:
    """Per step: the 10 %, 50 % and 90 % points across runs, and the mean (for fan charts)."""
    p10, p50, p90 = np.nanpercentile(values, [10, 50, 90], axis=0)
    mean = np.nanmean(values, axis=0)
    return {"p10": [_clean(x) for x in p10], "median": [_clean(x) for x in p50],
            "p90": [_clean(x) for x in p90], "mean": [_clean(x) for x in mean]}


@dataclass(frozen=True)
class Difference:
    """``B − A`` for one metric, with its standard error and 95 % interval.

    Attributes:
        paired: True when the two variants ran with the same seed and run count: run ``i`` of
            each used the same chunk seed (common random numbers), so the SE is that of the
            paired differences, ``sd(b − a) / sqrt(n)``. Otherwise the variants are independent
            and the SE is ``sqrt(var_a/n_a + var_b/n_b)``.
    """

    metric: str
    mean_a: float
    mean_b: float
    diff: float
    se: float
    low: float
    high: float
    n: int
    paired: bool

    def to_json(self) -> dict[str, Any]:
        """JSON row."""
        return {"metric": self.metric, "mean_a": _clean(self.mean_a),
                "mean_b": _clean(self.mean_b), "diff": _clean(self.diff), "se": _clean(self.se),
                "ci95": [_clean(self.low), _clean(self.high)], "n": self.n,
                "paired": self.paired}


def difference(metric: str, a: FloatArray, b: FloatArray, paired: bool) -> Difference:
    """Mean of ``b`` minus mean of ``a``, its standard error and normal 95 % interval.

    Paired: runs where either value is NaN are dropped from both. Unpaired: NaNs are dropped
    from each side on its own.
    """
    if paired:
        keep = ~(np.isnan(a) | np.isnan(b))
        a, b = a[keep], b[keep]
        d = b - a
        n = len(d)
        se = float(np.std(d, ddof=1)) / math.sqrt(n) if n > 1 else math.nan
        mean_a = float(np.mean(a)) if n else math.nan
        mean_b = float(np.mean(b)) if n else math.nan
    else:
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        n = min(len(a), len(b))
        mean_a = float(np.mean(a)) if len(a) else math.nan
        mean_b = float(np.mean(b)) if len(b) else math.nan
        var_a = float(np.var(a, ddof=1)) / len(a) if len(a) > 1 else math.nan
        var_b = float(np.var(b, ddof=1)) / len(b) if len(b) > 1 else math.nan
        se = math.sqrt(var_a + var_b)
    diff = mean_b - mean_a
    return Difference(metric, mean_a, mean_b, diff, se, diff - Z95 * se, diff + Z95 * se, n,
                      paired)


@dataclass(frozen=True)
class Comparison:
    """The same simulation under two parameter sets, side by side."""

    label_a: str
    label_b: str
    a: SimResult
    b: SimResult
    rows: tuple[Difference, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON: both variants in full and the differences."""
        return {"a": {"label": self.label_a, **self.a.to_json()},
                "b": {"label": self.label_b, **self.b.to_json()},
                "difference": [r.to_json() for r in self.rows]}


def compare(a: SimResult, b: SimResult, label_a: str = "A", label_b: str = "B",
            metrics: Sequence[str] | None = None) -> Comparison:
    """Compare every metric the two results share (paired when they share seed and runs)."""
    paired = a.entropy == b.entropy and a.runs == b.runs and a.chunks == b.chunks
    names = [m for m in (metrics or a.metrics) if m in b.metrics]
    rows = tuple(difference(m, a.metrics[m], b.metrics[m], paired) for m in names)
    return Comparison(label_a, label_b, a, b, rows)


def label(overrides: Mapping[str, Any]) -> str:
    """``"odd_pile_limit=ceil"``, ``"recovery_table.inf=5,4,3,2,1"``, or ``"defaults"``."""
    def text(v: Any) -> str:
        return ",".join(map(str, v)) if isinstance(v, list) else str(v)

    return ", ".join(f"{k}={text(v)}" for k, v in overrides.items()) or "defaults"


def as_float(values: Sequence[float] | npt.NDArray[Any]) -> FloatArray:
    """A float64 array (NaN allowed) from any numbers."""
    return np.asarray(values, dtype=np.float64)


@dataclass(frozen=True)
class Sweep:
    """The same simulation over a grid of variants, each against the first (the baseline).

    Attributes:
        labels: One label per variant, the baseline first.
        results: One result per variant, in label order.
        rows: For every variant after the baseline, ``B − baseline`` per metric (paired when the
            variants share seed, runs and chunks, as a sweep's always do).
    """

    labels: tuple[str, ...]
    results: tuple[SimResult, ...]
    rows: dict[str, tuple[Difference, ...]]

    def to_json(self) -> dict[str, Any]:
        """JSON: every variant in full, and each one's differences to the baseline."""
        return {"baseline": self.labels[0],
                "variants": [{"label": lb, **r.to_json()}
                             for lb, r in zip(self.labels, self.results, strict=True)],
                "difference_to_baseline": {lb: [d.to_json() for d in rows]
                                           for lb, rows in self.rows.items()}}


def sweep(results: Sequence[SimResult], labels: Sequence[str]) -> Sweep:
    """Every variant compared with the first, metric by metric."""
    base = results[0]
    rows = {lb: compare(base, r, labels[0], lb).rows
            for lb, r in zip(labels[1:], results[1:], strict=True)}
    return Sweep(tuple(labels), tuple(results), rows)


def short_labels(labels: Sequence[str]) -> tuple[list[str], str]:
    """``["a=1, b=x", "a=2, b=x"]`` → ``(["1 · x", "2 · x"], "a · b")``: a sweep's variants by
    their values, the parameter names once (labels of other shapes are kept whole)."""
    parts = [[p.partition("=") for p in lb.split(", ")] for lb in labels]
    names = [n for n, _, _ in parts[0]]
    if all([n for n, _, _ in p] == names and all(sep for _, sep, _ in p) for p in parts):
        return [" · ".join(v for _, _, v in p) for p in parts], " · ".join(names)
    return list(labels), "variant"
