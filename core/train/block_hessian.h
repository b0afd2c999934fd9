#pragma once
// The Hessian block by block (methods.md s5.11): each weight matrix's own curvature -- the
// spectrum of H_bb, the principal sub-matrix of the training loss's Hessian over one block of
// parameters -- by the Lanczos iteration on exact products H_bb v (core/train/hessian.h).
// Zhang et al. 2024 ("Why Transformers need Adam: a Hessian perspective", arXiv 2402.16788)
// find these spectra far apart across a Transformer's blocks ("block heterogeneity") and
// alike across a CNN's, and argue that one learning rate for all blocks -- SGD's -- cannot
// suit blocks whose curvature differs by decades, where Adam's per-coordinate rates can.
//
// A block is a weight matrix of the model's parameter catalog (core/model/parameter_catalog.h)
// or, for a packed projection, one of its stacked matrices: self-attention's qkv is three
// blocks (q, k, v), cross-attention's kv two, a depth-wise LSTM's gates three; an embedding
// table is one. Biases, norm gains and method scalars are left out.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/parameter_catalog.h"
#include "core/train/hessian.h"

namespace fathom {

struct HessianBlock {
  std::string name;      // "enc.2.self_attn.q", "dec.0.ffn.fc1", "source_embedding"
  std::string kind;      // the name without stack and layer: "self_attn.q", "ffn.fc1"; an
                         // embedding its name
  std::string stack;     // "enc" | "dec"; "" for an embedding
  int layer = -1;        // 0-based; -1 for an embedding
  size_t parameter = 0;  // its tensor's index in the Hessian's parameter list
  int64_t first_row = 0, rows = 0;  // the rows of that tensor it covers
  int64_t size = 0;                 // parameters in the block
};

// Every block of the catalog whose tensor is among `params` (the trainable ones the Hessian is
// over), in the catalog's order: embeddings first, then the linears in forward order.
std::vector<HessianBlock> hessian_blocks(const ParameterCatalog& catalog, const TensorList& params);

// The block's H_bb as an operator on vectors shaped like its rows.
LinearOperator block_operator(const LossHessian& hessian, const HessianBlock& block,
                              const TensorList& params);

// `steps` Lanczos steps on H_bb from a standard normal start seeded by `seed` (fewer only on an
// invariant subspace): the extremes with their residuals and the quadrature's nodes and weights
// (ExtremeEigen::ritz_values, ritz_weights), one start's estimate of the block's spectral density.
ExtremeEigen block_spectrum(const LossHessian& hessian, const HessianBlock& block,
                            const TensorList& params, int steps, std::uint64_t seed);

}  // namespace fathom
