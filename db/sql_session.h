#pragma once
// What the shared store logic (db/sql_store.h) needs of a SQL engine: run one statement with
// parameters and read its rows, and group statements into a write transaction or a consistent
// read. Statements are written once in the SQL both SQLite and PostgreSQL accept, with
// numbered placeholders ?1, ?2, ... (a PostgreSQL session rewrites them to $1, $2, ...).
// Internal to db/.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace fathom::db {

// A statement parameter: NULL, an integer, a float (NaN stored as NULL on both engines) or text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

inline SqlValue sql_int_or_null(std::optional<int64_t> v) { return v ? SqlValue(*v) : SqlValue(); }
// "" -> NULL, for optional text columns such as runs.sweep.
inline SqlValue sql_text_or_null(const std::string& v) {
  return v.empty() ? SqlValue() : SqlValue(v);
}
// 0 (an event that has not happened) -> NULL.
inline SqlValue sql_time_or_null(double t) { return t == 0 ? SqlValue() : SqlValue(t); }

// A statement failed on a stored value it could not convert -- PostgreSQL's SQLSTATE class 22,
// e.g. a hand-edited config_json that is not JSON under a ::json cast -- not on the store or
// the connection: the caller may read the rows another way.
struct SqlValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One row of a result, columns 0-based. NULL reads as "", NaN, or the fallback given.
class SqlRow {
 public:
  virtual ~SqlRow() = default;
  virtual bool is_null(int col) const = 0;
  virtual int64_t int64(int col) const = 0;
  virtual double real(int col) const = 0;
  virtual std::string text(int col) const = 0;
  std::optional<int64_t> optional_int64(int col) const {
    return is_null(col) ? std::nullopt : std::optional(int64(col));
  }
  double real_or(int col, double fallback) const { return is_null(col) ? fallback : real(col); }
};

class SqlSession {
 public:
  using EachRow = std::function<void(const SqlRow&)>;
  virtual ~SqlSession() = default;

  // The store as messages may name it (never a password).
  virtual const std::string& shown() const = 0;
  // Runs one statement, calling `each` (when given) for every row; returns the row count.
  virtual int64_t query(const std::string& sql, const std::vector<SqlValue>& params,
                        const EachRow& each = nullptr) = 0;
  // One statement run once per parameter row (a batch of inserts). The default runs query()
  // for each; an engine may reuse one prepared statement.
  virtual void execute_for_each(const std::string& sql,
                                const std::vector<std::vector<SqlValue>>& param_rows) {
    for (const auto& params : param_rows) query(sql, params);
  }
  // body() as one write transaction: all of it or nothing. A session whose server can drop
  // the connection runs body() again on a fresh one, so body() starts from scratch each time.
  virtual void write(const std::function<void()>& body) = 0;
  // body() reading one consistent snapshot (several statements that must agree).
  virtual void read_snapshot(const std::function<void()>& body) = 0;
  // body() of a single statement, its own snapshot; retried like write().
  virtual void read_one(const std::function<void()>& body) = 0;

  // The dialect's row locks: "" where a write transaction already excludes other writers
  // (SQLite's one write lock), " FOR UPDATE" / " FOR SHARE" / " FOR UPDATE SKIP LOCKED" on a
  // server where concurrent transactions would otherwise pass each other.
  virtual const char* lock_for_update() const = 0;
  virtual const char* lock_for_share() const = 0;
  virtual const char* lock_skipping_locked() const = 0;
  // A collation ordering text by its bytes (metric names list the same on both engines).
  virtual const char* bytewise_collation() const = 0;
  // The operator of a LIKE that ignores ASCII case (SQLite's LIKE does; PostgreSQL's ILIKE).
  virtual const char* like_ignoring_case() const = 0;
  // An expression for the value at `keys` inside the JSON text of `column`: a scalar as its
  // text, an object or array as JSON text, NULL where absent. Keys are [a-z0-9_] only.
  virtual std::string json_text_at(const std::string& column,
                                   const std::vector<std::string>& keys) const = 0;
  // After rows were inserted into `table` with explicit ids: make the next generated id
  // follow them (a PostgreSQL identity sequence does not move by itself).
  virtual void follow_explicit_ids(const std::string& table) { (void)table; }
};

}  // namespace fathom::db
