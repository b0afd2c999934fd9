#include "db/migrations.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "base/util/error.h"

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
      {"v3: runs.lease, the generation of a run's current claim (fencing, db/lease.h)",
       R"sql(
-- Every claim and requeue increments it; a holder's writes are accepted only under the
-- generation it claimed (db/lease.h).
ALTER TABLE runs ADD COLUMN lease INTEGER NOT NULL DEFAULT 0;
)sql"},
      {"v4: probes, per-layer and per-head series recorded during training (docs/schema.md)",
       R"sql(
CREATE TABLE probe_layouts (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  probe     TEXT NOT NULL,               -- attn.max_logit, stream.rms, update.ratio, ...
  positions TEXT NOT NULL,               -- the labels of its values, one per line
  PRIMARY KEY (run_id, probe)
);

CREATE TABLE probe_points (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  probe     TEXT NOT NULL,
  step      INTEGER NOT NULL,            -- the update just made
  vals      TEXT NOT NULL,               -- one float32 per position, base64 (db/probe_values.h)
  wall_time REAL NOT NULL,
  PRIMARY KEY (run_id, probe, step)
);
)sql"},
      {"v5: runs_state, a sweep's runs' states in one index (the claim's pick, the scheduler's "
       "poll)",
       R"sql(
-- Every column Store::list_run_states reads (db/sql_store.cpp, run_states_sql): the poll of a
-- sweep reads this index alone, never the rows with their configs (issue 54: every run's
-- JSON and YAML config each second, a third of a core at 100k runs).
-- Status before id: a claim's pick (db/lease_sql.h, claim_next_sql: sweep, status = 'queued',
-- lowest id) is a seek here, O(log n); runs_by_sweep alone walked every earlier run of the
-- sweep under the write lock (99-132 ms a claim at 100k runs).
CREATE INDEX runs_state ON runs(sweep, status, id, updates, heartbeat_at, lease, host, device, name);
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
    throw InputError(file, 0, "",
                     "a SQLite database, but not a Fathom run store (application_id " +
                         std::to_string(app_id) + ")");
  if (version == 0 && objects > 0)
    throw InputError(file, 0, "", "a SQLite database, but not a Fathom run store");
  if (version < 0)  // user_version is a signed 32-bit field (found by fuzz/fuzz_store.cpp)
    throw InputError(file, 0, "",
                     "run store has schema version " + std::to_string(version) +
                         ", which no Fathom writes: a damaged file");
  if (version > latest_schema_version())
    throw InputError(file, 0, "",
                     "run store has schema version " + std::to_string(version) +
                         ", newer than this build of Fathom understands (" +
                         std::to_string(latest_schema_version()) + "); use a newer Fathom");
  return static_cast<int>(version);
}

namespace {

using Columns = std::vector<std::pair<std::string, std::string>>;  // name, declared type

std::map<std::string, Columns> tables_of(const Connection& db) {
  std::map<std::string, Columns> out;
  Statement tables(
      db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  Statement columns(db, "SELECT name, type FROM pragma_table_info(?1) ORDER BY cid");
  while (tables.step()) {
    const std::string table = tables.text(0);
    columns.reset();
    columns.bind(1, table);
    Columns& c = out[table];
    while (columns.step()) c.emplace_back(columns.text(0), columns.text(1));
  }
  return out;
}

// The tables every migration together creates: applied once to an in-memory database.
const std::map<std::string, Columns>& expected_tables() {
  static const std::map<std::string, Columns> tables = [] {
    Connection memory(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    for (const auto& m : migrations()) memory.exec(m.sql);
    return tables_of(memory);
  }();
  return tables;
}

// "error TEXT, erro\xA5 TEXT": bytes outside printable ASCII escaped (a damaged name may hold any).
std::string describe(const Columns& columns) {
  std::string out;
  for (const auto& [name, type] : columns) {
    if (!out.empty()) out += ", ";
    for (const unsigned char c : name + " " + type) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : std::string(hex);
    }
  }
  return out;
}

// The columns of `a` that `b` lacks (name and type), in `a`'s order.
Columns minus(const Columns& a, const Columns& b) {
  Columns out;
  for (const auto& c : a)
    if (std::find(b.begin(), b.end(), c) == b.end()) out.push_back(c);
  return out;
}

}  // namespace

void check_tables(const Connection& db) {
  const auto found = tables_of(db);
  for (const auto& [table, columns] : expected_tables()) {
    auto it = found.find(table);
    std::string problem;
    if (it == found.end()) {
      problem = "has no table '" + table + "'";
    } else if (it->second != columns) {
      const Columns missing = minus(columns, it->second), extra = minus(it->second, columns);
      problem = "has table '" + table + "' " +
                (missing.empty() && extra.empty()
                     ? "with its columns in another order"
                     : "without (" + describe(missing) + ")" +
                           (extra.empty() ? "" : " but with (" + describe(extra) + ")"));
    }
    if (!problem.empty())
      throw InputError(db.path(), 0, "",
                       "is damaged: schema version " + std::to_string(latest_schema_version()) +
                           " but it " + problem + "; restore it from a copy (nothing was changed)");
  }
}

void migrate(const Connection& db) {
  // All missing steps in one transaction: a reader opening the file meanwhile sees the old
  // version or the latest, never a half-made store (it would refuse one as "older").
  Transaction tx(db);
  const int from = check_schema(db);            // re-read under the write lock
  if (from >= latest_schema_version()) return;  // tx rolls back: nothing to do
  for (int version = from; version < latest_schema_version(); ++version) {
    try {
      db.exec(migrations()[version].sql);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {  // tx rolls back: the file stays at `from`
      throw InputError(db.path(), 0, "",
                       "cannot upgrade the run store from schema version " +
                           std::to_string(version) + " (is it damaged?): " + e.what());
    }
  }
  db.exec("PRAGMA user_version = " + std::to_string(latest_schema_version()));
  tx.commit();
}

}  // namespace fathom::db
