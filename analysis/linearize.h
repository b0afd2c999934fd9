#pragma once
// Layer linearization (methods.md s5.4; Xu et al., depth-wise LSTM paper s4, tables 6-7): one
// whole layer of a trained model is replaced by a per-token affine map of its input state,
// the map trained with every other parameter frozen, and the model evaluated.
//   residual stack:       y = W x + b,                 x = x_{k-1}, y = x_k       (d -> d)
//   depth-wise LSTM stack: [o_l ; c_l] = W [o_{l-1} ; c_{l-1}] + b               (2d -> 2d)
// (the layer's attention and its LSTM step together; c_0 = 0). That map has 4x the weights of
// the residual one, which favours the LSTM in a comparison of the two; `--lstm-map output` maps
// o_l = W o_{l-1} + b and carries the cell through, c_l = c_{l-1} (d -> d, the same count). W, b
// start from a least-squares fit on (state in, state out) pairs of the first training batches, then
// train on the task loss (the paper's setting) or the MSE to the layer's original output
// (distillation) until the validation objective stops improving. A control gets the same procedure
// with the layer kept: an affine map after the intact layer, y' = A y + c from A = I, c = 0, so the
// part of a change that extra training alone buys is measured and the rest is the linearization's.
// A decoder-only language model (model.arch): its one stack's layers, the task objective its LM
// loss, scored by validation perplexity (it has no BLEU).
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/model/observer.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct LayerRef {
  Stack stack = Stack::Encoder;
  int layer = 0;             // 0-based
  std::string name() const;  // 1-based as in the paper's tables: "enc.1"
};

// "enc:1-6,dec:2" (1-based, inclusive ranges) -> layers; "" = every layer of both stacks. A
// decoder-only model has encoder_layers 0 and its one stack is "dec" (its layers report as
// Stack::Decoder). Throws std::invalid_argument naming the bad part.
std::vector<LayerRef> parse_layers(const std::string& spec, int encoder_layers, int decoder_layers);

// state -> state W^T + b for one layer: in place of the layer (replace_layer) or, for the
// control, after it (layer_output). Installed as the model's observer. W [out, in] may widen
// the state (a hyper-connection stack's first layer: d -> n d). A square W narrower than the
// state maps the state's first W.size(1) columns and passes the rest through unchanged (the
// depth-wise LSTM's cell under `--lstm-map output`).
class AffineLayerMap : public SublayerObserver {
 public:
  enum class Where { InsteadOfLayer, AfterLayer };
  AffineLayerMap(LayerRef layer, Where where, torch::Tensor weight, torch::Tensor bias)
      : weight(std::move(weight)), bias(std::move(bias)), layer_(layer), where_(where) {}
  torch::Tensor replace_layer(Stack stack, int layer, const torch::Tensor& state) override;
  torch::Tensor layer_output(Stack stack, int layer, torch::Tensor state) override;
  torch::Tensor apply(const torch::Tensor& state) const;

  torch::Tensor weight;  // [out, in]: in = the state width, or square and narrower
  torch::Tensor bias;    // [out]

 private:
  bool mine(Stack stack, int layer) const { return stack == layer_.stack && layer == layer_.layer; }
  LayerRef layer_;
  Where where_;
};

// A layer's input and output states at the non-pad positions of the given batches: [n, w].
struct LayerPairs {
  torch::Tensor x, y;
};
LayerPairs collect_layer_pairs(TransformerImpl& model, const LayerRef& layer,
                               const std::vector<Batch>& batches);

// Least squares y ~ x W^T + b (float64, a tiny ridge for rank-deficient x): {W, b}.
std::pair<torch::Tensor, torch::Tensor> fit_linear(const torch::Tensor& x, const torch::Tensor& y);

}  // namespace fathom::analysis
