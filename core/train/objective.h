#pragma once
// The training objective summed over a batch's target tokens: the label-smoothed cross entropy
// (loss.h) plus train.z_loss times the z-loss (z_loss.h) when that is on. An update's gradient
// is of this sum over its tokens, and the sharpness tracker differentiates the same sum twice:
// one definition, so the two cannot drift apart when a term joins.
#include <torch/torch.h>

#include "core/train/loss.h"

namespace fathom {

struct ObjectiveSums {
  LossSums loss;            // the cross entropy's sums (logged; perplexity is of its nll)
  torch::Tensor objective;  // scalar: what the gradient is taken of
};

// logits [B, T, V], target [B, T] (pad = 0 ignored); count_tokens as label_smoothed_loss's.
ObjectiveSums objective_sums(const torch::Tensor& logits, const torch::Tensor& target,
                             double label_smoothing, double z_loss, bool count_tokens = true);

}  // namespace fathom
