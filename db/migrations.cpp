#include "db/migrations.h"

#include <sqlite3.h>

#include "core/util/error.h"

namespace fathom::db {

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> steps = {
      {"v1: runs, final_metrics, metrics, artifacts, run_tags",
       R"sql(
PRAGMA application_id = 1179928653;  -- kApplicationId, "FTHM"

CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  sweep         TEXT,                       -- NULL: not part of a sweep
  config_json   TEXT NOT NULL,
  config_yaml   TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN
                  ('queued','running','finished','diverged','failed','crashed','cancelled')),
  error         TEXT,                       -- NULL unless failed/crashed/diverged
  diverged_step INTEGER,                    -- update at which divergence was detected
  created_at    REAL NOT NULL,              -- unix seconds
  started_at    REAL,
  finished_at   REAL,
  heartbeat_at  REAL,
  host          TEXT,
  device        TEXT,
  git_rev       TEXT,
  updates       INTEGER NOT NULL DEFAULT 0  -- last update reached
);
CREATE INDEX runs_by_name ON runs(name, id);
CREATE INDEX runs_by_sweep ON runs(sweep, id);

CREATE TABLE final_metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name   TEXT NOT NULL,
  value  REAL,                              -- NULL: NaN
  PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

-- The primary key is the UNIQUE(run_id, name, step) constraint *and* the (run_id, name, step)
-- index: WITHOUT ROWID stores each point once, in curve order.
CREATE TABLE metrics (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step      INTEGER NOT NULL,
  name      TEXT NOT NULL,
  value     REAL,                           -- NULL: NaN
  wall_time REAL NOT NULL,                  -- unix seconds when logged
  PRIMARY KEY (run_id, name, step)
) WITHOUT ROWID;

CREATE TABLE artifacts (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,
  path       TEXT NOT NULL,
  step       INTEGER,
  created_at REAL NOT NULL,
  UNIQUE (run_id, kind)
);

CREATE TABLE run_tags (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
)sql"},
      {"v2: analyses (results of `fathom analyze`, docs/analyses.md)",
       R"sql(
CREATE TABLE analyses (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER REFERENCES runs(id) ON DELETE CASCADE,  -- NULL: a config at init
  kind        TEXT NOT NULL,              -- beta, output-shift, grad-norms, ln-scale, ...
  checkpoint  TEXT,                       -- best | last | init; NULL for configs
  params_json TEXT NOT NULL,              -- the analysis options and what it ran on
  result_json TEXT NOT NULL,              -- the result, layout per kind in docs/analyses.md
  created_at  REAL NOT NULL,              -- unix seconds
  elapsed_s   REAL NOT NULL               -- wall time of the analysis
);
CREATE INDEX analyses_by_run ON analyses(run_id, kind, id);
)sql"},
  };
  return steps;
}

int latest_schema_version() { return static_cast<int>(migrations().size()); }

int check_schema(const Connection& db) {
  // One statement, so one snapshot: another process may be creating the schema right now.
  Statement st(db,
               "SELECT (SELECT user_version FROM pragma_user_version),"
               "       (SELECT application_id FROM pragma_application_id),"
               "       (SELECT count(*) FROM sqlite_master)");
  st.step();
  const int64_t version = st.int64(0), app_id = st.int64(1), objects = st.int64(2);
  const std::string& file = db.path();
  if (app_id != 0 && app_id != kApplicationId)
    throw InputError(file, 0, "", "a SQLite database, but not a Fathom run store (application_id " +
                                      std::to_string(app_id) + ")");
  if (version == 0 && objects > 0)
    throw InputError(file, 0, "", "a SQLite database, but not a Fathom run store");
  if (version > latest_schema_version())
    throw InputError(file, 0, "",
                     "run store has schema version " + std::to_string(version) +
                         ", newer than this build of Fathom understands (" +
                         std::to_string(latest_schema_version()) + "); use a newer Fathom");
  return static_cast<int>(version);
}

void migrate(const Connection& db) {
  for (;;) {
    Transaction tx(db);
    const int version = check_schema(db);  // re-read under the write lock
    if (version >= latest_schema_version()) return;  // tx rolls back: nothing to do
    db.exec(migrations()[version].sql);
    db.exec("PRAGMA user_version = " + std::to_string(version + 1));
    tx.commit();
  }
}

}  // namespace fathom::db
