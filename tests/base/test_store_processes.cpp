// The run store under several processes at once, on every backend: concurrent writers, the
// first open of a new store by several workers, atomic claims from one queue, a writer killed
// mid-transaction (no partial rows).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "db/metric_writer.h"
#include "db/store.h"
#include "tests/support/store_test_fixture.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fathom::db;
using fathom::testing::sample_run;
using fathom::testing::StoreBackendTest;

namespace test_store_processes {

// Runs `body` in a child process; returns its pid. The child exits 0 on success, 1 on any
// exception (printed), without running the parent's atexit handlers.
template <typename F>
pid_t spawn(F body) {
  pid_t pid = fork();
  if (pid == 0) {
    int status = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::cerr << "child " << getpid() << ": " << e.what() << std::endl;
      status = 1;
    }
    _exit(status);
  }
  return pid;
}

int wait_exit_status(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_P(StoreBackendTest, ConcurrentWriterProcesses) {
  constexpr int kChildren = 8, kSteps = 1000;  // two metrics: 2000 rows per child
  std::vector<int64_t> runs;
  {
    auto store = Store::open(db_path());
    for (int c = 0; c < kChildren; ++c)
      runs.push_back(store.create_run(sample_run("worker" + std::to_string(c), "sweep")));
  }  // no connection crosses fork()

  std::vector<pid_t> pids;
  for (int c = 0; c < kChildren; ++c) {
    pids.push_back(spawn([&, c] {
      auto store = Store::open(db_path());
      const Lease lease = store.mark_running(runs[c], "host", "cpu");
      MetricWriter writer(store, lease, /*flush_rows=*/10, /*flush_seconds=*/60);
      for (int step = 1; step <= kSteps; ++step) {
        writer.log(step, "loss", 1.0 / step);
        writer.log(step, "lr", step * 1e-6);
        if (step % 100 == 0) store.heartbeat(runs[c], step);
      }
      writer.flush();
      store.set_final_metric(runs[c], "valid_ppl", c);
      store.finish_run(runs[c], "finished");
    }));
  }

  // Read while they write: counts only grow, and reads never fail.
  {
    auto reader = Store::open(db_path(), OpenMode::ReadOnly);
    std::vector<size_t> seen(kChildren, 0);
    for (int round = 0; round < 200; ++round) {
      EXPECT_EQ(reader.list_runs("sweep").size(), static_cast<size_t>(kChildren));
      for (int c = 0; c < kChildren; ++c) {
        size_t n = reader.metric_series(runs[c], "loss").size();
        EXPECT_GE(n, seen[c]);
        seen[c] = n;
      }
      usleep(2000);
    }
  }

  for (pid_t pid : pids) EXPECT_EQ(wait_exit_status(pid), 0) << "child " << pid << " failed";

  auto store = Store::open(db_path(), OpenMode::ReadOnly);
  for (int c = 0; c < kChildren; ++c) {
    auto run = *store.find_run(std::to_string(runs[c]));
    EXPECT_EQ(run.status, "finished");
    EXPECT_EQ(run.updates, kSteps);
    EXPECT_DOUBLE_EQ(run.final_metrics.at("valid_ppl"), c);
    EXPECT_EQ(store.metric_series(runs[c], "loss").size(), static_cast<size_t>(kSteps));
    EXPECT_EQ(store.metric_series(runs[c], "lr").size(), static_cast<size_t>(kSteps));
  }
}

TEST_P(StoreBackendTest, ConcurrentFirstOpenOfNewFile) {
  // Several workers of a sweep start at once on a store that does not exist yet: exactly one
  // creates the schema, nobody fails.
  constexpr int kChildren = 6;
  std::vector<pid_t> pids;
  for (int c = 0; c < kChildren; ++c)
    pids.push_back(spawn([&, c] {
      auto store = Store::open(db_path());
      store.create_run(sample_run("w" + std::to_string(c)));
    }));
  for (pid_t pid : pids) EXPECT_EQ(wait_exit_status(pid), 0) << "child " << pid << " failed";
  auto store = Store::open(db_path(), OpenMode::ReadOnly);
  EXPECT_EQ(store.schema_version(), Store::latest_schema_version());
  EXPECT_EQ(store.list_runs().size(), static_cast<size_t>(kChildren));
}

// ---- claims and kills (every backend) -------------------------------------------------

// 8 processes claim from one queue of 40 runs at once: every run is claimed exactly once, and
// each claim marks its run running on the claimer's host.
TEST_P(StoreBackendTest, ClaimIsAtomicAcrossProcesses) {
  constexpr int kRuns = 40, kClaimers = 8;
  {
    auto store = Store::open(db_path());
    for (int i = 0; i < kRuns; ++i) store.create_run(sample_run("r" + std::to_string(i), "queue"));
    store.create_run(sample_run("other-sweep", "elsewhere"));
  }
  const fathom::testing::TempDir scratch;
  const fs::path out = scratch.path();
  fs::create_directories(out);
  std::vector<pid_t> pids;
  for (int c = 0; c < kClaimers; ++c)
    pids.push_back(spawn([&, c] {
      auto store = Store::open(db_path());
      std::ofstream log(out / std::to_string(c));
      while (auto run = store.claim_next_run("queue", "host" + std::to_string(c), "cpu")) {
        if (run->status != "running" || run->host != "host" + std::to_string(c))
          throw std::runtime_error("claimed run not marked running on this host");
        log << run->id << "\n" << std::flush;
      }
    }));
  for (pid_t pid : pids) EXPECT_EQ(wait_exit_status(pid), 0);
  std::map<int64_t, int> claims;
  for (int c = 0; c < kClaimers; ++c) {
    std::ifstream in(out / std::to_string(c));
    for (int64_t id; in >> id;) ++claims[id];
  }
  EXPECT_EQ(claims.size(), static_cast<size_t>(kRuns));
  for (const auto& [id, n] : claims)
    EXPECT_EQ(n, 1) << "run " << id << " claimed " << n << " times";
  auto store = Store::open(db_path(), OpenMode::ReadOnly);
  for (const auto& run : store.list_runs("queue")) EXPECT_EQ(run.status, "running");
  EXPECT_EQ(store.list_runs("elsewhere").at(0).status, "queued");  // another sweep's run
  auto again = Store::open(db_path());
  EXPECT_FALSE(again.claim_next_run("queue", "late", "cpu"));
}

// A writer killed with SIGKILL in the middle of its transactions: every batch it reported
// committed is there, and no batch is there in part.
TEST_P(StoreBackendTest, KilledWriterLeavesNoPartialTransaction) {
  constexpr int kBatch = 500;
  int64_t run = 0;
  {
    auto store = Store::open(db_path());
    run = store.create_run(sample_run("victim"));
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = spawn([&] {
    close(fds[0]);
    auto store = Store::open(db_path());
    for (int64_t batch = 0;; ++batch) {
      std::vector<MetricRow> rows;
      for (int i = 0; i < kBatch; ++i) rows.emplace_back(batch * kBatch + i, "loss", i, 1.0);
      store.write_metrics(run, rows);
      // Reported only after the commit returned.
      if (write(fds[1], &batch, sizeof batch) != sizeof batch) _exit(3);
    }
  });
  close(fds[1]);
  int64_t committed = -1, batch = 0;
  while (committed < 5 && read(fds[0], &batch, sizeof batch) == sizeof batch) committed = batch;
  usleep(3000);  // land somewhere inside a later transaction
  kill(child, SIGKILL);
  while (read(fds[0], &batch, sizeof batch) == sizeof batch) committed = batch;  // drain
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  auto store = Store::open(db_path(), OpenMode::ReadOnly);
  const auto series = store.metric_series(run, "loss");
  EXPECT_EQ(series.size() % kBatch, 0u) << "a batch was stored in part";
  EXPECT_GE(series.size(), static_cast<size_t>((committed + 1) * kBatch))
      << "a committed batch was lost";
  for (size_t i = 0; i < series.size(); ++i) ASSERT_EQ(series[i].step, static_cast<int64_t>(i));
  // The store is still writable after the kill (no lock left behind).
  auto writer = Store::open(db_path());
  writer.finish_run(run, "crashed", "killed");
  EXPECT_EQ(writer.find_run(std::to_string(run))->status, "crashed");
}

// Instantiated on both backends by test_store.cpp, in the same program (store_tests).

}  // namespace test_store_processes
