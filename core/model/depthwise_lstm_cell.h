#pragma once
// One step of the depth-wise LSTM (Xu et al., eqs. 2-10; methods.md s4): the step over layer l
// reads the layer's attention result a and the state (o_prev, c_prev) of the layer below.
//   z = [a ; o_prev]                                              (eq. 2)
//   ig, fg, og = sigmoid(LN(W_{i,f,o} z + b_{i,f,o}))             (eqs. 3-5)
//   h = GeLU(LN(W_h z + b_h))                      hidden "lstm"  (eq. 6)
//   h = W_2 GeLU(LN(W_1 z + b_1)) + b_2            hidden "ffn"   (eq. 8)
//   c = fg * c_prev + ig * drop(h) ;  o = og * c                  (eqs. 9-10)
// The gates and the hidden computation are separate modules so that a stack can share one
// instance across its layers (model.lstm.share); a cell registers only what it owns, so a
// shared tensor is one parameter, registered once (by the stack).
#include <torch/torch.h>

#include <memory>
#include <string>

#include "core/model/observed_norm.h"
#include "core/model/observer.h"
#include "core/model/parameter_catalog.h"

namespace fathom {

// What building a gate set, a hidden computation or a cell needs.
struct LstmSpec {
  int d_model = 0;
  int d_ff = 0;
  std::string hidden = "ffn";       // "ffn" (eq. 8) | "lstm" (eq. 6)
  double dropout = 0.0;             // on h before the cell update
  double activation_dropout = 0.0;  // "ffn" hidden: after the GeLU, as the FFN's after ReLU
  std::shared_ptr<ModelHooks> hooks;
};

// Input, forget and output gates (eqs. 3-5): ONE packed Linear [3d, 2d] (one matmul; rows
// 0..d-1 input gate, d..2d-1 forget gate, 2d..3d-1 output gate) and one LayerNorm(d) per gate,
// applied to that gate's own d pre-activations as in eqs. 3-5.
class LstmGatesImpl : public torch::nn::Module {
 public:
  // A set `shared` by every layer of a stack is recorded with the first layer as `owner`
  // of its Linear, and its LayerNorms report no owner to observers.
  LstmGatesImpl(const LstmSpec& spec, const std::string& name, const SublayerId& owner, bool shared,
                ParameterCatalog& catalog);
  struct Gates {
    torch::Tensor input, forget, output;
  };
  Gates forward(const torch::Tensor& z);
  torch::nn::Linear& linear() { return linear_; }
  ObservedNorm& norm(int gate) { return norms_[gate]; }  // 0 input, 1 forget, 2 output

 private:
  torch::nn::Linear linear_{nullptr};
  ObservedNorm norms_[3] = {ObservedNorm(nullptr), ObservedNorm(nullptr), ObservedNorm(nullptr)};
};
TORCH_MODULE(LstmGates);

// The hidden computation: eq. 6 ("lstm": Linear 2d->d, LN(d), GeLU) or eq. 8 ("ffn":
// Linear 2d->d_ff, LN(d_ff), GeLU, Linear d_ff->d). GeLU is the exact erf form.
class LstmHiddenImpl : public torch::nn::Module {
 public:
  LstmHiddenImpl(const LstmSpec& spec, const std::string& name, const SublayerId& owner,
                 bool shared, ParameterCatalog& catalog);
  torch::Tensor forward(const torch::Tensor& z);
  torch::nn::Linear& fc1() { return fc1_; }
  torch::nn::Linear& fc2() { return fc2_; }  // null for "lstm"
  ObservedNorm& norm() { return norm_; }

 private:
  double activation_dropout_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
  ObservedNorm norm_{nullptr};
};
TORCH_MODULE(LstmHidden);

struct LstmState {
  torch::Tensor output;  // o_l [.., d]
  torch::Tensor cell;    // c_l [.., d]
};

class DepthwiseLstmCellImpl : public torch::nn::Module {
 public:
  // Uses `shared_gates` / `shared_hidden` when given (not registered here: the stack that
  // built them registers them once); otherwise builds and registers its own, with catalog
  // names `name`.gates / `name`.hidden.
  DepthwiseLstmCellImpl(const LstmSpec& spec, const std::string& name, const SublayerId& owner,
                        ParameterCatalog& catalog, LstmGates shared_gates = nullptr,
                        LstmHidden shared_hidden = nullptr);
  // a, o_prev [.., d]; c_prev [.., d] or undefined for c_0 = 0.
  LstmState forward(const torch::Tensor& a, const torch::Tensor& o_prev,
                    const torch::Tensor& c_prev);
  LstmGates& gates() { return gates_; }
  LstmHidden& hidden() { return hidden_; }

 private:
  double dropout_;
  LstmGates gates_{nullptr};
  LstmHidden hidden_{nullptr};
};
TORCH_MODULE(DepthwiseLstmCell);

}  // namespace fathom
