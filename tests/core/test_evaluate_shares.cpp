// Validation shared by data-parallel ranks (core/train/evaluate.h): rank r of N evaluates every
// N-th batch of the split's plan, and the N ranks' loss sums add up to one process's -- every
// batch counted once, none twice -- for 1 to 4 ranks, more ranks than batches included.
#include <gtest/gtest.h>

#include <cmath>

#include "core/data/batch.h"
#include "core/train/evaluate.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_evaluate_shares {

TEST(EvaluateShares, TheRanksSharesAddUpToOneProcesssSums) {
  RunConfig c = small_config("pre", "xavier", 2, 2);
  c.data.synthetic.valid_size = 60;
  c.data.max_tokens = 64;  // many small batches
  Fixture f = make(c);
  const Dataset data = load_dataset(c.data, "", "");
  const auto& valid = data.valid;
  const size_t batches = plan_batches(valid, c.data.max_tokens).all().size();
  ASSERT_GE(batches, 5u);
  const LossTotals whole = evaluate_loss_totals(*f.model, valid, 64, torch::kCPU, 0.1);
  const LossReport one = evaluate_loss(*f.model, valid, 64, torch::kCPU, 0.1);
  EXPECT_DOUBLE_EQ(one.nll, whole.nll / static_cast<double>(whole.tokens));
  EXPECT_DOUBLE_EQ(one.ppl, std::exp(one.nll));

  for (int world : {2, 3, 4, static_cast<int>(batches) + 2}) {
    SCOPED_TRACE("world " + std::to_string(world));
    LossTotals sum;
    for (int rank = 0; rank < world; ++rank) {
      const LossTotals share =
          evaluate_loss_totals(*f.model, valid, 64, torch::kCPU, 0.1, rank, world);
      sum.smoothed += share.smoothed;
      sum.nll += share.nll;
      sum.tokens += share.tokens;
    }
    EXPECT_EQ(sum.tokens, whole.tokens);
    EXPECT_NEAR(sum.nll, whole.nll, 1e-9 * whole.nll);
    EXPECT_NEAR(sum.smoothed, whole.smoothed, 1e-9 * whole.smoothed);
    const LossReport shared = loss_report(sum);
    EXPECT_NEAR(shared.loss, one.loss, 1e-9 * one.loss);
  }
  // A rank with no batch has nothing to add.
  const LossTotals none =
      evaluate_loss_totals(*f.model, valid, 64, torch::kCPU, 0.1, static_cast<int>(batches),
                           static_cast<int>(batches) + 1);
  EXPECT_EQ(none.tokens, 0);
  EXPECT_EQ(loss_report(none).loss, 0.0);
}

}  // namespace test_evaluate_shares
}  // namespace fathom::analysis
