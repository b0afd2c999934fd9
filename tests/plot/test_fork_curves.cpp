// A fork's curve (plot/store_curves.h, plot/render_curves.cpp; tags db/fork_tags.h): labelled
// "(fork of #P at S)", its fork point placed on the x axis as a divergence is, and drawn as one
// diamond where its line leaves the parent's -- on the line as drawn, between the points either
// side of it, straight on the axis's scale.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <qcustomplot.h>

#include "base/util/error.h"
#include "db/fork_tags.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/store_curves.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_fork_curves {

// valid_loss at updates 0, 50 and 100; 10 target tokens an update.
int64_t run_with(db::Store& store, const std::string& name, std::vector<double> loss) {
  db::NewRun run;
  run.name = name;
  const int64_t id = store.create_run(run);
  std::vector<db::MetricRow> rows;
  for (size_t i = 0; i < loss.size(); ++i) {
    const int64_t step = 50 * static_cast<int64_t>(i);
    rows.emplace_back(step, db::metric::kValidLoss, loss[i], 0.0);
    rows.emplace_back(step, db::metric::kTargetTokens, step * 10.0, 0.0);
  }
  store.write_metrics(id, rows);
  return id;
}

TEST(ForkCurves, AForksCurveIsLabelledAndPlacedOnTheAxis) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent = run_with(store, "base", {4, 3, 2});
  const int64_t fork = run_with(store, "base fork@75", {4, 3, 1.5});
  store.set_tag(fork, db::kForkedFromTag, std::to_string(parent));
  store.set_tag(fork, db::kForkedAtTag, "75");
  CurveQuery query;
  query.runs = {fork, parent};
  query.metrics = {db::metric::kValidLoss};
  CurveFigure figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 2u);
  EXPECT_EQ(figure.curves[0].label,
            std::to_string(fork) + " base fork@75 (fork of #" + std::to_string(parent) + " at 75)");
  ASSERT_TRUE(figure.curves[0].fork_step.has_value());
  EXPECT_EQ(*figure.curves[0].fork_step, 75.0);
  EXPECT_EQ(figure.curves[1].label, std::to_string(parent) + " base");
  EXPECT_FALSE(figure.curves[1].fork_step.has_value());

  // On the tokens axis: at the fork's last logged point up to update 75 (update 50, 500 tokens),
  // as a divergence is placed.
  query.x = XAxis::Tokens;
  figure = curves_from_store(store, query);
  ASSERT_TRUE(figure.curves[0].fork_step.has_value());
  EXPECT_EQ(*figure.curves[0].fork_step, 500.0);

  // A tag that is no whole number (set by hand) makes no fork of the run.
  store.set_tag(fork, db::kForkedAtTag, "75th");
  query.x = XAxis::Update;
  figure = curves_from_store(store, query);
  EXPECT_FALSE(figure.curves[0].fork_step.has_value());
  EXPECT_EQ(figure.curves[0].label, std::to_string(fork) + " base fork@75");
}

