// The isoFLOP view (plot/budgets_figure.h; `fathom export plot budgets`): a 2- and a 4-layer
// model, two seeds each, validated every 100 updates at 1e10 and 2e10 FLOPs an update. At
// 2e12 FLOPs the shallow model leads (update 200: 3.7 against the deep one's update 100: 3.9);
// at 4e12 the deep one does (3.3 against 3.4) -- values and intervals by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/store.h"
#include "experiments/value_at_budget.h"
#include "plot/budgets_figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_budgets_figure {

void write_depth_sweep(const std::string& path) {
  auto store = db::Store::open(path);
  for (auto [layers, seed, losses] : {std::tuple{2, 1, std::vector<double>{4.0, 3.6, 3.4, 3.3}},
                                      {2, 2, std::vector<double>{4.2, 3.8, 3.6, 3.5}},
                                      {4, 1, std::vector<double>{3.8, 3.2, 3.0, 2.9}},
                                      {4, 2, std::vector<double>{4.0, 3.4, 3.2, 3.1}}}) {
    db::NewRun n;
    n.name = "d/" + std::to_string(layers) + "-" + std::to_string(seed);
    n.sweep = "d";
    const int64_t id = store.create_run(n);
    store.set_tag(id, "axis.model.layers", std::to_string(layers));
    store.set_tag(id, "axis.model.norm", "post");
    store.set_tag(id, "axis.train.seed", std::to_string(seed));
    std::vector<db::MetricRow> rows;
    for (size_t i = 0; i < losses.size(); ++i) {
      const int64_t step = 100 * static_cast<int64_t>(i + 1);
      rows.emplace_back(step, "valid_loss", losses[i], 0.0);
      rows.emplace_back(step, "train_flops", layers * 0.5e10 * step, 0.0);
    }
    store.write_metrics(id, rows);
    store.set_final_metric(id, "valid_loss", losses.back());
    store.finish_run(id, "finished");
  }
}

BudgetsQuery query(const std::vector<std::string>& budgets) {
  BudgetsQuery q;
  q.sweep = "d";
  q.x = "model.layers";
  for (const auto& b : budgets) q.budgets.push_back(experiments::parse_budget(b, "test"));
  return q;
}

TEST(BudgetsFigure, EachBudgetIsALineOverTheAxisWithItsInterval) {
  const fathom::testing::TempDir scratch;
  write_depth_sweep(scratch.file("runs.db"));
  const auto store = db::Store::open(scratch.file("runs.db"), db::OpenMode::ReadOnly);
  const BudgetsFigure made = budgets_figure(store, query({"compute=2e12", "compute=4e12"}));
  const LineFigure& f = made.figure;
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "compute <= 2e+12 FLOPs");
  EXPECT_EQ(f.series[0].x, (std::vector<double>{2, 4}));
  EXPECT_NEAR(f.series[0].y[0], 3.7, 1e-12);  // (3.6 + 3.8) / 2 at update 200
  EXPECT_NEAR(f.series[0].y[1], 3.9, 1e-12);  // (3.8 + 4.0) / 2 at update 100
  EXPECT_NEAR(f.series[1].y[0], 3.4, 1e-12);  // update 400
  EXPECT_NEAR(f.series[1].y[1], 3.3, 1e-12);  // update 200
  // Two seeds 0.2 apart: std 0.1 sqrt(2), the 95 % t-interval t(0.975, 1) std / sqrt(2).
  const double half = 12.706204736 * (0.1 * std::sqrt(2.0)) / std::sqrt(2.0);
  for (const auto& s : f.series)
    for (double e : s.err) EXPECT_NEAR(e, half, 1e-4);
  EXPECT_EQ(f.x.label, "layers");
  EXPECT_TRUE(f.x.whole_numbers);  // depths: no tick at 2.5 layers
  EXPECT_EQ(f.y.label, "valid_loss");
  // The figure JSON keeps the bars; the renderer draws one set per line.
  const LineFigure back = std::get<LineFigure>(figure_from_json(to_json(Figure(f))));
  EXPECT_EQ(back.series[1].err, f.series[1].err);
  ensure_application(/*force_offscreen=*/true);
  QCustomPlot plot;
  setup_plot(plot, Figure(f));
  int bars = 0;
  for (int i = 0; i < plot.plottableCount(); ++i)
    bars += qobject_cast<QCPErrorBars*>(plot.plottable(i)) != nullptr;
  EXPECT_EQ(bars, 2);
}

TEST(BudgetsFigure, ALeastBudgetIsNamedByItsNumberAndRowsNameTheLines) {
  const fathom::testing::TempDir scratch;
  write_depth_sweep(scratch.file("runs.db"));
  const auto store = db::Store::open(scratch.file("runs.db"), db::OpenMode::ReadOnly);
  BudgetsQuery q = query({"compute=least"});  // the 2-layer runs' whole training: 4e12
  q.rows = "model.norm";
  const BudgetsFigure made = budgets_figure(store, q);
  ASSERT_EQ(made.figure.series.size(), 1u);
  EXPECT_EQ(made.figure.series[0].name, "post");  // one budget: the row names the line
  EXPECT_NEAR(made.figure.series[0].y[1], 3.3, 1e-12);
  ASSERT_FALSE(made.notes.empty());
  EXPECT_EQ(made.notes[0].rfind("compute <= 4e+12 FLOPs (within 2 %): ", 0), 0u) << made.notes[0];
}

TEST(BudgetsFigure, ACategoricalAxisOrNoBudgetIsRefusedNamingTheOption) {
  const fathom::testing::TempDir scratch;
  write_depth_sweep(scratch.file("runs.db"));
  const auto store = db::Store::open(scratch.file("runs.db"), db::OpenMode::ReadOnly);
  BudgetsQuery q = query({"compute=2e12"});
  q.x = "model.norm";
  try {
    budgets_figure(store, q);
    FAIL() << "a categorical x axis was drawn";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--x"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'post', not a number"), std::string::npos) << e.what();
  }
  // The tables' refusals name this command and its own options, not `export table`'s.
  q.x = "model.depth";  // no such axis
  try {
    budgets_figure(store, q);
    FAIL() << "an axis the runs lack was drawn";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "fathom export plot budgets");
    EXPECT_EQ(e.field(), "--x") << e.what();
    EXPECT_NE(e.message().find("no value for 'model.depth'"), std::string::npos) << e.what();
  }
  q.x = q.rows = "model.layers";
  try {
    budgets_figure(store, q);
    FAIL() << "lines along their own axis were drawn";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "fathom export plot budgets");
    EXPECT_EQ(e.field(), "--rows");
    EXPECT_EQ(e.message(), "--rows and --x are the same axis");
  }
  try {
    budgets_figure(store, query({}));
    FAIL() << "no budget was drawn";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--at"), std::string::npos) << e.what();
  }
}

}  // namespace test_budgets_figure
}  // namespace fathom::plot
