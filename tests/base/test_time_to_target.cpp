// Time to a target (experiments/time_to_target.h): the crossing of a curve computed by hand, a
// sweep's cells over hand-made curves (the best cell of a row is the fastest whose every run
// got there; a run that never got there counts in the cell and not in its mean), and
// McCandlish et al.'s S = S_min (1 + B_crit / B) recovered from points made by it; B_simple where
// the runs got there from noise.* rows written as the trainer writes them, pooled by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/reach_text.h"
#include "experiments/sweep_runs.h"
#include "experiments/time_to_target.h"
#include "tests/support/noise_scale_rows.h"
#include "tests/support/temp_dir.h"

using namespace fathom;

namespace test_time_to_target {

std::vector<db::MetricPoint> curve(const std::vector<std::pair<int64_t, double>>& points) {
  std::vector<db::MetricPoint> c;
  for (const auto& [step, value] : points) c.push_back({step, value, 0.0});
  return c;
}

// Loss 2.5 at update 200 and 1.5 at 300: 2.0 is reached halfway, at 250.
TEST(TimeToTarget, TheCrossingIsLinearBetweenTheTwoPointsAroundIt) {
  const auto loss = curve({{0, 8.0}, {100, 4.0}, {150, NAN}, {200, 2.5}, {300, 1.5}});
  EXPECT_DOUBLE_EQ(*experiments::first_reach(loss, 2.0, true), 250.0);
  EXPECT_DOUBLE_EQ(*experiments::first_reach(loss, 4.0, true), 100.0);  // exactly at a point
  EXPECT_DOUBLE_EQ(*experiments::first_reach(loss, 9.0, true), 0.0);    // there from the start
  EXPECT_FALSE(experiments::first_reach(loss, 1.0, true));              // never
  // Higher is better (BLEU): 20 between 10 at 100 and 30 at 200.
  const auto bleu = curve({{0, 0.0}, {100, 10.0}, {200, 30.0}, {300, 25.0}});
  EXPECT_DOUBLE_EQ(*experiments::first_reach(bleu, 20.0, false), 150.0);
  EXPECT_FALSE(experiments::first_reach(bleu, 31.0, false));
}

// S = 100 (1 + 400 / B) at five batch sizes: the fit returns S_min 100 and B_crit 400; updates
// that do not fall with the batch show no diminishing returns.
TEST(TimeToTarget, TheCriticalBatchOfPointsMadeByTheModel) {
  std::vector<double> batch{128, 256, 512, 1024, 2048}, updates;
  for (double b : batch) updates.push_back(100 * (1 + 400 / b));
  const auto fit = experiments::fit_critical_batch(batch, updates);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->s_min, 100, 1e-9);
  EXPECT_NEAR(fit->b_crit, 400, 1e-9);
  EXPECT_NEAR(fit->r2, 1, 1e-12);
  EXPECT_TRUE(fit->diminishing);
  EXPECT_EQ(fit->points, 5);
  const auto flat = experiments::fit_critical_batch(batch, {300, 300, 300, 300, 300});
  ASSERT_TRUE(flat);
  EXPECT_FALSE(flat->diminishing);
  EXPECT_FALSE(experiments::fit_critical_batch({128, 256}, {500, 300}));
  EXPECT_FALSE(experiments::fit_critical_batch({256, 256, 256}, {500, 300, 400}));
}

struct Run {
  std::string batch, lr, seed;
  std::vector<double> loss;  // at updates 0, 100, 200, ...
  double tokens_per_update;
  std::string status = "finished";
};

void store_runs(const std::string& path, const std::vector<Run>& runs) {
  auto store = db::Store::open(path);
  int n = 0;
  for (const Run& r : runs) {
    db::NewRun run;
    run.name = "s/" + std::to_string(++n);
    run.sweep = "s";
    const int64_t id = store.create_run(run);
    store.set_tag(id, "axis.data.max_tokens", r.batch);
    store.set_tag(id, "axis.train.lr", r.lr);
    store.set_tag(id, "axis.train.seed", r.seed);
    store.set_tag(id, "sweep.axes", "data.max_tokens,train.lr");
    std::vector<db::MetricRow> rows;
    for (size_t i = 0; i < r.loss.size(); ++i) {
      const int64_t step = 100 * static_cast<int64_t>(i);
      rows.emplace_back(step, db::metric::kValidLoss, r.loss[i], 0.0);
      if (step > 0)
        rows.emplace_back(step, db::metric::kTargetTokens, r.tokens_per_update * step, 0.0);
    }
    store.write_metrics(id, rows);
    if (r.status != "running") store.finish_run(id, r.status, "", std::nullopt);
  }
}

// The table of valid_loss 2.0 with the batch as rows and the rate as columns.
experiments::ReachOptions loss_two_options() {
  experiments::ReachOptions o;
  o.rows = "data.max_tokens";
  o.cols = "train.lr";
  o.metric = db::metric::kValidLoss;
  o.target = 2.0;
  return o;
}

