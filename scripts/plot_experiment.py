#!/usr/bin/python3
"""Plots for an `npu experiment` output folder (formats: docs/experiment.md).

Usage: /usr/bin/python3 scripts/plot_experiment.py DIR [--out PLOTDIR]

Writes PNGs into PLOTDIR (default DIR/plots):
  strategies_<model>.png      DDR MB and latency per strategy, one group of bars per hw config
  layers_<run id>.png         per-layer DDR traffic stacked by tensor kind
                              (input, weight, output, intermediate, kv_cache), for every run
  roofline_<model>__<hw>.png  one point per layer, and per depth-first stack (MACs per DDR
                              byte vs achieved MAC/s), for the `none` run and the most fused
                              run, under the config's compute roof, its peak DDR bandwidth
                              roof and, where lower, its sequential-stream roof

DIR may also be a folder `npu report` wrote (its rows name their run folders in `run_dirs`).
Needs Debian's python3-matplotlib and python3-pandas. Exits 1 with a message when DIR is
not an experiment folder.
"""
import argparse
import json
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
except ImportError as e:  # pragma: no cover - environment problem
    sys.exit(f"plot_experiment: error: {e}; install with: apt-get install python3-matplotlib python3-pandas")

KINDS = ["input", "weight", "output", "intermediate", "kv_cache"]
KIND_COLOURS = {"input": "#4C72B0", "weight": "#DD8452", "output": "#55A868", "intermediate": "#C44E52",
                "kv_cache": "#8172B3"}


def wrap_label(text, width=14):
    """Breaks a config name into lines of at most ~width characters at '-', '_' or '.'."""
    lines, line = [], ""
    for part in re.split(r"(?<=[-_.])", text):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join(lines + [line])


def strategy_bars(summary, out_dir):
    """Grouped bars: one group per hw config, one bar per strategy. The figure grows with the
    number of bars (about 0.22 in per bar and 0.5 in per group); with more than 4 configs the
    two panels are stacked; config names are wrapped and rotated; the legend sits outside the
    axes, so it never covers a bar."""
    written = []
    for model, df in summary[summary.status == "ok"].groupby("model", sort=True):
        hws = sorted(df.hw.unique())
        strategies = list(dict.fromkeys(df.strategy))
        panel_w = max(5.0, len(hws) * (0.22 * len(strategies) + 0.5))
        stacked = len(hws) > 4
        if stacked:
            fig, axes = plt.subplots(2, 1, figsize=(panel_w, 8.5))
        else:
            fig, axes = plt.subplots(1, 2, figsize=(2 * panel_w, 4.5))
        width = 0.8 / max(1, len(strategies))
        for si, strat in enumerate(strategies):
            sub = df[df.strategy == strat].set_index("hw")
            xs = [i + si * width for i in range(len(hws))]
            axes[0].bar(xs, [sub.ddr_total_mb.get(h, float("nan")) for h in hws], width, label=strat)
            axes[1].bar(xs, [sub.latency_ms.get(h, float("nan")) for h in hws], width, label=strat)
        rotation = 30 if len(hws) > 3 else 0
        for ax, title, unit in ((axes[0], "DDR traffic", "MB"), (axes[1], "Latency", "ms")):
            ax.set_xticks([i + width * (len(strategies) - 1) / 2 for i in range(len(hws))])
            ax.set_xticklabels([wrap_label(h) for h in hws], rotation=rotation, ha="right" if rotation else "center",
                               fontsize=8)
            ax.set_xlim(-0.5, len(hws) - 0.5 + width * (len(strategies) - 1))
            ax.set_ylabel(unit)
            ax.set_title(f"{model}: {title} per fusion strategy")
            ax.grid(axis="y", alpha=0.3)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.tight_layout()
        fig.legend(handles, labels, title="strategy", fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 0.95))
        path = os.path.join(out_dir, f"strategies_{model}.png")
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(path)
    return written


def first_of_each_label(summary):
    """The summary's rows with one row per (model, hw, strategy): `npu report` keeps two cells
    that share those labels (other options, e.g. traces, or another build) as two rows, and a bar
    chart has one bar per label. Keeps the first (the report's first folder first) and says so on
    stderr, naming the labels."""
    ok = summary[summary.status == "ok"]
    dup = ok[ok.duplicated(subset=["model", "hw", "strategy"], keep=False)]
    if dup.empty:
        return summary
    labels = sorted({f"{m} {h} {s}" for m, h, s in zip(dup.model, dup.hw, dup.strategy)})
    print(f"plot_experiment: warning: {len(labels)} label(s) name more than one cell (other options or another "
          f"build): {', '.join(labels[:5])}{' ...' if len(labels) > 5 else ''}; the strategy bars and the roofline "
          "show the first of each, the per-layer plots all of them", file=sys.stderr)
    return pd.concat([summary[summary.status != "ok"], ok.drop_duplicates(subset=["model", "hw", "strategy"])])


