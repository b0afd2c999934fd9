#include "db/pg_connection.h"

#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string_view>
#include <thread>

#include "base/util/error.h"
#include "db/sql_session.h"
#include "db/store_unreachable.h"
#include "db/store_url.h"

namespace fathom::db {
namespace {

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The password the connection string carries (URL or key=value form), "" when none.
std::string password_of(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (error) PQfreemem(error);
  std::string password;
  for (auto* o = options; o && o->keyword; ++o)
    if (std::string(o->keyword) == "password" && o->val) password = o->val;
  if (options) PQconninfoFree(options);
  return password;
}

void ignore_notice(void*, const char*) {}  // "relation already exists, skipping" and the like

bool lost_connection_state(const char* sqlstate) {
  if (!sqlstate) return false;
  const std::string s = sqlstate;
  return s.rfind("08", 0) == 0 || s == "57P01" || s == "57P02" || s == "57P03";
}

}  // namespace

PgParam pg_param(int64_t v) { return std::to_string(v); }

PgParam pg_param(double v) {
  if (std::isnan(v)) return std::nullopt;
  if (std::isinf(v)) return std::string(v > 0 ? "Infinity" : "-Infinity");
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);  // round-trips exactly
  return std::string(buffer);
}

PgParam pg_param(const std::string& v) { return v; }
PgParam pg_param(std::optional<int64_t> v) { return v ? pg_param(*v) : std::nullopt; }
PgParam pg_text_or_null(const std::string& v) { return v.empty() ? std::nullopt : PgParam(v); }

// ---- PgResult -----------------------------------------------------------------------------

PgResult::PgResult(pg_result* r) : result_(r, PQclear) {}
int PgResult::rows() const { return PQntuples(result_.get()); }
bool PgResult::is_null(int row, int col) const { return PQgetisnull(result_.get(), row, col); }
std::string PgResult::text(int row, int col) const {
  return is_null(row, col) ? std::string() : std::string(PQgetvalue(result_.get(), row, col));
}
int64_t PgResult::int64(int row, int col) const {
  return is_null(row, col) ? 0 : std::strtoll(PQgetvalue(result_.get(), row, col), nullptr, 10);
}
double PgResult::real(int row, int col) const {
  return real_or(row, col, std::numeric_limits<double>::quiet_NaN());
}
double PgResult::real_or(int row, int col, double fallback) const {
  // strtod reads "Infinity", "-Infinity" and "NaN" as PostgreSQL writes them.
  return is_null(row, col) ? fallback : std::strtod(PQgetvalue(result_.get(), row, col), nullptr);
}
std::optional<int64_t> PgResult::optional_int64(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return int64(row, col);
}

// ---- PgConnection -------------------------------------------------------------------------

