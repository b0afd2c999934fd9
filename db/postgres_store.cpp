// The PostgreSQL backend (libpq): a lab's server store that workers on many machines and the
// desktop app reach at once. Same schema versions and guarantees as SQLite; every write is
// one transaction, retried on a fresh connection when the server drops it (pg_connection.h).
// The store's statements and checks are db/sql_store.cpp's; this file is how PostgreSQL runs
// them, creates and migrates a database, and answers a dashboard poll in one round trip.
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "base/util/error.h"
#include "db/outdated_store.h"
#include "db/pg_connection.h"
#include "db/postgres_migrations.h"
#include "db/sql_store.h"
#include "db/store.h"
#include "db/store_backends.h"

namespace fathom::db {
namespace {

// Serialises schema creation and migration across processes (pg_advisory_xact_lock).
constexpr int64_t kMigrationLock = 0x4654484D;  // "FTHM"

// Array literals for unnest(): one round trip carries a whole list.
std::string quoted_element(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The shared statements' ?N placeholders as PostgreSQL's $N (outside quoted literals).
std::string dollar_placeholders(const std::string& sql) {
  std::string out = sql;
  bool quoted = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\'') quoted = !quoted;
    if (!quoted && out[i] == '?' && i + 1 < out.size() &&
        std::isdigit(static_cast<unsigned char>(out[i + 1])))
      out[i] = '$';
  }
  return out;
}

PgParam to_pg(const SqlValue& value) {
  return std::visit(
      [](const auto& v) -> PgParam {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          return std::nullopt;
        else
          return pg_param(v);
      },
      value);
}

class PgRow final : public SqlRow {
 public:
  PgRow(const PgResult& result, int row) : result_(result), row_(row) {}
  bool is_null(int col) const override { return result_.is_null(row_, col); }
  int64_t int64(int col) const override { return result_.int64(row_, col); }
  double real(int col) const override { return result_.real(row_, col); }
  std::string text(int col) const override { return result_.text(row_, col); }

 private:
  const PgResult& result_;
  int row_;
};

class PostgresSession final : public SqlSession {
 public:
  explicit PostgresSession(const StoreUrl& url) : pg_(url.connect, url.shown) {}
  PgConnection& connection() { return pg_; }

  const std::string& shown() const override { return pg_.shown(); }

  int64_t query(const std::string& sql, const std::vector<SqlValue>& params,
                const EachRow& each) override {
    std::vector<PgParam> pg_params;
    pg_params.reserve(params.size());
    for (const auto& p : params) pg_params.push_back(to_pg(p));
    auto result = pg_.exec(dollar_placeholders(sql), pg_params);
    if (each)
      for (int i = 0; i < result.rows(); ++i) each(PgRow(result, i));
    return result.rows();
  }

  // Retried on a fresh connection when the server drops it (pg_connection.h).
  void write(const std::function<void()>& body) override { pg_.transaction(body); }
  void read_snapshot(const std::function<void()>& body) override {
    pg_.transaction(body, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  }
  // One statement is its own snapshot: no transaction, one round trip (the dashboard's poll
  // is hundreds of these).
  void read_one(const std::function<void()>& body) override { pg_.retrying(body); }

  const char* lock_for_update() const override { return " FOR UPDATE"; }
  const char* lock_for_share() const override { return " FOR SHARE"; }
  // Concurrent claimers each take a different queued row; none waits.
  const char* lock_skipping_locked() const override { return " FOR UPDATE SKIP LOCKED"; }
  const char* bytewise_collation() const override { return "COLLATE \"C\""; }
  const char* like_ignoring_case() const override { return "ILIKE"; }
  // #>> reads a scalar as text and an object as JSON text, as SQLite's json_extract does.
  std::string json_text_at(const std::string& column,
                           const std::vector<std::string>& keys) const override {
    std::string path;
    for (const auto& key : keys) path += (path.empty() ? "" : ",") + key;
    return "(" + column + "::json #>> '{" + path + "}')";
  }

  void follow_explicit_ids(const std::string& table) override {
    pg_.exec("SELECT setval(pg_get_serial_sequence('" + table +
             "', 'id'), greatest((SELECT max(id) FROM " + table + "), 1))");
  }

 private:
  PgConnection pg_;
};

class PostgresBackend final : public SqlStore {
 public:
  explicit PostgresBackend(const StoreUrl& url)
      : SqlStore(std::make_unique<PostgresSession>(url)) {}

