#include "core/model/qk_norm.h"

namespace fathom {

QkNormImpl::QkNormImpl(int64_t head_dim, const std::string& name, ParameterCatalog& catalog) {
  const auto options = torch::nn::LayerNormOptions({head_dim}).eps(1e-5);
  q_norm_ = register_module("q_norm", torch::nn::LayerNorm(options));
  k_norm_ = register_module("k_norm", torch::nn::LayerNorm(options));
  catalog.norms.push_back({name + ".q_norm", q_norm_});
  catalog.norms.push_back({name + ".k_norm", k_norm_});
}

std::pair<torch::Tensor, torch::Tensor> QkNormImpl::forward(const torch::Tensor& q,
                                                            const torch::Tensor& k) {
  return {q_norm_(q), k_norm_(k)};
}

}  // namespace fathom
