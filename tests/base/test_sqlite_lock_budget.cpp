// A SQLite store locked by another process for longer than the retry budget
// ($FATHOM_DB_RETRY_SECONDS) is out of reach, as a PostgreSQL server down is: the write throws
// db::StoreUnreachable -- which a worker records as "crashed", resumable -- not a plain error
// that recorded the run "failed" (issue 57 item 2). The lock is held by a real second process,
// which the store and the scheduler's watch can name (db/sqlite_write_lock.h).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "db/store.h"
#include "db/store_unreachable.h"
#include "experiments/write_lock_watch.h"
#include "tests/support/temp_dir.h"
#include "tests/support/write_transaction_elsewhere.h"

namespace test_sqlite_lock_budget {
using namespace fathom::db;

// This test program's name, as glibc took it from argv[0] at its start: what the forked lock
// holder's summary names (base/util/process.h).
std::string test_program() { return program_invocation_short_name; }

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(SqliteLockBudget, ALockHeldPastTheBudgetIsAnUnreachableStore) {
  const ScopedEnv budget("FATHOM_DB_RETRY_SECONDS", "1");
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  auto store = Store::open(path);
  NewRun r;
  r.name = "r";
  r.config_json = "{}";
  const int64_t run = store.create_run(r);

  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {  // the other process: takes the write lock for 4 s
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) != SQLITE_OK)
      ::_exit(1);
    (void)!::write(ready[1], "x", 1);
    ::sleep(4);
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);  // the lock is held now

  const auto start = std::chrono::steady_clock::now();
  try {
    store.write_metrics(run, {{1, "loss", 3.0, 1.0}});
    FAIL() << "expected StoreUnreachable";
  } catch (const StoreUnreachable& e) {
    // It names the holder, for the user to find (experiments/write_lock_watch.h).
    const std::string expected = "still locked by another process (pid " + std::to_string(holder) +
                                 " (" + test_program() + ")) after 1 s";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited, 30);  // the budget (1 s), not SQLite's minute-long busy timeout and 120 s

  int status = 0;
  ASSERT_EQ(::waitpid(holder, &status, 0), holder);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  store.write_metrics(run, {{1, "loss", 3.0, 1.0}});  // the lock released: the write lands
  EXPECT_EQ(store.metric_series(run, "loss").size(), 1u);
  ::close(ready[0]);
  ::close(ready[1]);
}

// Who holds the write lock (db/sqlite_write_lock.h), read from /proc/locks: the other process
// while it is inside a write transaction, nobody once it commits, and never this process itself.
TEST(SqliteWriteLock, NamesTheProcessInsideAWriteTransactionAndNoneOnceItCommits) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  auto store = Store::open(path);
  EXPECT_FALSE(store.write_lock_holder());
  {
    fathom::testing::WriteTransactionElsewhere other(path);
    ASSERT_TRUE(other.started());
    EXPECT_EQ(store.write_lock_holder(), std::optional<long long>(other.pid()));
    ASSERT_TRUE(other.commit());
    EXPECT_FALSE(store.write_lock_holder());  // committed; its connection still open
  }
  // This process's own transaction (another connection of ours) is not "another process".
  sqlite3* own = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &own), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(own, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_FALSE(store.write_lock_holder());
  sqlite3_exec(own, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(own);
}

// The scheduler's view of it (experiments/write_lock_watch.h): the store counts as blocked from
// the second look that finds the same holder, until the last such look; the user is told once,
// after kStallNoticeSeconds; a commit ends the stall and leaves the last blocked time as it was.
TEST(SqliteWriteLock, TheWatchCountsAStallFromTheSecondLookAndTellsOfItOnce) {
  using fathom::experiments::WriteLockWatch;
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  auto store = Store::open(path);
  WriteLockWatch watch;
  const double t0 = 1000;
  watch.look(store, t0);
  EXPECT_FALSE(watch.holder());
  fathom::testing::WriteTransactionElsewhere other(path);
  ASSERT_TRUE(other.started());
  watch.look(store, t0 + 1);
  EXPECT_EQ(watch.holder(), std::optional<long long>(other.pid()));
  EXPECT_EQ(watch.blocked_until(), 0);  // one look: a transaction of milliseconds looks the same
  EXPECT_FALSE(watch.stalled());
  watch.look(store, t0 + 2);
  EXPECT_EQ(watch.blocked_until(), t0 + 2);
  EXPECT_TRUE(watch.stalled());
  EXPECT_FALSE(watch.stall_to_tell(t0 + 1 + WriteLockWatch::kStallNoticeSeconds - 0.5));
  const auto told = watch.stall_to_tell(t0 + 1 + WriteLockWatch::kStallNoticeSeconds);
  ASSERT_TRUE(told);
  EXPECT_NE(told->find("held by pid " + std::to_string(other.pid()) + " for 3 s"),
            std::string::npos)
      << *told;
  EXPECT_FALSE(watch.stall_to_tell(t0 + 10));  // once
  ASSERT_TRUE(other.commit());
  watch.look(store, t0 + 11);
  EXPECT_FALSE(watch.holder());
  EXPECT_FALSE(watch.stalled());
  EXPECT_EQ(watch.blocked_until(), t0 + 2);
  EXPECT_FALSE(watch.stall_to_tell(t0 + 20));
}

}  // namespace test_sqlite_lock_budget