  // Checks the database is empty or a Fathom store this build understands; returns its version.
  int check_schema() {
    auto tables = pg().exec(
        "SELECT count(*), min(table_name::text),"
        "       bool_or(table_name = 'fathom_meta')"
        " FROM information_schema.tables WHERE table_schema = current_schema()");
    const int64_t count = tables.int64(0, 0);
    const bool has_meta = tables.text(0, 2) == "t";
    if (count == 0) return 0;
    if (!has_meta)
      throw InputError(pg().shown(), 0, "",
                       "the database holds " + std::to_string(count) +
                           " table(s) that are not a Fathom run store (e.g. '" + tables.text(0, 1) +
                           "'); use an empty database or another schema");
    auto meta = pg().exec("SELECT key, value FROM fathom_meta");
    std::map<std::string, std::string> values;
    for (int i = 0; i < meta.rows(); ++i) values[meta.text(i, 0)] = meta.text(i, 1);
    if (values["application"] != "fathom")
      throw InputError(pg().shown(), 0, "", "table fathom_meta does not mark a Fathom run store");
    const int version = values.count("schema_version") ? std::stoi(values["schema_version"]) : 0;
    if (version > latest_schema_version())
      throw InputError(pg().shown(), 0, "",
                       "run store has schema version " + std::to_string(version) +
                           ", newer than this build of Fathom understands (" +
                           std::to_string(latest_schema_version()) + "); use a newer Fathom");
    return version;
  }

  // Every missing step in one transaction, as for SQLite: a reader sees the old version or
  // the latest, never an intermediate one.
  void migrate() {
    pg().transaction([&] {
      pg().exec("SELECT pg_advisory_xact_lock($1)", {pg_param(kMigrationLock)});
      const int from = check_schema();  // re-read under the lock
      if (from >= latest_schema_version()) return;
      for (int version = from; version < latest_schema_version(); ++version)
        pg().exec(postgres_migrations()[version].sql);
      pg().exec(
          "INSERT INTO fathom_meta (key, value) VALUES ('schema_version', $1)"
          " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          {std::to_string(latest_schema_version())});
    });
  }

  int schema_version() override {
    int version = 0;
    pg().transaction([&] { version = check_schema(); },
                     "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    return version;
  }

  // The whole poll in one statement (one round trip): every curve's end (an index seek
  // each) and its new points.
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
    pg().retrying([&] {
      out.assign(requests.size(), CurveReply{});
      auto r = pg().exec(
          "WITH q AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])"
          " WITH ORDINALITY AS q(run_id, name, after_step, i))"
          " SELECT q.i, NULL::bigint, NULL::float8, NULL::float8,"
          " (SELECT max(step) FROM metrics m WHERE m.run_id = q.run_id AND m.name = q.name)"
          " FROM q UNION ALL SELECT q.i, m.step, m.value, m.wall_time, NULL FROM q"
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
      pg().exec("SELECT 1");
      return std::nullopt;
    } catch (const PgConnectionLost& e) {
      if (pg().try_reconnect()) return std::nullopt;  // the next poll reads normally
      return std::string("run store server unreachable: ") + e.what();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  }

 protected:
  // One statement per 5,000 rows (arrays through unnest) rather than a round trip per row.
  void insert_metrics(int64_t run, const std::vector<MetricRow>& rows) override {
    // The last row of a repeated (name, step) wins; one statement may not update the same
    // row twice, so repeats are dropped here first.
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
      pg().exec(
          "INSERT INTO metrics (run_id, step, name, value, wall_time)"
          " SELECT $1, s, n, v, w FROM unnest($2::bigint[], $3::text[],"
          " $4::double precision[], $5::double precision[]) AS t(s, n, v, w)"
          " ON CONFLICT (run_id, name, step) DO UPDATE SET value = excluded.value,"
          " wall_time = excluded.wall_time",
          {pg_param(run), steps + "}", names + "}", values + "}", times + "}"});
    }
  }

 private:
  PgConnection& pg() const { return static_cast<PostgresSession&>(sql()).connection(); }
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
      throw OutdatedStoreError(url.shown, version, latest_schema_version());
    return backend;
  }
  backend->migrate();
  return backend;
}

}  // namespace fathom::db
