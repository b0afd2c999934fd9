// The time-to-target figure (plot/reach_figure.h) over hand-made tables: a line per column
// through its complete cells in ascending batch with their intervals, the rows' best cells on a
// line of their own, the fit S_min (1 + B_crit / B) evaluated as the formula says, B_simple as
// a vertical line over the data's range; and `fathom export plot reach` end to end on a sweep
// made by the model, whose fit recovers it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "experiments/reach_text.h"
#include "experiments/report.h"
#include "plot/reach_figure.h"
#include "tests/support/critical_batch_sweep.h"
#include "tests/support/temp_dir.h"

namespace test_reach_figure {

using fathom::experiments::ReachCell;

ReachCell cell(std::string row, std::string col, int runs, int reached, double updates, double ci,
               double batch) {
  ReachCell c;
  c.row = std::move(row);
  c.col = std::move(col);
  c.runs = runs;
  c.reached = reached;
  c.updates = updates;
  c.updates_ci95 = ci;
  c.tokens_per_update = batch;
  c.tokens = updates * batch;
  return c;
}

// Two batches by two rates, the big batch's first listed; one cell with a run that never got
// there.
fathom::experiments::ReachTable two_by_two() {
  fathom::experiments::ReachTable t;
  t.cells = {cell("2048", "1e-3", 2, 2, 150, 12, 2000), cell("2048", "2e-3", 2, 2, 120, NAN, 2010),
             cell("512", "1e-3", 2, 2, 400, 30, 500), cell("512", "2e-3", 2, 1, 300, NAN, 505)};
  t.best = {1, 2};  // 2048's fastest complete cell is 2e-3; 512's is 1e-3 (2e-3 is incomplete)
  return t;
}

fathom::experiments::ReachOptions options(std::string cols) {
  fathom::experiments::ReachOptions o;
  o.rows = "data.max_tokens";
  o.cols = std::move(cols);
  o.metric = "valid_loss";
  o.target = 2.0;
  return o;
}

TEST(ReachFigure, ALinePerColumnThroughItsCompleteCellsAndTheBestOfEachRow) {
  const auto f = fathom::plot::reach_figure(two_by_two(), options("train.lr"));
  EXPECT_EQ(f.x.scale, fathom::plot::Scale::Log);
  EXPECT_EQ(f.y.scale, fathom::plot::Scale::Log);
  ASSERT_EQ(f.series.size(), 3u);
  const auto& slow = f.series[0];
  EXPECT_EQ(slow.name, "train.lr=1e-3");
  EXPECT_EQ(slow.x, (std::vector<double>{500, 2000}));  // ascending batch
  EXPECT_EQ(slow.y, (std::vector<double>{400, 150}));
  EXPECT_EQ(slow.err, (std::vector<double>{30, 12}));
  const auto& fast = f.series[1];
  EXPECT_EQ(fast.x, (std::vector<double>{2010}));  // 512 at 2e-3: one run never got there
  const auto& best = f.series[2];
  EXPECT_EQ(best.name, fathom::plot::kBestCellsSeries);
  EXPECT_EQ(best.x, (std::vector<double>{500, 2010}));
  EXPECT_EQ(best.y, (std::vector<double>{400, 120}));
  EXPECT_TRUE(best.fit_of.empty());
}

TEST(ReachFigure, TheFitIsTheModelOverTheBestCellsAndBSimpleAVerticalLine) {
  fathom::experiments::CriticalBatchFit fit;
  fit.s_min = 100;
  fit.b_crit = 500;
  fit.r2 = 0.97;
  fit.points = 2;
  const auto f = fathom::plot::reach_figure(two_by_two(), options("train.lr"), fit, 300.0);
  ASSERT_EQ(f.series.size(), 5u);
  const auto& model = f.series[3];
  EXPECT_EQ(model.fit_of, fathom::plot::kBestCellsSeries);
  ASSERT_EQ(model.x.size(), 64u);
  EXPECT_DOUBLE_EQ(model.x.front(), 500);  // the best cells' range of batches
  EXPECT_NEAR(model.x.back(), 2010, 1e-9);
  for (size_t i = 0; i < model.x.size(); ++i)
    EXPECT_NEAR(model.y[i], 100 * (1 + 500 / model.x[i]), 1e-9);
  EXPECT_NE(model.name.find("B_crit 500"), std::string::npos) << model.name;
  const auto& b_simple = f.series[4];
  EXPECT_EQ(b_simple.x, (std::vector<double>{300, 300}));
  EXPECT_EQ(b_simple.fit_of, "B_simple");  // drawn dashed in a colour of its own
  // From the lowest point drawn to the highest: 120 (best) to 400 (model at 500: 200).
  EXPECT_EQ(b_simple.y, (std::vector<double>{120, 400}));
  EXPECT_NE(b_simple.name.find("300"), std::string::npos);
}

// Runs that logged no target_tokens have no batch: no point of theirs is drawn, not even as a
// row's best.
TEST(ReachFigure, ACellWithoutABatchIsNotDrawn) {
  auto t = two_by_two();
  t.cells[1].tokens_per_update = NAN;  // 2048's best
  const auto f = fathom::plot::reach_figure(t, options("train.lr"));
  for (const auto& s : f.series)
    for (double x : s.x) EXPECT_TRUE(std::isfinite(x)) << s.name;
  ASSERT_EQ(f.series.size(), 2u);  // 2e-3 has no drawable cell left: no line
  EXPECT_EQ(f.series[1].name, fathom::plot::kBestCellsSeries);
  EXPECT_EQ(f.series[1].x, (std::vector<double>{500}));  // 512's best alone
}

// One column: its line is each row's best already, and the fit is drawn as its fit.
TEST(ReachFigure, OneColumnIsTheBestLineItself) {
  fathom::experiments::ReachTable t;
  t.cells = {cell("512", "", 2, 2, 400, 30, 500), cell("2048", "", 2, 2, 150, 12, 2000)};
  t.best = {0, 1};
  fathom::experiments::CriticalBatchFit fit;
  fit.s_min = 100;
  fit.b_crit = 500;
  const auto f = fathom::plot::reach_figure(t, options(""), fit);
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "every run");
  EXPECT_EQ(f.series[1].fit_of, "every run");
}

