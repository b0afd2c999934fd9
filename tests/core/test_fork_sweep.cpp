// A fork sweep (`fork: {run: RUN, from: STEP}`, experiments/sweep_spec.h; cli/fork_sweep.h):
// `fathom sweep` queues each run as a fork of RUN at STEP and its workers train them. The run
// with the parent's own settings ends exactly where the parent did (the same computation, one
// thread each); another rate does not; each carries the fork's tags and its sweep's; `fathom
// compare` says what their curves share by construction; a resume queues nothing again. Changes a
// fork cannot make and a missing fork point are refused at the sweep file's line before anything is
// queued.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/util/process.h"
#include "cli/paired_tests.h"
#include "db/artifact_files.h"
#include "db/fork_tags.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_fork_sweep {
using fathom::ProgramResult;

class ForkSweep : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
    // One thread, as each of the sweep's two workers on two cores gets: the same computation.
    std::ofstream(dir_ / "parent.yaml") << fathom::testing::tiny_config_yaml(
        "parent",
        "{lr: 0.005, warmup: 10, max_updates: 30, valid_every: 10, log_every: 10, "
        "keep_checkpoint_every: 10, threads: 1}");
    const ProgramResult r = fathom({"train", (dir_ / "parent.yaml").string(), "--no-progress"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  std::string sweep_file(const std::string& text) const {
    const std::string path = (dir_ / "sweep.yaml").string();
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(ForkSweep, EachRunContinuesTheParentAndItsOwnSettingsEndWhereItDid) {
  const std::string sweep = sweep_file(
      "name: rescue\nfork: {run: parent, from: 10}\ngrid:\n  train.lr: [0.005, 0.0025]\n");
  const ProgramResult dry = fathom({"sweep", sweep, "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("every run: a fork of run 1 (parent) from its checkpoint at update 10"),
            std::string::npos)
      << dry.out;
  const ProgramResult r = fathom({"sweep", sweep, "--jobs", "2", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
  const auto parent = *store.find_run("parent");
  const auto runs = store.list_runs("rescue");
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    SCOPED_TRACE(run.name);
    EXPECT_EQ(run.status, "finished");
    const auto tags = store.tags(run.id);
    EXPECT_EQ(tags.at(fathom::db::kForkedFromTag), std::to_string(parent.id));
    EXPECT_EQ(tags.at(fathom::db::kForkedAtTag), "10");
    EXPECT_EQ(tags.at("sweep.axes"), "train.lr");
    // Up to the fork point its curve is the parent's; after it, trained anew.
    const auto mine = store.metric_series(run.id, "train_loss");
    const auto theirs = store.metric_series(parent.id, "train_loss");
    ASSERT_EQ(mine.size(), theirs.size());
    EXPECT_EQ(mine[0].step, 10);
    EXPECT_EQ(mine[0].value, theirs[0].value);
  }
  const auto& same = runs[0];  // lr 0.005: the parent's own rate
  const auto& lower = runs[1];
  EXPECT_EQ(same.name, "rescue/lr=0.005");
  EXPECT_EQ(store.tags(same.id).count(fathom::db::kForkSettingsTag), 0u) << "nothing changed";
  EXPECT_EQ(store.tags(lower.id).at(fathom::db::kForkSettingsTag), "train.lr=0.0025");
  EXPECT_EQ(store.tags(lower.id).at("axis.train.lr"), "0.0025");
  EXPECT_EQ(same.final_metrics.at("valid_loss"), parent.final_metrics.at("valid_loss"));
  EXPECT_EQ(same.final_metrics.at("train_loss"), parent.final_metrics.at("train_loss"));
  EXPECT_NE(lower.final_metrics.at("train_loss"), parent.final_metrics.at("train_loss"));

  // `fathom compare` says what the curves share by construction, whichever run comes first.
  const std::string p = std::to_string(parent.id), a = std::to_string(same.id),
                    b = std::to_string(lower.id);
  const ProgramResult compared = fathom({"compare", p, a, b});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_NE(compared.out.find("- run " + a + " rescue/lr=0.005 (a fork of #" + p +
                              " at update 10: its points up to there are #" + p + "'s): identical"),
            std::string::npos)
      << compared.out;
  const ProgramResult reversed = fathom({"compare", b, p, a});
  EXPECT_NE(reversed.out.find("- run " + p + " parent (#" + b + " is its fork at update 10: #" + b +
                              "'s points up to there are #" + p + "'s): "),
            std::string::npos)
      << reversed.out;
  EXPECT_NE(reversed.out.find("- run " + a + " rescue/lr=0.005 (both fork #" + p +
                              " at update 10: their points up to there are its): "),
            std::string::npos)
      << reversed.out;

  // The sweep's report tests each run against the parent on the stored hypotheses: the run that
  // trained as the parent did translates as it did, nothing to tell apart.
  const ProgramResult reported = fathom({"report", "rescue", "--out", (dir_ / "report").string()});
  ASSERT_EQ(reported.exit_code, 0) << reported.err;
  std::ifstream in(dir_ / "report" / "report.md");
  const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("## Against the parent"), std::string::npos) << report;
  EXPECT_NE(report.find("p adjusted over the 2 tests (Holm 1979)"), std::string::npos) << report;
  EXPECT_NE(report.find(" | rescue/lr=0.005 | "), std::string::npos) << report;
  EXPECT_NE(report.find("| +0.00 [+0.00, +0.00] | 1.0000 | 1.0000 | inconclusive |"),
            std::string::npos)
      << report;

  // Resumed: every run ended; nothing is queued or made again.
  const ProgramResult again = fathom({"sweep", sweep, "--resume", "--no-progress"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("nothing left to run"), std::string::npos) << again.out;
  EXPECT_EQ(store.list_runs("").size(), 3u);
}

// Forks of one configuration over two seeds: the report tests the configuration against the
// parent over its seeds on the stored hypotheses, beside each run's own test.
TEST_F(ForkSweep, TheReportTestsAConfigurationOverItsSeeds) {
  const std::string sweep = sweep_file(
      "name: seeds\nfork: {run: parent, from: 20}\ngrid:\n  train.lr: [0.0025]\n"
      "  train.seed: [1, 2]\n");
  const ProgramResult r = fathom({"sweep", sweep, "--jobs", "2", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const ProgramResult reported = fathom({"report", "seeds", "--out", (dir_ / "report").string()});
  ASSERT_EQ(reported.exit_code, 0) << reported.err;
  std::ifstream in(dir_ / "report" / "report.md");
  const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("p adjusted over the 2 tests (Holm 1979)"), std::string::npos) << report;
  EXPECT_NE(report.find("### The configurations over their seeds"), std::string::npos) << report;
  EXPECT_NE(report.find("p adjusted over the 1 configuration (Holm 1979)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| train.lr=0.0025 \\* | 2 | "), std::string::npos) << report;

  // The report's tester reads the parent once for both forks (cli/paired_bleu_against.h): each
  // test is paired_test's to the last bit, and a fork whose hypotheses are gone is refused in
  // the same words.
  auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
  const auto paths = fathom::db::store_paths(db());
  const auto parent = *store.find_run("parent");
  const auto forks = store.list_runs("seeds");
  ASSERT_EQ(forks.size(), 2u);
  const fathom::experiments::PairedTester tester = fathom::cli::paired_tester(store, paths);
  for (const auto& fork : forks) {
    const auto once = tester(parent, fork);
    const auto each = fathom::cli::paired_test(store, paths, parent, fork);
    ASSERT_TRUE(once.test && each.test) << once.why_not << each.why_not;
    EXPECT_EQ(once.segments, each.segments);
    EXPECT_EQ(once.test->p, each.test->p);
    EXPECT_EQ(once.test->difference, each.test->difference);
    EXPECT_EQ(once.test->difference_low, each.test->difference_low);
    EXPECT_EQ(once.test->difference_high, each.test->difference_high);
  }
  std::filesystem::remove(fathom::db::recorded_file(store.artifacts(forks[1].id),
                                                    paths.run_dir(forks[1].id), "hypotheses"));
  const auto refused = tester(parent, forks[1]);
  EXPECT_FALSE(refused.test);
  EXPECT_EQ(refused.why_not, fathom::cli::paired_test(store, paths, parent, forks[1]).why_not);
  EXPECT_NE(refused.why_not.find("are not on this machine"), std::string::npos) << refused.why_not;
}

TEST_F(ForkSweep, WhatAForkCannotDoIsRefusedAtItsLine) {
  struct Case {
    std::string text, says;
  };
  const std::vector<Case> cases = {
      {"name: r\nfork: {run: parent, from: 10}\ngrid:\n  model.d_model: [16, 32]\n",
       "sweep.yaml:4: 'model.d_model': a fork continues the model, optimizer state and place in "
       "the data of run parent from update 10"},
      {"name: r\nfork: {run: parent, from: 10}\nset:\n  data.max_tokens: 128\n"
       "grid:\n  train.lr: [0.001]\n",
       "sweep.yaml:4: 'data.max_tokens': a fork continues the model"},
      {"name: r\nfork: {run: parent, from: 15}\ngrid:\n  train.lr: [0.001]\n",
       "sweep.yaml:2: 'fork.from': run 1 has no checkpoint at update 15 to fork from; the "
       "nearest are updates 10 and 20"},
      {"name: r\nfork: {run: parent, from: 20}\ngrid:\n  train.max_updates: [20, 40]\n",
       "sweep.yaml:2: 'fork.from': update 20 is not before train.max_updates (20)"},
      {"name: r\nfork: {run: nobody, from: 10}\ngrid:\n  train.lr: [0.001]\n",
       "sweep.yaml:2: 'fork.run': no run 'nobody'"},
      {"name: r\nbase: parent.yaml\nfork: {run: parent, from: 10}\ngrid:\n  train.lr: [0.001]\n",
       "sweep.yaml:3: 'fork': a fork sweep starts from its parent's config"},
      {"name: r\nfork: {run: parent, from: ten}\ngrid:\n  train.lr: [0.001]\n",
       "sweep.yaml:2: 'fork.from': expected an update"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const ProgramResult r = fathom({"sweep", sweep_file(c.text), "--no-progress"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
  EXPECT_EQ(store.list_runs("").size(), 1u) << "nothing was queued";
}

// The second fork cannot be made (a stray file where its directory goes): the first, already
// made and queued with linked checkpoints, is taken back -- rows and files -- so that nothing
// of the sweep is left and the same command runs it once the cause is gone.
TEST_F(ForkSweep, AForkThatCannotBeMadeTakesBackThoseMadeBeforeIt) {
  const std::string sweep = sweep_file(
      "name: rescue\nfork: {run: parent, from: 10}\ngrid:\n  train.lr: [0.005, 0.0025]\n");
  const std::filesystem::path artifacts = dir_ / "runs.artifacts";
  ASSERT_TRUE(std::filesystem::is_directory(artifacts / "run-1"));  // the parent's, as assumed
  std::ofstream(artifacts / "run-3") << "not a directory";          // the second fork's
  const ProgramResult r = fathom({"sweep", sweep, "--no-progress"});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("the fork of run 1 at update 10 could not be made"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the 1 run(s) it had recorded were removed"), std::string::npos) << r.err;
  {
    auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    EXPECT_EQ(store.list_runs("").size(), 1u) << "only the parent is left";
  }
  EXPECT_FALSE(std::filesystem::exists(artifacts / "run-2")) << "the first fork's files went";
  EXPECT_TRUE(std::filesystem::exists(artifacts / "run-1" / "checkpoint_10.g1.pt"))
      << "the parent's linked checkpoint stays";

  std::filesystem::remove(artifacts / "run-3");
  const ProgramResult again = fathom({"sweep", sweep, "--jobs", "2", "--no-progress"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
  const auto runs = store.list_runs("rescue");
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) EXPECT_EQ(run.status, "finished") << run.name;
}

}  // namespace test_fork_sweep
