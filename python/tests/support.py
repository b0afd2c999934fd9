"""What the package's tests share: the `fathom` binary, a tiny config, the PostgreSQL test server.

ctest sets FATHOM_BIN (the built `fathom`) and FATHOM_TEST_PG_DIR (the directory of the server
scripts/pg-test-server.sh started); run by hand, build/fathom beside the repository is used. A
test that needs what is not there is skipped with the reason, never passed.
"""
import contextlib
import json
import os
import signal
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A tiny synthetic-task config (tests/core/test_cli.cpp's): trains in seconds on one thread.
# Curves: train_loss every 3 updates (3, 6, 9, 12), valid_loss at 0, 6 and 12.
TINY_CONFIG = """name: py-tiny
device: cpu
model:
  d_model: 16
  heads: 2
  d_ff: 32
  encoder_layers: 1
  decoder_layers: 1
data:
  task: synthetic
  max_tokens: 256
  synthetic: {vocab: 8, train_size: 300, valid_size: 20, test_size: 10}
train:
  lr: 0.005
  warmup: 10
  max_updates: 12
  valid_every: 6
  log_every: 3
  threads: 1
eval:
  beam: 2
  max_sentences: 5
"""


def fathom_bin():
    path = os.environ.get("FATHOM_BIN") or os.path.join(REPO, "build", "fathom")
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"no fathom binary at {path} (build it, or set FATHOM_BIN)")
    return path


def fathom(db, *args, check=True):
    """Runs `fathom --db DB ARGS...`; its CompletedProcess (text). check: exit 0 required."""
    env = dict(os.environ, FATHOM_DB_RETRY_SECONDS="30")
    r = subprocess.run([fathom_bin(), "--db", db, *args], capture_output=True, text=True,
                       env=env, timeout=600)
    if check and r.returncode != 0:
        raise AssertionError(f"fathom {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return r


def fathom_json(db, *args):
    return json.loads(fathom(db, "--json", *args).stdout)


def train_tiny(db, directory, *settings):
    """Trains TINY_CONFIG into `db` with `--set` settings ("train.lr=0.01"); the run's id."""
    config = os.path.join(directory, "tiny.yaml")
    with open(config, "w") as f:
        f.write(TINY_CONFIG)
    sets = [arg for s in settings for arg in ("--set", s)]
    fathom(db, "train", config, "--no-progress", *sets)
    return max(r["id"] for r in fathom_json(db, "runs"))


@contextlib.contextmanager
def sigterm_ignored():
    """`fathom cancel` SIGTERMs a run's process when its command line names fathom (a test run
    as `python3 -m unittest discover -s ~/fathom/python/tests`): the test goes on regardless."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Scratch(unittest.TestCase):
    """A test case with a scratch directory, removed after each test."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="fathom_py_")
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


# ---- the PostgreSQL test server ----

def postgres_admin_url():
    """postgresql://fathom:PW@127.0.0.1:PORT/postgres, or SkipTest with the reason."""
    directory = os.environ.get("FATHOM_TEST_PG_DIR", "")
    if not directory:
        raise unittest.SkipTest("FATHOM_TEST_PG_DIR is not set (run through ctest, which starts "
                                "the server with scripts/pg-test-server.sh)")
    skip = os.path.join(directory, "skip")
    if os.path.exists(skip):
        with open(skip) as f:
            raise unittest.SkipTest("PostgreSQL test server did not start: " + f.read().strip())
    url = os.path.join(directory, "url")
    if not os.path.exists(url):
        raise unittest.SkipTest(f"no PostgreSQL test server at {directory}")
    with open(url) as f:
        return f.read().strip()


def postgres_database(name):
    """A fresh, empty database `name` on the test server; its URL."""
    import psycopg2
    admin = postgres_admin_url()
    conn = psycopg2.connect(admin)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()
    return admin[:admin.rfind("/") + 1] + name


def drop_postgres_database(name):
    import psycopg2
    conn = psycopg2.connect(postgres_admin_url())
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    conn.close()


def postgres_exec(url, sql, params=()):
    """Runs one statement on `url` outside the package; its rows (or [])."""
    import psycopg2
    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cur:
            cur.execute(sql, params)
            rows = cur.fetchall() if cur.description else []
        conn.commit()
        return rows
    finally:
        conn.close()
