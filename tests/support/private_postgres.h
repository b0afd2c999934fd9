#pragma once
// Test support: a PostgreSQL server of one test's own, started and stopped by the repo's
// scripts/pg-test-server.sh (127.0.0.1, state in a directory of its own under /tmp, removed
// at the end) -- for fault tests that restart the server or reach it over a network link of
// their own, which must not disturb the server the other store tests share. Where it cannot
// start, skipped() says why. Header-only.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/util/process.h"
#include "tests/support/fathom_cli.h"

namespace fathom::testing {

class PrivatePostgres {
 public:
  // `env`: extra settings of the script (PG_TEST_PEER_ADDRESS, PG_TEST_PEER_NETWORK).
  explicit PrivatePostgres(const std::vector<std::string>& env = {}) {
    // Its own directory under /tmp, readable by the server's user (a test's scratch
    // directory is 0700) and short enough for the server's unix socket path.
    char parent[] = "/tmp/fathom-pg-XXXXXX";
    if (!mkdtemp(parent)) {
      skipped_ = "cannot make a directory under /tmp for the server";
      return;
    }
    parent_ = parent;
    chmod(parent, 0755);
    dir_ = parent_ / "server";
    const ProgramResult r =
        // Beyond the script's own limits (60 s to start, 60 s to answer), so that it, not
        // this kill, says why a start failed.
        run_program({script(), "start", dir_.string()}, "", environment_with(env), 300);
    if (std::filesystem::exists(dir_ / "skip"))
      skipped_ = "PostgreSQL server did not start: " + read_text(dir_ / "skip");
    else if (r.exit_code != 0 || !std::filesystem::exists(dir_ / "url"))
      skipped_ = "PostgreSQL server did not start: " + r.out + r.err;
    else
      url_ = trimmed(read_text(dir_ / "url"));
  }
  ~PrivatePostgres() {
    if (parent_.empty()) return;
    run_program({script(), "stop", dir_.string()}, "", {}, 120);
    std::error_code ec;
    std::filesystem::remove_all(parent_, ec);
  }
  PrivatePostgres(const PrivatePostgres&) = delete;
  PrivatePostgres& operator=(const PrivatePostgres&) = delete;

  const std::optional<std::string>& skipped() const { return skipped_; }
  // postgresql://fathom:PASSWORD@127.0.0.1:PORT/postgres: an empty database, a store's home.
  const std::string& url() const { return url_; }
  // The same database reached at `address` instead of 127.0.0.1.
  std::string url_via(const std::string& address) const {
    std::string via = url_;
    via.replace(via.find("127.0.0.1"), 9, address);
    return via;
  }
  // A fast restart (sessions cut, same port and data); false when it failed.
  bool restart() const { return run_program({script(), "restart", dir_.string()}).exit_code == 0; }

 private:
  static std::string script() {
    return std::string(FATHOM_SOURCE_DIR) + "/scripts/pg-test-server.sh";
  }
  static std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  std::filesystem::path parent_, dir_;
  std::optional<std::string> skipped_;
  std::string url_;
};

}  // namespace fathom::testing
