// train.valid_at (core/train/budget_readings.h): after which updates a run validates for a
// budget, worked out by hand from the rule x(u) <= budget < x(u) + the dearest update so far;
// and the key's bad values refused naming the file, line and key.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "core/train/budget_readings.h"
#include "tests/support/input_error.h"

using namespace fathom;

namespace test_budget_readings {

// The updates (1-based) after which `readings` validates, given each update's FLOPs (and as
// many target tokens as FLOPs / 100).
std::vector<int64_t> due_updates(BudgetReadings readings, const std::vector<double>& flops) {
  std::vector<int64_t> due;
  double after = 0;
  for (size_t i = 0; i < flops.size(); ++i) {
    after += flops[i];
    const int64_t u = static_cast<int64_t>(i) + 1;
    if (readings.due(u, flops[i] / 100, flops[i], after / 100, after)) due.push_back(u);
  }
  return due;
}

TEST(BudgetReadings, UpdatesOfEqualCostAreReadOnceAtTheLastInsideTheBudget) {
  const std::vector<double> tens(8, 10.0);  // after update u: 10 u FLOPs
  // 35: update 3 (30 <= 35 < 40). 40: update 4 (exactly at it is inside), not 3.
  EXPECT_EQ(due_updates(BudgetReadings({"compute=35"}), tens), (std::vector<int64_t>{3}));
  EXPECT_EQ(due_updates(BudgetReadings({"compute=40"}), tens), (std::vector<int64_t>{4}));
  // Tokens alike (0.1 per update); update=N exactly there.
  EXPECT_EQ(due_updates(BudgetReadings({"tokens=0.55"}), tens), (std::vector<int64_t>{5}));
  EXPECT_EQ(due_updates(BudgetReadings({"update=6"}), tens), (std::vector<int64_t>{6}));
  // Several budgets: each one's update.
  EXPECT_EQ(due_updates(BudgetReadings({"compute=25", "update=7", "compute=51"}), tens),
            (std::vector<int64_t>{2, 5, 7}));
  // A budget below the first update's cost, or past the last, has none.
  EXPECT_TRUE(due_updates(BudgetReadings({"compute=5", "compute=1e9"}), tens).empty());
}

// train.valid_every_flops 25: the budgets 25, 50, 75, ... -- read after updates 2 (20 <= 25 < 30),
// 5 (50 <= 50) and 7 (70 <= 75 < 80) -- beside a valid_at budget.
TEST(BudgetReadings, EveryMultipleOfAComputeStepIsABudget) {
  const std::vector<double> tens(8, 10.0);
  EXPECT_EQ(due_updates(BudgetReadings({}, 25), tens), (std::vector<int64_t>{2, 5, 7}));
  EXPECT_EQ(due_updates(BudgetReadings({"update=3"}, 25), tens),
            (std::vector<int64_t>{2, 3, 5, 7}));
  EXPECT_FALSE(BudgetReadings({}, 25).empty());
  BudgetReadings readings({}, 25);  // without the run's compute, none
  EXPECT_FALSE(readings.due(1, 1, 10, 1, NAN));
  EXPECT_FALSE(readings.due(2, 1, 10, 2, NAN));
}

// After a dear update (30) the next is taken as dear: 50, 60 and 70 FLOPs with 30 more would
// each pass 75, so updates 3, 4 and 5 read it; 40 + 30 does not.
TEST(BudgetReadings, ADearUpdateSoFarReadsAFewUpdatesBeforeTheBudget) {
  EXPECT_EQ(due_updates(BudgetReadings({"compute=75"}), {30, 10, 10, 10, 10, 10}),
            (std::vector<int64_t>{3, 4, 5}));
}

// The one case it misses: the next update dearer than any before it jumps the budget (30 + 10
// <= 45, then 60 > 45). The table then reads the validation before it, and says how short.
TEST(BudgetReadings, AnUpdateDearerThanAnyBeforeCanPassTheBudgetUnread) {
  EXPECT_TRUE(due_updates(BudgetReadings({"compute=45"}), {10, 10, 10, 30, 10}).empty());
}

// A run resumed from a checkpoint that did not count its compute: no compute budget (NaN),
// a tokens budget still.
TEST(BudgetReadings, ARunWithoutItsComputeHasNoComputeBudget) {
  BudgetReadings readings({"compute=15", "tokens=250"});
  EXPECT_FALSE(readings.due(1, 100, 10, 100, NAN));  // 100 + 100 <= 250
  EXPECT_TRUE(readings.due(2, 100, 10, 200, NAN));   // 200 <= 250 < 300
}

TEST(BudgetReadings, TheKeyIsAListOfBudgetsAndRefusesAnyOther) {
  const RunConfig c = load_config_string(
      "train:\n  valid_at: [compute=3e14, tokens=5e7, update=400]\n", "v.yaml", "");
  EXPECT_EQ(c.train.valid_at,
            (std::vector<std::string>{"compute=3e14", "tokens=5e7", "update=400"}));
  EXPECT_FALSE(BudgetReadings(c.train.valid_at).empty());
  EXPECT_TRUE(BudgetReadings(RunConfig{}.train.valid_at).empty());  // none by default
  // A config written out reads back the same.
  EXPECT_EQ(load_config_string(config_to_yaml(c), "again.yaml", "").train.valid_at,
            c.train.valid_at);
  for (const std::string bad : {"compute=least", "flops=3e14", "compute=-1", "update=", "3e14"}) {
    auto e = fathom::testing::expect_input_error([&] {
      check_config(load_config_string(
          "name: v\ntrain:\n  lr: 0.001\n  valid_at: [update=5, " + bad + "]\n", "v.yaml", ""));
    });
    EXPECT_EQ(e.field(), "train.valid_at") << bad;
    EXPECT_EQ(e.line(), 4) << bad;
    EXPECT_NE(std::string(e.what()).find("v.yaml"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(BudgetReadings({"tokens=least"}), std::invalid_argument);
}

}  // namespace test_budget_readings
