#!/usr/bin/python3
"""Tests of scripts/plot_experiment.py's roofline points on a hand-made layers.csv (issue 27
item 8: a depth-first stack is drawn as one point with the stack's own time, not each of its
layers with the whole stack's time) and of its roof lines (item 2: the sequential-stream roof
beside the peak).

Run: /usr/bin/python3 tests/scripts/test_plot_experiment.py   (ctest: plot_experiment)
"""
import importlib.util
import io
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "plot_experiment.py")
spec = importlib.util.spec_from_file_location("plot_experiment", SCRIPT)
pe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pe)

# A run at 1 GHz-like 1e-6 ms per cycle: layer a alone (1000 cycles), a stack 0 of b and c whose
# spans (900 and 950 cycles) overlap, with exclusive cycles 400 + 500 = 900, and a layer d with
# no MACs (left out).
LAYERS = """layer,macs,ddr_total_mb,cycles,exclusive_cycles,latency_ms,stack
a,2000000,1.0,1000,1000,0.001,
b,3000000,0.5,900,400,0.0009,0
c,1000000,0.25,950,500,0.00095,0
d,0,0.1,10,10,0.00001,
"""


class RooflinePoints(unittest.TestCase):
    def test_a_stack_is_one_point_with_its_own_time(self):
        pts = pe.roofline_points(pe.pd.read_csv(io.StringIO(LAYERS)))
        self.assertEqual(len(pts), 2)  # a, and the stack (d has no MACs)
        layer = pts[pts["stack"].isna()].iloc[0]
        self.assertEqual(layer.macs, 2000000)
        self.assertAlmostEqual(layer.latency_ms, 0.001)
        stack = pts[pts["stack"].notna()].iloc[0]
        self.assertEqual(stack.macs, 4000000)  # 3e6 + 1e6
        self.assertAlmostEqual(stack.ddr_mb, 0.75)  # 0.5 + 0.25
        # (400 + 500) exclusive cycles x (0.0009 ms / 900 cycles) = 0.0009 ms, not 0.0009 + 0.00095.
        self.assertAlmostEqual(stack.latency_ms, 0.0009)

    def test_without_exclusive_cycles_a_stack_takes_its_longest_span(self):
        old = "\n".join(",".join(f for i, f in enumerate(line.split(",")) if i != 4) for line in LAYERS.splitlines())
        pts = pe.roofline_points(pe.pd.read_csv(io.StringIO(old)))
        self.assertAlmostEqual(pts[pts["stack"].notna()].iloc[0].latency_ms, 0.00095)

    def test_a_run_without_stacks_has_one_point_per_layer(self):
        no_stack = LAYERS.replace(",0\n", ",\n")
        pts = pe.roofline_points(pe.pd.read_csv(io.StringIO(no_stack)))
        self.assertEqual(len(pts), 3)
        self.assertTrue(pts["stack"].isna().all())


class RoofLines(unittest.TestCase):
    def test_a_stream_below_the_peak_gets_its_own_roof(self):
        # Edge preset: 32 x 32 MACs at 1 GHz = 1.024e12 MAC/s, DDR4-3200 x 8 B = 25.6 GB/s peak,
        # one stream 12.8 GB/s (tCCD_L). Ridge = 1.024e12 / 25.6e9 = 40 MACs/B; at the ridge the
        # stream roof is 40 x 12.8e9 = 5.12e11 MAC/s, half the peak; far right both reach 1.024e12.
        lines = pe.roof_lines(1.024e12, 25.6, 12.8)
        self.assertEqual([l[0] for l in lines], ["roofline (peak DDR 25.6 GB/s)", "one sequential stream (12.8 GB/s)"])
        self.assertEqual(lines[0][1], [0.04, 40.0, 40000.0])
        self.assertAlmostEqual(lines[0][2][1], 1.024e12)
        self.assertAlmostEqual(lines[1][2][1], 5.12e11)
        self.assertAlmostEqual(lines[1][2][0], 0.04 * 12.8e9)
        self.assertAlmostEqual(lines[1][2][2], 1.024e12)

    def test_a_stream_at_the_peak_draws_one_roof(self):
        self.assertEqual(len(pe.roof_lines(1.024e12, 256.0, 256.0)), 1)


class RunFolders(unittest.TestCase):
    # New-user finding: a folder `npu report` wrote (rows name `run_dirs`, a list) raised
    # KeyError 'run_dir'. Both row forms give the run folder and its layers CSV.
    def test_an_experiment_row_and_a_report_row_name_the_same_run(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            run = os.path.join(root, "runs", "m__hw__none")
            os.makedirs(run)
            self.assertEqual(pe.run_folder(root, {"run_dir": run}), run)
            self.assertEqual(pe.run_folder(root, {"run_dirs": [run, "elsewhere"]}), run)
            # Relative to the working directory when it is there, else to the folder plotted.
            self.assertEqual(pe.run_folder(root, {"run_dirs": ["runs/m__hw__none"]}),
                             os.path.join(root, "runs/m__hw__none"))
            self.assertIsNone(pe.run_folder(root, {"run_dirs": []}))
            # The experiment's layers/<run id>.csv until the run folder has its own layers.csv.
            self.assertEqual(pe.layers_csv(root, run), os.path.join(root, "layers", "m__hw__none.csv"))
            open(os.path.join(run, "layers.csv"), "w").close()
            self.assertEqual(pe.layers_csv(root, run), os.path.join(run, "layers.csv"))


if __name__ == "__main__":
    unittest.main()
