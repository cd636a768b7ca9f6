#!/usr/bin/python3
"""Tests of scripts/plot_sweep.py on hand-made points and a hand-made report summary.csv.

Run: /usr/bin/python3 tests/scripts/test_plot_sweep.py   (ctest: plot_sweep)
"""
import collections
import csv
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "plot_sweep.py")
spec = importlib.util.spec_from_file_location("plot_sweep", SCRIPT)
ps = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ps)

# The header `npu sweep` writes (docs/sweep.md), with two axes: compulsory_mb,
# ddr_over_compulsory and plan_sram_bytes are figures, not axes.
COLUMNS = ["model", "hw", "strategy", "status", "ddr_read_mb", "ddr_write_mb", "ddr_total_mb", "compulsory_mb",
           "ddr_over_compulsory", "latency_ms", "cycles", "speedup_vs_none", "ddr_saved_pct", "mac_utilisation",
           "ddr_bw_utilisation", "energy_mj", "host_nodes", "host_mac_pct", "host_time_pct", "plan_sram_bytes", "error",
           "sram.capacity", "mac_array.rows", "cell_key"]

# netA: 2 SRAM sizes x 2 array sizes x {none, conv-bn-act}; numbers made up so the fronts are
# known by hand. (hw, strategy, sram, rows, ddr MB, latency ms, energy mJ)
NET_A = [
    ("a__s256__r16", "none", "256 KiB", "16", 10.0, 8.0, 4.0),
    ("a__s256__r32", "none", "256 KiB", "32", 12.0, 4.5, 5.0),
    ("a__s1M__r16", "none", "1 MiB", "16", 8.0, 9.0, 3.0),
    ("a__s1M__r32", "none", "1 MiB", "32", 9.0, 6.0, 3.5),
    ("a__s256__r16", "conv-bn-act", "256 KiB", "16", 6.0, 5.0, 2.0),
    ("a__s256__r32", "conv-bn-act", "256 KiB", "32", 7.0, 3.0, 2.5),
    ("a__s1M__r16", "conv-bn-act", "1 MiB", "16", 4.0, 6.0, 1.5),
    ("a__s1M__r32", "conv-bn-act", "1 MiB", "32", 5.0, 4.0, 1.5),
]


def write_summary(path, drop=(), bad=None):
    """netA as above (speedup and DDR saved computed against its `none` cell), plus netB: one
    ok `none` cell without energy and one failed cell."""
    none = {(r[2], r[3]): r for r in NET_A if r[1] == "none"}
    rows = []
    for hw, strat, sram, macs, ddr, lat, energy in NET_A:
        base = none[(sram, macs)]
        rows.append(dict(model="netA", hw=hw, strategy=strat, status="ok", ddr_read_mb=ddr / 2, ddr_write_mb=ddr / 2,
                         ddr_total_mb=ddr, latency_ms=lat, cycles=int(lat * 1e6), speedup_vs_none=base[5] / lat,
                         ddr_saved_pct=100 * (1 - ddr / base[4]), mac_utilisation=0.5, ddr_bw_utilisation=0.3,
                         energy_mj=energy, host_nodes=0, host_mac_pct=0, host_time_pct=0, error="",
                         **{"sram.capacity": sram, "mac_array.rows": macs}, cell_key=f"k{len(rows)}"))
    rows.append(dict(model="netB", hw="b__s256__r16", strategy="none", status="ok", ddr_total_mb=2.0, latency_ms=1.0,
                     speedup_vs_none=1.0, ddr_saved_pct=0.0, energy_mj="",
                     **{"sram.capacity": "256 KiB", "mac_array.rows": "16"}, cell_key="kb0"))
    rows.append(dict(model="netB", hw="b__s256__r16", strategy="conv-bn-act", status="failed",
                     error="compile failed", **{"sram.capacity": "256 KiB", "mac_array.rows": "16"}, cell_key="kb1"))
    if bad:
        rows[bad[0]][bad[1]] = bad[2]
    cols = [c for c in COLUMNS if c not in drop]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})


