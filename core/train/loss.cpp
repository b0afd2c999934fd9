#include "core/train/loss.h"

#include "core/data/vocab.h"
#include "core/train/token_losses.h"

namespace fathom {

LossSums label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& target,
                             double epsilon, bool count_tokens, bool per_row) {
  const TokenLosses per_token = token_losses(logits, target, epsilon);
  const torch::Tensor& nll = per_token.nll;
  torch::Tensor keep = target.ne(kPadId);
  LossSums out;
  // Pads zeroed rather than selected out: masked_select sizes its result on the host (a sync
  // with the device every step, and nothing a CUDA graph can capture, graphed_pass.h).
  const torch::Tensor drop = keep.logical_not();
  out.smoothed = per_token.smoothed.masked_fill(drop, 0).sum();
  out.nll = nll.masked_fill(drop, 0).sum().detach();
  if (count_tokens) out.tokens = keep.sum().item<int64_t>();
  if (per_row) {
    // Summed in float64: a long segment's NLL keeps its digits in the file it goes to.
    out.row_nll = nll.detach().to(torch::kFloat64).masked_fill(drop, 0).sum(-1);
    out.row_tokens = keep.sum(-1);
  }
  return out;
}

}  // namespace fathom
