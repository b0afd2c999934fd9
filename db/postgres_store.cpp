// The PostgreSQL backend (libpq): a lab's server store that workers on many machines and the
// desktop app reach at once. Same schema versions and guarantees as SQLite; every write is
// one transaction, retried on a fresh connection when the server drops it (pg_connection.h).
#include <map>
#include <set>
#include <stdexcept>

#include "base/util/error.h"
#include "db/lease_sql.h"
#include "db/pg_connection.h"
#include "db/postgres_migrations.h"
#include "db/run_status.h"
#include "db/store.h"
#include "db/store_backends.h"

namespace fathom::db {
namespace {

constexpr const char* kRunColumns =
    "id, name, sweep, config_json, config_yaml, status, error, host, device, git_rev, "
    "diverged_step, updates, created_at, started_at, finished_at, heartbeat_at, lease";
constexpr const char* kAnalysisColumns =
    "id, run_id, kind, checkpoint, params_json, result_json, created_at, elapsed_s";
// Serialises schema creation and migration across processes (pg_advisory_xact_lock).
constexpr int64_t kMigrationLock = 0x4654484D;  // "FTHM"

RunRecord read_run(const PgResult& r, int i) {
  RunRecord run;
  run.id = r.int64(i, 0);
  run.name = r.text(i, 1);
  run.sweep = r.text(i, 2);
  run.config_json = r.text(i, 3);
  run.config_yaml = r.text(i, 4);
  run.status = r.text(i, 5);
  run.error = r.text(i, 6);
  run.host = r.text(i, 7);
  run.device = r.text(i, 8);
  run.git_rev = r.text(i, 9);
  run.diverged_step = r.optional_int64(i, 10);
  run.updates = r.int64(i, 11);
  run.created_at = r.real_or(i, 12, 0);
  run.started_at = r.real_or(i, 13, 0);
  run.finished_at = r.real_or(i, 14, 0);
  run.heartbeat_at = r.real_or(i, 15, 0);
  run.lease = r.int64(i, 16);
  return run;
}

AnalysisRecord read_analysis(const PgResult& r, int i) {
  AnalysisRecord a;
  a.id = r.int64(i, 0);
  a.run_id = r.optional_int64(i, 1);
  a.kind = r.text(i, 2);
  a.checkpoint = r.text(i, 3);
  a.params_json = r.text(i, 4);
  a.result_json = r.text(i, 5);
  a.created_at = r.real_or(i, 6, 0);
  a.elapsed_s = r.real_or(i, 7, 0);
  return a;
}

PgParam time_or_null(double t) { return t == 0 ? std::nullopt : pg_param(t); }

// Array literals for unnest(): one round trip writes a whole batch of metric rows.
std::string quoted_element(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class PostgresBackend : public StoreBackend {
 public:
  explicit PostgresBackend(const StoreUrl& url) : pg_(url.connect, url.shown) {}

  // Checks the database is empty or a Fathom store this build understands; returns its version.
  int check_schema() {
    auto tables = pg_.exec(
        "SELECT count(*), min(table_name::text),"
        "       bool_or(table_name = 'fathom_meta')"
        " FROM information_schema.tables WHERE table_schema = current_schema()");
    const int64_t count = tables.int64(0, 0);
    const bool has_meta = tables.text(0, 2) == "t";
    if (count == 0) return 0;
    if (!has_meta)
      throw InputError(pg_.shown(), 0, "",
                       "the database holds " + std::to_string(count) +
                           " table(s) that are not a Fathom run store (e.g. '" + tables.text(0, 1) +
                           "'); use an empty database or another schema");
    auto meta = pg_.exec("SELECT key, value FROM fathom_meta");
    std::map<std::string, std::string> values;
    for (int i = 0; i < meta.rows(); ++i) values[meta.text(i, 0)] = meta.text(i, 1);
    if (values["application"] != "fathom")
      throw InputError(pg_.shown(), 0, "", "table fathom_meta does not mark a Fathom run store");
    const int version = values.count("schema_version") ? std::stoi(values["schema_version"]) : 0;
    if (version > latest_schema_version())
      throw InputError(pg_.shown(), 0, "",
                       "run store has schema version " + std::to_string(version) +
                           ", newer than this build of Fathom understands (" +
                           std::to_string(latest_schema_version()) + "); use a newer Fathom");
    return version;
  }

  // Every missing step in one transaction, as for SQLite: a reader sees the old version or
  // the latest, never an intermediate one.
  void migrate() {
    pg_.transaction([&] {
      pg_.exec("SELECT pg_advisory_xact_lock($1)", {pg_param(kMigrationLock)});
      const int from = check_schema();  // re-read under the lock
      if (from >= latest_schema_version()) return;
      for (int version = from; version < latest_schema_version(); ++version)
        pg_.exec(postgres_migrations()[version].sql);
      pg_.exec(
          "INSERT INTO fathom_meta (key, value) VALUES ('schema_version', $1)"
          " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          {std::to_string(latest_schema_version())});
    });
  }

  int schema_version() override {
    int version = 0;
    read([&] { version = check_schema(); });
    return version;
  }

  // ---- writes ----

  int64_t create_run(const NewRun& run, double now) override {
    int64_t id = 0;
    write([&] {
      auto r = pg_.exec(
          "INSERT INTO runs (name, sweep, config_json, config_yaml, status, host, device,"
          " git_rev, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
          {run.name, pg_text_or_null(run.sweep), run.config_json, run.config_yaml, run.status,
           pg_text_or_null(run.host), pg_text_or_null(run.device), pg_text_or_null(run.git_rev),
           pg_param(now)});
      id = r.int64(0, 0);
    });
    return id;
  }

  int64_t take_run(int64_t run, const std::string& host, const std::string& device,
                   double now) override {
    int64_t lease = 0;
    write([&] {
      auto r = pg_.exec(
          "UPDATE runs SET " + take_run_set("$2", "$3", "$4") + " WHERE id = $1 RETURNING lease",
          {pg_param(run), pg_param(now), pg_text_or_null(host), pg_text_or_null(device)});
      require_run(r, run);
      lease = r.int64(0, 0);
    });
    return lease;
  }

  void mark_running(int64_t run, const std::string& host, const std::string& device, double now,
                    int64_t lease) override {
    write([&] {
      auto r = pg_.exec(
          "UPDATE runs SET host = $2, device = $3, heartbeat_at = $4 WHERE id = $1"
          " AND " +
              held_by("$5::bigint") + " RETURNING id",
          {pg_param(run), pg_text_or_null(host), pg_text_or_null(device), pg_param(now),
           pg_param(lease)});
      require_changed(r, run, lease);
    });
  }

  void finish_run(int64_t run, const std::string& status, const std::string& error,
                  std::optional<int64_t> diverged_step, double now, Fence fence) override {
    write([&] {
      auto r = pg_.exec(
          "UPDATE runs SET status = $2, error = $3, diverged_step = $4, finished_at = $5,"
          " heartbeat_at = $5 WHERE id = $1 AND " +
              held_by_if_fenced("$6::bigint") + " RETURNING id",
          {pg_param(run), status, pg_text_or_null(error), pg_param(diverged_step), pg_param(now),
           pg_param(fence)});
      require_changed(r, run, fence);
    });
  }

  void heartbeat(int64_t run, int64_t updates, double now, Fence fence) override {
    write([&] {
      auto r = pg_.exec("UPDATE runs SET heartbeat_at = $2, updates = $3 WHERE id = $1 AND " +
                            held_by_if_fenced("$4::bigint") + " RETURNING id",
                        {pg_param(run), pg_param(now), pg_param(updates), pg_param(fence)});
      require_changed(r, run, fence);
    });
  }

  void touch_heartbeat(int64_t run, double now, int64_t lease) override {
    write([&] {
      auto r = pg_.exec("UPDATE runs SET heartbeat_at = $2 WHERE id = $1 AND " +
                            held_by("$3::bigint") + " RETURNING id",
                        {pg_param(run), pg_param(now), pg_param(lease)});
      require_changed(r, run, lease);
    });
  }

  bool requeue_run(int64_t run, const std::string& reason, double now,
                   const std::vector<std::string>& from, Fence fence) override {
    bool requeued = false;
    write([&] {
      std::vector<PgParam> params{pg_param(run), pg_text_or_null(reason), pg_param(now)};
      if (fence) params.push_back(pg_param(*fence));
      auto r = pg_.exec("UPDATE runs SET " + requeue_set("$2", "$3") + " WHERE id = $1 AND " +
                            (fence ? held_by("$4::bigint") : status_in(from)) + " RETURNING id",
                        params);
      requeued = r.rows() > 0;
      if (!requeued) fence ? check_fence(run, fence) : require_exists(run);
    });
    return requeued;
  }

  bool cancel_run(int64_t run, const std::string& reason, double now) override {
    bool cancelled = false;
    write([&] {
      auto r = pg_.exec(
          "UPDATE runs SET status = 'cancelled', error = $2, finished_at = $3, heartbeat_at = $3"
          " WHERE id = $1 AND status IN ('queued', 'running') RETURNING id",
          {pg_param(run), pg_text_or_null(reason), pg_param(now)});
      cancelled = r.rows() > 0;
      if (!cancelled) require_exists(run);
    });
    return cancelled;
  }

  void set_final_metric(int64_t run, const std::string& name, double value, Fence fence) override {
    write([&] {
      check_fence(run, fence);
      pg_.exec(
          "INSERT INTO final_metrics (run_id, name, value) VALUES ($1, $2, $3)"
          " ON CONFLICT (run_id, name) DO UPDATE SET value = excluded.value",
          {pg_param(run), name, pg_param(value)});
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
      pg_.exec(
          "INSERT INTO run_tags (run_id, key, value) VALUES ($1, $2, $3)"
          " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
          {pg_param(run), key, value});
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
      pg_.exec("DELETE FROM metrics WHERE run_id = $1 AND step > $2",
               {pg_param(run), pg_param(step)});
    });
  }

  void set_config(int64_t run, const std::string& config_yaml, const std::string& config_json,
                  Fence fence) override {
    write([&] {
      auto r = pg_.exec("UPDATE runs SET config_yaml = $2, config_json = $3 WHERE id = $1 AND " +
                            held_by_if_fenced("$4::bigint") + " RETURNING id",
                        {pg_param(run), config_yaml, config_json, pg_param(fence)});
      require_changed(r, run, fence);
    });
  }

  void delete_run(int64_t run) override {
    write([&] {
      // FOR UPDATE: a worker cannot claim or start the run between the check and the delete.
      auto status = pg_.exec("SELECT status FROM runs WHERE id = $1 FOR UPDATE", {pg_param(run)});
      if (status.rows() == 0)
        throw std::invalid_argument(pg_.shown() + ": no run with id " + std::to_string(run));
      if (status.text(0, 0) == db::status::kRunning)
        throw InputError(
            pg_.shown(), 0, "",
            "run " + std::to_string(run) + " is running; cancel it before deleting it");
      for (const char* table : {"metrics", "final_metrics", "run_tags", "artifacts", "analyses"})
        pg_.exec(std::string("DELETE FROM ") + table + " WHERE run_id = $1", {pg_param(run)});
      pg_.exec("DELETE FROM runs WHERE id = $1", {pg_param(run)});
    });
  }

  int64_t add_analysis(const NewAnalysis& a, double now) override {
    int64_t id = 0;
    write([&] {
      auto r = pg_.exec(
          "INSERT INTO analyses (run_id, kind, checkpoint, params_json, result_json, created_at,"
          " elapsed_s) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
          {pg_param(a.run_id), a.kind, pg_text_or_null(a.checkpoint), a.params_json, a.result_json,
           pg_param(now), pg_param(a.elapsed_s)});
      id = r.int64(0, 0);
    });
    return id;
  }

  std::optional<RunRecord> claim_next_run(const std::string& sweep, const std::string& host,
                                          const std::string& device, double now,
                                          const std::vector<int64_t>& skip) override {
    std::optional<RunRecord> claimed;
    write([&] {
      claimed.reset();
      // SKIP LOCKED: concurrent claimers each take a different queued row, none waits.
      auto r = pg_.exec("UPDATE runs SET " + take_run_set("$2", "$3", "$4") +
                            " WHERE id = (SELECT id FROM runs WHERE sweep = $1 AND"
                            " status = 'queued'" +
                            id_not_in(skip) +
                            " ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING " + kRunColumns,
                        {sweep, pg_param(now), pg_text_or_null(host), pg_text_or_null(device)});
      if (r.rows() == 0) return;
      claimed = read_run(r, 0);
      add_final_metrics(*claimed);
    });
    return claimed;
  }

  void import_run(const RunExport& e) override {
    write([&] {
      const RunRecord& r = e.run;
      pg_.exec(
          "INSERT INTO runs (id, name, sweep, config_json, config_yaml, status, error,"
          " diverged_step, created_at, started_at, finished_at, heartbeat_at, host, device,"
          " git_rev, updates, lease) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
          " $13, $14, $15, $16, $17)",
          {pg_param(r.id), r.name, pg_text_or_null(r.sweep), r.config_json, r.config_yaml, r.status,
           pg_text_or_null(r.error), pg_param(r.diverged_step), pg_param(r.created_at),
           time_or_null(r.started_at), time_or_null(r.finished_at), time_or_null(r.heartbeat_at),
           pg_text_or_null(r.host), pg_text_or_null(r.device), pg_text_or_null(r.git_rev),
           pg_param(r.updates), pg_param(r.lease)});
      for (const auto& [name, value] : r.final_metrics)
        pg_.exec("INSERT INTO final_metrics (run_id, name, value) VALUES ($1, $2, $3)",
                 {pg_param(r.id), name, pg_param(value)});
      for (const auto& [key, value] : e.tags)
        pg_.exec("INSERT INTO run_tags (run_id, key, value) VALUES ($1, $2, $3)",
                 {pg_param(r.id), key, value});
      for (const auto& a : e.artifacts) insert_artifact(r.id, a, r.created_at);
      insert_metrics(r.id, e.metrics);
      // Explicit ids leave the identity sequence behind: the next create_run must not clash.
      pg_.exec(
          "SELECT setval(pg_get_serial_sequence('runs', 'id'),"
          " greatest((SELECT max(id) FROM runs), 1))");
    });
  }

  void import_analysis(const AnalysisRecord& a) override {
    write([&] {
      pg_.exec(
          "INSERT INTO analyses (id, run_id, kind, checkpoint, params_json, result_json,"
          " created_at, elapsed_s) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
          {pg_param(a.id), pg_param(a.run_id), a.kind, pg_text_or_null(a.checkpoint), a.params_json,
           a.result_json, pg_param(a.created_at), pg_param(a.elapsed_s)});
      pg_.exec(
          "SELECT setval(pg_get_serial_sequence('analyses', 'id'),"
          " greatest((SELECT max(id) FROM analyses), 1))");
    });
  }

  // ---- reads ----

  std::vector<Artifact> artifacts(int64_t run) override {
    std::vector<Artifact> out;
    read_one([&] {
      out.clear();
      auto r = pg_.exec("SELECT kind, path, step FROM artifacts WHERE run_id = $1 ORDER BY kind",
                        {pg_param(run)});
      for (int i = 0; i < r.rows(); ++i)
        out.push_back({r.text(i, 0), r.text(i, 1), r.optional_int64(i, 2)});
    });
    return out;
  }

  std::map<std::string, std::string> tags(int64_t run) override {
    std::map<std::string, std::string> out;
    read_one([&] {
      out.clear();
      auto r = pg_.exec("SELECT key, value FROM run_tags WHERE run_id = $1", {pg_param(run)});
      for (int i = 0; i < r.rows(); ++i) out[r.text(i, 0)] = r.text(i, 1);
    });
    return out;
  }

  std::vector<RunRecord> list_runs(const std::string& sweep_filter) override {
    return select_runs(
        sweep_filter.empty() ? "" : "WHERE sweep = $1",
        sweep_filter.empty() ? std::vector<PgParam>{} : std::vector<PgParam>{sweep_filter},
        "ORDER BY id");
  }

  std::optional<RunRecord> run_by_id(int64_t id) override {
    auto runs = select_runs("WHERE id = $1", {pg_param(id)}, "");
    if (runs.empty()) return std::nullopt;
    return std::move(runs.front());
  }

  std::optional<RunRecord> latest_run_named(const std::string& name) override {
    auto runs = select_runs("WHERE name = $1", {name}, "ORDER BY id DESC LIMIT 1");
    if (runs.empty()) return std::nullopt;
    return std::move(runs.front());
  }

  std::vector<MetricPoint> metric_points(int64_t run, const std::string& name,
                                         int64_t after_step) override {
    std::vector<MetricPoint> out;
    read_one([&] {
      out.clear();
      auto r = pg_.exec(
          "SELECT step, value, wall_time FROM metrics"
          " WHERE run_id = $1 AND name = $2 AND step > $3 ORDER BY step",
          {pg_param(run), name, pg_param(after_step)});
      out.reserve(r.rows());
      for (int i = 0; i < r.rows(); ++i) out.push_back({r.int64(i, 0), r.real(i, 1), r.real(i, 2)});
    });
    return out;
  }

  int64_t last_metric_step(int64_t run, const std::string& name) override {
    int64_t last = -1;
    read_one([&] {
      auto r = pg_.exec("SELECT max(step) FROM metrics WHERE run_id = $1 AND name = $2",
                        {pg_param(run), name});
      last = r.is_null(0, 0) ? -1 : r.int64(0, 0);
    });
    return last;
  }

  std::vector<std::string> metric_names(int64_t run) override {
    std::vector<std::string> out;
    read_one([&] {
      out.clear();
      // A skip-scan over the (run_id, name, step) key, as on SQLite: one index seek per name.
      auto r = pg_.exec(
          "WITH RECURSIVE n(name) AS ("
          "  SELECT (SELECT min(name) FROM metrics WHERE run_id = $1)"
          "  UNION ALL"
          "  SELECT (SELECT min(name) FROM metrics WHERE run_id = $1 AND name > n.name)"
          "  FROM n WHERE n.name IS NOT NULL)"
          " SELECT name FROM n WHERE name IS NOT NULL ORDER BY name COLLATE \"C\"",
          {pg_param(run)});
      for (int i = 0; i < r.rows(); ++i) out.push_back(r.text(i, 0));
    });
    return out;
  }

  std::map<int64_t, MetricPoint> best_points(const std::vector<int64_t>& runs,
                                             const std::string& name, bool higher) override {
    std::map<int64_t, MetricPoint> out;
    if (runs.empty()) return out;
    std::string ids = "{";
    for (size_t i = 0; i < runs.size(); ++i) ids += (i ? "," : "") + std::to_string(runs[i]);
    ids += "}";
    read_one([&] {
      out.clear();
      // One round trip: the first row per run in value order. NaN sorts above +inf in
      // PostgreSQL, so "< 'Infinity'" leaves it out too.
      auto r = pg_.exec(
          std::string("SELECT DISTINCT ON (run_id) run_id, step, value, wall_time FROM metrics"
                      " WHERE run_id = ANY($1::bigint[]) AND name = $2"
                      " AND value > '-Infinity'::float8 AND value < 'Infinity'::float8"
                      " ORDER BY run_id, value ") +
              (higher ? "DESC" : "ASC") + ", step",
          {ids, name});
      for (int i = 0; i < r.rows(); ++i)
        out[r.int64(i, 0)] = {r.int64(i, 1), r.real(i, 2), r.real(i, 3)};
    });
    return out;
  }

  std::vector<MetricRow> metric_rows(int64_t run) override {
    std::vector<MetricRow> out;
    read_one([&] {
      out.clear();
      auto r = pg_.exec(
          "SELECT step, name, value, wall_time FROM metrics WHERE run_id = $1"
          " ORDER BY name COLLATE \"C\", step",
          {pg_param(run)});
      out.reserve(r.rows());
      for (int i = 0; i < r.rows(); ++i)
        out.emplace_back(r.int64(i, 0), r.text(i, 1), r.real(i, 2), r.real(i, 3));
    });
    return out;
  }

  std::vector<AnalysisRecord> list_analyses(std::optional<int64_t> run,
                                            const std::string& kind) override {
    std::vector<AnalysisRecord> out;
    read_one([&] {
      out.clear();
      auto r = pg_.exec(std::string("SELECT ") + kAnalysisColumns +
                            " FROM analyses WHERE ($1::bigint IS NULL OR run_id = $1::bigint)"
                            " AND ($2::text = '' OR kind = $2::text) ORDER BY id",
                        {pg_param(run), kind});
      for (int i = 0; i < r.rows(); ++i) out.push_back(read_analysis(r, i));
    });
    return out;
  }

  std::optional<AnalysisRecord> get_analysis(int64_t id) override {
    std::optional<AnalysisRecord> out;
    read_one([&] {
      auto r = pg_.exec(std::string("SELECT ") + kAnalysisColumns + " FROM analyses WHERE id = $1",
                        {pg_param(id)});
      out = r.rows() ? std::optional(read_analysis(r, 0)) : std::nullopt;
    });
    return out;
  }

  int64_t last_analysis_id() override {
    int64_t id = 0;
    read_one([&] { id = pg_.exec("SELECT coalesce(max(id), 0) FROM analyses").int64(0, 0); });
    return id;
  }

  StoreCounts counts() override {
    StoreCounts c;
    read_one([&] {
      auto r = pg_.exec(
          "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM metrics),"
          " (SELECT count(*) FROM final_metrics), (SELECT count(*) FROM run_tags),"
          " (SELECT count(*) FROM artifacts), (SELECT count(*) FROM analyses)");
      c = {r.int64(0, 0), r.int64(0, 1), r.int64(0, 2),
           r.int64(0, 3), r.int64(0, 4), r.int64(0, 5)};
    });
    return c;
  }

  std::vector<CurveReply> poll_curves(const std::vector<CurveRequest>& requests) override {
    std::vector<CurveReply> out;
    std::string runs = "{", names = "{", after = "{";
    for (size_t i = 0; i < requests.size(); ++i) {
      const char* sep = i ? "," : "";
      runs += sep + std::to_string(requests[i].run);
      names += sep + quoted_element(requests[i].name);
      after += sep + std::to_string(requests[i].after_step);
    }
    const std::vector<PgParam> params = {runs + "}", names + "}", after + "}"};
    const std::string curves =
        "WITH q AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])"
        " WITH ORDINALITY AS q(run_id, name, after_step, i)) ";
    read([&] {
      out.assign(requests.size(), CurveReply{});
      // One statement: every curve's end (an index seek each) and its new points.
      auto r = pg_.exec(curves +
                            "SELECT q.i, NULL::bigint, NULL::float8, NULL::float8,"
                            " (SELECT max(step) FROM metrics m WHERE m.run_id = q.run_id"
                            "  AND m.name = q.name) FROM q"
                            " UNION ALL SELECT q.i, m.step, m.value, m.wall_time, NULL FROM q"
                            " JOIN metrics m ON m.run_id = q.run_id AND m.name = q.name"
                            " AND m.step > q.after_step ORDER BY 1, 2 NULLS FIRST",
                        params);
      for (int row = 0; row < r.rows(); ++row) {
        CurveReply& reply = out[r.int64(row, 0) - 1];
        if (r.is_null(row, 1))
          reply.last_step = r.is_null(row, 4) ? -1 : r.int64(row, 4);
        else
          reply.points.push_back({r.int64(row, 1), r.real(row, 2), r.real(row, 3)});
      }
    });
    return out;
  }

  std::optional<std::string> busy_reason() override {
    // Readers never wait on writers in PostgreSQL (MVCC); what can stall a window is a lost
    // server. One round trip, no reconnection loop.
    try {
      pg_.exec("SELECT 1");
      return std::nullopt;
    } catch (const PgConnectionLost& e) {
      if (pg_.try_reconnect()) return std::nullopt;  // the next poll reads normally
      return std::string("run store server unreachable: ") + e.what();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  }

 private:
  template <typename F>
  void write(F body) {
    pg_.transaction(body);
  }

  // One statement is its own snapshot: no transaction, one round trip (the dashboard's poll
  // is hundreds of these). Retried on a lost connection.
  template <typename F>
  void read_one(F body) {
    pg_.retrying(body);
  }

  // A consistent snapshot for multi-statement reads; retried on a lost connection.
  template <typename F>
  void read(F body) {
    pg_.transaction(body, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  }

  void require_run(const PgResult& r, int64_t run) const {
    if (r.rows() == 0)
      throw std::invalid_argument(pg_.shown() + ": no run with id " + std::to_string(run));
  }

  void require_exists(int64_t run) {  // after an UPDATE whose WHERE may skip the row
    if (pg_.exec("SELECT 1 FROM runs WHERE id = $1", {pg_param(run)}).rows() == 0)
      throw std::invalid_argument(pg_.shown() + ": no run with id " + std::to_string(run));
  }

  // Inside a write transaction: throws LeaseLost unless the run is running under `fence`
  // (nothing for an unfenced write). FOR SHARE holds the row until this transaction ends: a
  // claim, requeue or end cannot change the run's holder between this check and the write.
  void check_fence(int64_t run, Fence fence) {
    if (!fence) return;
    auto r = pg_.exec("SELECT status, lease FROM runs WHERE id = $1 FOR SHARE", {pg_param(run)});
    require_run(r, run);
    throw_unless_held(Lease{run, *fence}, r.text(0, 0), r.int64(0, 1));
  }

  // After an UPDATE ... RETURNING of the run's row whose WHERE held the fence: no row came
  // back because the run is missing or no longer held (which check_fence then throws).
  void require_changed(const PgResult& r, int64_t run, Fence fence) {
    if (r.rows() > 0) return;
    if (!fence) require_run(r, run);
    check_fence(run, fence);
    throw std::logic_error(pg_.shown() + ": run " + std::to_string(run) + " was not updated");
  }

  std::vector<RunRecord> select_runs(const std::string& where, const std::vector<PgParam>& params,
                                     const std::string& order) {
    std::vector<RunRecord> runs;
    read([&] {
      runs.clear();
      auto r = pg_.exec("SELECT " + std::string(kRunColumns) + " FROM runs " + where + " " + order,
                        params);
      for (int i = 0; i < r.rows(); ++i) runs.push_back(read_run(r, i));
      if (runs.empty()) return;
      // All final metrics in one round trip rather than one query per run.
      std::string ids = "{";
      std::map<int64_t, RunRecord*> by_id;
      for (auto& run : runs) {
        ids += (ids.size() > 1 ? "," : "") + std::to_string(run.id);
        by_id[run.id] = &run;
      }
      ids += "}";
      auto fm = pg_.exec(
          "SELECT run_id, name, value FROM final_metrics"
          " WHERE run_id = ANY($1::bigint[])",
          {ids});
      for (int i = 0; i < fm.rows(); ++i)
        by_id[fm.int64(i, 0)]->final_metrics[fm.text(i, 1)] = fm.real(i, 2);
    });
    return runs;
  }

  void add_final_metrics(RunRecord& run) {
    auto fm =
        pg_.exec("SELECT name, value FROM final_metrics WHERE run_id = $1", {pg_param(run.id)});
    for (int i = 0; i < fm.rows(); ++i) run.final_metrics[fm.text(i, 0)] = fm.real(i, 1);
  }

  void insert_artifact(int64_t run, const Artifact& a, double now) {
    pg_.exec(
        "INSERT INTO artifacts (run_id, kind, path, step, created_at)"
        " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, kind) DO UPDATE SET"
        " path = excluded.path, step = excluded.step, created_at = excluded.created_at",
        {pg_param(run), a.kind, a.path, pg_param(a.step), pg_param(now)});
  }

  void insert_metrics(int64_t run, const std::vector<MetricRow>& rows) {
    // The last row of a repeated (name, step) wins, as with SQLite's INSERT OR REPLACE; one
    // statement may not update the same row twice, so repeats are dropped here first.
    std::set<std::pair<std::string, int64_t>> seen;
    std::vector<const MetricRow*> unique;
    for (auto it = rows.rbegin(); it != rows.rend(); ++it)
      if (seen.emplace(std::get<1>(*it), std::get<0>(*it)).second) unique.push_back(&*it);
    constexpr size_t kChunk = 5000;  // bounded statement size for large imports
    for (size_t begin = 0; begin < unique.size(); begin += kChunk) {
      std::string steps = "{", names = "{", values = "{", times = "{";
      for (size_t i = begin; i < std::min(unique.size(), begin + kChunk); ++i) {
        const auto& [step, name, value, wall_time] = *unique[i];
        const char* sep = i == begin ? "" : ",";
        steps += sep + std::to_string(step);
        names += sep + quoted_element(name);
        values += sep + pg_param(value).value_or("NULL");
        times += sep + pg_param(wall_time).value_or("NULL");
      }
      pg_.exec(
          "INSERT INTO metrics (run_id, step, name, value, wall_time)"
          " SELECT $1, s, n, v, w FROM unnest($2::bigint[], $3::text[],"
          " $4::double precision[], $5::double precision[]) AS t(s, n, v, w)"
          " ON CONFLICT (run_id, name, step) DO UPDATE SET value = excluded.value,"
          " wall_time = excluded.wall_time",
          {pg_param(run), steps + "}", names + "}", values + "}", times + "}"});
    }
  }

  PgConnection pg_;
};

}  // namespace

std::unique_ptr<StoreBackend> open_postgres_backend(const StoreUrl& url, OpenMode mode) {
  auto backend = std::make_unique<PostgresBackend>(url);
  int version = 0;
  try {
    version = backend->schema_version();
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e)) throw;
    throw InputError(url.shown, 0, "", std::string("cannot read the run store: ") + e.what());
  }
  if (mode == OpenMode::ReadOnly) {
    if (version == 0) throw InputError(url.shown, 0, "", "empty database, not a Fathom run store");
    if (version < latest_schema_version())
      throw InputError(url.shown, 0, "",
                       "run store has schema version " + std::to_string(version) +
                           ", older than this build's " + std::to_string(latest_schema_version()) +
                           "; a command that writes to it (e.g. `fathom train`) upgrades it");
    return backend;
  }
  backend->migrate();
  return backend;
}

}  // namespace fathom::db
