// `fathom report` at a budget (experiments/report_budget.h): a sweep of unequal costs tabled at
// equal compute by itself, and a budget `--at` asks for instead -- its tables, its
// learning-rate sections and the figures that draw it -- against values worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/report.h"
#include "experiments/value_at_budget.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_report_budget {
using namespace fathom;

using fathom::testing::read_text;

// The report of `sweep` in scratch's runs.db at the budget `at` (its text).
std::string report_at(const fathom::testing::TempDir& scratch, const std::string& sweep,
                      const std::string& at,
                      const experiments::BudgetsRenderer& render_budgets = nullptr) {
  const auto store = db::Store::open((scratch.path() / "runs.db").string(), db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  options.at = experiments::parse_budget(at, "test");
  options.render_budgets = render_budgets;
  return read_text(experiments::write_report(store, sweep, options));
}

// A run of the sweep "depth" at that model.layers and seed; its id.
int64_t create_depth_run(db::Store& store, const std::string& layers, const std::string& seed) {
  db::NewRun n;
  n.name = "depth/" + layers + "-" + seed;
  n.sweep = "depth";
  const int64_t id = store.create_run(n);
  store.set_tag(id, "axis.model.layers", layers);
  store.set_tag(id, "axis.train.seed", seed);
  return id;
}

// A depth sweep is tabled at equal compute too: every run at the cheapest finished run's whole
// training (the 6-layer model's 3e14 FLOPs, the 18-layer one's update 100), where the deeper
// model that wins at its end (11 against 16) loses (25 against 16). The 6-layer model's second
// seed saw 1 % more tokens' worth of FLOPs: within the budget's 2 % it keeps its last
// validation (17), not the one before (22).
void write_depth_sweep_of_unequal_cost(const std::string& db) {
  auto store = db::Store::open(db);
  for (auto [layers, seed, per_update, ppl] :
       {std::tuple{"6", "1", 1e12, std::vector<double>{30, 20, 15}},
        {"6", "2", 1.01e12, std::vector<double>{32, 22, 17}},
        {"18", "1", 3e12, std::vector<double>{24, 14, 10}},
        {"18", "2", 3e12, std::vector<double>{26, 16, 12}}}) {
    const int64_t id = create_depth_run(store, layers, seed);
    std::vector<db::MetricRow> rows;
    for (int i = 0; i < 3; ++i) {
      const int64_t step = 100 * (i + 1);
      rows.emplace_back(step, db::metric::kValidPpl, ppl[i], 0.0);
      rows.emplace_back(step, db::metric::kTrainFlops, per_update * step, 0.0);
    }
    store.write_metrics(id, rows);
    store.set_final_metric(id, db::metric::kValidPpl, ppl.back());
    store.set_final_metric(id, db::metric::kTrainTokens, 3e5);
    store.set_final_metric(id, db::metric::kTrainFlops, per_update * 300);
    store.finish_run(id, "finished");
  }
}

TEST(Report, ASweepOfUnequalCostIsTabledAtEqualComputeToo) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  write_depth_sweep_of_unequal_cost(db);
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  const std::string text = read_text(experiments::write_report(store, "depth", options));
  const auto at_end = text.find("### valid_ppl\n");
  const auto at_budget = text.find("### valid_ppl at equal compute");
  ASSERT_NE(at_end, std::string::npos) << text;
  ASSERT_NE(at_budget, std::string::npos) << text;
  const std::string end_table = text.substr(at_end, at_budget - at_end);
  const std::string budget_table = text.substr(at_budget);
  EXPECT_NE(end_table.find("| 18 | 11.00 ± 1.41 |"), std::string::npos) << end_table;
  EXPECT_NE(end_table.find("| 6 | 16.00 ± 1.41 |"), std::string::npos) << end_table;
  EXPECT_NE(budget_table.find("the costliest 3.00x the cheapest"), std::string::npos);
  EXPECT_NE(budget_table.find("each run at compute <= 3e+14 FLOPs (within 2 %)"), std::string::npos)
      << budget_table;
  EXPECT_NE(budget_table.find("| 18 | 25.00 ± 1.41 |"), std::string::npos) << budget_table;
  EXPECT_NE(budget_table.find("| 6 | 16.00 ± 1.41 |"), std::string::npos) << budget_table;
  // Two depths: no best depth to say, nor its figure.
  EXPECT_EQ(text.find("Best layers at this budget"), std::string::npos) << text;
  EXPECT_EQ(text.find("budgets-"), std::string::npos) << text;
}

