#pragma once
// Activation checkpointing (Chen et al. 2016, "Training Deep Nets with Sublinear Memory
// Cost"; PyTorch's torch.utils.checkpoint, which LibTorch's C++ API lacks). A layer runs
// without recording its graph; only its inputs are kept. In backward the layer is run again
// with the graph recorded and differentiated, so a layer's activations live only while its
// own backward runs: memory ~ one layer instead of all layers, for one more forward pass.
//
// The recomputation must repeat the forward exactly: the random generators (dropout masks)
// are restored to their state at the forward, and the forward's autocast setting re-entered.
// The generators are put back afterwards, so later draws do not depend on whether a layer
// was checkpointed.
#include <torch/torch.h>

#include <functional>

namespace fathom {

struct ModelHooks;

// Whether a stack recomputes its layers in backward: train.checkpoint_activations, training
// with gradients on, and no observer (an analysis reads each layer as it runs, once).
bool recomputes_layers(const ModelHooks* hooks, bool training);

// A layer of a stack: (input, memory) -> output. memory is the encoder output for decoder
// layers and undefined for encoder layers. Must be a pure function of its inputs, parameters
// and the random generators (it is called twice), and capture only what outlives backward.
using LayerFunction = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;

// layer(input, memory), recomputed in backward. Gradients reach input, memory and every
// parameter the layer uses, as without checkpointing.
torch::Tensor checkpointed_layer(const LayerFunction& layer, const torch::Tensor& input,
                                 const torch::Tensor& memory);

}  // namespace fathom
