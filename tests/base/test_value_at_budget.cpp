// Tests for experiments/value_at_budget.h (`fathom export table --at`): a shallow and a deep
// model compared at equal training compute take each run's last validation inside the budget
// -- hand-picked points of hand-made curves -- a run short of the budget is left out and
// named, one that diverged after it counts at it, one that diverged inside it stays diverged,
// and a test metric (no curve) is refused.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/value_at_budget.h"
#include "tests/support/temp_dir.h"

using namespace fathom;

namespace test_value_at_budget {

struct StoredRun {
  std::string layers;
  int seed;
  double flops_per_update;         // 0: no train_flops curve (an older run)
  std::vector<double> valid_loss;  // at updates 100, 200, ...
  std::string status = "finished";
  std::optional<int64_t> diverged_at;
};

void store_runs(const std::string& path, const std::vector<StoredRun>& runs) {
  auto store = db::Store::open(path);
  for (const StoredRun& s : runs) {
    db::NewRun n;
    n.name = "d/layers=" + s.layers + ",seed=" + std::to_string(s.seed);
    n.sweep = "d";
    const int64_t id = store.create_run(n);
    store.set_tag(id, "axis.model.encoder_layers", s.layers);
    store.set_tag(id, "axis.train.seed", std::to_string(s.seed));
    std::vector<db::MetricRow> rows;
    for (size_t i = 0; i < s.valid_loss.size(); ++i) {
      const int64_t step = 100 * static_cast<int64_t>(i + 1);
      rows.emplace_back(step, "valid_loss", s.valid_loss[i], 0.0);
      rows.emplace_back(step, db::metric::kTargetTokens, 1000.0 * step, 0.0);
      if (s.flops_per_update > 0)
        rows.emplace_back(step, db::metric::kTrainFlops, s.flops_per_update * step, 0.0);
    }
    store.write_metrics(id, rows);
    store.set_final_metric(id, "valid_loss", s.valid_loss.back());
    store.finish_run(id, s.status, "", s.diverged_at);
  }
}

experiments::TableOptions at(const std::string& budget) {
  experiments::TableOptions o;
  o.rows = "model.encoder_layers";
  o.metric = "valid_loss";
  o.at = experiments::parse_budget(budget, "test");
  return o;
}

bool has_note(const experiments::ComparisonTable& t, const std::string& text) {
  for (const auto& n : t.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(ValueAtBudget, RunsOfUnequalCostAreComparedAtEqualCompute) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_runs(path, {
                       // 6 layers: 1e12 FLOPs an update; seed 2 stopped at update 200
                       {"6", 1, 1e12, {5.0, 4.0, 3.5, 3.2}},
                       {"6", 2, 1e12, {5.1, 4.2}},
                       // 18 layers: 3e12 an update; seed 2 diverged at 300, past the budget
                       {"18", 1, 3e12, {4.6, 3.4, 3.0, 2.7}},
                       {"18", 2, 3e12, {4.8, 3.6, 1e9}, "diverged", 300},
                       // an older run: no train_flops curve
                       {"18", 3, 0, {4.0, 3.0}},
                   });
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  // 3e14 FLOPs: update 300 of the shallow model, update 100 of the deep one.
  const auto t = experiments::sweep_comparison_table(store, "d", at("compute=3e14"));
  ASSERT_EQ(t.row_labels, (std::vector<std::string>{"6", "18"}));
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 3.5);              // seed 1 alone: seed 2 is short
  EXPECT_DOUBLE_EQ(*t.cells[1][0].value, (4.6 + 4.8) / 2);  // both deep seeds at update 100
  EXPECT_EQ(t.cells[1][0].diverged, 0);
  EXPECT_TRUE(has_note(t, "each run's last value at compute <= 3e+14 FLOPs")) << t.notes[0];
  EXPECT_TRUE(has_note(t, "1 run short of compute <= 3e+14 FLOPs, left out: #2"));
  EXPECT_TRUE(has_note(t, "1 run without a train_flops curve"));
  EXPECT_TRUE(has_note(t, "past the budget, counted at it: #4"));
  EXPECT_FALSE(has_note(t, "of the budget, their last")) << "every run read at 3e14 itself";

  // At 9e14 the deep seed 2 diverged inside the budget: its result there.
  const auto late = experiments::sweep_comparison_table(store, "d", at("compute=9e14"));
  EXPECT_DOUBLE_EQ(*late.cells[1][0].value, 3.0);  // seed 1 at update 300
  EXPECT_EQ(late.cells[1][0].diverged, 1);
  // Both shallow runs ended (4e14, 2e14) short of it: no value, both named.
  EXPECT_FALSE(late.cells[0][0].value);
  EXPECT_TRUE(has_note(late,
                       "2 runs short of compute <= 9e+14 FLOPs, left "
                       "out: #1, #2"));

  // The same runs at an equal update count (the older run has its steps: it counts), and at
  // equal target tokens (1,000 an update here); at 250 updates the runs that stopped at 200
  // are short.
  const auto updates = experiments::sweep_comparison_table(store, "d", at("update=200"));
  EXPECT_DOUBLE_EQ(*updates.cells[0][0].value, (4.0 + 4.2) / 2);
  EXPECT_DOUBLE_EQ(*updates.cells[1][0].value, (3.4 + 3.6 + 3.0) / 3);
  const auto tokens = experiments::sweep_comparison_table(store, "d", at("tokens=2e5"));
  EXPECT_DOUBLE_EQ(*tokens.cells[0][0].value, *updates.cells[0][0].value);
  const auto later = experiments::sweep_comparison_table(store, "d", at("update=250"));
  EXPECT_DOUBLE_EQ(*later.cells[0][0].value, 4.0);
  EXPECT_DOUBLE_EQ(*later.cells[1][0].value, (3.4 + 3.6) / 2);
  EXPECT_TRUE(has_note(later, "2 runs short of update <= 250, left out: #2, #5"));
  // Validations every 100 updates: each run is read at update 200, 80 % of the budget.
  EXPECT_TRUE(has_note(later,
                       "3 runs read at 80 % of the budget, their last valid_loss inside it "
                       "(#1, #3, #4)"));
  // At 4.5e14 FLOPs the deep seeds' last validation inside it is update 100's (3e14: 67 %).
  const auto uneven = experiments::sweep_comparison_table(store, "d", at("compute=4.5e14"));
  EXPECT_TRUE(has_note(uneven,
                       "2 runs read at 67 % of the budget, their last valid_loss "
                       "inside it (#3, #4)"))
      << ::testing::PrintToString(uneven.notes);
}

// A sweep still running: a queued run has logged nothing, so it is short of the budget --
// not a run trained before Fathom counted compute.
TEST(ValueAtBudget, AQueuedRunIsShortOfTheBudgetNotAnOlderRun) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_runs(path, {{"6", 1, 1e12, {5.0, 4.0}}});
  {
    auto store = db::Store::open(path);
    db::NewRun n;
    n.name = "d/layers=6,seed=2";
    n.sweep = "d";
    const int64_t id = store.create_run(n);
    store.set_tag(id, "axis.model.encoder_layers", "6");
    store.set_tag(id, "axis.train.seed", "2");
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto t = experiments::sweep_comparison_table(store, "d", at("compute=2e14"));
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 4.0);
  EXPECT_TRUE(has_note(t, "1 run short of compute <= 2e+14 FLOPs, left out: #2"));
  EXPECT_FALSE(has_note(t, "without a train_flops curve"));
}

