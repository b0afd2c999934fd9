// `export plot ...` end to end on a small store. The lead's `export` command is not needed:
// the test builds its own `export` parent, as cli/cmd_export.cpp will.
#include <gtest/gtest.h>
#include <unistd.h>

#include <QImage>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "cli/commands.h"
#include "db/store.h"
#include "experiments/report.h"
#include "experiments/value_at_budget.h"
#include "plot/figure.h"
#include "tests/support/temp_dir.h"

namespace fathom::cli {
// main.cpp's rule, minus the environment.
std::string resolve_db_path(const GlobalOptions& options) { return options.db; }
}  // namespace fathom::cli

namespace test_export_plot_cli {

// The running test's scratch directory (ExportPlotCli below), removed when it ends.
fathom::testing::TempDir* scratch = nullptr;
std::string temp_path(const std::string& name) { return scratch->file(name); }

// Parses `args` as `fathom export plot ...` and runs the callback.
void run(fathom::cli::GlobalOptions& options, std::vector<std::string> args) {
  CLI::App app{"test"};
  CLI::App* export_cmd = app.add_subcommand("export");
  fathom::cli::add_export_plot_command(*export_cmd, options);
  args.insert(args.begin(), {"export", "plot"});
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  app.parse(reversed);
}

std::string make_store() {
  const std::string path = temp_path("runs.db");
  auto store = fathom::db::Store::open(path);
  for (int r = 0; r < 2; ++r) {
    fathom::db::NewRun run;
    run.name = r == 0 ? "post-18L" : "admin-18L";
    run.sweep = "depth";
    run.config_json = R"({"model": {"init": ")" + std::string(r == 0 ? "xavier" : "admin") + "\"}}";
    const int64_t id = store.create_run(run);
    std::vector<fathom::db::MetricRow> rows;
    for (int step = 0; step < 50; ++step)
      rows.emplace_back(step * 10, "valid_loss", 5.0 / (1 + step) + r, 0.0);
    store.write_metrics(id, rows);
    if (r == 0) store.finish_run(id, "diverged", "loss is NaN", 490);
  }
  return path;
}

class ExportPlotCli : public ::testing::Test {
 protected:
  void SetUp() override { scratch = &scratch_; }
  void TearDown() override { scratch = nullptr; }
  fathom::testing::TempDir scratch_;
};

TEST_F(ExportPlotCli, CurvesFromASweep) {
  fathom::cli::GlobalOptions options;
  options.db = make_store();
  const std::string out = temp_path("curves.png"), spec = temp_path("curves.json");
  run(options,
      {"curves", "--sweep", "depth", "--metric", "valid_loss", "--smooth", "0.6", "--colour-by",
       "model.init", "--size", "3x2", "--dpi", "100", "--out", out, "--save-json", spec});
  QImage image(QString::fromStdString(out));
  EXPECT_EQ(image.width(), 300);
  EXPECT_EQ(image.height(), 200);
  const auto figure = std::get<fathom::plot::CurveFigure>(fathom::plot::load_figure(spec));
  ASSERT_EQ(figure.curves.size(), 2u);
  EXPECT_EQ(figure.curves[0].colour_key, "xavier");
  EXPECT_EQ(*figure.curves[0].diverged_step, 490.0);

  // The saved JSON draws again through `figure`.
  const std::string again = temp_path("again.svg");
  run(options, {"figure", spec, "--out", again});
  EXPECT_TRUE(std::ifstream(again).good());
}

// --reference draws a run beside the selection, first, in its own style.
TEST_F(ExportPlotCli, AReferenceRunIsDrawnFirstInItsOwnStyle) {
  fathom::cli::GlobalOptions options;
  options.db = make_store();
  const std::string out = temp_path("reference.svg"), spec = temp_path("reference.json");
  run(options, {"curves", "--runs", "2", "--reference", "1", "--metric", "valid_loss",
                "--colour-by", "model.init", "--out", out, "--save-json", spec});
  const auto figure = std::get<fathom::plot::CurveFigure>(fathom::plot::load_figure(spec));
  ASSERT_EQ(figure.curves.size(), 2u);
  EXPECT_EQ(figure.curves[0].label, "1 post-18L (reference)");
  EXPECT_EQ(figure.curves[0].colour_key, "run 1");
  EXPECT_EQ(figure.curves[1].label, "2 admin-18L (model.init=admin)");
}

