"""Plots for the report: matplotlib figures rendered to inline SVG text.

Pure functions of already-computed rows; no duckdb here. Every function
returns an ``<svg …>`` string (no XML prolog, fonts as paths, fixed id salt
and no date, so the same data gives the same bytes and the page needs no
font or network).

- ``intervals(labels, est, lo, hi, …)``: one row per label, a dot at the
  estimate and a bar over its 95 % interval, with a dashed reference line
  (0.5 for win rates, 1 for balance, 0 for an advantage).
- ``histograms(series, …)``: step histograms of binned counts
  ``{label: [(lo, hi, count), …]}``, drawn as shares of each series so
  series of different sizes compare.
- ``above(series, …)``: from the same binned counts, the share of each
  series above each bin edge (one minus the cumulative share), with a
  dashed line at one half: where a series crosses it is its median.
"""

from __future__ import annotations

import io

import matplotlib
from matplotlib.figure import Figure

WIDTH_IN = 7.5
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
RC = {"svg.hashsalt": "polsim", "svg.fonttype": "path", "font.size": 9, "axes.spines.top": False,
      "axes.spines.right": False,
      "text.parse_math": False}  # a label is a run's folder or a strategy, drawn as written: 'r$\x$' is no formula


def to_svg(fig: Figure) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _figure(height: float = 3.0) -> Figure:
    with matplotlib.rc_context(RC):
        return Figure(figsize=(WIDTH_IN, height), layout="constrained")


def intervals(labels: list[str], est: list[float], lo: list[float], hi: list[float], xlabel: str,
              ref: float | None = 0.5, percent: bool = True) -> str:
    """Estimates with 95 % interval bars, one row per label (top to bottom)."""
    with matplotlib.rc_context(RC):
        fig = _figure(height=0.9 + 0.32 * len(labels))
        ax = fig.subplots()
        scale = 100.0 if percent else 1.0
        y = list(range(len(labels)))[::-1]
        e = [v * scale for v in est]
        err = [[(v - a) * scale for v, a in zip(est, lo)], [(b - v) * scale for v, b in zip(est, hi)]]
        ax.errorbar(e, y, xerr=err, fmt="o", color=COLOURS[0], ecolor=COLOURS[0], capsize=3, markersize=4)
        if ref is not None:
            ax.axvline(ref * scale, color="0.5", linestyle="--", linewidth=1)
        ax.set_yticks(y, labels)
        ax.set_xlabel(xlabel + (" (%)" if percent else ""))
        ax.grid(axis="x", color="0.9")
        return to_svg(fig)


def contiguous(bins: list[tuple[float, float, int]]) -> tuple[list[float], list[int]]:
    """Equal-width bins with the empty ones between them filled in as zeros."""
    bins = sorted(bins)
    first, width = bins[0][0], bins[0][1] - bins[0][0]
    n = round((bins[-1][0] - first) / width) + 1
    counts = [0] * n
    for lo, _, count in bins:
        counts[round((lo - first) / width)] += count
    return [first + i * width for i in range(n + 1)], counts


def histograms(series: dict[str, list[tuple[float, float, int]]], xlabel: str, ylabel: str = "share of games") -> str:
    """Overlaid step histograms, each normalised to its own total."""
    with matplotlib.rc_context(RC):
        fig = _figure(height=3.0)
        ax = fig.subplots()
        for i, (label, bins) in enumerate(series.items()):
            edges, counts = contiguous(bins)
            total = sum(counts) or 1
            ax.stairs([c / total for c in counts], edges, label=label, color=COLOURS[i % len(COLOURS)],
                      linewidth=1.5, fill=len(series) == 1, alpha=0.85 if len(series) == 1 else 1.0)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", color="0.9")
        if len(series) > 1:
            ax.legend(frameon=False, fontsize=8)
        return to_svg(fig)


def share_above(bins: list[tuple[float, float, int]]) -> tuple[list[float], list[float]]:
    """Bin edges, and at each the share of the counts in the bins from it on (1 at the first, 0 at the last)."""
    edges, counts = contiguous(bins)
    total = sum(counts) or 1
    tail, shares = 0, []
    for c in reversed(counts):
        tail += c
        shares.append(tail / total)
    return edges, shares[::-1] + [0.0]


def above(series: dict[str, list[tuple[float, float, int]]], xlabel: str, ylabel: str) -> str:
    """Share of each series above each bin edge, in per cent, as steps."""
    with matplotlib.rc_context(RC):
        fig = _figure(height=3.0)
        ax = fig.subplots()
        for i, (label, bins) in enumerate(series.items()):
            edges, shares = share_above(bins)
            ax.step(edges, [100.0 * v for v in shares], where="post", label=label,
                    color=COLOURS[i % len(COLOURS)], linewidth=1.5)
        ax.axhline(50.0, color="0.5", linestyle="--", linewidth=1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel + " (%)")
        ax.grid(axis="y", color="0.9")
        if len(series) > 1:
            ax.legend(frameon=False, fontsize=8)
        return to_svg(fig)
