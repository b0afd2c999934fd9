"""Runs logged from Python (SQLite), read back by `fathom` and the package; fencing; statuses."""
import csv
import io
import math
import os
import sqlite3
import subprocess
import sys
import threading
import time
import unittest

import fathom
from support import Scratch, fathom as run_fathom, fathom_bin, fathom_json, sigterm_ignored

# A learning-rate sweep's outcome, by hand: loss 3.0 at initialization, these at the end.
FINAL_LOSS = {0.001: 2.5, 0.003: 2.0, 0.01: 2.8}


def log_lr_sweep(db, sweep="py-lr"):
    """Three runs of a toy loop: valid_loss at update 0 and 20, train_loss, lr, grad_norm."""
    ids = []
    for lr, final in FINAL_LOSS.items():
        config = {"name": "toy", "model": {"layers": 6}, "train": {"lr": lr, "seed": 1}}
        with fathom.init(db, config, sweep=sweep, axes=["train.lr"]) as run:
            run.log({"valid_loss": 3.0, "valid_ppl": math.exp(3.0)}, step=0)
            for step in range(1, 21):
                loss = 3.0 + (final - 3.0) * step / 20
                run.log({"train_loss": loss, "lr": lr, "grad_norm": 1.0 / step}, step)
            run.log({"valid_loss": final, "valid_ppl": math.exp(final)}, step=20)
            ids.append(run.id)
    return ids


def table_cells(db, sweep="py-lr"):
    """`fathom export table` of the sweep's valid_loss by train.lr, as {rate: loss}."""
    table = run_fathom(db, "export", "table", "--sweep", sweep, "--rows", "train.lr",
                       "--metric", "valid_loss", "--format", "csv").stdout
    rows = list(csv.reader(io.StringIO(table)))
    assert rows[0] == ["train.lr", "valid_loss"], table
    return {float(r[0]): float(r[1]) for r in rows[1:] if r}


class LoggedRunsReadByFathom(Scratch):
    def test_fathom_show_runs_and_tables_read_a_python_sweep(self):
        fathom_bin()
        db = self.path("py.db")
        ids = log_lr_sweep(db)
        shown = fathom_json(db, "show", str(ids[1]))
        self.assertEqual(shown["status"], "finished")
        self.assertEqual(shown["updates"], 20)
        self.assertEqual(shown["sweep"], "py-lr")
        self.assertAlmostEqual(shown["final_metrics"]["valid_loss"], 2.0)
        self.assertAlmostEqual(shown["final_metrics"]["train_loss"], 2.0)
        self.assertNotIn("lr", shown["final_metrics"])  # a schedule, not a result
        self.assertEqual(shown["config"]["train"]["lr"], 0.003)
        self.assertEqual(shown["tags"]["worker.launcher"], "python")
        self.assertEqual(sorted(shown["metrics"]), ["grad_norm", "lr", "train_loss",
                                                    "valid_loss", "valid_ppl"])
        text = run_fathom(db, "show", str(ids[1])).stdout
        self.assertIn("lr: 0.003", text)  # the config's YAML, printed for people
        listed = fathom_json(db, "runs", "--sweep", "py-lr")
        self.assertEqual([r["status"] for r in listed], ["finished"] * 3)
        self.assertEqual(table_cells(db), FINAL_LOSS)
        lr = run_fathom(db, "export", "lr-sensitivity", "--sweep", "py-lr").stdout
        self.assertIn("0.003", lr)  # the best rate of the grid is in the table

    def test_the_package_reads_back_what_it_logged(self):
        db = self.path("py.db")
        ids = log_lr_sweep(db)
        with fathom.open(db) as store:
            sweep = store.sweep("py-lr")
            curves = store.metrics(ids[0], ["valid_loss", "train_loss"])
        self.assertEqual(sweep.attrs["axes"], ["train.lr"])
        self.assertEqual(dict(zip(sweep["train.lr"], sweep["valid_loss"])), FINAL_LOSS)
        self.assertEqual(curves["valid_loss"].dropna().to_dict(), {0: 3.0, 20: 2.5})
        self.assertAlmostEqual(curves["train_loss"][10], 2.75)


