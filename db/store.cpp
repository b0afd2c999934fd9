#include "db/store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "core/util/error.h"
#include "db/migrations.h"

namespace fathom::db {
namespace {

const char* const kStatuses[] = {"queued",  "running", "finished", "diverged",
                                 "failed",  "crashed", "cancelled"};

// Column order shared by every SELECT that feeds read_run().
#define FATHOM_RUN_COLUMNS                                                              \
  "id, name, sweep, config_json, config_yaml, status, error, host, device, git_rev, " \
  "diverged_step, updates, created_at, started_at, finished_at, heartbeat_at"

RunRecord read_run(const Statement& st) {
  RunRecord r;
  r.id = st.int64(0);
  r.name = st.text(1);
  r.sweep = st.text(2);
  r.config_json = st.text(3);
  r.config_yaml = st.text(4);
  r.status = st.text(5);
  r.error = st.text(6);
  r.host = st.text(7);
  r.device = st.text(8);
  r.git_rev = st.text(9);
  r.diverged_step = st.optional_int64(10);
  r.updates = st.int64(11);
  r.created_at = st.real_or(12, 0);
  r.started_at = st.real_or(13, 0);
  r.finished_at = st.real_or(14, 0);
  r.heartbeat_at = st.real_or(15, 0);
  return r;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

bool is_valid_status(const std::string& status) {
  return std::find(std::begin(kStatuses), std::end(kStatuses), status) != std::end(kStatuses);
}

bool is_terminal_status(const std::string& status) {
  return is_valid_status(status) && status != "queued" && status != "running";
}

// ---- opening ------------------------------------------------------------------------------

Store Store::open(const std::string& path, OpenMode mode) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError("", 0, "", "empty run store path");
  std::error_code ec;
  if (mode == OpenMode::ReadOnly) {
    if (!fs::exists(path, ec))
      throw InputError(path, 0, "", "run store not found (set --db or $FATHOM_DB)");
  } else if (fs::path parent = fs::path(path).parent_path(); !parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec)
      throw InputError(path, 0, "", "cannot create directory " + parent.string() + ": " +
                                        ec.message());
  }
  if (fs::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, not a run store");

  const int flags = mode == OpenMode::ReadOnly ? SQLITE_OPEN_READONLY
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  Connection db(path, flags);
  if (mode == OpenMode::ReadWrite && sqlite3_db_readonly(db.get(), "main") == 1)
    throw InputError(path, 0, "", "run store is not writable");

  // Validate before any statement that could write (journal_mode changes the file header).
  const int version = check_schema(db);
  db.exec("PRAGMA foreign_keys = ON");
  if (mode == OpenMode::ReadOnly) {
    if (version == 0) throw InputError(path, 0, "", "empty file, not a Fathom run store");
    if (version < latest_schema_version())
      throw InputError(path, 0, "",
                       "run store has schema version " + std::to_string(version) +
                           ", older than this build's " +
                           std::to_string(latest_schema_version()) +
                           "; a command that writes to it (e.g. `fathom train`) upgrades it");
    return Store(std::move(db), mode);
  }

  // WAL: readers never block the writer and vice versa. The mode is persistent, so only the
  // first opener converts the file; concurrent first openers may see BUSY, hence the retry.
  for (int attempt = 0;; ++attempt) {
    db.exec_retrying("PRAGMA journal_mode = WAL");
    Statement st(db, "PRAGMA journal_mode");
    if (st.step() && st.text(0) == "wal") break;
    if (attempt == 50) throw std::runtime_error(path + ": could not switch to WAL journal mode");
    sqlite3_sleep(20);
  }
  // NORMAL in WAL mode: commits survive a process crash; only an OS crash or power loss can
  // lose the last transactions, never corrupt the file. Saves an fsync per commit.
  db.exec("PRAGMA synchronous = NORMAL");
  migrate(db);
  return Store(std::move(db), mode);
}

int Store::schema_version() const {
  return static_cast<int>(db_.query_int("PRAGMA user_version"));
}

int Store::latest_schema_version() { return db::latest_schema_version(); }

// ---- writes -------------------------------------------------------------------------------

template <typename F>
void Store::write(const char* what, F body) {
  if (mode_ == OpenMode::ReadOnly)
    throw std::logic_error(path() + ": " + what + " on a store opened read-only");
  Transaction tx(db_);
  body();
  tx.commit();
}

void Store::require_run(int64_t run) const {
  if (db_.changes() == 0)
    throw std::invalid_argument(path() + ": no run with id " + std::to_string(run));
}

int64_t Store::create_run(const NewRun& run) {
  if (!is_valid_status(run.status))
    throw std::invalid_argument("create_run: invalid status '" + run.status + "'");
  int64_t id = 0;
  write("create_run", [&] {
    Statement st(db_,
                 "INSERT INTO runs (name, sweep, config_json, config_yaml, status, host, device,"
                 " git_rev, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    st.bind(1, run.name).bind_text_or_null(2, run.sweep).bind(3, run.config_json);
    st.bind(4, run.config_yaml).bind(5, run.status).bind_text_or_null(6, run.host);
    st.bind_text_or_null(7, run.device).bind_text_or_null(8, run.git_rev).bind(9, unix_now());
    st.run();
    id = db_.last_insert_rowid();
  });
  return id;
}

void Store::mark_running(int64_t run, const std::string& host, const std::string& device) {
  write("mark_running", [&] {
    // A resumed run keeps its first start time and sheds the previous attempt's outcome.
    Statement st(db_,
                 "UPDATE runs SET status = 'running', started_at = coalesce(started_at, ?2),"
                 " heartbeat_at = ?2, host = ?3, device = ?4, error = NULL,"
                 " diverged_step = NULL, finished_at = NULL WHERE id = ?1");
    st.bind(1, run).bind(2, unix_now()).bind_text_or_null(3, host).bind_text_or_null(4, device);
    st.run();
    require_run(run);
  });
}

void Store::finish_run(int64_t run, const std::string& status, const std::string& error,
                       std::optional<int64_t> diverged_step) {
  if (!is_terminal_status(status))
    throw std::invalid_argument("finish_run: '" + status + "' is not a final status");
  write("finish_run", [&] {
    Statement st(db_,
                 "UPDATE runs SET status = ?2, error = ?3, diverged_step = ?4,"
                 " finished_at = ?5, heartbeat_at = ?5 WHERE id = ?1");
    st.bind(1, run).bind(2, status).bind_text_or_null(3, error).bind(4, diverged_step);
    st.bind(5, unix_now());
    st.run();
    require_run(run);
  });
}

void Store::heartbeat(int64_t run, int64_t updates) {
  write("heartbeat", [&] {
    Statement st(db_, "UPDATE runs SET heartbeat_at = ?2, updates = ?3 WHERE id = ?1");
    st.bind(1, run).bind(2, unix_now()).bind(3, updates);
    st.run();
    require_run(run);
  });
}

void Store::set_final_metric(int64_t run, const std::string& name, double value) {
  write("set_final_metric", [&] {
    Statement st(db_,
                 "INSERT OR REPLACE INTO final_metrics (run_id, name, value) VALUES (?1, ?2, ?3)");
    st.bind(1, run).bind(2, name).bind(3, value);
    st.run();
  });
}

void Store::add_artifact(int64_t run, const std::string& kind, const std::string& path,
                         std::optional<int64_t> step) {
  write("add_artifact", [&] {
    // An upsert rather than INSERT OR REPLACE keeps the artifact's id stable.
    Statement st(db_,
                 "INSERT INTO artifacts (run_id, kind, path, step, created_at)"
                 " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (run_id, kind) DO UPDATE SET"
                 " path = excluded.path, step = excluded.step, created_at = excluded.created_at");
    st.bind(1, run).bind(2, kind).bind(3, path).bind(4, step).bind(5, unix_now());
    st.run();
  });
}

void Store::set_tag(int64_t run, const std::string& key, const std::string& value) {
  write("set_tag", [&] {
    Statement st(db_, "INSERT OR REPLACE INTO run_tags (run_id, key, value) VALUES (?1, ?2, ?3)");
    st.bind(1, run).bind(2, key).bind(3, value);
    st.run();
  });
}

void Store::write_metrics(int64_t run, const std::vector<MetricRow>& rows) {
  if (rows.empty()) return;
  write("write_metrics", [&] {
    Statement st(db_,
                 "INSERT OR REPLACE INTO metrics (run_id, step, name, value, wall_time)"
                 " VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const auto& [step, name, value, wall_time] : rows) {
      st.bind(1, run).bind(2, step).bind(3, name).bind(4, value).bind(5, wall_time);
      st.run();
    }
  });
}

void Store::delete_run(int64_t run) {
  write("delete_run", [&] {
    // The status is read under the write lock, so a worker cannot start the run in between.
    Statement status(db_, "SELECT status FROM runs WHERE id = ?1");
    status.bind(1, run);
    if (!status.step())
      throw std::invalid_argument(path() + ": no run with id " + std::to_string(run));
    if (status.text(0) == "running")
      throw InputError(path(), 0, "", "run " + std::to_string(run) +
                                          " is running; cancel it before deleting it");
    // Explicit deletes rather than ON DELETE CASCADE alone: correct even on a connection
    // without foreign keys, and the order (children first) never violates a reference.
    for (const char* table : {"metrics", "final_metrics", "run_tags", "artifacts", "analyses"}) {
      const std::string sql = std::string("DELETE FROM ") + table + " WHERE run_id = ?1";
      Statement st(db_, sql.c_str());
      st.bind(1, run);
      st.run();
    }
    Statement st(db_, "DELETE FROM runs WHERE id = ?1");
    st.bind(1, run);
    st.run();
  });
}

void Store::delete_metrics_after(int64_t run, int64_t step) {
  write("delete_metrics_after", [&] {
    Statement st(db_, "DELETE FROM metrics WHERE run_id = ?1 AND step > ?2");
    st.bind(1, run).bind(2, step);
    st.run();
  });
}

// ---- reads --------------------------------------------------------------------------------

std::vector<RunRecord> Store::collect_runs(Statement& select) const {
  std::vector<RunRecord> runs;
  while (select.step()) runs.push_back(read_run(select));
  Statement fm(db_, "SELECT name, value FROM final_metrics WHERE run_id = ?1");
  for (auto& r : runs) {
    fm.bind(1, r.id);
    while (fm.step()) r.final_metrics[fm.text(0)] = fm.real(1);
    fm.reset();
  }
  return runs;
}

std::vector<RunRecord> Store::list_runs(const std::string& sweep_filter) const {
  Transaction snapshot(db_, Transaction::Kind::Deferred);  // runs and metrics agree
  Statement st(db_, sweep_filter.empty()
                        ? "SELECT " FATHOM_RUN_COLUMNS " FROM runs ORDER BY id"
                        : "SELECT " FATHOM_RUN_COLUMNS " FROM runs WHERE sweep = ?1 ORDER BY id");
  if (!sweep_filter.empty()) st.bind(1, sweep_filter);
  auto runs = collect_runs(st);
  snapshot.commit();
  return runs;
}

std::optional<RunRecord> Store::find_run(const std::string& id_or_name) const {
  Transaction snapshot(db_, Transaction::Kind::Deferred);
  std::vector<RunRecord> found;
  if (all_digits(id_or_name)) {
    Statement st(db_, "SELECT " FATHOM_RUN_COLUMNS " FROM runs WHERE id = ?1");
    st.bind(1, static_cast<int64_t>(std::stoll(id_or_name)));
    found = collect_runs(st);
  }
  if (found.empty()) {
    Statement st(db_, "SELECT " FATHOM_RUN_COLUMNS
                      " FROM runs WHERE name = ?1 ORDER BY id DESC LIMIT 1");
    st.bind(1, id_or_name);
    found = collect_runs(st);
  }
  snapshot.commit();
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::vector<Artifact> Store::artifacts(int64_t run) const {
  Statement st(db_, "SELECT kind, path, step FROM artifacts WHERE run_id = ?1 ORDER BY kind");
  st.bind(1, run);
  std::vector<Artifact> out;
  while (st.step()) out.push_back({st.text(0), st.text(1), st.optional_int64(2)});
  return out;
}

std::map<std::string, std::string> Store::tags(int64_t run) const {
  Statement st(db_, "SELECT key, value FROM run_tags WHERE run_id = ?1");
  st.bind(1, run);
  std::map<std::string, std::string> out;
  while (st.step()) out[st.text(0)] = st.text(1);
  return out;
}

std::vector<MetricPoint> Store::metric_series(int64_t run, const std::string& name) const {
  Statement st(db_,
               "SELECT step, value, wall_time FROM metrics WHERE run_id = ?1 AND name = ?2"
               " ORDER BY step");
  st.bind(1, run).bind(2, name);
  std::vector<MetricPoint> out;
  while (st.step()) out.push_back({st.int64(0), st.real(1), st.real(2)});
  return out;
}

std::vector<std::string> Store::metric_names(int64_t run) const {
  // A skip-scan over the (run_id, name, step) key: one index seek per distinct name rather
  // than reading every point of the run.
  Statement st(db_,
               "WITH RECURSIVE n(name) AS ("
               "  SELECT (SELECT min(name) FROM metrics WHERE run_id = ?1)"
               "  UNION ALL"
               "  SELECT (SELECT min(name) FROM metrics WHERE run_id = ?1 AND name > n.name)"
               "  FROM n WHERE n.name IS NOT NULL)"
               " SELECT name FROM n WHERE name IS NOT NULL");
  st.bind(1, run);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

}  // namespace fathom::db
