"""Logging a training loop into a run store: `fathom.init(db, config)` (docs/python.md).

A Run is written as Fathom's own workers write theirs (docs/reliability.md): created and taken
in one transaction (status running, lease generation 1, started_at, host, device), its holder
tags (worker.launcher and worker.external = python, worker.host, worker.pid, worker.lease),
curves buffered and written in batches (512 rows or 2 s) with the run's heartbeat and last
update, a heartbeat thread with its own connection every 20 s, and an end status with final
metrics. Every write is fenced (db/lease.h): applied only while the run is running under this
process's lease, checked in the write's own transaction; otherwise LeaseLost and nothing
written.
"""
import atexit
import json
import math
import numbers
import os
import socket
import sys
import threading
import time

from . import _schema
from ._config_text import plain, to_yaml
from ._session import Session
from .errors import FathomError, LeaseLost

TERMINAL = ("finished", "diverged", "failed", "crashed", "cancelled")
FLUSH_ROWS = 512       # db/metric_writer.h: a batch is written at 512 rows ...
FLUSH_SECONDS = 2.0    # ... or 2 s after the first unwritten row
HEARTBEAT_S = 20.0     # db/heartbeat.h, HeartbeatThread::kDefaultInterval
MIN_HEARTBEAT_S = 0.5  # db/heartbeat.h, kMinHeartbeatInterval
LAUNCHER = "python"    # worker.launcher of a Python run
# The curves whose last logged value is also a final metric, as Fathom records train_loss and
# the evaluations (docs/schema.md); schedules and norms (lr, grad_norm) are not.
FINAL_PREFIXES = ("train_", "valid_", "test_")

_UPSERT_METRIC = ("INSERT INTO metrics (run_id, step, name, value, wall_time)"
                  " VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, name, step)"
                  " DO UPDATE SET value = excluded.value, wall_time = excluded.wall_time")
_UPSERT_FINAL = ("INSERT INTO final_metrics (run_id, name, value) VALUES (?, ?, ?)"
                 " ON CONFLICT (run_id, name) DO UPDATE SET value = excluded.value")
_UPSERT_TAG = ("INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)"
               " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value")
# PostgreSQL: a whole batch in one statement, as db/postgres_store.cpp writes it.
_UPSERT_METRICS_PG = ("INSERT INTO metrics (run_id, step, name, value, wall_time)"
                      " SELECT ?, s, n, v, w FROM unnest(?::bigint[], ?::text[],"
                      " ?::double precision[], ?::double precision[]) AS t(s, n, v, w)"
                      " ON CONFLICT (run_id, name, step) DO UPDATE SET value = excluded.value,"
                      " wall_time = excluded.wall_time")
# db/lease_sql.cpp: held_by and take_run_set.
_HELD = "lease = ? AND status = 'running'"
_TAKE = ("status = 'running', started_at = coalesce(started_at, ?), heartbeat_at = ?, host = ?,"
         " device = ?, error = NULL, diverged_step = NULL, finished_at = NULL, lease = lease + 1")


def _stored(value):
    """A metric value as the store keeps it: NaN as NULL (docs/schema.md, conventions)."""
    return None if math.isnan(value) else value


def write_metrics(session, run, rows):
    """Upserts (run, step, name, value, wall_time) rows; a (name, step) logged twice in one
    batch is written once, with its last value."""
    rows = list({(r[2], r[1]): r for r in rows}.values())
    if not rows:
        return
    if session.kind == "sqlite":
        session.execute_many(_UPSERT_METRIC, rows)
        return
    columns = list(zip(*rows))
    session.execute(_UPSERT_METRICS_PG, (run, list(columns[1]), list(columns[2]),
                                         list(columns[3]), list(columns[4])))


