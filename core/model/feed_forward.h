#pragma once
// Position-wise FFN: Linear(d, d_ff) -> ReLU -> dropout -> Linear(d_ff, d) (methods.md s1).
#include <torch/torch.h>

#include "core/model/parameter_catalog.h"

namespace fathom {

class FeedForwardImpl : public torch::nn::Module {
 public:
  FeedForwardImpl(int d_model, int d_ff, double activation_dropout, const SublayerId& owner,
                  const std::string& name, ParameterCatalog& catalog);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  double activation_dropout_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(FeedForward);

}  // namespace fathom
