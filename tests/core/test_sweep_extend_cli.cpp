// `fathom sweep extend` as a user runs it, on a stored sweep written without training
// (tests/support/stored_lr_sweep.h): Post-LN's loss falls to the grid's top rate, Pre-LN's is
// lowest in the middle, so only Post-LN gets one rate more -- 4e-3 * (4e-3 / 1e-3)^(1/2) =
// 8e-3 -- for both seeds. The file is written beside the sweep file and never over another; a
// sweep still running, or a test metric, is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "db/store.h"
#include "experiments/sweep_spec.h"
#include "tests/support/fathom_cli_test.h"
#include "tests/support/stored_lr_sweep.h"

namespace test_sweep_extend_cli {
using fathom::ProgramResult;
namespace fs = std::filesystem;

class SweepExtendCli : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    sweep_ = fathom::testing::write_lr_sweep_file(dir_);
  }
  const std::string& sweep() const { return sweep_; }
  void store_runs(const std::string& queued_rate = "") const {
    fathom::testing::store_lr_sweep_runs(db(), sweep_, queued_rate);
  }
  std::string sweep_;
};

TEST_F(SweepExtendCli, WritesTheNextRateOfTheOpenCurveBesideTheSweepFile) {
  store_runs();
  const ProgramResult r = fathom({"sweep", "extend", sweep()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 curves of train.lr by valid_loss (last): 1 with their optimum inside "
                       "the grid, 1 at an end"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("norm=post: 0.008 (above 0.004)"), std::string::npos) << r.out;
  const fs::path edge = dir_ / "s-edge.yaml";
  ASSERT_TRUE(fs::exists(edge)) << r.out;
  EXPECT_NE(r.out.find("fathom sweep " + edge.string() + " --resume"), std::string::npos) << r.out;
  const auto runs =
      fathom::experiments::expand_sweep(fathom::experiments::load_sweep_file(edge.string()));
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_NE(run.name.find("lr=0.008,norm=post"), std::string::npos) << run.name;
    EXPECT_DOUBLE_EQ(run.config.train.lr, 8e-3);
  }
  // Again: a second file, the first left as it was.
  const std::string first = fathom::testing::read_text(edge);
  ASSERT_EQ(fathom({"sweep", "extend", sweep()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "s-edge2.yaml"));
  EXPECT_EQ(fathom::testing::read_text(edge), first);
  // --dry-run prints the file and writes none.
  const ProgramResult dry = fathom({"sweep", "extend", sweep(), "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("train.lr: [0.008]"), std::string::npos) << dry.out;
  EXPECT_FALSE(fs::exists(dir_ / "s-edge3.yaml"));
}

TEST_F(SweepExtendCli, ASweepStillRunningOrATestMetricIsRefused) {
  store_runs(/*queued_rate=*/"4e-3");
  const ProgramResult waiting = fathom({"sweep", "extend", sweep()});
  EXPECT_EQ(waiting.exit_code, 2);
  EXPECT_NE(waiting.err.find("4 of sweep s's runs are queued or running"), std::string::npos)
      << waiting.err;
  const ProgramResult test = fathom({"sweep", "extend", sweep(), "--metric", "test_ppl"});
  EXPECT_EQ(test.exit_code, 2);
  EXPECT_NE(test.err.find("test_ppl is a test metric"), std::string::npos) << test.err;
  EXPECT_FALSE(fs::exists(dir_ / "s-edge.yaml"));
}

TEST_F(SweepExtendCli, ASweepWithoutARateAxisIsSaidSo) {
  std::ofstream(dir_ / "n.yaml") << "name: n\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\n";
  auto store = fathom::db::Store::open(db());
  fathom::db::NewRun run;
  run.name = "n/norm=post";
  run.sweep = "n";
  store.finish_run(store.create_run(run), "finished");
  const ProgramResult r = fathom({"sweep", "extend", (dir_ / "n.yaml").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("n.yaml: 'grid': sweep n has no train.lr axis"), std::string::npos) << r.err;
}

// --axis takes any numeric axis, judged line by line as a depth is: the rate here, each norm a
// line -- Post-LN's best at the top (one step beyond: 4e-3 x 4e-3 / 2e-3), Pre-LN's inside.
// --at needs it.
TEST_F(SweepExtendCli, AlongANamedNumericAxisAndOnlyThereAtABudget) {
  store_runs();
  const ProgramResult r =
      fathom({"sweep", "extend", sweep(), "--axis", "train.lr", "--at", "update=50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sweep s: 2 lines along train.lr by valid_loss at update=50: 1 with their "
                       "best inside the grid, 1 at an end"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  post: 0.008 (above 0.004)"), std::string::npos) << r.out;
  const auto runs = fathom::experiments::expand_sweep(
      fathom::experiments::load_sweep_file((dir_ / "s-edge.yaml").string()));
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) EXPECT_DOUBLE_EQ(run.config.train.lr, 8e-3);
  const ProgramResult no_axis = fathom({"sweep", "extend", sweep(), "--at", "update=50"});
  EXPECT_EQ(no_axis.exit_code, 2);
  EXPECT_NE(no_axis.err.find("'--at': is read with --axis"), std::string::npos) << no_axis.err;
}

}  // namespace test_sweep_extend_cli