def check_fence(session, run, lease):
    """Inside a write transaction: LeaseLost unless `run` is running under `lease`. The read
    holds the row until the transaction ends (SQLite's write lock; PostgreSQL's FOR SHARE)."""
    rows = session.query("SELECT status, lease FROM runs WHERE id = ?" + session.lock_for_share(),
                         (run,))
    if not rows:
        raise FathomError(f"{session.shown}: no run with id {run} (deleted?)")
    status, generation = rows[0]
    if status != "running" or generation != lease:
        raise LeaseLost(run, lease, status, generation)


def _update_held(session, run, lease, assignments, params):
    """UPDATE runs SET ... of the holder (the lease in the WHERE); LeaseLost when not held."""
    changed = session.execute(f"UPDATE runs SET {assignments} WHERE id = ? AND {_HELD}",
                              (*params, run, lease))
    if changed == 0:
        check_fence(session, run, lease)
        raise FathomError(f"{session.shown}: run {run} was not updated")


class _Heartbeat(threading.Thread):
    """Refreshes heartbeat_at every `interval` seconds on a connection of its own, whatever the
    training loop is doing; learns when the run is no longer this process's (db/heartbeat.h).
    Store errors are swallowed: the next beat retries, a long outage shows as a stale beat."""

    def __init__(self, db, run, lease, interval):
        super().__init__(name=f"fathom-heartbeat-{run}", daemon=True)
        self._db, self._run, self._lease, self._interval = db, run, lease, interval
        self._stop_event = threading.Event()
        self.lost = None  # the LeaseLost a refused beat raised

    def run(self):
        session = None
        try:
            while not self._stop_event.wait(self._interval):
                try:
                    session = session or Session(self._db, read_only=False)
                    session.write(lambda: _update_held(session, self._run, self._lease,
                                                       "heartbeat_at = ?", (time.time(),)))
                except LeaseLost as e:
                    self.lost = e
                    return
                except Exception:
                    if session is not None:
                        session.close()
                    session = None
        finally:
            if session is not None:
                session.close()

    def stop(self):
        self._stop_event.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout=5)


