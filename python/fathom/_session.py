"""One connection to a run store, SQLite or PostgreSQL, with the store's transactions.

Locations are those of `--db` (docs/schema.md; db/store_url.cpp): a path, `sqlite:///abs.db`,
`sqlite:rel.db`, or `postgresql://` / `postgres://` URLs. Statements are written once with `?`
placeholders and run on either engine. Writes follow db/sqlite_store.cpp and
db/postgres_store.cpp: SQLite takes the write lock first (BEGIN IMMEDIATE, waiting up to
$FATHOM_DB_RETRY_SECONDS for another writer); PostgreSQL reads run in one REPEATABLE READ READ
ONLY snapshot.
"""
import contextlib
import os
import re
import sqlite3
import time
import urllib.parse

from .errors import FathomError

# How long a write waits for another process's lock (db/store_unreachable.h: 120 s).
DEFAULT_RETRY_SECONDS = 120.0


def retry_seconds():
    text = os.environ.get("FATHOM_DB_RETRY_SECONDS", "")
    try:
        value = float(text) if text else DEFAULT_RETRY_SECONDS
    except ValueError:
        raise FathomError(f"$FATHOM_DB_RETRY_SECONDS={text!r}: not a number of seconds")
    return value if value >= 0 else DEFAULT_RETRY_SECONDS


