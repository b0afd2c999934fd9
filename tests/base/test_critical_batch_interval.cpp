// The critical batch's bootstrap (experiments/critical_batch_interval.h) on tables whose draws
// can be enumerated by hand. Rows of batch 100, 400 and 1600 target tokens an update, made by
// S = 100 (1 + 400 / B): 500, 200 and 125 updates. Only the smallest batch's cell varies, as two
// runs {480, 520}: a draw's mean there is 480, 500 or 520 (a quarter, a half, a quarter),
// rescaled about 500 by sqrt(2) -- 500 -+ 20 sqrt 2 -- and B_crit rises with it, so the 95 %
// interval's ends are the fits at those two values exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "experiments/critical_batch_interval.h"
#include "experiments/reach_text.h"
#include "experiments/time_to_target.h"

namespace test_critical_batch_interval {

using fathom::experiments::ReachCell;
using fathom::experiments::ReachTable;

ReachCell cell(std::string row, std::string col, std::vector<double> runs, double batch) {
  ReachCell c;
  c.row = std::move(row);
  c.col = std::move(col);
  c.runs = static_cast<int>(runs.size());
  double sum = 0;
  for (double u : runs)
    if (!std::isnan(u)) sum += u, ++c.reached;
  c.updates = c.reached ? sum / c.reached : NAN;
  c.tokens_per_update = batch;
  c.run_updates = std::move(runs);
  c.run_b_simple.assign(c.run_updates.size(), NAN);
  return c;
}

ReachTable model_rows() {
  ReachTable t;
  t.cells = {cell("100", "a", {480, 520}, 100), cell("400", "a", {200, 200}, 400),
             cell("1600", "a", {125, 125}, 1600)};
  t.best = {0, 1, 2};
  return t;
}

// Every run of every cell read B_simple = b.
void read_b_simple(ReachTable& t, double b) {
  for (auto& c : t.cells) {
    c.run_b_simple.assign(c.run_updates.size(), b);
    c.b_simple = b;
    c.b_simple_runs = c.runs;
  }
}

double b_crit_at(double s_100) {
  return fathom::experiments::fit_critical_batch({100, 400, 1600}, {s_100, 200, 125})->b_crit;
}

TEST(CriticalBatchInterval, TheEndsAreTheFitsAtTheExtremeDraws) {
  const auto fit = fathom::experiments::fit_best_cells(model_rows());
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->b_crit, 400, 1e-9);
  EXPECT_EQ(fit->draws, fathom::experiments::kCriticalBatchDraws);
  EXPECT_EQ(fit->unfit, 0);
  EXPECT_DOUBLE_EQ(fit->best_kept, 1.0);  // one column: the best is the only cell
  const double spread = 20 * std::sqrt(2.0);
  EXPECT_NEAR(fit->b_crit_lo, b_crit_at(500 - spread), 1e-9);
  EXPECT_NEAR(fit->b_crit_hi, b_crit_at(500 + spread), 1e-9);
  EXPECT_TRUE(std::isnan(fit->ratio_lo));  // no B_simple
}

// Runs that do not vary: every draw is the table itself.
TEST(CriticalBatchInterval, RunsAlikeGiveAPoint) {
  ReachTable t = model_rows();
  t.cells[0] = cell("100", "a", {500, 500, 500}, 100);
  const auto fit = fathom::experiments::fit_best_cells(t);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->b_crit_lo, 400, 1e-9);
  EXPECT_NEAR(fit->b_crit_hi, 400, 1e-9);
}

// A faster cell beside the best whose second run never got there is complete in a quarter of
// the draws -- both picks its first run, 300 -- and is then that row's best: the choice moves,
// and the interval's low end is the fit at 300.
TEST(CriticalBatchInterval, TheBestCellIsChosenAgainInEachDraw) {
  ReachTable t = model_rows();
  t.cells.insert(t.cells.begin() + 1, cell("100", "b", {300, NAN}, 100));
  t.best = {0, 2, 3};
  const auto fit = fathom::experiments::fit_best_cells(t);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->b_crit, 400, 1e-9);  // the point estimate keeps the complete cell
  EXPECT_NEAR(fit->best_kept, 0.75, 0.03);
  EXPECT_NEAR(fit->b_crit_lo, b_crit_at(300), 1e-9);
  EXPECT_NEAR(fit->b_crit_hi, b_crit_at(500 + 20 * std::sqrt(2.0)), 1e-9);
}

// Runs spread wider than their mean, {10, 1000} at the smallest batch: drawn as {10, 10} the
// mean is stretched below 0 (505 - sqrt 2 x 495; it stops at 0), where updates no longer fall
// with the batch -- B_crit 0, the interval's low end; drawn as {1000, 1000}, to 1205, they fall
// faster than 1 / B (S_min < 0) -- B_crit unbounded, its high end.
TEST(CriticalBatchInterval, AWideCellTakesTheIntervalToItsLimits) {
  ReachTable t = model_rows();
  t.cells[0] = cell("100", "a", {10, 1000}, 100);
  const auto fit = fathom::experiments::fit_best_cells(t);
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->b_crit_lo, 0.0);
  EXPECT_LT(fathom::experiments::fit_critical_batch({100, 400, 1600}, {1205, 200, 125})->s_min, 0);
  EXPECT_TRUE(std::isinf(fit->b_crit_hi));
}

