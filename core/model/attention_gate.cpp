#include "core/model/attention_gate.h"

#include <stdexcept>

namespace fathom {

AttentionGateKind attention_gate_kind(const std::string& name) {
  if (name == "none") return AttentionGateKind::None;
  if (name == "headwise") return AttentionGateKind::Headwise;
  if (name == "elementwise") return AttentionGateKind::Elementwise;
  throw std::invalid_argument("model.attention_gate: '" + name +
                              "' is not one of none, headwise, elementwise");
}

AttentionGateImpl::AttentionGateImpl(AttentionGateKind kind, int64_t d_model, int64_t heads,
                                     const SublayerId& owner, const std::string& name,
                                     ParameterCatalog& catalog)
    : kind_(kind), heads_(heads) {
  if (kind == AttentionGateKind::None)
    throw std::invalid_argument("AttentionGate built with kind none");
  const int64_t outputs = kind == AttentionGateKind::Headwise ? heads : d_model;
  projection_ = register_module("projection", torch::nn::Linear(d_model, outputs));
  catalog.linears.push_back({name + ".gate", projection_, LinearRole::AttentionGate, owner, 1});
}

torch::Tensor AttentionGateImpl::gate(const torch::Tensor& input) {
  return torch::sigmoid(projection_->forward(input));
}

torch::Tensor AttentionGateImpl::forward(const torch::Tensor& input, const torch::Tensor& context) {
  const torch::Tensor g = gate(input);
  if (kind_ == AttentionGateKind::Elementwise) return context * g;
  // Headwise: [B, T, H, d_h] times [B, T, H, 1].
  const int64_t B = context.size(0), T = context.size(1), d = context.size(2);
  return (context.reshape({B, T, heads_, d / heads_}) * g.unsqueeze(-1)).reshape({B, T, d});
}

}  // namespace fathom
