#pragma once
// The gradient each attention sub-layer's W_Q, W_K and W_V hold, as Frobenius norms (weights,
// not biases; the blocks of a packed projection), found in the model's parameter catalog by
// their roles: self-attention packs the three in one weight (qkv), cross-attention has q and a
// packed kv. Where a sequence's tokens have collapsed to one direction the attention no longer
// depends on W_Q and W_K and their gradients vanish while W_V's does not (Noci et al. 2022,
// arXiv 2206.03126; methods.md s5.10): `fathom analyze rank-collapse` reads these at
// initialization, the probe `attn.grad_q_over_v` at probed updates of a run.
#include <string>
#include <vector>

#include "core/model/parameter_catalog.h"

namespace fathom {

struct ProjectionGrads {
  std::string sublayer;  // "dec.3.self_attn"
  double q = 0, k = 0, v = 0;
};

// In the catalog's order (forward order); 0 for a weight without a gradient. One copy from the
// device for all of them.
std::vector<ProjectionGrads> attention_projection_grads(const ParameterCatalog& catalog);

}  // namespace fathom
