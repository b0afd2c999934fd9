#pragma once
// sigma-Reparam (Zhai et al. 2023, "Stabilizing Transformer Training by Preventing Attention
// Entropy Collapse", arXiv 2303.06296, s4): every linear layer computes with
//   W_hat = (gamma / sigma(W)) W,
// sigma(W) W's spectral norm, estimated by one power iteration per training forward (u and v
// without gradient, sigma = v^T W u with it), gamma a learned scalar per matrix initialized to
// 1, u initialized to W's top right singular vector once the init method drew W. The logits'
// spectral norm is then learned through gamma, decoupled from the matrices' size, which keeps
// attention entropy from collapsing. `model.sigma_reparam: true`.
//
// A packed weight (Q/K/V of self-attention, the depth-wise LSTM's gates: LinearEntry::blocks)
// is reparametrized block by block, as the separate matrices it stands for. The embeddings and
// the output projection tied to them are not linears and are left as they are.
//
// How, without editing each module: a Linear's registered parameter "weight" stays the raw W
// (what the optimizer, checkpoints and analyses see); for the duration of one forward the
// module's weight member points to W_hat (SigmaReparamScope), and afterwards back to W.
#include <torch/torch.h>

#include <vector>

#include "core/model/parameter_catalog.h"

namespace fathom {

class SigmaReparamImpl : public torch::nn::Module {
 public:
  // One gamma per block (a catalog extra, kind "other") and one u buffer [blocks, in] per
  // linear of `catalog`.
  explicit SigmaReparamImpl(ParameterCatalog& catalog);
  // u := the top right singular vector of each block of W (after the init method drew it).
  void initialize();
  // Points each linear's weight member at W_hat; with `training`, advances the power
  // iteration first. Nested calls (encode and decode inside forward) do nothing: one
  // iteration per forward.
  void apply(bool training);
  // Undoes the matching apply(): the outermost points each weight member back at W.
  void restore();

 private:
  struct Layer {
    torch::nn::Linear linear;
    torch::Tensor weight;  // the registered parameter W
    int64_t blocks;
    torch::Tensor gamma, u;  // [blocks], [blocks, in]
  };
  std::vector<Layer> layers_;
  int depth_ = 0;
};
TORCH_MODULE(SigmaReparam);

// For one forward: apply() on entry, restore() on exit (also by an exception). Null: nothing.
class SigmaReparamScope {
 public:
  SigmaReparamScope(SigmaReparamImpl* reparam, bool training) : reparam_(reparam) {
    if (reparam_) reparam_->apply(training);
  }
  ~SigmaReparamScope() {
    if (reparam_) reparam_->restore();
  }
  SigmaReparamScope(const SigmaReparamScope&) = delete;
  SigmaReparamScope& operator=(const SigmaReparamScope&) = delete;

 private:
  SigmaReparamImpl* reparam_;
};

}  // namespace fathom
