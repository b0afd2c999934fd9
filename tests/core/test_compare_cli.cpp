// `fathom compare`: the settings that differ between stored runs, their final metrics, and the
// paired bootstrap of their test BLEU (base/metrics/bleu_bootstrap.h) from the hypotheses the
// runs stored -- checked against the same test computed here from those files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
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

  // Test perplexity: the same test on the NLL of every test sentence the runs stored, each draw
  // a corpus perplexity; the whole set's is the run's test_ppl.
  std::vector<std::vector<fathom::SegmentNll>> nll;
  for (int64_t id : {1, 2})
    for (const auto& a : store.artifacts(id))
      if (a.kind == "test_nll") nll.push_back(fathom::read_segment_nll_file(a.path));
  ASSERT_EQ(nll.size(), 2u);
  const auto expected_ppl = fathom::paired_bootstrap_perplexity(nll[0], nll[1], 200, 12345);
  const auto& ppl = j["paired_bootstrap_perplexity"]["versus_2"];
  EXPECT_DOUBLE_EQ(ppl["p"].get<double>(), expected_ppl.p);
  EXPECT_DOUBLE_EQ(ppl["difference"].get<double>(), expected_ppl.difference);
  EXPECT_DOUBLE_EQ(ppl["difference_ci95"][1].get<double>(), expected_ppl.difference_high);
  EXPECT_NEAR(ppl["system"]["perplexity"].get<double>(),
              store.find_run("2")->final_metrics.at("test_ppl"),
              1e-6 * store.find_run("2")->final_metrics.at("test_ppl"));
  EXPECT_NE(text.out.find("Test perplexity against run 1 tiny, paired bootstrap resampling of " +
                          std::to_string(nll[0].size()) + " sentences (200 draws"),
            std::string::npos)
      << text.out;

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

