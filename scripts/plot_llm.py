#!/usr/bin/python3
"""Plots for an `npu llm` output folder (formats: docs/llm.md).

Usage: /usr/bin/python3 scripts/plot_llm.py DIR [--out PLOTDIR]

Reads DIR/steps/<hw>__<strategy>.csv and writes into PLOTDIR (default DIR/plots):
  latency_per_token.png  decode step latency against context length, one line per hw and
                         strategy (simulated steps marked, interpolated ones joined)
  bytes_per_token.png    DDR bytes per token by kind (weights, KV read, KV write,
                         activations), stacked, one bar per hw and strategy: the mean decode
                         step over llm.json's batch B (a step makes B tokens), as llm.md's B/token

Needs Debian's python3-matplotlib. Exits 1 with a message when DIR has no steps/*.csv, or when
every row of its llm.json failed.
"""
import argparse
import csv
import glob
import json
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError as e:  # pragma: no cover - environment problem
    sys.exit(f"plot_llm: error: {e}; install with: apt-get install python3-matplotlib")

KINDS = [("weight_bytes", "weights"), ("kv_read_bytes", "KV read"), ("kv_write_bytes", "KV write"),
         ("activation_bytes", "activations")]


def read_llm_json(folder):
    """The rows of the folder's llm.json, or None when it has none."""
    summary = os.path.join(folder, "llm.json")
    if not os.path.exists(summary):
        return None
    with open(summary) as f:
        return json.load(f)


def read_steps(folder):
    """The decode steps of the pairs this folder's last `npu llm` run reports: llm.json's
    "steps_csv" of each ok row (a steps/*.csv left by an earlier run into the same folder is
    not drawn); every steps/*.csv for a folder without llm.json or whose llm.json has no
    "steps_csv" (written before the key existed)."""
    paths = sorted(glob.glob(os.path.join(folder, "steps", "*.csv")))
    rows = read_llm_json(folder)
    if rows is not None:
        if any("steps_csv" in r for r in rows):  # written by npu llm since 2026-12-05
            listed = [r["steps_csv"] for r in rows if r.get("status") == "ok" and r.get("steps_csv")]
            paths = [os.path.join(folder, p) for p in listed if os.path.exists(os.path.join(folder, p))]
    runs = {}
    for path in paths:
        with open(path, newline="") as f:
            runs[os.path.basename(path)[:-4]] = list(csv.DictReader(f))
    return runs


def read_batch(folder):
    """The batch B of the folder's llm.json rows (a decode step makes B tokens); 1 without it."""
    rows = read_llm_json(folder)
    return max(1, int(rows[0].get("batch", 1))) if rows else 1


def failed_only(folder):
    """True when the folder's llm.json has rows and none of them is ok."""
    rows = read_llm_json(folder)
    return bool(rows) and not any(r.get("status") == "ok" for r in rows)


def finish(fig, ax, xlabel, ylabel, title, path, legend_outside=False):
    """Labels, legend and the PNG at `path`."""
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend_outside:  # beside a bar chart rather than over its bars
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_latency(runs, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, rows in runs.items():
        ctx = [int(r["context"]) for r in rows]
        lat = [float(r["latency_ms"]) for r in rows]
        line, = ax.plot(ctx, lat, label=name)
        sim = [(c, l) for c, l, r in zip(ctx, lat, rows) if r["simulated"] == "1"]
        ax.plot([c for c, _ in sim], [l for _, l in sim], "o", color=line.get_color())
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # context lengths are whole tokens
    finish(fig, ax, "context length (tokens)", "decode step latency (ms)", "Time per output token (dots: simulated)",
           os.path.join(out, "latency_per_token.png"))


def plot_bytes(runs, out, batch=1):
    """DDR bytes per token by kind: each pair's mean decode step over its batch (a step makes
    `batch` tokens), as llm.md's B/token."""
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(runs) + 3), 4))
    names = list(runs)
    bottom = [0.0] * len(names)
    for key, label in KINDS:
        vals = [sum(float(r[key]) for r in runs[n]) / max(1, len(runs[n])) / batch / 1e6 for n in names]
        ax.bar(range(len(names)), vals, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
    finish(fig, ax, None, "DDR MB per token (mean decode step / batch)",
           f"DDR bytes per token by kind (batch {batch})", os.path.join(out, "bytes_per_token.png"),
           legend_outside=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--out")
    a = p.parse_args()
    runs = read_steps(a.dir)
    if not runs and failed_only(a.dir):
        sys.exit(f"plot_llm: error: no hw/strategy pair of {a.dir}/llm.json succeeded (every row's status is not "
                 "ok; its error column says why): nothing to plot")
    if not runs:
        sys.exit(f"plot_llm: error: {a.dir} has no steps/*.csv; give an `npu llm --out` folder")
    out = a.out or os.path.join(a.dir, "plots")
    os.makedirs(out, exist_ok=True)
    plot_latency(runs, out)
    plot_bytes(runs, out, read_batch(a.dir))


if __name__ == "__main__":
    main()
