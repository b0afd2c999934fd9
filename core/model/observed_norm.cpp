#include "core/model/observed_norm.h"

namespace fathom {

ObservedNormImpl::ObservedNormImpl(int d_model, std::string name, std::shared_ptr<ModelHooks> hooks,
                                   ParameterCatalog& catalog, const SublayerId* owner)
    : name_(std::move(name)),
      hooks_(std::move(hooks)),
      has_owner_(owner != nullptr),
      owner_(owner ? *owner : SublayerId{}) {
  norm_ = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  catalog.norms.push_back({name_, norm_});
}

torch::Tensor ObservedNormImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = norm_(x);
  if (hooks_ && hooks_->observer) {
    const double eps = norm_->options.eps();
    NormTrace trace;
    trace.name = name_;
    trace.input = x;
    trace.mean = x.mean(-1, /*keepdim=*/true);
    trace.std = torch::sqrt(x.var(-1, /*unbiased=*/false, /*keepdim=*/true) + eps);
    trace.output = y;
    trace.gamma = norm_->weight;
    trace.beta = norm_->bias;
    hooks_->observer->on_norm(has_owner_ ? &owner_ : nullptr, trace);
  }
  return y;
}

}  // namespace fathom
