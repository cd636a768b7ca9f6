#!/usr/bin/python3
"""The torchvision table of docs/results.md ("Torchvision set (issue 28)").

Usage: /usr/bin/python3 scripts/torchvision_table.py [--out DIR] [--models a,b,...] [--force]
           [--table-only] [--figures-only] [--verify-strategies S,...] [--npu build/npu] [--hw CONFIG]

For each model of MODELS, one at a time:
  1. export it BN kept (`bn`, every parameter perturbed) at its opset into DIR/onnx with
     scripts/torchvision_export.py (= ../shared/models/export_torchvision.py plus the
     segmentation and video builders it lacks); an existing file is reused;
  2. `npu compile` under none, conv-bn-act and depth-first on the edge preset;
  3. `npu simulate` under the same three: DDR MB (read + write, 1e6 B) and latency ms from
     run_summary.json, host nodes;
  4. `npu verify` in fp32 (the edge preset with `mac_array.dtype: fp32`, seeded U(-1,1) input,
     1e-4 relative tolerance) under --verify-strategies;
  5. `npu verify` in int8 (the edge preset: PTQ on --calib-count seeded samples, bit-exact
     against the integer reference) under the same strategies, only where the model has no
     host node.
Every step has a timeout (TIMEOUT_S) and is killed with its children when it runs over; a
failed step keeps the first `error:` line the tool printed. Results go to
DIR/results/MODEL.json (a re-run skips models that have one unless --force) and the Markdown
table to DIR/table.md (also printed). --figures-only re-runs steps 2 and 3 of saved results
(after a compiler change; verify columns kept). --no-int8 leaves step 5 out, so that the cheaper steps of
every model come first; a second run with --int8-pending adds it to the saved results. Needs Debian's python3-torch / torchvision / onnx for the
exports and a built npu. Exit status 0 whether or not models fail (the table says which).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STRATEGIES = ["none", "conv-bn-act", "depth-first"]
# (name, opset, extra npu arguments, input note). Opset 17 where the model has LayerNorm
# (the native LayerNormalization op), 13 otherwise. Faster R-CNN's second stage is sized by
# the proposals NMS keeps: --dynamic-size 150 = the model's rpn_post_nms_top_n_test.
MODELS = [
    ("alexnet", 13, [], "224"), ("vgg11", 13, [], "224"), ("resnet18", 13, [], "224"),
    ("densenet121", 13, [], "224"), ("googlenet", 13, [], "224"),
    ("inception_v3", 13, [], "299"), ("squeezenet1_0", 13, [], "224"),
    ("mnasnet1_0", 13, [], "224"), ("regnet_y_400mf", 13, [], "224"),
    ("efficientnet_b0", 13, [], "224"), ("mobilenet_v3_small", 13, [], "224"),
    ("convnext_tiny", 17, [], "224"), ("vit_b_16", 17, [], "224"), ("swin_t", 17, [], "224"),
    ("deeplabv3_resnet50", 13, [], "224"), ("lraspp_mobilenet_v3_large", 13, [], "224"),
    ("r3d_18", 13, [], "16x112x112"),
    ("fasterrcnn_mobilenet_v3_large_320_fpn", 13, ["--dynamic-size", "150"], "320"),
]
# Seconds per step; the verify ones cover every strategy of the step.
TIMEOUT_S = {"export": 900, "compile": 300, "simulate": 600, "verify-fp32": 900, "verify-int8": 900}


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def run(cmd, timeout, log):
    """Runs cmd (a list) in its own process group, stdout+stderr to the file log.
    Returns (exit status, 'timeout' or 'not started', seconds). A timeout kills the whole group
    (npu verify's simulate children included)."""
    t0 = time.time()
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        try:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True)
        except OSError as e:  # a missing npu, or one being relinked: that step fails, the run goes on
            f.write(f"error: cannot start {cmd[0]}: {e}\n")
            return "not started", round(time.time() - t0, 1)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "timeout"
    return rc, round(time.time() - t0, 1)


def reason(log, rc, timeout):
    """The one-line reason a failed step printed: its first line holding 'error', else its
    last non-empty line; a timeout says so."""
    if rc == "timeout":
        return f"timed out after {timeout} s"
    with open(log, errors="replace") as f:
        lines = [l.strip() for l in f.read().splitlines()[1:] if l.strip()]
    for l in lines:
        if "error" in l.lower() and not l.startswith("|"):
            return l[:300]
    return (lines[-1][:300] if lines else f"exit status {rc}, no output")


