// train.valid_at end to end: a run trained with budgets validates after the last update inside
// each (found here from the same config's curves trained without them, by the rule of
// core/train/budget_readings.h), and trains exactly as without them -- the same training loss,
// tokens and FLOPs at every update, the same validations at train.valid_every.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_valid_at_cli {
namespace fs = std::filesystem;
namespace metric = fathom::db::metric;
using Curve = std::map<int64_t, double>;

constexpr int kUpdates = 30;

class ValidAtCli : public fathom::testing::FathomCliTest {
 protected:
  // Trains the tiny config with `valid_at` (YAML list text, "" for none); the run's id.
  // On `nproc` processes, each update's batches shared among them.
  int64_t train(const std::string& name, const std::string& valid_at, int nproc = 1) {
    const std::string section = std::string(nproc > 1 ? "{update_tokens: 600, " : "{") +
                                "lr: 0.005, warmup: 10, max_updates: " + std::to_string(kUpdates) +
                                ", valid_every: " + std::to_string(kUpdates) +
                                ", log_every: 1, threads: 1" +
                                (valid_at.empty() ? "" : ", valid_at: " + valid_at) + "}";
    const fs::path config = dir_ / (name + ".yaml");
    std::ofstream(config) << fathom::testing::tiny_config_yaml(name, section);
    const fathom::ProgramResult r =
        fathom({"train", config.string(), "--nproc", std::to_string(nproc), "--no-progress"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return ++runs_;
  }
  Curve curve(int64_t run, const std::string& name) const {
    Curve out;
    const auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    for (const auto& p : store.metric_series(run, name)) out[p.step] = p.value;
    return out;
  }
  int64_t runs_ = 0;
};

// The updates x(u) <= budget < x(u) + the dearest update up to u, from a curve of x at every
// update.
std::set<int64_t> read_for(const Curve& x, double budget) {
  std::set<int64_t> due;
  double before = 0, dearest = 0;
  for (const auto& [u, after] : x) {
    dearest = std::max(dearest, after - before);
    if (after <= budget && budget < after + dearest) due.insert(u);
    before = after;
  }
  return due;
}

// Halfway between the values after updates u and u + 1, printed exactly.
std::string between(const Curve& x, int64_t u, double& budget) {
  budget = (x.at(u) + x.at(u + 1)) / 2;
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", budget);
  return text;
}

TEST_F(ValidAtCli, ARunValidatesJustInsideEachBudgetAndTrainsAsWithoutThem) {
  const int64_t plain = train("plain", "");
  const Curve flops = curve(plain, metric::kTrainFlops),
              tokens = curve(plain, metric::kTargetTokens);
  ASSERT_EQ(flops.size(), static_cast<size_t>(kUpdates));
  double at_flops = 0, at_tokens = 0;
  const std::string flops_text = between(flops, 17, at_flops);
  const std::string tokens_text = between(tokens, 9, at_tokens);
  const std::set<int64_t> on_flops = read_for(flops, at_flops),
                          on_tokens = read_for(tokens, at_tokens);
  // The last update inside each budget is read (updates of this corpus cost within a factor
  // of the dearest before them), and perhaps one or two before it, never after.
  ASSERT_TRUE(on_flops.count(17) && on_tokens.count(9));
  EXPECT_EQ(*on_flops.rbegin(), 17);
  EXPECT_LE(on_flops.size() + on_tokens.size(), 6u);

  const int64_t budgets =
      train("budgets", "[compute=" + flops_text + ", tokens=" + tokens_text + ", update=24]");
  std::set<int64_t> expected = {0, kUpdates, 24};  // initialization, valid_every, update=24
  expected.insert(on_flops.begin(), on_flops.end());
  expected.insert(on_tokens.begin(), on_tokens.end());
  std::set<int64_t> validated;
  for (const auto& [u, loss] : curve(budgets, metric::kValidLoss)) validated.insert(u);
  EXPECT_EQ(validated, expected);
  // Each reading is logged with its position, as a table at the budget reads it.
  const Curve budget_flops = curve(budgets, metric::kTrainFlops);
  EXPECT_LE(budget_flops.at(17), at_flops);
  EXPECT_GT(budget_flops.at(18), at_flops);

  // Training is unchanged: every update's loss, tokens and FLOPs, and the validations both have.
  EXPECT_EQ(curve(budgets, metric::kTrainLoss), curve(plain, metric::kTrainLoss));
  EXPECT_EQ(budget_flops, flops);
  EXPECT_EQ(curve(budgets, metric::kTargetTokens), tokens);
  const Curve plain_valid = curve(plain, metric::kValidLoss),
              valid = curve(budgets, metric::kValidLoss);
  ASSERT_EQ(plain_valid.size(), 2u);
  for (const auto& [u, loss] : plain_valid) EXPECT_EQ(valid.at(u), loss) << "update " << u;
}

// The updates where a multiple kF (k >= 1) has x(u) <= kF < x(u) + the dearest update up to u.
std::set<int64_t> read_every(const Curve& x, double step) {
  std::set<int64_t> due;
  double before = 0, dearest = 0;
  for (const auto& [u, after] : x) {
    dearest = std::max(dearest, after - before);
    for (double k = 1; k * step < after + dearest; ++k)
      if (after <= k * step) due.insert(u);
    before = after;
  }
  return due;
}

// train.valid_every_flops: a reading just inside every multiple of it, the training unchanged.
TEST_F(ValidAtCli, EveryMultipleOfAComputeStepIsReadJustInside) {
  const int64_t plain = train("plain", "");
  const Curve flops = curve(plain, metric::kTrainFlops);
  ASSERT_EQ(flops.size(), static_cast<size_t>(kUpdates));
  const double step = flops.at(kUpdates) / 7.5;  // 7 multiples inside the run
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", step);
  const int64_t every = train("every", "[], valid_every_flops: " + std::string(text));
  std::set<int64_t> expected = read_every(flops, step), validated;
  // Each multiple's last update inside it, read (a next update dearer than all before it
  // excepted): at least one reading a multiple.
  EXPECT_GE(expected.size(), 7u);
  expected.insert({0, kUpdates});
  for (const auto& [u, loss] : curve(every, metric::kValidLoss)) validated.insert(u);
  EXPECT_EQ(validated, expected);
  EXPECT_EQ(curve(every, metric::kTrainLoss), curve(plain, metric::kTrainLoss));
}

// Two processes: every rank validates its share at the same updates (a rank that did not would
// leave the others waiting in the validation's reduction), rank 0 logs them.
TEST_F(ValidAtCli, TheRanksOfADataParallelRunReadTheBudgetTogether) {
  const int64_t plain = train("plain", "", 2);
  const Curve flops = curve(plain, metric::kTrainFlops);
  ASSERT_EQ(flops.size(), static_cast<size_t>(kUpdates));
  double at_flops = 0;
  const std::string text = between(flops, 12, at_flops);
  const int64_t budgets = train("budgets", "[compute=" + text + "]", 2);
  std::set<int64_t> expected = read_for(flops, at_flops), validated;
  ASSERT_TRUE(expected.count(12));
  expected.insert({0, kUpdates});
  for (const auto& [u, loss] : curve(budgets, metric::kValidLoss)) validated.insert(u);
  EXPECT_EQ(validated, expected);
  EXPECT_EQ(curve(budgets, metric::kTrainLoss), curve(plain, metric::kTrainLoss));
}

}  // namespace test_valid_at_cli
