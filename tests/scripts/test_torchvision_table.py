#!/usr/bin/python3
"""Tests of scripts/torchvision_table.py: the table and counts on hand-made results, the
reason a failed step printed, the timeout that kills a step's children, and one model's whole
flow against a stand-in `npu` (a shell script writing hand-made run_summary.json / verify.csv).
No torch and no real npu needed.

Run: /usr/bin/python3 tests/scripts/test_torchvision_table.py   (ctest: torchvision_table)
"""
import argparse
import importlib.util
import json
import os
import stat
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "torchvision_table.py")
spec = importlib.util.spec_from_file_location("torchvision_table", SCRIPT)
tt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tt)

OK = {"ok": True, "s": 1.0, "reason": None}


def sim(mb, ms, host=0):
    return dict(OK, ddr_mb=mb, latency_ms=ms, host_nodes=host)


def result(name, **kw):
    """A result dict as one_model() saves it: everything passes unless kw says otherwise."""
    r = {"model": name, "opset": 13, "input": "224", "nodes": 20, "host_nodes": 0,
         "compile": {s: dict(OK) for s in tt.STRATEGIES},
         "simulate": {"none": sim(63.5, 6.538), "conv-bn-act": sim(62.55, 6.458), "depth-first": sim(62.094, 6.4584)},
         "verify_fp32": dict(OK, rows=[{"rel_error": "1.7e-06", "sqnr_db": "120.5", "pass": "1"}]),
         "verify_int8": dict(OK, rows=[{"rel_error": "0.01", "sqnr_db": "33.94", "pass": "1"}, {"rel_error": "0.02", "sqnr_db": "30.06", "pass": "1"}])}
    r.update(kw)
    return r


class Table(unittest.TestCase):
    def test_passing_model_row(self):
        md = tt.table([result("alexnet")])
        row = [l for l in md.splitlines() if l.startswith("| alexnet")][0]
        cells = [c.strip() for c in row.strip("|").split("|")]
        # model, opset, input, nodes, host, compile, simulate, fp32, int8, 3 x MB (2 decimals), 3 x ms (3 decimals)
        self.assertEqual(cells, ["alexnet", "13", "224", "20", "0", "ok", "ok", "pass (1.7e-06)",
                                 "pass (30.1 dB)",  # the worst of 33.94 and 30.06
                                 "63.50", "62.55", "62.09", "6.538", "6.458", "6.458"])
        self.assertIn("Counts: compile 1/1, simulate 1/1", md)
        self.assertIn("verify fp32 1/1; int8 verify 1/1 of the models with no host node.", md)

    def test_two_failures_in_one_cell_name_both_notes(self):
        bad = {s: {"ok": False, "s": 1, "reason": f"{s} broke"} for s in tt.STRATEGIES[1:]}
        bad["none"] = dict(OK)
        md = tt.table([result("a"), result("d", compile=bad, simulate={"none": sim(1, 1)})])
        self.assertIn("| 1/3 [1, 2] | 1/3, 2 not run |", md)
        self.assertIn("2. d compile depth-first: depth-first broke", md.splitlines())

    def test_failures_are_numbered_notes_with_their_reason(self):
        bad_compile = {"none": dict(OK), "conv-bn-act": dict(OK),
                       "depth-first": {"ok": False, "s": 1, "reason": "x.onnx: error: tile does not fit"}}
        a = result("a", compile=bad_compile, simulate={"none": sim(1, 1), "conv-bn-act": sim(1, 1)},
                   verify_fp32={"ok": False, "s": 1, "reason": "depth-first y: sim ok, rel error 0.5"})
        b = result("b", host_nodes=45, verify_int8={"ok": False, "skipped": True, "reason": "not run: host nodes"})
        c = {"model": "c", "opset": 17, "input": "224", "export_error": "RuntimeError: no symbolic"}
        md = tt.table([a, b, c])
        lines = md.splitlines()
        row_a = [l for l in lines if l.startswith("| a ")][0]
        self.assertIn("| 2/3 [1] | 2/3, 1 not run | fail [2] |", row_a)  # depth-first not simulated
        self.assertIn("| 1.00 | 1.00 | - | 1.000 | 1.000 | - |", row_a)  # no depth-first figures
        self.assertIn("| 45 | ok | ok | pass (1.7e-06) | not run: host nodes |", [l for l in lines if l.startswith("| b ")][0])
        self.assertIn("| c | 17 | 224 | export failed [3] |", md)
        self.assertIn("1. a compile depth-first: x.onnx: error: tile does not fit", lines)
        self.assertIn("2. a verify fp32: depth-first y: sim ok, rel error 0.5", lines)
        self.assertIn("3. c export: RuntimeError: no symbolic", lines)
        # a: compile 2/3 fails, b passes; c has no compile at all. int8: only a has no host node, and it passed.
        self.assertIn("Counts: compile 1/3, simulate 1/3 (all of none, conv-bn-act, depth-first); verify fp32 1/3; "
                      "int8 verify 1/1 of the models with no host node.", md)


