#pragma once
// Per-layer parameter-gradient norms for training-time logging (methods.md s5.3: "over
// training, also record per-layer parameter-gradient norms as distributions over steps"),
// written as metrics `gradnorm.<layer>` every `train.grad_norm_every` updates.
#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fathom {

// The layer a parameter belongs to, from its module path: "encoder.layer3_ffn.w1.weight" ->
// "enc.3", "decoder.layer0_..." -> "dec.0"; embeddings -> "embed"; the rest (final norms,
// output projection, shared LSTM parts) -> "other".
std::string parameter_layer(const std::string& parameter_name);

// L2 norm of the gradients of each layer's parameters (parameters without a gradient skipped).
std::map<std::string, double> layer_grad_norms(
    const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters);

}  // namespace fathom
