// Every reader of runs' values at an equal budget (experiments/value_at_budget.h:
// read_run_values): a study's verdicts, LR sensitivity and transfer, and importance take each
// run's last point inside `--at`, not its end. Hand-made curves where the budget turns the
// answer around: an 18-layer model that ends ahead of a 6-layer one is behind at equal
// compute (it spent 3x the FLOPs an update); a rate that diverged after the budget counts as
// it stood there.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/hparam_importance.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/lr_transfer.h"
#include "experiments/value_at_budget.h"
#include "experiments/verdicts.h"
#include "tests/support/temp_dir.h"

using namespace fathom;

namespace test_readers_at_budget {

struct Curve {
  std::vector<std::pair<std::string, std::string>> axes;  // axis key -> value
  double flops_per_update;
  std::vector<double> valid_loss;  // at updates 100, 200, ...
  std::string status = "finished";
  std::optional<int64_t> diverged_at;
};

// Each run logs valid_loss, target_tokens and train_flops every 100 updates, and its final
// valid_loss is its last point (a run that stops improving never comes back).
void store_curves(const std::string& path, const std::vector<Curve>& curves) {
  auto store = db::Store::open(path);
  int n = 0;
  for (const Curve& c : curves) {
    db::NewRun run;
    run.name = "s/" + std::to_string(++n);
    run.sweep = "s";
    const int64_t id = store.create_run(run);
    std::string axes;
    for (const auto& [key, value] : c.axes) {
      store.set_tag(id, "axis." + key, value);
      if (key != "train.seed") axes += (axes.empty() ? "" : ",") + key;
    }
    store.set_tag(id, "sweep.axes", axes);
    std::vector<db::MetricRow> rows;
    rows.emplace_back(0, db::metric::kValidLoss, 8.0, 0.0);  // l0, before the first update
    for (size_t i = 0; i < c.valid_loss.size(); ++i) {
      const int64_t step = 100 * static_cast<int64_t>(i + 1);
      rows.emplace_back(step, db::metric::kValidLoss, c.valid_loss[i], 0.0);
      rows.emplace_back(step, db::metric::kTargetTokens, 1000.0 * step, 0.0);
      rows.emplace_back(step, db::metric::kTrainFlops, c.flops_per_update * step, 0.0);
    }
    store.write_metrics(id, rows);
    store.set_final_metric(id, db::metric::kValidLoss, c.valid_loss.back());
    store.finish_run(id, c.status, "", c.diverged_at);
  }
}

bool has(const std::vector<std::string>& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// 3 seeds of a 6-layer model (1e12 FLOPs an update) and of an 18-layer one (3e12), 600 updates
// each: the deep one ends lower (2.51 against 3.01 on average) but at 6e14 FLOPs -- the
// shallow model's update 600, the deep one's 200 -- it stands at 3.51.
std::vector<Curve> depth_study() {
  std::vector<Curve> c;
  for (int seed = 0; seed < 3; ++seed) {
    const double e = 0.01 * seed;
    const std::string s = std::to_string(seed + 1);
    c.push_back({{{"model.layers", "6"}, {"train.seed", s}},
                 1e12,
                 {5.0 + e, 4.2 + e, 3.8 + e, 3.4 + e, 3.2 + e, 3.0 + e}});
    c.push_back({{{"model.layers", "18"}, {"train.seed", s}},
                 3e12,
                 {4.4 + e, 3.5 + e, 3.0 + e, 2.8 + e, 2.6 + e, 2.5 + e}});
  }
  return c;
}

experiments::VerdictOptions depth_verdicts() {
  experiments::VerdictOptions o;
  o.table.rows = "model.layers";
  o.metrics = {db::metric::kValidLoss};
  o.versus = {"6"};
  return o;
}

TEST(ReadersAtBudget, AVerdictAtEqualComputeCanReverseTheOneAtTheEnd) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_curves(path, depth_study());
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);

  const auto at_end = experiments::sweep_verdicts(store, "s", depth_verdicts());
  ASSERT_EQ(at_end.tests.size(), 1u);
  EXPECT_NEAR(at_end.tests[0].mean_row, 2.51, 1e-12);
  EXPECT_NEAR(at_end.tests[0].mean_versus, 3.01, 1e-12);
  EXPECT_EQ(experiments::verdict_text(at_end.tests[0]), "decided: lower");

