#pragma once
// Test support: a fresh, empty run store on each backend -- a SQLite file in a temporary
// directory, or a new database on the throwaway PostgreSQL server that ctest starts
// (scripts/pg-test-server.sh; its directory in $FATHOM_TEST_PG_DIR). Where that server could
// not start, postgres_unavailable() says why and the test skips itself with that reason.
#include <cstdint>
#include <optional>
#include <string>

namespace fathom::testing {

// nullopt when the PostgreSQL test server is up; else the reason it is not.
std::optional<std::string> postgres_unavailable();
// The server's admin URL (holds a password; never print it) and that password, for tests
// that check no output shows it.
std::string postgres_admin_url();
std::string postgres_password();
// Creates database `name` (dropping an old one of that name) and returns its URL.
std::string create_postgres_database(const std::string& name);
void drop_postgres_database(const std::string& name);
// The URL of database `name` with `password` instead of the real one.
std::string postgres_url_with_password(const std::string& name, const std::string& password);
// Runs SQL as the server's superuser on database `name` (fixtures: foreign tables, killing
// connections). Returns the first column of the first row, "" when none.
std::string postgres_exec(const std::string& name, const std::string& sql);

// A store location for `backend` ("sqlite" or "postgresql"), unique to this test process,
// and the matching raw row count for `table` where `column` = `value`.
class ScratchStore {
 public:
  ScratchStore(const std::string& backend, const std::string& test_name);
  ~ScratchStore();
  const std::string& location() const { return location_; }
  const std::string& dir() const { return dir_; }  // a temporary directory for files
  const std::string& backend() const { return backend_; }
  int64_t raw_count(const std::string& table, const std::string& column, int64_t value) const;
  // Runs `sql` on the store behind its API (a hand edit a contract says never happens).
  void raw_exec(const std::string& sql) const;

 private:
  std::string backend_, dir_, location_, database_;
};

}  // namespace fathom::testing