// --at draws the budget on its own axis (--x follows it) and marks where each run is read: the
// last validation inside it (update 90 of 0, 10, ..., 490 at update=95: 5 / 10 + r).
TEST_F(ExportPlotCli, CurvesAtABudgetDrawItAndTheValuesReadThere) {
  fathom::cli::GlobalOptions options;
  options.db = make_store();
  const std::string spec = temp_path("at.json");
  run(options, {"curves", "--sweep", "depth", "--metric", "valid_loss", "--at", "update=95",
                "--out", temp_path("at.png"), "--save-json", spec});
  const auto figure = std::get<fathom::plot::CurveFigure>(fathom::plot::load_figure(spec));
  EXPECT_EQ(figure.x_kind, "update");
  ASSERT_TRUE(figure.budget);
  EXPECT_EQ(figure.budget->x, 95.0);
  EXPECT_EQ(figure.budget->label, "update <= 95");
  ASSERT_EQ(figure.curves.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(*figure.curves[r].read_x, 90.0);
    EXPECT_DOUBLE_EQ(*figure.curves[r].read_y, 0.5 + r);
  }
  // Another x axis than the budget's, and a least budget where no run finished.
  EXPECT_THROW(run(options, {"curves", "--sweep", "depth", "--metric", "valid_loss", "--at",
                             "update=95", "--x", "time", "--out", temp_path("x.png")}),
               fathom::InputError);
  EXPECT_THROW(run(options, {"curves", "--sweep", "depth", "--metric", "valid_loss", "--at",
                             "update=least", "--out", temp_path("x.png")}),
               fathom::InputError);
}