// Three depths at `--at update=100`: under the table, the depth where a parabola in ln(depth)
// through the three means (20, 15, 16 at 2, 4, 8) is lowest -- 2^(2 + 4 / 12), by hand -- with
// its bootstrap interval.
TEST(Report, ATableAtABudgetOverThreeDepthsSaysTheBestDepth) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [layers, seed, ppl] : {std::tuple{"2", "1", 19.9},
                                     {"2", "2", 20.1},
                                     {"4", "1", 14.9},
                                     {"4", "2", 15.1},
                                     {"8", "1", 15.9},
                                     {"8", "2", 16.1}}) {
      const int64_t id = create_depth_run(store, layers, seed);
      store.write_metrics(id, {db::MetricRow(100, db::metric::kValidPpl, ppl, 0.0)});
      store.set_final_metric(id, db::metric::kValidPpl, ppl);
      store.finish_run(id, "finished");
    }
  }
  std::vector<experiments::BudgetsRequest> drawn;
  const std::string text =
      report_at(scratch, "depth", "update=100", [&](const experiments::BudgetsRequest& r) {
        drawn.push_back(r);
        return r.file_stem + ".png";
      });
  // Its figure: the table's metric against the depth at the budget, one line (no rows).
  ASSERT_EQ(drawn.size(), 1u);
  EXPECT_EQ(drawn[0].sweep, "depth");
  EXPECT_EQ(drawn[0].x, "model.layers");
  EXPECT_EQ(drawn[0].rows, "");
  EXPECT_EQ(drawn[0].metric, "valid_ppl");
  EXPECT_EQ(drawn[0].at.axis, "update");
  EXPECT_EQ(drawn[0].at.x, 100);
  EXPECT_NE(text.find("![valid_ppl against layers at the budget](budgets-valid_ppl.png)"),
            std::string::npos)
      << text;
  const auto at_budget = text.find("### valid_ppl at update <= 100");
  ASSERT_NE(at_budget, std::string::npos) << text;
  const std::string section = text.substr(at_budget);
  char best[32];
  std::snprintf(best, sizeof best, "%.3g", std::exp2(2 + 4.0 / 12));
  EXPECT_NE(section.find("Best layers at this budget"), std::string::npos) << section;
  EXPECT_NE(section.find("`fathom export plot budgets --sweep depth --metric valid_ppl --x "
                         "model.layers --at update=100` draws it"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("- valid_ppl: best layers " + std::string(best) + " (95 % CI "),
            std::string::npos)
      << section;
}

// Under a table at a budget over three or more depths, how the best depth grows: read at a
// quarter, a half and all of `--at update=400` (100, 200, 400). The means put the vertex in
// ln(layers) at ln 4 + d ln 2 with d = -0.3, 0, 0.3 (means 2 + (1 + 2d)/2, 2, 2 + (1 - 2d)/2 at
// 2, 4, 8): ln(best) rises 0.3 ln 2 as the budget doubles -- exponent 0.3.
TEST(Report, ATableAtABudgetOverThreeDepthsSaysHowTheBestDepthGrows) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    const char* depths[] = {"2", "4", "8"};
    for (int i = 0; i < 3; ++i)
      for (int seed = -1; seed <= 1; seed += 2) {
        const int64_t id = create_depth_run(store, depths[i], std::to_string(seed + 2));
        std::vector<db::MetricRow> rows;
        double last = 0;
        for (int k = 0; k < 3; ++k) {
          const double d = -0.3 + 0.3 * k;
          const double means[3] = {2 + (1 + 2 * d) / 2, 2, 2 + (1 - 2 * d) / 2};
          last = means[i] + 0.01 * seed;
          rows.emplace_back(100 << k, db::metric::kValidPpl, last, 0.0);
        }
        store.write_metrics(id, rows);
        store.set_final_metric(id, db::metric::kValidPpl, last);
        store.finish_run(id, "finished");
      }
  }
  const std::string text = report_at(scratch, "depth", "update=400");
  const auto growth = text.find("How the best layers grows with update");
  ASSERT_NE(growth, std::string::npos) << text;
  const std::string section = text.substr(growth);
  EXPECT_NE(section.find("--at update=100,update=200,update=400 --scaling-out FILE` draws it"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("- valid_ppl: best layers grows as update^0.3 (95 % CI "),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("; 3 budgets, 100-400)"), std::string::npos) << section;
}

