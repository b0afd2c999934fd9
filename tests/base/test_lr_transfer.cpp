// Learning-rate transfer across depth (experiments/lr_transfer.h) against values worked by
// hand: the parabola's vertex in log rate, a best rate at the grid's edge left unbracketed, its
// interval, and the slope of ln(best rate) on ln(depth) with the bootstrap's.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/util/error.h"
#include "db/store.h"
#include "experiments/hparam_importance.h"
#include "experiments/lr_transfer.h"
#include "experiments/report.h"
#include "tests/support/temp_dir.h"

namespace test_lr_transfer {
using namespace fathom;

// y = (x - 0.25)^2 at x = -1, 0, 1 (1.5625, 0.0625, 0.5625): vertex 0.25. Uneven spacing, the
// same parabola at x = -2, 0, 0.5 (5.0625, 0.0625, 0.0625): still 0.25. A flat middle (not
// convex) keeps the middle; a vertex beyond the outer points is clamped to them.
TEST(LrTransfer, TheParabolasVertex) {
  EXPECT_NEAR(experiments::parabola_vertex(-1, 0, 1, 1.5625, 0.0625, 0.5625), 0.25, 1e-12);
  EXPECT_NEAR(experiments::parabola_vertex(-2, 0, 0.5, 5.0625, 0.0625, 0.0625), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(experiments::parabola_vertex(-1, 0, 1, 1, 1, 1), 0);
  EXPECT_DOUBLE_EQ(experiments::parabola_vertex(-1, 0, 1, 2, 3, 2.5), 0);  // concave
}

// Rates e^-1, e^0, e^1 (x = -1, 0, 1). Means 1.5625, 0.0625, 0.5625: the best rate e^0.25.
// With the lowest at an end the optimum is unbracketed: the end rate, no interval.
TEST(LrTransfer, BestRateBetweenGridPointsOrUnbracketedAtAnEnd) {
  const std::vector<double> rates = {std::exp(-1.0), 1.0, std::exp(1.0)};
  const auto b =
      experiments::best_rate(rates, {{1.5625, 1.5625}, {0.0625, 0.0625}, {0.5625, 0.5625}});
  EXPECT_TRUE(b.bracketed);
  EXPECT_NEAR(b.lr, std::exp(0.25), 1e-12);
  EXPECT_DOUBLE_EQ(b.grid_lr, 1.0);
  EXPECT_NEAR(b.ci_lo, std::exp(0.25), 1e-12);  // no spread: every draw is the same vertex
  EXPECT_NEAR(b.ci_hi, std::exp(0.25), 1e-12);
  const auto edge = experiments::best_rate(rates, {{0.1, 0.1}, {0.5, 0.5}, {0.9, 0.9}});
  EXPECT_FALSE(edge.bracketed);
  EXPECT_DOUBLE_EQ(edge.lr, rates[0]);
  EXPECT_TRUE(std::isnan(edge.ci_lo));
}

// The right rate's seeds {0.5625, 1.5625}, the others' fixed (1.5625, 0.0625): the best rate
// e^0.1 (means 1.5625, 0.0625, 1.0625), its interval the x where the parabola's slope is within
// noise of zero (experiments/optimum_interval.h; worked by hand in test_optimum_interval.cpp):
// from the lower root of (2.5 x - 0.25)^2 = t_{0.975,3}^2 (1/6) (1/4 + 3 x^2) to the grid's end
// e^1 -- the upper root lies beyond it. 3 degrees of freedom, one a rate.
TEST(LrTransfer, TheIntervalIsWhereTheSlopeIsWithinNoiseOfZero) {
  const std::vector<double> rates = {std::exp(-1.0), 1.0, std::exp(1.0)};
  const auto b =
      experiments::best_rate(rates, {{1.5625, 1.5625}, {0.0625, 0.0625}, {0.5625, 1.5625}});
  const double t2 = 3.182446305284263 * 3.182446305284263;
  const double qa = 6.25 - t2 / 2, qc = 0.0625 - t2 / 24;
  EXPECT_NEAR(std::log(b.ci_lo), (1.25 - std::sqrt(1.5625 - 4 * qa * qc)) / (2 * qa), 1e-9);
  EXPECT_NEAR(b.ci_hi, std::exp(1.0), 1e-12);
  EXPECT_TRUE(b.interval_at_an_end);  // whether the optimum lies inside the grid is undecided
  EXPECT_DOUBLE_EQ(b.interval_df, 3.0);
  EXPECT_NEAR(std::log(b.lr), 0.1, 1e-12);
  // Seeds {1.0, 1.125} instead: ends 0.067 and 0.136 (test_optimum_interval.cpp), inside.
  const auto inside =
      experiments::best_rate(rates, {{1.5625, 1.5625}, {0.0625, 0.0625}, {1.0, 1.125}});
  EXPECT_FALSE(inside.interval_at_an_end);
  EXPECT_GT(std::log(inside.ci_hi), 0.13);
  // The table says which (experiments::lr_transfer_table).
  std::vector<std::pair<double, experiments::LrSensitivity>> by_depth;
  for (const auto& [depth, seeds] :
       std::vector<std::pair<double, std::vector<std::vector<double>>>>{
           {6, {{1.5625, 1.5625}, {0.0625, 0.0625}, {0.5625, 1.5625}}},
           {12, {{1.5625, 1.5625}, {0.0625, 0.0625}, {1.0, 1.125}}}}) {
    experiments::LrCurve curve;
    curve.label = "pre";
    for (size_t i = 0; i < 3; ++i) {
      experiments::LrPoint p;
      p.lr = rates[i];
      p.values = seeds[i];
      curve.points.push_back(p);
    }
    experiments::LrSensitivity at;
    at.curves.push_back(curve);
    by_depth.emplace_back(depth, at);
  }
  const auto table = experiments::lr_transfer_table(experiments::lr_transfer(by_depth, "layers"));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_NE(table.rows[0][3].find("(reaches the grid's end: inconclusive)"), std::string::npos)
      << table.rows[0][3];
  EXPECT_EQ(table.rows[1][3].find("grid's end"), std::string::npos) << table.rows[1][3];
}

// Two depths with the same seeds' values: the slope is 0, and were both depths resampled from one
// stream (the same seed indices at each) every draw would find the same best rate at both and
// the interval would be the point 0. The right rate's seeds {0.5625, 1.5625} resample to a mean
// m of 0.5625, 1.0625 or 1.5625 (1/4, 1/2, 1/4), the others' fixed (1.5625, 0.0625): with
// d1 = -1.5 and c = (m + 1.4375) / 2 a draw's vertex is -0.5 + 1.5 / (m + 1.4375), the rescaled
// m (moved by sqrt(2) from 1.0625) 1.0625 -+ sqrt(2)/2 at the extremes. Resampled apart, a draw
// pairs any of the three vertices at 6 with any at 24, each extreme a sixteenth of the draws --
// beyond the ends' tail at six degrees of freedom (0.72 %) -- so the ends are -+ the vertices'
// range over ln(24 / 6).
TEST(LrTransfer, EachDepthIsResampledOnItsOwn) {
  std::vector<std::pair<double, experiments::LrSensitivity>> by_depth;
  for (const double depth : {6.0, 24.0}) {
    experiments::LrCurve curve;
    curve.label = "pre";
    const std::vector<std::vector<double>> seeds = {
        {1.5625, 1.5625}, {0.0625, 0.0625}, {0.5625, 1.5625}};
    for (int i = 0; i < 3; ++i) {
      experiments::LrPoint p;
      p.lr = std::exp(i - 1.0);
      p.values = seeds[static_cast<size_t>(i)];
      curve.points.push_back(p);
    }
    experiments::LrSensitivity at;
    at.curves.push_back(curve);
    by_depth.emplace_back(depth, at);
  }
  const auto t = experiments::lr_transfer(by_depth, "model.layers");
  ASSERT_EQ(t.slopes.size(), 1u);
  EXPECT_NEAR(t.slopes[0].slope, 0.0, 1e-12);
  const double half_root2 = std::sqrt(2.0) / 2;
  const double range = 1.5 / (2.5 - half_root2) - 1.5 / (2.5 + half_root2);
  EXPECT_NEAR(t.slopes[0].ci_lo, -range / std::log(4.0), 1e-12);
  EXPECT_NEAR(t.slopes[0].ci_hi, range / std::log(4.0), 1e-12);
}

experiments::TableRun transfer_run(int64_t id, const std::string& layers, const std::string& lr,
                                   double loss) {
  experiments::TableRun r;
  r.id = id;
  r.status = "finished";
  r.axes = {{"model.norm", "pre"},
            {"model.layers", layers},
            {"train.lr", lr},
            {"train.seed", std::to_string(id % 2)}};
  r.metric = loss;
  return r;
}

// Two depths whose curves are the parabola (ln lr - ln lr*)^2 with lr* = 1e-2 at 6 layers and
// 2.5e-3 at 24 (a quarter at four times the depth): grid 1e-3 .. 1e-1 by factors of 10 around
// it. The slope of ln lr* on ln depth is ln(1/4) / ln(4) = -1; each depth's vertex is exact
// since the curve is the parabola itself.
TEST(LrTransfer, TheSlopeOfTheBestRateAcrossDepths) {
  std::vector<std::pair<double, experiments::LrSensitivity>> by_depth;
  int64_t id = 0;
  for (const auto& [layers, best] : {std::pair{"6", 1e-2}, {"24", 2.5e-3}}) {
    std::vector<experiments::TableRun> runs;
    for (double lr : {1e-4, 1e-3, 1e-2, 1e-1}) {
      const double loss = 1 + std::pow(std::log(lr) - std::log(best), 2) / 10;
      char text[16];
      std::snprintf(text, sizeof text, "%g", lr);
      runs.push_back(transfer_run(++id, layers, text, loss));
      runs.push_back(transfer_run(++id, layers, text, loss));
    }
    by_depth.emplace_back(std::stod(layers),
                          experiments::lr_sensitivity(runs, "valid_loss", [](int64_t) {
                            return std::optional<double>(100.0);
                          }));
  }
  const auto t = experiments::lr_transfer(by_depth, "model.layers");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_NEAR(t.rows[0].best.lr, 1e-2, 1e-12);
  EXPECT_NEAR(t.rows[1].best.lr, 2.5e-3, 1e-12);
  ASSERT_EQ(t.slopes.size(), 1u);
  EXPECT_EQ(t.slopes[0].depths, 2);
  EXPECT_NEAR(t.slopes[0].slope, -1.0, 1e-9);
  EXPECT_NEAR(t.slopes[0].ci_lo, -1.0, 1e-9);  // no spread over seeds
  const auto table = experiments::lr_transfer_slope_table(t);
  EXPECT_EQ(table.rows[0][2], "-1");
  EXPECT_EQ(experiments::lr_transfer_table(t).header[1], "layers");
}

// Sweep "d" at `layers` whose loss is the parabola (ln lr - ln best)^2 / 10 + 1 over four
// rates and two seeds; l0 at update 0.
void add_depth(db::Store& store, const std::string& layers, double best) {
  for (const char* lr : {"0.0001", "0.001", "0.01", "0.1"})
    for (const char* seed : {"1", "2"}) {
      db::NewRun n;
      n.name = "d/" + layers + "/" + lr + "/" + seed;
      n.sweep = "d";
      n.config_json = R"({"model":{"layers":)" + layers + "}}";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.model.layers", layers);
      store.set_tag(id, "axis.train.lr", lr);
      store.set_tag(id, "axis.train.seed", seed);
      const double loss = 1 + std::pow(std::log(std::stod(lr)) - std::log(best), 2) / 10;
      store.write_metrics(id, {{0, "valid_loss", 100.0, 0.0}, {100, "valid_loss", loss, 0.0}});
      store.set_final_metric(id, "valid_loss", loss);
      store.finish_run(id, "finished");
    }
}

// From a store, and in a report: the same parabolas as above at 6 and 24 layers (best 1e-2
// and 2.5e-3: slope -1), each run's loss at the end of training, l0 at update 0.
TEST(LrTransfer, FromAStoredSweepAndInItsReport) {
  fathom::testing::TempDir scratch;
  const std::string path = scratch.file("d.db");
  {
    auto store = db::Store::open(path);
    add_depth(store, "6", 1e-2);
    add_depth(store, "24", 2.5e-3);
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto t = experiments::load_lr_transfer(store, "d", "", "valid_loss");
  EXPECT_EQ(t.depth_key, "model.layers");
  ASSERT_EQ(t.slopes.size(), 1u);
  EXPECT_NEAR(t.slopes[0].slope, -1.0, 1e-9);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.rows[0].depth, 6);
  EXPECT_NEAR(t.rows[1].best.lr, 2.5e-3, 1e-12);

  experiments::ReportOptions options;
  options.out_dir = scratch.file("report");
  options.metrics = {"valid_loss"};
  std::ifstream in(experiments::write_report(store, "d", options));
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("## Learning-rate transfer across depth"), std::string::npos);
  EXPECT_NE(text.str().find("| all runs | 2 | -1 |"), std::string::npos) << text.str();
}

// A report's sections read the runs its header counted. Runs of a third depth (96 layers, best
// rate 6.25e-4: still slope -1) stored after the selection are not among a selection's depths,
// curves or importance cells (2 depths x 4 rates), though a fresh listing has them.
TEST(LrTransfer, ASelectionIsTheRunsItListedNotTheStoresLater) {
  fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("d.db"));
  add_depth(store, "6", 1e-2);
  add_depth(store, "24", 2.5e-3);
  const auto selected = experiments::select_sweep_runs(store, "d", "");
  add_depth(store, "96", 6.25e-4);

