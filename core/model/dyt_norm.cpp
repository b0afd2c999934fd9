// DyT (Zhu et al. 2025, "Transformers without Normalization", arXiv 2503.10622): every
// LayerNorm is replaced by DyT(x) = gamma * tanh(alpha * x) + beta, with a learnable scalar
// alpha (initially model.dyt_alpha, the paper's default 0.5) and per-unit gamma = 1, beta = 0.
// The placement is Pre-LN's, as in the paper's models: x_k = x_{k-1} + drop(f_k(DyT(x_{k-1}))),
// and a final DyT per stack. DyT has no per-token statistics, so it reports nothing to
// on_norm(); the analyses that read LayerNorm statistics say so (NormalizationTraits).
// Its parameters are catalogued as extras: gamma and beta as "norms", alpha as "dyt_alpha".
#include "core/model/registry.h"

namespace fathom {
namespace {

class DynamicTanh : public NormLayer {
 public:
  DynamicTanh(int d_model, double alpha, const std::string& name, ParameterCatalog& catalog) {
    alpha_ = register_parameter("alpha", torch::full({1}, alpha));
    weight_ = register_parameter("weight", torch::ones({d_model}));
    bias_ = register_parameter("bias", torch::zeros({d_model}));
    catalog.extras.push_back({name + ".alpha", alpha_, "dyt_alpha"});
    catalog.extras.push_back({name + ".weight", weight_, "norms"});
    catalog.extras.push_back({name + ".bias", bias_, "norms"});
  }
  torch::Tensor forward(const torch::Tensor& x) override {
    return torch::tanh(alpha_ * x) * weight_ + bias_;
  }

 private:
  torch::Tensor alpha_, weight_, bias_;
};

class DyTConnection : public SublayerConnection {
 public:
  explicit DyTConnection(const ConnectionContext& c) : SublayerConnection(c) {
    norm_ = register_module("pre_norm",
                            std::make_shared<DynamicTanh>(c.config.d_model, c.config.dyt_alpha,
                                                          c.name + ".pre_norm", c.catalog));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    return add_to_stream(x, branch(norm_->forward(x)));
  }
  std::shared_ptr<NormLayer> make_final_norm(const FinalNormContext& c) const override {
    return std::make_shared<DynamicTanh>(c.config.d_model, c.config.dyt_alpha, c.name, c.catalog);
  }

 private:
  std::shared_ptr<DynamicTanh> norm_;
};

}  // namespace

void register_dyt_norm(MethodRegistry& registry) {
  SublayerStyle style;
  style.doc =
      "x_k = x_{k-1} + drop(f_k(DyT(x_{k-1}))), DyT(x) = gamma tanh(alpha x) + beta in "
      "place of every LayerNorm, final DyT per stack (arXiv 2503.10622)";
  style.make = [](const ConnectionContext& c) { return std::make_shared<DyTConnection>(c); };
  style.normalization = scale_normalization("DyT");
  registry.sublayer_styles.add("dyt", std::move(style));
}

}  // namespace fathom
