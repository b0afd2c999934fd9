// `fathom compare`: the settings that differ between stored runs, their final metrics, and the
// paired bootstrap of their test BLEU (base/metrics/bleu_bootstrap.h) from the hypotheses the
// runs stored -- checked against the same test computed here from those files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
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
#include "tests/support/fathom_cli_test.h"

namespace test_compare_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class CompareCli : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
    std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml(
        "tiny", "{lr: 0.005, warmup: 10, max_updates: 60, valid_every: 30, log_every: 10}");
  }
};

TEST_F(CompareCli, SettingsThatDifferFinalMetricsAndThePairedBootstrap) {
  const std::string config = (dir_ / "tiny.yaml").string();
  ASSERT_EQ(fathom({"train", config, "--no-progress"}).exit_code, 0);
  ASSERT_EQ(fathom({"train", config, "--no-progress", "--set", "train.lr=0.001"}).exit_code, 0);

  const ProgramResult text = fathom({"compare", "1", "2", "--samples", "200"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Settings that differ (1)"), std::string::npos) << text.out;
  // The runs named once in a list; the tables' columns by id.
  EXPECT_NE(text.out.find("Runs:\n\n- #1 tiny\n- #2 tiny\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| setting | #1 | #2 |"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| train.lr | 0.005 | 0.001 |"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| test\\_bleu |"), std::string::npos) << text.out;  // Markdown
  EXPECT_NE(text.out.find("paired bootstrap resampling of 5 sentences"), std::string::npos)
      << text.out;
  // Another rate: the curves part, which is no news; compare says they were not expected to agree.
  EXPECT_NE(text.out.find("the settings differ, so they are not expected to agree"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("- run 2 tiny: first recorded difference at update "), std::string::npos)
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

  // Both ran here, with the same kernels, device and code: nothing computed differently.
  EXPECT_TRUE(j["computed_differently"].empty()) << j.dump();
  EXPECT_EQ(text.out.find("Computed differently"), std::string::npos) << text.out;

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

  // Run 2 as if computed on another machine's OpenBLAS kernels (tag blas.core): the comparison
  // says so beside the settings, each run's value in its column.
  const auto tags = store.tags(1);  // no tag where LibTorch computes without OpenBLAS
  const std::string here = tags.count("blas.core") ? tags.at("blas.core") : "";
  const std::string there = here == "Haswell" ? "Sandybridge" : "Haswell";
  fathom::db::Store::open((dir_ / "runs.db").string()).set_tag(2, "blas.core", there);
  const auto moved = nlohmann::json::parse(fathom({"--json", "compare", "1", "2"}).out);
  EXPECT_EQ(moved["computed_differently"], (nlohmann::json{{"blas.core", {here, there}}}))
      << moved.dump();
  const ProgramResult moved_text = fathom({"compare", "1", "2", "--samples", "10"});
  EXPECT_NE(moved_text.out.find("Computed differently"), std::string::npos) << moved_text.out;
  EXPECT_NE(moved_text.out.find("| blas.core | " + here + " | " + there + " |"), std::string::npos)
      << moved_text.out;

  // And as if on another machine's cores (train.threads 0 takes them): threads, each run's.
  const std::string threads_here = tags.at("threads");  // every run records its threads
  fathom::db::Store::open((dir_ / "runs.db").string()).set_tag(2, "threads", "OpenBLAS 64");
  const auto wider = nlohmann::json::parse(fathom({"--json", "compare", "1", "2"}).out);
  EXPECT_EQ(wider["computed_differently"]["threads"], (nlohmann::json{threads_here, "OpenBLAS 64"}))
      << wider.dump();
}

// Language models translate no test set: compare says so and where their comparison is, and
// leaves the name (listed above the tables) out of the settings that differ.
TEST_F(CompareCli, LanguageModelsSayWhyThereIsNoBleuTest) {
  const auto config =
      fathom::load_config_file(std::string(FATHOM_SOURCE_DIR) + "/configs/lm-multi30k-en.yaml");
  {
    auto store = fathom::db::Store::open((dir_ / "runs.db").string());
    for (const char* name : {"lm/a", "lm/b"}) {
      fathom::db::NewRun run;
      run.name = name;
      run.config_yaml = fathom::config_to_yaml(config);
      auto json = fathom::config_to_json(config);
      json["name"] = name;
      run.config_json = json.dump();
      store.create_run(run);
    }
  }
  const ProgramResult text = fathom({"compare", "1", "2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Settings that differ (0)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("run 1 lm/a is a language model"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fathom export table --sweep"), std::string::npos) << text.out;
  const auto j = nlohmann::json::parse(fathom({"--json", "compare", "1", "2"}).out);
  EXPECT_EQ(j["differing"].size(), 1u);  // the name, in JSON as in the config
  EXPECT_NE(j["paired_bootstrap"]["skipped"].get<std::string>().find("language model"),
            std::string::npos);
}

// `fathom export verdicts --paired-bootstrap`: a sweep of two rates x two seeds; the BLEU test
// of one rate against the other gets, beside Welch, the paired bootstrap pooled over the two
// seeds -- the same as computed here from the four stored hypothesis files, paired by seed.
TEST_F(CompareCli, VerdictsPairTheArmsRunsBySeedForThePooledBootstrap) {
  std::ofstream(dir_ / "sweep.yaml")
      << "name: v\nbase: tiny.yaml\ngrid:\n  train.lr: [0.005, 0.001]\nseeds: [1, 2]\n";
  const ProgramResult sweep =
      fathom({"sweep", (dir_ / "sweep.yaml").string(), "--jobs", "1", "--no-progress"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const ProgramResult v =
      fathom({"export", "verdicts", "--sweep", "v", "--rows", "train.lr", "--metrics", "test_bleu",
              "--versus", "0.005", "--paired-bootstrap", "--samples", "200"});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("Holm family: 1 tests"), std::string::npos) << v.out;

  auto store = fathom::db::Store::open((dir_ / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
  std::map<std::string, std::vector<std::string>> hyps;  // "lr/seed" -> hypotheses
  for (const auto& r : store.list_runs("v")) {
    const auto tags = store.tags(r.id);
    for (const auto& a : store.artifacts(r.id))
      if (a.kind == "hypotheses")
        hyps[tags.at("axis.train.lr") + "/" + tags.at("axis.train.seed")] =
            fathom::read_text_lines(a.path);
  }
  ASSERT_EQ(hyps.size(), 4u);
  const auto data =
      fathom::load_dataset(fathom::load_config_file((dir_ / "tiny.yaml").string()).data,
                           (dir_ / "runs.cache").string(), "");
  const std::vector<std::string> refs(data.test_target.begin(), data.test_target.begin() + 5);
  const auto expected = fathom::pooled_paired_bootstrap_bleu(
      {{hyps.at("0.005/1"), hyps.at("0.001/1")}, {hyps.at("0.005/2"), hyps.at("0.001/2")}}, refs,
      200, 12345);
  char p[32];
  std::snprintf(p, sizeof p, "| %.4f |", expected.p);
  EXPECT_NE(v.out.find("| 0.001 | 0.005 | 2 | "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find(p), std::string::npos) << p << "\n" << v.out;
}

}  // namespace test_compare_cli