def export(name, opset, out):
    """The model's ONNX file in out/onnx (exported unless already there), or (None, reason)."""
    path = f"{out}/onnx/{name}-bn-op{opset}.onnx"
    if os.path.isfile(path):
        # Exported by another run into the same folder: torch writes the file before the
        # exporter appends its export_log.jsonl line; wait for that line (file complete).
        t0 = time.time()
        while logged_nodes(path) is None and time.time() - t0 < TIMEOUT_S["export"]:
            time.sleep(5)
        return path, None
    os.makedirs(f"{out}/onnx", exist_ok=True)
    log = f"{out}/logs/{name}.export.log"
    cmd = ["/usr/bin/python3", "scripts/torchvision_export.py", name, "bn", str(opset), f"{out}/onnx"]
    rc, _ = run(cmd, TIMEOUT_S["export"], log)
    if os.path.isfile(path):
        return path, None
    for line in reversed(read(log).splitlines()):  # the exporter's JSON line names the error
        if line.startswith("{") and '"error"' in line:
            return None, json.loads(line)["error"]
    return None, reason(log, rc, TIMEOUT_S["export"])


def logged_nodes(path):
    """The node count export_log.jsonl (beside path) records for path, or None."""
    logf = os.path.join(os.path.dirname(path), "export_log.jsonl")
    if os.path.isfile(logf):
        with open(logf) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        for rec in recs:
            if rec.get("ok") and os.path.basename(rec.get("path", "")) == os.path.basename(path):
                return rec["nodes"]
    return None


def node_count(path):
    """Number of nodes of the ONNX graph (the export log's figure, else onnx.load)."""
    n = logged_nodes(path)
    if n is not None:
        return n
    import onnx
    return len(onnx.load(path, load_external_data=False).graph.node)


def compile_and_simulate(a, name, path, extra, res):
    """Steps 2 and 3 for every strategy; fills res['compile'], res['simulate'][strategy]."""
    work = f"{a.out}/work/{name}"
    for s in STRATEGIES:
        log = f"{a.out}/logs/{name}.compile.{s}.log"
        cmd = [a.npu, "compile", path, "--hw", a.hw, "--strategy", s, "-o", f"{work}/{s}.npuasm", "-q"] + extra
        rc, sec = run(cmd, TIMEOUT_S["compile"], log)
        res["compile"][s] = {"ok": rc == 0, "s": sec,
                             "reason": None if rc == 0 else reason(log, rc, TIMEOUT_S["compile"])}
        if rc != 0:
            continue
        log = f"{a.out}/logs/{name}.simulate.{s}.log"
        cmd = [a.npu, "simulate", "--model", path, "--hw", a.hw, "--strategy", s,
               "--out", f"{work}/sim-{s}", "-q"] + extra
        rc, sec = run(cmd, TIMEOUT_S["simulate"], log)
        r = {"ok": rc == 0, "s": sec, "reason": None if rc == 0 else reason(log, rc, TIMEOUT_S["simulate"])}
        if rc == 0:
            js = json.loads(read(f"{work}/sim-{s}/run_summary.json"))
            r.update(ddr_mb=(js["ddr_read_bytes"] + js["ddr_write_bytes"]) / 1e6, latency_ms=js["latency_ms"],
                     host_nodes=js["host_nodes"], host_time_share=js["host_time_share"],
                     mac_utilisation=js["mac_utilisation"], warnings=js.get("warnings", []))
        res["simulate"][s] = r


def row_reason(row, kind):
    """Why a verify.csv row failed: the simulator's status when it did not run, else the
    relative error (fp32) or the bit-exact column (int8)."""
    head = f"{row['strategy']}, output '{row['output']}': "
    if row["sim_status"] != "ok":
        return head + row["sim_status"]
    if kind == "fp32":
        return head + f"relative error {row['rel_error']} above the tolerance"
    return head + row["bit_exact"]


