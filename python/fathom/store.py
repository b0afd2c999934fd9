"""Reading a run store into pandas: `fathom.open(db)` (docs/python.md).

Reads never change the store (SQLite opened read-only; PostgreSQL in a READ ONLY snapshot). Each
table comes from one snapshot, as `fathom runs` and the desktop app read it.
"""
import json
import math
import time

from . import _schema
from ._session import Session
from .errors import FathomError
from .presentation import presentation_of

# A running run silent this long is lost: shown as crashed (experiments/run_control.h).
HEARTBEAT_TIMEOUT_S = 180.0

# The tag train.patience leaves on a run it ended, and the prefix a resume that trained past the
# stop puts before its text (db/early_stop_tag.h).
EARLY_STOP_TAG = "early_stop"
TRAINED_ON_PAST_EARLY_STOP = "trained on from update "
# A fork's tags (`fathom train --fork`, a fork sweep; db/fork_tags.h): the run it continues and
# the update it left it at, whole numbers (anything else, a tag set by hand, makes no fork).
FORKED_FROM_TAG = "forked_from"
FORKED_AT_TAG = "forked_at"

RUN_COLUMNS = ["id", "name", "sweep", "status", "error", "diverged_step", "updates", "host",
               "device", "git_rev", "created_at", "started_at", "finished_at", "heartbeat_at",
               "lease"]


def _fork_origins(tags):
    """{run: (parent, update)} of the runs whose fork tags are both whole numbers."""
    found = {}
    for run_id, key, value in tags:
        if key in (FORKED_FROM_TAG, FORKED_AT_TAG):
            found.setdefault(run_id, {})[key] = value
    origins = {}
    for run_id, pair in found.items():
        parent, at = pair.get(FORKED_FROM_TAG, ""), pair.get(FORKED_AT_TAG, "")
        if _whole(parent) and _whole(at) and max(abs(int(parent)), abs(int(at))) < 2**63:
            origins[run_id] = (int(parent), int(at))
    return origins


def _whole(text):
    """Whether `text` is a whole number as the store's readers take one ("12", "-3")."""
    digits = text[1:] if text.startswith(("-", "+")) else text
    return digits.isascii() and digits.isdigit()


def shown_status(status, heartbeat_at, now):
    """`crashed` for a running run whose heartbeat is older than the timeout, else `status`."""
    if status == "running" and heartbeat_at and now - heartbeat_at > HEARTBEAT_TIMEOUT_S:
        return "crashed"
    return status


def flatten(config, prefix=""):
    """{"model": {"d_model": 16}} -> {"model.d_model": 16}: nested mappings as dotted keys."""
    out = {}
    for key, value in config.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _pandas():
    try:
        import pandas
    except ImportError:
        raise FathomError("reading a store into tables needs pandas "
                          "(Debian: apt-get install python3-pandas)")
    return pandas


def _number(value):
    return math.nan if value is None else float(value)


