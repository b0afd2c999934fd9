#pragma once
// Output change vs depth (methods.md s5.2; Liu et al. 2020 s4.2, figure 4, Theorem 2):
// |F(x0, W) - F(x0, W*)|^2 at the encoder output, dropout off, one fixed batch. Each token's
// output is standardized over the hidden dimension first (layer_norm without affine), so
// Pre-LN and Post-LN compare; the squared L2 distance is averaged over non-pad tokens.
//   random: W* = W + eps * sign(n), n ~ N(0, 1) per element, averaged over `draws`
//   update: W* = W - eps * sign(dL/dW) (the first Adam step), L the label-smoothed loss
// W: every Linear weight and the embeddings; never biases, LayerNorm parameters, omega/alpha.
#include <cstdint>
#include <string>

#include "core/data/batch.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct ShiftOptions {
  std::string perturb = "random";  // random | update
  int draws = 3;                   // random draws averaged (update: always 1)
  double eps = 1e-4;               // perturbation size
  std::uint64_t seed = 1;          // of the random signs
  double label_smoothing = 0.1;    // update: the loss whose gradient gives the direction
};

struct ShiftResult {
  double mean = 0;  // over draws
  double std = 0;   // population std over draws
};

// Leaves the model's parameters as they were.
ShiftResult output_shift(TransformerImpl& model, const Batch& batch, const ShiftOptions& options);

}  // namespace fathom::analysis