  auto options = depth_verdicts();
  options.table.at = experiments::parse_budget("compute=6e14", "test");
  const auto at_budget = experiments::sweep_verdicts(store, "s", options);
  ASSERT_EQ(at_budget.tests.size(), 1u);
  EXPECT_NEAR(at_budget.tests[0].mean_row, 3.51, 1e-12);  // the deep model's update 200
  EXPECT_NEAR(at_budget.tests[0].mean_versus, 3.01, 1e-12);
  EXPECT_EQ(at_budget.tests[0].n_row, 3);
  EXPECT_EQ(experiments::verdict_text(at_budget.tests[0]), "decided: higher");
  EXPECT_TRUE(has(at_budget.notes, "each run's last value at compute <= 6e+14 FLOPs"));

  // Past the shallow model's 6e14 total: its three runs are short of it and named; nothing is
  // left to test.
  options.table.at = experiments::parse_budget("compute=9e14", "test");
  const auto beyond = experiments::sweep_verdicts(store, "s", options);
  EXPECT_TRUE(beyond.tests.empty());
  EXPECT_TRUE(has(beyond.notes, "3 runs short of compute <= 9e+14 FLOPs, left out: #1, #3, #5"));
}

// `--at compute=least`: the least compute any finished run reached -- the shallow model's whole
// training, 6e14 -- found from the runs, said in the notes, the same family as the number given.
TEST(ReadersAtBudget, TheLeastBudgetIsTheCheapestFinishedRunsWholeTraining) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_curves(path, depth_study());
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  auto options = depth_verdicts();
  options.table.at = experiments::parse_budget("compute=least", "test");
  EXPECT_TRUE(options.table.at->least);
  EXPECT_DOUBLE_EQ(options.table.at->tolerance, experiments::kLeastTolerance);
  const auto least = experiments::sweep_verdicts(store, "s", options);
  ASSERT_EQ(least.tests.size(), 1u);
  EXPECT_NEAR(least.tests[0].mean_row, 3.51, 1e-12);
  EXPECT_NEAR(least.tests[0].mean_versus, 3.01, 1e-12);
  EXPECT_TRUE(has(least.notes, "compute <= 6e+14 FLOPs (within 2 %): the least any finished run"))
      << least.notes.back();
  EXPECT_TRUE(has(least.notes, "each run's last value at compute <= 6e+14 FLOPs (within 2 %)"));

  // update=least: the fewest updates (all 600 here), rounding only.
  const auto updates = experiments::parse_budget("update=least", "test");
  EXPECT_LT(updates.tolerance, 1e-9);
  const auto found = experiments::resolve_least(updates, store, {1, 2}, "test");
  EXPECT_DOUBLE_EQ(found.x, 600);
  EXPECT_FALSE(found.least);
  // No finished run to take the least of: refused, naming --at.
  try {
    experiments::resolve_least(updates, store, {}, "fathom export table");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--at"), std::string::npos) << e.what();
  }
}

// Runs stored before target tokens were logged: update=least takes each run's last update from
// its losses -- 300 of a run whose train_loss ends there, beside one whose only curve, its
// valid_loss, ends at 500. compute=least still needs train_flops, and says so.
TEST(ReadersAtBudget, TheLeastUpdateOfRunsWithoutTargetTokensIsTheirLossesLast) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  std::vector<int64_t> ids;
  {
    auto store = db::Store::open(path);
    for (const auto& [name, last] :
         {std::pair{db::metric::kTrainLoss, 300}, {db::metric::kValidLoss, 500}}) {
      db::NewRun n;
      n.name = name;
      const int64_t id = store.create_run(n);
      store.write_metrics(id, {{100, name, 3.0, 0.0}, {last, name, 2.0, 0.0}});
      store.finish_run(id, "finished");
      ids.push_back(id);
    }
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto found = experiments::resolve_least(experiments::parse_budget("update=least", "test"),
                                                store, ids, "test");
  EXPECT_DOUBLE_EQ(found.x, 300);
  try {
    experiments::resolve_least(experiments::parse_budget("compute=least", "test"), store, ids,
                               "fathom export table");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("train_flops"), std::string::npos) << e.what();
  }
}

// Two rates x 2 seeds of one model: 1e-3 ends at 2.0, but 3e-3 learns faster (2.4 at update
// 100 against 3.0) and diverges at update 200. At update 100 neither rate diverged and the
// sensitivity is over those values; importance of `diverged` at that budget is nil.
std::vector<Curve> rate_study() {
  std::vector<Curve> c;
  for (const char* seed : {"1", "2"}) {
    c.push_back({{{"train.lr", "0.001"}, {"train.seed", seed}}, 1e12, {3.0, 2.0}});
    c.push_back({{{"train.lr", "0.003"}, {"train.seed", seed}}, 1e12, {2.4, NAN}, "diverged", 200});
  }
  return c;
}

