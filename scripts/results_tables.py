#!/usr/bin/python3
"""Tables and checks of docs/results.md ("Current figures") from an `npu experiment` summary
(every strategy x preset) and an `npu sweep` summary (scripts/sweep_sram.yaml: the edge
preset's sram.capacity axis). Called by scripts/results_tables.sh; needs Debian's
python3-matplotlib for the plot.

Usage: results_tables.py PRESETS_SUMMARY.json SRAM_SUMMARY.json PLOT.png

Prints markdown: (1) every run on the presets; (2) depth-first against residual per network
and preset; (3) the SRAM sweep, DDR MB with x compulsory and latency per size; (4) the goal
figures (depth-first DDR / residual DDR at 1 MiB, depth-first DDR / compulsory at 4 MiB);
(5) every violation of "depth-first no worse than residual" (latency or DDR bytes) and of
"latency and DDR bytes non-increasing as the SRAM grows". Exit status 1 if any violation.
"""
import json
import re
import sys

MODELS = ["resnet50", "mobilenet_v2", "yolov5s"]
STRATEGIES = ["none", "conv-bn", "conv-act", "conv-bn-act", "residual", "depth-first"]


def load(path):
    rows = json.load(open(path))
    bad = [r for r in rows if r.get("status") != "ok"]
    for r in bad:
        print(f"run not ok: {r.get('model')} {r.get('hw')} {r.get('strategy')}: {r.get('status')} {r.get('error', '')}",
              file=sys.stderr)
    return [r for r in rows if r.get("status") == "ok"]


def kib_of(hw):
    m = re.search(r"capacity-(\d+)(KiB|MiB)", hw)
    if not m:
        raise SystemExit(f"{hw}: error: no sram.capacity value in the hw label (expected ...capacity-<n>KiB)")
    return int(m.group(1)) * (1024 if m.group(2) == "MiB" else 1)


def energy_cell(r):
    """The energy column: '-' for a preset without an energy model (the Gemmini presets)."""
    return "-" if r.get("energy_mj") is None else f"{r['energy_mj']:.3f}"