// Two batch sizes x two rates x two seeds. At batch 512 the rate 2e-3 is faster on average but
// one of its seeds never reaches 2.0, so the row's best is 1e-3; a running run is left out.
TEST(TimeToTarget, CellsCountTheRunsThatGotThereAndTheBestIsComplete) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  store_runs(path, {{"512", "1e-3", "1", {8, 3, 1.0}, 500},    // 2.0 at 150
                    {"512", "1e-3", "2", {8, 4, 1.0}, 510},    // at 166.7
                    {"512", "2e-3", "1", {8, 1.0, 0.9}, 500},  // at 85.7
                    {"512", "2e-3", "2", {8, 2.5, 2.4}, 490},  // never
                    {"2048", "1e-3", "1", {8, 1.0}, 2000},     // at 85.7
                    {"2048", "1e-3", "2", {8, 0.0}, 2100},     // at 75
                    {"2048", "1e-3", "3", {8, 9, 9}, 2000, "running"}});
  auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  experiments::ReachOptions o = loss_two_options();
  const experiments::ReachTable t = experiments::reach_table(store, "s", o);
  ASSERT_EQ(t.cells.size(), 3u);
  const auto& slow = t.cells[0];
  EXPECT_EQ(slow.row, "512");
  EXPECT_EQ(slow.col, "1e-3");
  EXPECT_EQ(slow.reached, 2);
  EXPECT_NEAR(slow.updates, (150 + 100 + 200.0 / 3) / 2, 1e-9);
  EXPECT_NEAR(slow.tokens, (150 * 500 + (100 + 200.0 / 3) * 510) / 2, 1e-6);
  EXPECT_NEAR(slow.tokens_per_update, 505, 1e-9);
  const auto& fast = t.cells[1];
  EXPECT_EQ(fast.runs, 2);
  EXPECT_EQ(fast.reached, 1);
  EXPECT_NEAR(fast.updates, 100 * 6.0 / 7, 1e-9);
  EXPECT_TRUE(std::isnan(fast.updates_ci95));  // one value
  EXPECT_EQ(t.cells[2].runs, 2);               // the running run is not counted
  EXPECT_NEAR(t.cells[2].updates, (600.0 / 7 + 75) / 2, 1e-9);
  ASSERT_EQ(t.best.size(), 2u);
  EXPECT_EQ(t.best[0], 0u);  // 512's complete cell, not the faster incomplete one
  EXPECT_EQ(t.best[1], 2u);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("1 runs left out"), std::string::npos) << t.notes[0];

  o.rows = "model.norm";
  try {
    experiments::reach_table(store, "s", o);
    ADD_FAILURE() << "an axis no run has was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--rows");
  }
}

// Runs that read their noise scale while training: each reports B_simple pooled over the log
// window where it reached the target and the one before (the first window alone when it got
// there inside it); a cell's is the mean over its runs that have one; the critical batch is set
// against the best cells' geometric mean. A table without such runs has no B_simple column.
TEST(TimeToTarget, BSimpleWhereTheRunsGotThere) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  store_runs(path, {{"512", "1e-3", "1", {8, 3, 1.0}, 500},      // 2.0 at 150
                    {"512", "1e-3", "2", {8, 1.0, 0.9}, 500},    // at 85.7
                    {"2048", "1e-3", "1", {8, 1.0, 0.9}, 2000},  // at 85.7
                    {"2048", "1e-3", "2", {8, 1.0, 0.9}, 2000}});
  {
    auto store = db::Store::open(path);
    // Windows ending at 100 and 200: tr means 3 and 7, |G|^2 means 1 and 2.
    for (int64_t run : {1, 2}) {
      fathom::testing::log_noise_window(store, run, 100, {{2, 1}, {4, 1}});
      fathom::testing::log_noise_window(store, run, 200, {{6, 2}, {8, 2}});
    }
    fathom::testing::log_noise_window(store, 3, 100,
                                      {{1, 0.5}, {3, 1.5}});  // run 4: no noise.* rows
  }
  auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  experiments::ReachOptions o = loss_two_options();
  const experiments::ReachTable t = experiments::reach_table(store, "s", o);
  ASSERT_EQ(t.cells.size(), 2u);
  // Run 1 pools both windows (tr 5, |G|^2 1.5); run 2 got there inside the first (3 / 1).
  EXPECT_EQ(t.cells[0].b_simple_runs, 2);
  EXPECT_NEAR(t.cells[0].b_simple, (5 / 1.5 + 3.0) / 2, 1e-9);
  EXPECT_EQ(t.cells[1].b_simple_runs, 1);
  EXPECT_NEAR(t.cells[1].b_simple, 2.0, 1e-9);
  const auto gm = experiments::best_cells_b_simple(t);
  ASSERT_TRUE(gm);
  EXPECT_NEAR(*gm, std::sqrt((5 / 1.5 + 3.0) / 2 * 2.0), 1e-9);
  const std::string text = experiments::reach_markdown(t, o);
  EXPECT_NE(text.find("| B_simple there |"), std::string::npos) << text;
  const experiments::CriticalBatchFit fit{100, 400, 1, 3, true};
  const std::string line = experiments::critical_batch_text(fit, 200.0);
  EXPECT_NE(line.find("B_crit / B_simple 2.00"), std::string::npos) << line;
  EXPECT_EQ(experiments::critical_batch_text(fit).find("B_simple"), std::string::npos);

  experiments::ReachTable unresolved = t;  // a run whose |G|^2 was not positive: unbounded
  unresolved.cells[1].b_simple = INFINITY;
  EXPECT_NE(experiments::reach_markdown(unresolved, o).find("| ∞ |"), std::string::npos);
  EXPECT_FALSE(experiments::best_cells_b_simple(unresolved));

  experiments::ReachTable plain = t;
  for (auto& c : plain.cells) c.b_simple_runs = 0, c.b_simple = NAN;
  EXPECT_EQ(experiments::reach_markdown(plain, o).find("B_simple"), std::string::npos);
  EXPECT_FALSE(experiments::best_cells_b_simple(plain));
}

