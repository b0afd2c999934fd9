#pragma once
// Thin RAII wrappers over the sqlite3 C API: a connection, a prepared statement and a
// transaction. Internal to db/ -- the rest of Fathom talks to db/store.h.
//
// Error policy: a file that is not a SQLite database, is corrupt or cannot be opened is the
// user's problem -> fathom::InputError naming the file. Anything else (a constraint violated,
// a full disk, a lock held for minutes) -> std::runtime_error, also naming the file.
#include <cstdint>
#include <optional>
#include <string>

#include "db/records.h"  // unix_now()

struct sqlite3;
struct sqlite3_stmt;

namespace fathom::db {

// How long one SQLite call waits on another process's lock before reporting SQLITE_BUSY: at
// most a minute, and no longer than the store's retry budget.
constexpr int kBusyTimeoutMs = 60'000;
// How long we keep retrying a BEGIN IMMEDIATE (or an open-time pragma) that still reports
// SQLITE_BUSY -- e.g. while another process is recovering the WAL, when SQLite returns BUSY
// without calling the busy handler: the store's retry budget (store_retry_seconds(),
// $FATHOM_DB_RETRY_SECONDS, 120 s by default). Past it the call throws StoreUnreachable, as
// a PostgreSQL outage does: a worker leaves its run crashed, which a resume continues.

class Connection {
 public:
  // flags: SQLITE_OPEN_* bits. Opening never touches the file's contents.
  Connection(const std::string& path, int flags);
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  // Runs one or more statements that return no rows; throws on error.
  void exec(const std::string& sql) const;
  // Like exec() but retries on SQLITE_BUSY/SQLITE_LOCKED for up to the retry budget.
  void exec_retrying(const std::string& sql) const;
  // The single value of a one-row query (e.g. "PRAGMA user_version").
  int64_t query_int(const std::string& sql) const;

  int64_t last_insert_rowid() const;
  int changes() const;  // rows touched by the last INSERT/UPDATE/DELETE

  // Throws the right exception for a failed SQLite call; `what` says what we were doing.
  [[noreturn]] void fail(int rc, const std::string& what) const;
  // fail() unless rc is SQLITE_OK, SQLITE_ROW or SQLITE_DONE.
  void check(int rc, const std::string& what) const;

 private:
  void close() noexcept;
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A prepared statement, finalized on destruction. Bind indexes are 1-based, columns 0-based.
class Statement {
 public:
  Statement(const Connection& db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement& bind(int i, double v);  // NaN is stored as NULL (SQLite has no NaN)
  Statement& bind(int i, const std::string& v);
  Statement& bind(int i, std::optional<int64_t> v);
  Statement& bind_null(int i);
  // Empty string -> NULL, for optional text columns such as runs.sweep.
  Statement& bind_text_or_null(int i, const std::string& v);

  // Advances; true if a row is available, false when done. Throws on error.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  // Resets for re-execution with new bindings.
  void reset();

  bool is_null(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;                      // NULL -> NaN
  double real_or(int col, double fallback) const;  // NULL -> fallback
  std::string text(int col) const;                 // NULL -> ""
  std::optional<int64_t> optional_int64(int col) const;

 private:
  const Connection& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE (writers) or BEGIN DEFERRED (consistent multi-statement reads), retried
// while another process holds the write lock; rolled back on destruction unless committed.
class Transaction {
 public:
  enum class Kind { Immediate, Deferred };
  explicit Transaction(const Connection& db, Kind kind = Kind::Immediate);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Connection& db_;
  bool open_ = false;
};

}  // namespace fathom::db