def run_folder(root, row):
    """The run folder of a summary.json row: `run_dir` (an experiment's own summary) or the first
    of `run_dirs` (a summary `npu report` wrote, also over an experiment's own folder), as given
    (relative to the working directory the command ran in) or else relative to `root`; None when
    the row names none."""
    path = row.get("run_dir") or next(iter(row.get("run_dirs") or []), None)
    if not path:
        return None
    if os.path.isabs(path) or os.path.isdir(path):
        return path
    return os.path.join(root, path)


def layers_csv(root, run_dir):
    """A run's per-layer CSV: its own layers.csv, else the experiment's layers/<run id>.csv."""
    own = os.path.join(run_dir, "layers.csv")
    return own if os.path.exists(own) else os.path.join(root, "layers", f"{os.path.basename(run_dir)}.csv")


def layer_bars(root, run_dirs, out_dir):
    """One PNG per run folder, named after it; a folder name seen before (the same cell's name in
    two merged experiment folders) gets a suffix, so no PNG is overwritten."""
    written = []
    seen = {}
    for run_dir in run_dirs:
        run = os.path.basename(os.path.normpath(run_dir))
        seen[run] = seen.get(run, 0) + 1
        if seen[run] > 1:
            run = f"{run}_{seen[run]}"
        path = layers_csv(root, run_dir)
        if not os.path.exists(path):
            continue
        df = pd.read_csv(path)
        if df.empty:
            continue
        fig, ax = plt.subplots(figsize=(max(8, 0.12 * len(df)), 4.5))
        bottom = [0.0] * len(df)
        for kind in KINDS:
            col = f"ddr_{kind}_mb"
            if col not in df or (kind == "kv_cache" and not df[col].any()):  # no KV cache: no legend entry
                continue
            ax.bar(range(len(df)), df[col], bottom=bottom, color=KIND_COLOURS[kind], label=kind, width=0.9)
            bottom = [b + v for b, v in zip(bottom, df[col])]
        ax.set_xlabel("layer (program order)")
        ax.set_ylabel("DDR MB (read + write)")
        ax.set_title(f"{run}: per-layer DDR traffic by tensor kind")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        png = os.path.join(out_dir, f"layers_{run}.png")
        fig.savefig(png, dpi=100)
        plt.close(fig)
        written.append(png)
    return written


def roofline_points(df):
    """The roofline's points of one layers.csv as a DataFrame (macs, ddr_mb, latency_ms): one
    per layer outside a depth-first stack, and one per stack -- its layers' MACs and DDR bytes
    summed, its time the stack's own: the sum of its layers' exclusive cycles (each cycle of the
    run belongs to one layer) at the run's ms per cycle. A stack's layers run band by band, so
    each layer's span (latency_ms) is nearly the whole stack's: drawn per layer, every layer
    would carry the stack's time. Without an exclusive_cycles column (older files) a stack's
    time is its longest layer span. Rows without MACs, DDR bytes or time are left out."""
    stacked = df["stack"].notna() if "stack" in df else pd.Series(False, index=df.index)
    rows = [{"macs": r.macs, "ddr_mb": r.ddr_total_mb, "latency_ms": r.latency_ms, "stack": None}
            for r in df[~stacked].itertuples()]
    for stack, g in df[stacked].groupby("stack"):
        if "exclusive_cycles" in g and (g.cycles > 0).any():
            ms_per_cycle = (g.latency_ms[g.cycles > 0] / g.cycles[g.cycles > 0]).iloc[0]
            time_ms = g.exclusive_cycles.sum() * ms_per_cycle
        else:
            time_ms = g.latency_ms.max()
        rows.append({"macs": g.macs.sum(), "ddr_mb": g.ddr_total_mb.sum(), "latency_ms": time_ms, "stack": int(stack)})
    points = pd.DataFrame(rows, columns=["macs", "ddr_mb", "latency_ms", "stack"])
    return points[(points.macs > 0) & (points.ddr_mb > 0) & (points.latency_ms > 0)]