class Run:
    """A run this process trains and logs. Make one with fathom.init(); also a context manager:
    an exception ends the run failed (KeyboardInterrupt: cancelled), a clean exit finished."""

    def __init__(self, db, config, name, sweep, axes, device, heartbeat_interval):
        if not MIN_HEARTBEAT_S <= heartbeat_interval <= 3600:
            raise FathomError(f"heartbeat_interval: {heartbeat_interval!r} s is outside "
                              f"{MIN_HEARTBEAT_S}-3600 s")
        self.config = plain({} if config is None else config)
        self.name = _name(name, self.config)
        self.sweep = sweep
        tags = _axis_tags(self.config, axes)
        self._session = Session(db, read_only=False)
        try:
            _schema.open_checked(self._session)
            self.id, self.lease = self._session.write(
                lambda: self._create(device or "cpu", tags))
        except BaseException:
            self._session.close()
            raise
        self.location = self._session.shown
        self.status = "running"
        self._rows, self._first_unwritten = [], None
        self._last = {}  # name -> (step, value): the last logged point of each curve
        self._updates = 0
        self._heartbeat = _Heartbeat(db, self.id, self.lease, heartbeat_interval)
        self._heartbeat.start()
        atexit.register(self._at_exit)

    def _create(self, device, tags):
        now = time.time()
        config_json = json.dumps(self.config)
        run_id = self._session.query(
            "INSERT INTO runs (name, sweep, config_json, config_yaml, status, host, device,"
            " created_at) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?) RETURNING id",
            (self.name, self.sweep, config_json, to_yaml(self.config), socket.gethostname(),
             device, now))[0][0]
        lease = self._session.query(f"UPDATE runs SET {_TAKE} WHERE id = ? RETURNING lease",
                                    (now, now, socket.gethostname(), device, run_id))[0][0]
        # worker.external: a holder no launcher started, judged by its heartbeat alone
        # (experiments/worker_tags.h), so `fathom sweep --resume` leaves it its run.
        holder = {"worker.launcher": LAUNCHER, "worker.external": LAUNCHER,
                  "worker.host": socket.gethostname(), "worker.pid": str(os.getpid()),
                  "worker.lease": str(lease)}
        self._session.execute_many(_UPSERT_TAG, [(run_id, k, v)
                                                 for k, v in {**holder, **tags}.items()])
        return run_id, lease

    # ---- logging ----

    def log(self, metrics, step):
        """Records `metrics` ({"train_loss": 2.3, "lr": 1e-3}) at update `step` (an int >= 0;
        step 0 is before the first update). Values are numbers (NaN kept as NULL, +-inf as
        such); a repeated (name, step) replaces the point. Rows are written in batches with the
        heartbeat and `step` as the run's last update. LeaseLost once the run is not this
        process's any more (cancelled, taken over)."""
        self._require_held()
        if isinstance(step, bool) or not isinstance(step, numbers.Integral) or step < 0:
            raise FathomError(f"run {self.id}: step must be an integer >= 0, not {step!r}")
        if not isinstance(metrics, dict) or not metrics:
            raise FathomError(f"run {self.id}: log() takes a non-empty dict of metric values")
        now = time.time()
        rows = []
        for name, value in metrics.items():
            if not isinstance(name, str) or not name:
                raise FathomError(f"run {self.id}: metric names are non-empty strings, not "
                                  f"{name!r}")
            rows.append((self.id, int(step), name, _stored(_float(name, value)), now))
        for _, s, name, value, _ in rows:
            if name not in self._last or s >= self._last[name][0]:
                self._last[name] = (s, math.nan if value is None else value)
        self._rows.extend(rows)
        self._updates = max(self._updates, int(step))
        self._first_unwritten = self._first_unwritten or now
        if len(self._rows) >= FLUSH_ROWS or now - self._first_unwritten >= FLUSH_SECONDS:
            self.flush()

    def flush(self):
        """Writes the buffered rows now, with a heartbeat (one transaction)."""
        self._require_held()
        rows, updates = list(self._rows), self._updates

        def body():
            # The fenced UPDATE first: it checks the lease and holds the run's row until the
            # commit, so the rows land only under this process's lease (one round trip less
            # than a separate check).
            _update_held(self._session, self.id, self.lease, "heartbeat_at = ?, updates = ?",
                         (time.time(), updates))
            write_metrics(self._session, self.id, rows)

        self._write(body)
        self._rows, self._first_unwritten = [], None

    def tag(self, key, value):
        """Sets a tag (run_tags) of this run; `value` is stored as text."""
        self._require_held()
        if not isinstance(key, str) or not key:
            raise FathomError(f"run {self.id}: a tag key is a non-empty string, not {key!r}")

        def body():
            check_fence(self._session, self.id, self.lease)
            self._session.execute(_UPSERT_TAG, (self.id, key, str(value)))

        self._write(body)

    def finish(self, status="finished", error=None, diverged_step=None, final=None):
        """Ends the run: writes the unwritten rows, the final metrics -- the last logged value
        of each train_*, valid_* and test_* curve, then `final` ({"test_bleu": 27.1}) over
        them -- and the end status, all
        in one transaction. `status`: finished, diverged (at `diverged_step`, default the last
        logged step), failed, crashed or cancelled; `error` says why for the last four."""
        if status not in TERMINAL:
            raise FathomError(f"run {self.id}: status {status!r} is not an end status "
                              f"({', '.join(TERMINAL)})")
        if self.status != "running":
            raise FathomError(f"run {self.id} already ended ({self.status})")
        self._require_held()
        finals = {name: value for name, (_, value) in self._last.items()
                  if name.startswith(FINAL_PREFIXES)}
        for name, value in (final or {}).items():
            finals[name] = _float(name, value)
        if status == "diverged" and diverged_step is None:
            diverged_step = self._updates
        rows, updates, now = list(self._rows), self._updates, time.time()

        def body():
            _update_held(self._session, self.id, self.lease,
                         "status = ?, error = ?, diverged_step = ?, finished_at = ?,"
                         " heartbeat_at = ?, updates = ?",
                         (status, error, diverged_step, now, now, updates))
            write_metrics(self._session, self.id, rows)
            self._session.execute_many(_UPSERT_FINAL, [(self.id, n, _stored(v))
                                                       for n, v in finals.items()])

        self._write(body)
        self._rows = []
        self.status = status
        self._close()

    @property
    def lost(self):
        """The LeaseLost the heartbeat thread met, or None while the run is this process's."""
        return self._heartbeat.lost

    # ---- ending ----

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if self.status != "running":
            return False
        if kind is None:
            self.finish()
        elif issubclass(kind, LeaseLost):
            self._close()
        elif issubclass(kind, KeyboardInterrupt):
            self._end_quietly("cancelled", "interrupted (KeyboardInterrupt)")
        else:
            self._end_quietly("failed", f"{kind.__name__}: {error}")
        return False

    def _at_exit(self):
        if self.status == "running":
            self._end_quietly("crashed", "the Python process exited without run.finish()")

    def _end_quietly(self, status, why):
        try:
            self.finish(status, error=why)
        except Exception:  # LeaseLost, a store away: nothing more can be written
            self._close()

    def _close(self):
        if self.status == "running":
            self.status = "lost"
        self._heartbeat.stop()
        self._session.close()
        atexit.unregister(self._at_exit)

    def _require_held(self):
        if self.status != "running":
            raise FathomError(f"run {self.id} ended ({self.status}): nothing more is written")
        if self._heartbeat.lost is not None:
            lost = self._heartbeat.lost
            self._close()
            raise lost

    def _write(self, body):
        try:
            self._session.write(body)
        except LeaseLost:
            self._close()
            raise

    def __repr__(self):
        return f"fathom.Run(id={self.id}, name={self.name!r}, status={self.status!r})"


