// Pre-LN (tensor2tensor, "v2"): x_k = x_{k-1} + drop(f_k(LN(x_{k-1}))), with a final LN on
// the stack output.
#include "core/model/registry.h"

namespace fathom {
namespace {

class PreNormConnection : public SublayerConnection {
 public:
  explicit PreNormConnection(const ConnectionContext& c) : SublayerConnection(c) {
    norm_ = register_module("pre_norm", ObservedNorm(c.config.d_model, c.name + ".pre_norm",
                                                     c.hooks, c.catalog, &c.id));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    return add_to_stream(x, branch(norm_(x)));
  }
  std::shared_ptr<NormLayer> make_final_norm(const FinalNormContext& c) const override {
    return final_layer_norm(c);
  }

 private:
  ObservedNorm norm_{nullptr};
};

}  // namespace

void register_pre_norm(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "pre", {"x_k = x_{k-1} + drop(f_k(LN(x_{k-1})))  (Pre-LN), final LN per stack",
              [](const ConnectionContext& c) { return std::make_shared<PreNormConnection>(c); }});
}

}  // namespace fathom