// A fork sweep drawn with its parent as a reference (CurveQuery::references): the parent comes
// first, labelled so, in its own style -- though its train.lr equals one fork's -- and never in
// a group, whose keys its own sweep's axes do not change; a reference already selected is drawn
// once; an unknown one is refused.
TEST(ReferenceCurves, AForkSweepsParentIsDrawnBesideItsRescuesInItsOwnStyle) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  auto make = [&](const std::string& name, const std::string& sweep, const std::string& lr,
                  std::vector<double> loss) {
    db::NewRun run;
    run.name = name;
    run.sweep = sweep;
    run.config_json = R"({"train": {"lr": )" + lr + "}}";
    const int64_t id = store.create_run(run);
    std::vector<db::MetricRow> rows;
    for (size_t i = 0; i < loss.size(); ++i)
      rows.emplace_back(50 * static_cast<int64_t>(i), db::metric::kValidLoss, loss[i], 0.0);
    store.write_metrics(id, rows);
    store.set_tag(id, "axis.train.lr", lr);
    return id;
  };
  const int64_t parent = make("depth/norm=post", "depth", "0.005", {4, 3, 9});
  store.set_tag(parent, "axis.model.norm", "post");  // its own sweep's
  const int64_t same = make("rescue/lr=0.005", "rescue", "0.005", {4, 3, 8});
  const int64_t lower = make("rescue/lr=0.0025", "rescue", "0.0025", {4, 3, 2});
  CurveQuery query;
  query.sweep = "rescue";
  query.references = {parent};
  query.metrics = {db::metric::kValidLoss};
  query.colour_by = "train.lr";
  CurveFigure figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 3u);
  EXPECT_EQ(figure.curves[0].label, std::to_string(parent) + " depth/norm=post (reference)");
  EXPECT_EQ(figure.curves[0].colour_key, "run " + std::to_string(parent));
  EXPECT_EQ(figure.curves[0].value, (std::vector<double>{4, 3, 9}));
  EXPECT_EQ(figure.curves[1].label, std::to_string(same) + " rescue/lr=0.005");
  EXPECT_EQ(figure.curves[1].colour_key, "0.005");
  EXPECT_EQ(figure.curves[2].colour_key, "0.0025");

  query.colour_by.clear();
  query.group_by = {"axes"};
  figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 3u);
  EXPECT_EQ(figure.curves[0].label, std::to_string(parent) + " depth/norm=post (reference)");
  EXPECT_TRUE(figure.curves[0].members.empty()) << "the reference is no group";
  EXPECT_EQ(figure.curves[1].label, "lr=0.005 (n=1)");  // not "lr=0.005, norm=? (n=1)"
  EXPECT_EQ(figure.curves[2].label, "lr=0.0025 (n=1)");

  query.group_by.clear();
  query.references = {lower, lower};
  figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 2u) << "a selected reference is drawn once, as selected";
  EXPECT_EQ(figure.curves[1].label, std::to_string(lower) + " rescue/lr=0.0025");

  query.references = {999};
  EXPECT_THROW(curves_from_store(store, query), InputError);
}

Curve curve(const std::string& label, std::vector<double> value, double fork_step) {
  Curve c;
  c.label = label;
  c.metric = db::metric::kValidLoss;
  c.step = {0, 50, 100};
  c.value = std::move(value);
  c.fork_step = fork_step;
  return c;
}

// Every mark of `shape` the plot holds (a fork's diamond, a milestone's triangle), as (x, y), and
// how many legend entries they have.
std::vector<std::pair<double, double>> marks_of(QCustomPlot& plot, int* in_legend,
                                                QCPScatterStyle::ScatterShape shape) {
  std::vector<std::pair<double, double>> at;
  *in_legend = 0;
  for (int i = 0; i < plot.graphCount(); ++i) {
    QCPGraph* g = plot.graph(i);
    if (g->scatterStyle().shape() != shape) continue;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      at.emplace_back(it->key, it->value);
    if (plot.legend->hasItemWithPlottable(g)) ++*in_legend;
  }
  return at;
}

std::vector<std::pair<double, double>> diamonds(QCustomPlot& plot, int* in_legend) {
  return marks_of(plot, in_legend, QCPScatterStyle::ssDiamond);
}

class ForkMark : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ensure_application(/*force_offscreen=*/true); }
};

