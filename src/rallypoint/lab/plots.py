"""Plots of simulation results: histograms beside exact laws, fan charts over time, variant
comparisons and sweeps.

matplotlib is imported inside each function and drives the Agg (file-only) canvas through its
object API (``Figure``, no ``pyplot``): no display is needed, no global figure state is kept,
and ``rallypoint --help`` never pays for the import. The format follows the file's suffix
(``.png`` or ``.svg``).

Layout rules, from looking at every figure: one legend per figure, below the panels (never over
an axis label); titles wrapped to the figure's width; per-metric panels for anything with units
(a means panel never mixes men, days and points); labels of many variants on a horizontal axis
written as values only, with the parameter names once in the axis label.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rallypoint.core.errors import MalformedInputError
from rallypoint.lab.results import Z95, Comparison, FloatArray, SimResult, Sweep, short_labels

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg")
MAX_BARS = 80
"""Whole-number metrics get one bar per value up to this many values; the rest of a long tail
is gathered into the last bar."""


@dataclass(frozen=True)
class Layout:
    """How a figure's panels are laid out, in inches.

    A picture shown in a page is scaled to the page's width, and its text with it: the text
    reads at ``points × shown width / (figure width × 72)``. A file for the desk keeps three
    panels a row; the web asks for fewer, narrower panels so its text stays 11 px or more.
    """

    columns: int = 3
    width: float = 4.2
    """Of one panel."""
    height: float = 3.2
    """Of one panel."""
    least: float = 6.4
    """The figure's least width (a one-panel file still holds its title and legend)."""


DESK = Layout()
"""A file written by the lab's commands."""
WEB_WIDE = Layout(columns=2, width=3.2, height=2.5, least=0.0)
"""A web page at a desk (shown up to 44rem = 704 px wide: 10 pt text reads at 15 px)."""
WEB_NARROW = Layout(columns=1, width=3.4, height=2.4, least=0.0)
"""A web page on a phone (about 324 px of a 360 px screen: 10 pt text reads at 13 px)."""


def _figure(panels: int, width: float = 4.2, height: float = 3.2,
            columns: int = 3, least: float = 6.4) -> tuple[Figure, list[Axes]]:
    from matplotlib.figure import Figure

    columns = min(panels, columns)
    rows = (panels + columns - 1) // columns
    fig = Figure(figsize=(max(least, width * columns), height * rows + 0.6), layout="constrained")
    axes = [fig.add_subplot(rows, columns, i + 1) for i in range(panels)]
    return fig, axes


def _title(fig: Figure, text: str) -> None:
    """A title wrapped to the figure's width (about 9 characters per inch at this size)."""
    width = int(fig.get_figwidth() * 9)
    fig.suptitle("\n".join(textwrap.wrap(text, max(30, width))), fontsize="medium")


