"""python/examples/pytorch_lr_sweep.py, the PyTorch loop of docs/python.md, run as written."""
import importlib.util
import os
import subprocess
import sys
import unittest

import fathom
from support import REPO, Scratch, fathom as run_fathom, fathom_bin

EXAMPLE = os.path.join(REPO, "python", "examples", "pytorch_lr_sweep.py")


class PytorchExample(Scratch):
    def test_the_example_sweep_is_a_learning_rate_sweep_fathom_reads(self):
        if importlib.util.find_spec("torch") is None:
            self.skipTest("PyTorch is not installed (Debian: apt-get install python3-torch)")
        db = self.path("runs.db")
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        done = subprocess.run([sys.executable, EXAMPLE, db], capture_output=True, text=True,
                              env=env, timeout=600)
        self.assertEqual(done.returncode, 0, done.stderr)
        with fathom.open(db) as store:
            sweep = store.sweep("mlp-lr")
            curves = store.metrics(int(sweep["id"][0]), ["valid_loss", "train_loss", "lr"])
        self.assertEqual(sweep.attrs["axes"], ["train.lr"])
        self.assertEqual(sorted(sweep["train.lr"]), [1e-3, 3e-3, 1e-2, 3e-2, 1e-1])
        self.assertEqual(set(sweep["status"]), {"finished"})
        self.assertEqual(curves["valid_loss"].dropna().index.tolist(), list(range(0, 301, 50)))
        self.assertEqual(curves["train_loss"].dropna().index.tolist(), list(range(10, 301, 10)))
        # Warmup: the rate at update 10 is 10/20 of the peak (LambdaLR before the 10th step).
        self.assertAlmostEqual(curves["lr"][10], 1e-3 * 10 / 20)
        # Every run learned something: its validation loss fell below its value at update 0.
        for run_id in sweep["id"]:
            with fathom.open(db) as store:
                valid = store.metrics(int(run_id), "valid_loss")["valid_loss"].dropna()
            self.assertLess(valid.iloc[-1], valid.iloc[0])
        fathom_bin()
        lr = run_fathom(db, "export", "lr-sensitivity", "--sweep", "mlp-lr").stdout
        self.assertIn("all runs", lr)  # one curve: the sweep varies only the rate


if __name__ == "__main__":
    unittest.main()
