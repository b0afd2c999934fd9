// A fork sweep's configurations over their seeds (experiments/report_fork_seeds.h): runs alike
// but for the seed are one configuration; one of two seeds or more is tested against the parent
// with its seeds' spread and the test set's shared error (base/metrics/seed_pooled_test.h),
// the p-values adjusted over the configurations; a configuration of one seed is left to the
// runs' own table; one whose runs cannot be tested says why; the choice on validation is marked.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "db/records.h"
#include "experiments/report_fork_seeds.h"

namespace test_report_fork_seeds {
using namespace fathom;
using Axes = std::map<std::string, std::string>;

db::RunRecord run(int64_t id, double valid_loss, const std::string& status = "finished") {
  db::RunRecord r;
  r.id = id;
  r.name = "rescue/" + std::to_string(id);
  r.status = status;
  r.final_metrics["valid_loss"] = valid_loss;
  return r;
}

TEST(ForkSeedGroups, RunsAlikeButForTheSeedAreOneConfiguration) {
  const std::vector<Axes> axes = {{{"train.lr", "1"}, {"train.seed", "1"}},
                                  {{"train.lr", "2"}, {"train.seed", "1"}},
                                  {{"train.lr", "1"}, {"train.seed", "2"}},
                                  {{"train.lr", "3"}, {"seed", "1"}},
                                  {{"train.lr", "2"}, {"train.seed", "2"}}};
  const std::vector<experiments::SeedGroup> groups = experiments::seed_groups(axes);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].label, "train.lr=1");
  EXPECT_EQ(groups[0].runs, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(groups[1].label, "train.lr=2");
  EXPECT_EQ(groups[1].runs, (std::vector<size_t>{1, 4}));
  EXPECT_EQ(groups[2].runs, (std::vector<size_t>{3}));
}

// Thirty sequences of 20 tokens, nats a token 3.1 + (k mod 5) / 100, shifted by `by`.
std::vector<SegmentNll> text(double by) {
  std::vector<SegmentNll> out;
  for (int k = 0; k < 30; ++k) out.push_back({20 * (3.1 + (k % 5) / 100.0 + by), 20});
  return out;
}

TEST(ForkSeedVerdicts, TestsEachConfigurationOfTwoSeedsOrMoreOverItsSeeds) {
  const db::RunRecord parent = run(1, 3.0);
  // lr=1: three seeds better by 0.10-0.12 nats a token; lr=2: two seeds a little worse (0.004
  // and 0.010), too few to tell; lr=3: one seed (the runs' table judges it); lr=4: its files
  // are gone.
  const std::vector<db::RunRecord> runs = {run(2, 2.8), run(3, 2.9), run(4, 2.85), run(5, 3.0),
                                           run(6, 3.1), run(7, 2.0), run(8, 3.5),  run(9, 3.5)};
  const std::map<int64_t, std::vector<SegmentNll>> nll = {
      {1, text(0)},     {2, text(-0.10)}, {3, text(-0.11)}, {4, text(-0.12)},
      {5, text(0.010)}, {6, text(0.004)}, {7, text(-0.5)}};
  const std::vector<Axes> axes = {
      {{"train.lr", "1"}, {"train.seed", "1"}}, {{"train.lr", "1"}, {"train.seed", "2"}},
      {{"train.lr", "1"}, {"train.seed", "3"}}, {{"train.lr", "2"}, {"train.seed", "1"}},
      {{"train.lr", "2"}, {"train.seed", "2"}}, {{"train.lr", "3"}, {"train.seed", "1"}},
      {{"train.lr", "4"}, {"train.seed", "1"}}, {{"train.lr", "4"}, {"train.seed", "2"}}};
  std::vector<std::vector<db::RunRecord>> asked;
  const experiments::SeedPooledTester test = [&](const db::RunRecord& baseline,
                                                 const std::vector<db::RunRecord>& seeds) {
    asked.push_back(seeds);
    experiments::PairedTestResult r;
    r.metric = "test_ppl";
    r.segments_are = "sequences";
    std::vector<std::vector<SegmentNll>> systems;
    for (const auto& s : seeds) {
      if (!nll.count(s.id)) {
        r.why_not = "run " + std::to_string(s.id) + " kept no test NLL";
        return r;
      }
      systems.push_back(nll.at(s.id));
    }
    r.pooled = seed_pooled_perplexity(nll.at(baseline.id), systems);
    return r;
  };
  std::ostringstream out;
  experiments::fork_seed_verdicts_section(out, parent, runs, axes, test, "valid_loss");
  const std::string report = out.str();
  ASSERT_EQ(asked.size(), 3u) << "lr=3's one seed is not asked";
  EXPECT_EQ(asked[0].size(), 3u);
  EXPECT_NE(report.find("### The configurations over their seeds"), std::string::npos) << report;
  EXPECT_NE(report.find("p adjusted over the 2 configurations (Holm 1979)"), std::string::npos)
      << report;
  // lr=1's mean perplexity: every sequence of a run has one rate, 3.12 - by on average.
  const double mean = (std::exp(3.02) + std::exp(3.01) + std::exp(3.0)) / 3;
  char expected[64];
  std::snprintf(expected, sizeof expected, "| train.lr=1 \\* | 3 | %.3f | %+.3f [", mean,
                mean - std::exp(3.12));
  EXPECT_NE(report.find(expected), std::string::npos) << report;
  // lr=1 is marked: lowest mean valid_loss (2.85) among those of two seeds or more -- lr=3's
  // 2.0 is one seed, lr=4's 3.5 is higher.
  EXPECT_NE(report.find("(the lowest mean final valid_loss over its seeds)"), std::string::npos)
      << report;
  const auto row = [&](const std::string& label) {
    const size_t at = report.find("| " + label + " ");
    return at == std::string::npos ? std::string() : report.substr(at, report.find('\n', at) - at);
  };
  EXPECT_NE(row("train.lr=1 \\*").find("| better |"), std::string::npos) << report;
  EXPECT_NE(row("train.lr=2").find("| inconclusive |"), std::string::npos) << report;
  EXPECT_EQ(row("train.lr=3"), "") << "one seed: not a row";
  EXPECT_EQ(row("train.lr=4"), "| train.lr=4 | 2 | - | - | - | - | - | - | no test | - |")
      << report;
  // lr=2 is inconclusive: its seeds to decide are said (the better lr=1 has "-").
  EXPECT_NE(row("train.lr=1 \\*").find("| better | - |"), std::string::npos) << report;
  // Recomputed: its test, planned at 0.05 / 2 (two configurations tested).
  const fathom::SeedsToDecide plan =
      fathom::seeds_to_decide(seed_pooled_perplexity(nll.at(1), {nll.at(5), nll.at(6)}), 0.025);
  const std::string said =
      plan.test_set_limits ? "none: a larger test set" : "about " + std::to_string(plan.seeds);
  EXPECT_NE(row("train.lr=2").find("| inconclusive | " + said + " |"), std::string::npos)
      << said << "\n"
      << report;
  EXPECT_NE(report.find("No test of train.lr=4: run 8 kept no test NLL."), std::string::npos)
      << report;
}

