#include "core/train/loss.h"

#include "core/data/vocab.h"

namespace fathom {

LossSums label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& target,
                             double epsilon, bool count_tokens, bool per_row) {
  const int64_t V = logits.size(-1);
  // Softmax statistics in float32 even if the logits come from reduced precision (float64
  // logits stay float64: the curvature tests difference the loss at that precision).
  const auto dtype = logits.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat32;
  torch::Tensor log_probs = torch::log_softmax(logits.to(dtype), -1);
  torch::Tensor keep = target.ne(kPadId);
  torch::Tensor nll = -log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1);
  torch::Tensor smooth = -log_probs.sum(-1);
  torch::Tensor per_token = (1.0 - epsilon) * nll + (epsilon / V) * smooth;
  LossSums out;
  // Pads zeroed rather than selected out: masked_select sizes its result on the host (a sync
  // with the device every step, and nothing a CUDA graph can capture, graphed_pass.h).
  const torch::Tensor drop = keep.logical_not();
  out.smoothed = per_token.masked_fill(drop, 0).sum();
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
