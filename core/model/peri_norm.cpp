// Peri-LN (Kim et al., ICML 2025, arXiv 2502.02732): a LayerNorm on both the input and the
// output of every sub-layer, x_k = x_{k-1} + drop(LN_out(f_k(LN_in(x_{k-1})))), and, as in
// Pre-LN, a final LayerNorm per stack (the stream itself is never normalized). Dropout acts
// on the normalized branch, where every style here drops the branch: before the shortcut.
#include "core/model/registry.h"

namespace fathom {
namespace {

class PeriNormConnection : public SublayerConnection {
 public:
  explicit PeriNormConnection(const ConnectionContext& c) : SublayerConnection(c) {
    input_norm_ = register_module(
        "input_norm",
        ObservedNorm(c.config.d_model, c.name + ".input_norm", c.hooks, c.catalog, &c.id));
    output_norm_ = register_module(
        "output_norm",
        ObservedNorm(c.config.d_model, c.name + ".output_norm", c.hooks, c.catalog, &c.id));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    return add_to_stream(x, output_norm_(branch(input_norm_(x))));
  }
  std::shared_ptr<NormLayer> make_final_norm(const FinalNormContext& c) const override {
    return final_layer_norm(c);
  }

 private:
  ObservedNorm input_norm_{nullptr}, output_norm_{nullptr};
};

}  // namespace

void register_peri_norm(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "peri", {"x_k = x_{k-1} + drop(LN(f_k(LN(x_{k-1}))))  (Peri-LN, arXiv 2502.02732), final "
               "LN per stack",
               [](const ConnectionContext& c) { return std::make_shared<PeriNormConnection>(c); }});
}

}  // namespace fathom
