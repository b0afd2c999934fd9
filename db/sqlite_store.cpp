// The SQLite backend: one file, WAL mode, writers queue on the write lock (sqlite_handle.h).
#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "base/util/error.h"
#include "db/lease_sql.h"
#include "db/migrations.h"
#include "db/run_status.h"
#include "db/sqlite_file_identity.h"
#include "db/sqlite_handle.h"
#include "db/store.h"
#include "db/store_backends.h"

namespace fathom::db {
namespace {

// Column order shared by every SELECT that feeds read_run().
#define FATHOM_RUN_COLUMNS                                                            \
  "id, name, sweep, config_json, config_yaml, status, error, host, device, git_rev, " \
  "diverged_step, updates, created_at, started_at, finished_at, heartbeat_at, lease"

#define FATHOM_ANALYSIS_COLUMNS \
  "id, run_id, kind, checkpoint, params_json, result_json, created_at, elapsed_s"

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
  r.lease = st.int64(16);
  return r;
}

AnalysisRecord read_analysis(const Statement& st) {
  AnalysisRecord r;
  r.id = st.int64(0);
  r.run_id = st.optional_int64(1);
  r.kind = st.text(2);
  r.checkpoint = st.text(3);
  r.params_json = st.text(4);
  r.result_json = st.text(5);
  r.created_at = st.real_or(6, 0);
  r.elapsed_s = st.real_or(7, 0);
  return r;
}

// 0 (an event that has not happened) is stored as NULL.
void bind_time(Statement& st, int i, double t) {
  if (t == 0)
    st.bind_null(i);
  else
    st.bind(i, t);
}

class SqliteBackend : public StoreBackend {
 public:
  // Made after the connection's first read, so the identity is of the files it reads.
  explicit SqliteBackend(Connection db) : db_(std::move(db)), files_(db_.path()) {}

  int schema_version() override { return static_cast<int>(db_.query_int("PRAGMA user_version")); }