class ParetoMask(unittest.TestCase):
    def test_brief_example(self):
        # (3,4) is dominated by (2,3): 2 <= 3 and 3 <= 4. The other three each beat every
        # other point on one coordinate.
        pts = [(1, 5), (2, 3), (3, 4), (4, 1)]
        self.assertEqual(ps.pareto_mask(pts), [True, True, False, True])

    def test_ties(self):
        # (1,3) has the x of (1,2) and a larger y: dominated. The two (2,1) are equal: neither
        # dominates the other, both optimal. (3,1) is dominated by (2,1).
        pts = [(1, 3), (2, 1), (1, 2), (2, 1), (3, 1)]
        self.assertEqual(ps.pareto_mask(pts), [False, True, True, True, False])

    def test_nan_is_never_optimal_and_dominates_nothing(self):
        pts = [(float("nan"), 0.0), (5.0, 5.0), (0.0, float("nan"))]
        self.assertEqual(ps.pareto_mask(pts), [False, True, False])

    def test_empty_and_single(self):
        self.assertEqual(ps.pareto_mask([]), [])
        self.assertEqual(ps.pareto_mask([(7.0, 7.0)]), [True])


class TiedLabels(unittest.TestCase):
    def test_cells_tied_on_both_figures_share_one_label(self):
        # (1, 512KiB) and (2, 512KiB) at the same point, (4, 1MiB) alone further right: two
        # labels along the front, the tied pair's joined in plan order (new-user test: the two
        # were printed side by side and one seemed to belong to the neighbouring point).
        import pandas as pd
        opt = pd.DataFrame({"hw": ["a", "b", "c"], "rows": [1, 2, 4], "sram": ["512KiB", "512KiB", "1MiB"],
                            "ddr": [5.0, 5.0, 7.0], "lat": [2.0, 2.0, 1.0]})
        got = ps.tied_labels(opt, "ddr", "lat", ["rows", "sram"])
        self.assertEqual(list(got.items()), [((5.0, 2.0), ["1, 512KiB", "2, 512KiB"]), ((7.0, 1.0), ["4, 1MiB"])])


class AxisValueOrder(unittest.TestCase):
    def test_sizes_sort_by_bytes(self):
        # 64 KiB = 65536 B, 512KiB = 524288 B, 1 MiB = 1048576 B, 1 MB = 1000000 B.
        self.assertEqual(ps.magnitude("64 KiB"), 65536.0)
        self.assertEqual(ps.magnitude("1 MB"), 1e6)
        self.assertEqual(ps.ordered_values(["1 MiB", "64 KiB", "1 MB", "512KiB"]),
                         ["64 KiB", "512KiB", "1 MB", "1 MiB"])

    def test_plain_numbers_sort_numerically(self):
        self.assertEqual(ps.ordered_values(["32", "8", "16", "1e2"]), ["8", "16", "32", "1e2"])

    def test_names_keep_plan_order(self):
        # Not numbers (or not all of them): the order the report lists them in, i.e. the spec's.
        self.assertIsNone(ps.magnitude("weight_stationary"))
        self.assertIsNone(ps.magnitude("3 apples"))
        self.assertEqual(ps.ordered_values(["ws", "os", "ws", "is"]), ["ws", "os", "is"])
        self.assertEqual(ps.ordered_values(["1 MiB", "big", "64 KiB"]), ["1 MiB", "big", "64 KiB"])


