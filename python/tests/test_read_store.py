"""A store written by `fathom` (a trained run and a two-run sweep) read back into pandas."""
import hashlib
import math
import os
import sqlite3
import tempfile
import unittest

import fathom
from support import fathom as run_fathom, fathom_json, train_tiny


def fathom_na():
    import pandas
    return pandas.NA


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ReadFathomStore(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory(prefix="fathom_py_read_")
        d = cls._dir.name
        cls.db = os.path.join(d, "runs.db")
        cls.run_id = train_tiny(cls.db, d)
        with open(os.path.join(d, "lr.yaml"), "w") as f:
            f.write("name: py-lr\nbase: tiny.yaml\ngrid:\n  train.lr: [0.002, 0.01]\n")
        run_fathom(cls.db, "sweep", os.path.join(d, "lr.yaml"), "--jobs", "1", "--no-progress")

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def copy_of_store(self, directory):
        """A copy of the class's store in `directory` (SQLite's backup): its path."""
        db = os.path.join(directory, "runs.db")
        src, dst = sqlite3.connect(self.db), sqlite3.connect(db)
        src.backup(dst)
        src.close()
        dst.close()
        return db

    def test_runs_hold_what_fathom_show_reports(self):
        shown = fathom_json(self.db, "show", str(self.run_id))
        with fathom.open(self.db) as store:
            runs = store.runs()
        self.assertEqual(len(runs), 3)
        row = runs[runs["id"] == self.run_id].iloc[0]
        self.assertEqual(row["status"], "finished")
        self.assertEqual(row["shown_status"], "finished")
        self.assertEqual(row["name"], "py-tiny")
        self.assertEqual(row["updates"], 12)
        # Config keys as dotted columns, with the values of the YAML above.
        self.assertEqual(row["model.d_model"], 16)
        self.assertEqual(row["train.lr"], 0.005)
        self.assertEqual(row["data.synthetic.vocab"], 8)
        # Every final metric fathom show prints, as a column with the same value.
        self.assertIn("valid_ppl", shown["final_metrics"])
        for name, value in shown["final_metrics"].items():
            if value is None:
                self.assertTrue(math.isnan(row[name]), name)
            else:
                self.assertAlmostEqual(row[name], value, places=9, msg=name)

    def test_early_stop_is_what_fathom_runs_says(self):
        # A copy of the store, two sweep runs tagged as train.patience leaves them: one ended by
        # it, one trained past it by a resume. early_stop is the text of the first, else None.
        with tempfile.TemporaryDirectory(prefix="fathom_py_early_") as d:
            db = self.copy_of_store(d)
            dst = sqlite3.connect(db)
            ids = [i for (i,) in dst.execute("SELECT id FROM runs WHERE sweep = 'py-lr' ORDER BY id")]
            why = "update 9: 2 validations since update 3 without a valid_loss below 2.5"
            dst.execute("INSERT INTO run_tags VALUES (?, 'early_stop', ?)", (ids[0], why))
            dst.execute("INSERT INTO run_tags VALUES (?, 'early_stop', ?)",
                        (ids[1], "trained on from update 9 (train.patience 0) after " + why))
            dst.commit()
            dst.close()
            listed = {r["id"]: r.get("early_stop") for r in fathom_json(db, "runs")}
            with fathom.open(db) as store:
                runs = store.runs()
                sweep = store.sweep("py-lr")
        self.assertEqual(listed[ids[0]], why)
        self.assertIsNone(listed[ids[1]])
        for frame in (runs, sweep):
            got = {i: frame[frame["id"] == i].iloc[0]["early_stop"] for i in frame["id"]}
            self.assertEqual(got, {i: listed[i] for i in got})
        self.assertEqual(runs.columns.get_loc("early_stop"), runs.columns.get_loc("shown_status") + 1)

    def test_forks_name_their_parent_and_update(self):
        # A copy of the store: a real fork of the tiny run (its resume point at its last update,
        # with a longer schedule to train), and a sweep run whose fork tags were set by hand and
        # are no numbers, which makes no fork -- as `fathom` reads them (db/fork_tags.h).
        with tempfile.TemporaryDirectory(prefix="fathom_py_fork_") as d:
            db = self.copy_of_store(d)
            # The parent's files lie beside the original store: the fork links them from there.
            artifacts = os.path.join(os.path.dirname(self.db), "runs.artifacts")
            forked = run_fathom(db, "--artifacts", artifacts, "train", "--fork", str(self.run_id),
                                "--from", "12", "--set", "train.max_updates=15",
                                "--no-progress").stderr
            dst = sqlite3.connect(db)
            (fork_id,) = dst.execute("SELECT MAX(id) FROM runs").fetchone()
            (other,) = dst.execute("SELECT MIN(id) FROM runs WHERE sweep = 'py-lr'").fetchone()
            dst.executemany("INSERT INTO run_tags VALUES (?, ?, ?)",
                            [(other, "forked_from", "one"), (other, "forked_at", "12")])
            dst.commit()
            dst.close()
            with fathom.open(db) as store:
                runs = store.runs()
        row = runs[runs["id"] == fork_id].iloc[0]
        self.assertEqual((row["forked_from"], row["forked_at"]), (self.run_id, 12), forked)
        self.assertEqual(str(runs["forked_from"].dtype), "Int64")
        for plain in (self.run_id, other):
            row = runs[runs["id"] == plain].iloc[0]
            self.assertTrue(row["forked_from"] is fathom_na() and row["forked_at"] is fathom_na())
        self.assertEqual(runs.columns.get_loc("forked_at"), runs.columns.get_loc("early_stop") + 2)

    def test_curves_are_at_the_configs_steps(self):
        with fathom.open(self.db) as store:
            curves = store.metrics(self.run_id, ["train_loss", "valid_loss"])
            long = store.metrics(self.run_id, "valid_loss", long=True)
        # log_every 3 up to 12; valid_every 6, and once before the first update.
        self.assertEqual(curves["train_loss"].dropna().index.tolist(), [3, 6, 9, 12])
        self.assertEqual(curves["valid_loss"].dropna().index.tolist(), [0, 6, 12])
        self.assertEqual(list(curves.columns), ["train_loss", "valid_loss"])
        self.assertEqual(list(long.columns), ["step", "name", "value", "wall_time"])
        con = sqlite3.connect(self.db)
        raw = con.execute("SELECT step, value FROM metrics WHERE run_id = ? AND name ="
                          " 'valid_loss' ORDER BY step", (self.run_id,)).fetchall()
        con.close()
        self.assertEqual(list(zip(long["step"], long["value"])), raw)

    def test_a_sweep_has_its_axis_and_statuses(self):
        with fathom.open(self.db) as store:
            sweep = store.sweep("py-lr")
        self.assertEqual(sweep.attrs["axes"], ["train.lr"])
        self.assertEqual(sorted(sweep["train.lr"]), [0.002, 0.01])
        self.assertEqual(set(sweep["status"]), {"finished"})
        self.assertNotIn("model.d_model", sweep.columns)  # the same in every run: no axis
        self.assertTrue(sweep["valid_loss"].notna().all())

    def test_a_run_is_found_by_its_name(self):
        with fathom.open(self.db) as store:
            self.assertEqual(store.run("py-tiny")["id"], self.run_id)
            run = store.run("py-lr/lr=0.01")  # a sweep's run is named by its axis values
            # The sweep's axis tag and the stored config agree.
            self.assertEqual(float(run["tags"]["axis.train.lr"]), 0.01)
            self.assertEqual(run["config"]["train"]["lr"], 0.01)
            self.assertEqual(run["sweep"], "py-lr")

    def test_reading_changes_nothing(self):
        before = digest(self.db)
        with fathom.open(self.db) as store:
            store.runs()
            store.sweep("py-lr")
            store.metrics(self.run_id)
        self.assertEqual(digest(self.db), before)

    def test_bad_names_are_refused_naming_what_there_is(self):
        with fathom.open(self.db) as store:
            with self.assertRaisesRegex(fathom.FathomError, r"no curve 'valid_bleu_x'.*train_loss"):
                store.metrics(self.run_id, ["valid_bleu_x"])
            with self.assertRaisesRegex(fathom.FathomError, r"no sweep named 'nope'.*py-lr"):
                store.sweep("nope")
            with self.assertRaisesRegex(fathom.FathomError, r"no run 999"):
                store.metrics(999)
            self.assertEqual(len(store.runs(status="running")), 0)
            self.assertEqual(len(store.runs(status=["finished"])), 3)


    def test_analyses_hold_what_fathom_analyze_printed(self):
        d = tempfile.mkdtemp(dir=self._dir.name)
        db = self.copy_of_store(d)
        printed = fathom_json(db, "analyze", "noise-scale", str(self.run_id), "--checkpoint",
                              "init", "--batches", "2", "--no-progress")
        config = os.path.join(self._dir.name, "tiny.yaml")
        fathom_json(db, "analyze", "noise-scale", config, "--batches", "3", "--no-progress")
        with fathom.open(db) as store:
            every = store.analyses()
            of_run = store.analyses(run=self.run_id)
            none = store.analyses(kind="beta")
        self.assertEqual(list(every["kind"]), ["noise-scale", "noise-scale"])
        self.assertEqual(len(of_run), 1)
        row = of_run.iloc[0]
        self.assertEqual(row["run_id"], self.run_id)
        self.assertEqual(row["checkpoint"], "init")
        self.assertEqual(row["result"], printed)
        self.assertEqual(row["params"]["batches"], 2)
        self.assertGreater(row["elapsed_s"], 0)
        self.assertIs(every.iloc[1]["run_id"], fathom_na())  # a config at initialization
        self.assertEqual(every.iloc[1]["result"]["batches"], 3)
        self.assertEqual(len(none), 0)


if __name__ == "__main__":
    unittest.main()