// A zip group's columns are named by its first key: its others vary with it.
TEST(ReachFigure, AZipGroupsColumnIsNamedByItsFirstKey) {
  fathom::experiments::ReachTable t;
  t.cells = {cell("1e-3", "256 / 500", 1, 1, 400, NAN, 256),
             cell("2e-3", "256 / 500", 1, 1, 300, NAN, 256)};
  const auto f = fathom::plot::reach_figure(t, options("train.update_tokens+train.max_updates"));
  ASSERT_EQ(f.series.size(), 1u);
  EXPECT_EQ(f.series[0].name, "train.update_tokens=256");
}

// The command line over a sweep made by S = 100 (1 + 500 / B): its JSON figure has the fit's
// B_crit, and the PNG is written.
TEST(ReachFigure, ExportPlotReachFitsTheSweepsModel) {
  fathom::testing::TempDir dir;
  const std::string db = dir.file("runs.db");
  fathom::testing::write_critical_batch_sweep(db);
  fathom::cli::GlobalOptions global;
  global.db = db;
  CLI::App app{"test"};
  CLI::App* export_cmd = app.add_subcommand("export");
  fathom::cli::add_export_plot_command(*export_cmd, global);
  std::vector<std::string> args{"export",
                                "plot",
                                "reach",
                                "--sweep",
                                "b",
                                "--metric",
                                "valid_loss",
                                "--target",
                                "2.0",
                                "--rows",
                                "data.max_tokens",
                                "--cols",
                                "train.lr",
                                "--fit-critical-batch",
                                "--out",
                                dir.file("reach.png"),
                                "--save-json",
                                dir.file("reach.json")};
  app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
  std::ifstream png(dir.file("reach.png"), std::ios::binary | std::ios::ate);
  EXPECT_GT(png.tellg(), 1000);
  const auto j = nlohmann::json::parse(std::ifstream(dir.file("reach.json")));
  ASSERT_EQ(j["series"].size(), 4u);  // two rates, the best cells, the fit
  // B_crit with its bootstrap interval over the seeds' 5 % spread, which holds it.
  const std::string fit = j["series"][3]["name"];
  EXPECT_EQ(fit.rfind("S_min (1 + B_crit / B): B_crit 500 [", 0), 0u) << fit;
  const double lo = std::stod(fit.substr(fit.find('[') + 1)),
               hi = std::stod(fit.substr(fit.find(", ", fit.find('[')) + 2));
  EXPECT_LT(lo, 500) << fit;
  EXPECT_GT(hi, 500) << fit;
  // The best cells are the fast rate's: S = 100 (1 + 500 / B) at each batch.
  const auto& best = j["series"][2];
  for (size_t i = 0; i < fathom::testing::kSweepBatches.size(); ++i) {
    const double b = fathom::testing::kSweepBatches[i];
    EXPECT_NEAR(best["x"][i].get<double>(), b, 1e-9);
    EXPECT_NEAR(best["y"][i].get<double>(), 100 * (1 + 500 / b), 1e-9);
  }
}

// A report's time-to-target section draws the same figure beside its table, the fit with it.
TEST(ReachFigure, AReportsReachSectionDrawsIt) {
  fathom::testing::TempDir dir;
  const std::string db = dir.file("runs.db");
  fathom::testing::write_critical_batch_sweep(db);
  const auto store = fathom::db::Store::open(db, fathom::db::OpenMode::ReadOnly);
  fathom::experiments::ReportOptions options;
  options.out_dir = dir.file("report");
  options.reach = fathom::experiments::reach_request("valid_loss=2.0");
  options.reach->fit_critical_batch = true;
  options.render_reach = fathom::cli::report_reach_renderer(options.out_dir);
  std::ifstream in(fathom::experiments::write_report(store, "b", options));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("B_crit 500 target tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("![updates to valid_loss 2 against the batch](reach-valid_loss.png)"),
            std::string::npos)
      << text;
  std::ifstream png(dir.file("report/reach-valid_loss.png"), std::ios::binary | std::ios::ate);
  EXPECT_GT(png.tellg(), 1000);
}

}  // namespace test_reach_figure
