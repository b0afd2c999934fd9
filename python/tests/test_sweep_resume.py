"""`fathom sweep --resume` on a sweep a Python process logs into (docs/python.md): the scheduler
leaves the run a live logger holds to it, and judges it lost -- crashed, never queued again for
a Fathom worker to train -- once its heartbeat stops (worker.external, experiments/worker_tags.h).

The logger runs as `python3 .../logger.py` from a folder whose path does not name fathom, as a
researcher's script would: Fathom's local launcher takes a process whose command line does not
name fathom for a dead worker, which is how resuming fenced such runs off before."""
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

from support import REPO, TINY_CONFIG, fathom_bin

LOGGER = """
import os, time
import fathom
run = fathom.init(os.environ["LOG_DB"], {"name": os.environ["LOG_NAME"], "train": {"lr": 0.5}},
                  sweep="mixed", heartbeat_interval=0.5)
print(run.id, flush=True)
step = 0
while not os.path.exists(os.environ["LOG_STOP"]):
    step += 1
    run.log({"train_loss": 1.0 / step}, step)
    run.flush()
    time.sleep(0.1)
run.finish()
print(step, flush=True)
"""

# The sweep's own workers beat every second; a run silent for 6 s is lost.
FOLLOW = ["--jobs", "1", "--no-progress", "--heartbeat-interval", "1", "--heartbeat-timeout", "6"]


class ResumeBesideAPythonLogger(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="pylog_")
        self.dir = self._dir.name
        self.assertNotIn("fathom", self.dir)
        self.db = os.path.join(self.dir, "runs.db")
        with open(os.path.join(self.dir, "tiny.yaml"), "w") as f:
            f.write(TINY_CONFIG)
        self.sweep = os.path.join(self.dir, "mixed.yaml")
        with open(self.sweep, "w") as f:
            f.write("name: mixed\nbase: tiny.yaml\ngrid:\n  train.lr: [0.002, 0.01]\n")
        self.script = os.path.join(self.dir, "logger.py")
        with open(self.script, "w") as f:
            f.write(LOGGER)
        self.stop = os.path.join(self.dir, "stop")

    def tearDown(self):
        self._dir.cleanup()

    def start_logger(self, name):
        env = dict(os.environ, LOG_DB=self.db, LOG_STOP=self.stop, LOG_NAME=name,
                   PYTHONPATH=os.path.join(REPO, "python"))
        logger = subprocess.Popen([sys.executable, self.script], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: logger.poll() is None and logger.kill())
        run_id = int(logger.stdout.readline())
        with open(f"/proc/{logger.pid}/cmdline", "rb") as f:
            self.assertNotIn(b"fathom", f.read())  # else the old check took it for a worker
        return logger, run_id

    def start_sweep(self):
        sweep = subprocess.Popen([fathom_bin(), "--db", self.db, "sweep", self.sweep, "--resume",
                                  *FOLLOW], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        self.addCleanup(lambda: sweep.poll() is None and sweep.kill())
        return sweep

    def run_row(self, run_id):
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30) as c:
            return c.execute("SELECT status, lease, error, updates FROM runs WHERE id = ?",
                             (run_id,)).fetchone()

    def statuses(self):
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30) as c:
            return dict(c.execute("SELECT name, status FROM runs WHERE sweep = 'mixed'"))

    def test_a_live_loggers_run_is_left_to_it_while_the_sweep_runs(self):
        fathom_bin()
        logger, run_id = self.start_logger("mixed/python")
        sweep = self.start_sweep()
        started = time.time()
        # The sweep trains its two runs, following the store every second beside the logger;
        # more than its heartbeat timeout passes before the logger is told to stop.
        deadline = started + 600
        fathom_runs = ("mixed/lr=0.002", "mixed/lr=0.01")
        while time.time() < deadline:
            s = self.statuses()
            if all(s.get(n) == "finished" for n in fathom_runs) and time.time() - started > 8:
                break
            self.assertEqual(s["mixed/python"], "running", s)
            self.assertIsNone(logger.poll(), logger.stderr.read() if logger.poll() else "")
            time.sleep(0.5)
        else:
            self.fail(f"the sweep did not finish its runs: {self.statuses()}")
        self.assertIsNone(sweep.poll(), "the sweep ended while a run of it was still running")
        open(self.stop, "w").close()
        out, err = logger.communicate(timeout=60)
        self.assertEqual(logger.returncode, 0, err)  # no LeaseLost: nothing fenced it off
        steps = int(out.split()[-1])
        sweep_out, sweep_err = sweep.communicate(timeout=120)
        self.assertEqual(sweep.returncode, 0, sweep_err)
        status, lease, error, updates = self.run_row(run_id)
        self.assertEqual((status, lease, error), ("finished", 1, None))
        self.assertEqual(updates, steps)
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as c:
            points = c.execute("SELECT count(*) FROM metrics WHERE run_id = ?",
                               (run_id,)).fetchone()[0]
        self.assertEqual(points, steps)  # every point the logger wrote, none lost

    def test_a_logger_whose_heartbeat_stopped_is_lost_and_its_run_is_not_retrained(self):
        fathom_bin()
        # Named as one of the sweep file's runs: a lost Fathom worker's run would go back to
        # the queue; a Python run cannot be trained by Fathom, so it ends crashed instead.
        logger, run_id = self.start_logger("mixed/lr=0.002")
        time.sleep(1)
        logger.send_signal(signal.SIGKILL)  # no finish(), no atexit: the run stays running
        logger.communicate(timeout=30)  # reaps it and closes its pipes
        self.assertEqual(self.run_row(run_id)[0], "running")
        time.sleep(7)  # past the 6 s timeout: the resume itself judges it (sweep_queue.cpp)
        sweep = self.start_sweep()
        out, err = sweep.communicate(timeout=600)
        self.assertIn("sweep mixed: 1 finished", out, err)  # it trained the other run
        status, lease, error, updates = self.run_row(run_id)
        self.assertEqual((status, lease), ("crashed", 1))
        self.assertIn("no heartbeat for", error)
        self.assertIn("python writer", error)
        self.assertEqual(self.statuses(), {"mixed/lr=0.002": "crashed",
                                           "mixed/lr=0.01": "finished"})


if __name__ == "__main__":
    unittest.main()
