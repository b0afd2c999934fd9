// How SQLite runs a sweep's two hot statements (issue 54). The claim (db/lease_sql.h,
// claim_next_sql) seeks the sweep's oldest queued run in the index runs_state (schema version
// 5) instead of walking every earlier run of the sweep under the write lock (99-132 ms a claim
// at 100k runs); the scheduler's poll (run_states_sql) reads runs_state alone, never the rows
// with their configs. A store made before this version gets the index when it is opened for
// writing, its claims unchanged.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "db/lease_sql.h"
#include "db/migrations.h"
#include "db/sql_store.h"
#include "db/store.h"
#include "tests/support/store_test_fixture.h"
#include "tests/support/temp_dir.h"

using namespace fathom::db;
using fathom::testing::sample_run;

namespace test_store_claim_plan {

// A raw connection to the store file, closed at the end of the scope.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;
  // Column `col` of every row of `sql`.
  std::vector<std::string> column(const std::string& sql, int col) const {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_) << "\n"
        << sql;
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(st, col);
      out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    sqlite3_finalize(st);
    return out;
  }
  void exec(const std::string& sql) const {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "") << "\n"
        << sql;
    sqlite3_free(error);
  }

 private:
  sqlite3* db_ = nullptr;
};

// EXPLAIN QUERY PLAN's "detail" column of a statement, as SQLite would run it.
std::vector<std::string> plan_of(const std::string& path, const std::string& sql) {
  RawDb db(path);
  return db.column("EXPLAIN QUERY PLAN " + sql, 3);
}
std::vector<std::string> claim_plan(const std::string& path, const std::vector<int64_t>& skip) {
  return plan_of(path, claim_next_sql(skip, ""));
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The plan seeks the queued runs of the sweep in an index and scans no table or index.
void expect_index_plan(const std::vector<std::string>& plan) {
  bool queued_index = false;
  for (const auto& step : plan) {
    EXPECT_EQ(step.rfind("SCAN", 0), std::string::npos) << joined(plan);
    queued_index |= step.find("INDEX runs_state (sweep=? AND status=?)") != std::string::npos;
  }
  EXPECT_TRUE(queued_index) << joined(plan);
}

TEST(StoreClaimPlan, TheClaimPicksThroughTheQueuedIndexNotAWalkOfTheSweep) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  {
    auto store = Store::open(path);
    for (int i = 0; i < 40; ++i) store.create_run(sample_run("r" + std::to_string(i), "s"));
    for (int i = 0; i < 10; ++i) store.claim_next_run("s", "host", "cpu");
  }
  expect_index_plan(claim_plan(path, {}));
  expect_index_plan(claim_plan(path, {12, 15}));  // a launcher's skip list keeps the plan
}

TEST(StoreClaimPlan, TheSchedulersPollReadsOnlyTheStateIndex) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  {
    auto store = Store::open(path);
    for (int i = 0; i < 40; ++i) store.create_run(sample_run("r" + std::to_string(i), "s"));
  }
  const auto plan = plan_of(path, run_states_sql());
  ASSERT_EQ(plan.size(), 1u) << joined(plan);  // no temporary B-tree for a sort either
  EXPECT_EQ(plan[0], "SEARCH runs USING COVERING INDEX runs_state (sweep=?)") << joined(plan);
}

// A store at schema version 4, its runs written before the index existed: opening it for
// writing adds the index, and claims take the same runs in the same order as before.
TEST(StoreClaimPlan, AVersion4StoreGetsTheIndexAndClaimsAsBefore) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  {
    RawDb db(path);
    for (int v = 0; v < 4; ++v) db.exec(migrations()[v].sql);
    db.exec("PRAGMA user_version = 4");
    // Sweep s: 1 finished, 2 queued, 3 queued in sweep t, 4 queued, 5 running, 6 queued.
    const char* rows[][2] = {{"s", "finished"}, {"s", "queued"},  {"t", "queued"},
                             {"s", "queued"},   {"s", "running"}, {"s", "queued"}};
    for (const auto& [sweep, status] : rows)
      db.exec(std::string("INSERT INTO runs (name, sweep, config_json, status, created_at)"
                          " VALUES ('r', '") +
              sweep + "', '{}', '" + status + "', 1)");
    EXPECT_TRUE(db.column("SELECT name FROM sqlite_master WHERE name = 'runs_state'", 0).empty());
  }
  auto store = Store::open(path);
  EXPECT_EQ(store.schema_version(), Store::latest_schema_version());
  EXPECT_EQ(RawDb(path).column("SELECT name FROM sqlite_master WHERE type = 'index' AND name ="
                               " 'runs_state'",
                               0),
            (std::vector<std::string>{"runs_state"}));
  expect_index_plan(claim_plan(path, {}));

  EXPECT_EQ(store.claim_next_run("s", "h", "cpu", {2})->id, 4);  // skipped: the next oldest
  EXPECT_EQ(store.claim_next_run("s", "h", "cpu")->id, 2);
  EXPECT_EQ(store.claim_next_run("s", "h", "cpu")->id, 6);
  EXPECT_FALSE(store.claim_next_run("s", "h", "cpu"));  // 3 is sweep t's
  EXPECT_EQ(store.claim_next_run("t", "h", "cpu")->id, 3);
  // A requeued run is queued again, and so in the index again.
  ASSERT_TRUE(store.requeue_run(4, "preempted", {status::kRunning}));
  EXPECT_EQ(store.claim_next_run("s", "h", "cpu")->id, 4);
}

}  // namespace test_store_claim_plan
