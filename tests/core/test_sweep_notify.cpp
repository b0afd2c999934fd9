// Alerts on a real sweep (issue 59.3; experiments/notify.h): `fathom sweep` with a `notify:`
// section trains one run that diverges and one that finishes, in worker processes; the
// command, a shell line appending the run's environment to a file, runs once for each event
// and once for the sweep's end; resuming the sweep (a new scheduler on the same store) sends
// none again; `fathom show` lists the run's system metrics, which every run logged. A run
// trained alone with `fathom train` alerts its end too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_sweep_notify {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class SweepNotify : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
    std::ofstream(dir_ / "base.yaml") << fathom::testing::tiny_config_yaml(
        "tiny", "{lr: 0.005, warmup: 10, max_updates: 30, valid_every: 10, log_every: 10}");
  }
  // The alert lines, sorted (the two runs end in either order).
  std::vector<std::string> alerts() const {
    std::istringstream lines(fathom::testing::read_text(dir_ / "alerts.txt"));
    std::vector<std::string> out;
    for (std::string line; std::getline(lines, line);) out.push_back(line);
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(SweepNotify, DivergedFinishedAndTheSweepsEndAlertOnceEach) {
  const std::string alerts_file = fathom::testing::shell_quote((dir_ / "alerts.txt").string());
  std::ofstream(dir_ / "sweep.yaml")
      << "name: alerting\nbase: base.yaml\n"
         "grid:\n  train.lr: [0.005, 1000.0]\n"
         "notify:\n"
         "  on: [diverged, finished, failed, sweep_finished]\n"
         "  command: echo \"$FATHOM_EVENT $FATHOM_RUN_NAME $FATHOM_STATUS\" >> "
      << alerts_file << "\n";
  const std::string sweep = (dir_ / "sweep.yaml").string();
  const ProgramResult first = fathom({"sweep", sweep, "--jobs", "2", "--no-progress"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const std::vector<std::string> want = {"diverged alerting/lr=1000.0 diverged",
                                         "finished alerting/lr=0.005 finished",
                                         "sweep_finished alerting/lr=0.005 finished"};
  EXPECT_EQ(alerts(), want) << first.err;
  // A new scheduler on the same sweep finds every event recorded and sends nothing.
  const ProgramResult again = fathom({"sweep", sweep, "--resume", "--no-progress"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(alerts(), want);
  auto store = fathom::db::Store::open((dir_ / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
  const auto runs = store.list_runs("alerting");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(store.tags(runs[0].id).at("notify.finished"), "ok");
  EXPECT_EQ(store.tags(runs[0].id).at("notify.sweep_finished"), "ok");
  EXPECT_EQ(store.tags(runs[1].id).at("notify.diverged"), "ok");

  // Both runs logged their system metrics at their log points; `fathom show` sums them up.
  EXPECT_FALSE(store.metric_series(runs[0].id, fathom::db::metric::kSysRss).empty());
  const ProgramResult show = fathom({"show", std::to_string(runs[0].id)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("system (3 samples"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("sys.rss_peak_mib"), std::string::npos) << show.out;
}

// `fathom train` alone: the config's notify keys alert the run's end once, after training.
TEST_F(SweepNotify, ARunTrainedAloneAlertsItsEnd) {
  const std::string alerts_file = fathom::testing::shell_quote((dir_ / "alerts.txt").string());
  std::ofstream(dir_ / "alone.yaml")
      << fathom::testing::tiny_config_yaml("alone", "{lr: 1000.0, max_updates: 30}")
      << "notify:\n  on: [diverged, finished]\n"
         "  command: echo \"$FATHOM_EVENT $FATHOM_RUN_ID $FATHOM_STATUS\" >> "
      << alerts_file << "\n";
  const ProgramResult r = fathom({"train", (dir_ / "alone.yaml").string(), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(alerts(), std::vector<std::string>{"diverged 1 diverged"}) << r.err;
}

}  // namespace test_sweep_notify