// A language model's cut text: the section says the flat-top window the shared error took.
TEST(ForkSeedVerdicts, SaysTheWindowOfACutText) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> e(0, 0.05);
  std::vector<std::vector<SegmentNll>> nll(3);
  for (auto& series : nll) {
    double own = 0;
    for (int k = 0; k < 300; ++k) {
      own = 0.8 * own + e(rng);
      series.push_back({20 * (3 + own), 20});
    }
  }
  const experiments::SeedPooledTester test = [&](const db::RunRecord&,
                                                 const std::vector<db::RunRecord>&) {
    experiments::PairedTestResult r;
    r.metric = "test_ppl";
    r.segments_are = "sequences";
    r.pooled = seed_pooled_perplexity(nll[0], {nll[1], nll[2]}, SegmentOrder::serial);
    return r;
  };
  const size_t window =
      seed_pooled_perplexity(nll[0], {nll[1], nll[2]}, SegmentOrder::serial).lag_window;
  ASSERT_GT(window, 0u);
  std::ostringstream out;
  experiments::fork_seed_verdicts_section(out, run(1, 3.0), {run(2, 2.9), run(3, 2.9)},
                                          {{{"train.seed", "1"}}, {{"train.seed", "2"}}}, test,
                                          "valid_loss");
  EXPECT_NE(out.str().find("The text's neighbouring sequences err alike: the shared error is "
                           "their long-run variance over a flat-top window of " +
                           std::to_string(window) + " lags"),
            std::string::npos)
      << out.str();
}

TEST(ForkSeedVerdicts, NothingWhereEveryConfigurationHasOneSeed) {
  const std::vector<db::RunRecord> runs = {run(2, 2.8), run(3, 2.9)};
  const std::vector<Axes> axes = {{{"train.lr", "1"}}, {{"train.lr", "2"}}};
  bool asked = false;
  const experiments::SeedPooledTester test = [&](const db::RunRecord&,
                                                 const std::vector<db::RunRecord>&) {
    asked = true;
    return experiments::PairedTestResult{};
  };
  std::ostringstream out;
  experiments::fork_seed_verdicts_section(out, run(1, 3.0), runs, axes, test, "valid_loss");
  EXPECT_EQ(out.str(), "");
  EXPECT_FALSE(asked);
}

// No configuration could be tested (the runs kept no files): the section still says which
// configuration a choice on validation takes -- the runs' table above marks none, leaving the
// choice to the configurations -- and has_seed_group tells the report so.
TEST(ForkSeedVerdicts, UntestedConfigurationsStillNameTheChoiceOnValidation) {
  // lr=1: mean valid_loss (2.8 + 3.0) / 2 = 2.9; lr=2: (2.7 + 3.3) / 2 = 3.0, though its
  // seed 1 (2.7) is the best single run.
  const std::vector<db::RunRecord> runs = {run(2, 2.8), run(3, 2.7), run(4, 3.0), run(5, 3.3)};
  const std::vector<Axes> axes = {{{"train.lr", "1"}, {"train.seed", "1"}},
                                  {{"train.lr", "2"}, {"train.seed", "1"}},
                                  {{"train.lr", "1"}, {"train.seed", "2"}},
                                  {{"train.lr", "2"}, {"train.seed", "2"}}};
  EXPECT_TRUE(experiments::has_seed_group(axes));
  EXPECT_FALSE(experiments::has_seed_group({{{"train.lr", "1"}}, {{"train.lr", "2"}}}));
  const experiments::SeedPooledTester test = [](const db::RunRecord&,
                                                const std::vector<db::RunRecord>&) {
    experiments::PairedTestResult r;
    r.why_not = "run 2 has no stored test hypotheses";
    return r;
  };
  std::ostringstream out;
  experiments::fork_seed_verdicts_section(out, run(1, 3.0), runs, axes, test, "valid_loss");
  EXPECT_NE(out.str().find("run 2 has no stored test hypotheses. A choice on validation takes "
                           "train.lr=1 (the lowest mean final valid_loss over its seeds)."),
            std::string::npos)
      << out.str();
}

}  // namespace test_report_fork_seeds