def redact(location):
    """The location with a URL's password replaced by ***, for messages."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", location)


def parse_location(location):
    """('sqlite', path) or ('postgresql', url); FathomError for what no backend takes."""
    if not isinstance(location, (str, os.PathLike)):
        raise FathomError(f"db: a path or URL, not {type(location).__name__}")
    text = os.fspath(location)
    if not text:
        raise FathomError("db: empty run store location")
    if "://" not in text:
        if text[:7].lower() == "sqlite:":
            text = text[7:]
        return "sqlite", text
    scheme, rest = text.split("://", 1)
    scheme = scheme.lower()
    if scheme == "sqlite":
        if not rest:
            raise FathomError(f"{redact(text)}: the URL names no database file")
        return "sqlite", rest
    if scheme in ("postgresql", "postgres"):
        return "postgresql", text
    raise FathomError(f"{redact(text)}: unknown run store scheme '{scheme}://'; "
                      "this package knows sqlite://, postgresql://")


class Session:
    """A connection and its engine's dialect. Use one Session from one thread."""

    def __init__(self, location, read_only):
        self.kind, self.target = parse_location(location)
        self.shown = redact(self.target) if self.kind == "postgresql" else self.target
        self.read_only = read_only
        self.conn = self._connect()

    # ---- connecting ----

    def _connect(self):
        if self.kind == "sqlite":
            return self._connect_sqlite()
        try:
            import psycopg2
        except ImportError:
            raise FathomError(f"{self.shown}: a PostgreSQL store needs psycopg2 "
                              "(Debian: apt-get install python3-psycopg2)")
        try:
            conn = psycopg2.connect(self.target, application_name="fathom-python",
                                    keepalives=1, keepalives_idle=10, keepalives_interval=5,
                                    keepalives_count=3, tcp_user_timeout=30000)
        except psycopg2.Error as e:
            raise FathomError(f"{self.shown}: cannot connect: {str(e).strip()}")
        if self.read_only:
            conn.set_session(isolation_level="REPEATABLE READ", readonly=True)
        with conn.cursor() as cur:
            cur.execute("SET idle_in_transaction_session_timeout = '30s'")
        conn.commit()
        return conn

    def _connect_sqlite(self):
        path = self.target
        if self.read_only:
            if not os.path.isfile(path):
                raise FathomError(f"{path}: no such run store file")
            uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, timeout=60, isolation_level=None,
                                   check_same_thread=False)
        else:
            parent = os.path.dirname(os.path.abspath(path))
            os.makedirs(parent, exist_ok=True)
            conn = sqlite3.connect(path, timeout=60, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass

    # ---- statements ----

    def _sql(self, sql):
        return sql if self.kind == "sqlite" else sql.replace("%", "%%").replace("?", "%s")

    def query(self, sql, params=()):
        """All rows of one statement, as tuples."""
        cur = self.conn.cursor()
        try:
            cur.execute(self._sql(sql), tuple(params))
            return cur.fetchall() if cur.description else []
        finally:
            cur.close()

    def execute(self, sql, params=()):
        """Runs one statement; returns how many rows it changed."""
        cur = self.conn.cursor()
        try:
            cur.execute(self._sql(sql), tuple(params))
            return cur.rowcount
        finally:
            cur.close()

    def execute_many(self, sql, rows):
        """One statement for each of `rows`; on PostgreSQL, 500 of them per round trip."""
        cur = self.conn.cursor()
        try:
            if self.kind == "sqlite":
                cur.executemany(sql, rows)
            else:
                from psycopg2.extras import execute_batch
                execute_batch(cur, self._sql(sql), rows, page_size=500)
        finally:
            cur.close()

    def lock_for_share(self):
        """Holds a fenced write's run row until the transaction ends (SQLite: the write lock)."""
        return "" if self.kind == "sqlite" else " FOR SHARE"

    # ---- transactions ----

    def write(self, body):
        """body() in one write transaction; its result. SQLite: under the write lock.
        PostgreSQL: retried on a fresh connection when the server drops this one, and applied
        exactly once (below)."""
        with self._errors_named():
            if self.kind == "postgresql":
                return self._retrying(body, write=True)
            self._begin_immediate()
            try:
                result = body()
                self.conn.execute("COMMIT")
                return result
            except BaseException:
                self._rollback()
                raise

    def read(self, body):
        """body() in one snapshot (a deferred transaction; PostgreSQL: REPEATABLE READ)."""
        with self._errors_named():
            if self.kind == "postgresql":
                return self._retrying(body, write=False)
            self.conn.execute("BEGIN")
            try:
                return body()
            finally:
                self._rollback()

    def _retrying(self, body, write):
        """As db/postgres_store.cpp: a transaction whose connection broke (a server restart,
        pg_terminate_backend, a network cut) runs again on a new connection, with pauses of 0.25 s
        doubling to 8 s, for up to $FATHOM_DB_RETRY_SECONDS. A write notes its transaction id
        before COMMIT; when the connection breaks during the COMMIT, txid_status says whether it
        landed, so it is never applied twice (a run created twice, an end refused as lost)."""
        import psycopg2
        deadline, pause = time.monotonic() + retry_seconds(), 0.25
        while True:
            txid = None
            try:
                try:
                    result = body()
                    if not write:
                        return result
                    txid = self.query("SELECT txid_current()")[0][0]
                    self.conn.commit()
                    return result
                finally:
                    if not write or txid is None:
                        self._rollback()
            except psycopg2.Error as e:
                if not self.conn.closed:
                    raise  # the statement's own error, not a lost connection
                lost = e
            if txid is not None and self._landed(txid, deadline):
                return result
            if time.monotonic() + pause > deadline:
                raise FathomError(f"{self.shown}: the server is out of reach for "
                                  f"{retry_seconds():g} s ($FATHOM_DB_RETRY_SECONDS): "
                                  f"{str(lost).strip()}")
            time.sleep(pause)
            pause = min(pause * 2, 8.0)
            self._reconnect(deadline)

    def _reconnect(self, deadline):
        """A new connection, retried until `deadline`; the last failure stays for the caller."""
        self.close()
        while True:
            try:
                self.conn = self._connect()
                return
            except FathomError:
                if time.monotonic() + 1 > deadline:
                    raise
                time.sleep(1)

    def _landed(self, txid, deadline):
        """Whether the transaction `txid`, whose COMMIT reply was lost, committed."""
        self._reconnect(deadline)
        status = self.query("SELECT txid_status(?)", (txid,))[0][0]
        self.conn.rollback()
        return status == "committed"

    def _rollback(self):
        try:
            if self.kind == "sqlite":
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            else:
                self.conn.rollback()
        except Exception:  # a connection already lost has nothing to roll back
            pass

    @contextlib.contextmanager
    def _errors_named(self):
        """A driver's error (a lost server, a damaged file) as a FathomError naming the store."""
        try:
            yield
        except FathomError:
            raise
        except Exception as e:
            if type(e).__module__.split(".")[0] not in ("sqlite3", "psycopg2"):
                raise
            raise FathomError(f"{self.shown}: {str(e).strip()}") from e

    def _begin_immediate(self):
        # SQLite's busy timeout (60 s) waits for the lock; a BEGIN that still finds it taken is
        # retried up to the budget, as db/sqlite_handle.cpp does.
        deadline = time.monotonic() + retry_seconds()
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                if time.monotonic() >= deadline:
                    raise FathomError(f"{self.shown}: locked by another process for more than "
                                      f"{retry_seconds():g} s ($FATHOM_DB_RETRY_SECONDS)")
                time.sleep(0.25)
