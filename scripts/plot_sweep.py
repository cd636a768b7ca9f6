#!/usr/bin/python3
"""Plots for a design-space sweep: Pareto fronts and the effect of each axis.

Usage: /usr/bin/python3 scripts/plot_sweep.py REPORT [--out PLOTDIR]

REPORT is the summary.csv of `npu report` (or `npu sweep`), or the folder holding it
(columns: docs/sweep.md). Only rows with status `ok` are plotted. Writes into PLOTDIR
(default: the folder of summary.csv, then plots/):

  pareto_<model>.png   latency vs DDR traffic (and latency vs energy when energy_mj is
                       filled), one point per cell (config x strategy), coloured by
                       strategy; `none` (no fusion) hollow grey. Pareto-optimal cells
                       (no other cell is at least as good on both and better on one) are
                       ringed in black and joined by the front; the dashed grey line is
                       the front of the `none` cells alone, so the gap between the two
                       lines is what fusion buys.
  pareto.csv           the Pareto-optimal cells of every plot above
                       (model, objective, hw, strategy, the axis columns, x, y)
  axis_<path>.png      for each sweep axis (a column named by its dotted config path):
                       median speedup over `none` and median DDR traffic saved, per axis
                       value and fused strategy, over every model and every value of the
                       other axes (cells per point in the title, or at each point
                       when it varies); numeric values (also with a size unit, "256 KiB")
                       in increasing order, others in the spec's order

Needs Debian's python3-matplotlib and python3-pandas. Exits 1 with a message naming the
file and the column when a column a plot needs is missing, and when no row is `ok`.
"""
import argparse
import math
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
except ImportError as e:  # pragma: no cover - environment problem
    sys.exit(f"plot_sweep: error: {e}; install with: apt-get install python3-matplotlib python3-pandas")

# The fixed columns of a report's summary.csv (docs/sweep.md); every other column except
# cell_key is a sweep axis.
FIXED_COLUMNS = [
    "model", "hw", "strategy", "status", "ddr_read_mb", "ddr_write_mb", "ddr_total_mb", "latency_ms",
    "cycles", "speedup_vs_none", "ddr_saved_pct", "mac_utilisation", "ddr_bw_utilisation", "energy_mj",
    "host_nodes", "host_mac_pct", "host_time_pct", "plan_sram_bytes", "error", "cell_key", "compulsory_mb",
    "ddr_over_compulsory",
]
PARETO_COLUMNS = ["model", "hw", "strategy", "status", "latency_ms", "ddr_total_mb"]
AXIS_COLUMNS = ["strategy", "status", "speedup_vs_none", "ddr_saved_pct"]
BASELINE = "none"
# Objective pairs: (x column, x label, y column, y label, file-name tag). Both are minimised.
OBJECTIVES = [
    ("ddr_total_mb", "DDR traffic (MB, read + write)", "latency_ms", "latency (ms)", "ddr"),
    ("energy_mj", "energy (mJ)", "latency_ms", "latency (ms)", "energy"),
]


class PlotError(Exception):
    """A problem with the input the user has to fix; main() prints it and exits 1."""


def pareto_mask(points):
    """Which of `points` are Pareto-optimal when both coordinates are minimised.

    points: sequence of (x, y) pairs of floats. Returns a list of bools of the same length:
    True where no other point has x' <= x and y' <= y with at least one strict. Equal points
    are all optimal when one of them is (neither dominates the other). Points with a NaN
    coordinate are never optimal and dominate nothing. O(n log n): sort by (x, y); a point is
    optimal iff its y is below every y seen at a smaller x, or it repeats the last optimal point.
    """
    order = sorted((i for i, (x, y) in enumerate(points) if not (math.isnan(x) or math.isnan(y))),
                   key=lambda i: (points[i][0], points[i][1]))
    mask = [False] * len(points)
    best_y = math.inf
    last = None
    for i in order:
        p = (points[i][0], points[i][1])
        if p[1] < best_y or p == last:
            mask[i] = True
            best_y = p[1]
            last = p
    return mask


def axis_columns(df):
    """The sweep-axis columns of a report: every column not in FIXED_COLUMNS that is a dotted
    config path (section.key, as every axis is), in file order. Other columns an experiment's
    summary carries (earlier_run) are not axes (new-user finding: axis_earlier_run.png)."""
    return [c for c in df.columns if c not in FIXED_COLUMNS and "." in c]


