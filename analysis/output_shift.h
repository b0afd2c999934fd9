#pragma once
// Output change vs depth (methods.md s5.2; Liu et al. 2020 s4.2, figure 4, Theorem 2):
// |F(x0, W) - F(x0, W*)|^2 at the encoder output (a decoder-only model: the output of its one
// causal stack, over its input tokens; --depths then sets its layers), dropout off, one fixed
// batch. Each token's
// output is standardized over the hidden dimension first (layer_norm without affine), so
// Pre-LN and Post-LN compare; the squared L2 distance is averaged over non-pad tokens.
//   random: W* = W + eps * sign(n), n ~ N(0, 1) per element, averaged over `draws`
//   update: W* = W - lr * g / (|g| + adam_eps): Adam's first update from a fresh state (its
//           bias corrections make m = g, v = g^2) at the run's learning rate, g = dL/dW, L the
//           label-smoothed loss on the same batch
//   sign:   W* = W - eps * sign(g): the update only where lr = eps and |g| >> adam_eps (what
//           `update` meant before this version, with lr = eps)
// W: every Linear weight -- never biases, LayerNorm parameters, omega/alpha, and (inputs
// fixed, the default) never the embeddings, so x0, the first layer's input, stays as it is.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct ShiftOptions {
  std::string perturb = "random";  // random | update | sign
  bool perturb_inputs = false;     // the embeddings too (x0 moves): not the paper's measure
  int draws = 3;                   // random draws averaged (update, sign: always 1)
  double eps = 1e-4;               // perturbation size (random, sign)
  double lr = 5e-4;                // update: the learning rate of the step
  double adam_eps = 1e-8;          // update: Adam's epsilon
  std::uint64_t seed = 1;          // of the random signs
  double label_smoothing = 0.1;    // update, sign: the loss whose gradient gives the direction
};

// The weights a perturbation moves, each shared tensor once: every Linear weight, and with
// `inputs_too` the embedding matrices.
std::vector<torch::Tensor> shift_weights(TransformerImpl& model, bool inputs_too);

struct ShiftResult {
  double mean = 0;  // over draws
  double std = 0;   // population std over draws
};

// Leaves the model's parameters as they were.
ShiftResult output_shift(TransformerImpl& model, const Batch& batch, const ShiftOptions& options);

}  // namespace fathom::analysis
