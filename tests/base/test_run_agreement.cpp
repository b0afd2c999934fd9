// Whether two runs' stored curves agree (experiments/run_agreement.h): rows written by hand, the
// first departure, the values at the end and the counts checked against what the rows say.
#include "experiments/run_agreement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "db/store.h"
#include "tests/support/temp_dir.h"

namespace test_run_agreement {
using fathom::db::MetricRow;
using fathom::experiments::compare_stored_trajectories;
using fathom::experiments::compare_trajectories;
using fathom::experiments::describe_agreement;
using fathom::experiments::values_agree;

// train_loss and grad_norm at updates 10..50, tokens_per_s and sys.rss_mib beside them.
std::vector<MetricRow> curves() {
  std::vector<MetricRow> rows;
  for (int64_t step = 10; step <= 50; step += 10) {
    rows.push_back({step, "train_loss", 4.0 - 0.01 * static_cast<double>(step), 0});
    rows.push_back({step, "grad_norm", 2.0 + 0.1 * static_cast<double>(step), 0});
    rows.push_back({step, "tokens_per_s", 1000.0 + static_cast<double>(step), 0});
    rows.push_back({step, "sys.rss_mib", 300.0, 0});
  }
  return rows;
}

// `rows` with the value of `name` at `step` replaced.
std::vector<MetricRow> with(std::vector<MetricRow> rows, int64_t step, const std::string& name,
                            double value) {
  for (auto& [s, n, v, wall] : rows)
    if (s == step && n == name) v = value;
  return rows;
}

TEST(RunAgreement, EqualCurvesAgreeAndTheMachinesReadingsAreLeftOut) {
  auto twin = curves();
  for (auto& [step, name, value, wall] : twin) {
    if (name == "tokens_per_s" || name == "sys.rss_mib") value *= 1.7;  // another machine
    wall += 100;                                                        // another day
  }
  const auto r = compare_trajectories(curves(), twin);
  EXPECT_TRUE(r.agrees());
  EXPECT_EQ(r.metrics, 2u);  // train_loss and grad_norm
  EXPECT_EQ(r.values, 10u);  // 5 updates each
  EXPECT_EQ(r.through, 50);
  EXPECT_TRUE(r.apart_at_end.empty());
  EXPECT_EQ(describe_agreement(r, "#1", "#2"),
            "identical: 10 values of 2 metrics through update 50");
}

TEST(RunAgreement, TheFirstDepartureIsTheEarliestUpdateThenTheFirstNameThere) {
  // grad_norm from update 30 on, train_loss at 20 and 30: the earliest is train_loss at 20.
  auto b = with(curves(), 20, "train_loss", 3.9);
  b = with(b, 30, "train_loss", 3.6);
  b = with(b, 30, "grad_norm", 5.5);
  const auto r = compare_trajectories(curves(), b);
  ASSERT_FALSE(r.agrees());
  EXPECT_EQ(r.first_departure->step, 20);
  EXPECT_EQ(r.first_departure->metric, "train_loss");
  EXPECT_DOUBLE_EQ(r.first_departure->a, 3.8);
  EXPECT_DOUBLE_EQ(r.first_departure->b, 3.9);
  EXPECT_NEAR(r.first_departure->relative, 0.1 / 3.9, 1e-14);  // 3.8 is not exact
  // Both depart first at update 30: the name first in order (grad_norm) is the one named.
  const auto tie = compare_trajectories(
      curves(), with(with(curves(), 30, "train_loss", 3.6), 30, "grad_norm", 5.5));
  EXPECT_EQ(tie.first_departure->step, 30);
  EXPECT_EQ(tie.first_departure->metric, "grad_norm");
  // They met again by update 50: nothing is apart at the end.
  EXPECT_TRUE(r.apart_at_end.empty());
  const std::string text = describe_agreement(r, "#1", "#7");
  EXPECT_EQ(
      text.rfind("first recorded difference at update 20, train_loss 3.800 (#1) against 3.900 "
                 "(#7), relative 0.026 (of 10 values of 2 metrics through update 50)",
                 0),
      0u)
      << text;
}

TEST(RunAgreement, ValuesApartAtTheEndLargestRelativeFirst) {
  auto b = with(curves(), 50, "train_loss", 3.5 * 1.01);  // 1 %
  b = with(b, 50, "grad_norm", 7.0 * 1.1);                // 10 %, recorded first below
  const auto r = compare_trajectories(curves(), b);
  ASSERT_EQ(r.apart_at_end.size(), 2u);
  EXPECT_EQ(r.apart_at_end[0].metric, "grad_norm");
  EXPECT_NEAR(r.apart_at_end[0].relative, 0.1 / 1.1, 1e-12);
  EXPECT_EQ(r.apart_at_end[1].metric, "train_loss");
  EXPECT_NEAR(r.apart_at_end[1].relative, 0.01 / 1.01, 1e-12);
}

TEST(RunAgreement, ATolerancePassesRoundingButNotMore) {
  const auto b = with(curves(), 40, "grad_norm", 6.0 * (1 + 1e-9));
  EXPECT_FALSE(compare_trajectories(curves(), b, 0).agrees());
  EXPECT_TRUE(compare_trajectories(curves(), b, 1e-8).agrees());
  EXPECT_FALSE(compare_trajectories(curves(), b, 1e-10).agrees());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(values_agree(nan, nan, 0));  // both diverged there
  EXPECT_FALSE(values_agree(nan, 1.0, 0.5));
  EXPECT_TRUE(values_agree(inf, inf, 0));
  EXPECT_FALSE(values_agree(inf, -inf, 0.5));
  EXPECT_FALSE(values_agree(inf, 1e300, 0.5));
  EXPECT_TRUE(values_agree(0.0, -0.0, 0));
}

TEST(RunAgreement, OnlyCommonUpdatesAreComparedAndTheRestCounted) {
  // The second run stopped after update 30 and never recorded valid_loss; the first never
  // recorded lr.
  auto a = curves();
  a.push_back({50, "valid_loss", 3.0, 0});
  std::vector<MetricRow> b;
  for (const auto& row : curves())
    if (std::get<0>(row) <= 30) b.push_back(row);
  b.push_back({10, "lr", 1e-3, 0});
  const auto r = compare_trajectories(a, b);
  EXPECT_TRUE(r.agrees());
  EXPECT_EQ(r.through, 30);
  EXPECT_EQ(r.values, 6u);
  EXPECT_EQ(r.unmatched_values, 4);  // updates 40 and 50 of train_loss and grad_norm
  EXPECT_EQ(r.only_in_a, std::vector<std::string>{"valid_loss"});
  EXPECT_EQ(r.only_in_b, std::vector<std::string>{"lr"});
  const std::string text = describe_agreement(r, "#1", "#2");
  EXPECT_NE(text.find("4 values at updates only one run recorded were not compared"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("only #1 recorded valid_loss"), std::string::npos) << text;
  EXPECT_NE(text.find("only #2 recorded lr"), std::string::npos) << text;
  // Nothing in common: said, not "identical".
  EXPECT_EQ(describe_agreement(compare_trajectories(a, {}), "#1", "#2").rfind("no curve values", 0),
            0u);
}

void expect_same_point(const fathom::experiments::CurvePoint& x,
                       const fathom::experiments::CurvePoint& y) {
  EXPECT_EQ(x.step, y.step);
  EXPECT_EQ(x.metric, y.metric);
  EXPECT_EQ(x.a, y.a);
  EXPECT_EQ(x.b, y.b);
}

// Read from a store metric by metric (what `fathom compare` and a reproduction use, so that a
// long run's rows are never held whole), the comparison is the one of the rows themselves:
// runs written in scrambled order, with names whose byte order ("Z" < "a") is not a locale's.
TEST(RunAgreement, ReadFromAStoreMetricByMetricItIsTheComparisonOfTheRows) {
  fathom::testing::TempDir dir;
  auto store = fathom::db::Store::open((dir.path() / "runs.db").string());
  auto scrambled = [](std::vector<MetricRow> rows) {
    std::reverse(rows.begin(), rows.end());
    return rows;
  };
  auto a = curves();
  a.push_back({20, "Zeta", 1.0, 0});
  a.push_back({20, "alpha", 2.0, 0});
  const std::vector<std::vector<MetricRow>> others = {
      a,                                                           // a twin
      with(with(a, 30, "train_loss", 3.6), 30, "grad_norm", 5.5),  // the tie above
      with(with(a, 20, "alpha", 2.5), 50, "grad_norm", 7.7),       // parts first at "alpha"
      {a.begin(), a.begin() + 8},                                  // stopped at update 20
      {}};                                                         // recorded nothing
  std::vector<int64_t> ids;
  const int64_t first = store.create_run({"first", "", "{}", "", "", "", ""});
  store.write_metrics(first, scrambled(a));
  for (const auto& rows : others) {
    ids.push_back(store.create_run({"other", "", "{}", "", "", "", ""}));
    if (!rows.empty()) store.write_metrics(ids.back(), scrambled(rows));
  }
  const auto stored = compare_stored_trajectories(store, first, ids, 1e-12);
  ASSERT_EQ(stored.size(), others.size());
  for (size_t k = 0; k < others.size(); ++k) {
    SCOPED_TRACE("other " + std::to_string(k));
    const auto rows = compare_trajectories(a, others[k], 1e-12);
    EXPECT_EQ(stored[k].agrees(), rows.agrees());
    if (rows.first_departure && stored[k].first_departure)
      expect_same_point(*stored[k].first_departure, *rows.first_departure);
    ASSERT_EQ(stored[k].apart_at_end.size(), rows.apart_at_end.size());
    for (size_t i = 0; i < rows.apart_at_end.size(); ++i)
      expect_same_point(stored[k].apart_at_end[i], rows.apart_at_end[i]);
    EXPECT_EQ(stored[k].through, rows.through);
    EXPECT_EQ(stored[k].metrics, rows.metrics);
    EXPECT_EQ(stored[k].values, rows.values);
    EXPECT_EQ(stored[k].unmatched_values, rows.unmatched_values);
    EXPECT_EQ(stored[k].only_in_a, rows.only_in_a);
    EXPECT_EQ(stored[k].only_in_b, rows.only_in_b);
    EXPECT_EQ(stored[k].tolerance, 1e-12);
  }
  // What the rows say, by hand: the third parts first at update 20 in "alpha" (before
  // train_loss in byte order, after "Zeta"), and the fourth was compared through update 20.
  EXPECT_EQ(stored[2].first_departure->metric, "alpha");
  EXPECT_EQ(stored[2].first_departure->step, 20);
  EXPECT_EQ(stored[3].through, 20);
  EXPECT_EQ(stored[3].values, 4u);  // train_loss and grad_norm at 10 and 20
  EXPECT_EQ(stored[4].values, 0u);
  EXPECT_EQ(stored[4].only_in_a.size(), 4u);
}

}  // namespace test_run_agreement