def verify(a, name, path, extra, hw, kind):
    """Step 4 or 5: npu verify on hw under a.verify_strategies. Returns {ok, reason, rows}:
    rows = (strategy, output, sim_status, rel_error, sqnr_db, bit_exact, pass) from verify.csv."""
    out = f"{a.out}/work/{name}/verify-{kind}"
    log = f"{a.out}/logs/{name}.verify-{kind}.log"
    # --dynamic-size is a compile option verify does not take.
    extra = [x for i, x in enumerate(extra) if x != "--dynamic-size" and (i == 0 or extra[i - 1] != "--dynamic-size")]
    cmd = [a.npu, "verify", path, "--hw", hw, "--strategies", a.verify_strategies, "--out", out, "-j", "1", "-q"] + extra
    if kind == "int8":
        cmd += ["--calib-count", str(a.calib_count)]
    if os.path.isfile(f"{out}/verify.csv"):
        os.remove(f"{out}/verify.csv")
    rc, sec = run(cmd, TIMEOUT_S[f"verify-{kind}"], log)
    rows = []
    if os.path.isfile(f"{out}/verify.csv"):
        import csv
        for r in csv.DictReader(read(f"{out}/verify.csv").splitlines()):
            rows.append({k: r[k] for k in ("strategy", "output", "sim_status", "rel_error", "sqnr_db",
                                           "quant_sqnr_db", "bit_exact", "pass")})
    ok = rc == 0 and bool(rows) and all(r["pass"] == "1" for r in rows)
    why = None
    if not ok:
        bad = [r for r in rows if r["pass"] != "1"]
        why = reason(log, rc, TIMEOUT_S[f"verify-{kind}"])
        if bad and rc != "timeout":
            why = row_reason(bad[0], kind)
    return {"ok": ok, "s": sec, "reason": why, "rows": rows}


def one_model(a, name, opset, extra, note):
    """Every step for one model; the result dict saved as results/NAME.json."""
    res = {"model": name, "opset": opset, "input": note, "extra_args": extra,
           "compile": {}, "simulate": {}, "verify_fp32": None, "verify_int8": None}
    path, why = export(name, opset, a.out)
    if path is None:
        res["export_error"] = why
        return res
    res["nodes"] = node_count(path)
    os.makedirs(f"{a.out}/work/{name}", exist_ok=True)
    compile_and_simulate(a, name, path, extra, res)
    sims = [r for r in res["simulate"].values() if r["ok"]]
    res["host_nodes"] = max(r["host_nodes"] for r in sims) if sims else None
    res["verify_fp32"] = verify(a, name, path, extra, a.hw_fp32, "fp32")
    res["path"] = path
    if res["host_nodes"] != 0:
        res["verify_int8"] = {"ok": False, "skipped": True,
                              "reason": "not run: host nodes" if sims else "not run: no simulation"}
    elif a.no_int8:
        res["verify_int8"] = {"ok": False, "skipped": True, "deferred": True, "reason": "not run yet (--no-int8)"}
    else:
        res["verify_int8"] = verify(a, name, path, extra, a.hw, "int8")
    return res


def int8_pending(a, res):
    """--int8-pending: the int8 verify a --no-int8 run left out, on a saved result."""
    v = res.get("verify_int8")
    if v and v.get("deferred") and res.get("path"):
        res["verify_int8"] = verify(a, res["model"], res["path"], res.get("extra_args", []), a.hw, "int8")
        return True
    return False


def figures_again(a, res):
    """--figures-only: steps 2 and 3 again on a saved result (its verify columns are kept), e.g.
    after a change of the tiler; the repository's HEAD when they ran goes into
    res["figures_commit"] (the --npu binary is the user's to match with it). False, with a
    warning, when the export is gone: that row keeps its old figures."""
    if not res.get("path"):  # results of the first runs did not record it: the export's name
        res["path"] = f"{a.out}/onnx/{res['model']}-bn-op{res['opset']}.onnx"
    if not os.path.isfile(res["path"]):
        print(f"{res['model']}: warning: {res['path']} is missing; its figures are not re-measured "
              "(export it again: run without --figures-only)", file=sys.stderr, flush=True)
        return False
    res["compile"], res["simulate"] = {}, {}
    compile_and_simulate(a, res["model"], res["path"], res.get("extra_args", []), res)
    sims = [r for r in res["simulate"].values() if r["ok"]]
    res["host_nodes"] = max(r["host_nodes"] for r in sims) if sims else None
    res["figures_commit"] = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                           capture_output=True, text=True).stdout.strip()
    return True