// B_simple alike in every run: the ratio's interval is B_crit's over it; the text says whether
// it tells the two apart.
TEST(CriticalBatchInterval, TheRatioToBSimpleAndWhatItDecides) {
  ReachTable t = model_rows();
  read_b_simple(t, 200);
  const auto fit = fathom::experiments::fit_best_cells(t);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->ratio_lo, fit->b_crit_lo / 200, 1e-12);
  EXPECT_NEAR(fit->ratio_hi, fit->b_crit_hi / 200, 1e-12);
  EXPECT_EQ(fit->ratio_draws, fit->draws);  // every draw's best cells read B_simple
  const std::string above = fathom::experiments::critical_batch_text(fit, 200.0);
  EXPECT_NE(above.find("B_crit / B_simple 2.00 (95 % interval "), std::string::npos) << above;
  EXPECT_NE(above.find("): B_crit above B_simple"), std::string::npos) << above;
  EXPECT_EQ(above.find("read no B_simple"), std::string::npos) << above;
  auto open = *fit;
  open.ratio_lo = 0.8;
  open.ratio_hi = INFINITY;
  open.b_crit_hi = INFINITY;
  const std::string text = fathom::experiments::critical_batch_text(open, 200.0);
  EXPECT_NE(text.find("to ∞ target tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("0.80 to ∞): inconclusive"), std::string::npos) << text;
}

// The faster cell beside the best read no B_simple, and is its row's best in a quarter of the
// draws: their ratio is unknown. Counted at 0 and at +inf, a quarter of the draws -- more than
// either 2.5 % tail -- takes the interval to both limits, so the text cannot decide; leaving them
// out would have kept the interval of the other draws, all at B_crit / 200 above 1.
TEST(CriticalBatchInterval, DrawsWhoseBestCellsReadNoBSimpleWidenTheRatio) {
  ReachTable t = model_rows();
  read_b_simple(t, 200);
  t.cells.insert(t.cells.begin() + 1, cell("100", "b", {300, NAN}, 100));  // no B_simple
  t.best = {0, 2, 3};
  const auto fit = fathom::experiments::fit_best_cells(t);
  ASSERT_TRUE(fit);
  const int unknown = fit->draws - fit->ratio_draws;
  EXPECT_NEAR(unknown, 0.25 * fit->draws, 0.03 * fit->draws);
  EXPECT_EQ(fit->ratio_lo, 0.0);
  EXPECT_TRUE(std::isinf(fit->ratio_hi));
  const std::string text = fathom::experiments::critical_batch_text(fit, 200.0);
  EXPECT_NE(text.find("in " + std::to_string(unknown) + " draws a best cell read no B_simple"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("): inconclusive"), std::string::npos) << text;
}

// The ends are read where the expanded percentile reads them, for the best cells' pooled
// degrees of freedom. The smallest batch's cell is {400, 500, 500, 500} (mean 475): a draw of
// all four at 400 (0.39 % of draws, ~8 of 2,000) rescales to 475 - sqrt(4/3) 75; one of three
// at 400 (4.7 %) to 475 - sqrt(4/3) 50. With the other rows one run each, 3 degrees of freedom:
// the low end is the 0.073 % point (the 1st-2nd draw), inside the all-400 draws. With 30 runs
// each, 61: the 2.28 % point (the ~46th), past them, inside the three-at-400 draws.
TEST(CriticalBatchInterval, TheEndsAreExpandedForTheBestCellsDegreesOfFreedom) {
  const double stretch = std::sqrt(4.0 / 3.0);
  ReachTable few;
  few.cells = {cell("100", "a", {400, 500, 500, 500}, 100), cell("400", "a", {200}, 400),
               cell("1600", "a", {125}, 1600)};
  few.best = {0, 1, 2};
  const auto narrow_df = fathom::experiments::fit_best_cells(few);
  ASSERT_TRUE(narrow_df);
  EXPECT_EQ(narrow_df->interval_df, 3);
  EXPECT_NEAR(narrow_df->b_crit_lo, b_crit_at(475 - stretch * 75), 1e-9);
  ReachTable many = few;
  many.cells[1] = cell("400", "a", std::vector<double>(30, 200), 400);
  many.cells[2] = cell("1600", "a", std::vector<double>(30, 125), 1600);
  const auto wide_df = fathom::experiments::fit_best_cells(many);
  ASSERT_TRUE(wide_df);
  EXPECT_EQ(wide_df->interval_df, 61);
  EXPECT_NEAR(wide_df->b_crit_lo, b_crit_at(475 - stretch * 50), 1e-9);
  // The text says where the ends were read.
  const std::string text = fathom::experiments::critical_batch_text(narrow_df, std::nullopt);
  EXPECT_NE(text.find("its ends the draws' 0.07 % and 99.93 % points, expanded for the best "
                      "cells' 3 degrees of freedom"),
            std::string::npos)
      << text;
}

}  // namespace test_critical_batch_interval
