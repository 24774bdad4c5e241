"""Plots of simulation results: histograms, fan charts over time, variant comparison bars.

matplotlib is imported inside each function and drives the Agg (file-only) canvas through its
object API (``Figure``, no ``pyplot``): no display is needed, no global figure state is kept,
and ``rallypoint --help`` never pays for the import. The format follows the file's suffix
(``.png`` or ``.svg``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rallypoint.core.errors import MalformedInputError
from rallypoint.lab.results import Comparison, FloatArray

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg")


def _figure(panels: int, width: float = 4.2, height: float = 3.2) -> tuple[Figure, list[Axes]]:
    from matplotlib.figure import Figure

    columns = min(panels, 3)
    rows = (panels + columns - 1) // columns
    fig = Figure(figsize=(width * columns, height * rows), layout="constrained")
    axes = [fig.add_subplot(rows, columns, i + 1) for i in range(panels)]
    return fig, axes


def _save(fig: Figure, path: Path) -> Path:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise MalformedInputError(f"cannot plot to {path.name!r}",
                                  fix="Give a file ending in .png or .svg.")
    path.parent.mkdir(parents=True, exist_ok=True)
    # No timestamp in SVG metadata: the same run writes the same file.
    metadata: dict[str, Any] = {"Date": None} if suffix == ".svg" else {}
    fig.savefig(path, format=suffix[1:], dpi=110, metadata=metadata)
    return path


def _bins(values: Sequence[FloatArray]) -> FloatArray:
    seen = np.concatenate([v[~np.isnan(v)] for v in values]) if values else np.array([0.0])
    if not len(seen):
        return np.array([-0.5, 0.5])
    low, high = float(seen.min()), float(seen.max())
    if np.all(seen == np.round(seen)) and high - low <= 80:
        # Whole numbers: one bar per value, centred on it.
        return np.arange(low - 0.5, high + 1.5, 1.0)
    return np.linspace(low, high if high > low else low + 1, 31)


def histograms(path: Path, data: Mapping[str, Mapping[str, FloatArray]],
               metrics: Sequence[str], title: str,
               exact: Mapping[str, Mapping[float, float]] | None = None) -> Path:
    """One histogram per metric, each variant drawn over the others as a share of its runs.

    Args:
        path: ``.png`` or ``.svg`` file to write.
        data: Variant label → metric → per-run values (NaN left out).
        metrics: Which metrics, in panel order.
        title: Figure title.
        exact: Metric → {value: exact probability}, drawn as dots over the bars.
    """
    fig, axes = _figure(len(metrics))
    for ax, metric in zip(axes, metrics, strict=True):
        series = [variant[metric] for variant in data.values()]
        bins = _bins(series)
        for name, values in zip(data, series, strict=True):
            seen = values[~np.isnan(values)]
            if not len(seen):
                continue
            weights = np.full(len(seen), 1.0 / len(values))
            ax.hist(seen, bins=list(bins), weights=weights, alpha=0.55 if len(data) > 1 else 0.85,
                    label=f"{name} (n={len(values)})", histtype="stepfilled")
        if exact and metric in exact:
            xs = sorted(exact[metric])
            ax.plot(xs, [exact[metric][x] for x in xs], "o", color="black", markersize=4,
                    label="exact")
        ax.set_title(metric.replace("_", " "))
        ax.set_ylabel("share of runs")
        ax.legend(fontsize="small")
    fig.suptitle(title)
    return _save(fig, path)


def fan_chart(path: Path, series: Mapping[str, FloatArray], title: str,
              xlabel: str = "day") -> Path:
    """For each quantity (runs × steps): the median over runs and the 10–90 % band, by step."""
    fig, axes = _figure(len(series), width=5.0)
    for ax, (name, values) in zip(axes, series.items(), strict=True):
        steps = np.arange(1, values.shape[1] + 1)
        p10, p50, p90 = np.nanpercentile(values, [10, 50, 90], axis=0)
        ax.fill_between(steps, p10, p90, alpha=0.3, label="10–90 %")
        ax.plot(steps, p50, label="median")
        ax.set_title(name.replace("_", " "))
        ax.set_xlabel(xlabel)
        ax.legend(fontsize="small")
    fig.suptitle(title)
    return _save(fig, path)


def comparison_bars(path: Path, comparison: Comparison,
                    metrics: Sequence[str] | None = None) -> Path:
    """Per metric, the two variants' means side by side, and B − A with its 95 % interval."""
    rows = [r for r in comparison.rows if metrics is None or r.metric in metrics]
    rows = [r for r in rows if not (np.isnan(r.mean_a) or np.isnan(r.mean_b))]
    fig, (means, diffs) = _pair(len(rows))
    x = np.arange(len(rows))
    means.bar(x - 0.2, [r.mean_a for r in rows], 0.4, label=comparison.label_a)
    means.bar(x + 0.2, [r.mean_b for r in rows], 0.4, label=comparison.label_b)
    means.set_xticks(x, [r.metric.replace("_", "\n") for r in rows], fontsize="small")
    means.set_title("means")
    means.legend(fontsize="small")
    errors = np.array([[r.diff - r.low for r in rows], [r.high - r.diff for r in rows]])
    diffs.bar(x, [r.diff for r in rows], 0.5, yerr=np.nan_to_num(errors), capsize=4)
    diffs.axhline(0, color="black", linewidth=0.8)
    diffs.set_xticks(x, [r.metric.replace("_", "\n") for r in rows], fontsize="small")
    diffs.set_title(f"{comparison.label_b} − {comparison.label_a} (95 % interval)")
    fig.suptitle("variant comparison")
    return _save(fig, path)


def _pair(bars: int) -> tuple[Figure, tuple[Axes, Axes]]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(5.0, 1.2 * bars + 2), 3.6), layout="constrained")
    return fig, (fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2))


def companion(path: Path, tag: str) -> Path:
    """``fan.png`` → ``fan-compare.png``: a second plot beside the one asked for."""
    return path.with_name(f"{path.stem}-{tag}{path.suffix}")