def cell(step, notes, label):
    """Table cell of a pass/fail step; a failure adds a numbered note with its reason."""
    if step is None:
        return "-"
    if step.get("skipped"):
        return step["reason"]
    if step["ok"]:
        return "pass"
    notes.append(f"{label}: {step['reason']}")
    return f"fail [{len(notes)}]"


def strategies_cell(d, notes, model, what):
    """'ok' when every strategy's step passed, else 'k/3' with a numbered note per failure
    ([2, 3]) and the count of strategies not run (a simulate after a failed compile)."""
    if not d:
        return "-"
    bad = [s for s in STRATEGIES if s in d and not d[s]["ok"]]
    first = len(notes) + 1
    for s in bad:
        notes.append(f"{model} {what} {s}: {d[s]['reason']}")
    done = sum(1 for s in STRATEGIES if s in d and d[s]["ok"])
    if done == len(STRATEGIES):
        return "ok"
    text = f"{done}/{len(STRATEGIES)}"
    if bad:
        text += " [" + ", ".join(str(i) for i in range(first, len(notes) + 1)) + "]"
    missing = sum(1 for s in STRATEGIES if s not in d)
    return text + (f", {missing} not run" if missing else "")


def figures(sim, key, fmt):
    return [fmt.format(sim[s][key]) if s in sim and sim[s]["ok"] else "-" for s in STRATEGIES]


def verify_detail(v, kind):
    """' (worst rel error / SQNR)' for a passed verify."""
    if not v or not v.get("ok") or not v.get("rows"):
        return ""
    if kind == "fp32":
        return f" ({max(float(r['rel_error']) for r in v['rows']):.1e})"
    return f" ({min(float(r['sqnr_db']) for r in v['rows']):.1f} dB)"


def with_row_reason(step, kind):
    """A failed verify step whose reason is its first failed row's (results saved before
    row_reason existed say it the old way)."""
    bad = [r for r in (step or {}).get("rows", []) if r["pass"] != "1"]
    if not step or step["ok"] or not bad or str(step.get("reason", "")).startswith("timed out"):
        return step
    return dict(step, reason=row_reason(bad[0], kind))


def table(results):
    """Markdown: the table, the counts line and the numbered failure notes."""
    notes = []
    head = ("| model | opset | input | nodes | host nodes | compile | simulate | verify fp32 (worst rel err) "
            "| verify int8 (worst SQNR) | DDR MB none | conv-bn-act | depth-first | latency ms none | conv-bn-act "
            "| depth-first |")
    lines = [head, "|---|---:|---|---:|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        m = r["model"]
        if "export_error" in r:
            notes.append(f"{m} export: {r['export_error']}")
            lines.append(f"| {m} | {r['opset']} | {r['input']} | export failed [{len(notes)}] |" + " |" * 11)
            continue
        comp = strategies_cell(r["compile"], notes, m, "compile")
        sim = strategies_cell({s: v for s, v in r["simulate"].items()}, notes, m, "simulate")
        v32 = cell(with_row_reason(r["verify_fp32"], "fp32"), notes, f"{m} verify fp32") + verify_detail(r["verify_fp32"], "fp32")
        v8 = cell(with_row_reason(r["verify_int8"], "int8"), notes, f"{m} verify int8") + verify_detail(r["verify_int8"], "int8")
        host = "-" if r.get("host_nodes") is None else str(r["host_nodes"])
        mb = figures(r["simulate"], "ddr_mb", "{:.2f}")
        ms = figures(r["simulate"], "latency_ms", "{:.3f}")
        lines.append(f"| {m} | {r['opset']} | {r['input']} | {r['nodes']} | {host} | {comp} | {sim} | {v32} | {v8} | "
                     + " | ".join(mb + ms) + " |")
    lines += ["", counts(results), ""] + [f"{i}. {n}" for i, n in enumerate(notes, 1)]
    return "\n".join(lines) + "\n"


def counts(results):
    """The goal figures: compile / simulate (all three strategies), verify fp32, int8 on the
    models without host nodes."""
    n = len(results)
    ok3 = lambda d: bool(d) and all(s in d and d[s]["ok"] for s in STRATEGIES)
    c = sum(ok3(r.get("compile")) for r in results)
    s = sum(ok3(r.get("simulate")) for r in results)
    v = sum(bool(r.get("verify_fp32") and r["verify_fp32"]["ok"]) for r in results)
    nohost = [r for r in results if r.get("host_nodes") == 0]
    i8 = sum(bool(r.get("verify_int8") and r["verify_int8"]["ok"]) for r in nohost)
    return (f"Counts: compile {c}/{n}, simulate {s}/{n} (all of {', '.join(STRATEGIES)}); verify fp32 {v}/{n}; "
            f"int8 verify {i8}/{len(nohost)} of the models with no host node.")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="/tmp/tv", help="work folder (exports, runs, results); keep it outside the repo")
    p.add_argument("--models", default="", help="comma-separated subset of the table's models")
    p.add_argument("--force", action="store_true", help="re-run models that already have a result")
    p.add_argument("--table-only", action="store_true", help="only print the table of the saved results")
    p.add_argument("--verify-strategies", default="none,depth-first")
    p.add_argument("--no-int8", action="store_true", help="leave the int8 verify out (a later --int8-pending runs it)")
    p.add_argument("--int8-pending", action="store_true", help="run the int8 verify that --no-int8 results lack")
    p.add_argument("--figures-only", action="store_true",
                   help="re-run only compile and simulate (DDR MB, latency, host nodes) of saved results, keeping their verify columns")
    p.add_argument("--verify-timeout", type=int, default=900, help="seconds per verify step (all its strategies)")
    p.add_argument("--calib-count", type=int, default=8, help="int8 verify: seeded calibration samples")
    p.add_argument("--npu", default=os.path.join(REPO, "build", "npu"))
    p.add_argument("--hw", default="configs/edge-npu-ddr4.yaml")
    a = p.parse_args()
    known = [m[0] for m in MODELS]
    chosen = [x for x in a.models.split(",") if x]
    unknown = [x for x in chosen if x not in known]
    if unknown:
        p.error(f"--models: unknown model(s) {', '.join(unknown)} (known: {', '.join(known)})")
    a.chosen = chosen or known
    TIMEOUT_S["verify-fp32"] = TIMEOUT_S["verify-int8"] = a.verify_timeout
    a.out = os.path.abspath(a.out)
    if a.out == REPO or a.out.startswith(REPO + os.sep):
        p.error(f"--out {a.out}: inside the repository; exports are hundreds of MB and never committed")
    return a