def _legend(fig: Figure, axes: Sequence[Axes]) -> None:
    """One legend for the figure, below the panels: every distinct entry of every panel."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(text, handle)
    handles, labels = list(seen.values()), list(seen)
    if handles:
        # As many columns as fit the widest entry (about 0.075 inch a character), else one
        # entry per row: a legend is never cut at the figure's edge.
        entry = max(len(lb) for lb in labels) * 0.075 + 0.7
        fit = max(1, int(fig.get_figwidth() // entry))
        fig.legend(handles, labels, loc="outside lower center",
                   ncols=min(len(handles), fit), fontsize="small", frameon=False)


def _save(fig: Figure, path: Path) -> Path:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise MalformedInputError(f"cannot plot to {path.name!r}",
                                  fix="Give a file ending in .png or .svg.")
    # No folder is made: a missing one is a typo (the command line refuses it before running).
    # No timestamp in SVG metadata: the same run writes the same file.
    metadata: dict[str, Any] = {"Date": None} if suffix == ".svg" else {}
    fig.savefig(path, format=suffix[1:], dpi=110, metadata=metadata)
    return path


def _bins(values: Sequence[FloatArray]) -> tuple[FloatArray, float | None]:
    """Bin edges, and the value from which a long whole-number tail is gathered (or None)."""
    seen = np.concatenate([v[~np.isnan(v)] for v in values]) if values else np.array([0.0])
    if not len(seen):
        return np.array([-0.5, 0.5]), None
    low, high = float(seen.min()), float(seen.max())
    if np.all(seen == np.round(seen)):
        # Whole numbers: one bar per value, centred on it; past MAX_BARS values the tail
        # beyond the 99th percentile goes in the last bar.
        if high - low <= MAX_BARS:
            return np.arange(low - 0.5, high + 1.5, 1.0), None
        top = min(max(float(np.floor(np.percentile(seen, 99))), low + 10), low + MAX_BARS)
        return np.arange(low - 0.5, top + 1.5, 1.0), top
    return np.linspace(low, high if high > low else low + 1, 31), None


def histograms(path: Path, data: Mapping[str, Mapping[str, FloatArray]],
               metrics: Sequence[str], title: str,
               exact: Mapping[str, Mapping[float, float]] | None = None,
               exact_by_variant: Mapping[str, Mapping[str, Mapping[float, float]]] | None = None,
               layout: Layout = DESK) -> Path:
    """One histogram per metric, each variant drawn over the others as a share of its runs,
    with the exact law as dots where one is known.

    Args:
        path: ``.png`` or ``.svg`` file to write.
        data: Variant label → metric → per-run values (NaN left out).
        metrics: Which metrics, in panel order.
        title: Figure title.
        exact: Metric → {value: exact probability}, drawn as dots over the bars.
        exact_by_variant: Variant label → metric → exact law, dots in the variant's colour.
        layout: The panels' grid and size (:data:`WEB_WIDE` and :data:`WEB_NARROW` for a page).
    """
    fig, axes = _figure(len(metrics), layout.width, layout.height, layout.columns, layout.least)
    for ax, metric in zip(axes, metrics, strict=True):
        series = [variant[metric] for variant in data.values()]
        bins, tail = _bins(series)
        for name, values in zip(data, series, strict=True):
            seen = values[~np.isnan(values)]
            if not len(seen):
                continue
            if tail is not None:
                seen = np.minimum(seen, tail)
            weights = np.full(len(seen), 1.0 / len(values))
            if len(data) == 1:
                ax.hist(seen, bins=list(bins), weights=weights, alpha=0.85,
                        label=f"{name} (n={len(values):,})", histtype="stepfilled")
                continue
            # Several variants: light fills under outlines in each variant's own dashes, so a
            # variant equal to another is still seen (a filled bar would hide the one beneath).
            n = list(data).index(name)
            ax.hist(seen, bins=list(bins), weights=weights, alpha=0.25, color=f"C{n}",
                    histtype="stepfilled")
            ax.hist(seen, bins=list(bins), weights=weights, color=f"C{n}", histtype="step",
                    linewidth=1.4, linestyle=LINESTYLES[n % len(LINESTYLES)],
                    label=f"{name} (n={len(values):,})")
        if exact and metric in exact:
            xs = [x for x in sorted(exact[metric]) if tail is None or x < tail]
            ax.plot(xs, [exact[metric][x] for x in xs], "o", color="black", markersize=3,
                    label="exact")
        for n, name in enumerate(data):
            law = (exact_by_variant or {}).get(name, {}).get(metric)
            if law:
                xs = [x for x in sorted(law) if tail is None or x < tail]
                # Each variant's dots its own shape, nudged sideways: equal laws show both.
                shift = (n - (len(data) - 1) / 2) * 0.3 * float(bins[1] - bins[0])
                ax.plot([x + shift for x in xs], [law[x] for x in xs],
                        MARKERS[n % len(MARKERS)], color=f"C{n}", markersize=3.5,
                        markeredgecolor="black", markeredgewidth=0.4, label=f"{name}: exact")
        ax.set_title(metric.replace("_", " ") + (f" (last bar: ≥ {tail:g})" if tail else ""),
                     fontsize="medium")
        ax.set_ylabel("share of runs")
        if bins[1] - bins[0] == 1.0:
            from matplotlib.ticker import MaxNLocator

            centres = bins[:-1] + 0.5
            if len(centres) <= 12:
                ax.set_xticks(centres)  # a few whole values: each one labelled
            else:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _legend(fig, axes)
    _title(fig, title)
    return _save(fig, path)


LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


def series_style(n: int, count: int, every: int = 4) -> dict[str, Any]:
    """Line style, marker and marker spacing of the ``n``-th of ``count`` series, so series
    that coincide are still told apart, in colour or not: each has its own dashes and marker,
    and the markers of series ``n`` sit ``n`` steps further on (two equal lines show both)."""
    spacing = max(every, count)
    return {"linestyle": LINESTYLES[n % len(LINESTYLES)], "marker": MARKERS[n % len(MARKERS)],
            "markevery": (n % spacing, spacing)}


UNITS = {"fit_tanks": "tanks", "mean_fatigue": "fatigue (0–100)",
         "max_fatigue": "fatigue (0–100)", "mean_cohesion": "cohesion (0–100)",
         "morale": "morale (0–100)"}


def fan_chart(path: Path, variants: Mapping[str, Mapping[str, FloatArray]], title: str,
              xlabel: str = "day") -> Path:
    """For each quantity (runs × steps), each variant's mean over runs and its 10–90 % band,
    by step; the variants overlaid in one panel per quantity."""
    names = list(next(iter(variants.values())))
    fig, axes = _figure(len(names), width=5.0, columns=2)
    for ax, name in zip(axes, names, strict=True):
        for n, (label, series) in enumerate(variants.items()):
            values = series[name]
            steps = np.arange(1, values.shape[1] + 1)
            p10, p90 = np.nanpercentile(values, [10, 90], axis=0)
            color = f"C{n}"
            style = series_style(n, len(variants))
            ax.fill_between(steps, p10, p90, alpha=0.12, color=color, linewidth=0)
            # Band edges in the variant's own dashes: identical bands still show every variant.
            for edge in (p10, p90):
                ax.plot(steps, edge, color=color, linewidth=0.7, alpha=0.8,
                        linestyle=style["linestyle"])
            # The mean, not the median: whole-number quantities (fit tanks) have a median that
            # jumps between values and hides a change of a few percent.
            ax.plot(steps, np.nanmean(values, axis=0), color=color, markersize=4,
                    label=f"{label}: mean, 10–90 % band", **style)
        ax.set_title(name.replace("_", " "), fontsize="medium")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(UNITS.get(name, name.replace("_", " ")))
    _legend(fig, axes)
    _title(fig, title)
    return _save(fig, path)


def comparison_bars(path: Path, comparison: Comparison,
                    metrics: Sequence[str] | None = None) -> Path:
    """Per metric (one row each, its name on the left): B − A with its 95 % interval, in the
    metric's own units, and both means written beside it."""
    rows = [r for r in comparison.rows if metrics is None or r.metric in metrics]
    rows = [r for r in rows if not (np.isnan(r.mean_a) or np.isnan(r.mean_b))]
    fig, axes = _figure(len(rows), width=3.6, height=2.0, columns=3)
    for ax, r in zip(axes, rows, strict=True):
        ax.errorbar([r.diff], [0], xerr=[[r.diff - r.low], [r.high - r.diff]], fmt="o",
                    capsize=4, color="C0", label="B − A, 95 % interval")
        ax.axvline(0, color="black", linewidth=0.8)
        span = max(abs(r.low), abs(r.high)) * 1.3
        same = span == 0 or np.isnan(span)
        ax.set_xlim(-1 if same else -span, 1 if same else span)
        ax.locator_params(axis="x", nbins=5)
        ax.set_yticks([])
        ax.set_title(f"{r.metric.replace('_', ' ')}\nA {r.mean_a:.4g} → B {r.mean_b:.4g}"
                     + (" (no difference in any run)" if same else ""), fontsize="small")
    _legend(fig, axes)
    _title(fig, f"B = {comparison.label_b} minus A = {comparison.label_a}, per metric "
                f"({'paired' if rows and rows[0].paired else 'independent'} runs)")
    return _save(fig, path)


