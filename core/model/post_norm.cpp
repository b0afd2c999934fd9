// Post-LN (the published Transformer, "v1"): x_k = LN(x_{k-1} + drop(f_k(x_{k-1}))).
#include "core/model/registry.h"

namespace fathom {
namespace {

class PostNormConnection : public SublayerConnection {
 public:
  explicit PostNormConnection(const ConnectionContext& c) : SublayerConnection(c) {
    norm_ = register_module("post_norm", ObservedNorm(c.config.d_model, c.name + ".post_norm",
                                                      c.hooks, c.catalog, &c.id));
  }
  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    torch::Tensor f = dropped_branch(branch(x));
    torch::Tensor out = norm_(x + f);
    report(x, f, out);
    return out;
  }

 private:
  ObservedNorm norm_{nullptr};
};

}  // namespace

void register_post_norm(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "post", {"x_k = LN(x_{k-1} + drop(f_k(x_{k-1})))  (Post-LN)",
               [](const ConnectionContext& c) { return std::make_shared<PostNormConnection>(c); }});
}

}  // namespace fathom
