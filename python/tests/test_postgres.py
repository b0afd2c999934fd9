"""PostgreSQL (the server of scripts/pg-test-server.sh): a fathom-written store read back, a
Python-logged run read by `fathom`, the schema, fencing and a newer store refused."""
import os
import unittest

import fathom
from support import (Scratch, drop_postgres_database, fathom as run_fathom, fathom_bin,
                     fathom_json, postgres_database, postgres_exec, sigterm_ignored, train_tiny)
from test_log_run import FINAL_LOSS, log_lr_sweep, race_a_takeover, table_cells


def columns(url):
    return postgres_exec(url, "SELECT table_name::text, column_name::text, data_type::text,"
                         " is_nullable::text, coalesce(column_default::text, ''), is_identity::text"
                         " FROM information_schema.columns WHERE table_schema = current_schema()"
                         " ORDER BY 1, 2")


def indexes(url):
    return postgres_exec(url, "SELECT indexname::text, indexdef FROM pg_indexes"
                         " WHERE schemaname = current_schema() ORDER BY 1")


class Postgres(Scratch):
    def setUp(self):
        super().setUp()
        self.databases = []

    def tearDown(self):
        for name in self.databases:
            drop_postgres_database(name)
        super().tearDown()

    def database(self, suffix):
        name = f"py{os.getpid()}_{suffix}"
        url = postgres_database(name)
        self.databases.append(name)
        return url

    def test_a_fathom_store_reads_as_its_sqlite_copy(self):
        fathom_bin()
        db = self.path("runs.db")
        run_id = train_tiny(db, self.dir)
        url = self.database("copy")
        run_fathom(db, "db", "copy", db, url)
        with fathom.open(db) as local, fathom.open(url) as server:
            a, b = local.runs(), server.runs()
            self.assertEqual(a.drop(columns=["shown_status"]).to_dict("records"),
                             b.drop(columns=["shown_status"]).to_dict("records"))
            self.assertTrue(local.metrics(run_id).equals(server.metrics(run_id)))
        self.assertEqual(b.loc[0, "status"], "finished")

    def test_a_python_sweep_is_read_by_fathom(self):
        fathom_bin()
        url = self.database("logged")
        ids = log_lr_sweep(url)  # the empty database gets the schema first
        shown = fathom_json(url, "show", str(ids[2]))
        self.assertEqual(shown["status"], "finished")
        self.assertAlmostEqual(shown["final_metrics"]["valid_loss"], FINAL_LOSS[0.01])
        self.assertEqual(table_cells(url), FINAL_LOSS)
        with fathom.open(url) as store:
            sweep = store.sweep("py-lr")
        self.assertEqual(dict(zip(sweep["train.lr"], sweep["valid_loss"])), FINAL_LOSS)

    def test_the_schema_created_here_is_fathoms(self):
        fathom_bin()
        by_fathom, by_python = self.database("sf"), self.database("sp")
        db = self.path("runs.db")
        train_tiny(db, self.dir)
        run_fathom(db, "db", "copy", db, by_fathom)
        fathom.init(by_python, {}).finish()
        self.assertEqual(columns(by_python), columns(by_fathom))
        self.assertEqual(indexes(by_python), indexes(by_fathom))
        self.assertEqual(postgres_exec(by_python, "SELECT key, value FROM fathom_meta ORDER BY 1"),
                         postgres_exec(by_fathom, "SELECT key, value FROM fathom_meta ORDER BY 1"))

    def test_a_cancelled_run_writes_nothing_more(self):
        fathom_bin()
        url = self.database("fence")
        run = fathom.init(url, {}, name="cancelled", heartbeat_interval=60)
        run.log({"train_loss": 1.0}, 1)
        run.flush()
        with sigterm_ignored():
            run_fathom(url, "cancel", str(run.id))
        run.log({"train_loss": 0.5}, 2)
        with self.assertRaisesRegex(fathom.LeaseLost, "it is cancelled"):
            run.flush()
        self.assertEqual(postgres_exec(url, "SELECT count(*) FROM metrics")[0][0], 1)

    def test_no_row_lands_after_the_takeover_that_fenced_it_off(self):
        url = self.database("race")
        import psycopg2

        def take_over(run_id):
            conn = psycopg2.connect(url)
            with conn.cursor() as cur:
                cur.execute("UPDATE runs SET lease = lease + 1 WHERE id = %s", (run_id,))
                cur.execute("SELECT count(*) FROM metrics")
                rows = cur.fetchone()[0]
            conn.commit()
            conn.close()
            return rows

        run_id, at_takeover = race_a_takeover(self, url, take_over)
        self.assertEqual(postgres_exec(url, "SELECT count(*) FROM metrics")[0][0], at_takeover)

    def test_a_dropped_connection_is_made_again_and_nothing_is_lost(self):
        url = self.database("dropped")
        name = url.rsplit("/", 1)[1]
        run = fathom.init(url, {}, name="dropped", heartbeat_interval=0.5)
        with fathom.open(url) as store:
            for step in range(1, 31):
                run.log({"train_loss": 1.0 / step}, step)
                if step % 10 == 0:
                    run.flush()
                    # The server ends every session of the package on this database: the run's,
                    # its heartbeat thread's and this reader's (as a restart or failover would).
                    ended = postgres_exec(
                        url, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        " WHERE datname = %s AND application_name = 'fathom-python'", (name,))
                    self.assertGreaterEqual(ended[0][0], 2)
                    self.assertEqual(len(store.runs()), 1)  # the reader reconnects too
            run.finish()
            curve = store.metrics(run.id, "train_loss")["train_loss"]
        self.assertEqual(curve.index.tolist(), list(range(1, 31)))
        self.assertEqual(postgres_exec(url, "SELECT status, lease FROM runs"), [("finished", 1)])

    def test_nan_infinity_and_a_repeated_point(self):
        url = self.database("values")
        with fathom.init(url, {}) as run:
            run.log({"train_loss": float("nan"), "grad_norm": float("-inf")}, 1)
            run.log({"train_loss": 2.0}, 2)
            run.log({"train_loss": 1.5}, 2)  # the same point again, in the same batch
        self.assertEqual(postgres_exec(url, "SELECT name, step, value FROM metrics ORDER BY 1, 2"),
                         [("grad_norm", 1, float("-inf")), ("train_loss", 1, None),
                          ("train_loss", 2, 1.5)])
        with fathom.open(url) as store:
            self.assertEqual(store.run(run.id)["final_metrics"], {"train_loss": 1.5})

    def test_a_wrong_password_is_refused_without_showing_it(self):
        url = self.database("auth")
        wrong = url.replace(url.split(":")[2].split("@")[0], "not-the-password-42")
        with self.assertRaises(fathom.FathomError) as caught:
            fathom.open(wrong)
        self.assertIn("cannot connect", str(caught.exception))
        self.assertNotIn("not-the-password-42", str(caught.exception))
        self.assertIn("***", str(caught.exception))

    def test_a_newer_schema_is_refused(self):
        url = self.database("newer")
        fathom.init(url, {}).finish()
        postgres_exec(url, "UPDATE fathom_meta SET value = %s WHERE key = 'schema_version'",
                      (str(fathom.SCHEMA_VERSION + 1),))
        with self.assertRaisesRegex(fathom.SchemaTooNew,
                                    f"version {fathom.SCHEMA_VERSION + 1}, newer .* "
                                    f"\\({fathom.SCHEMA_VERSION}\\)"):
            fathom.open(url)
        password = url.split(":")[2].split("@")[0]
        try:
            fathom.init(url, {})
        except fathom.SchemaTooNew as e:
            self.assertNotIn(password, str(e))  # a URL's password is never shown
            self.assertIn("***", str(e))


if __name__ == "__main__":
    unittest.main()
