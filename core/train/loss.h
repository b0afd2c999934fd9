#pragma once
// Label-smoothed cross entropy (methods.md s1). The smoothing target puts 1 - eps on the
// reference token and eps spread uniformly over all V entries:
//   loss_t = (1 - eps) * nll_t + (eps / V) * sum_v (-log p_v)
// summed over non-pad target positions. Perplexity uses the unsmoothed nll.
#include <torch/torch.h>

namespace fathom {

struct LossSums {
  torch::Tensor smoothed;  // scalar: sum of smoothed loss over non-pad tokens (for backward)
  torch::Tensor nll;       // scalar: sum of -log p(reference), no smoothing (detached)
  int64_t tokens = 0;      // non-pad target tokens (0 when not counted)
  // With per_row: each row's sum of -log p(reference) [B] (detached) and its tokens [B].
  torch::Tensor row_nll, row_tokens;
};

// logits [B, T, V], target [B, T] (pad = 0 is ignored). count_tokens = false skips counting
// the tokens, a device-to-host read (the trainer knows the count from the batch); per_row adds
// every row's NLL and tokens (a test set's per-segment scores, for paired tests).
LossSums label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& target,
                             double epsilon, bool count_tokens = true, bool per_row = false);

}  // namespace fathom