// Language models translate no test set: compare says so, tests their test perplexity instead
// where they stored their sequences' NLL, and leaves the name (listed above the tables) out of
// the settings that differ.
TEST_F(CompareCli, LanguageModelsAreTestedOnPerplexityNotBleu) {
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
  const auto j = nlohmann::json::parse(fathom({"--json", "compare", "1", "2"}).out);
  EXPECT_EQ(j["differing"].size(), 1u);  // the name, in JSON as in the config
  EXPECT_NE(j["paired_bootstrap"]["skipped"].get<std::string>().find("language model"),
            std::string::npos);
  // Without stored segments, no perplexity test either, and compare says why.
  EXPECT_NE(text.out.find("No paired perplexity test: run 1 lm/a has no stored NLL per test "
                          "segment"),
            std::string::npos)
      << text.out;

  // With them (test.nll, as a finished run keeps it): the paired test of test perplexity over
  // the language model's sequences, computed here by hand for a sure case -- every sequence of
  // lm/b 0.2 nats lower, so every draw favours it and the interval is below zero.
  const std::vector<fathom::SegmentNll> a = {{40.0, 20}, {55.0, 20}, {38.0, 20}, {61.0, 20}};
  std::vector<fathom::SegmentNll> b = a;
  for (auto& s : b) s.nll -= 0.2 * static_cast<double>(s.tokens);
  const fs::path a_file = dir_ / "runs.artifacts/run-1/test.nll",
                 b_file = dir_ / "runs.artifacts/run-2/test.nll";
  {
    auto store = fathom::db::Store::open((dir_ / "runs.db").string());
    store.add_artifact(1, "test_nll", a_file.string(), 0);
    store.add_artifact(2, "test_nll", b_file.string(), 0);
  }
  fs::create_directories(a_file.parent_path());
  fs::create_directories(b_file.parent_path());
  std::ofstream(a_file) << fathom::segment_nll_text(a);
  std::ofstream(b_file) << fathom::segment_nll_text(b);
  const ProgramResult tested = fathom({"compare", "1", "2", "--samples", "300"});
  ASSERT_EQ(tested.exit_code, 0) << tested.err;
  EXPECT_NE(tested.out.find("Test perplexity against run 1 lm/a, paired bootstrap resampling of 4 "
                            "sequences (300 draws"),
            std::string::npos)
      << tested.out;
  const auto with = nlohmann::json::parse(fathom({"--json", "compare", "1", "2"}).out);
  const auto& ppl = with["paired_bootstrap_perplexity"]["versus_2"];
  EXPECT_DOUBLE_EQ(ppl["baseline"]["perplexity"].get<double>(), std::exp(194.0 / 80));
  EXPECT_DOUBLE_EQ(ppl["system"]["perplexity"].get<double>(), std::exp(178.0 / 80));
  EXPECT_LT(ppl["difference_ci95"][1].get<double>(), 0);

  // Another tokenisation (one sequence counted with other tokens): refused, saying so.
  b[2].tokens = 21;
  std::ofstream(b_file) << fathom::segment_nll_text(b);
  const ProgramResult other = fathom({"compare", "1", "2"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.out.find("No paired perplexity test: run 2 lm/b against run 1 lm/a: paired "
                           "bootstrap: pair 1, segment 3: 20 target tokens for the baseline, 21"),
            std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("tokenise the test set differently"), std::string::npos) << other.out;
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
  // At a budget: the test set's stored hypotheses are the final model's -- refused, naming
  // --at; without the bootstrap the family is read at the budget.
  const std::vector<std::string> at_budget{"export",   "verdicts", "--sweep",   "v",
                                           "--rows",   "train.lr", "--metrics", "valid_loss",
                                           "--versus", "0.005",    "--at",      "update=30"};
  auto with_bootstrap = at_budget;
  with_bootstrap.push_back("--paired-bootstrap");
  const ProgramResult no_test_set = fathom(with_bootstrap);
  EXPECT_EQ(no_test_set.exit_code, 2) << no_test_set.out;
  EXPECT_NE(no_test_set.err.find("--at"), std::string::npos) << no_test_set.err;
  EXPECT_NE(no_test_set.err.find("--paired-bootstrap"), std::string::npos) << no_test_set.err;
  const ProgramResult cut = fathom(at_budget);
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  EXPECT_NE(cut.out.find("each run's last value at update <= 30"), std::string::npos) << cut.out;
  // --metrics repeated is the comma list (the app adds a metric to the family so).
  const std::vector<std::string> family{"export", "verdicts", "--sweep",  "v",
                                        "--rows", "train.lr", "--versus", "0.005"};
  auto with = [&family](std::vector<std::string> metrics) {
    metrics.insert(metrics.begin(), family.begin(), family.end());
    return metrics;
  };
  const ProgramResult listed = fathom(with({"--metrics", "test_bleu,test_ppl"}));
  const ProgramResult repeated = fathom(with({"--metrics", "test_bleu", "--metrics", "test_ppl"}));
  ASSERT_EQ(repeated.exit_code, 0) << repeated.err;
  EXPECT_NE(repeated.out.find("Holm family: 2 tests"), std::string::npos) << repeated.out;
  EXPECT_EQ(repeated.out, listed.out);

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

  // A test_ppl test: the same pooling over the runs' stored NLL of every test sentence.
  std::map<std::string, std::vector<fathom::SegmentNll>> nll;  // "lr/seed" -> segments
  for (const auto& r : store.list_runs("v")) {
    const auto tags = store.tags(r.id);
    for (const auto& a : store.artifacts(r.id))
      if (a.kind == "test_nll")
        nll[tags.at("axis.train.lr") + "/" + tags.at("axis.train.seed")] =
            fathom::read_segment_nll_file(a.path);
  }
  ASSERT_EQ(nll.size(), 4u);
  const auto expected_ppl = fathom::pooled_paired_bootstrap_perplexity(
      {{nll.at("0.005/1"), nll.at("0.001/1")}, {nll.at("0.005/2"), nll.at("0.001/2")}}, 200, 12345);
  const ProgramResult ppl =
      fathom({"export", "verdicts", "--sweep", "v", "--rows", "train.lr", "--metrics", "test_ppl",
              "--versus", "0.005", "--paired-bootstrap", "--samples", "200"});
  ASSERT_EQ(ppl.exit_code, 0) << ppl.err;
  char row[160];
  // Sentences are independent: drawn singly, a block of 1.
  std::snprintf(row, sizeof row, "| 0.001 | 0.005 | 2 | %+.2f | [%+.2f, %+.2f] | 1 | %.4f |",
                expected_ppl.difference, expected_ppl.difference_low, expected_ppl.difference_high,
                expected_ppl.p);
  EXPECT_NE(ppl.out.find(row), std::string::npos) << row << "\n" << ppl.out;
  EXPECT_NE(ppl.out.find("Perplexity over its evaluation set"), std::string::npos) << ppl.out;
  EXPECT_NE(ppl.out.find("| test_ppl |"), std::string::npos) << ppl.out;
  // Beside it, the test over both arms' seeds and the test set, as computed here.
  const auto over_seeds = fathom::seed_arms_perplexity({nll.at("0.001/1"), nll.at("0.001/2")},
                                                       {nll.at("0.005/1"), nll.at("0.005/2")});
  // A family of one test: its Holm p is its p.
  std::snprintf(row, sizeof row, "| %.4f | 2/2 | [%+.2f, %+.2f] | %.4f | %.4f | ", expected_ppl.p,
                over_seeds.low, over_seeds.high, over_seeds.p, over_seeds.p);
  EXPECT_NE(ppl.out.find(row), std::string::npos) << row << "\n" << ppl.out;
  const auto bleu_seeds =
      fathom::seed_arms_bleu({hyps.at("0.001/1"), hyps.at("0.001/2")},
                             {hyps.at("0.005/1"), hyps.at("0.005/2")}, refs, 200, 12345);
  std::snprintf(row, sizeof row, "| 2/2 | [%+.2f, %+.2f] | %.4f | %.4f | ", bleu_seeds.low,
                bleu_seeds.high, bleu_seeds.p, bleu_seeds.p);
  EXPECT_NE(v.out.find(row), std::string::npos) << row << "\n" << v.out;

  // `fathom compare --baseline-runs 2`: the same test of the two rates' runs, by hand.
  std::map<std::string, std::string> id;  // "lr/seed" -> run id
  for (const auto& r : store.list_runs("v")) {
    const auto tags = store.tags(r.id);
    id[tags.at("axis.train.lr") + "/" + tags.at("axis.train.seed")] = std::to_string(r.id);
  }
  const ProgramResult compared =
      fathom({"compare", id.at("0.005/1"), id.at("0.005/2"), id.at("0.001/1"), id.at("0.001/2"),
              "--baseline-runs", "2", "--samples", "200"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  const auto sign = [](double x) {  // "+" before a positive difference only, as compare writes
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", x);
    return (x > 0 ? "+" : "") + std::string(text);
  };
  std::snprintf(row, sizeof row, "- test BLEU: mean %.2f vs %.2f, difference ", bleu_seeds.mean_a,
                bleu_seeds.mean_b);
  const std::string bleu_line = std::string(row) + sign(bleu_seeds.difference) + " [" +
                                sign(bleu_seeds.low) + ", " + sign(bleu_seeds.high) + "], p = ";
  EXPECT_NE(compared.out.find(bleu_line), std::string::npos) << bleu_line << "\n" << compared.out;
  EXPECT_NE(compared.out.find("Over seeds and sentences: #" + id.at("0.001/1") + ", #" +
                              id.at("0.001/2") + " as one configuration's seeds against #" +
                              id.at("0.005/1") + ", #" + id.at("0.005/2") + " ("),
            std::string::npos)
      << compared.out;
  // --over-seeds finds the two configurations by their settings but the seed, in any order.
  const ProgramResult found =
      fathom({"compare", id.at("0.005/1"), id.at("0.001/1"), id.at("0.005/2"), id.at("0.001/2"),
              "--over-seeds", "--samples", "200"});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_NE(found.out.find(bleu_line), std::string::npos) << bleu_line << "\n" << found.out;
  const ProgramResult one_each =
      fathom({"compare", id.at("0.005/1"), id.at("0.001/1"), "--over-seeds"});
  EXPECT_NE(one_each.out.find("No test over seeds and sentences: each configuration has one run"),
            std::string::npos)
      << one_each.out;
  const ProgramResult json =
      fathom({"--json", "compare", id.at("0.005/1"), id.at("0.005/2"), id.at("0.001/1"),
              id.at("0.001/2"), "--baseline-runs", "2", "--samples", "200"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_DOUBLE_EQ(j.at("over_seeds").at("perplexity").at("p").get<double>(), over_seeds.p);
  EXPECT_EQ(j.at("over_seeds").at("bleu").at("system_seeds").get<int>(), 2);
  // Each later run's own paired test against the first (whose statistics compare counts once),
  // as computed here from the two files alone.
  for (const char* other : {"0.005/2", "0.001/1", "0.001/2"}) {
    const auto own =
        fathom::paired_bootstrap_bleu(hyps.at("0.005/1"), hyps.at(other), refs, 200, 12345);
    const auto& shown = j.at("paired_bootstrap").at("versus_" + id.at(other));
    EXPECT_EQ(shown.at("p").get<double>(), own.p) << other;
    EXPECT_EQ(shown.at("difference").get<double>(), own.difference) << other;
  }
  const ProgramResult refused =
      fathom({"compare", id.at("0.005/1"), id.at("0.001/1"), "--baseline-runs", "1"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--baseline-runs"), std::string::npos) << refused.err;
}

// A language model whose test text is cut into blocks (data.lm_block > 0): its neighbouring
// sequences share passages, so compare draws them in circular blocks whose length the stored
// NLL decides (Politis & White); documents (lm_block 0) stay single draws. Checked against the
// same test computed here from the files.
TEST_F(CompareCli, ALanguageModelsCutTextIsDrawnInCircularBlocksOfNeighbours) {
  auto config =
      fathom::load_config_file(std::string(FATHOM_SOURCE_DIR) + "/configs/lm-multi30k-en.yaml");
  config.data.lm_block = 64;
  // 300 blocks whose difficulty drifts along the text and whose difference between the two
  // models persists over neighbours (AR(1), phi 0.8).
  std::mt19937_64 rng(4);
  std::normal_distribution<double> e(0, 0.1);
  std::vector<fathom::SegmentNll> a, b;
  double hard = 0, own = 0;
  for (int k = 0; k < 300; ++k) {
    hard = 0.9 * hard + e(rng);
    own = 0.8 * own + e(rng);
    a.push_back({64 * (3 + hard), 64});
    b.push_back({64 * (3 + hard + own), 64});
  }
  {
    auto store = fathom::db::Store::open((dir_ / "runs.db").string());
    for (const std::string name : {"lm/a", "lm/b", "doc-a", "doc-b"}) {
      auto run_config = config;
      if (name.rfind("doc-", 0) == 0) run_config.data.lm_block = 0;
      fathom::db::NewRun run;
      run.name = name;
      run.config_yaml = fathom::config_to_yaml(run_config);
      run.config_json = fathom::config_to_json(run_config).dump();
      const int64_t id = store.create_run(run);
      const fs::path file = dir_ / ("runs.artifacts/run-" + std::to_string(id) + "/test.nll");
      fs::create_directories(file.parent_path());
      std::ofstream(file) << fathom::segment_nll_text(name.back() == 'b' ? b : a);
      store.add_artifact(id, "test_nll", file.string(), 0);
    }
  }
  const size_t block = fathom::serial_block_lengths({{a, b}}).difference;
  ASSERT_GT(block, 1u);
  const auto expected =
      fathom::paired_bootstrap_perplexity(a, b, 400, 12345, fathom::SegmentOrder::serial);
  const ProgramResult json =
      fathom({"--json", "compare", "1", "2", "--samples", "400", "--seed", "12345"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  const auto& test = j["paired_bootstrap_perplexity"]["versus_2"];
  EXPECT_EQ(test["block_length"].get<size_t>(), block);
  EXPECT_TRUE(test["studentised"].get<bool>()) << test.dump();
  // Each model's interval in the blocks its own NLL needs (the shared drift's, here longer).
  EXPECT_EQ(test["score_block_length"].get<size_t>(),
            fathom::serial_block_lengths({{a, b}}).scores);
  EXPECT_DOUBLE_EQ(test["p"].get<double>(), expected.p);
  EXPECT_DOUBLE_EQ(test["difference_ci95"][0].get<double>(), expected.difference_low);
  const ProgramResult text = fathom({"compare", "1", "2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("resampling of 300 sequences in circular blocks of " + std::to_string(block) +
                    " neighbours (1000 draws, Koehn 2004; block length by Politis & White "
                    "2004, studentised as Goetze & Kuensch 1996;"),
      std::string::npos)
      << text.out;
  // Documents are independent: single draws, whatever the files hold.
  const auto docs = nlohmann::json::parse(fathom({"--json", "compare", "3", "4"}).out);
  EXPECT_EQ(docs["paired_bootstrap_perplexity"]["versus_4"]["block_length"].get<size_t>(), 1u)
      << docs.dump();
}

// A finished run of `layers` layers costing `flops` an update: valid_loss at updates 100, 200,
// ... with train_flops beside it; its last loss, a test BLEU and its parameters as final metrics.
int64_t add_costed_run(fathom::db::Store& store, int layers, double flops,
                       const std::vector<double>& losses) {
  fathom::db::NewRun n;
  n.name = "d" + std::to_string(layers);
  n.config_json = "{\"model\": {\"encoder_layers\": " + std::to_string(layers) + "}}";
  const int64_t id = store.create_run(n);
  std::vector<fathom::db::MetricRow> rows;
  for (size_t i = 0; i < losses.size(); ++i) {
    const int64_t step = 100 * static_cast<int64_t>(i + 1);
    rows.emplace_back(step, "valid_loss", losses[i], 0.0);
    rows.emplace_back(step, "train_flops", flops * static_cast<double>(step), 0.0);
  }
  store.write_metrics(id, rows);
  store.set_final_metric(id, "valid_loss", losses.back());
  store.set_final_metric(id, "test_bleu", 20.0 + layers);
  store.set_final_metric(id, "params", 1e6 * layers);  // logged once, at the end
  store.finish_run(id, "finished");
  return id;
}

// --at: each run's metrics as they stood at an equal budget. A 6-layer model (1e12 FLOPs an
// update) ends above an 18-layer one (3e12: 3.0 against 2.5), but at 6e14 FLOPs -- its update
// 600 against the deep one's 200 -- it is below (3.0 against 3.5). Test metrics and numbers
// logged once are left out, said so, and no paired test is made of the final models' outputs.
TEST_F(CompareCli, AtABudgetEachRunsMetricsAsTheyStoodThen) {
  {
    auto store = fathom::db::Store::open(db());
    add_costed_run(store, 6, 1e12, {5.0, 4.2, 3.8, 3.4, 3.2, 3.0});
    add_costed_run(store, 18, 3e12, {4.4, 3.5, 3.0, 2.8, 2.6, 2.5});
  }
  const ProgramResult end = fathom({"compare", "1", "2"});
  ASSERT_EQ(end.exit_code, 0) << end.err;
  EXPECT_NE(end.out.find("| valid\\_loss | 3 | 2.5 |"), std::string::npos) << end.out;

  const ProgramResult at = fathom({"compare", "1", "2", "--at", "compute=6e14"});
  ASSERT_EQ(at.exit_code, 0) << at.err;
  EXPECT_NE(at.out.find("Metrics at compute <= 6e+14 FLOPs (each run's last point inside it)"),
            std::string::npos)
      << at.out;
  EXPECT_NE(at.out.find("| valid\\_loss | 3 | 3.5 |"), std::string::npos) << at.out;
  EXPECT_EQ(at.out.find("Final metrics"), std::string::npos) << at.out;
  EXPECT_NE(at.out.find("- test_bleu: measured once, at the end of training"), std::string::npos)
      << at.out;
  EXPECT_NE(at.out.find("- params: no run has a point of it inside the budget"), std::string::npos)
      << at.out;
  EXPECT_NE(at.out.find("No paired BLEU test: the test outputs each run stored are its final "
                        "model's, not its model at the budget."),
            std::string::npos)
      << at.out;

  // The least the finished runs reached is the shallow one's 6e14: the same reading, and JSON.
  const ProgramResult least = fathom({"--json", "compare", "1", "2", "--at", "compute=least"});
  ASSERT_EQ(least.exit_code, 0) << least.err;
  const auto j = nlohmann::json::parse(least.out);
  EXPECT_EQ(j["at_budget"]["at"], "compute=6e+14") << j.dump();
  EXPECT_EQ(j["at_budget"]["metrics"]["valid_loss"], (nlohmann::json{3.0, 3.5})) << j.dump();
  EXPECT_FALSE(j["at_budget"]["metrics"].contains("test_bleu"));
  EXPECT_TRUE(j["paired_bootstrap"].contains("skipped")) << j.dump();

  // Past the shallow run's end it is short of the budget: no value, named.
  const ProgramResult past = fathom({"compare", "1", "2", "--at", "compute=1.2e15"});
  ASSERT_EQ(past.exit_code, 0) << past.err;
  EXPECT_NE(past.out.find("| valid\\_loss | - | 2.8 |"), std::string::npos) << past.out;

  // The tests over seeds and the test set are the final models': refused with --at, named.
  const ProgramResult refused = fathom({"compare", "1", "2", "--at", "update=200", "--over-seeds"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--at"), std::string::npos) << refused.err;
  const ProgramResult bad = fathom({"compare", "1", "2", "--at", "flops=3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'flops=3'"), std::string::npos) << bad.err;
}

}  // namespace test_compare_cli