// Validations every 100 updates at 1e12 and 1.2e12 FLOPs an update: at 3.9e14 the first is
// read at 3e14 (77 %), the second at 3.6e14 (92 %) -- both named, the least share first; at
// 3.7e14 the second's 3.6e14 is 97 %, close enough.
TEST(ValueAtBudget, RunsReadWellShortOfTheBudgetAreNamed) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_runs(path, {{"6", 1, 1e12, {5.0, 4.0, 3.5, 3.2}}, {"6", 2, 1.2e12, {5.0, 4.0, 3.5, 3.2}}});
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto t = experiments::sweep_comparison_table(store, "d", at("compute=3.9e14"));
  EXPECT_TRUE(has_note(t,
                       "2 runs read at 77-92 % of the budget, their last valid_loss inside it "
                       "(#1, #2)"))
      << ::testing::PrintToString(t.notes);
  const auto closer = experiments::sweep_comparison_table(store, "d", at("compute=3.7e14"));
  EXPECT_TRUE(has_note(closer,
                       "1 run read at 81 % of the budget, its last valid_loss inside "
                       "it (#1)"))
      << ::testing::PrintToString(closer.notes);
}

TEST(ValueAtBudget, BadBudgetsAndTestMetricsAreRefusedNamingTheOption) {
  for (const char* bad : {"compute", "flops=1e15", "compute=", "compute=-3", "update=1x", "=5"})
    try {
      experiments::parse_budget(bad, "fathom export table");
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--at"), std::string::npos) << e.what();
    }
  const experiments::Budget b = experiments::parse_budget("tokens=5e7", "x");
  EXPECT_EQ(b.axis, "tokens");
  EXPECT_DOUBLE_EQ(b.x, 5e7);
  EXPECT_EQ(experiments::budget_text(b), "target tokens <= 5e+07");

  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  store_runs(path, {{"6", 1, 1e12, {5.0}}});
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  experiments::TableOptions o = at("compute=1e14");
  o.metric = "test_bleu";
  try {
    experiments::sweep_comparison_table(store, "d", o);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("measured once"), std::string::npos) << e.what();
  }
  // A budget before every run's first validation (update 100: 1e14 FLOPs) is refused naming
  // --at and what would read there, not as a metric no run recorded.
  try {
    experiments::sweep_comparison_table(store, "d", at("compute=5e13"));
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'--at': no run has a point of 'valid_loss' inside compute <= 5e+13"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("train.valid_at: [compute=5e+13]"), std::string::npos) << what;
  }
}

}  // namespace test_value_at_budget

