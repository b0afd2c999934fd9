"""Schema versions (SQLite): a store the package creates is the one `fathom` creates; a newer,
older or foreign store is refused, named, and left as it was."""
import hashlib
import os
import sqlite3
import unittest

import fathom
from support import Scratch, fathom as run_fathom, fathom_bin, fathom_json, train_tiny


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def layout(db):
    """Every table's columns (name, type, not null, default, key) and every index's columns."""
    con = sqlite3.connect(db)
    out = {"version": con.execute("PRAGMA user_version").fetchone()[0],
           "application_id": con.execute("PRAGMA application_id").fetchone()[0],
           "journal_mode": con.execute("PRAGMA journal_mode").fetchone()[0]}
    tables = [t for (t,) in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        out["table " + table] = con.execute(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)",
            (table,)).fetchall()
        out["without rowid " + table] = "WITHOUT ROWID" in con.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        for name, unique in con.execute(
                "SELECT name, \"unique\" FROM pragma_index_list(?) ORDER BY name", (table,)):
            columns = [c for (c,) in con.execute(
                "SELECT name FROM pragma_index_info(?) ORDER BY seqno", (name,))]
            key = name if not name.startswith("sqlite_autoindex") else f"auto {table} {columns}"
            out["index " + key] = (table, unique, columns)
    con.close()
    return out


class SchemaOfNewStores(Scratch):
    def test_a_store_created_here_is_the_one_fathom_creates(self):
        by_fathom, by_python = self.path("fathom.db"), self.path("python.db")
        train_tiny(by_fathom, self.dir)
        with fathom.init(by_python, {"a": 1}) as run:
            run.log({"train_loss": 1.0}, 1)
        expected, found = layout(by_fathom), layout(by_python)
        self.assertEqual(expected["version"], fathom.SCHEMA_VERSION)
        self.assertEqual(sorted(found), sorted(expected))
        for key in expected:
            self.assertEqual(found[key], expected[key], key)
        # fathom opens it for reading and for writing (its table check included).
        self.assertEqual(fathom_json(by_python, "runs")[0]["status"], "finished")
        run_fathom(by_python, "delete", str(run.id), "--yes")
        self.assertEqual(fathom_json(by_python, "runs"), [])


class RefusedStores(Scratch):
    def make_store(self, version):
        db = self.path("runs.db")
        with fathom.init(db, {}) as run:
            run.log({"train_loss": 1.0}, 1)
        con = sqlite3.connect(db)
        con.execute(f"PRAGMA user_version = {version}")
        con.commit()
        con.close()
        return db

    def test_a_newer_schema_is_refused_naming_both_versions(self):
        db = self.make_store(fathom.SCHEMA_VERSION + 1)
        before = digest(db)
        for attempt in (lambda: fathom.open(db), lambda: fathom.init(db, {})):
            with self.assertRaises(fathom.SchemaTooNew) as caught:
                attempt()
            message = str(caught.exception)
            self.assertIn(db, message)
            self.assertIn(f"schema version {fathom.SCHEMA_VERSION + 1}", message)
            self.assertIn(f"understands ({fathom.SCHEMA_VERSION})", message)
            self.assertEqual(caught.exception.found, fathom.SCHEMA_VERSION + 1)
        self.assertEqual(digest(db), before)

    def test_fathom_refuses_the_same_store(self):
        fathom_bin()
        db = self.make_store(fathom.SCHEMA_VERSION + 1)
        self.assertIn("newer", run_fathom(db, "runs", check=False).stderr)

    def test_an_older_schema_names_the_upgrade_that_then_opens_it(self):
        db = self.make_store(fathom.SCHEMA_VERSION - 1)
        con = sqlite3.connect(db)  # as version 4 left it: v5 only added this index
        con.execute("DROP INDEX runs_state")
        con.commit()
        con.close()
        with self.assertRaisesRegex(fathom.FathomError,
                                    r"schema version 4, older .*`fathom db upgrade`"):
            fathom.open(db)
        fathom_bin()
        self.assertIn("fathom db upgrade", run_fathom(db, "runs", check=False).stderr)
        run_fathom(db, "db", "upgrade")
        with fathom.open(db) as store:
            self.assertEqual(len(store.runs()), 1)  # make_store's run, kept

    def test_a_damaged_store_is_not_written_to(self):
        db = self.path("runs.db")
        with fathom.init(db, {}) as run:
            for step in range(2000):  # some forty pages of curve points
                run.log({"train_loss": 1.0 / (step + 1), "lr": 1e-3}, step)
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        con.close()
        with open(db, "r+b") as f:  # page 11's b-tree header: a leaf with 65535 cells
            f.seek(page_size * 10)
            f.write(b"\x0d\xff\xff\xff\xff\xff\xff\xff")
        before = digest(db)
        with self.assertRaisesRegex(fathom.FathomError, r"(?s)run store is damaged .*[Pp]age 11.*"
                                    r"nothing was written.*\.recover"):
            fathom.init(db, {})
        self.assertEqual(digest(db), before)

    def test_other_files_are_not_stores(self):
        foreign = self.path("other.db")
        con = sqlite3.connect(foreign)
        con.execute("CREATE TABLE t (x)")
        con.commit()
        con.close()
        with self.assertRaisesRegex(fathom.FathomError, "not a Fathom run store"):
            fathom.init(foreign, {})
        text = self.path("notes.db")
        with open(text, "w") as f:
            f.write("not a database, but long enough to have a header of sorts " * 20)
        with self.assertRaisesRegex(fathom.FathomError, f"{text}: cannot read the run store"):
            fathom.open(text)
        with self.assertRaisesRegex(fathom.FathomError, "no such run store file"):
            fathom.open(self.path("missing.db"))
        self.assertFalse(os.path.exists(self.path("missing.db")))
        with self.assertRaisesRegex(fathom.FathomError, "unknown run store scheme 'mysql://'"):
            fathom.open("mysql://u:secret@h/db")


if __name__ == "__main__":
    unittest.main()
