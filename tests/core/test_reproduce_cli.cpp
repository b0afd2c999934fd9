// `fathom train --reproduce RUN` (cli/reproduction.h) and the curves section of `fathom
// compare`: a run trained again from its stored config agrees with it to the last bit on the
// CPU (the trainer is deterministic given a seed); a stored value changed by hand -- standing
// for a run computed by other code -- is found at its update and metric, and the command exits
// with 5.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_reproduce_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class ReproduceCli : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
    std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml(
        "tiny", "{lr: 0.005, warmup: 10, max_updates: 40, valid_every: 20, log_every: 10}");
  }
};

TEST_F(ReproduceCli, ARunTrainedAgainAgreesToTheLastBitAndADifferenceIsNamed) {
  ASSERT_EQ(fathom({"train", (dir_ / "tiny.yaml").string(), "--no-progress"}).exit_code, 0);

  const ProgramResult again = fathom({"train", "--reproduce", "1", "--no-progress"});
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  EXPECT_NE(again.out.find("run 2 reproduces run 1: identical: "), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("through update 40"), std::string::npos) << again.out;
  {
    const auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    const auto run = store.find_run("2");
    EXPECT_EQ(run->name, "tiny (reproduces #1)");
    EXPECT_EQ(run->sweep, "");  // never one more seed of a sweep's settings
    auto config = nlohmann::json::parse(run->config_json);
    auto original = nlohmann::json::parse(store.find_run("1")->config_json);
    config.erase("name");
    original.erase("name");
    EXPECT_EQ(config, original);  // the stored config, all but its name
    const auto tags = store.tags(2);
    EXPECT_EQ(tags.at("reproduces"), "1");
    EXPECT_EQ(tags.at("reproduction").rfind("agrees: identical", 0), 0u) << tags.at("reproduction");
    // Every value the check calls identical is: the rows themselves, compared here.
    size_t compared = 0;
    const auto a = store.metric_rows(1), b = store.metric_rows(2);
    for (const auto& [step, name, value, wall] : a)
      for (const auto& [step_b, name_b, value_b, wall_b] : b)
        if (step == step_b && name == name_b && !fathom::db::metric::measures_the_machine(name)) {
          EXPECT_EQ(value, value_b) << name << " at update " << step;
          ++compared;
        }
    EXPECT_GT(compared, 10u);
  }

  // Resumed further (as after a stop), a reproduction is compared again: through the updates
  // both have, the later ones counted apart.
  const ProgramResult further =
      fathom({"train", "--resume", "2", "--set", "train.max_updates=50", "--no-progress"});
  ASSERT_EQ(further.exit_code, 0) << further.err << further.out;
  EXPECT_NE(further.out.find("run 2 reproduces run 1: identical: "), std::string::npos)
      << further.out;
  EXPECT_NE(further.out.find("through update 40; "), std::string::npos) << further.out;
  EXPECT_NE(further.out.find("at updates only one run recorded were not compared"),
            std::string::npos)
      << further.out;

  // The original's train_loss at update 20 as other code might have recorded it.
  double stored = 0;
  {
    auto store = fathom::db::Store::open(db());
    for (const auto& [step, name, value, wall] : store.metric_rows(1))
      if (step == 20 && name == "train_loss") stored = value;
    ASSERT_GT(stored, 0);
    store.write_metrics(1, {{20, "train_loss", stored * 1.001, 0}});
  }
  const ProgramResult differs = fathom({"--json", "train", "--reproduce", "1", "--no-progress"});
  EXPECT_EQ(differs.exit_code, 5) << differs.err << differs.out;
  const auto j = nlohmann::json::parse(differs.out);
  EXPECT_FALSE(j["agrees"].get<bool>());
  EXPECT_EQ(j["run"].get<int64_t>(), 3);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["first_departure"]["update"].get<int64_t>(), 20);
  EXPECT_EQ(j["first_departure"]["metric"], "train_loss");
  EXPECT_DOUBLE_EQ(j["first_departure"]["values"][0].get<double>(), stored * 1.001);
  EXPECT_DOUBLE_EQ(j["first_departure"]["values"][1].get<double>(), stored);
  // Its own curves still equal the first reproduction's: `fathom compare` says so of run 3
  // against run 2, and names run 1's changed value.
  const ProgramResult compare = fathom({"--json", "compare", "2", "3", "1"});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  const auto c = nlohmann::json::parse(compare.out)["curves"];
  EXPECT_TRUE(c["versus_3"]["agrees"].get<bool>()) << c.dump(2);
  EXPECT_FALSE(c["versus_1"]["agrees"].get<bool>());
  EXPECT_EQ(c["versus_1"]["first_departure"]["update"].get<int64_t>(), 20);
  EXPECT_EQ(c["versus_1"]["through"].get<int64_t>(), 40);

  // A reproduction takes nothing but the run (and how to run it).
  const ProgramResult both =
      fathom({"train", (dir_ / "tiny.yaml").string(), "--reproduce", "1", "--no-progress"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--reproduce"), std::string::npos) << both.err;
  // Only how it runs may change: another rate would be another experiment.
  const ProgramResult changed =
      fathom({"train", "--reproduce", "1", "--set", "train.lr=0.001", "--no-progress"});
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("changing train.lr"), std::string::npos) << changed.err;
  const ProgramResult loose =
      fathom({"train", (dir_ / "tiny.yaml").string(), "--tolerance", "1e-6", "--no-progress"});
  EXPECT_NE(loose.exit_code, 0);  // a tolerance means nothing without --reproduce
  EXPECT_NE(loose.err.find("--reproduce"), std::string::npos) << loose.err;
  const ProgramResult missing = fathom({"train", "--reproduce", "99", "--no-progress"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no run '99'"), std::string::npos) << missing.err;
}

}  // namespace test_reproduce_cli