class Store:
    """A run store opened for reading. Also a context manager (closes on exit)."""

    def __init__(self, db):
        self._session = Session(db, read_only=True)
        try:
            _schema.check_version(self._session, _schema.read_version(self._session))
        except BaseException:
            self._session.close()
            raise
        self.location = self._session.shown

    def close(self):
        self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"fathom.Store({self.location!r})"

    # ---- runs ----

    def runs(self, sweep=None, status=None):
        """One row per run, oldest first: the runs table's columns, `shown_status` (as `fathom
        runs` shows it: a running run silent for 180 s is crashed), `early_stop` (why
        train.patience ended the run, as `fathom runs --json` says; None where it trained to
        its end), `forked_from` and `forked_at` (a fork's parent and the update it left it at,
        `fathom train --fork` or a fork sweep; <NA> for a run no fork), every config key flattened to a dotted column (`model.d_model`), and each
        final metric as a column (`valid_ppl`).
        A config key that is also a run column or a final metric is named `config.KEY`.
        `status` keeps the runs whose shown status is one of it (a string or a list)."""
        return self._frame(*self._session.read(lambda: self._read_runs(sweep)), status)

    def sweep(self, name):
        """The runs of sweep `name` as runs() gives them, with only the config keys that tell
        them apart (its axes: values that differ between runs, or `axis.*` tags), which are also
        in `.attrs["axes"]`. A name no run has is refused."""
        def body():
            read = self._read_runs(name)
            tags = self._session.query(
                "SELECT DISTINCT t.key FROM run_tags t JOIN runs r ON r.id = t.run_id"
                " WHERE r.sweep = ? AND t.key LIKE 'axis.%'", (name,))
            return read, tags

        read, tags = self._session.read(body)  # one snapshot
        rows = read[0]
        if not rows:
            known = [s for (s,) in self._session.read(lambda: self._session.query(
                "SELECT DISTINCT sweep FROM runs WHERE sweep IS NOT NULL ORDER BY sweep"))]
            raise FathomError(f"{self.location}: no sweep named {name!r} in the store "
                              f"(sweeps: {', '.join(known) if known else 'none'})")
        frame = self._frame(*read, None)
        tagged = {k[len("axis."):] for (k,) in tags}
        config = frame.attrs["config_columns"]
        axes = [c for c in config if c in tagged or _varies(frame[c])]
        frame = frame.drop(columns=[c for c in config if c not in axes])
        frame.attrs["axes"] = axes
        return frame

    def run(self, run):
        """One run as a dict: the runs table's columns, `config` (the parsed config),
        `final_metrics` and `tags` (dicts)."""
        run_id = self._resolve(run)

        def body():
            row = self._session.query(
                "SELECT " + ", ".join(RUN_COLUMNS) + ", config_json FROM runs WHERE id = ?",
                (run_id,))[0]
            finals = self._session.query(
                "SELECT name, value FROM final_metrics WHERE run_id = ? ORDER BY name", (run_id,))
            tags = self._session.query("SELECT key, value FROM run_tags WHERE run_id = ?",
                                       (run_id,))
            return row, finals, tags

        row, finals, tags = self._session.read(body)
        out = dict(zip(RUN_COLUMNS, row[:-1]))
        out["shown_status"] = shown_status(out["status"], out["heartbeat_at"], time.time())
        out["config"] = _parse_config(row[-1])
        out["final_metrics"] = {n: _number(v) for n, v in finals}
        out["tags"] = dict(tags)
        return out

    def tags(self, run):
        """A run's tags (run_tags) as a dict."""
        run_id = self._resolve(run)
        return dict(self._session.read(lambda: self._session.query(
            "SELECT key, value FROM run_tags WHERE run_id = ?", (run_id,))))

    # ---- curves ----

    def metric_names(self, run):
        """The names of a run's curves, sorted."""
        run_id = self._resolve(run)
        return [n for (n,) in self._session.read(lambda: self._session.query(
            "SELECT DISTINCT name FROM metrics WHERE run_id = ? ORDER BY name", (run_id,)))]

    def metrics(self, run, names=None, long=False):
        """A run's curves: a DataFrame indexed by `step`, one column per name (NaN where a curve
        has no point at a step; NaN also where the stored value is NULL, i.e. NaN), in the order
        of `names` (default: every curve, sorted). `long=True`: one row per point with columns
        step, name, value, wall_time. `run`: an id, or a name (its latest run). A name with no
        curve in the run is refused, naming the run's curves."""
        pd = _pandas()
        run_id = self._resolve(run)
        if isinstance(names, str):
            names = [names]
        available = self.metric_names(run_id)
        wanted = list(available if names is None else names)
        missing = [n for n in wanted if n not in available]
        if missing:
            raise FathomError(f"{self.location}: run {run_id} has no curve "
                              f"{', '.join(map(repr, missing))} (its curves: "
                              f"{', '.join(available) if available else 'none'})")
        marks = ", ".join("?" for _ in wanted) or "NULL"
        rows = self._session.read(lambda: self._session.query(
            "SELECT step, name, value, wall_time FROM metrics WHERE run_id = ? AND name IN ("
            + marks + ") ORDER BY name, step", (run_id, *wanted)))
        points = pd.DataFrame([(s, n, _number(v), w) for s, n, v, w in rows],
                              columns=["step", "name", "value", "wall_time"])
        points = points.astype({"step": "int64", "value": "float64", "wall_time": "float64"})
        if long:
            return points
        wide = points.pivot(index="step", columns="name", values="value")
        wide = wide.reindex(columns=wanted)
        wide.columns.name = None
        return wide

    # ---- analyses ----

    def analyses(self, run=None, kind=None):
        """The recorded `fathom analyze` results, oldest first: a DataFrame with columns id,
        run_id (<NA> for a config analysed at initialization), kind, checkpoint, created_at,
        elapsed_s, and `params` and `result`, the parsed JSON (layouts per kind in
        docs/analyses.md). `run` (an id or a name) keeps that run's; `kind` (e.g.
        "noise-scale") that analysis's."""
        pd = _pandas()
        where, params = [], []
        if run is not None:
            where.append("run_id = ?")
            params.append(self._resolve(run))
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        rows = self._session.read(lambda: self._session.query(
            "SELECT id, run_id, kind, checkpoint, created_at, elapsed_s, params_json, "
            "result_json FROM analyses" + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY id", tuple(params)))
        frame = pd.DataFrame(
            [(i, r, k, c, t, e, json.loads(p), json.loads(j)) for i, r, k, c, t, e, p, j in rows],
            columns=["id", "run_id", "kind", "checkpoint", "created_at", "elapsed_s", "params",
                     "result"])
        return frame.astype({"id": "int64", "run_id": "Int64"})

    # ---- helpers ----

    def _resolve(self, run):
        """A run's id from an id (int or digits) or a name (its latest run)."""
        if isinstance(run, bool) or not isinstance(run, (int, str)):
            raise FathomError(f"run: an id or a name, not {type(run).__name__}")
        if isinstance(run, int) or run.isdigit():
            found = self._session.read(lambda: self._session.query(
                "SELECT id FROM runs WHERE id = ?", (int(run),)))
        else:
            found = self._session.read(lambda: self._session.query(
                "SELECT max(id) FROM runs WHERE name = ?", (run,)))
        if not found or found[0][0] is None:
            raise FathomError(f"{self.location}: no run {run!r} in the store")
        return int(found[0][0])

    def _read_runs(self, sweep):
        where, params = ("WHERE sweep = ?", (sweep,)) if sweep is not None else ("", ())
        rows = self._session.query(
            "SELECT " + ", ".join(RUN_COLUMNS) + ", config_json FROM runs " + where +
            " ORDER BY id", params)
        finals = self._session.query(
            "SELECT run_id, name, value FROM final_metrics WHERE run_id IN (SELECT id FROM runs "
            + where + ")", params)
        tags = self._session.query(
            "SELECT run_id, key, value FROM run_tags WHERE key IN (?, ?, ?) AND run_id IN "
            "(SELECT id FROM runs " + where + ")",
            (EARLY_STOP_TAG, FORKED_FROM_TAG, FORKED_AT_TAG, *params))
        return rows, finals, tags

    def _frame(self, rows, finals, tags, status):
        pd = _pandas()
        now = time.time()
        by_run = {}
        for run_id, name, value in finals:
            by_run.setdefault(run_id, {})[name] = _number(value)
        metric_names = sorted({n for m in by_run.values() for n in m})
        early_stop = {run_id: why for run_id, key, why in tags
                      if key == EARLY_STOP_TAG and not why.startswith(TRAINED_ON_PAST_EARLY_STOP)}
        forks = _fork_origins(tags)
        records, config_keys = [], []
        for row in rows:
            record = dict(zip(RUN_COLUMNS, row[:-1]))
            record["shown_status"] = shown_status(record["status"], record["heartbeat_at"], now)
            record["early_stop"] = early_stop.get(record["id"])
            record["forked_from"], record["forked_at"] = forks.get(record["id"], (None, None))
            config = flatten(_parse_config(row[-1]))
            for key in config:
                if key not in config_keys:
                    config_keys.append(key)
            record["config"] = config
            record["finals"] = by_run.get(record["id"], {})
            records.append(record)
        # A config's `name` is the run's (Fathom names a run after it): one column, not two.
        if all(r["config"].get("name", r["name"]) == r["name"] for r in records):
            config_keys = [k for k in config_keys if k != "name"]
        shown = ["shown_status", "early_stop", "forked_from", "forked_at"]
        taken = set(RUN_COLUMNS) | set(shown) | set(metric_names)
        column_of = {k: (f"config.{k}" if k in taken else k) for k in config_keys}
        table = []
        for r in records:
            line = {c: r[c] for c in RUN_COLUMNS + shown}
            for key in config_keys:
                line[column_of[key]] = r["config"].get(key)
            for name in metric_names:
                line[name] = r["finals"].get(name, math.nan)
            table.append(line)
        columns = RUN_COLUMNS + shown + [column_of[k] for k in config_keys] + \
            metric_names
        frame = pd.DataFrame(table, columns=columns)
        for name in metric_names + ["created_at", "started_at", "finished_at", "heartbeat_at"]:
            frame[name] = frame[name].astype("float64")
        for name in ("forked_from", "forked_at"):  # whole numbers, <NA> for a run no fork
            frame[name] = frame[name].astype("Int64")
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            frame = frame[frame["shown_status"].isin(wanted)].reset_index(drop=True)
        frame.attrs["config_columns"] = [column_of[k] for k in config_keys]
        frame.attrs["final_metrics"] = metric_names
        # How each is presented (unit, log axis, which way is better): the app's own table.
        frame.attrs["metric_presentation"] = {n: presentation_of(n) for n in metric_names}
        return frame


def _varies(column):
    values = {json.dumps(v, sort_keys=True, default=str) for v in column.tolist()}
    return len(values) > 1


def _parse_config(text):
    try:
        config = json.loads(text) if text else {}
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


def open(db):  # noqa: A001 -- fathom.open, as the issue names it
    """Opens the run store `db` (a path, sqlite:// or postgresql:// URL) for reading."""
    return Store(db)
