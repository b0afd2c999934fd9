#pragma once
// Gated attention (Qiu et al. 2025, "Gated attention for large language models", arXiv
// 2505.06708; methods.md s8): Y' = Y * sigmoid(X W_g + b_g), Y the scaled dot-product
// attention output of the heads, X the attention sub-layer's input (its query side), applied
// before the output projection. `headwise`: one gate per head (W_g [H, d]), shared by that
// head's d_h features; `elementwise`: one per feature (W_g [d, d]). The paper's best position:
// after SDPA, query-dependent, sigmoid, multiplicative. Choices the paper leaves
// open: the projection has a bias; it is drawn by model.init like every Linear (role
// AttentionGate: Xavier with gain 1, bias 0, so the gate starts near sigmoid(0) = 1/2); in
// encoder attention X is the decoder's stream, never the encoder output.
#include <torch/torch.h>

#include <string>

#include "core/model/parameter_catalog.h"

namespace fathom {

enum class AttentionGateKind { None, Headwise, Elementwise };

// model.attention_gate's value ("none", "headwise", "elementwise"); throws on any other.
AttentionGateKind attention_gate_kind(const std::string& name);

class AttentionGateImpl : public torch::nn::Module {
 public:
  // Registers "<name>.gate" in the catalog (role AttentionGate, owner `owner`).
  AttentionGateImpl(AttentionGateKind kind, int64_t d_model, int64_t heads, const SublayerId& owner,
                    const std::string& name, ParameterCatalog& catalog);
  // The gate values sigmoid(X W_g + b_g): [B, T, H] (headwise) or [B, T, d] (elementwise).
  torch::Tensor gate(const torch::Tensor& input);
  // input X [B, T, d]; context Y [B, T, d], the heads' outputs concatenated (head h is
  // features h d_h .. (h+1) d_h - 1). Returns Y times the gate, same shape.
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& context);

 private:
  AttentionGateKind kind_;
  int64_t heads_;
  torch::nn::Linear projection_{nullptr};
};
TORCH_MODULE(AttentionGate);

}  // namespace fathom
