// How each method's best depth grows with the budget (plot/budgets_figure.h: scalings, over
// experiments/optimum_scaling.h) on a store: depths 2, 4, 8, 16, three seeds each, validated at
// updates 100, 200 and 400. post's means put its vertex in ln(depth) at ln 4 + d ln 2 with d =
// -0.3, 0, 0.3 -- ln x* rises 0.3 ln 2 as the budget doubles: the exponent is 0.3. pre is best
// at the deepest at every budget: no exponent.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/value_at_budget.h"
#include "plot/budgets_figure.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_budgets_scaling {

const std::vector<int> kDepths = {2, 4, 8, 16};
const std::vector<int> kUpdates = {100, 200, 400};

// The mean at depth index i, budget index k: post's vertex at ln 4 + d_k ln 2 (means
// 2 + (1 + 2d)/2, 2, 2 + (1 - 2d)/2 at 2, 4, 8, and 4 at 16), pre falling to the deepest; the
// loss lower by 0.1 at each larger budget.
double mean_of(const std::string& norm, size_t i, size_t k) {
  const double d = -0.3 + 0.3 * static_cast<double>(k);
  const double post[4] = {2 + (1 + 2 * d) / 2, 2, 2 + (1 - 2 * d) / 2, 4};
  const double pre[4] = {3.0, 2.8, 2.6, 2.4};
  return (norm == "post" ? post[i] : pre[i]) - 0.1 * static_cast<double>(k);
}

void write_sweep(const std::string& path) {
  auto store = db::Store::open(path);
  for (const std::string norm : {"post", "pre"})
    for (size_t i = 0; i < kDepths.size(); ++i)
      for (int seed = -1; seed <= 1; ++seed) {
        db::NewRun n;
        n.name = "d/" + norm + std::to_string(kDepths[i]) + "-" + std::to_string(seed);
        n.sweep = "d";
        const int64_t id = store.create_run(n);
        store.set_tag(id, "axis.model.layers", std::to_string(kDepths[i]));
        store.set_tag(id, "axis.model.norm", norm);
        store.set_tag(id, "axis.train.seed", std::to_string(seed + 2));
        std::vector<db::MetricRow> rows;
        for (size_t k = 0; k < kUpdates.size(); ++k)
          rows.emplace_back(kUpdates[k], "valid_loss", mean_of(norm, i, k) + 0.02 * seed, 0.0);
        store.write_metrics(id, rows);
        store.finish_run(id, "finished");
      }
}

TEST(BudgetsScaling, EachMethodsBestDepthAgainstTheBudget) {
  fathom::testing::TempDir scratch;
  write_sweep(scratch.file("runs.db"));
  const auto store = db::Store::open(scratch.file("runs.db"), db::OpenMode::ReadOnly);
  BudgetsQuery q;
  q.sweep = "d";
  q.x = "model.layers";
  q.rows = "model.norm";
  for (int u : kUpdates)
    q.budgets.push_back(experiments::parse_budget("update=" + std::to_string(u), "test"));
  const BudgetsFigure made = budgets_figure(store, q);
  ASSERT_EQ(made.scalings.size(), 2u);
  const experiments::OptimumScaling& post = made.scalings[0];
  EXPECT_EQ(post.line, "post");
  EXPECT_EQ(post.budget_axis, "update");
  EXPECT_EQ(post.budgets, 3);
  EXPECT_NEAR(post.exponent, 0.3, 1e-9);
  EXPECT_LT(post.ci_lo, 0.3);
  EXPECT_GT(post.ci_hi, 0.3);
  EXPECT_NE(post.text().find("post: best layers grows as update^0.3 (95 % CI "), std::string::npos)
      << post.text();
  // Each budget's optimum, as the figure draws it, is the fit's point: 4 * 2^d. Each optimum
  // is said with the budget it is read at (post's and pre's lines, budget by budget).
  ASSERT_EQ(made.optimum_budgets.size(), made.optima.size());
  for (size_t k = 0; k < kUpdates.size(); ++k) {
    EXPECT_NEAR(made.optima[2 * k].best.x, 4 * std::exp2(-0.3 + 0.3 * double(k)), 1e-9);
    EXPECT_EQ(made.optimum_budgets[2 * k], kUpdates[k]);
    EXPECT_EQ(made.optimum_budgets[2 * k + 1], kUpdates[k]);
  }
  const experiments::OptimumScaling& pre = made.scalings[1];
  EXPECT_EQ(pre.budgets, 0);
  EXPECT_EQ(pre.text(), "pre: no exponent: 0 of 3 budgets bracket the best layers (3 needed)");

  // Two budgets: no exponent is asked for.
  q.budgets.pop_back();
  EXPECT_TRUE(budgets_figure(store, q).scalings.empty());
}

}  // namespace test_budgets_scaling
}  // namespace fathom::plot
