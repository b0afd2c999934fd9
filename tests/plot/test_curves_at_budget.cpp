// Training curves at a budget (`fathom export plot curves --at`; plot/store_curves.h): the
// budget a comparison reads the runs at is a dashed line on its own x axis, and each run's curve
// marks the point a table at that budget reads (experiments/value_at_budget.h) -- by hand here,
// and against the table's own reading. A least budget is the cheapest finished run's whole
// training; a budget on another axis than the figure's is refused naming --at.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <qcustomplot.h>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/value_at_budget.h"
#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/store_curves.h"
#include "plot/style.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_curves_at_budget {

// Validations at updates 10, 20, ..., 100; training FLOPs `flops_per_update` x the update;
// valid_loss 5 - `drop` x update / 100.
int64_t run_of_cost(db::Store& store, const std::string& name, double flops_per_update, double drop,
                    const char* status, std::string layers = "") {
  db::NewRun run;
  run.name = name;
  run.sweep = "s";
  const int64_t id = store.create_run(run);
  store.set_tag(id, "axis.model.layers", layers.empty() ? name : layers);
  std::vector<db::MetricRow> rows;
  for (int step = 10; step <= 100; step += 10) {
    rows.emplace_back(step, db::metric::kValidLoss, 5.0 - drop * step / 100.0, 0.0);
    rows.emplace_back(step, db::metric::kTrainFlops, flops_per_update * step, 0.0);
  }
  store.write_metrics(id, rows);
  if (std::string(status) != "running") store.finish_run(id, status);
  return id;
}

CurveQuery valid_loss_at(const std::string& budget) {
  CurveQuery query;
  query.sweep = "s";
  query.metrics = {db::metric::kValidLoss};
  query.x = XAxis::Compute;
  query.at = experiments::parse_budget(budget, "test");
  return query;
}

TEST(CurvesAtBudget, EachRunMarksThePointATableAtTheBudgetReads) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  // The cheap model ends at 1e12 FLOPs (valid_loss 4.0); the dear one, 4x the cost, passes
  // 1e12 between its validations at updates 20 (8e11 FLOPs, 4.6) and 30 (1.2e12).
  run_of_cost(store, "cheap", 1e10, 1.0, "finished");
  run_of_cost(store, "dear", 4e10, 2.0, "finished");
  // Still running, cheaper so far: a least budget is not its progress.
  run_of_cost(store, "running", 1e9, 1.0, "running");

  const CurveFigure figure = curves_from_store(store, valid_loss_at("compute=least"));
  ASSERT_TRUE(figure.budget);
  EXPECT_DOUBLE_EQ(figure.budget->x, 1e12);
  EXPECT_EQ(figure.budget->label, "compute <= 1e+12 FLOPs (within 2 %)");
  ASSERT_EQ(figure.curves.size(), 3u);
  ASSERT_TRUE(figure.curves[0].read_x && figure.curves[1].read_x);
  EXPECT_DOUBLE_EQ(*figure.curves[0].read_x, 1e12);
  EXPECT_DOUBLE_EQ(*figure.curves[0].read_y, 4.0);
  EXPECT_DOUBLE_EQ(*figure.curves[1].read_x, 8e11);
  EXPECT_DOUBLE_EQ(*figure.curves[1].read_y, 4.6);
  EXPECT_FALSE(figure.curves[2].read_x) << "short of the budget: the table leaves it out";

  // The same readings a table at the budget makes (the sweep's runs in id order).
  std::vector<experiments::TableRun> runs;
  for (const auto& r : store.list_runs("s")) {
    experiments::TableRun t;
    t.id = r.id;
    t.status = r.status;
    runs.push_back(t);
  }
  experiments::RunReading reading(experiments::parse_budget("compute=least", "test"));
  experiments::read_run_values(runs, store, db::metric::kValidLoss, reading, "test");
  ASSERT_TRUE(runs[0].metric && runs[1].metric);
  EXPECT_DOUBLE_EQ(*runs[0].metric, *figure.curves[0].read_y);
  EXPECT_DOUBLE_EQ(*runs[1].metric, *figure.curves[1].read_y);

  const CurveFigure back = std::get<CurveFigure>(figure_from_json(to_json(Figure(figure))));
  ASSERT_TRUE(back.budget);
  EXPECT_EQ(back.budget->label, figure.budget->label);
  EXPECT_DOUBLE_EQ(back.budget->x, 1e12);
  EXPECT_DOUBLE_EQ(*back.curves[1].read_x, 8e11);
  EXPECT_DOUBLE_EQ(*back.curves[1].read_y, 4.6);
}