PgConnection::PgConnection(std::string conninfo, std::string shown)
    : conninfo_(std::move(conninfo)),
      shown_(std::move(shown)),
      passwords_(url_passwords(conninfo_)) {
  if (const std::string decoded = password_of(conninfo_); !decoded.empty())
    passwords_.push_back(decoded);
  connect();
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

std::string PgConnection::scrub(std::string message) const {
  return scrub_passwords(std::move(message), passwords_);
}

std::string scrub_passwords(std::string message, const std::vector<std::string>& passwords) {
  // libpq quotes what it parsed, and a password it split at a character a URL reserves
  // ("p@ss@Secret6": user "u", password "p", host "ss@Secret6@...") shows up in pieces: every
  // run of its parts between such characters, of 4 or more characters, goes too, the longest
  // first. Pieces cut elsewhere are left, or a password holding "password" would take that
  // word out of every message.
  constexpr size_t kShortestPiece = 4;
  auto replace_all = [&](const std::string& piece) {
    for (size_t pos; (pos = message.find(piece)) != std::string::npos;)
      message.replace(pos, piece.size(), "***");
  };
  for (const auto& password : passwords)
    if (!password.empty()) replace_all(password);
  for (const auto& password : passwords) {
    std::vector<size_t> starts{0}, ends;  // where libpq may have cut it
    for (size_t i = 0; i < password.size(); ++i)
      if (std::string_view("@/?#:&=[]").find(password[i]) != std::string_view::npos) {
        ends.push_back(i);
        starts.push_back(i + 1);
      }
    ends.push_back(password.size());
    std::vector<std::string> pieces;
    for (size_t b : starts)
      for (size_t e : ends)
        if (e > b && e - b >= kShortestPiece && e - b < password.size())
          pieces.push_back(password.substr(b, e - b));
    std::sort(pieces.begin(), pieces.end(),
              [](const std::string& x, const std::string& y) { return x.size() > y.size(); });
    for (const auto& piece : pieces) replace_all(piece);
  }
  return trim(message);
}

void PgConnection::connect(const char* timeout_s) {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
  // Entries before dbname are defaults the URL may override (expand_dbname = 1). A server
  // partitioned away drops packets without a reset: without keepalives and a TCP user timeout
  // a statement in flight would wait for the kernel to give up (about 15 minutes); with them
  // the connection counts as lost within about 30 s and the retry loop takes over. And a
  // client frozen or cut off inside a transaction would hold its row locks until the server
  // noticed (hours): every transaction here is a burst of statements, so the server may end
  // one idle for 30 s, which frees the run for whoever takes it over (db/lease.h).
  const char* keywords[] = {"connect_timeout",
                            "application_name",
                            "keepalives",
                            "keepalives_idle",
                            "keepalives_interval",
                            "keepalives_count",
                            "tcp_user_timeout",
                            "options",
                            "dbname",
                            nullptr};
  const char* values[] = {timeout_s,
                          "fathom",
                          "1",
                          "10",
                          "5",
                          "3",
                          "30000",
                          "-c idle_in_transaction_session_timeout=30000",
                          conninfo_.c_str(),
                          nullptr};
  conn_ = PQconnectdbParams(keywords, values, 1);
  if (!conn_) throw std::runtime_error(shown_ + ": out of memory connecting");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = scrub(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw InputError(shown_, 0, "", "cannot connect to the run store: " + why);
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
}

PgResult PgConnection::exec(const std::string& sql, const std::vector<PgParam>& params) {
  if (!conn_) throw PgConnectionLost(shown_ + ": not connected to the server");
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  // Without parameters the simple protocol, which also runs several statements (migrations).
  pg_result* raw = params.empty()
                       ? PQexec(conn_, sql.c_str())
                       : PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                      values.data(), nullptr, nullptr, 0);
  PgResult result(raw);
  const ExecStatusType status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  const char* sqlstate = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
  const std::string why = scrub(raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn_));
  if (PQstatus(conn_) == CONNECTION_BAD || lost_connection_state(sqlstate))
    throw PgConnectionLost(shown_ + ": connection lost: " + why);
  const std::string state = sqlstate ? sqlstate : "";
  if (state == "40001" || state == "40P01") throw PgRetryable(shown_ + ": " + why);
  if (state.rfind("22", 0) == 0)  // a data exception: a value, not the store
    throw SqlValueError(shown_ + ": " + why + " [SQLSTATE " + state + "]");
  throw std::runtime_error(shown_ + ": " + why +
                           (state.empty() ? "" : " [SQLSTATE " + state + "]"));
}

void PgConnection::try_rollback() noexcept {
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) return;
  PQclear(PQexec(conn_, "ROLLBACK"));
}

bool PgConnection::committed(int64_t xid) {
  const double deadline = monotonic_seconds() + retry_seconds();
  for (;;) {
    // NULL: too old to know, which cannot happen within a retry budget; treat as not committed.
    const std::string status = exec("SELECT txid_status($1)", {pg_param(xid)}).text(0, 0);
    if (status != "in progress") return status == "committed";
    if (monotonic_seconds() > deadline)
      throw std::runtime_error(shown_ + ": transaction " + std::to_string(xid) +
                               " still in progress after its connection was lost");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool PgConnection::try_reconnect() noexcept {
  // At most one attempt every 10 s, each waiting at most 2 s: a window polling a lost
  // server stays responsive.
  const double now = monotonic_seconds();
  if (now - last_probe_ < 10) return false;
  last_probe_ = now;
  try {
    connect("2");
    return true;
  } catch (...) {
    return false;
  }
}

double PgConnection::retry_seconds() { return store_retry_seconds(); }

PgConnection::RetryClock PgConnection::start_retries() const {
  return RetryClock{monotonic_seconds(), 0};
}

void PgConnection::wait_and_reconnect(RetryClock& clock, const std::string& why) {
  const double budget = retry_seconds();
  std::string last = why;
  for (;;) {
    const double waited = monotonic_seconds() - clock.started;
    if (waited >= budget)
      throw StoreUnreachable(last + " (gave up after " + std::to_string(clock.attempt) +
                             " reconnection attempts in " + std::to_string(int(waited)) + " s)");
    // 0.25 s, 0.5 s, 1 s, ... at most 8 s, never past the budget.
    const double pause = std::min({0.25 * std::pow(2.0, clock.attempt), 8.0, budget - waited});
    ++clock.attempt;
    std::cerr << "warning: " << last << "; reconnecting in " << pause << " s (attempt "
              << clock.attempt << ")\n";
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    try {
      connect();
      return;
    } catch (const std::exception& e) {
      last = e.what();
    }
  }
}

}  // namespace fathom::db