class Statuses(Scratch):
    def test_each_way_of_ending_is_recorded(self):
        db = self.path("py.db")
        with self.assertRaises(ZeroDivisionError):
            with fathom.init(db, {"x": 1}, name="fails") as run:
                run.log({"train_loss": 1.0}, 1)
                1 / 0
        with self.assertRaises(KeyboardInterrupt):
            with fathom.init(db, {"x": 2}, name="interrupted"):
                raise KeyboardInterrupt
        run = fathom.init(db, {"x": 3}, name="diverges")
        run.log({"train_loss": 2.0}, 4)
        run.log({"train_loss": float("inf")}, 5)
        run.finish("diverged", error="loss is inf")
        with fathom.open(db) as store:
            runs = store.runs().set_index("name")
        self.assertEqual(runs.loc["fails", "status"], "failed")
        self.assertEqual(runs.loc["fails", "error"], "ZeroDivisionError: division by zero")
        self.assertEqual(runs.loc["fails", "train_loss"], 1.0)  # rows before the error kept
        self.assertEqual(runs.loc["interrupted", "status"], "cancelled")
        self.assertEqual(runs.loc["diverges", "status"], "diverged")
        self.assertEqual(runs.loc["diverges", "diverged_step"], 5)
        self.assertEqual(runs.loc["diverges", "train_loss"], math.inf)
        with self.assertRaisesRegex(fathom.FathomError, "ended"):
            run.log({"train_loss": 1.0}, 6)

    def test_a_process_that_exits_without_finish_leaves_its_run_crashed(self):
        db = self.path("py.db")
        script = ("import fathom\n"
                  f"run = fathom.init({db!r}, {{}}, name='forgot')\n"
                  "run.log({'train_loss': 1.0}, 7)\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(fathom.__file__)))
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        with fathom.open(db) as store:
            run = store.run("forgot")
        self.assertEqual(run["status"], "crashed")
        self.assertEqual(run["error"], "the Python process exited without run.finish()")
        self.assertEqual(run["updates"], 7)
        self.assertEqual(run["final_metrics"], {"train_loss": 1.0})

    def test_nan_is_stored_as_null_and_read_back_as_nan(self):
        db = self.path("py.db")
        with fathom.init(db, {}) as run:
            run.log({"train_loss": float("nan"), "grad_norm": float("-inf")}, 1)
        raw = sqlite3.connect(db).execute(
            "SELECT name, value FROM metrics ORDER BY name").fetchall()
        self.assertEqual(raw, [("grad_norm", -math.inf), ("train_loss", None)])
        with fathom.open(db) as store:
            self.assertTrue(math.isnan(store.metrics(run.id, "train_loss")["train_loss"][1]))

    def test_the_run_is_taken_as_fathom_takes_one(self):
        db = self.path("py.db")
        run = fathom.init(db, {"train": {"lr": 0.1}}, name="held", heartbeat_interval=0.5)
        con = sqlite3.connect(db)
        row = con.execute("SELECT status, lease, started_at, heartbeat_at FROM runs").fetchone()
        self.assertEqual(row[:2], ("running", 1))
        self.assertIsNotNone(row[2])
        tags = dict(con.execute("SELECT key, value FROM run_tags").fetchall())
        self.assertEqual(tags["worker.lease"], "1")
        self.assertEqual(tags["worker.launcher"], "python")
        time.sleep(1.6)  # three beats of the heartbeat thread, with no log() at all
        beat = con.execute("SELECT heartbeat_at FROM runs").fetchone()[0]
        self.assertGreater(beat, row[3] + 0.9)
        run.finish()
        con.close()


class Fencing(Scratch):
    def rows(self, db):
        con = sqlite3.connect(db)
        n = con.execute("SELECT count(*) FROM metrics").fetchone()[0]
        con.close()
        return n

    def test_a_run_cancelled_by_fathom_writes_nothing_more(self):
        fathom_bin()
        db = self.path("py.db")
        # A long heartbeat interval: the write, not the heartbeat thread, finds the cancel.
        run = fathom.init(db, {}, name="cancelled", heartbeat_interval=60)
        run.log({"train_loss": 1.0}, 1)
        run.flush()
        with sigterm_ignored():
            run_fathom(db, "cancel", str(run.id))
        run.log({"train_loss": 0.9}, 2)  # buffered: nothing reaches the store
        with self.assertRaisesRegex(fathom.LeaseLost, f"run {run.id} .* it is cancelled"):
            run.flush()
        self.assertEqual(self.rows(db), 1)
        with self.assertRaises(fathom.FathomError):
            run.finish()
        self.assertEqual(fathom_json(db, "show", str(run.id))["status"], "cancelled")

    def test_no_row_lands_after_the_takeover_that_fenced_it_off(self):
        db = self.path("py.db")

        def take_over(run_id):
            con = sqlite3.connect(db, timeout=60, isolation_level=None)
            con.execute("BEGIN IMMEDIATE")  # the write lock, as a claim takes it
            con.execute("UPDATE runs SET lease = lease + 1 WHERE id = ?", (run_id,))
            rows = con.execute("SELECT count(*) FROM metrics").fetchone()[0]
            con.execute("COMMIT")
            con.close()
            return rows

        run_id, at_takeover = race_a_takeover(self, db, take_over)
        self.assertEqual(self.rows(db), at_takeover)

    def test_the_heartbeat_thread_learns_of_a_takeover(self):
        db = self.path("py.db")
        run = fathom.init(db, {}, name="taken", heartbeat_interval=0.5)
        run.log({"train_loss": 1.0}, 1)
        # Another worker claims the run: db/lease_sql.cpp's take_run_set, a new generation.
        con = sqlite3.connect(db)
        con.execute("UPDATE runs SET status = 'running', lease = lease + 1 WHERE id = ?",
                    (run.id,))
        con.commit()
        con.close()
        deadline = time.time() + 10
        while run.lost is None and time.time() < deadline:
            time.sleep(0.1)
        self.assertIsNotNone(run.lost)
        with self.assertRaisesRegex(fathom.LeaseLost, "under lease 2, taken by another worker"):
            run.log({"train_loss": 0.5}, 2)
        self.assertEqual(self.rows(db), 0)  # the buffered row was never written
        with fathom.open(db) as store:
            self.assertEqual(store.run(run.id)["status"], "running")  # the new holder's


def race_a_takeover(test, db, take_over):
    """A run flushing as fast as it can while another holder takes it (`take_over(run_id)`
    returns the row count in the takeover's own transaction): once the takeover commits, not
    one more row lands, and the writer gets LeaseLost."""
    run = fathom.init(db, {}, name="raced", heartbeat_interval=60)
    outcome = []

    def writer():
        try:
            for step in range(1, 100000):
                run.log({"train_loss": 1.0 / step}, step)
                run.flush()
            outcome.append("never fenced")
        except fathom.LeaseLost as e:
            outcome.append(e)

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.5)
    at_takeover = take_over(run.id)
    thread.join(timeout=60)
    test.assertIsInstance(outcome[0], fathom.LeaseLost)
    test.assertGreater(at_takeover, 0)
    return run.id, at_takeover


class BadInput(Scratch):
    def test_bad_values_are_refused_naming_them(self):
        db = self.path("py.db")
        with self.assertRaisesRegex(fathom.FathomError, r"train\.when: .*type date"):
            import datetime
            fathom.init(db, {"train": {"when": datetime.date(2026, 1, 1)}})
        with self.assertRaisesRegex(fathom.FathomError, r"axes: 'train\.lr' is not a key"):
            fathom.init(db, {"lr": 1}, sweep="s", axes=["train.lr"])
        with fathom.init(db, {}) as run:
            with self.assertRaisesRegex(fathom.FathomError, "step must be an integer >= 0"):
                run.log({"train_loss": 1.0}, -1)
            with self.assertRaisesRegex(fathom.FathomError, r"metric 'train_loss': 'low'"):
                run.log({"train_loss": "low"}, 1)
            with self.assertRaisesRegex(fathom.FathomError, "not an end status"):
                run.finish("done")


if __name__ == "__main__":
    unittest.main()