// `budgets` takes its budgets comma-separated: a 2- and a 4-layer run (1e10 and 2e10 FLOPs an
// update, validated at updates 100 and 200) at 2e12 and 4e12 FLOPs -- two lines over the depths.
TEST_F(ExportPlotCli, BudgetsDrawsALinePerBudgetOverTheDepths) {
  fathom::cli::GlobalOptions options;
  options.db = temp_path("depth.db");
  {
    auto store = fathom::db::Store::open(options.db);
    for (int layers : {2, 4}) {
      fathom::db::NewRun run;
      run.name = "d/" + std::to_string(layers);
      run.sweep = "d";
      const int64_t id = store.create_run(run);
      store.set_tag(id, "axis.model.layers", std::to_string(layers));
      store.write_metrics(id, {{100, "valid_loss", 4.0 - layers * 0.1, 0.0},
                               {100, "train_flops", layers * 0.5e12, 0.0},
                               {200, "valid_loss", 3.0 - layers * 0.1, 0.0},
                               {200, "train_flops", layers * 1e12, 0.0}});
      store.finish_run(id, "finished");
    }
  }
  const std::string spec = temp_path("budgets.json");
  ::testing::internal::CaptureStdout();
  run(options,
      {"budgets", "--sweep", "d", "--x", "model.layers", "--at", "compute=1e12,compute=2e12",
       "--out", temp_path("budgets.png"), "--save-json", spec});
  const std::string said = ::testing::internal::GetCapturedStdout();
  // Each line's optimum is said: two depths (one at 1e12) are too few for one.
  EXPECT_NE(said.find("optimum: compute <= 1e+12 FLOPs: no optimum: 1 point with a value (3 "
                      "needed)\n"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("optimum: compute <= 2e+12 FLOPs: no optimum: 2 points"), std::string::npos)
      << said;
  // --json: the optima beside the files written.
  options.json = true;
  ::testing::internal::CaptureStdout();
  run(options, {"budgets", "--sweep", "d", "--x", "model.layers", "--at", "compute=2e12", "--out",
                temp_path("again.png")});
  const auto listed = nlohmann::json::parse(::testing::internal::GetCapturedStdout());
  options.json = false;
  ASSERT_EQ(listed.at("optima").size(), 1u);
  EXPECT_EQ(listed["optima"][0]["points"], 2);
  EXPECT_TRUE(listed["optima"][0]["best"].is_null());
  EXPECT_EQ(listed.at("files").size(), 1u);
  const auto figure = std::get<fathom::plot::LineFigure>(fathom::plot::load_figure(spec));
  ASSERT_EQ(figure.series.size(), 2u);
  EXPECT_EQ(figure.series[0].name, "compute <= 1e+12 FLOPs");
  // At 1e12: the 2-layer run at update 100 (3.8), the 4-layer one at update 100 (2e12 > 1e12:
  // none inside -- a gap). At 2e12: update 200 (2.8) and update 100 (3.6).
  EXPECT_DOUBLE_EQ(figure.series[0].y[0], 3.8);
  EXPECT_TRUE(std::isnan(figure.series[0].y[1]));
  EXPECT_DOUBLE_EQ(figure.series[1].y[0], 2.8);
  EXPECT_DOUBLE_EQ(figure.series[1].y[1], 3.6);
  // A report's renderer draws the same figure at page width into its folder.
  const auto store = fathom::db::Store::open(options.db, fathom::db::OpenMode::ReadOnly);
  const auto render = fathom::cli::report_budgets_renderer(store, scratch->path().string());
  ASSERT_TRUE(render);
  fathom::experiments::BudgetsRequest request;
  request.sweep = "d";
  request.x = "model.layers";
  request.metric = "valid_loss";
  request.at = fathom::experiments::parse_budget("compute=2e12", "test");
  request.select_by = "valid_loss";
  request.file_stem = "budgets-valid_loss";
  EXPECT_EQ(render(request), "budgets-valid_loss.png");
  EXPECT_EQ(QImage(QString::fromStdString(temp_path("budgets-valid_loss.png"))).width(), 2070);
  EXPECT_THROW(run(options, {"budgets", "--sweep", "d", "--x", "model.layers", "--at", "flops=1e12",
                             "--out", temp_path("x.png")}),
               fathom::InputError);
}

// Over three budgets `budgets` says how the best depth grows with the budget: depths 2, 4, 8,
// the vertex in ln(depth) at ln 4 + d ln 2 for d = -0.2, 0, 0.2 at updates 100, 200, 400 (means
// 2 + (1 + 2d)/2, 2, 2 + (1 - 2d)/2): exponent 0.2 ln 2 / ln 2 = 0.2.
TEST_F(ExportPlotCli, BudgetsSaysTheBestDepthsExponentOverThreeBudgets) {
  fathom::cli::GlobalOptions options;
  options.db = temp_path("scaling.db");
  {
    auto store = fathom::db::Store::open(options.db);
    const int depths[3] = {2, 4, 8};
    for (int i = 0; i < 3; ++i)
      for (int seed : {-1, 1}) {
        fathom::db::NewRun run;
        run.name = "d/" + std::to_string(depths[i]) + "/" + std::to_string(seed);
        run.sweep = "d";
        const int64_t id = store.create_run(run);
        store.set_tag(id, "axis.model.layers", std::to_string(depths[i]));
        std::vector<fathom::db::MetricRow> rows;
        for (int k = 0; k < 3; ++k) {
          const double d = 0.2 * (k - 1), means[3] = {2 + (1 + 2 * d) / 2, 2, 2 + (1 - 2 * d) / 2};
          rows.emplace_back(100 << k, "valid_loss", means[i] + 0.01 * seed, 0.0);
        }
        store.write_metrics(id, rows);
        store.finish_run(id, "finished");
      }
  }
  const std::vector<std::string> args = {"budgets",
                                         "--sweep",
                                         "d",
                                         "--x",
                                         "model.layers",
                                         "--at",
                                         "update=100,update=200,update=400",
                                         "--out",
                                         temp_path("scaling.png")};
  ::testing::internal::CaptureStdout();
  run(options, args);
  const std::string said = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(said.find("scaling: valid_loss: best layers grows as update^0.2 (95 % CI "),
            std::string::npos)
      << said;
  options.json = true;
  ::testing::internal::CaptureStdout();
  run(options, args);
  const auto listed = nlohmann::json::parse(::testing::internal::GetCapturedStdout());
  ASSERT_EQ(listed.at("scalings").size(), 1u);
  EXPECT_NEAR(listed["scalings"][0]["exponent"].get<double>(), 0.2, 1e-9);
  EXPECT_EQ(listed["scalings"][0]["budgets"], 3);
  // Where the ends were read (the expanded percentile's): two runs a depth, one each, pooled.
  EXPECT_EQ(listed["scalings"][0]["interval_df"], 3);
  EXPECT_FALSE(listed["scalings"][0]["inconclusive"].get<bool>());
  options.json = false;
  // --scaling-out: the best depth against the budget, log-log; refused over two budgets.
  std::vector<std::string> drawn = args;
  drawn.insert(drawn.end(), {"--scaling-out", temp_path("scaling-fit.png")});
  ::testing::internal::CaptureStdout();
  run(options, drawn);
  ::testing::internal::GetCapturedStdout();
  EXPECT_GT(QImage(QString::fromStdString(temp_path("scaling-fit.png"))).width(), 0);
  drawn[6] = "update=100,update=200";
  EXPECT_THROW(run(options, drawn), fathom::InputError);
}

// --agg best: each depth at its best learning rate at the budget, chosen on valid_loss read at
// the budget (update 100) -- not at the run's end, where the other rate is better.
TEST_F(ExportPlotCli, BudgetsTakesEachDepthsBestRateAtTheBudget) {
  fathom::cli::GlobalOptions options;
  options.db = temp_path("rates.db");
  {
    auto store = fathom::db::Store::open(options.db);
    for (int layers : {2, 4, 8})
      for (const std::string lr : {"0.001", "0.01"})
        for (int seed : {1, 2}) {
          fathom::db::NewRun run;
          run.name = "d/" + std::to_string(layers) + "/" + lr + "/" + std::to_string(seed);
          run.sweep = "d";
          const int64_t id = store.create_run(run);
          store.set_tag(id, "axis.model.layers", std::to_string(layers));
          store.set_tag(id, "axis.train.lr", lr);
          store.set_tag(id, "axis.train.seed", std::to_string(seed));
          // 0.01 is better at update 100 (by 0.5), 0.001 at the end (update 200).
          const double at_100 = 3.0 + 0.1 * layers - (lr == "0.01" ? 0.5 : 0) + 0.01 * seed;
          const double at_200 = lr == "0.01" ? 2.0 : 1.0;
          store.write_metrics(id,
                              {{100, "valid_loss", at_100, 0.0}, {200, "valid_loss", at_200, 0.0}});
          store.set_final_metric(id, "valid_loss", at_200);
          store.finish_run(id, "finished");
        }
  }
  const std::string spec = temp_path("rates.json");
  ::testing::internal::CaptureStdout();
  run(options, {"budgets", "--sweep", "d", "--x", "model.layers", "--at", "update=100", "--agg",
                "best", "--out", temp_path("rates.png"), "--save-json", spec});
  ::testing::internal::GetCapturedStdout();
  const auto best = std::get<fathom::plot::LineFigure>(fathom::plot::load_figure(spec));
  ASSERT_FALSE(best.series.empty());
  // Depth 2 at lr 0.01: 3.0 + 0.2 - 0.5 + 0.015 (the two seeds' mean).
  EXPECT_NEAR(best.series[0].y[0], 2.715, 1e-9);
  EXPECT_NEAR(best.series[0].y[2], 3.0 + 0.8 - 0.5 + 0.015, 1e-9);
  // Pooled (the default): the mean over both rates, 0.25 worse.
  ::testing::internal::CaptureStdout();
  run(options, {"budgets", "--sweep", "d", "--x", "model.layers", "--at", "update=100", "--out",
                temp_path("pooled.png"), "--save-json", spec});
  ::testing::internal::GetCapturedStdout();
  const auto pooled = std::get<fathom::plot::LineFigure>(fathom::plot::load_figure(spec));
  EXPECT_NEAR(pooled.series[0].y[0], 2.965, 1e-9);
}

TEST_F(ExportPlotCli, GroupedCurvesWithBandsAndMarkers) {
  fathom::cli::GlobalOptions options;
  options.db = make_store();
  const std::string out = temp_path("grouped.svg"), spec = temp_path("grouped.json");
  // Neither run has model.depth: both fall in one group "depth=?".
  run(options, {"curves", "--sweep", "depth", "--metric", "valid_loss", "--group-by", "model.depth",
                "--band", "minmax", "--out", out, "--save-json", spec});
  EXPECT_TRUE(std::ifstream(out).good());
  const auto figure = std::get<fathom::plot::CurveFigure>(fathom::plot::load_figure(spec));
  EXPECT_EQ(figure.band, "minmax");
  ASSERT_EQ(figure.curves.size(), 1u);
  const auto& group = figure.curves[0];
  EXPECT_EQ(group.label, "depth=? (n=2, 1 diverged)");
  ASSERT_EQ(group.value.size(), 50u);
  // Run 1 is run 0 plus one: the mean is run 0 + 0.5, the band runs from run 0 to run 1.
  EXPECT_DOUBLE_EQ(group.value[4], 5.0 / 5 + 0.5);
  EXPECT_DOUBLE_EQ(group.band_lo[4], 1.0);
  EXPECT_DOUBLE_EQ(group.band_hi[4], 2.0);
  ASSERT_EQ(group.ends.size(), 1u);  // the diverged post-18L at its last point
  EXPECT_EQ(group.ends[0].x, 490);
  EXPECT_DOUBLE_EQ(group.ends[0].y, 5.0 / 50);

  // The runs never started: no time axis to draw them on. Grouping colours by group.
  EXPECT_THROW(run(options, {"curves", "--sweep", "depth", "--metric", "valid_loss", "--x", "time",
                             "--out", temp_path("t.png")}),
               fathom::InputError);
  EXPECT_THROW(run(options, {"curves", "--sweep", "depth", "--metric", "valid_loss", "--group-by",
                             "axes", "--colour-by", "model.init", "--out", temp_path("t.png")}),
               fathom::InputError);
}

// Sweep "lr": pre and post at rates 1e-3 and 1e-2, finished, valid_loss over a vocabulary of 10.
std::string make_lr_store() {
  const std::string path = temp_path("lr.db");
  auto store = fathom::db::Store::open(path);
  for (const char* norm : {"pre", "post"})
    for (const char* lr : {"0.001", "0.01"}) {
      fathom::db::NewRun run;
      run.name = std::string("lr/") + norm + lr;
      run.sweep = "lr";
      run.config_json =
          R"({"model":{"norm":")" + std::string(norm) + R"("},"train":{"lr":)" + lr + "}}";
      const int64_t id = store.create_run(run);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.lr", lr);
      const double loss = std::string(lr) == "0.001" ? 1.0 : 2.0;
      // l0 at update 0, and the loss at the end of training.
      store.write_metrics(id,
                          {{0, "valid_loss", std::log(10.0), 0.0}, {100, "valid_loss", loss, 0.0}});
      store.set_final_metric(id, "valid_loss", loss);
      store.finish_run(id, "finished");
    }
  return path;
}

// --where draws part of a sweep (one method of 8 x 2 depths is unreadable in a column) and
// says which part, for the caption; a filter that keeps nothing names --where.
TEST_F(ExportPlotCli, WhereDrawsPartOfASweepAndSaysWhichPart) {
  fathom::cli::GlobalOptions options;
  options.db = make_lr_store();
  const std::string spec = temp_path("lr.json");
  ::testing::internal::CaptureStdout();
  run(options, {"lr-sensitivity", "--sweep", "lr", "--where", "norm=pre", "--out",
                temp_path("lr.png"), "--save-json", spec});
  std::string printed = ::testing::internal::GetCapturedStdout();
  const auto figure = std::get<fathom::plot::CurveFigure>(fathom::plot::load_figure(spec));
  ASSERT_EQ(figure.curves.size(), 1u);
  EXPECT_EQ(figure.curves[0].value, (std::vector<double>{1.0, 2.0}));
  EXPECT_NE(printed.find("note: only the runs where norm=pre (2 of 4)\n"), std::string::npos)
      << printed;

  ::testing::internal::CaptureStdout();
  run(options, {"parallel", "--sweep", "lr", "--metric", "valid_loss", "--where", "lr=0.01",
                "--out", temp_path("parallel.png")});
  printed = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(printed.find("only the runs where lr=0.01 (2 of 4)\n"), std::string::npos) << printed;

  try {
    run(options, {"lr-sensitivity", "--sweep", "lr", "--where", "norm=peri", "--out",
                  temp_path("none.png")});
    FAIL() << "a filter that keeps no run was accepted";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "--where");
  }
}

