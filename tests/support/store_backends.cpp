#include "tests/support/store_backends.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "db/pg_connection.h"

namespace fathom::testing {
namespace fs = std::filesystem;
namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

fs::path server_dir() {
  const char* dir = std::getenv("FATHOM_TEST_PG_DIR");
  return dir && *dir ? fs::path(dir) : fs::path();
}

// postgresql://fathom:PW@127.0.0.1:PORT/postgres -> the same with /name.
std::string with_database(const std::string& url, const std::string& name) {
  const auto slash = url.rfind('/');
  return url.substr(0, slash + 1) + name;
}

}  // namespace

std::optional<std::string> postgres_unavailable() {
  const fs::path dir = server_dir();
  if (dir.empty())
    return "FATHOM_TEST_PG_DIR is not set (run through ctest, which starts the server with "
           "scripts/pg-test-server.sh)";
  if (fs::exists(dir / "skip"))
    return "PostgreSQL test server did not start: " + read_file(dir / "skip");
  if (!fs::exists(dir / "url")) return "no PostgreSQL test server at " + dir.string();
  return std::nullopt;
}

std::string postgres_admin_url() { return read_file(server_dir() / "url"); }

std::string postgres_password() {
  // postgresql://fathom:PASSWORD@127.0.0.1:PORT/postgres
  const std::string url = postgres_admin_url();
  const auto colon = url.find(':', url.find("://") + 3), at = url.rfind('@');
  return url.substr(colon + 1, at - colon - 1);
}

std::string postgres_exec(const std::string& name, const std::string& sql) {
  db::PgConnection pg(with_database(postgres_admin_url(), name), "test server");
  auto r = pg.exec(sql);
  return r.rows() > 0 ? r.text(0, 0) : "";
}

std::string create_postgres_database(const std::string& name) {
  drop_postgres_database(name);
  postgres_exec("postgres", "CREATE DATABASE \"" + name + "\"");
  return with_database(postgres_admin_url(), name);
}

void drop_postgres_database(const std::string& name) {
  postgres_exec("postgres", "DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
}

std::string postgres_url_with_password(const std::string& name, const std::string& password) {
  const std::string url = with_database(postgres_admin_url(), name);
  const auto colon = url.find(':', url.find("://") + 3), at = url.rfind('@');
  return url.substr(0, colon + 1) + password + url.substr(at);
}

ScratchStore::ScratchStore(const std::string& backend, const std::string& test_name)
    : backend_(backend) {
  std::string safe;
  for (char c : test_name)
    safe += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '_';
  dir_ = (fs::temp_directory_path() / ("fathom_test_" + std::to_string(getpid()) + "_" + safe))
             .string();
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  if (backend == "sqlite") {
    location_ = (fs::path(dir_) / "runs.db").string();
  } else {
    database_ = "t" + std::to_string(getpid()) + "_" + safe.substr(0, 40);
    location_ = create_postgres_database(database_);
  }
}

ScratchStore::~ScratchStore() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (!database_.empty()) {
    try {
      drop_postgres_database(database_);
    } catch (...) {
    }
  }
}

int64_t ScratchStore::raw_count(const std::string& table, const std::string& column,
                                int64_t value) const {
  const std::string sql =
      "SELECT count(*) FROM " + table + " WHERE " + column + " = " + std::to_string(value);
  if (backend_ != "sqlite") return std::stoll(postgres_exec(database_, sql));
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(location_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    throw std::runtime_error("cannot open " + location_);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
  int64_t n = -1;
  if (st && sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

void ScratchStore::raw_exec(const std::string& sql) const {
  if (backend_ != "sqlite") {
    postgres_exec(database_, sql);
    return;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(location_.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    throw std::runtime_error("cannot open " + location_);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string why = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error(sql + ": " + why);
}

}  // namespace fathom::testing
