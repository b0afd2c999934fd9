#include "core/model/feed_forward.h"

#include "core/model/dropout.h"

namespace fathom {

FeedForwardImpl::FeedForwardImpl(int d_model, int d_ff, double activation_dropout,
                                 const SublayerId& owner, const std::string& name,
                                 ParameterCatalog& catalog)
    : activation_dropout_(activation_dropout) {
  fc1_ = register_module("fc1", torch::nn::Linear(d_model, d_ff));
  fc2_ = register_module("fc2", torch::nn::Linear(d_ff, d_model));
  catalog.linears.push_back({name + ".fc1", fc1_, LinearRole::FfnIn, owner, 1});
  catalog.linears.push_back({name + ".fc2", fc2_, LinearRole::FfnOut, owner, 1});
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
  torch::Tensor h = torch::relu(fc1_(x));
  if (activation_dropout_ > 0) h = fathom::dropout(h, activation_dropout_, is_training());
  return fc2_(h);
}

}  // namespace fathom