// A best depth at the grid's end (the deepest, 8) is no optimum: the report says which command
// writes the next depth for it, at the same budget.
TEST(Report, ABestDepthAtTheGridsEndNamesTheCommandThatExtendsIt) {
  const fathom::testing::TempDir scratch;
  {
    auto store = db::Store::open((scratch.path() / "runs.db").string());
    const char* depths[] = {"2", "4", "8"};
    for (int i = 0; i < 3; ++i)
      for (int seed = 1; seed <= 2; ++seed) {
        const int64_t id = create_depth_run(store, depths[i], std::to_string(seed));
        const double ppl = 30 - 5 * i + seed;
        store.write_metrics(id, {{100, db::metric::kValidPpl, ppl, 0.0}});
        store.set_final_metric(id, db::metric::kValidPpl, ppl);
        store.finish_run(id, "finished");
      }
  }
  const std::string text = report_at(scratch, "depth", "update=100");
  EXPECT_NE(text.find("- valid_ppl: best at the grid's end, layers 8"), std::string::npos) << text;
  EXPECT_NE(text.find("A best layers at the grid's end is no optimum: `fathom sweep extend "
                      "SWEEP.yaml --axis model.layers --at update=100` writes"),
            std::string::npos)
      << text;
}

// `--at update=200` tables the runs there instead of at equal compute -- (20 + 22) / 2 and
// (14 + 16) / 2 -- and the validation figures draw it; a run's report refuses it.
TEST(Report, AnAskedBudgetIsTabledInsteadOfEqualComputeAndDrawn) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  write_depth_sweep_of_unequal_cost(db);
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  options.at = experiments::parse_budget("update=200", "test");
  std::vector<experiments::CurvesRequest> asked;
  options.render_curves = [&](const experiments::CurvesRequest& r) {
    asked.push_back(r);
    return r.file_stem + ".png";
  };
  const std::string text = read_text(experiments::write_report(store, "depth", options));
  const auto at_budget = text.find("### valid_ppl at update <= 200\n");
  ASSERT_NE(at_budget, std::string::npos) << text;
  EXPECT_EQ(text.find("at equal compute"), std::string::npos) << text;
  const std::string table = text.substr(at_budget, 600);
  EXPECT_NE(table.find("| 6 | 21.00 ± 1.41 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 18 | 15.00 ± 1.41 |"), std::string::npos) << table;
  bool drawn = false;
  for (const auto& r : asked)
    if (r.metrics == std::vector<std::string>{db::metric::kValidPpl} && r.x == "update") {
      ASSERT_TRUE(r.at);
      EXPECT_EQ(r.at->x, 200);
      drawn = true;
    }
  EXPECT_TRUE(drawn);
  EXPECT_THROW(experiments::write_report(store, "1", options), InputError);
}

// With --at the learning-rate sections come again at the budget: three rates whose best is
// 0.001 at the end (valid_loss 2.0) but 0.003 at update 100 (2.4 against 3.0 and 2.8).
TEST(Report, AnAskedBudgetGivesTheLearningRateSectionsAgainThere) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [lr, at_100, at_200] :
         {std::tuple{"0.001", 3.0, 2.0}, {"0.003", 2.4, 2.5}, {"0.01", 2.8, 3.5}}) {
      db::NewRun n;
      n.name = std::string("lr/") + lr;
      n.sweep = "lr";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.train.lr", lr);
      store.set_tag(id, "sweep.axes", "train.lr");
      store.write_metrics(id, {{0, "valid_loss", 8.0, 0.0},
                               {100, "valid_loss", at_100, 0.0},
                               {200, "valid_loss", at_200, 0.0},
                               {200, db::metric::kTargetTokens, 2e5, 0.0}});
      store.set_final_metric(id, "valid_loss", at_200);
      store.finish_run(id, "finished");
    }
  }
  const std::string text = report_at(scratch, "lr", "update=100");
  const auto at_end = text.find("## Learning-rate sensitivity\n");
  const auto at_budget = text.find("## Learning-rate sensitivity at update <= 100\n");
  ASSERT_NE(at_end, std::string::npos) << text;
  ASSERT_NE(at_budget, std::string::npos) << text;
  ASSERT_LT(at_end, at_budget);
  // "| curve | sensitivity | interval | best lr | best valid_loss |": the best rate of each.
  const std::string end_section = text.substr(at_end, at_budget - at_end);
  const std::string budget_section = text.substr(at_budget, 800);
  EXPECT_NE(end_section.find("| 0.001 (an end) | 2 |"), std::string::npos) << end_section;
  EXPECT_NE(budget_section.find("| 0.003 | 2.4 |"), std::string::npos) << budget_section;
}

}  // namespace test_report_budget