TEST_F(ForkMark, ADiamondWhereTheLineLeavesTheParents) {
  CurveFigure f;
  // Update 25 lies halfway from (0, 4) to (50, 3): 3.5 on a linear axis. A fork after the last
  // point drawn is marked at that point. A NaN point is no line to stand on: the next finite.
  f.curves = {curve("a", {4, 3, 2}, 25), curve("b", {4, 3, 2}, 150), curve("c", {4, NAN, 2}, 25)};
  QCustomPlot plot;
  setup_curve_figure(plot, f);
  int in_legend = 0;
  const auto marks = diamonds(plot, &in_legend);
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_DOUBLE_EQ(marks[0].first, 25.0);
  EXPECT_DOUBLE_EQ(marks[0].second, 3.5);
  EXPECT_DOUBLE_EQ(marks[1].first, 100.0);
  EXPECT_DOUBLE_EQ(marks[1].second, 2.0);
  EXPECT_DOUBLE_EQ(marks[2].first, 25.0);
  EXPECT_DOUBLE_EQ(marks[2].second, 4.0 - 2.0 * 25.0 / 100.0);  // from (0, 4) to (100, 2)
  EXPECT_EQ(in_legend, 1) << "one legend entry says what a diamond is";

  // On a log axis the line from 4 to 1 is straight in log y: halfway is their geometric mean.
  CurveFigure log_figure;
  log_figure.y.scale = Scale::Log;
  log_figure.curves = {curve("d", {4, 1, 0.5}, 25)};
  QCustomPlot log_plot;
  setup_curve_figure(log_plot, log_figure);
  const auto log_marks = diamonds(log_plot, &in_legend);
  ASSERT_EQ(log_marks.size(), 1u);
  EXPECT_NEAR(log_marks[0].second, 2.0, 1e-12);
}

// A run page's milestones (the checkpoint measured, an early stop) exported: triangles on the
// line as drawn, one legend entry that says what they are, no diamond.
TEST_F(ForkMark, MilestonesAreTrianglesOnTheLine) {
  CurveFigure f;
  Curve c = curve("valid_loss", {4, 3, 2}, 0);
  c.fork_step.reset();
  c.milestone_x = {75, 100};  // halfway from (50, 3) to (100, 2); the last point itself
  f.curves = {c};
  QCustomPlot plot;
  setup_curve_figure(plot, f);
  int in_legend = 0;
  const auto marks = marks_of(plot, &in_legend, QCPScatterStyle::ssTriangle);
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_DOUBLE_EQ(marks[0].first, 75.0);
  EXPECT_DOUBLE_EQ(marks[0].second, 2.5);
  EXPECT_DOUBLE_EQ(marks[1].first, 100.0);
  EXPECT_DOUBLE_EQ(marks[1].second, 2.0);
  EXPECT_EQ(in_legend, 1);
  EXPECT_TRUE(diamonds(plot, &in_legend).empty());
}

TEST(ForkTags, OnlyWholeNumbersMakeAFork) {
  using Tags = std::map<std::string, std::string>;
  const auto origin = db::fork_origin(Tags{{"forked_from", "12"}, {"forked_at", "300"}});
  ASSERT_TRUE(origin.has_value());
  EXPECT_EQ(origin->parent, 12);
  EXPECT_EQ(origin->step, 300);
  EXPECT_EQ(db::fork_label(*origin), "(fork of #12 at 300)");
  EXPECT_FALSE(db::fork_origin(Tags{{"forked_from", "12"}}));
  EXPECT_FALSE(db::fork_origin(Tags{{"forked_from", "12"}, {"forked_at", "3e2"}}));
  EXPECT_FALSE(db::fork_origin(Tags{{"forked_from", "twelve"}, {"forked_at", "300"}}));
  EXPECT_FALSE(db::fork_origin(Tags{{"forked_from", "12"}, {"forked_at", "99999999999999999999"}}));
  // A parent's forks among the forked_from tags (another parent's, and "120", are not), and
  // their line: ten named, the rest counted.
  const std::map<int64_t, std::string> forked_from = {
      {13, "12"}, {14, "7"}, {15, "120"}, {16, "12"}};
  EXPECT_EQ(db::forks_among(forked_from, 12), (std::vector<int64_t>{13, 16}));
  EXPECT_EQ(db::forks_text({13, 16}), "2 runs: #13, #16");
  EXPECT_EQ(db::forks_text({13}), "1 run: #13");
  std::vector<int64_t> many;
  for (int64_t id = 1; id <= 12; ++id) many.push_back(id);
  EXPECT_EQ(db::forks_text(many), "12 runs: #1, #2, #3, #4, #5, #6, #7, #8, #9, #10 and 2 more");
}

}  // namespace test_fork_curves
}  // namespace fathom::plot
