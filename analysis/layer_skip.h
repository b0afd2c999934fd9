#pragma once
// Layer skip (methods.md s5.8; the per-layer contribution measure of the "curse of depth"
// papers, e.g. Sun et al. 2025, arXiv 2502.05795): the validation loss when one whole
// layer is skipped at evaluation, dropout off, every other layer intact, against the full
// model's. Skipping layer l means its output state is its input state: x_out = x_in in a
// residual stack -- for Pre-LN-like styles (pre, peri, lns, dyt, rezero) exactly the layer's
// branches dropped (x_k = x_{k-1} for each of its sub-layers); for Post-LN-like styles (post,
// admin, deepnorm, rezero_postln, a mix stack's Post-LN layers) the whole layer's map, its
// LayerNorms included, since dropping only the branch would still normalize the stream -- and
// (o_l, c_l) = (o_{l-1}, c_{l-1}) in a depth-wise LSTM stack (the step carries its state).
// Every layer of both stacks (a decoder-only model's one stack), on the whole validation split.
#include <cstdint>
#include <vector>

#include "analysis/linearize.h"
#include "core/data/batch.h"
#include "core/model/observer.h"
#include "core/model/transformer.h"
#include "core/train/evaluate.h"

namespace fathom::analysis {

// Installed as the model's observer: layer `layer` hands its input state on unchanged.
class SkipLayer : public SublayerObserver {
 public:
  explicit SkipLayer(LayerRef layer) : layer_(layer) {}
  torch::Tensor replace_layer(Stack stack, int layer, const torch::Tensor& state) override;

 private:
  LayerRef layer_;
};

struct LayerSkipRow {
  LayerRef layer;
  LossReport skipped;  // the validation loss with the layer skipped
};

struct LayerSkipResult {
  LossReport full;
  std::vector<LayerSkipRow> layers;  // encoder layers, then decoder layers
};

// Losses over `examples` (eval mode, batches of `max_tokens`) of the full model and with each
// layer skipped in turn, where the model is (--device moved it).
LayerSkipResult layer_skip(TransformerImpl& model, const std::vector<Example>& examples,
                           int64_t max_tokens, double label_smoothing);

}  // namespace fathom::analysis
