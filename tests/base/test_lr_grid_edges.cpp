// Where a learning-rate grid leaves an optimum open (experiments/lr_grid_edges.h): the next
// rate continues a log-spaced grid -- checked against the rates the depth studies' second and
// third grids were given by hand (configs/presets/lm-depth-2025-edge.yaml, -lns24.yaml) -- and
// curves are judged open at either end, closed inside, unjudged with one rate.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "experiments/lr_grid_edges.h"

namespace test_lr_grid_edges {
using namespace fathom::experiments;

// lm-depth-2025's first grid, {logspace: [2.5e-4, 8e-3, 4]}, as the sweep wrote its rates (4
// significant digits); the ratio is 32^(1/3) = 3.174802.
const std::vector<double> kFirstGrid = {2.5e-4, 7.937e-4, 2.52e-3, 8e-3};

TEST(LrGridEdges, TheNextRateContinuesALogSpacedGridAsTheStudiesDidByHand) {
  // 8e-3 * 3.174802 = 0.02539842: the second grid's rate (lm-depth-2025-edge.yaml).
  EXPECT_EQ(rate_text(rate_beyond(kFirstGrid, /*above=*/true)), "0.0253984");
  // 2.5e-4 / 3.174802 = 7.874507e-5.
  EXPECT_EQ(rate_text(rate_beyond(kFirstGrid, /*above=*/false)), "7.87451e-05");
  // With the second grid's rate, the third's (lm-depth-2025-lns24.yaml): 0.0253984 * 3.174802.
  std::vector<double> second = kFirstGrid;
  second.push_back(0.0253984);
  EXPECT_EQ(rate_text(rate_beyond(second, true)), "0.0806349");
  // Two rates: their own ratio.
  EXPECT_EQ(rate_text(rate_beyond({1e-3, 2e-3}, true)), "0.004");
  EXPECT_EQ(rate_text(rate_beyond({1e-3, 2e-3}, false)), "0.0005");
}

TableRun run(int64_t id, const std::string& norm, const std::string& lr, const std::string& status,
             std::optional<double> loss) {
  TableRun r;
  r.id = id;
  r.status = status;
  r.axes = {{"model.norm", norm}, {"train.lr", lr}, {"train.seed", "1"}};
  r.metric = loss;
  return r;
}

// l0 = ln 10 = 2.3026 for every run. inside: lowest at 2e-3. above: falls to 4e-3. below:
// lowest at 1e-3. diverges: lowest at 2e-3, its 4e-3 run diverged (counted at l0). alone: one
// rate.
std::vector<TableRun> curves() {
  int64_t id = 0;
  std::vector<TableRun> runs;
  const struct {
    const char* norm;
    double at[3];
  } rows[] = {{"inside", {2.0, 1.5, 1.8}},
              {"above", {2.0, 1.9, 1.7}},
              {"below", {1.0, 1.5, 1.9}},
              {"diverges", {1.9, 1.5, NAN}}};
  const char* rates[] = {"1e-3", "2e-3", "4e-3"};
  for (const auto& row : rows)
    for (int i = 0; i < 3; ++i)
      runs.push_back(std::isnan(row.at[i]) ? run(++id, row.norm, rates[i], "diverged", std::nullopt)
                                           : run(++id, row.norm, rates[i], "finished", row.at[i]));
  runs.push_back(run(++id, "alone", "1e-3", "finished", 1.0));
  return runs;
}

TEST(LrGridEdges, ACurveIsOpenAtEitherEndClosedInsideAndUnjudgedWithOneRate) {
  const auto s = lr_sensitivity(
      curves(), "valid_loss", [](int64_t) { return std::log(10.0); }, "");
  const GridEdges edges = grid_edges(s);
  EXPECT_EQ(edges.closed, (std::vector<std::string>{"norm=inside", "norm=diverges"}));
  ASSERT_EQ(edges.open.size(), 2u);
  EXPECT_EQ(edges.open[0].label, "norm=above");
  EXPECT_TRUE(edges.open[0].above);
  EXPECT_DOUBLE_EQ(edges.open[0].best_lr, 4e-3);
  EXPECT_EQ(edges.open[0].next_text, "0.008");  // (4e-3 / 1e-3)^(1/2) = 2 beyond 4e-3
  EXPECT_DOUBLE_EQ(edges.open[0].next_lr(), 8e-3);
  EXPECT_EQ(edges.open[0].setting, (std::map<std::string, std::string>{{"model.norm", "above"}}));
  EXPECT_EQ(edges.open[1].label, "norm=below");
  EXPECT_FALSE(edges.open[1].above);
  EXPECT_EQ(edges.open[1].next_text, "0.0005");
  ASSERT_EQ(edges.notes.size(), 1u);
  EXPECT_NE(edges.notes[0].find("norm=alone: one rate"), std::string::npos) << edges.notes[0];
  // The sensitivity table and its notes say the same: "(an end)" on the open curves' best rate,
  // and how many are open.
  const TextTable table = lr_sensitivity_table(s);
  ASSERT_EQ(table.rows.size(), 5u);
  EXPECT_EQ(table.rows[0][3], "0.002");           // inside
  EXPECT_EQ(table.rows[1][3], "0.004 (an end)");  // above
  EXPECT_EQ(table.rows[2][3], "0.001 (an end)");  // below
  EXPECT_EQ(table.rows[4][3], "0.001");           // alone: one rate, no side
  EXPECT_NE(s.notes.back().find("2 of 5 curves have their lowest mean at an end"),
            std::string::npos)
      << s.notes.back();
}

}  // namespace test_lr_grid_edges
