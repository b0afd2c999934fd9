#pragma once
// Gradient norms of sub-layer outputs (methods.md s5.3; Liu et al. 2020 figure 3):
// ||dL/dx_k||_2 for every sub-layer output x_k on one batch, L the label-smoothed loss per
// target token, dropout off. The norm is over the whole [B, T, d] tensor.
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct SublayerGradNorm {
  SublayerId id;
  double norm = 0;
};

// In forward order (encoder, then decoder). Leaves no gradients behind in the model.
std::vector<SublayerGradNorm> sublayer_grad_norms(TransformerImpl& model, const Batch& batch,
                                                  double label_smoothing);

// The figure's bar group of a sub-layer: enc_attn, enc_ffn, dec_self_attn, dec_enc_attn,
// dec_ffn (enc_lstm, dec_lstm for depth-wise LSTM stacks).
std::string grad_norm_group(const SublayerId& id);

}  // namespace fathom::analysis
