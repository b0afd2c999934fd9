#pragma once
// LayerNorm that reports its statistics to an installed observer. Without an observer it is
// the plain fused layer_norm; the statistics are computed only when someone is watching.
#include <torch/torch.h>

#include <memory>
#include <string>

#include "core/model/observer.h"
#include "core/model/parameter_catalog.h"

namespace fathom {

// A normalization layer as a stack holds it (its final norm): LayerNorm, or a style's own
// replacement for it (DyT).
class NormLayer : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
};

class ObservedNormImpl : public NormLayer {
 public:
  ObservedNormImpl(int d_model, std::string name, std::shared_ptr<ModelHooks> hooks,
                   ParameterCatalog& catalog, const SublayerId* owner = nullptr);
  torch::Tensor forward(const torch::Tensor& x) override;
  torch::nn::LayerNorm& norm() { return norm_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::shared_ptr<ModelHooks> hooks_;
  bool has_owner_;
  SublayerId owner_;
  torch::nn::LayerNorm norm_{nullptr};
};
TORCH_MODULE(ObservedNorm);

}  // namespace fathom