def require(df, columns, source, what):
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise PlotError(f"{source}: missing column(s) {', '.join(missing)} needed for {what}; "
                        "expected the summary.csv of `npu report` or `npu sweep` (columns: docs/sweep.md)")


def load_summary(path):
    """Reads a report's summary.csv (or the folder holding it). Returns (DataFrame, path).

    Every column is read as text first (axis values such as "64 KiB" stay as written), then
    the numeric report columns are converted; empty cells become NaN.
    Raises PlotError when the file is missing, empty or not CSV.
    """
    csv_path = os.path.join(path, "summary.csv") if os.path.isdir(path) else path
    if not os.path.isfile(csv_path):
        raise PlotError(f"{csv_path}: no such file; pass a report folder (npu report DIR --out OUT) or its summary.csv")
    try:
        df = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise PlotError(f"{csv_path}: not a readable CSV ({e})") from None
    numeric = [c for c in FIXED_COLUMNS if c in df.columns and c not in
               ("model", "hw", "strategy", "status", "error", "cell_key")]
    for c in numeric:
        converted = pd.to_numeric(df[c].replace("", float("nan")), errors="coerce")
        bad = df[c][converted.isna() & (df[c] != "")]
        if len(bad):
            raise PlotError(f"{csv_path}: column {c}, data row {bad.index[0] + 1}: '{bad.iloc[0]}' is not a number")
        df[c] = converted
    return df, csv_path


# Size suffixes as docs/config.md accepts them (KiB = 1024 B, KB = 1000 B), for ordering only.
UNIT_FACTORS = {"": 1, "B": 1, "K": 1e3, "KB": 1e3, "KIB": 2**10, "M": 1e6, "MB": 1e6, "MIB": 2**20,
                "G": 1e9, "GB": 1e9, "GIB": 2**30, "T": 1e12, "TB": 1e12, "TIB": 2**40}
NUMBER_WITH_UNIT = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def magnitude(text):
    """The number an axis value stands for ("64 KiB" -> 65536.0, "1e3" -> 1000.0), or None
    when it is not a number with an optional size unit (e.g. "weight_stationary")."""
    m = NUMBER_WITH_UNIT.match(str(text))
    if not m or m.group(2).upper() not in UNIT_FACTORS:
        return None
    return float(m.group(1)) * UNIT_FACTORS[m.group(2).upper()]


def ordered_values(series):
    """Distinct values of an axis column: by magnitude when every value is a number with an
    optional size unit ("256 KiB" before "1 MiB"), else in order of first appearance (the
    sweep plan's order)."""
    values = list(dict.fromkeys(series))
    if all(magnitude(v) is not None for v in values):
        return sorted(values, key=magnitude)
    return values


def pareto_rows(ok, axes):
    """The Pareto-optimal cells per model and objective pair, as a DataFrame with columns
    model, objective, hw, strategy, <axes>, x, y (rows in the report's order)."""
    rows = []
    for model, df in ok.groupby("model", sort=True):
        for xcol, _, ycol, _, tag in OBJECTIVES:
            if xcol not in df.columns or df[xcol].isna().all():
                continue
            mask = pareto_mask(list(zip(df[xcol], df[ycol])))
            for (_, r), keep in zip(df.iterrows(), mask):
                if keep:
                    rows.append({"model": model, "objective": f"{ycol}~{xcol}", "hw": r.hw, "strategy": r.strategy,
                                 **{a: r[a] for a in axes}, "x": r[xcol], "y": r[ycol]})
    return pd.DataFrame(rows, columns=["model", "objective", "hw", "strategy", *axes, "x", "y"])


def axis_effect(ok, axis, metric):
    """Median of `metric` per (axis value, strategy) over the fused strategies' cells.

    Returns a DataFrame indexed by axis value (in ordered_values order) with one column per
    fused strategy (report order), and a second one with the cell counts."""
    fused = ok[ok.strategy != BASELINE]
    values = ordered_values(ok[axis])
    strategies = list(dict.fromkeys(fused.strategy))
    grouped = fused.groupby([axis, "strategy"])[metric]
    med = grouped.median().unstack("strategy").reindex(index=values, columns=strategies)
    count = grouped.count().unstack("strategy").reindex(index=values, columns=strategies).fillna(0).astype(int)
    return med, count


