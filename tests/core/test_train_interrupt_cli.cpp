// Interrupting `fathom train` and cancelling single runs, as a user does it from a terminal:
// Ctrl+C (SIGINT) or SIGTERM stops at the next update with a checkpoint, marks the run
// cancelled with the command that continues it and exits 128 + the signal; that command then
// finishes the run with every logged step exactly once; resuming a finished run with nothing
// left to train is refused; `fathom cancel RUN` cancels a queued run and leaves ended ones.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/util/process.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace {
namespace fs = std::filesystem;
using fathom::ProgramResult;
using fathom::db::OpenMode;
using fathom::db::Store;

const std::string kConfig = fathom::testing::tiny_config_yaml(
    "interrupted",
    "{lr: 0.005, warmup: 10, max_updates: 20000, valid_every: 100, log_every: 10, threads: 1}");

using fathom::testing::read_text;

class TrainInterrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = fathom::testing::built_fathom_binary();
    ASSERT_TRUE(fs::exists(binary_)) << "fathom binary not built at " << binary_;
    std::ofstream(dir_ / "config.yaml") << kConfig;
  }

  std::string db() const { return (dir_ / "runs.db").string(); }
  ProgramResult fathom(const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary_.string(), "--db", db()};
    argv.insert(argv.end(), args.begin(), args.end());
    return fathom::run_program(argv, "", {}, 600);
  }
  // `fathom --db DB train CONFIG` in the background, stderr to a file; its pid.
  pid_t start_training() {
    const std::string err = (dir_ / "train.err").string();
    const std::vector<std::string> argv{
        binary_.string(), "--db", db(), "train", (dir_ / "config.yaml").string(), "--no-progress"};
    const pid_t pid = fork();
    if (pid == 0) {
      FILE* out = std::freopen(err.c_str(), "w", stderr);
      (void)out;
      std::vector<char*> raw;
      for (const auto& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
      raw.push_back(nullptr);
      execv(raw[0], raw.data());
      _exit(127);
    }
    return pid;
  }
  // Waits until the run has done `updates` (it heartbeats at every log point).
  bool wait_for_updates(int64_t updates) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!fs::exists(db())) continue;
      try {
        for (const auto& r : Store::open(db(), OpenMode::ReadOnly).list_runs())
          if (r.status == "running" && r.updates >= updates) return true;
      } catch (const std::exception&) {  // the store is still being created
      }
    }
    return false;
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(TrainInterrupt, CtrlCCheckpointsMarksTheRunAndSaysHowToContinue) {
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(strsignal(sig));
    fs::remove(db());
    fs::remove_all(dir_ / "runs.artifacts");
    const pid_t pid = start_training();
    ASSERT_TRUE(wait_for_updates(150)) << read_text(dir_ / "train.err");  // past a checkpoint
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    const std::string err = read_text(dir_ / "train.err");
    EXPECT_NE(err.find("continue it with: fathom train --resume 1"), std::string::npos) << err;
    auto run = Store::open(db(), OpenMode::ReadOnly).find_run("1");
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, "cancelled");
    EXPECT_NE(run->error.find("interrupted by"), std::string::npos) << run->error;
    EXPECT_NE(run->error.find("fathom train --resume 1"), std::string::npos) << run->error;
    const int64_t stopped_at = run->updates;
    EXPECT_GE(stopped_at, 150);
    EXPECT_LT(stopped_at, 20000);

    // The command it printed finishes the run, every logged step once (fewer updates to keep
    // the test short: the stored config is continued with max_updates lowered).
    const ProgramResult resumed = fathom({"train", "--resume", "1", "--no-progress", "--set",
                                          "train.max_updates=" + std::to_string(stopped_at + 37)});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    auto store = Store::open(db(), OpenMode::ReadOnly);
    run = store.find_run("1");
    EXPECT_EQ(run->status, "finished");
    std::vector<int64_t> steps, expected;
    for (const auto& p : store.metric_series(1, "train_loss")) steps.push_back(p.step);
    for (int64_t s = 10; s <= stopped_at + 37; s += 10) expected.push_back(s);
    if (expected.back() != stopped_at + 37)
      expected.push_back(stopped_at + 37);  // the last update logs
    EXPECT_EQ(steps, expected);
    EXPECT_TRUE(run->final_metrics.count("train_loss"));

    // Nothing left to train: refused, and the run stays finished.
    const ProgramResult again = fathom({"train", "--resume", "1", "--no-progress", "--set",
                                        "train.max_updates=" + std::to_string(stopped_at + 37)});
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_NE(again.err.find("nothing to resume"), std::string::npos) << again.err;
    EXPECT_EQ(Store::open(db(), OpenMode::ReadOnly).find_run("1")->status, "finished");
  }
}

TEST_F(TrainInterrupt, CancelSingleRuns) {
  {
    auto store = Store::open(db());
    fathom::db::NewRun r;
    r.name = "waiting";
    store.create_run(r);
    r.name = "done";
    const int64_t done = store.create_run(r);
    store.mark_running(done, "host", "cpu");
    store.finish_run(done, "finished");
  }
  const ProgramResult typo = fathom({"cancel", "waiting", "nosuch"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("nosuch"), std::string::npos) << typo.err;
  EXPECT_EQ(Store::open(db(), OpenMode::ReadOnly).find_run("waiting")->status,
            "queued");  // nothing cancelled

  const ProgramResult r = fathom({"cancel", "waiting", "done"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 1 (waiting): cancelled"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run 2 (done): finished, left as it is"), std::string::npos) << r.out;
  auto store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run("waiting")->status, "cancelled");
  EXPECT_EQ(store.find_run("waiting")->error, "cancelled by `fathom cancel`");
  EXPECT_EQ(store.find_run("done")->status, "finished");
}

}  // namespace
