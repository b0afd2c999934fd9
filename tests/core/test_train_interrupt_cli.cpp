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
#include "tests/support/wait_for_run.h"

namespace test_train_interrupt_cli {
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
    return fathom::testing::start_in_background(
        {binary_.string(), "--db", db(), "train", (dir_ / "config.yaml").string(), "--no-progress"},
        (dir_ / "train.err").string());
  }
  bool wait_for_updates(int64_t updates) {
    return fathom::testing::wait_for_running_updates(db(), updates, 120);
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(TrainInterrupt, CtrlCCheckpointsMarksTheRunAndSaysHowToContinue) {
  // SIGHUP: the terminal of `fathom train` closed (it used to kill it, leaving the run running).
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
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
    // The command names the store it was given, so following it never makes a ./fathom.db.
    const std::string resume = "fathom --db " + db() + " train --resume 1";
    EXPECT_NE(err.find("continue it with: " + resume), std::string::npos) << err;
    auto run = Store::open(db(), OpenMode::ReadOnly).find_run("1");
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, "cancelled");
    EXPECT_NE(run->error.find("interrupted by"), std::string::npos) << run->error;
    EXPECT_NE(run->error.find(resume), std::string::npos) << run->error;
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

// `fathom cancel` of a run a plain `fathom train` is training: the process is told (SIGTERM,
// through the pid it recorded) and, its run no longer its own, stops without another write --
// exit status 3 -- instead of training on and ending the cancelled run "finished".
TEST_F(TrainInterrupt, CancelStopsARunningTrainWhichWritesNothingMore) {
  const pid_t pid = start_training();
  ASSERT_TRUE(wait_for_updates(150)) << read_text(dir_ / "train.err");
  const ProgramResult cancel = fathom({"cancel", "1"});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  const auto at_cancel = Store::open(db(), OpenMode::ReadOnly).export_run(1);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed instead of stopping";
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_text(dir_ / "train.err");
  EXPECT_NE(read_text(dir_ / "train.err").find("it is cancelled"), std::string::npos)
      << read_text(dir_ / "train.err");
  const auto after = Store::open(db(), OpenMode::ReadOnly).export_run(1);
  EXPECT_EQ(after.run.status, "cancelled");
  EXPECT_EQ(after.run.error, "cancelled by `fathom cancel`");
  EXPECT_EQ(after.run.updates, at_cancel.run.updates);
  EXPECT_EQ(after.run.finished_at, at_cancel.run.finished_at);
  EXPECT_EQ(after.metrics, at_cancel.metrics);
  EXPECT_EQ(after.run.final_metrics, at_cancel.run.final_metrics);
}

// kill -9 of `fathom train`: its run says running, but the pid it recorded on this host is
// gone, so `--resume` is accepted at once (it used to be refused until the heartbeat went
// stale, 180 s, or a `fathom cancel`) and finishes the run with every logged step once.
TEST_F(TrainInterrupt, AKilledTrainIsKnownGoneAtOnceAndResumes) {
  const pid_t pid = start_training();
  ASSERT_TRUE(wait_for_updates(150)) << read_text(dir_ / "train.err");
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  const auto run = Store::open(db(), OpenMode::ReadOnly).find_run("1");
  ASSERT_EQ(run->status, "running");
  const int64_t end = run->updates + 25;
  const auto started = std::chrono::steady_clock::now();
  const ProgramResult resumed = fathom({"train", "--resume", "1", "--no-progress", "--set",
                                        "train.max_updates=" + std::to_string(end)});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(120));
  auto store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run("1")->status, "finished");
  std::vector<int64_t> steps, expected;
  for (const auto& p : store.metric_series(1, "train_loss")) steps.push_back(p.step);
  for (int64_t s = 10; s < end; s += 10) expected.push_back(s);
  expected.push_back(end);
  EXPECT_EQ(steps, expected);
}

// A resume keeps the config its curve was trained with: a changed learning rate is refused
// (exit 2, nothing touched); more updates are accepted and recorded -- the stored config says
// the new max_updates, and a tag says what changed at which update.
TEST_F(TrainInterrupt, ResumeRefusesChangedSettingsAndRecordsMoreUpdates) {
  std::ofstream(dir_ / "short.yaml") << fathom::testing::tiny_config_yaml(
      "short", "{lr: 0.005, warmup: 10, max_updates: 30, valid_every: 10, log_every: 10}");
  ASSERT_EQ(fathom({"train", (dir_ / "short.yaml").string(), "--no-progress"}).exit_code, 0);
  const auto before = Store::open(db(), OpenMode::ReadOnly).export_run(1);

  const ProgramResult lr = fathom(
      {"train", "--resume", "1", "--no-progress", "--set", "train.max_updates=40", "train.lr=0.1"});
  EXPECT_EQ(lr.exit_code, 2) << lr.err;
  EXPECT_NE(lr.err.find("train.lr"), std::string::npos) << lr.err;
  const auto refused = Store::open(db(), OpenMode::ReadOnly).export_run(1);
  EXPECT_EQ(refused.run.config_yaml, before.run.config_yaml);
  EXPECT_EQ(refused.run.status, "finished");
  EXPECT_EQ(refused.metrics, before.metrics);

  const ProgramResult more =
      fathom({"train", "--resume", "1", "--no-progress", "--set", "train.max_updates=40"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto run = *store.find_run("1");
  EXPECT_EQ(run.updates, 40);
  EXPECT_NE(run.config_yaml.find("max_updates: 40"), std::string::npos) << run.config_yaml;
  EXPECT_NE(run.config_json.find("\"max_updates\":40"), std::string::npos) << run.config_json;
  EXPECT_EQ(store.tags(1).at("config.changed_at.30"), "train.max_updates: 30 -> 40");
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

}  // namespace test_train_interrupt_cli
