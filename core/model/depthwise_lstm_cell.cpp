#include "core/model/depthwise_lstm_cell.h"

#include <stdexcept>

#include "core/model/dropout.h"

namespace fathom {

LstmGatesImpl::LstmGatesImpl(const LstmSpec& spec, const std::string& name, const SublayerId& owner,
                             bool shared, ParameterCatalog& catalog) {
  const int d = spec.d_model;
  linear_ = register_module("linear", torch::nn::Linear(2 * d, 3 * d));
  catalog.linears.push_back({name, linear_, LinearRole::LstmGate, owner, /*blocks=*/3});
  const SublayerId* norm_owner = shared ? nullptr : &owner;
  const char* gate_names[3] = {"ln_i", "ln_f", "ln_o"};
  for (int g = 0; g < 3; ++g)
    norms_[g] = register_module(gate_names[g], ObservedNorm(d, name + "." + gate_names[g],
                                                            spec.hooks, catalog, norm_owner));
}

LstmGatesImpl::Gates LstmGatesImpl::forward(const torch::Tensor& z) {
  auto parts = linear_(z).chunk(3, -1);  // eqs. 3-5 share one matmul
  return {torch::sigmoid(norms_[0](parts[0])), torch::sigmoid(norms_[1](parts[1])),
          torch::sigmoid(norms_[2](parts[2]))};
}

LstmHiddenImpl::LstmHiddenImpl(const LstmSpec& spec, const std::string& name, const SublayerId& id,
                               bool shared, ParameterCatalog& catalog)
    : activation_dropout_(spec.activation_dropout) {
  const int d = spec.d_model;
  const SublayerId* owner = shared ? nullptr : &id;  // for the LayerNorm's reports
  if (spec.hidden == "lstm") {                       // eq. 6
    fc1_ = register_module("fc1", torch::nn::Linear(2 * d, d));
    norm_ = register_module("ln", ObservedNorm(d, name + ".ln", spec.hooks, catalog, owner));
    catalog.linears.push_back({name + ".fc1", fc1_, LinearRole::LstmHidden, id, 1});
  } else if (spec.hidden == "ffn") {  // eq. 8
    fc1_ = register_module("fc1", torch::nn::Linear(2 * d, spec.d_ff));
    norm_ =
        register_module("ln", ObservedNorm(spec.d_ff, name + ".ln", spec.hooks, catalog, owner));
    fc2_ = register_module("fc2", torch::nn::Linear(spec.d_ff, d));
    catalog.linears.push_back({name + ".fc1", fc1_, LinearRole::LstmHidden, id, 1});
    catalog.linears.push_back({name + ".fc2", fc2_, LinearRole::LstmHidden, id, 1});
  } else {
    throw std::invalid_argument("depth-wise LSTM hidden must be ffn or lstm, not " + spec.hidden);
  }
}

torch::Tensor LstmHiddenImpl::forward(const torch::Tensor& z) {
  torch::Tensor h = torch::gelu(norm_(fc1_(z)));
  if (!fc2_) return h;
  if (activation_dropout_ > 0) h = fathom::dropout(h, activation_dropout_, is_training());
  return fc2_(h);
}

DepthwiseLstmCellImpl::DepthwiseLstmCellImpl(const LstmSpec& spec, const std::string& name,
                                             const SublayerId& owner, ParameterCatalog& catalog,
                                             LstmGates shared_gates, LstmHidden shared_hidden)
    : dropout_(spec.dropout) {
  // A shared module stays unregistered here so it is one parameter of the model, not N.
  gates_ = shared_gates
               ? shared_gates
               : register_module("gates", LstmGates(spec, name + ".gates", owner, false, catalog));
  hidden_ =
      shared_hidden
          ? shared_hidden
          : register_module("hidden", LstmHidden(spec, name + ".hidden", owner, false, catalog));
}

LstmState DepthwiseLstmCellImpl::forward(const torch::Tensor& a, const torch::Tensor& o_prev,
                                         const torch::Tensor& c_prev) {
  const torch::Tensor z = torch::cat({a, o_prev}, -1);  // eq. 2: input first
  const auto g = gates_(z);
  torch::Tensor h = hidden_(z);
  if (dropout_ > 0) h = fathom::dropout(h, dropout_, is_training());
  // eq. 9; c_0 = 0 drops the forget term of the first step.
  torch::Tensor c = c_prev.defined() ? g.forget * c_prev + g.input * h : g.input * h;
  return {g.output * c, c};  // eq. 10
}

}  // namespace fathom