def roof_lines(peak_macs, peak_gbps, stream_gbps):
    """The roofline's lines as (label, xs, ys, style, width): the peak roof, min(peak MAC/s,
    intensity x peak DDR bytes/s), and, where one sequential stream cannot reach the peak DDR
    bandwidth (docs/timing.md "Sequential streams"), the same roof at the stream rate. xs are
    operational intensities in MACs per DDR byte (the ridge / 1000, the ridge, x 1000), ys MAC/s."""
    ridge = peak_macs / (peak_gbps * 1e9)
    xs = [ridge / 1000, ridge, ridge * 1000]
    lines = [(f"roofline (peak DDR {peak_gbps:.1f} GB/s)", xs,
              [min(peak_macs, x * peak_gbps * 1e9) for x in xs], "k-", 1.5)]
    if stream_gbps < peak_gbps:
        lines.append((f"one sequential stream ({stream_gbps:.1f} GB/s)", xs,
                      [min(peak_macs, x * stream_gbps * 1e9) for x in xs], "k--", 1))
    return lines


def roofline(root, summary_json, out_dir):
    written = []
    by_key = {}
    for r in summary_json:
        if r.get("status") != "ok":
            continue
        by_key.setdefault((r["model"], r["hw"]), []).append(r)
    for (model, hw), rs in sorted(by_key.items()):
        chosen = [r for r in rs if r["strategy"] == "none"][:1]  # the first, as in the strategy bars
        fused = sorted((r for r in rs if r["strategy"] != "none"), key=lambda r: r["ddr_total_mb"])
        if fused:
            chosen.append(fused[0])
        fig, ax = plt.subplots(figsize=(7, 5))
        peak_macs = peak_gbps = stream_gbps = None
        any_stacks = False
        for r in chosen:
            run_dir = run_folder(root, r)
            if run_dir is None:
                continue
            rs_path = os.path.join(run_dir, "run_summary.json")
            lay_path = layers_csv(root, run_dir)
            if not (os.path.exists(rs_path) and os.path.exists(lay_path)):
                continue
            with open(rs_path) as f:
                rsum = json.load(f)
            peak_macs, peak_gbps = rsum["peak_macs_per_s"], rsum["peak_ddr_gbps"]
            stream_gbps = rsum.get("stream_ddr_gbps", peak_gbps)
            pts = roofline_points(pd.read_csv(lay_path))
            layers, stacks = pts[pts["stack"].isna()], pts[pts["stack"].notna()]
            sc = ax.scatter(layers.macs / (layers.ddr_mb * 1e6), layers.macs / (layers.latency_ms * 1e-3), s=12,
                            alpha=0.7, label=r["strategy"])
            if not stacks.empty:
                any_stacks = True
                ax.scatter(stacks.macs / (stacks.ddr_mb * 1e6), stacks.macs / (stacks.latency_ms * 1e-3), s=60,
                           marker="s", alpha=0.8, color=sc.get_facecolor()[0], label=f"{r['strategy']}: stacks")
        if peak_macs is None:
            plt.close(fig)
            continue
        for label, xs, ys, style, lw in roof_lines(peak_macs, peak_gbps, stream_gbps):
            ax.plot(xs, ys, style, lw=lw, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("operational intensity (MACs per DDR byte)")
        ax.set_ylabel("achieved MAC/s")
        ax.set_title(f"{model} on {hw}: roofline" + (" (squares: depth-first stacks)" if any_stacks else ""))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        png = os.path.join(out_dir, f"roofline_{model}__{hw}.png")
        fig.savefig(png, dpi=110)
        plt.close(fig)
        written.append(png)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="output folder of `npu experiment`")
    ap.add_argument("--out", help="folder for the PNGs (default DIR/plots)")
    args = ap.parse_args()
    csv_path = os.path.join(args.dir, "summary.csv")
    json_path = os.path.join(args.dir, "summary.json")
    if not (os.path.exists(csv_path) and os.path.exists(json_path)):
        sys.exit(f"plot_experiment: error: {args.dir} has no summary.csv/summary.json; "
                 "run `npu experiment --out DIR` first")
    out_dir = args.out or os.path.join(args.dir, "plots")
    os.makedirs(out_dir, exist_ok=True)
    summary = pd.read_csv(csv_path)
    with open(json_path) as f:
        summary_json = json.load(f)
    if not isinstance(summary_json, list) or not all(isinstance(r, dict) for r in summary_json):
        sys.exit(f"plot_experiment: error: {json_path} is not a list of runs; "
                 "give the folder of `npu experiment --out DIR` or of `npu report ... --out DIR`")
    run_dirs = [d for d in (run_folder(args.dir, r) for r in summary_json if r.get("status") == "ok") if d]
    written = strategy_bars(first_of_each_label(summary), out_dir)
    written += layer_bars(args.dir, run_dirs, out_dir)
    written += roofline(args.dir, summary_json, out_dir)
    for w in written:
        print(w)
    if not written:
        sys.exit("plot_experiment: error: no successful runs to plot")


if __name__ == "__main__":
    main()
