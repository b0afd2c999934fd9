#include "core/model/sublayer_connection.h"

#include "core/model/depth_parameterization.h"
#include "core/model/dropout.h"

namespace fathom {

std::shared_ptr<NormLayer> final_layer_norm(const FinalNormContext& c) {
  return ObservedNorm(c.config.d_model, c.name, c.hooks, c.catalog).ptr();
}

SublayerConnection::SublayerConnection(const ConnectionContext& context)
    : id_(context.id),
      dropout_(context.config.dropout),
      branch_scale_(branch_multiplier(context.config, context.stack_layers)),
      hooks_(context.hooks) {}

torch::Tensor SublayerConnection::dropped_branch(const torch::Tensor& f_in) {
  // model.parameterization's m_L^-alpha (depth_parameterization.h); 1 under standard.
  const torch::Tensor f = branch_scale_ == 1.0 ? f_in : f_in * branch_scale_;
  torch::Tensor out = dropout_ > 0 ? fathom::dropout(f, dropout_, is_training()) : f;
  if (hooks_->observer) out = hooks_->observer->transform_branch(id_, out);
  return out;
}

torch::Tensor SublayerConnection::add_to_stream(const torch::Tensor& x, const torch::Tensor& g) {
  torch::Tensor f = dropped_branch(g);
  torch::Tensor out = x + f;
  report(x, f, out);
  return out;
}

void SublayerConnection::report(const torch::Tensor& input, const torch::Tensor& branch,
                                const torch::Tensor& output, const torch::Tensor& state) {
  if (hooks_->observer)
    hooks_->observer->on_sublayer(id_, SublayerTrace{input, branch, output, state});
}

}  // namespace fathom
