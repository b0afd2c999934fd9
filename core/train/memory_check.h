#pragma once
// Refusing a model that cannot fit before anything is built: a config with a billion layers
// (`--set model.encoder_layers=1000000000`) used to pass every check and then grow a `fathom
// train` to 23 GB while building the model. The estimate is a lower bound -- parameters,
// their gradients and Adam's two moments (16 bytes a parameter in float32; 12 with SGD's or
// Muon's one momentum buffer), plus the
// activations one batch keeps for backward (with train.checkpoint_activations: each layer's
// input and one layer's activations) and every attention's probabilities (batch x heads x
// tgt x src floats, for a batch of the longest pairs the data allows) -- so a refused model
// could never have trained on such a batch.
#include <cstdint>

#include "base/config/config.h"

namespace fathom {

struct ModelFootprint {
  double parameters = 0;        // weights of both stacks, the embeddings and the norms
  double state_bytes = 0;       // parameters + gradients + the optimizer's buffers
  double activation_bytes = 0;  // what one batch of data.max_tokens keeps for backward
  // The attention probabilities that batch keeps for backward: heads x max_tokens x the
  // longest pair's length floats per attention (none where fused attention may run).
  double attention_bytes = 0;
  double bytes() const { return state_bytes + activation_bytes + attention_bytes; }
};

// The lower-bound estimate for a config (residual stacks; a depth-wise LSTM needs more).
ModelFootprint estimate_footprint(const RunConfig& config);

// The memory one process may use on this machine: physical memory, or less under an
// address-space limit (ulimit -v).
double host_memory_bytes();

// A config error naming model.encoder_layers, model.decoder_layers, model.d_model and
// model.d_ff when the footprint exceeds `available` bytes (default: this machine's memory).
void check_model_fits(const RunConfig& config, double available = host_memory_bytes());

// The same error when the weights alone (4 bytes a parameter) exceed `available`: what a
// command that builds a model without training it (`fathom params`) needs.
void check_weights_fit(const RunConfig& config, double available = host_memory_bytes());

}  // namespace fathom