def _float(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        item = getattr(value, "item", None)  # a 0-d tensor or numpy scalar
        if callable(item):
            try:
                return _float(name, item())
            except (TypeError, ValueError, RuntimeError):
                pass
        raise FathomError(f"metric {name!r}: {value!r} is not a number")
    return float(value)


def _name(name, config):
    if name is None:
        name = config.get("name") if isinstance(config.get("name"), str) else None
    if name is None:
        script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
        name = os.path.splitext(script)[0] or "python"
    if not isinstance(name, str) or not name.strip():
        raise FathomError(f"name: a non-empty string, not {name!r}")
    return name


def _axis_tags(config, axes):
    """axis.<key> tags of the swept keys, as a sweep's runs carry them (tables, LR sensitivity)."""
    from .store import flatten
    values = flatten(config)
    tags = {}
    for key in axes or []:
        if key not in values:
            raise FathomError(f"axes: {key!r} is not a key of the config (its keys: "
                              f"{', '.join(values) if values else 'none'})")
        v = values[key]
        tags["axis." + key] = v if isinstance(v, str) else json.dumps(v)
    return tags


def init(db, config=None, sweep=None, name=None, axes=None, device=None,
         heartbeat_interval=HEARTBEAT_S):
    """Records a new run in the store `db` (created when missing: a SQLite file, or the schema
    in an empty PostgreSQL database) and takes it for this process; returns its Run.

    `config`: the run's settings (a mapping, nested for sections: {"train": {"lr": 1e-3}});
    `sweep`: the name of the group of runs it belongs to; `axes`: the dotted config keys that
    the sweep varies (["train.lr"]), recorded as axis.* tags for tables and LR sensitivity;
    `name`: default config["name"], else the script's name; `device`: default "cpu"."""
    if sweep is not None and (not isinstance(sweep, str) or not sweep):
        raise FathomError(f"sweep: a non-empty string, not {sweep!r}")
    if axes is not None and sweep is None:
        raise FathomError("axes: only a sweep's runs have axes; give sweep= too")
    return Run(db, config, name, sweep, axes, device, heartbeat_interval)