class RowReason(unittest.TestCase):
    def test_status_when_not_run_else_the_figure_that_failed(self):
        row = {"strategy": "none", "output": "1164", "sim_status": "failed: x.onnx: error: no data path",
               "rel_error": "", "bit_exact": "not run: integer reference"}
        self.assertEqual(tt.row_reason(row, "fp32"), "none, output '1164': failed: x.onnx: error: no data path")
        row.update(sim_status="ok", rel_error="0.003", bit_exact="12 values differ")
        self.assertEqual(tt.row_reason(row, "fp32"), "none, output '1164': relative error 0.003 above the tolerance")
        self.assertEqual(tt.row_reason(row, "int8"), "none, output '1164': 12 values differ")


class Steps(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def log(self, text):
        p = os.path.join(self.dir, "step.log")
        with open(p, "w") as f:
            f.write("$ npu something\n" + text)
        return p

    def test_reason_is_the_first_error_line_else_the_last_line(self):
        p = self.log("note: a\nm.onnx:3: error: op Foo has no lowering\nsecond error: x\n")
        self.assertEqual(tt.reason(p, 1, 60), "m.onnx:3: error: op Foo has no lowering")
        p = self.log("| none | error | table rows are skipped |\nsome line\nlast line\n\n")
        self.assertEqual(tt.reason(p, 1, 60), "last line")
        self.assertEqual(tt.reason(self.log(""), 3, 60), "exit status 3, no output")
        self.assertEqual(tt.reason(p, "timeout", 60), "timed out after 60 s")

    def test_a_step_that_cannot_start_fails_with_the_reason(self):
        log = os.path.join(self.dir, "n.log")
        rc, _ = tt.run([os.path.join(self.dir, "no-such-npu"), "compile"], 5, log)
        self.assertEqual(rc, "not started")
        self.assertIn("error: cannot start " + os.path.join(self.dir, "no-such-npu"), tt.reason(log, rc, 5))

    def test_timeout_kills_the_step_and_its_children(self):
        marker = os.path.join(self.dir, "child-alive")
        # The child outlives its parent's kill unless the whole group dies: it would touch the marker.
        cmd = ["bash", "-c", f"(sleep 3; touch {marker}) & sleep 30"]
        t0 = time.time()
        rc, _ = tt.run(cmd, 1, os.path.join(self.dir, "t.log"))
        self.assertEqual(rc, "timeout")
        self.assertLess(time.time() - t0, 10)
        time.sleep(3.5)
        self.assertFalse(os.path.exists(marker))


FAKE_NPU = r"""#!/bin/bash
# Stand-in npu: compile writes -o; simulate writes run_summary.json (DDR read/write bytes and
# latency by strategy); verify writes verify.csv, failing on the fp32 config.
sub=$1; shift
args="$*"
echo "$sub $args" >> "$(dirname "$0")/calls.txt"
get() { local want=$1; shift; while [ $# -gt 0 ]; do [ "$1" = "$want" ] && { echo "$2"; return; }; shift; done; }
case $sub in
  compile) out=$(get -o "$@"); s=$(get --strategy "$@"); [ "$s" = depth-first ] && { echo "m.onnx: error: no plan fits"; exit 1; }; touch "$out" ;;
  simulate) out=$(get --out "$@"); mkdir -p "$out"; s=$(get --strategy "$@")
    [ "$s" = none ] && r=3000000 || r=1000000
    echo "{\"ddr_read_bytes\": $r, \"ddr_write_bytes\": 500000, \"latency_ms\": 2.5, \"host_nodes\": 0, \"host_time_share\": 0, \"mac_utilisation\": 0.5}" > "$out/run_summary.json" ;;
  verify) out=$(get --out "$@"); hw=$(get --hw "$@"); mkdir -p "$out"
    echo "model,hw,strategy,variant,output,sim_status,max_abs,rel_error,sqnr_db,top1_agree,expected_rel_error,quant_sqnr_db,quant_rel_error,quant_top1_agree,bit_exact,pass" > "$out/verify.csv"
    case $hw in
      *fp32*) echo "m,x,conv-bn-act,,out,ok,1,0.25,12.0,no,,,,,n/a (fp32 config),0" >> "$out/verify.csv"; exit 1 ;;
      *) echo "m,x,conv-bn-act,,out,ok,0.1,0.01,35.5,yes,,35.0,0.01,yes,bit-exact,1" >> "$out/verify.csv" ;;
    esac ;;
esac
"""


class OneModel(unittest.TestCase):
    def setUp(self):
        """A stand-in npu and an out folder holding m's export (file + export_log line)."""
        self.dir = d = tempfile.mkdtemp()
        npu = os.path.join(d, "npu")
        tt.write(npu, FAKE_NPU)
        os.chmod(npu, os.stat(npu).st_mode | stat.S_IEXEC)
        out = os.path.join(d, "out")
        os.makedirs(f"{out}/onnx")
        os.makedirs(f"{out}/logs")
        tt.write(f"{out}/onnx/m-bn-op13.onnx", "not read")
        rec = {"ok": True, "path": "/elsewhere/m-bn-op13.onnx", "nodes": 7}
        tt.write(f"{out}/onnx/export_log.jsonl", json.dumps(rec) + "\n")
        self.a = argparse.Namespace(out=out, npu=npu, hw="edge.yaml", hw_fp32="edge-fp32.yaml",
                                    verify_strategies="conv-bn-act", calib_count=4, no_int8=False)

    def test_no_int8_defers_it_to_int8_pending(self):
        self.a.no_int8 = True
        r = tt.one_model(self.a, "m", 13, [], "224")
        self.assertEqual(r["verify_int8"]["reason"], "not run yet (--no-int8)")
        self.assertTrue(tt.int8_pending(self.a, r))
        self.assertTrue(r["verify_int8"]["ok"])
        self.assertEqual(r["verify_int8"]["rows"][0]["bit_exact"], "bit-exact")
        self.assertFalse(tt.int8_pending(self.a, r))  # nothing left to run

    def test_flow_against_a_stand_in_npu(self):
        a, d = self.a, self.dir
        r = tt.one_model(a, "m", 13, ["--dynamic-size", "150"], "320")
        self.assertEqual(r["nodes"], 7)
        self.assertEqual(r["host_nodes"], 0)
        self.assertFalse(r["compile"]["depth-first"]["ok"])
        self.assertEqual(r["compile"]["depth-first"]["reason"], "m.onnx: error: no plan fits")
        self.assertNotIn("depth-first", r["simulate"])  # not simulated after a failed compile
        self.assertAlmostEqual(r["simulate"]["none"]["ddr_mb"], 3.5)  # (3e6 + 5e5) B / 1e6
        self.assertAlmostEqual(r["simulate"]["conv-bn-act"]["ddr_mb"], 1.5)
        self.assertFalse(r["verify_fp32"]["ok"])
        self.assertEqual(r["verify_fp32"]["reason"], "conv-bn-act, output 'out': relative error 0.25 above the tolerance")
        self.assertTrue(r["verify_int8"]["ok"])
        calls = tt.read(os.path.join(d, "calls.txt")).splitlines()
        verifies = [c for c in calls if c.startswith("verify")]
        self.assertEqual(len(verifies), 2)
        for c in verifies:  # verify takes no --dynamic-size; compile and simulate get it
            self.assertNotIn("--dynamic-size", c)
        self.assertIn("--calib-count 4", verifies[1])
        self.assertTrue(all("--dynamic-size 150" in c for c in calls if not c.startswith("verify")))


class Arguments(unittest.TestCase):
    def call(self, *args):
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)

    def test_out_inside_the_repository_is_refused(self):
        p = self.call("--out", os.path.join(HERE, "tv"), "--table-only")
        self.assertEqual(p.returncode, 2)
        self.assertIn("inside the repository", p.stderr)

    def test_unknown_model_is_refused_with_the_known_ones(self):
        p = self.call("--models", "resnet18,nosuchnet", "--table-only", "--out", tempfile.mkdtemp())
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown model(s) nosuchnet (known: alexnet, vgg11", p.stderr)


if __name__ == "__main__":
    unittest.main()
