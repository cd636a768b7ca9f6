"""scripts/plot_llm.py draws the decode steps of the pairs the folder's last `npu llm` run
reports (llm.json "steps_csv"), not a steps/*.csv an earlier run into the same folder left
(a new-user finding: the plots mixed in the earlier run's strategies)."""
import importlib.util
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("plot_llm", os.path.join(HERE, "..", "..", "scripts", "plot_llm.py"))
pl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pl)

HEAD = "context,simulated,latency_ms,weight_bytes,kv_read_bytes,kv_write_bytes,activation_bytes,compulsory_bytes\n"


class LlmFolder(unittest.TestCase):
    """A temporary `npu llm --out` folder whose llm.json a test writes."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write_llm_json(self, rows):
        with open(os.path.join(self.tmp.name, "llm.json"), "w") as f:
            json.dump(rows, f)


class ReadSteps(LlmFolder):
    def setUp(self):
        super().setUp()
        os.makedirs(os.path.join(self.tmp.name, "steps"))
        for name in ("hw__none", "hw__conv-bn-act", "hw__transformer"):  # the first run's three pairs
            with open(os.path.join(self.tmp.name, "steps", name + ".csv"), "w") as f:
                f.write(HEAD + "5,1,1.0,10,2,1,3,13\n")

    def test_only_the_last_runs_pairs(self):
        # The second run: none (ok) and transformer (failed: no steps drawn).
        self.write_llm_json([{"hw": "hw", "strategy": "none", "status": "ok", "steps_csv": "steps/hw__none.csv"},
                             {"hw": "hw", "strategy": "transformer", "status": "failed", "error": "x"}])
        self.assertEqual(list(pl.read_steps(self.tmp.name)), ["hw__none"])

    def test_every_file_without_the_key(self):
        self.write_llm_json([{"hw": "hw", "strategy": "none", "status": "ok"}])  # before steps_csv existed
        self.assertEqual(sorted(pl.read_steps(self.tmp.name)), ["hw__conv-bn-act", "hw__none", "hw__transformer"])
        os.remove(os.path.join(self.tmp.name, "llm.json"))
        self.assertEqual(len(pl.read_steps(self.tmp.name)), 3)


class BatchAndFailures(LlmFolder):
    def test_batch_divides_a_step_into_tokens(self):
        # A step of batch 2 makes 2 tokens: the bytes-per-token bars divide the step by 2.
        self.write_llm_json([{"hw": "hw", "strategy": "none", "status": "ok", "batch": 2}])
        self.assertEqual(pl.read_batch(self.tmp.name), 2)
        os.remove(os.path.join(self.tmp.name, "llm.json"))
        self.assertEqual(pl.read_batch(self.tmp.name), 1)

    def test_only_failed_rows_is_told_apart_from_no_folder(self):
        self.write_llm_json([{"hw": "hw", "strategy": "none", "status": "failed", "error": "x"}])
        self.assertTrue(pl.failed_only(self.tmp.name))
        self.write_llm_json([{"hw": "hw", "strategy": "none", "status": "ok"}])
        self.assertFalse(pl.failed_only(self.tmp.name))


if __name__ == "__main__":
    unittest.main()