// `export plot importance` over the store: the lr sweep's 2 x 2 grid (every cell one run:
// lr 1e-3 -> loss 1, 1e-2 -> 2, so lr explains all of V) is written with its notes; a sweep
// whose every axis has one value is refused, saying so.
TEST_F(ExportPlotCli, ImportanceBarsOfASweepAndASweepWithNothingSwept) {
  fathom::cli::GlobalOptions options;
  options.db = make_lr_store();
  const std::string out = temp_path("importance.png");
  ::testing::internal::CaptureStdout();
  run(options, {"importance", "--sweep", "lr", "--out", out, "--dpi", "100"});
  const std::string printed = ::testing::internal::GetCapturedStdout();
  QImage image(QString::fromStdString(out));
  EXPECT_EQ(image.width(), 330);  // the column size, 3.3 in at 100 dpi
  EXPECT_NE(printed.find("note: 4 settings of 2 axes, 4 runs"), std::string::npos) << printed;

  try {
    run(options, {"importance", "--sweep", "lr", "--where", "lr=0.01 and norm=pre", "--out",
                  temp_path("one.png")});
    FAIL() << "a sweep with one value per axis was decomposed";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "--sweep");
    EXPECT_NE(std::string(e.what()).find("has two values"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::ifstream(temp_path("one.png")).good());
}

// `fathom report`'s training-curve figure (cli/report_figures.cpp): page width and height for
// a short legend; a legend of a dozen entries, which stands above the axes a line each, gets
// a taller figure, and each further entry more, so the axes keep their room -- up to 40
// entries (8.8 in, about a page's text; 210 runs made a figure 38 in tall). A figure of 60
// runs is a page figure again, its legend left out and said so.
TEST_F(ExportPlotCli, AReportFigureGrowsWithItsLegend) {
  const std::string path = temp_path("many.db");
  std::vector<int64_t> ids;
  {
    auto store = fathom::db::Store::open(path);
    for (int r = 0; r < 60; ++r) {
      fathom::db::NewRun run;
      run.name = "run" + std::to_string(r);
      run.config_json = "{}";
      ids.push_back(store.create_run(run));
      store.write_metrics(ids.back(),
                          {{0, "valid_loss", 5.0 + r, 0.0}, {10, "valid_loss", 4.0 + r, 0.0}});
    }
  }
  const auto store = fathom::db::Store::open(path, fathom::db::OpenMode::ReadOnly);
  const auto render = fathom::cli::report_curves_renderer(store, scratch->path().string());
  ASSERT_TRUE(render);
  auto height = [&](size_t runs) {
    fathom::experiments::CurvesRequest request;
    request.title = "valid_loss";
    request.runs.assign(ids.begin(), ids.begin() + static_cast<long>(runs));
    request.metrics = {"valid_loss"};
    request.file_stem = "curves-" + std::to_string(runs);
    const std::string file = render(request);
    const QImage image(QString::fromStdString(temp_path(file)));
    EXPECT_EQ(image.width(), 2070) << runs;  // 6.9 in at 300 dpi
    return image.height();
  };
  EXPECT_EQ(height(2), 840);  // 2.8 in
  const int twelve = height(12), thirteen = height(13);
  EXPECT_GT(twelve, 840);
  EXPECT_GT(thirteen, twelve);
  EXPECT_EQ(height(40), 2640);  // 8.8 in
  EXPECT_EQ(height(60), 840);
}

TEST_F(ExportPlotCli, RejectsBadInput) {
  fathom::cli::GlobalOptions options;
  options.db = make_store();
  EXPECT_THROW(run(options, {"curves", "--metric", "valid_loss", "--out", temp_path("x.png")}),
               fathom::InputError);  // neither --runs nor --sweep
  EXPECT_THROW(run(options, {"curves", "--runs", "99", "--metric", "valid_loss", "--out",
                             temp_path("x.png")}),
               fathom::InputError);
  EXPECT_THROW(run(options, {"curves", "--runs", "1", "--metric", "valid_loss", "--out",
                             temp_path("x.gif")}),
               fathom::InputError);
  EXPECT_THROW(run(options, {"curves", "--runs", "1", "--metric", "valid_loss", "--size", "big",
                             "--out", temp_path("x.png")}),
               fathom::InputError);
}

TEST_F(ExportPlotCli, BetaAnalysisWritesOneFilePerStack) {
  fathom::cli::GlobalOptions options;
  const std::string result = temp_path("beta.json");
  std::ofstream(result)
      << R"({"encoder": {"labels": ["e", "s0"], "rows": ["s0"], "beta": [[0.6, 0.8]]},
                               "decoder": {"labels": ["d", "t0"], "rows": ["t0"], "beta": [[0.8, 0.6]]}})";
  run(options, {"analysis", result, "--kind", "beta", "--out", temp_path("beta.pdf")});
  EXPECT_TRUE(std::ifstream(temp_path("beta-encoder.pdf")).good());
  EXPECT_TRUE(std::ifstream(temp_path("beta-decoder.pdf")).good());
}

