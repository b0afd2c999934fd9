// The SQLite backend: one file, WAL mode, writers queue on the write lock (sqlite_handle.h).
// The store's statements and checks are db/sql_store.cpp's; this file is how SQLite runs them,
// opens and upgrades a file, and tells why a file is busy.
#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <variant>

#include "base/util/error.h"
#include "db/migrations.h"
#include "db/outdated_store.h"
#include "db/sql_store.h"
#include "db/sqlite_file_identity.h"
#include "db/sqlite_handle.h"
#include "db/sqlite_statement_cache.h"
#include "db/sqlite_write_lock.h"
#include "db/store.h"
#include "db/store_backends.h"

namespace fathom::db {

// Why the SQLite file `path` cannot be read right now without waiting, or nullopt (below; the
// registry in store_backends.cpp asks it too).
std::optional<std::string> sqlite_file_busy_reason(const std::string& path);

namespace {

// A statement's row, read in place (no copy of the result).
class SqliteRow final : public SqlRow {
 public:
  explicit SqliteRow(const Statement& st) : st_(st) {}
  bool is_null(int col) const override { return st_.is_null(col); }
  int64_t int64(int col) const override { return st_.int64(col); }
  double real(int col) const override { return st_.real(col); }
  std::string text(int col) const override { return st_.text(col); }

 private:
  const Statement& st_;
};

class SqliteSession final : public SqlSession {
 public:
  explicit SqliteSession(Connection db) : db_(std::move(db)), statements_(db_) {}
  const Connection& connection() const { return db_; }

  const std::string& shown() const override { return db_.path(); }

  int64_t query(const std::string& sql, const std::vector<SqlValue>& params,
                const EachRow& each) override {
    const StatementCache::Use use = statements_.take(sql);
    Statement& st = *use;
    bind_all(st, params);
    int64_t rows = 0;
    while (st.step()) {
      ++rows;
      if (each) each(SqliteRow(st));
    }
    return rows;
  }

  // One prepared statement for the whole batch.
  void execute_for_each(const std::string& sql,
                        const std::vector<std::vector<SqlValue>>& param_rows) override {
    const StatementCache::Use use = statements_.take(sql);
    Statement& st = *use;
    for (const auto& params : param_rows) {
      bind_all(st, params);
      st.run();
    }
  }

  // BEGIN IMMEDIATE: the one write lock is held from the first read to the commit.
  void write(const std::function<void()>& body) override {
    Transaction tx(db_);
    body();
    tx.commit();
  }
  void read_snapshot(const std::function<void()>& body) override {
    Transaction snapshot(db_, Transaction::Kind::Deferred);
    body();
    snapshot.commit();
  }
  void read_one(const std::function<void()>& body) override { body(); }

  // The write transaction already holds SQLite's one write lock: no row locks.
  const char* lock_for_update() const override { return ""; }
  const char* lock_for_share() const override { return ""; }
  const char* lock_skipping_locked() const override { return ""; }
  const char* bytewise_collation() const override { return "COLLATE BINARY"; }
  const char* like_ignoring_case() const override { return "LIKE"; }
  // json_extract reads an integer as its SQL value and an object as JSON text (SQLite's
  // JSON functions, built in since 3.38); a text that is not JSON reads as NULL.
  std::string json_text_at(const std::string& column,
                           const std::vector<std::string>& keys) const override {
    std::string path = "$";
    for (const auto& key : keys) path += "." + key;
    return "CASE WHEN json_valid(" + column + ") THEN json_extract(" + column + ", '" + path +
           "') END";
  }

 private:
  static void bind_all(Statement& st, const std::vector<SqlValue>& params) {
    for (size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      std::visit(
          [&](const auto& v) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
              st.bind_null(index);
            else
              st.bind(index, v);
          },
          params[i]);
    }
  }

  Connection db_;
  StatementCache statements_;  // after db_: finalized before the connection closes
};

class SqliteBackend final : public SqlStore {
 public:
  // Made after the connection's first read, so the identity is of the files it reads.
  explicit SqliteBackend(Connection db)
      : SqlStore(std::make_unique<SqliteSession>(std::move(db))), files_(connection().path()) {}

  int schema_version() override {
    return static_cast<int>(connection().query_int("PRAGMA user_version"));
  }
  std::optional<std::string> busy_reason() override {
    return sqlite_file_busy_reason(connection().path());
  }
  bool connection_stale() override { return files_.replaced(); }
  std::optional<long long> write_lock_holder() override {
    return sqlite_write_lock_holder(connection().path());
  }

 private:
  const Connection& connection() const {
    return static_cast<const SqliteSession&>(sql()).connection();
  }

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

// A store with damaged pages must not be written to: SQLite writes happily into the pages it
// can reach (a new run, its tags) while reading the others fails, so a command would add rows
// to a store nobody can list any more. quick_check reads every page once (about 0.1 s per
// 100 MB, docs/reliability.md) before the first write of a command.
void refuse_damaged_file(Connection& db, const std::string& path) {
  std::string found;
  try {
    Statement st(db, "PRAGMA quick_check(3)");
    while (st.step()) found += (found.empty() ? "" : "; ") + st.text(0);
  } catch (const std::exception& e) {
    found = e.what();
  }
  if (found == "ok") return;
  throw InputError(path, 0, "",
                   "run store is damaged (SQLite's quick_check: " + found +
                       "); nothing was written to it. Copy what can be read into a new store "
                       "with `sqlite3 " +
                       path +
                       " .recover | sqlite3 recovered.db` and point "
                       "--db at that");
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
      throw OutdatedStoreError(path, version, latest_schema_version());
    return std::make_unique<SqliteBackend>(std::move(db));
  }

  if (version > 0) refuse_damaged_file(db, path);

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
  // A store already at this build's version (every open but the first by a newer build) takes
  // no write transaction: a process frozen holding the write lock must not keep every other one
  // from opening the store -- a sweep started beside it could not even put it down
  // (experiments/sweep_queue.cpp). migrate() re-reads the version under the lock.
  if (version < latest_schema_version()) {
    migrate(db);
    check_tables(db);  // what the migrations made
  }
  return std::make_unique<SqliteBackend>(std::move(db));
}

}  // namespace fathom::db