// The least demanding value every finished run reached: the highest of their lowest losses
// (2.4, the run that stalled), or for a higher-is-better reading the lowest of their highest
// points (0.7); diverged and running runs do not count; a finished run without the curve leaves
// none.
TEST(TimeToTarget, TheTargetEveryFinishedRunReached) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "runs.db").string();
  store_runs(path, {{"512", "1e-3", "1", {8, 3, 1.0}, 500},
                    {"512", "1e-3", "2", {8, 2.5, 2.4}, 500},
                    {"512", "2e-3", "1", {0.5, 0.7, 0.6}, 500},
                    {"2048", "1e-3", "1", {8, 9, 50}, 2000, "diverged"},
                    {"2048", "1e-3", "2", {9, 9, 9}, 2000, "running"}});
  auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto runs = experiments::select_sweep_runs(store, "s", "");
  const auto lowest = experiments::target_every_run_reached(store, runs, db::metric::kValidLoss);
  ASSERT_TRUE(lowest);
  EXPECT_DOUBLE_EQ(*lowest, 2.4);
  const auto highest =
      experiments::target_every_run_reached(store, runs, db::metric::kValidLoss, false);
  ASSERT_TRUE(highest);
  EXPECT_DOUBLE_EQ(*highest, 0.7);
  // At 2.4 every finished cell is complete.
  experiments::ReachOptions o = loss_two_options();
  o.target = *lowest;
  for (const auto& c : experiments::reach_table(store, runs, "s", o).cells)
    if (c.row == "512") EXPECT_EQ(c.reached, c.runs) << c.col;
  EXPECT_FALSE(experiments::target_every_run_reached(store, runs, db::metric::kValidBleu));
}

// The table as the app lists it and as Markdown bolds it: a row per cell, the header naming the
// target, each row's best cell's updates in bold in the Markdown only.
TEST(TimeToTarget, TheTextTableAndItsMarkdown) {
  experiments::ReachTable t;
  experiments::ReachCell a, b;
  a.row = b.row = "512";
  a.col = "1e-3";
  b.col = "2e-3";
  a.runs = a.reached = b.runs = b.reached = 1;
  a.updates = 150;
  b.updates = 120;
  a.updates_ci95 = b.updates_ci95 = a.tokens_ci95 = b.tokens_ci95 = NAN;
  a.tokens = 75000;
  b.tokens = 60000;
  a.tokens_per_update = b.tokens_per_update = 500;
  t.cells = {a, b};
  t.best = {1};
  const auto o = loss_two_options();
  const experiments::TextTable text = experiments::reach_text_table(t, o);
  EXPECT_EQ(text.header, (std::vector<std::string>{"data.max_tokens", "train.lr", "reached",
                                                   "updates to valid_loss 2", "target tokens to it",
                                                   "tokens per update"}));
  ASSERT_EQ(text.rows.size(), 2u);
  EXPECT_EQ(text.rows[1],
            (std::vector<std::string>{"512", "2e-3", "1/1", "120.0", "60000", "500"}));
  const std::string md = experiments::reach_markdown(t, o);
  EXPECT_NE(md.find("| data.max_tokens | train.lr | reached | updates to valid_loss 2 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("|---|---|---:|---:|---:|---:|"), std::string::npos) << md;
  EXPECT_NE(md.find("| 512 | 2e-3 | 1/1 | **120.0** | 60000 | 500 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 512 | 1e-3 | 1/1 | 150.0 | 75000 | 500 |"), std::string::npos) << md;
}

}  // namespace test_time_to_target
