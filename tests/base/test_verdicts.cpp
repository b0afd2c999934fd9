// One Holm family per study (experiments/verdicts.h): Holm's adjustment on the textbook
// example, Welch-Satterthwaite degrees of freedom worked by hand, and a study whose tests --
// two metrics, two reference rows, two columns -- form one family with each pair once, the
// seeds an inconclusive test would need beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "base/metrics/power.h"
#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "db/store.h"
#include "experiments/verdicts.h"
#include "tests/support/temp_dir.h"

namespace test_verdicts {
using namespace fathom;

// The Holm-Bonferroni method's standard example (four hypotheses, alpha 0.05): p = 0.01, 0.04,
// 0.03, 0.005. Sorted 0.005, 0.01, 0.03, 0.04 face 0.05/4, 0.05/3, 0.05/2, 0.05: the first two
// are rejected, 0.03 > 0.025 stops the procedure. Adjusted: 4 x 0.005 = 0.02, 3 x 0.01 = 0.03,
// 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06 -- below 0.05 exactly where rejected.
TEST(Verdicts, HolmOnTheTextbookExample) {
  const auto adjusted = holm_adjust({0.01, 0.04, 0.03, 0.005});
  EXPECT_NEAR(adjusted[0], 0.03, 1e-15);
  EXPECT_NEAR(adjusted[1], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[2], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[3], 0.02, 1e-15);
}

// a = {1, 2, 3}: s^2 = 1, s^2/n = 1/3; b = {2, 4, 6}: s^2 = 4, s^2/n = 4/3. Welch-Satterthwaite:
// (1/3 + 4/3)^2 / ((1/3)^2 / 2 + (4/3)^2 / 2) = (25/9) / (17/18) = 50/17 = 2.941;
// t = (2 - 4) / sqrt(5/3) = -1.549.
TEST(Verdicts, WelchSatterthwaiteDegreesOfFreedomByHand) {
  const auto w = welch_t_test({1, 2, 3}, {2, 4, 6});
  ASSERT_TRUE(w);
  EXPECT_NEAR(w->df, 50.0 / 17, 1e-12);
  EXPECT_NEAR(w->t, -2 / std::sqrt(5.0 / 3), 1e-12);
}

experiments::TableRun study_run(int64_t id, const std::string& method, const std::string& depth,
                                double loss, double bleu) {
  experiments::TableRun r;
  r.id = id;
  r.status = "finished";
  r.axes = {{"model.norm", method}, {"model.layers", depth}, {"train.seed", std::to_string(id)}};
  r.final_metrics = {{"valid_loss", loss}, {"test_bleu", bleu}};
  return r;
}

// Methods a, b, c at depths 6 and 18, three seeds each; tested on two metrics against a and
// against b. Per metric and depth the pairs are (b, a), (c, a), (c, b) -- (a, b) is (b, a)
// again -- so the family holds 2 x 2 x 3 = 12 tests and 4 duplicates.
TEST(Verdicts, AStudyIsOneFamilyWithEachPairOnce) {
  std::vector<experiments::TableRun> runs;
  int64_t id = 0;
  for (const std::string depth : {"6", "18"})
    for (const auto& [method, base] : {std::pair{"a", 2.0}, {"b", 3.0}, {"c", 2.1}})
      for (double noise : {-1.0, 0.0, 1.0}) {
        ++id;
        runs.push_back(study_run(id, method, depth, base + noise, 20 + base + 0.5 * noise));
      }
  experiments::VerdictOptions o;
  o.table.rows = "model.norm";
  o.table.cols = "model.layers";
  o.metrics = {"valid_loss", "test_bleu"};
  o.versus = {"a", "b"};
  const auto family = experiments::build_verdicts(runs, o);
  ASSERT_EQ(family.tests.size(), 12u);
  EXPECT_EQ(family.duplicates, 4);
  EXPECT_NEAR(family.planning_alpha(), 0.05 / 12, 1e-15);

  std::vector<double> raw;
  for (const auto& t : family.tests) raw.push_back(t.p_raw);
  const auto adjusted = holm_adjust(raw);
  for (size_t i = 0; i < family.tests.size(); ++i) {
    EXPECT_DOUBLE_EQ(family.tests[i].p_holm, adjusted[i]) << i;
    EXPECT_EQ(family.tests[i].decided, adjusted[i] < 0.05) << i;
  }
  // valid_loss, depth 6, b vs a: {2, 3, 4} against {1, 2, 3}: s = 1 on both sides,
  // t = 1 / sqrt(2/3) = 1.22, df = (2/3)^2 / (2 (1/3)^2 / 2) = 4, p = 0.29.
  const auto& ba = family.tests[0];
  EXPECT_EQ(ba.metric, "valid_loss");
  EXPECT_EQ(ba.column, "6");
  EXPECT_EQ(ba.row, "b");
  EXPECT_EQ(ba.versus, "a");
  EXPECT_DOUBLE_EQ(ba.mean_row - ba.mean_versus, 1.0);
  EXPECT_DOUBLE_EQ(ba.p_raw, welch_t_test({2, 3, 4}, {1, 2, 3})->p);
  // Inconclusive: d = 1 / 1 = 1, planned at alpha 0.05/12.
  ASSERT_FALSE(ba.decided);
  ASSERT_TRUE(ba.effect);
  EXPECT_DOUBLE_EQ(*ba.effect, 1.0);
  EXPECT_EQ(ba.seeds_needed, seeds_for_power(1.0, 0.05 / 12));
  EXPECT_EQ(experiments::verdict_text(ba), "inconclusive at 3 seeds; about " +
                                               std::to_string(*ba.seeds_needed) +
                                               " per arm would decide it");
  // The runs behind each mean, by seed: b at depth 6 is runs 4-6, a runs 1-3.
  EXPECT_EQ(ba.row_runs, (std::map<std::string, int64_t>{{"4", 4}, {"5", 5}, {"6", 6}}));
  EXPECT_EQ(ba.versus_runs.size(), 3u);
  // c against b under --versus b is listed once, as (c, b).
  int cb = 0;
  for (const auto& t : family.tests) cb += t.row == "c" && t.versus == "b";
  EXPECT_EQ(cb, 4);

  const std::string md = experiments::verdicts_to_markdown(family);
  EXPECT_NE(md.find("Holm family: 12 tests, family-wise alpha 0.050"), std::string::npos) << md;
  EXPECT_NE(md.find("4 tests met again under another reference row"), std::string::npos) << md;
  const std::string csv = experiments::verdicts_to_csv(family);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 13);
}

