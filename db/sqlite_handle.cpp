#include "db/sqlite_handle.h"
#include "base/util/process.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/sqlite_write_lock.h"
#include "db/store_unreachable.h"

namespace fathom::db {
namespace {

bool is_busy(int rc) {
  int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

// Calls `attempt` until it returns something other than BUSY/LOCKED or the retry window
// closes. Sleeps grow from ~1 ms to ~50 ms with jitter so N waiting workers do not wake in
// lock-step.
template <typename F>
int retry_while_busy(F attempt) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(store_retry_seconds()));
  thread_local std::minstd_rand jitter{std::random_device{}()};
  int sleep_us = 1000;
  for (;;) {
    int rc = attempt();
    if (!is_busy(rc) || Clock::now() >= deadline) return rc;
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us + jitter() % sleep_us));
    sleep_us = std::min(sleep_us * 2, 50'000);
  }
}

}  // namespace

// ---- Connection ---------------------------------------------------------------------------

Connection::Connection(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    close();
    throw InputError(path, 0, "", "cannot open run store: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(
      db_, static_cast<int>(std::min<double>(kBusyTimeoutMs, 1000 * store_retry_seconds())));
}

Connection::~Connection() { close(); }

Connection::Connection(Connection&& other) noexcept
    : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    close();
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

void Connection::close() noexcept {
  // close_v2: if a statement somehow outlives us, SQLite closes once it is finalized.
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
}

void Connection::fail(int rc, const std::string& what) const {
  std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  // Damaged schema text (SQLite reports it as SQLITE_CORRUPT, SQLITE_ERROR or, for a damaged
  // length, SQLITE_TOOBIG; found by fuzz/fuzz_store.cpp): the file is at fault.
  if (detail.rfind("malformed database schema", 0) == 0)
    throw InputError(path_, 0, "", "damaged: its schema does not parse (" + detail + ")");
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      throw InputError(path_, 0, "", "not a SQLite database, or corrupt (" + detail + ")");
    case SQLITE_CANTOPEN:
      throw InputError(path_, 0, "", "cannot open run store (" + detail + ")");
    case SQLITE_READONLY:
      throw InputError(path_, 0, "", "run store is read-only (" + detail + ")");
    case SQLITE_BUSY:
    case SQLITE_LOCKED: {  // out of reach, not the run's fault (issue 57 item 2: it was "failed")
      const auto holder = sqlite_write_lock_holder(path_);
      // Which program, not its arguments (a password may be among them).
      const std::string who =
          holder ? " (" + process_summary(static_cast<pid_t>(*holder)) + ")" : "";
      throw StoreUnreachable(path_ + ": " + what + ": run store still locked by another " +
                             "process" + who + " after " + format_number(store_retry_seconds()) +
                             " s (" + detail + ")");
    }
    case SQLITE_ERROR:
      // A damaged header (its file-format bytes), or a file from a far newer SQLite: the file,
      // not the statement, is at fault (found by fuzz/fuzz_store.cpp).
      if (detail == "unsupported file format")
        throw InputError(
            path_, 0, "",
            "unsupported SQLite file format: a damaged file, or one from a newer SQLite");
      [[fallthrough]];
    default:
      throw std::runtime_error(path_ + ": " + what + ": " + detail);
  }
}

void Connection::check(int rc, const std::string& what) const {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) fail(rc, what);
}

void Connection::exec(const std::string& sql) const {
  check(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr), sql);
}

void Connection::exec_retrying(const std::string& sql) const {
  check(retry_while_busy([&] { return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }),
        sql);
}

int64_t Connection::query_int(const std::string& sql) const {
  Statement st(*this, sql.c_str());
  if (!st.step()) fail(SQLITE_ERROR, sql + " returned no row");
  return st.int64(0);
}

int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Connection::changes() const { return sqlite3_changes(db_); }

// ---- Statement ----------------------------------------------------------------------------

Statement::Statement(const Connection& db, const char* sql) : db_(db), sql_(sql) {
  db_.check(sqlite3_prepare_v2(db_.get(), sql, -1, &stmt_, nullptr), "preparing " + sql_);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int i, int64_t v) {
  db_.check(sqlite3_bind_int64(stmt_, i, v), "binding");
  return *this;
}

Statement& Statement::bind(int i, double v) {
  db_.check(std::isnan(v) ? sqlite3_bind_null(stmt_, i) : sqlite3_bind_double(stmt_, i, v),
            "binding");
  return *this;
}

Statement& Statement::bind(int i, const std::string& v) {
  db_.check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT),
            "binding");
  return *this;
}

Statement& Statement::bind(int i, std::optional<int64_t> v) {
  return v ? bind(i, *v) : bind_null(i);
}

Statement& Statement::bind_null(int i) {
  db_.check(sqlite3_bind_null(stmt_, i), "binding");
  return *this;
}

Statement& Statement::bind_text_or_null(int i, const std::string& v) {
  return v.empty() ? bind_null(i) : bind(i, v);
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(rc, sql_);
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }

double Statement::real(int col) const {
  return real_or(col, std::numeric_limits<double>::quiet_NaN());
}

double Statement::real_or(int col, double fallback) const {
  return is_null(col) ? fallback : sqlite3_column_double(stmt_, col);
}

std::string Statement::text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}

std::optional<int64_t> Statement::optional_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}

// ---- Transaction --------------------------------------------------------------------------

Transaction::Transaction(const Connection& db, Kind kind) : db_(db) {
  // BEGIN IMMEDIATE takes the write lock up front, so a writer never has to upgrade a read
  // snapshot mid-transaction (SQLITE_BUSY_SNAPSHOT, which no amount of waiting fixes).
  db_.exec_retrying(kind == Kind::Immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  open_ = true;
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec_retrying("COMMIT");
  open_ = false;
}

}  // namespace fathom::db
