#pragma once
// A thin RAII layer over libpq for the PostgreSQL backend: a connection that reconnects with
// backoff when the server drops it, parameterised statements (text format) and their results.
// Internal to db/ -- the rest of Fathom talks to db/store.h.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct pg_conn;
struct pg_result;

namespace fathom::db {

// A parameter in text format; nullopt is SQL NULL.
using PgParam = std::optional<std::string>;
PgParam pg_param(int64_t v);
PgParam pg_param(double v);  // NaN -> NULL (as SQLite stores it), +-inf -> 'Infinity'
PgParam pg_param(const std::string& v);
PgParam pg_param(std::optional<int64_t> v);
PgParam pg_text_or_null(const std::string& v);  // "" -> NULL

// The connection went away (server restart, network, pg_terminate_backend). Retryable.
struct PgConnectionLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PgResult {
 public:
  explicit PgResult(pg_result* r);
  int rows() const;
  bool is_null(int row, int col) const;
  std::string text(int row, int col) const;  // NULL -> ""
  int64_t int64(int row, int col) const;
  double real(int row, int col) const;  // NULL -> NaN
  double real_or(int row, int col, double fallback) const;
  std::optional<int64_t> optional_int64(int row, int col) const;

 private:
  std::shared_ptr<pg_result> result_;
};

// `message` without any of `passwords`: each whole, and each piece of 4 or more characters
// that libpq may have cut it into at a character a URL reserves ('@', '/', '?', '#', ':'...),
// the longest first.
std::string scrub_passwords(std::string message, const std::vector<std::string>& passwords);

class PgConnection {
 public:
  // Connects; an unreachable server or a refused login -> InputError naming `shown`.
  PgConnection(std::string conninfo, std::string shown);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  const std::string& shown() const { return shown_; }

  // One statement. Throws PgConnectionLost when the connection broke, std::runtime_error
  // (with the server's message and SQLSTATE) otherwise.
  PgResult exec(const std::string& sql, const std::vector<PgParam>& params = {});

  // Runs body() inside BEGIN ... COMMIT. When the connection drops (or the server reports a
  // serialization failure or deadlock) the transaction is retried on a fresh connection with
  // growing pauses for up to retry_seconds(); then std::runtime_error saying so.
  //
  // Exactly once: a connection lost while COMMIT was in flight leaves the client unsure
  // whether the server committed. A write transaction notes its id before COMMIT, and the
  // retry first asks the server (txid_status) and does not run body() again when it had
  // committed -- so a retried create_run or add_analysis never makes a second row, and what
  // body() captured (a new id) is the committed attempt's. Read-only transactions skip this.
  template <typename F>
  void transaction(F body, const char* begin = "BEGIN") {
    const bool writes = std::string(begin).find("READ ONLY") == std::string::npos;
    std::optional<int64_t> in_doubt;  // the transaction whose COMMIT reply was lost
    retrying([&] {
      if (in_doubt) {
        if (committed(*in_doubt)) return;
        in_doubt.reset();
      }
      exec(begin);
      std::optional<int64_t> xid;
      try {
        body();
        if (writes) xid = exec("SELECT txid_current()").int64(0, 0);
        exec("COMMIT");
      } catch (const PgConnectionLost&) {
        in_doubt = xid;  // set only when the loss came at COMMIT
        throw;
      } catch (...) {
        try_rollback();
        throw;
      }
    });
  }

  // Calls attempt() again on a fresh connection while it throws PgConnectionLost (or a
  // retryable server error), with backoff, up to retry_seconds().
  template <typename F>
  void retrying(F attempt) {
    RetryClock clock = start_retries();
    for (;;) {
      try {
        attempt();
        return;
      } catch (const PgConnectionLost& e) {
        wait_and_reconnect(clock, e.what());
      } catch (const PgRetryable& e) {
        wait_and_reconnect(clock, e.what());
      }
    }
  }

  // One connection attempt now, no waiting; false when the server is still unreachable.
  bool try_reconnect() noexcept;

  // How long writes keep retrying a lost connection: $FATHOM_DB_RETRY_SECONDS, default 120.
  static double retry_seconds();

 private:
  struct PgRetryable : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  struct RetryClock {
    double started;
    int attempt = 0;
  };
  RetryClock start_retries() const;
  void wait_and_reconnect(RetryClock& clock, const std::string& why);
  void connect(const char* timeout_s = "10");
  void try_rollback() noexcept;
  // Whether transaction `xid` (txid_current) committed; waits while the server still has it
  // in progress (its old session may not have ended yet). Throws PgConnectionLost.
  bool committed(int64_t xid);
  std::string scrub(std::string message) const;  // removes the password if a message has it

  std::string conninfo_, shown_;
  std::vector<std::string> passwords_;  // as libpq reads them and as written (store_url.h)
  pg_conn* conn_ = nullptr;
  double last_probe_ = -1e9;  // try_reconnect()'s last attempt
};

}  // namespace fathom::db
