// `fathom config FILE --schedule`: the learning rate a config plans, by update, for a terminal
// and as JSON -- the values of base/config/lr_schedule.h at the schedule's corners -- and the
// config's errors before any of it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_schedule_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class ScheduleCli : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = fathom::testing::built_fathom_binary();
    ASSERT_TRUE(fs::exists(binary_)) << binary_;
    // Cosine after a warmup of 10, from 2e-3 to 2e-4 at update 100.
    std::ofstream(dir_ / "cosine.yaml") << fathom::testing::tiny_config_yaml(
        "cosine", "{schedule: cosine, lr: 0.002, warmup: 10, max_updates: 100, min_lr_ratio: 0.1}");
  }
  ProgramResult fathom(std::vector<std::string> args) {
    args.insert(args.begin(), binary_.string());
    return fathom::run_program(args, "", {}, 60);
  }
  fathom::testing::TempDir scratch_;
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
};

// The warmup's end at the peak, the decay's first update (p = 1/90: 2e-4 + 1.8e-3 (1 + cos(pi /
// 90)) / 2 = 0.00199945), the minimum at the last update; the JSON has the same points.
TEST_F(ScheduleCli, PrintsTheRateAtTheSchedulesCorners) {
  const std::string config = (dir_ / "cosine.yaml").string();
  const ProgramResult text = fathom({"config", config, "--schedule"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("train.schedule cosine"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("        10  0.002         end of warmup\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("        11  0.00199945    decay begins\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("       100  0.0002\n"), std::string::npos) << text.out;

  const ProgramResult json = fathom({"--json", "config", config, "--schedule"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed.at("schedule"), "cosine");
  const auto& points = parsed.at("points");
  ASSERT_FALSE(points.empty());
  EXPECT_EQ(points.front().at("update"), 1);
  EXPECT_NEAR(points.front().at("lr").get<double>(), 0.002 / 10, 1e-15);
  EXPECT_EQ(points.back().at("update"), 100);
  EXPECT_NEAR(points.back().at("lr").get<double>(), 0.0002, 1e-15);

  // A config the trainer would refuse is refused here too, naming the key.
  const ProgramResult bad =
      fathom({"config", config, "--schedule", "--set", "train.decay_shape=linear"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("train.decay_shape"), std::string::npos) << bad.err;
}

}  // namespace test_schedule_cli
