// ReZero (Bachlechner et al. 2020; methods.md s3): x_k = x_{k-1} + alpha_k * drop(f_k(x_{k-1}))
// with one learnable scalar alpha_k = 0 per sub-layer and no LayerNorm at all (`rezero`), or
// the same inside Post-LN, x_k = LN(x_{k-1} + alpha_k * drop(f_k)) (`rezero_postln`, the
// Admin paper's table 3 baseline). Everything else is initialized as `xavier`.
#include "core/model/registry.h"
#include "core/model/transformer.h"

namespace fathom {
namespace {

class ReZeroConnection : public SublayerConnection {
 public:
  ReZeroConnection(const ConnectionContext& c, bool post_norm) : SublayerConnection(c) {
    alpha_ = register_parameter("alpha", torch::zeros({1}));
    c.catalog.extras.push_back({c.name + ".alpha", alpha_, "other"});
    if (post_norm)
      norm_ = register_module("post_norm", ObservedNorm(c.config.d_model, c.name + ".post_norm",
                                                        c.hooks, c.catalog, &c.id));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    torch::Tensor f = alpha_ * dropped_branch(branch(x));
    torch::Tensor out = norm_ ? norm_(x + f) : x + f;
    report(x, f, out);
    return out;
  }
  torch::Tensor& alpha() { return alpha_; }

 private:
  torch::Tensor alpha_;
  ObservedNorm norm_{nullptr};
};

InitMethod rezero_method(bool post_norm) {
  InitMethod method;
  method.doc = post_norm ? "Post-LN with a zero-initialized scalar on each branch (ReZero+Post-LN)"
                         : "Bachlechner et al. 2020: x + alpha*f, alpha = 0, no LayerNorm";
  method.sublayer_style = post_norm ? "rezero_postln" : "rezero";
  const std::string name = method.sublayer_style;
  method.check = [post_norm, name](const RunConfig& config) {
    require_residual_post_norm(config, name, post_norm);
  };
  method.apply = [](TransformerImpl& model) {
    methods().inits.find("xavier")->apply(model);
    for (auto& module : model.modules(false))
      if (auto c = std::dynamic_pointer_cast<ReZeroConnection>(module)) c->alpha().zero_();
  };
  return method;
}

}  // namespace

void register_rezero_init(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "rezero",
      {"x_k = x_{k-1} + alpha_k drop(f_k(x_{k-1})), no LayerNorm (ReZero)",
       [](const ConnectionContext& c) { return std::make_shared<ReZeroConnection>(c, false); }});
  registry.sublayer_styles.add(
      "rezero_postln",
      {"x_k = LN(x_{k-1} + alpha_k drop(f_k(x_{k-1})))  (ReZero + Post-LN)",
       [](const ConnectionContext& c) { return std::make_shared<ReZeroConnection>(c, true); }});
  registry.inits.add("rezero", rezero_method(false));
  registry.inits.add("rezero_postln", rezero_method(true));
}

}  // namespace fathom