  int64_t create_run(const NewRun& run, double now) override {
    int64_t id = 0;
    write([&] {
      Statement st(db_,
                   "INSERT INTO runs (name, sweep, config_json, config_yaml, status, host, device,"
                   " git_rev, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
      st.bind(1, run.name).bind_text_or_null(2, run.sweep).bind(3, run.config_json);
      st.bind(4, run.config_yaml).bind(5, run.status).bind_text_or_null(6, run.host);
      st.bind_text_or_null(7, run.device).bind_text_or_null(8, run.git_rev).bind(9, now);
      st.run();
      id = db_.last_insert_rowid();
    });
    return id;
  }

  int64_t take_run(int64_t run, const std::string& host, const std::string& device,
                   double now) override {
    int64_t lease = 0;
    write([&] {
      // A resumed run keeps its first start time and sheds the previous attempt's outcome.
      Statement st(db_, ("UPDATE runs SET " + take_run_set("?2", "?3", "?4") +
                         " WHERE id = ?1 RETURNING lease")
                            .c_str());
      st.bind(1, run).bind(2, now).bind_text_or_null(3, host).bind_text_or_null(4, device);
      if (!st.step()) throw no_run(run);
      lease = st.int64(0);
    });
    return lease;
  }

  void mark_running(int64_t run, const std::string& host, const std::string& device, double now,
                    int64_t lease) override {
    write([&] {
      Statement st(db_, ("UPDATE runs SET host = ?2, device = ?3, heartbeat_at = ?4"
                         " WHERE id = ?1 AND " +
                         held_by("?5"))
                            .c_str());
      st.bind(1, run).bind_text_or_null(2, host).bind_text_or_null(3, device).bind(4, now);
      st.bind(5, lease);
      st.run();
      require_changed(run, lease);
    });
  }

  void finish_run(int64_t run, const std::string& status, const std::string& error,
                  std::optional<int64_t> diverged_step, double now, Fence fence) override {
    write([&] {
      Statement st(db_, ("UPDATE runs SET status = ?2, error = ?3, diverged_step = ?4,"
                         " finished_at = ?5, heartbeat_at = ?5 WHERE id = ?1 AND " +
                         held_by_if_fenced("?6"))
                            .c_str());
      st.bind(1, run).bind(2, status).bind_text_or_null(3, error).bind(4, diverged_step);
      st.bind(5, now).bind(6, fence);
      st.run();
      require_changed(run, fence);
    });
  }

  void heartbeat(int64_t run, int64_t updates, double now, Fence fence) override {
    write([&] {
      Statement st(db_, ("UPDATE runs SET heartbeat_at = ?2, updates = ?3 WHERE id = ?1 AND " +
                         held_by_if_fenced("?4"))
                            .c_str());
      st.bind(1, run).bind(2, now).bind(3, updates).bind(4, fence);
      st.run();
      require_changed(run, fence);
    });
  }

  void touch_heartbeat(int64_t run, double now, int64_t lease) override {
    write([&] {
      Statement st(
          db_, ("UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1 AND " + held_by("?3")).c_str());
      st.bind(1, run).bind(2, now).bind(3, lease);
      st.run();
      require_changed(run, lease);
    });
  }

  bool requeue_run(int64_t run, const std::string& reason, double now,
                   const std::vector<std::string>& from, Fence fence) override {
    bool requeued = false;
    write([&] {
      const std::string sql = "UPDATE runs SET " + requeue_set("?2", "?3") + " WHERE id = ?1 AND " +
                              (fence ? held_by("?4") : status_in(from));
      Statement st(db_, sql.c_str());
      st.bind(1, run).bind_text_or_null(2, reason).bind(3, now);
      if (fence) st.bind(4, *fence);
      st.run();
      requeued = db_.changes() > 0;
      if (!requeued) fence ? check_fence(run, *fence) : require_exists(run);
    });
    return requeued;
  }

  bool cancel_run(int64_t run, const std::string& reason, double now) override {
    bool cancelled = false;
    write([&] {
      Statement st(db_,
                   "UPDATE runs SET status = 'cancelled', error = ?2, finished_at = ?3,"
                   " heartbeat_at = ?3 WHERE id = ?1 AND status IN ('queued', 'running')");
      st.bind(1, run).bind_text_or_null(2, reason).bind(3, now);
      st.run();
      cancelled = db_.changes() > 0;
      if (!cancelled) require_exists(run);
    });
    return cancelled;
  }

  void set_final_metric(int64_t run, const std::string& name, double value, Fence fence) override {
    write([&] {
      check_fence(run, fence);
      Statement st(
          db_, "INSERT OR REPLACE INTO final_metrics (run_id, name, value) VALUES (?1, ?2, ?3)");
      st.bind(1, run).bind(2, name).bind(3, value);
      st.run();
    });
  }

  void add_artifacts(int64_t run, const std::vector<Artifact>& artifacts, double now,
                     Fence fence) override {
    write([&] {
      check_fence(run, fence);
      for (const auto& a : artifacts) insert_artifact(run, a, now);
    });
  }

  void set_tag(int64_t run, const std::string& key, const std::string& value,
               Fence fence) override {
    write([&] {
      check_fence(run, fence);
      Statement st(db_, "INSERT OR REPLACE INTO run_tags (run_id, key, value) VALUES (?1, ?2, ?3)");
      st.bind(1, run).bind(2, key).bind(3, value);
      st.run();
    });
  }

  void write_metrics(int64_t run, const std::vector<MetricRow>& rows, Fence fence) override {
    write([&] {
      check_fence(run, fence);
      insert_metrics(run, rows);
    });
  }

  void delete_metrics_after(int64_t run, int64_t step, Fence fence) override {
    write([&] {
      check_fence(run, fence);
      Statement st(db_, "DELETE FROM metrics WHERE run_id = ?1 AND step > ?2");
      st.bind(1, run).bind(2, step);
      st.run();
    });
  }

  void set_config(int64_t run, const std::string& config_yaml, const std::string& config_json,
                  Fence fence) override {
    write([&] {
      Statement st(db_, ("UPDATE runs SET config_yaml = ?2, config_json = ?3 WHERE id = ?1 AND " +
                         held_by_if_fenced("?4"))
                            .c_str());
      st.bind(1, run).bind(2, config_yaml).bind(3, config_json).bind(4, fence);
      st.run();
      require_changed(run, fence);
    });
  }

  void delete_run(int64_t run) override {
    write([&] {
      // The status is read under the write lock, so a worker cannot start the run in between.
      Statement status(db_, "SELECT status FROM runs WHERE id = ?1");
      status.bind(1, run);
      if (!status.step())
        throw std::invalid_argument(db_.path() + ": no run with id " + std::to_string(run));
      if (status.text(0) == db::status::kRunning)
        throw InputError(
            db_.path(), 0, "",
            "run " + std::to_string(run) + " is running; cancel it before deleting it");
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

  int64_t add_analysis(const NewAnalysis& a, double now) override {
    int64_t id = 0;
    write([&] {
      Statement st(db_,
                   "INSERT INTO analyses (run_id, kind, checkpoint, params_json, result_json,"
                   " created_at, elapsed_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      st.bind(1, a.run_id).bind(2, a.kind).bind_text_or_null(3, a.checkpoint);
      st.bind(4, a.params_json).bind(5, a.result_json).bind(6, now).bind(7, a.elapsed_s);
      st.run();
      id = db_.last_insert_rowid();
    });
    return id;
  }

  std::optional<RunRecord> claim_next_run(const std::string& sweep, const std::string& host,
                                          const std::string& device, double now,
                                          const std::vector<int64_t>& skip) override {
    std::optional<RunRecord> claimed;
    // BEGIN IMMEDIATE holds the one write lock from the SELECT to the UPDATE.
    write([&] {
      const std::string sql = "SELECT id FROM runs WHERE sweep = ?1 AND status = 'queued'" +
                              id_not_in(skip) + " ORDER BY id LIMIT 1";
      Statement pick(db_, sql.c_str());
      pick.bind(1, sweep);
      if (!pick.step()) return;
      const int64_t id = pick.int64(0);
      Statement st(
          db_, ("UPDATE runs SET " + take_run_set("?2", "?3", "?4") + " WHERE id = ?1").c_str());
      st.bind(1, id).bind(2, now).bind_text_or_null(3, host).bind_text_or_null(4, device);
      st.run();
      claimed = select_run_by_id(id);  // inside this transaction: what was claimed
    });
    return claimed;
  }

  void import_run(const RunExport& e) override {
    write([&] {
      const RunRecord& r = e.run;
      Statement st(db_,
                   "INSERT INTO runs (id, name, sweep, config_json, config_yaml, status, error,"
                   " diverged_step, created_at, started_at, finished_at, heartbeat_at, host,"
                   " device, git_rev, updates, lease) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                   " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
      st.bind(1, r.id).bind(2, r.name).bind_text_or_null(3, r.sweep).bind(4, r.config_json);
      st.bind(5, r.config_yaml).bind(6, r.status).bind_text_or_null(7, r.error);
      st.bind(8, r.diverged_step).bind(9, r.created_at);
      bind_time(st, 10, r.started_at);
      bind_time(st, 11, r.finished_at);
      bind_time(st, 12, r.heartbeat_at);
      st.bind_text_or_null(13, r.host).bind_text_or_null(14, r.device);
      st.bind_text_or_null(15, r.git_rev).bind(16, r.updates).bind(17, r.lease);
      st.run();
      Statement fm(db_, "INSERT INTO final_metrics (run_id, name, value) VALUES (?1, ?2, ?3)");
      for (const auto& [name, value] : r.final_metrics) {
        fm.bind(1, r.id).bind(2, name).bind(3, value);
        fm.run();
      }
      Statement tag(db_, "INSERT INTO run_tags (run_id, key, value) VALUES (?1, ?2, ?3)");
      for (const auto& [key, value] : e.tags) {
        tag.bind(1, r.id).bind(2, key).bind(3, value);
        tag.run();
      }
      for (const auto& a : e.artifacts) insert_artifact(r.id, a, r.created_at);
      insert_metrics(r.id, e.metrics);
    });
  }

  void import_analysis(const AnalysisRecord& a) override {
    write([&] {
      Statement st(db_,
                   "INSERT INTO analyses (id, run_id, kind, checkpoint, params_json, result_json,"
                   " created_at, elapsed_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
      st.bind(1, a.id).bind(2, a.run_id).bind(3, a.kind).bind_text_or_null(4, a.checkpoint);
      st.bind(5, a.params_json).bind(6, a.result_json).bind(7, a.created_at).bind(8, a.elapsed_s);
      st.run();
    });
  }

  // ---- reads ----

  std::vector<Artifact> artifacts(int64_t run) override {
    Statement st(db_, "SELECT kind, path, step FROM artifacts WHERE run_id = ?1 ORDER BY kind");
    st.bind(1, run);
    std::vector<Artifact> out;
    while (st.step()) out.push_back({st.text(0), st.text(1), st.optional_int64(2)});
    return out;
  }

  std::map<std::string, std::string> tags(int64_t run) override {
    Statement st(db_, "SELECT key, value FROM run_tags WHERE run_id = ?1");
    st.bind(1, run);
    std::map<std::string, std::string> out;
    while (st.step()) out[st.text(0)] = st.text(1);
    return out;
  }

  std::vector<RunRecord> list_runs(const std::string& sweep_filter) override {
    Transaction snapshot(db_, Transaction::Kind::Deferred);  // runs and metrics agree
    Statement st(db_, sweep_filter.empty() ? "SELECT " FATHOM_RUN_COLUMNS " FROM runs ORDER BY id"
                                           : "SELECT " FATHOM_RUN_COLUMNS
                                             " FROM runs WHERE sweep = ?1 ORDER BY id");
    if (!sweep_filter.empty()) st.bind(1, sweep_filter);
    auto runs = collect_runs(st);
    snapshot.commit();
    return runs;
  }

  std::optional<RunRecord> run_by_id(int64_t id) override {
    Transaction snapshot(db_, Transaction::Kind::Deferred);
    auto found = select_run_by_id(id);
    snapshot.commit();
    return found;
  }

  std::optional<RunRecord> latest_run_named(const std::string& name) override {
    Transaction snapshot(db_, Transaction::Kind::Deferred);
    Statement st(
        db_, "SELECT " FATHOM_RUN_COLUMNS " FROM runs WHERE name = ?1 ORDER BY id DESC LIMIT 1");
    st.bind(1, name);
    auto found = collect_runs(st);
    snapshot.commit();
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }

  std::vector<MetricPoint> metric_points(int64_t run, const std::string& name,
                                         int64_t after_step) override {
    // A range scan of the (run_id, name, step) primary key: cost is the number of points read.
    Statement st(db_,
                 "SELECT step, value, wall_time FROM metrics"
                 " WHERE run_id = ?1 AND name = ?2 AND step > ?3 ORDER BY step");
    st.bind(1, run).bind(2, name).bind(3, after_step);
    std::vector<MetricPoint> out;
    while (st.step()) out.push_back({st.int64(0), st.real(1), st.real(2)});
    return out;
  }

  int64_t last_metric_step(int64_t run, const std::string& name) override {
    Statement st(db_, "SELECT max(step) FROM metrics WHERE run_id = ?1 AND name = ?2");
    st.bind(1, run).bind(2, name);
    return st.step() && !st.is_null(0) ? st.int64(0) : -1;
  }

  std::map<int64_t, MetricPoint> best_points(const std::vector<int64_t>& runs,
                                             const std::string& name, bool higher) override {
    // Per run, the (run_id, name, step) key's range for the curve, sorted by value: a run's
    // points are read once. NaN is stored as NULL; +-inf are bound, not written as literals.
    Transaction snapshot(db_, Transaction::Kind::Deferred);
    const std::string sql = std::string(
                                "SELECT step, value, wall_time FROM metrics"
                                " WHERE run_id = ?1 AND name = ?2 AND value > ?3 AND value < ?4"
                                " ORDER BY value ") +
                            (higher ? "DESC" : "ASC") + ", step LIMIT 1";
    Statement st(db_, sql.c_str());
    const double inf = std::numeric_limits<double>::infinity();
    std::map<int64_t, MetricPoint> out;
    for (const int64_t run : runs) {
      st.reset();
      st.bind(1, run).bind(2, name).bind(3, -inf).bind(4, inf);
      if (st.step()) out[run] = {st.int64(0), st.real(1), st.real(2)};
    }
    snapshot.commit();
    return out;
  }

  std::vector<std::string> metric_names(int64_t run) override {
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

  std::vector<MetricRow> metric_rows(int64_t run) override {
    Statement st(db_,
                 "SELECT step, name, value, wall_time FROM metrics WHERE run_id = ?1"
                 " ORDER BY name, step");
    st.bind(1, run);
    std::vector<MetricRow> out;
    while (st.step()) out.emplace_back(st.int64(0), st.text(1), st.real(2), st.real(3));
    return out;
  }

  std::vector<AnalysisRecord> list_analyses(std::optional<int64_t> run,
                                            const std::string& kind) override {
    Statement st(db_, "SELECT " FATHOM_ANALYSIS_COLUMNS
                      " FROM analyses"
                      " WHERE (?1 IS NULL OR run_id = ?1) AND (?2 = '' OR kind = ?2) ORDER BY id");
    st.bind(1, run).bind(2, kind);
    std::vector<AnalysisRecord> out;
    while (st.step()) out.push_back(read_analysis(st));
    return out;
  }

  std::optional<AnalysisRecord> get_analysis(int64_t id) override {
    Statement st(db_, "SELECT " FATHOM_ANALYSIS_COLUMNS " FROM analyses WHERE id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_analysis(st);
  }

  int64_t last_analysis_id() override {
    return db_.query_int("SELECT coalesce(max(id), 0) FROM analyses");
  }

  StoreCounts counts() override {
    Transaction snapshot(db_, Transaction::Kind::Deferred);
    StoreCounts c;
    c.runs = db_.query_int("SELECT count(*) FROM runs");
    c.metrics = db_.query_int("SELECT count(*) FROM metrics");
    c.final_metrics = db_.query_int("SELECT count(*) FROM final_metrics");
    c.tags = db_.query_int("SELECT count(*) FROM run_tags");
    c.artifacts = db_.query_int("SELECT count(*) FROM artifacts");
    c.analyses = db_.query_int("SELECT count(*) FROM analyses");
    snapshot.commit();
    return c;
  }

  std::optional<std::string> busy_reason() override { return sqlite_file_busy_reason(db_.path()); }
  bool connection_stale() override { return files_.replaced(); }

 private:
  // Runs `body` inside one BEGIN IMMEDIATE transaction.
  template <typename F>
  void write(F body) {
    Transaction tx(db_);
    body();
    tx.commit();
  }

  std::invalid_argument no_run(int64_t run) const {
    return std::invalid_argument(db_.path() + ": no run with id " + std::to_string(run));
  }

  void require_exists(int64_t run) const {  // after an UPDATE whose WHERE may skip the row
    Statement st(db_, "SELECT 1 FROM runs WHERE id = ?1");
    st.bind(1, run);
    if (!st.step()) throw no_run(run);
  }

  // Inside a write transaction (which holds SQLite's one write lock until it commits): throws
  // LeaseLost unless the run is running under `fence`; nothing for an unfenced write.
  void check_fence(int64_t run, Fence fence) const {
    if (!fence) return;
    Statement st(db_, "SELECT status, lease FROM runs WHERE id = ?1");
    st.bind(1, run);
    if (!st.step()) throw no_run(run);
    throw_unless_held(Lease{run, *fence}, st.text(0), st.int64(1));
  }

  // After an UPDATE of the run's row whose WHERE held the fence: it touched no row because
  // the run is missing or no longer held (which check_fence then throws).
  void require_changed(int64_t run, Fence fence) const {
    if (db_.changes() > 0) return;
    if (!fence) throw no_run(run);
    check_fence(run, fence);
    throw std::logic_error(db_.path() + ": run " + std::to_string(run) + " was not updated");
  }

  void insert_artifact(int64_t run, const Artifact& a, double now) {
    // An upsert rather than INSERT OR REPLACE keeps the artifact's id stable.
    Statement st(db_,
                 "INSERT INTO artifacts (run_id, kind, path, step, created_at)"
                 " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (run_id, kind) DO UPDATE SET"
                 " path = excluded.path, step = excluded.step, created_at = excluded.created_at");
    st.bind(1, run).bind(2, a.kind).bind(3, a.path).bind(4, a.step).bind(5, now);
    st.run();
  }

  void insert_metrics(int64_t run, const std::vector<MetricRow>& rows) {
    Statement st(db_,
                 "INSERT OR REPLACE INTO metrics (run_id, step, name, value, wall_time)"
                 " VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const auto& [step, name, value, wall_time] : rows) {
      st.bind(1, run).bind(2, step).bind(3, name).bind(4, value).bind(5, wall_time);
      st.run();
    }
  }

  std::optional<RunRecord> select_run_by_id(int64_t id) {
    Statement st(db_, "SELECT " FATHOM_RUN_COLUMNS " FROM runs WHERE id = ?1");
    st.bind(1, id);
    auto found = collect_runs(st);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }

  // Reads every row of a prepared SELECT of the run columns, plus each run's final metrics.
  std::vector<RunRecord> collect_runs(Statement& select) {
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

  Connection db_;
  SqliteFileIdentity files_;
};

}  // namespace

std::optional<std::string> sqlite_file_busy_reason(const std::string& path) {
  // A connection waits up to a minute on a lock; a separate one with a short timeout asks
  // first, so a window never freezes. In WAL mode only an exclusive lock (a tool's long write
  // transaction outside WAL, a checkpoint truncating) keeps readers out.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;  // open() explains
  sqlite3* probe = nullptr;
  bool locked = false;
  if (sqlite3_open_v2(path.c_str(), &probe, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(probe, 500);
    const int rc = sqlite3_exec(probe, "PRAGMA schema_version", nullptr, nullptr, nullptr);
    locked = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
  }
  sqlite3_close(probe);
  if (!locked) return std::nullopt;
  return "it is locked by another process (a write transaction outside WAL mode?); try again "
         "when it ends";
}

namespace {

// A WAL-mode store is read through its -shm file, which a reader creates when it is missing;
// in a directory it cannot write (a read-only mount, a colleague's results) that fails with
// "attempt to write a readonly database". With no -wal file every committed row is in the
// main file, so it can be read as immutable (no locks, no -shm). With a -wal present SQLite
// reads it through an existing -shm as usual.
bool needs_immutable_open(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return ::access(dir.c_str(), W_OK) != 0 && !fs::exists(path + "-wal", ec);
}

// file: URI of `path` with immutable=1; characters special in a URI are percent-encoded.
std::string immutable_uri(const std::string& path) {
  const std::string absolute = std::filesystem::absolute(path).string();
  std::string out = "file:";
  for (unsigned char c : absolute) {
    if (std::isalnum(c) ||
        std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out + "?immutable=1";
}

}  // namespace

std::unique_ptr<StoreBackend> open_sqlite_backend(const StoreUrl& url, OpenMode mode) {
  namespace fs = std::filesystem;
  const std::string& path = url.connect;
  std::error_code ec;
  if (mode == OpenMode::ReadOnly) {
    if (!fs::exists(path, ec))
      throw InputError(path, 0, "", "run store not found (set --db or $FATHOM_DB)");
  } else if (fs::path parent = fs::path(path).parent_path(); !parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec)
      throw InputError(path, 0, "",
                       "cannot create directory " + parent.string() + ": " + ec.message());
  }
  if (fs::is_directory(path, ec)) throw InputError(path, 0, "", "is a directory, not a run store");

  const int flags = mode == OpenMode::ReadOnly ? SQLITE_OPEN_READONLY
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  Connection db = mode == OpenMode::ReadOnly && needs_immutable_open(path)
                      ? Connection(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
                      : Connection(path, flags);
  if (mode == OpenMode::ReadWrite && sqlite3_db_readonly(db.get(), "main") == 1)
    throw InputError(path, 0, "", "run store is not writable");

  // Validate before any statement that could write (journal_mode changes the file header).
  const int version = check_schema(db);
  if (version == latest_schema_version()) check_tables(db);  // before WAL mode touches the file
  db.exec("PRAGMA foreign_keys = ON");
  if (mode == OpenMode::ReadOnly) {
    if (version == 0) throw InputError(path, 0, "", "empty file, not a Fathom run store");
    if (version < latest_schema_version())
      throw InputError(path, 0, "",
                       "run store has schema version " + std::to_string(version) +
                           ", older than this build's " + std::to_string(latest_schema_version()) +
                           "; a command that writes to it (e.g. `fathom train`) upgrades it");
    return std::make_unique<SqliteBackend>(std::move(db));
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
  if (version < latest_schema_version()) check_tables(db);  // what the migrations made
  return std::make_unique<SqliteBackend>(std::move(db));
}

}  // namespace fathom::db
