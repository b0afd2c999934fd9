// `fathom compare`: the settings that differ between stored runs, their final metrics, and the
// paired bootstrap of their test BLEU (base/metrics/bleu_bootstrap.h) from the hypotheses the
// runs stored -- checked against the same test computed here from those files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/text_lines.h"
#include "base/util/process.h"
#include "core/data/dataset.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_compare_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = fathom::testing::built_fathom_binary();
    ASSERT_TRUE(fs::exists(binary_)) << binary_;
    std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml(
        "tiny", "{lr: 0.005, warmup: 10, max_updates: 60, valid_every: 30, log_every: 10}");
  }
  ProgramResult fathom(std::vector<std::string> args) {
    args.insert(args.begin(), {binary_.string(), "--db", (dir_ / "runs.db").string()});
    return fathom::run_program(args, "", {}, 300);
  }
  fathom::testing::TempDir scratch_;
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(CompareCli, SettingsThatDifferFinalMetricsAndThePairedBootstrap) {
  const std::string config = (dir_ / "tiny.yaml").string();
  ASSERT_EQ(fathom({"train", config, "--no-progress"}).exit_code, 0);
  ASSERT_EQ(fathom({"train", config, "--no-progress", "--set", "train.lr=0.001"}).exit_code, 0);

  const ProgramResult text = fathom({"compare", "1", "2", "--samples", "200"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Settings that differ (1)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| train.lr | 0.005 | 0.001 |"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| test\\_bleu |"), std::string::npos) << text.out;  // Markdown
  EXPECT_NE(text.out.find("paired bootstrap resampling of 5 sentences"), std::string::npos)
      << text.out;

  // The same test computed here from the stored hypotheses and the task's references.
  const ProgramResult json = fathom({"--json", "compare", "1", "2", "--samples", "200"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["differing"].size(), 1u);
  auto store = fathom::db::Store::open((dir_ / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
  std::vector<std::vector<std::string>> hyps;
  for (int64_t id : {1, 2})
    for (const auto& a : store.artifacts(id))
      if (a.kind == "hypotheses") hyps.push_back(fathom::read_text_lines(a.path));
  ASSERT_EQ(hyps.size(), 2u);
  const auto data = fathom::load_dataset(fathom::load_config_file(config).data,
                                         (dir_ / "runs.cache").string(), "");
  const std::vector<std::string> refs(data.test_target.begin(), data.test_target.begin() + 5);
  const auto expected = fathom::paired_bootstrap_bleu(hyps[0], hyps[1], refs, 200, 12345);
  const auto& got = j["paired_bootstrap"]["versus_2"];
  EXPECT_DOUBLE_EQ(got["p"].get<double>(), expected.p);
  EXPECT_DOUBLE_EQ(got["system"]["bleu"].get<double>(), expected.system.score);
  EXPECT_DOUBLE_EQ(got["baseline"]["ci95"].get<double>(), expected.baseline.ci);
  EXPECT_DOUBLE_EQ(got["system"]["bleu"].get<double>(),
                   store.find_run("2")->final_metrics.at("test_bleu"));

  // A run against itself: nothing differs, p = 1.
  const auto self = nlohmann::json::parse(fathom({"--json", "compare", "1", "1"}).out);
  EXPECT_TRUE(self["differing"].empty());
  EXPECT_EQ(self["paired_bootstrap"]["versus_1"]["p"].get<double>(), 1.0);

  // Bad input: exit 2, naming it.
  const ProgramResult one = fathom({"compare", "1"});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("two or more runs"), std::string::npos) << one.err;
  const ProgramResult unknown = fathom({"compare", "1", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no run 'nope'"), std::string::npos) << unknown.err;
}

}  // namespace test_compare_cli