def strategy_styles(strategies):
    cmap = plt.get_cmap("tab10")
    styles, k = {}, 0
    for s in strategies:
        if s == BASELINE:
            styles[s] = dict(marker="o", facecolors="none", edgecolors="#777777", linewidths=1.2)
        else:
            styles[s] = dict(marker="os^Dv<>ph*"[k % 10], color=cmap(k % 10))
            k += 1
    return styles


def front_line(ax, xs, ys, **kw):
    """Draws the staircase through Pareto-optimal points (sorted by x)."""
    pts = sorted(zip(xs, ys))
    if pts:
        ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", **kw)


def short_label(row, axes):
    return ", ".join(str(row[a]) for a in axes) if axes else row.hw


def tied_labels(opt, xcol, ycol, axes):
    """The labels of the cells in `opt` by point (x, y), in order along the front (by x, then
    y): cells tied on both figures share one entry."""
    points = {}
    for _, r in opt.sort_values([xcol, ycol]).iterrows():
        points.setdefault((r[xcol], r[ycol]), []).append(short_label(r, axes))
    return points


def plot_pareto(ok, axes, out_dir):
    written = []
    styles = strategy_styles(list(dict.fromkeys(ok.strategy)))
    for model, df in ok.groupby("model", sort=True):
        panels = [o for o in OBJECTIVES if o[0] in df.columns and not df[o[0]].isna().all()]
        fig, axs = plt.subplots(1, len(panels), figsize=(6.5 * len(panels) + 1.6, 5.2), squeeze=False)
        annotated = False
        for ax, (xcol, xlabel, ycol, ylabel, _) in zip(axs[0], panels):
            d = df.dropna(subset=[xcol, ycol])
            for strat, s in d.groupby("strategy", sort=False):
                # `none` on top: its hollow rings stay visible where a strategy that changed
                # nothing (e.g. conv-act on a network with BN between conv and act) covers it.
                ax.scatter(s[xcol], s[ycol], s=44 if strat == BASELINE else 36, label=strat,
                           zorder=5 if strat == BASELINE else 3, **styles[strat])
            mask = pareto_mask(list(zip(d[xcol], d[ycol])))
            opt = d[mask]
            ax.scatter(opt[xcol], opt[ycol], s=140, facecolors="none", edgecolors="black", linewidths=1.4,
                       zorder=4, label="Pareto-optimal")
            front_line(ax, opt[xcol], opt[ycol], color="black", lw=1.2, zorder=2, label="front (all strategies)")
            base = d[d.strategy == BASELINE]
            if len(base) and len(base) < len(d):
                bmask = pareto_mask(list(zip(base[xcol], base[ycol])))
                front_line(ax, base[xcol][bmask], base[ycol][bmask], color="#777777", lw=1.2, ls="--", zorder=2,
                           label=f"front ({BASELINE} only)")
            if len(opt) <= 12:
                annotated = True
                # Along the front (by x), labels alternate right and left of their point so
                # that neighbours on a tight front do not print over each other; optimal cells
                # tied on both figures share one point and one label ("a / b"), which two labels
                # side by side made look like one belonged to the neighbouring point.
                for k, ((x, y), labels) in enumerate(tied_labels(opt, xcol, ycol, axes).items()):
                    ax.annotate(" / ".join(labels), (x, y), textcoords="offset points",
                                xytext=(8, 4) if k % 2 == 0 else (-8, -10), ha="left" if k % 2 == 0 else "right",
                                fontsize=7, color="#333333")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.set_title(f"{model}: {ylabel.split(' (')[0]} vs {xlabel.split(' (')[0]}\n"
                         f"{len(d)} cells, {int(sum(mask))} Pareto-optimal", fontsize=10)
            ax.grid(True, alpha=0.3)
            ax.margins(0.12)
        handles, labels = axs[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
        if axes and annotated:
            fig.suptitle(f"{model}: labels of Pareto-optimal cells are {', '.join(axes)}", fontsize=9)
        fig.tight_layout(rect=(0, 0, 1 - 1.6 / fig.get_figwidth(), 1))
        path = os.path.join(out_dir, f"pareto_{safe_name(model)}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def plot_axes(ok, axes, out_dir):
    written = []
    if not (ok.strategy != BASELINE).any():
        return written
    styles = strategy_styles(list(dict.fromkeys(ok.strategy)))
    for axis in axes:
        values = ordered_values(ok[axis])
        fig, axs = plt.subplots(1, 2, figsize=(13.6, 4.8))
        counts = set()
        for ax, metric, ylabel, fmt in ((axs[0], "speedup_vs_none", "median speedup over none (x)", "{:.2f}x"),
                                        (axs[1], "ddr_saved_pct", "median DDR traffic saved (%)", "{:.1f}%")):
            med, count = axis_effect(ok, axis, metric)
            counts.update(int(n) for n in count.values.flatten() if n)
            xs = list(range(len(values)))
            for strat in med.columns:
                st = styles[strat]
                ax.plot(xs, med[strat].values, marker=st["marker"], color=st["color"], label=strat)
                if len(values) <= 8:
                    for x, v, n in zip(xs, med[strat].values, count[strat].values):
                        if not math.isnan(v):
                            label = fmt.format(v) + ("" if len(set(count.values.flatten()) - {0}) <= 1 else f" n={n}")
                            ax.annotate(label, (x, v), textcoords="offset points", xytext=(5, 4), fontsize=7,
                                        color=st["color"])
            ax.set_xticks(xs)
            ax.set_xticklabels([str(v) for v in values], rotation=20 if len(values) > 5 else 0)
            ax.set_xlabel(axis)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            ax.margins(x=0.15, y=0.15)
        axs[0].axhline(1.0, color="#777777", lw=0.8, ls="--")
        lo, hi = axs[1].get_ylim()
        axs[1].set_ylim(min(0.0, lo), max(hi, 1.0))  # from 0: a saving's size is not exaggerated
        handles, labels = axs[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
        models = ok[ok.strategy != BASELINE].model.nunique()
        per_point = f"{counts.pop()} cells per point" if len(counts) == 1 else "n = cells per point"
        fig.suptitle(f"effect of {axis}: median over {models} model(s) and the other axes' values ({per_point})",
                     fontsize=11)
        fig.tight_layout(rect=(0, 0, 1 - 1.6 / fig.get_figwidth(), 1))
        path = os.path.join(out_dir, f"axis_{safe_name(axis)}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def run(report, out_dir=None):
    """Writes every plot and pareto.csv for `report`. Returns (written paths, the rows left
    out as "N status, ..." or "" when every row is ok, the axis columns).
    Raises PlotError for missing columns, a missing file or no `ok` rows."""
    df, csv_path = load_summary(report)
    require(df, PARETO_COLUMNS, csv_path, "the Pareto plots")
    axes = axis_columns(df)
    if axes:
        require(df, AXIS_COLUMNS, csv_path, "the axis plots")
    ok = df[df.status == "ok"]
    if ok.empty:
        raise PlotError(f"{csv_path}: no row has status ok ({len(df)} rows); nothing to plot")
    out_dir = out_dir or os.path.join(os.path.dirname(os.path.abspath(csv_path)), "plots")
    os.makedirs(out_dir, exist_ok=True)
    written = plot_pareto(ok, axes, out_dir)
    pareto_csv = os.path.join(out_dir, "pareto.csv")
    pareto_rows(ok, axes).to_csv(pareto_csv, index=False)
    written.append(pareto_csv)
    written += plot_axes(ok, axes, out_dir)
    not_ok = df[df.status != "ok"].status.value_counts()
    return written, ", ".join(f"{n} {status}" for status, n in sorted(not_ok.items())), axes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="summary.csv of `npu report` / `npu sweep`, or its folder")
    ap.add_argument("--out", help="folder for the PNGs and pareto.csv (default: <report folder>/plots)")
    args = ap.parse_args(argv)
    try:
        written, not_ok, axes = run(args.report, args.out)
    except PlotError as e:
        sys.exit(f"plot_sweep: error: {e}")
    for w in written:
        print(w)
    if not axes:
        print("plot_sweep: no sweep-axis columns in the report: no axis_*.png")
    if not_ok:
        print(f"plot_sweep: rows left out of the plots (status not ok): {not_ok}")


if __name__ == "__main__":
    main()