class Report(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.csv = os.path.join(self.tmp.name, "summary.csv")

    def tearDown(self):
        self.tmp.cleanup()

    def test_plots_pareto_csv_and_axis_medians(self):
        write_summary(self.csv)
        out = os.path.join(self.tmp.name, "plots")
        written, not_ok, axes = ps.run(self.tmp.name, out)
        self.assertEqual(axes, ["sram.capacity", "mac_array.rows"])
        self.assertEqual(not_ok, "1 failed")  # netB's failed cell
        names = sorted(os.path.basename(p) for p in written)
        self.assertEqual(names, ["axis_mac_array.rows.png", "axis_sram.capacity.png", "pareto.csv",
                                 "pareto_netA.png", "pareto_netB.png"])
        for p in written:
            if p.endswith(".png"):
                with open(p, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", p)

        front = collections.defaultdict(set)
        with open(os.path.join(out, "pareto.csv")) as f:
            for r in csv.DictReader(f):
                front[(r["model"], r["objective"])].add((r["hw"], r["strategy"]))
        # latency vs DDR, sorted by DDR MB: fused (4,6) optimal; fused (5,4) optimal; fused
        # (6,5) beaten by (5,4); fused (7,3) optimal; every none cell has DDR >= 8 and latency
        # >= 4.5 > 3, so (7,3) dominates them all.
        self.assertEqual(front[("netA", "latency_ms~ddr_total_mb")],
                         {("a__s1M__r16", "conv-bn-act"), ("a__s1M__r32", "conv-bn-act"),
                          ("a__s256__r32", "conv-bn-act")})
        # latency vs energy: (1.5,4) beats (1.5,6) at equal energy; (2.5,3) is the only
        # point with latency below 4; (2,5) is beaten by (1.5,4); none cells have energy >= 3.
        self.assertEqual(front[("netA", "latency_ms~energy_mj")],
                         {("a__s1M__r32", "conv-bn-act"), ("a__s256__r32", "conv-bn-act")})
        # netB: its one ok cell; no energy, so no energy front.
        self.assertEqual(front[("netB", "latency_ms~ddr_total_mb")], {("b__s256__r16", "none")})
        self.assertNotIn(("netB", "latency_ms~energy_mj"), front)

        df, _ = ps.load_summary(self.csv)
        ok = df[df.status == "ok"]
        # speedups (none latency / fused latency): r16/256K 8/5 = 1.6, r32/256K 4.5/3 = 1.5,
        # r16/1M 9/6 = 1.5, r32/1M 6/4 = 1.5. DDR saved: 1-6/10 = 40 %, 1-7/12 = 41.67 %,
        # 1-4/8 = 50 %, 1-5/9 = 44.44 %.
        med, count = ps.axis_effect(ok, "sram.capacity", "speedup_vs_none")
        self.assertEqual(list(med.index), ["256 KiB", "1 MiB"])  # by size: 262144 B < 1048576 B
        self.assertEqual(list(med.columns), ["conv-bn-act"])    # `none` is the baseline
        self.assertAlmostEqual(med.loc["256 KiB", "conv-bn-act"], (1.6 + 1.5) / 2)
        self.assertAlmostEqual(med.loc["1 MiB", "conv-bn-act"], 1.5)
        self.assertEqual(list(count["conv-bn-act"]), [2, 2])
        med, _ = ps.axis_effect(ok, "sram.capacity", "ddr_saved_pct")
        self.assertAlmostEqual(med.loc["256 KiB", "conv-bn-act"], (40 + 100 * (1 - 7 / 12)) / 2)
        self.assertAlmostEqual(med.loc["1 MiB", "conv-bn-act"], (50 + 100 * (1 - 5 / 9)) / 2)
        med, _ = ps.axis_effect(ok, "mac_array.rows", "speedup_vs_none")
        self.assertEqual(list(med.index), ["16", "32"])  # all numbers: numeric order
        self.assertAlmostEqual(med.loc["16", "conv-bn-act"], (1.6 + 1.5) / 2)
        self.assertAlmostEqual(med.loc["32", "conv-bn-act"], 1.5)

    def test_an_experiment_summarys_other_columns_are_not_axes(self):
        # New-user finding: an experiment folder's earlier_run column was drawn as a sweep axis.
        # Axes are dotted config paths (docs/sweep.md); the fixed columns and any other are not.
        import pandas as pd
        df = pd.DataFrame(columns=["model", "hw", "strategy", "earlier_run", "sram.capacity", "cell_key"])
        self.assertEqual(ps.axis_columns(df), ["sram.capacity"])

    def test_missing_pareto_column_is_named(self):
        write_summary(self.csv, drop=("latency_ms",))
        with self.assertRaises(ps.PlotError) as e:
            ps.run(self.csv, os.path.join(self.tmp.name, "p"))
        self.assertIn("missing column(s) latency_ms", str(e.exception))
        self.assertIn(self.csv, str(e.exception))

    def test_missing_axis_plot_column_is_named(self):
        write_summary(self.csv, drop=("speedup_vs_none", "ddr_saved_pct"))
        with self.assertRaises(ps.PlotError) as e:
            ps.run(self.csv, os.path.join(self.tmp.name, "p"))
        self.assertIn("missing column(s) speedup_vs_none, ddr_saved_pct needed for the axis plots", str(e.exception))

    def test_non_number_names_column_and_row(self):
        write_summary(self.csv, bad=(2, "latency_ms", "fast"))
        with self.assertRaises(ps.PlotError) as e:
            ps.run(self.csv, os.path.join(self.tmp.name, "p"))
        self.assertIn("column latency_ms, data row 3: 'fast' is not a number", str(e.exception))

    def test_cli_exits_1_with_message(self):
        missing = os.path.join(self.tmp.name, "nothing")
        p = subprocess.run([sys.executable, SCRIPT, missing], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"plot_sweep: error: {missing}: no such file", p.stderr)
        # No ok row at all.
        with open(self.csv, "w") as f:
            f.write(",".join(COLUMNS) + "\n" + "netA,h,none,failed" + "," * (len(COLUMNS) - 4) + "\n")
        p = subprocess.run([sys.executable, SCRIPT, self.csv], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no row has status ok (1 rows)", p.stderr)


if __name__ == "__main__":
    unittest.main()
