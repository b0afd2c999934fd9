// LayerNorm Scaling (Sun et al. 2025, "The Curse of Depth", arXiv 2502.05795): Pre-LN whose
// LayerNorm outputs in layer l (1-based, counted per stack) are scaled by 1/sqrt(l):
// x_k = x_{k-1} + drop(f_k(LN(x_{k-1}) / sqrt(l))). The stack's final LayerNorm is Pre-LN's,
// unscaled. Parameters carry Pre-LN's names, so a Pre-LN checkpoint loads.
#include <cmath>

#include "core/model/registry.h"

namespace fathom {
namespace {

class ScaledPreNormConnection : public SublayerConnection {
 public:
  explicit ScaledPreNormConnection(const ConnectionContext& c)
      : SublayerConnection(c), scale_(1.0 / std::sqrt(static_cast<double>(c.id.layer + 1))) {
    norm_ = register_module("pre_norm", ObservedNorm(c.config.d_model, c.name + ".pre_norm",
                                                     c.hooks, c.catalog, &c.id));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    return add_to_stream(x, branch(norm_(x) * scale_));
  }
  std::shared_ptr<NormLayer> make_final_norm(const FinalNormContext& c) const override {
    return final_layer_norm(c);
  }

 private:
  double scale_;
  ObservedNorm norm_{nullptr};
};

}  // namespace

void register_ln_scaling(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "lns",
      {"x_k = x_{k-1} + drop(f_k(LN(x_{k-1}) / sqrt(l))), l the 1-based layer (LayerNorm "
       "Scaling, arXiv 2502.05795), final LN per stack",
       [](const ConnectionContext& c) { return std::make_shared<ScaledPreNormConnection>(c); }});
}

}  // namespace fathom
