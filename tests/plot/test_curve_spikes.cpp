// Spike marks on exported training curves (plot/store_curves.h; base/metrics/spikes.h): a run's
// train_loss curve marks the raw point that jumps far above the points before it, at its place
// on the x axis; other metrics, group means and `spikes = nullopt` mark nothing; the marks and
// their legend text survive the figure's JSON.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/metric_names.h"
#include "db/store.h"
#include "plot/figure.h"
#include "plot/store_curves.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_curve_spikes {

// 30 logged points (steps 10..300): train_loss 2.00, 2.01, 2.02 repeating and 5.0 at step 230;
// valid_loss the same values; target tokens 100 per update.
int64_t run_with_one_spike(db::Store& store, const std::string& name) {
  db::NewRun run;
  run.name = name;
  run.sweep = "s";
  const int64_t id = store.create_run(run);
  store.set_tag(id, "axis.train.seed", name);
  std::vector<db::MetricRow> rows;
  for (int i = 1; i <= 30; ++i) {
    const int64_t step = 10 * i;
    const double loss = step == 230 ? 5.0 : 2.0 + 0.01 * (i % 3);
    rows.emplace_back(step, db::metric::kTrainLoss, loss, 0.0);
    rows.emplace_back(step, db::metric::kValidLoss, loss, 0.0);
    rows.emplace_back(step, db::metric::kTargetTokens, step * 100.0, 0.0);
  }
  store.write_metrics(id, rows);
  store.finish_run(id, "finished");
  return id;
}

TEST(CurveSpikes, ARunsTrainLossMarksItsSpikeWhereItIsDrawn) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t id = run_with_one_spike(store, "1");
  CurveQuery query;
  query.runs = {id};
  query.metrics = {db::metric::kTrainLoss, db::metric::kValidLoss};
  query.x = XAxis::Tokens;
  // The 20 points before step 230 are 2.00-2.02 (sample std < 0.01): 5.0 lies hundreds of std
  // above their mean; after it the window holds 5.0 and nothing else stands out.
  const CurveFigure figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 2u);
  EXPECT_EQ(figure.curves[0].metric, db::metric::kTrainLoss);
  EXPECT_EQ(figure.curves[0].spike_x, std::vector<double>{23000.0});  // on the tokens axis
  EXPECT_EQ(figure.curves[0].spike_y, std::vector<double>{5.0});
  EXPECT_TRUE(figure.curves[1].spike_x.empty()) << "valid_loss is not a spike metric";
  EXPECT_EQ(figure.spikes_are, "spike (> 4 sd above the last 20)");

  const CurveFigure back = std::get<CurveFigure>(figure_from_json(to_json(Figure(figure))));
  EXPECT_EQ(back.curves[0].spike_x, figure.curves[0].spike_x);
  EXPECT_EQ(back.curves[0].spike_y, figure.curves[0].spike_y);
  EXPECT_EQ(back.spikes_are, figure.spikes_are);

  // A stricter rule finds nothing at k = 1000; no rule marks nothing.
  query.spikes = SpikeRule{1000.0, 20};
  EXPECT_TRUE(curves_from_store(store, query).curves[0].spike_x.empty());
  query.spikes = std::nullopt;
  const CurveFigure unmarked = curves_from_store(store, query);
  EXPECT_TRUE(unmarked.curves[0].spike_x.empty());
  EXPECT_TRUE(unmarked.spikes_are.empty());
}

TEST(CurveSpikes, GroupMeansAreNotMarked) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_with_one_spike(store, "1");
  run_with_one_spike(store, "2");
  CurveQuery query;
  query.sweep = "s";
  query.metrics = {db::metric::kTrainLoss};
  query.group_by = {"axes"};
  const CurveFigure figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 1u);
  EXPECT_TRUE(figure.curves[0].spike_x.empty());
}

}  // namespace test_curve_spikes
}  // namespace fathom::plot
