#pragma once
// Hooks through which analysis code watches (and may rescale) a model's sub-layers without
// editing the model. Every connection style reports through the same calls.
#include <torch/torch.h>

#include <string>

#include "core/model/sublayer_id.h"

namespace fathom {

struct SublayerTrace {
  torch::Tensor input;    // x_{k-1}                         [B, T, d]
  torch::Tensor branch;   // drop(f_k(.)) as it meets the shortcut (after any rescaling)
  torch::Tensor output;   // x_k
};

struct NormTrace {
  std::string name;       // e.g. "enc.0.self_attn.post_norm", "enc.final_norm"
  torch::Tensor input;    // what the LayerNorm normalizes   [B, T, d]
  torch::Tensor mean;     // per-token mean                  [B, T, 1]
  torch::Tensor std;      // per-token sqrt(var + eps)       [B, T, 1]
  torch::Tensor output;
  torch::Tensor gamma, beta;  // the LayerNorm's affine parameters [d]
};

class SublayerObserver {
 public:
  virtual ~SublayerObserver() = default;
  // Called with the branch output before it meets the shortcut; the returned tensor is used
  // instead (return `branch` unchanged to only watch).
  virtual torch::Tensor transform_branch(const SublayerId& id, torch::Tensor branch) {
    return branch;
  }
  // Called before layer `layer` (0-based) of a residual stack runs, with its input x_{k-1}
  // [B, T, d]. A defined tensor returned is used as the layer's output and the layer is
  // skipped (layer linearization, methods.md s5.4); an undefined one runs the layer.
  virtual torch::Tensor replace_layer(Stack stack, int layer, const torch::Tensor& x) {
    return {};
  }
  virtual void on_sublayer(const SublayerId& id, const SublayerTrace& trace) {}
  virtual void on_norm(const SublayerId* owner, const NormTrace& trace) {}
};

// Shared by every module of one model; analysis code installs an observer here.
struct ModelHooks {
  SublayerObserver* observer = nullptr;
  // Recompute each layer of the residual stacks in backward (core/model/checkpointed_layer.h)
  // while training with gradients on; never while an observer is installed (it expects one
  // forward per call).
  bool checkpoint_layers = false;
};

}  // namespace fathom