// Two runs' probes become one heatmap file per run on one colour range, the saved JSON has
// sub-layers down and updates across; a probe a run lacks is refused naming the ones it has.
TEST_F(ExportPlotCli, ProbeHeatmapsOfTwoRunsShareTheirScale) {
  fathom::cli::GlobalOptions options;
  options.db = make_store();
  {
    auto store = fathom::db::Store::open(options.db);
    for (int64_t run : {1, 2}) {
      const auto lease = store.mark_running(run, "h", "cpu");
      std::vector<fathom::db::ProbeRow> rows;
      for (int64_t step : {25, 50, 75})
        rows.push_back({step,
                        "attn.max_logit",
                        {"enc.0.self_attn.h0", "enc.0.self_attn.h1", "enc.1.self_attn.h0",
                         "enc.1.self_attn.h1"},
                        {1.0f * run, 2.0f * run, 3.0f * step / 25, 0.5f},
                        0});
      store.write_probes(lease, rows);
      store.finish_run(lease, "finished");
    }
  }
  const std::string out = temp_path("probe.png"), spec = temp_path("probe.json");
  run(options, {"probe", "--runs", "1,2", "--probe", "attn.max_logit", "--size", "3x2", "--dpi",
                "100", "--out", out, "--save-json", spec});
  EXPECT_EQ(QImage(QString::fromStdString(temp_path("probe-run1.png"))).width(), 300);
  EXPECT_EQ(QImage(QString::fromStdString(temp_path("probe-run2.png"))).width(), 300);
  std::ifstream in(spec);
  const auto saved = nlohmann::json::parse(in);
  ASSERT_EQ(saved.size(), 2u);
  const auto second = std::get<fathom::plot::Heatmap>(fathom::plot::figure_from_json(saved[1]));
  EXPECT_EQ(second.title, "#2 admin-18L");
  EXPECT_EQ(second.row_labels, (std::vector<std::string>{"enc.0.self_attn", "enc.1.self_attn"}));
  EXPECT_EQ(second.values[0], (std::vector<double>{4, 4, 4}));  // max(2, 4) at every update
  EXPECT_EQ(second.values[1], (std::vector<double>{3, 6, 9}));
  EXPECT_EQ(second.vmin, 2.0);  // both runs: run 1's smallest max is 2, the largest 9
  EXPECT_EQ(second.vmax, 9.0);

  try {
    run(options, {"probe", "--runs", "1", "--probe", "stream.rms", "--out", temp_path("x.png")});
    ADD_FAILURE() << "a missing probe was accepted";
  } catch (const fathom::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("it has attn.max_logit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run(options, {"probe", "--runs", "1", "--probe", "attn.max_logit", "--heads",
                             "median", "--out", temp_path("x.png")}),
               fathom::InputError);
}

}  // namespace test_export_plot_cli