// What the verdict column says: a decided test its direction; an inconclusive one the seeds
// planned, or, when the observed difference would already be found at the seeds it has, that
// a few more would do (a plan is a probability, not a promise); no difference, no plan.
TEST(Verdicts, TheVerdictSaysWhatWouldDecideIt) {
  experiments::VerdictTest t;
  t.n_row = t.n_versus = 3;
  t.mean_row = 1.0;
  t.mean_versus = 2.0;
  t.decided = true;
  EXPECT_EQ(experiments::verdict_text(t), "decided: lower");
  t.decided = false;
  t.effect = -1.0;
  t.seeds_needed = 9;
  EXPECT_EQ(experiments::verdict_text(t),
            "inconclusive at 3 seeds; about 9 per arm would decide it");
  t.seeds_needed = 3;
  EXPECT_EQ(experiments::verdict_text(t),
            "inconclusive at 3 seeds, though 3 per arm would detect the observed difference most "
            "of the time: a few more would decide it");
  t.n_versus = 2;
  t.seeds_needed.reset();
  t.mean_row = t.mean_versus;
  EXPECT_EQ(experiments::verdict_text(t), "inconclusive at 3 and 2 seeds; no difference observed");
}

// From a store (`fathom export verdicts`): the same family as from the runs in memory, and
// --where keeps part of the study (one depth: half the tests) and says so.
TEST(Verdicts, FromAStoredStudy) {
  fathom::testing::TempDir scratch;
  const std::string path = scratch.file("study.db");
  std::vector<experiments::TableRun> runs;
  {
    auto store = db::Store::open(path);
    int64_t k = 0;
    for (const std::string depth : {"6", "18"})
      for (const auto& [method, base] : {std::pair{"a", 2.0}, {"b", 3.0}, {"c", 2.1}})
        for (double noise : {-1.0, 0.0, 0.5}) {
          runs.push_back(study_run(++k, method, depth, base + noise, 20 + base - noise));
          db::NewRun n;
          n.name = "v/" + std::to_string(k);
          n.sweep = "v";
          n.config_json = R"({"model":{"norm":")" + std::string(method) + R"(","layers":)" + depth +
                          "}}";  // what --where reads
          const int64_t id = store.create_run(n);
          for (const auto& [key, value] : runs.back().axes) store.set_tag(id, "axis." + key, value);
          for (const auto& [name, value] : runs.back().final_metrics)
            store.set_final_metric(id, name, value);
          store.finish_run(id, "finished");
        }
  }
  experiments::VerdictOptions o;
  o.table.rows = "model.norm";
  o.table.cols = "model.layers";
  o.metrics = {"valid_loss", "test_bleu"};
  o.versus = {"a"};
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto stored = experiments::sweep_verdicts(store, "v", o);
  const auto memory = experiments::build_verdicts(runs, o);
  ASSERT_EQ(stored.tests.size(), 8u);  // 2 metrics x 2 depths x (b, c) against a
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(stored.tests[i].p_raw, memory.tests[i].p_raw) << i;
    EXPECT_DOUBLE_EQ(stored.tests[i].p_holm, memory.tests[i].p_holm) << i;
  }
  const auto six = experiments::sweep_verdicts(store, "v", o, "layers=6");
  EXPECT_EQ(six.tests.size(), 4u);
  EXPECT_EQ(six.notes.back(), "only the runs where layers=6 (9 of 18)");
  for (const auto& note : stored.notes)  // every run computed alike: nothing said
    EXPECT_EQ(note.find("computed differently"), std::string::npos) << note;

  // Two of the runs as if computed on another machine's OpenBLAS kernels: the family says so.
  {
    auto writable = db::Store::open(path);
    writable.set_tag(1, "blas.core", "Haswell");
    writable.set_tag(2, "blas.core", "Haswell");
  }
  const auto mixed =
      experiments::sweep_verdicts(db::Store::open(path, db::OpenMode::ReadOnly), "v", o);
  bool noted = false;
  for (const auto& note : mixed.notes)
    noted |= note.find("blas.core: Haswell (#1-#2), not recorded (#3-#18)") != std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(mixed.notes);
}

TEST(Verdicts, BadOptionsNameTheirField) {
  experiments::VerdictOptions o;
  o.table.rows = "model.norm";
  o.versus = {"a"};
  for (auto [field, change] :
       {std::pair<std::string, std::function<void(experiments::VerdictOptions&)>>{
            "--metrics", [](auto& x) { x.metrics.clear(); }},
        {"--versus", [](auto& x) { x.versus.clear(); }},
        {"--alpha", [](auto& x) { x.alpha = 1.5; }}}) {
    experiments::VerdictOptions bad = o;
    bad.metrics = {"valid_loss"};
    change(bad);
    try {
      experiments::build_verdicts({study_run(1, "a", "6", 1, 1)}, bad);
      FAIL() << field << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field);
    }
  }
}

}  // namespace test_verdicts