TEST(ReadersAtBudget, LrSensitivityAtABudgetTakesEachRateAsItStoodThere) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_curves(path, rate_study());
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);

  const auto at_end = experiments::load_lr_sensitivity(store, "s", db::metric::kValidLoss);
  ASSERT_EQ(at_end.curves.size(), 1u);
  EXPECT_DOUBLE_EQ(at_end.curves[0].best_lr, 0.001);  // 3e-3 diverged: l0 = 8

  experiments::RunReading update_100(experiments::parse_budget("update=100", "test"));
  const auto early =
      experiments::load_lr_sensitivity(store, "s", db::metric::kValidLoss, update_100);
  ASSERT_EQ(early.curves.size(), 1u);
  const auto& points = early.curves[0].points;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_DOUBLE_EQ(points[0].mean, 3.0);
  EXPECT_DOUBLE_EQ(points[1].mean, 2.4);
  EXPECT_EQ(points[1].diverged, 0);
  EXPECT_DOUBLE_EQ(early.curves[0].best_lr, 0.003);
  EXPECT_TRUE(has(early.notes, "at update <= 100: every rate compared at an equal budget"));

  // At 250 updates: the diverged runs count (inside the budget), the others had stopped at 200
  // -- short of it, named, and counted as not there. The rate stays on the grid: one rate with
  // a value is no curve's sensitivity.
  experiments::RunReading update_250(experiments::parse_budget("update=250", "test"));
  const auto late =
      experiments::load_lr_sensitivity(store, "s", db::metric::kValidLoss, update_250);
  EXPECT_TRUE(has(late.notes, "2 runs short of update <= 250, left out: #1, #3"));
  EXPECT_TRUE(has(late.notes, "(2 not at the budget)"));
  EXPECT_EQ(late.budget_notes.size(), 1u);
  ASSERT_EQ(late.curves.size(), 1u);
  EXPECT_TRUE(std::isnan(late.curves[0].sensitivity));
}

TEST(ReadersAtBudget, ImportanceOfDivergenceIsCountedAtTheBudget) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_curves(path, rate_study());
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  // At the end the rate explains all of `diverged` (0, 0 against 1, 1).
  const auto at_end = experiments::load_hparam_importance(store, "s", experiments::kDivergedMetric,
                                                          experiments::RunValue::Final, "");
  ASSERT_EQ(at_end.terms.size(), 1u);
  EXPECT_DOUBLE_EQ(at_end.total_variance, 0.25);  // settings' means 0 and 1
  // At update 100 nothing had diverged: no variance to explain.
  const auto early = experiments::load_hparam_importance(
      store, "s", experiments::kDivergedMetric,
      experiments::RunReading(experiments::parse_budget("update=100", "test")), "");
  EXPECT_DOUBLE_EQ(early.total_variance, 0.0);
  EXPECT_TRUE(has(early.notes, "each run as it stood at update <= 100"));
  // And the loss there: 3.0 against 2.4, the rate all of it.
  const auto loss = experiments::load_hparam_importance(
      store, "s", db::metric::kValidLoss,
      experiments::RunReading(experiments::parse_budget("update=100", "test")), "");
  EXPECT_NEAR(loss.total_variance, 0.09, 1e-12);  // ((3.0 - 2.7)^2 + (2.4 - 2.7)^2) / 2
}

// LR transfer across depths at a token budget: each depth's runs cut at it, the runs short of
// it named with their depth.
TEST(ReadersAtBudget, LrTransferNamesEachDepthsRunsShortOfTheBudget) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  std::vector<Curve> curves;
  for (const char* depth : {"6", "12"})
    for (const char* lr : {"0.001", "0.002", "0.004"}) {
      const double shift = std::string(depth) == "6" ? 0.0 : 0.1;
      const double bowl = std::string(lr) == "0.002" ? 0.0 : 0.5;
      curves.push_back({{{"model.layers", depth}, {"train.lr", lr}, {"train.seed", "1"}},
                        1e12,
                        {4.0 + bowl + shift, 3.0 + bowl + shift}});
    }
  curves.push_back({{{"model.layers", "12"}, {"train.lr", "0.002"}, {"train.seed", "2"}},
                    1e12,
                    {4.0}});  // stopped at update 100
  store_curves(path, curves);
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto t = experiments::load_lr_transfer(
      store, "s", "model.layers", db::metric::kValidLoss,
      experiments::RunReading(experiments::parse_budget("tokens=2e5", "test")));
  ASSERT_EQ(t.rows.size(), 2u);
  for (const auto& row : t.rows) EXPECT_DOUBLE_EQ(row.best.grid_lr, 0.002);
  EXPECT_TRUE(has(t.notes, "model.layers=12: 1 run short of target tokens <= 200000, left out: #7"))
      << t.notes.back();
}

}  // namespace test_readers_at_budget