def size_label(kib):
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    presets, sram = load(sys.argv[1]), load(sys.argv[2])
    violations = []

    print("### Every strategy on every preset\n")
    print("| model | hw | strategy | DDR MB | x compulsory | latency ms | speedup | DDR saved | MAC util % | energy mJ |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    key = lambda r: (MODELS.index(r["model"]) if r["model"] in MODELS else 9, r["hw"],
                     STRATEGIES.index(r["strategy"]) if r["strategy"] in STRATEGIES else 9)
    for r in sorted(presets, key=key):
        print(f"| {r['model']} | {r['hw']} | {r['strategy']} | {r['ddr_total_mb']:.2f} | {r['ddr_over_compulsory']:.2f} | "
              f"{r['latency_ms']:.3f} | {r['speedup_vs_none']:.3f}x | {r['ddr_saved_pct']:.1f} % | "
              f"{100 * r['mac_utilisation']:.1f} | {energy_cell(r)} |")

    print("\n### depth-first against residual\n")
    print("| model | hw | residual DDR MB | depth-first DDR MB | DDR ratio | residual ms | depth-first ms | latency ratio | x compulsory (depth-first) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    by = {(r["model"], r["hw"], r["strategy"]): r for r in presets}
    for (m, hw, s), df in sorted(by.items(), key=lambda kv: key(kv[1])):
        if s != "depth-first" or (m, hw, "residual") not in by:
            continue
        res = by[(m, hw, "residual")]
        print(f"| {m} | {hw} | {res['ddr_total_mb']:.2f} | {df['ddr_total_mb']:.2f} | "
              f"{df['ddr_total_mb'] / res['ddr_total_mb']:.2f} | {res['latency_ms']:.3f} | {df['latency_ms']:.3f} | "
              f"{df['latency_ms'] / res['latency_ms']:.3f} | {df['ddr_over_compulsory']:.2f} |")
        if df["latency_ms"] > res["latency_ms"]:
            violations.append(f"depth-first slower than residual: {m} on {hw}: {df['latency_ms']:.4f} ms vs {res['latency_ms']:.4f} ms")
        if df["ddr_total_mb"] > res["ddr_total_mb"]:
            violations.append(f"depth-first moves more DDR bytes than residual: {m} on {hw}: {df['ddr_total_mb']:.3f} MB vs {res['ddr_total_mb']:.3f} MB")

    cells = {}
    for r in sram:
        cells[(r["model"], r["strategy"], kib_of(r["hw"]))] = r
    sizes = sorted({k[2] for k in cells})
    print("\n### SRAM size on the edge preset: DDR MB (x compulsory) / latency ms\n")
    print("| model | strategy | " + " | ".join(size_label(k) for k in sizes) + " |")
    print("|---|---|" + "---:|" * len(sizes))
    for m in MODELS:
        for s in STRATEGIES:
            row = [cells.get((m, s, k)) for k in sizes]
            if not any(row):
                continue
            txt = [f"{c['ddr_total_mb']:.2f} ({c['ddr_over_compulsory']:.2f}x) / {c['latency_ms']:.3f}" if c else "-"
                   for c in row]
            print(f"| {m} | {s} | " + " | ".join(txt) + " |")
            prev = None
            for k, c in zip(sizes, row):
                if c is None:
                    continue
                if prev is not None:
                    pk, pc = prev
                    if c["latency_ms"] > pc["latency_ms"]:
                        violations.append(f"latency rose with SRAM: {m} {s}: {size_label(pk)} {pc['latency_ms']:.4f} ms -> "
                                          f"{size_label(k)} {c['latency_ms']:.4f} ms (+{100 * (c['latency_ms'] / pc['latency_ms'] - 1):.2f} %)")
                    if c["ddr_total_mb"] > pc["ddr_total_mb"]:
                        violations.append(f"DDR bytes rose with SRAM: {m} {s}: {size_label(pk)} {pc['ddr_total_mb']:.4f} MB -> "
                                          f"{size_label(k)} {c['ddr_total_mb']:.4f} MB")
                prev = (k, c)

    print("\n### Goal figures (edge preset)\n")
    for m in MODELS:
        df, res = cells.get((m, "depth-first", 1024)), cells.get((m, "residual", 1024))
        if df and res:
            print(f"- {m} at 1 MiB: depth-first DDR / residual DDR = {df['ddr_total_mb']:.2f} / {res['ddr_total_mb']:.2f} MB "
                  f"= {df['ddr_total_mb'] / res['ddr_total_mb']:.2f}x (goal <= 0.6x)")
    for m in MODELS:
        df = cells.get((m, "depth-first", 4096))
        if df:
            print(f"- {m} at 4 MiB: depth-first DDR / compulsory = {df['ddr_over_compulsory']:.2f}x (goal <= 1.5x)")

    plot(cells, sizes, sys.argv[3])
    print(f"\nplot: {sys.argv[3]}")
    print("\n### Violations\n")
    for v in violations:
        print(f"- {v}")
    if not violations:
        print("none")
    return 1 if violations else 0


def plot(cells, sizes, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    fig, axes = plt.subplots(2, len(MODELS), figsize=(4.2 * len(MODELS), 6.4), sharex=True)
    for j, m in enumerate(MODELS):
        for s in STRATEGIES:
            pts = [(k, cells[(m, s, k)]) for k in sizes if (m, s, k) in cells]
            if not pts:
                continue
            xs = [k for k, _ in pts]
            style = dict(marker="o", markersize=3, label=s, linewidth=2 if s == "depth-first" else 1)
            axes[0][j].plot(xs, [c["ddr_over_compulsory"] for _, c in pts], **style)
            axes[1][j].plot(xs, [c["latency_ms"] for _, c in pts], **style)
        axes[0][j].set_title(f"{m} (edge preset)")
        axes[0][j].axhline(1.0, color="grey", linewidth=0.6, linestyle=":")
        axes[0][j].set_yscale("log")
        axes[0][j].yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        axes[0][j].yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        axes[0][j].tick_params(axis="y", which="minor", labelsize=6)
        axes[0][j].set_ylabel("DDR bytes / compulsory")
        axes[1][j].set_ylabel("latency ms")
        axes[1][j].set_xscale("log", base=2)
        axes[1][j].set_xticks(sizes)
        axes[1][j].set_xticklabels([size_label(k).replace(" ", "\n") for k in sizes], fontsize=7)
        axes[1][j].set_xlabel("sram.capacity")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(STRATEGIES), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=80)


if __name__ == "__main__":
    sys.exit(main())