// A group's square is its members' mean reading, as a table cell's mean over seeds: at
// update 45 the seeds read 5 - 0.4 = 4.6 and 5 - 0.8 = 4.2 at update 40.
TEST(CurvesAtBudget, AGroupMarksItsRunsMeanReading) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_of_cost(store, "seed1", 1e10, 1.0, "finished", "6");
  run_of_cost(store, "seed2", 1e10, 2.0, "finished", "6");
  // A third seed of another group diverged at update 30: a divergence inside the budget is
  // its cell's result, so its group gets no square.
  const int64_t diverged = run_of_cost(store, "seed3", 1e10, 1.0, "running", "18");
  store.finish_run(diverged, "diverged", "loss is NaN", 30);
  CurveQuery query = valid_loss_at("update=45");
  query.x = XAxis::Update;
  query.group_by = {"model.layers"};
  const CurveFigure figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 2u);
  ASSERT_TRUE(figure.curves[0].read_x);
  EXPECT_DOUBLE_EQ(*figure.curves[0].read_x, 40);
  EXPECT_DOUBLE_EQ(*figure.curves[0].read_y, 4.4);
  EXPECT_FALSE(figure.curves[1].read_x);
  // Read at update 25 it had not diverged yet: its value at update 20.
  query.at = experiments::parse_budget("update=25", "test");
  const CurveFigure before = curves_from_store(store, query);
  ASSERT_TRUE(before.curves[1].read_x);
  EXPECT_DOUBLE_EQ(*before.curves[1].read_y, 4.8);
}

TEST(CurvesAtBudget, ABudgetOnAnotherAxisIsRefusedNamingAt) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_of_cost(store, "cheap", 1e10, 1.0, "finished");
  CurveQuery query = valid_loss_at("update=50");  // on a compute axis
  try {
    curves_from_store(store, query);
    FAIL() << "an update budget on a compute axis was drawn";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--at"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--x update"), std::string::npos) << e.what();
  }
  query.x = XAxis::Update;
  const CurveFigure figure = curves_from_store(store, query);
  EXPECT_DOUBLE_EQ(*figure.curves[0].read_x, 50);
  EXPECT_DOUBLE_EQ(*figure.curves[0].read_y, 4.5);
  EXPECT_FALSE(curves_from_store(store, CurveQuery{{}, "s", {}, {"valid_loss"}}).budget);
}

TEST(CurvesAtBudget, TheLineIsDrawnWhereEveryCurveEndsBeforeIt) {
  ensure_application(/*force_offscreen=*/true);
  CurveFigure f;
  f.x_kind = "update";
  f.curves.push_back({});
  f.curves[0].label = "1 run";
  f.curves[0].metric = "valid_loss";
  f.curves[0].step = {10, 20, 30};
  f.curves[0].value = {3.0, 2.5, 2.2};
  f.curves[0].read_x = 30;
  f.curves[0].read_y = 2.2;
  f.budget = BudgetLine{150, "update <= 150"};
  QCustomPlot plot;
  plot.setViewport(QRect(0, 0, 600, 400));
  setup_plot(plot, Figure(f));
  EXPECT_GT(plot.xAxis->range().upper, 150);  // the curve ends at 30: the axis reaches the line
  EXPECT_EQ(plot.itemCount(), 1);
  auto* line = qobject_cast<QCPItemStraightLine*>(plot.item(0));
  ASSERT_NE(line, nullptr);
  EXPECT_DOUBLE_EQ(line->point1->coords().x(), 150);
  EXPECT_DOUBLE_EQ(line->point2->coords().x(), 150);
  QStringList names;
  for (int i = 0; i < plot.legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
      names << item->plottable()->name();
  EXPECT_TRUE(names.contains("update <= 150")) << names.join(" | ").toStdString();
  EXPECT_TRUE(names.contains("value read at the budget")) << names.join(" | ").toStdString();
}

// Training FLOPs of 1e14-1e21 are ticked with SI prefixes: "100T", not "1e+05G".
TEST(CurvesAtBudget, ComputeAxesAreTickedWithSiPrefixes) {
  ensure_application(/*force_offscreen=*/true);
  for (const auto& [scale, prefix] : {std::pair{1e14, "T"}, {1e17, "P"}, {1e20, "E"}}) {
    CurveFigure f;
    f.x_kind = "compute";
    f.curves.push_back({});
    f.curves[0].metric = "valid_loss";
    f.curves[0].step = {0, 2 * scale, 4 * scale, 6 * scale};
    f.curves[0].value = {3.0, 2.5, 2.2, 2.0};
    QCustomPlot plot;
    plot.setViewport(QRect(0, 0, 600, 400));
    setup_plot(plot, Figure(f));
    plot.replot();
    const QVector<QString> labels = plot.xAxis->tickVectorLabels();
    ASSERT_FALSE(labels.isEmpty());
    int prefixed = 0;
    for (const QString& label : labels) {
      EXPECT_FALSE(label.contains('e')) << label.toStdString();
      if (label.endsWith(QLatin1String(prefix))) ++prefixed;
    }
    EXPECT_GE(prefixed, 2) << prefix;
  }
}

}  // namespace test_curves_at_budget
}  // namespace fathom::plot