namespace test_value_at_budget {

// --agg best at a budget chooses each cell's variant on what it had reached by the budget, also
// where the variant is chosen on the reported metric itself (the default, valid_loss): lr 0.01
// leads at update 100 (2.5 against 3.0) though 0.001 ends lower (1.0 against 2.0). Chosen on
// the runs' ends, the cell would show 0.001's 3.0.
TEST(ValueAtBudget, ABestVariantIsChosenOnItsValueAtTheBudget) {
  fathom::testing::TempDir dir;
  {
    auto store = db::Store::open(dir.file("runs.db"));
    for (const std::string lr : {"0.001", "0.01"})
      for (int seed : {1, 2}) {
        db::NewRun n;
        n.name = "d/lr=" + lr + ",seed=" + std::to_string(seed);
        n.sweep = "d";
        const int64_t id = store.create_run(n);
        store.set_tag(id, "axis.model.encoder_layers", "6");
        store.set_tag(id, "axis.train.lr", lr);
        store.set_tag(id, "axis.train.seed", std::to_string(seed));
        const double at_100 = lr == "0.01" ? 2.5 : 3.0, at_200 = lr == "0.01" ? 2.0 : 1.0;
        store.write_metrics(id,
                            {{100, "valid_loss", at_100, 0.0}, {200, "valid_loss", at_200, 0.0}});
        store.set_final_metric(id, "valid_loss", at_200);
        store.finish_run(id, "finished");
      }
  }
  const auto store = db::Store::open(dir.file("runs.db"), db::OpenMode::ReadOnly);
  experiments::TableOptions o = at("update=100");
  o.agg = experiments::CellAgg::Best;
  o.select_by = "valid_loss";
  const auto t = experiments::sweep_comparison_table(store, "d", o, "");
  ASSERT_EQ(t.cells.size(), 1u);
  ASSERT_TRUE(t.cells[0][0].value);
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 2.5);
  EXPECT_EQ(t.cells[0][0].variant, "lr=0.01");
  // At the runs' ends the other rate is best.
  o.at.reset();
  const auto end = experiments::sweep_comparison_table(store, "d", o, "");
  EXPECT_EQ(end.cells[0][0].variant, "lr=0.001");
  EXPECT_DOUBLE_EQ(*end.cells[0][0].value, 1.0);
}

}  // namespace test_value_at_budget
