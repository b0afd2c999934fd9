#pragma once
// Layer linearization (methods.md s5.4; Xu et al., depth-wise LSTM paper s4, tables 6-7): one
// whole layer y = F_l(x) of a residual stack is replaced by y = W x + b (per token), W and b
// trained with every other parameter frozen, then the model is evaluated. W, b start from a
// least-squares fit on (x, F_l(x)) pairs of the first training batches; the objective is the
// task loss (the paper's setting) or the MSE to F_l's original output (distillation).
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/model/observer.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct LayerRef {
  Stack stack = Stack::Encoder;
  int layer = 0;  // 0-based
  std::string name() const;  // 1-based as in the paper's tables: "enc.1"
};

// "enc:1-6,dec:2" (1-based, inclusive ranges) -> layers; "" = every layer of both stacks.
// Throws std::invalid_argument naming the bad part.
std::vector<LayerRef> parse_layers(const std::string& spec, int encoder_layers,
                                   int decoder_layers);

// y = x W^T + b in place of one layer (installed as the model's observer).
class LinearLayer : public SublayerObserver {
 public:
  LinearLayer(LayerRef layer, torch::Tensor weight, torch::Tensor bias)
      : layer_(layer), weight(std::move(weight)), bias(std::move(bias)) {}
  torch::Tensor replace_layer(Stack stack, int layer, const torch::Tensor& x) override;

 private:
  LayerRef layer_;

 public:
  torch::Tensor weight;  // [d, d]
  torch::Tensor bias;    // [d]
};

// Inputs and outputs of one layer at the non-pad positions of the given batches: [n, d] each.
struct LayerPairs {
  torch::Tensor x, y;
};
LayerPairs collect_layer_pairs(TransformerImpl& model, const LayerRef& layer,
                               const std::vector<Batch>& batches);

// Least squares y ~ x W^T + b (float64, a tiny ridge for rank-deficient x): {W [d, d], b [d]}.
std::pair<torch::Tensor, torch::Tensor> fit_linear(const torch::Tensor& x, const torch::Tensor& y);

}  // namespace fathom::analysis