  const auto t = experiments::lr_transfer_of(store, selected, "", "valid_loss");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.rows[1].depth, 24);
  ASSERT_EQ(t.slopes.size(), 1u);
  EXPECT_EQ(t.slopes[0].depths, 2);
  const auto s = experiments::lr_sensitivity_of(store, selected, "valid_loss");
  ASSERT_EQ(s.curves.size(), 2u);  // one per depth, 8 runs each
  for (const auto& c : s.curves) EXPECT_EQ(c.points.size(), 4u) << c.label;
  const auto h = experiments::hparam_importance_of(store, selected, "valid_loss",
                                                   experiments::RunValue::Final);
  EXPECT_EQ(h.cells, 8);

  const auto later = experiments::load_lr_transfer(store, "d", "", "valid_loss");
  ASSERT_EQ(later.rows.size(), 3u);
  EXPECT_NEAR(later.rows[2].best.lr, 6.25e-4, 1e-12);
  EXPECT_EQ(later.slopes[0].depths, 3);
  EXPECT_NEAR(later.slopes[0].slope, -1.0, 1e-9);
  EXPECT_EQ(experiments::load_hparam_importance(store, "d", "valid_loss",
                                                experiments::RunValue::Final, "")
                .cells,
            12);
}

TEST(LrTransfer, ADepthAxisIsNeeded) {
  fathom::testing::TempDir scratch;
  const std::string path = scratch.file("t.db");
  {
    auto store = db::Store::open(path);
    for (const char* lr : {"0.001", "0.01", "0.1"}) {
      db::NewRun n;
      n.name = std::string("t/") + lr;
      n.sweep = "t";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.train.lr", lr);
      store.set_tag(id, "axis.model.layers", "6");
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  for (const std::string asked : {"", "model.layers", "model.heads"}) {
    try {
      experiments::load_lr_transfer(store, "t", asked, "valid_loss");
      FAIL() << "'" << asked << "' accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--depth");
    }
  }
}

}  // namespace test_lr_transfer
