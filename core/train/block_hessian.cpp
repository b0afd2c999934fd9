#include "core/train/block_hessian.h"

#include <stdexcept>

namespace fathom {
namespace {

// The index of `t` in `params` (the same tensor, not an equal one), or params.size().
size_t index_of(const torch::Tensor& t, const TensorList& params) {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].unsafeGetTensorImpl() == t.unsafeGetTensorImpl()) return i;
  return params.size();
}

// What the b-th of a linear's stacked matrices is: q, k, v for attention's packed
// projections, else its position.
std::string block_suffix(const LinearEntry& l, int b) {
  switch (l.role) {
    case LinearRole::AttentionQkv:
      return std::string(1, "qkv"[b]);
    case LinearRole::AttentionKeyValue:
      return std::string(1, "kv"[b]);
    default:
      return l.blocks == 1 ? "" : std::to_string(b);
  }
}

// The linear's own part of its name after its sub-layer's ("fc1", "out", "qkv").
std::string own_name(const LinearEntry& l) {
  const size_t dot = l.name.rfind('.');
  return dot == std::string::npos ? l.name : l.name.substr(dot + 1);
}

}  // namespace

std::vector<HessianBlock> hessian_blocks(const ParameterCatalog& catalog,
                                         const TensorList& params) {
  std::vector<HessianBlock> out;
  for (const EmbeddingEntry& e : catalog.embeddings) {
    const size_t i = index_of(e.weight, params);
    if (i == params.size()) continue;
    out.push_back({e.name, e.name, "", -1, i, 0, e.weight.size(0), e.weight.numel()});
  }
  for (const LinearEntry& l : catalog.linears) {
    const torch::Tensor& w = l.linear->weight;
    const size_t i = index_of(w, params);
    if (i == params.size()) continue;
    const int64_t rows = w.size(0) / l.blocks;
    const std::string kind = std::string(kind_name(l.owner.kind)) + ".";
    for (int b = 0; b < l.blocks; ++b) {
      const std::string suffix = block_suffix(l, b);
      const bool packed_attention =
          l.role == LinearRole::AttentionQkv || l.role == LinearRole::AttentionKeyValue;
      const std::string part =
          packed_attention ? suffix : own_name(l) + (suffix.empty() ? "" : "." + suffix);
      out.push_back({l.owner.name() + "." + part, kind + part, stack_name(l.owner.stack),
                     l.owner.layer, i, b * rows, rows, rows * w.size(1)});
    }
  }
  return out;
}

LinearOperator block_operator(const LossHessian& hessian, const HessianBlock& block,
                              const TensorList& params) {
  const torch::Tensor& p = params.at(block.parameter);
  const bool whole = block.first_row == 0 && block.rows == p.size(0);
  return [&hessian, &p, block, whole](const TensorList& v) {
    if (whole) return TensorList{hessian.apply_within(block.parameter, v[0])};
    // The principal sub-matrix over some rows: the direction zero elsewhere, the product read
    // back on those rows.
    torch::Tensor full = torch::zeros_like(p);
    full.narrow(0, block.first_row, block.rows).copy_(v[0]);
    return TensorList{
        hessian.apply_within(block.parameter, full).narrow(0, block.first_row, block.rows)};
  };
}

ExtremeEigen block_spectrum(const LossHessian& hessian, const HessianBlock& block,
                            const TensorList& params, int steps, std::uint64_t seed) {
  if (steps < 1) throw std::invalid_argument("a block's spectrum needs at least one Lanczos step");
  const torch::Tensor rows = params.at(block.parameter).narrow(0, block.first_row, block.rows);
  // Tolerance 0: every step is taken, so each block's quadrature has the same number of nodes.
  return extreme_eigenvalues(block_operator(hessian, block, params), random_direction({rows}, seed),
                             steps, 0.0);
}

}  // namespace fathom
