// `init: deepnorm` (Wang et al. 2022): Post-LN with an up-weighted shortcut,
// x_k = LN(alpha x_{k-1} + drop(f_k(x_{k-1}))), and the FFN, value and attention-output
// projections initialized with Xavier gain beta (Q and K keep gain 1), per stack.
#include <cmath>

#include "core/model/deepnorm.h"
#include "core/model/init_helpers.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"

namespace fathom {

DeepNormConstants deepnorm_constants(Stack stack, int encoder_layers, int decoder_layers) {
  const double N = encoder_layers, M = decoder_layers;
  if (encoder_layers == 0) return {std::pow(2 * M, 0.25), std::pow(8 * M, -0.25)};
  if (stack == Stack::Encoder)
    return {0.81 * std::pow(std::pow(N, 4) * M, 1.0 / 16),
            0.87 * std::pow(std::pow(N, 4) * M, -1.0 / 16)};
  return {std::pow(3 * M, 0.25), std::pow(12 * M, -0.25)};
}

namespace {

class DeepNormConnection : public SublayerConnection {
 public:
  explicit DeepNormConnection(const ConnectionContext& c)
      : SublayerConnection(c),
        alpha_(
            deepnorm_constants(c.id.stack, encoder_layer_count(c.config), c.config.decoder_layers)
                .alpha) {
    norm_ = register_module("post_norm", ObservedNorm(c.config.d_model, c.name + ".post_norm",
                                                      c.hooks, c.catalog, &c.id));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    torch::Tensor f = dropped_branch(branch(x));
    torch::Tensor out = norm_(alpha_ * x + f);
    report(x, f, out);
    return out;
  }

 private:
  double alpha_;
  ObservedNorm norm_{nullptr};
};

}  // namespace

void register_deepnorm_init(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "deepnorm",
      {"x_k = LN(alpha x_{k-1} + drop(f_k(x_{k-1})))  (DeepNorm)",
       [](const ConnectionContext& c) { return std::make_shared<DeepNormConnection>(c); }});
  InitMethod method;
  method.doc = "Wang et al. 2022: Post-LN with shortcut scale alpha, Xavier gain beta";
  method.sublayer_style = "deepnorm";
  method.check = [](const RunConfig& config) { require_residual_post_norm(config, "deepnorm"); };
  method.apply = [](TransformerImpl& model) {
    methods().inits.find("xavier")->apply(model);
    const ModelConfig& m = model.config();
    for (auto& l : model.catalog().linears) {
      const double beta =
          deepnorm_constants(l.owner.stack, encoder_layer_count(m), m.decoder_layers).beta;
      torch::Tensor& w = l.linear->weight;
      switch (l.role) {
        case LinearRole::AttentionQkv:
        case LinearRole::AttentionKeyValue: {  // the value projection is the last block
          const int64_t rows = w.size(0) / l.blocks;
          w.narrow(0, (l.blocks - 1) * rows, rows).mul_(beta);
          break;
        }
        case LinearRole::AttentionOutput:
        case LinearRole::FfnIn:
        case LinearRole::FfnOut:
          w.mul_(beta);
          break;
        default:
          break;
      }
    }
  };
  registry.inits.add("deepnorm", std::move(method));
}

}  // namespace fathom
