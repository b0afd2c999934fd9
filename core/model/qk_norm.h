#pragma once
// QK-LayerNorm (Dehghani et al. 2023, "Scaling Vision Transformers to 22 Billion Parameters",
// s3.1; Wortsman et al. 2023, arXiv 2309.14322, s3.1): a LayerNorm over each head's query and
// key vectors before their dot product. The logits q.k / sqrt(d_h) are then bounded by the
// norms' gains (at initialization |q.k| / sqrt(d_h) <= sqrt(d_h), Cauchy-Schwarz), so they
// cannot grow without bound through the projection weights -- the attention-logit growth that
// makes large learning rates diverge. `model.qk_norm: true`; one norm pair per attention
// sub-layer, shared by its heads, as in both papers.
#include <torch/torch.h>

#include <string>
#include <utility>

#include "core/model/parameter_catalog.h"

namespace fathom {

class QkNormImpl : public torch::nn::Module {
 public:
  // Registers "<name>.q_norm" and "<name>.k_norm" in the catalog (initialized as norms are).
  QkNormImpl(int64_t head_dim, const std::string& name, ParameterCatalog& catalog);
  // q [B, H, T, d_h], k [B, H, S, d_h], each normalized over d_h.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& q, const torch::Tensor& k);

 private:
  torch::nn::LayerNorm q_norm_{nullptr}, k_norm_{nullptr};
};
TORCH_MODULE(QkNorm);

}  // namespace fathom