def sweep_plot(path: Path, found: Sweep, metrics: Sequence[str], title: str) -> Path:
    """Per metric: every variant's mean with its 95 % interval, and each variant's difference to
    the baseline with the paired 95 % interval (the baseline sits on 0)."""
    ticks, axis = short_labels(found.labels)
    fig, axes = _figure(len(metrics) * 2, width=max(3.4, 0.55 * len(ticks) + 1.5), height=2.6,
                        columns=4 if len(metrics) > 2 else 2)
    x = np.arange(len(ticks))
    for n, metric in enumerate(metrics):
        means, diffs = axes[2 * n], axes[2 * n + 1]
        rows = [_summary(r, metric) for r in found.results]
        means.errorbar(x, [m for m, _ in rows], yerr=[Z95 * se for _, se in rows], fmt="o",
                       capsize=3, label="mean, 95 % interval")
        means.set_title(f"{metric.replace('_', ' ')}: mean", fontsize="small")
        d = [next((r for r in found.rows[lb] if r.metric == metric), None)
             for lb in found.labels[1:]]
        low = [0.0] + [r.diff - r.low if r else 0.0 for r in d]
        high = [0.0] + [r.high - r.diff if r else 0.0 for r in d]
        diffs.errorbar(x, [0.0] + [r.diff if r else np.nan for r in d], yerr=[low, high],
                       fmt="s", color="C1", capsize=3,
                       label="difference to the baseline, paired 95 % interval")
        diffs.axhline(0, color="black", linewidth=0.8)
        diffs.set_title(f"{metric.replace('_', ' ')}: − baseline", fontsize="small")
        for ax in (means, diffs):
            ax.set_xticks(x, ticks, fontsize="small", rotation=30 if len(ticks) > 4 else 0)
            ax.set_xlabel(axis, fontsize="small")
    _legend(fig, axes[:1])
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color="C0"),
               Line2D([], [], marker="s", linestyle="", color="C1")]
    fig.legends.clear()
    fig.legend(handles, ["mean, 95 % interval",
                         f"difference to the baseline ({ticks[0]}), paired 95 % interval"],
               loc="outside lower center", ncols=2, fontsize="small", frameon=False)
    _title(fig, title)
    return _save(fig, path)


def _summary(result: SimResult, metric: str) -> tuple[float, float]:
    values = result.metrics[metric]
    seen = values[~np.isnan(values)]
    if len(seen) < 2:
        return (float(seen.mean()) if len(seen) else np.nan), 0.0
    return float(seen.mean()), float(seen.std(ddof=1) / np.sqrt(len(seen)))


def companion(path: Path, tag: str) -> Path:
    """``fan.png`` → ``fan-compare.png``: a second plot beside the one asked for."""
    return path.with_name(f"{path.stem}-{tag}{path.suffix}")