def fp32_config(a):
    """The edge preset with mac_array.dtype fp32, written to OUT/hw/ (named after the preset
    + '-fp32'); exit 1 when the preset has no 'dtype: int8' line to change."""
    src = os.path.join(REPO, a.hw)
    text = read(src)
    if "dtype: int8" not in text:
        sys.exit(f"{a.hw}: error: no 'dtype: int8' line to make the fp32 copy from")
    os.makedirs(f"{a.out}/hw", exist_ok=True)
    dst = f"{a.out}/hw/{os.path.splitext(os.path.basename(src))[0]}-fp32.yaml"
    write(dst, text.replace("dtype: int8", "dtype: fp32", 1))
    return dst


def main():
    a = parse_args()
    os.makedirs(f"{a.out}/results", exist_ok=True)
    os.makedirs(f"{a.out}/logs", exist_ok=True)
    a.hw_fp32 = fp32_config(a)
    results = []
    for name, opset, extra, note in MODELS:
        if name not in a.chosen:
            continue
        rf = f"{a.out}/results/{name}.json"
        if not a.table_only and (a.force or not os.path.isfile(rf)):
            t0 = time.time()
            res = one_model(a, name, opset, extra, note)
            res["wall_s"] = round(time.time() - t0, 1)
            write(rf, json.dumps(res, indent=1))
            print(f"{name}: {res['wall_s']} s", file=sys.stderr, flush=True)
        elif a.figures_only and os.path.isfile(rf):
            res = json.loads(read(rf))
            t0 = time.time()
            if figures_again(a, res):
                write(rf, json.dumps(res, indent=1))
                print(f"{name}: figures {round(time.time() - t0, 1)} s", file=sys.stderr, flush=True)
        elif a.int8_pending and os.path.isfile(rf):
            res = json.loads(read(rf))
            if int8_pending(a, res):
                write(rf, json.dumps(res, indent=1))
                print(f"{name}: int8 {res['verify_int8']['s']} s", file=sys.stderr, flush=True)
        if os.path.isfile(rf):
            results.append(json.loads(read(rf)))
    md = table(results)
    write(f"{a.out}/table.md", md)
    print(md)


if __name__ == "__main__":
    main()
