#pragma once
// Hooks through which analysis code watches (and may rescale) a model's sub-layers without
// editing the model. Every connection style reports through the same calls.
#include <torch/torch.h>

#include <atomic>
#include <string>

#include "core/model/stop_point.h"
#include "core/model/sublayer_id.h"

namespace fathom {

struct SublayerTrace {
  torch::Tensor input;   // x_{k-1}                         [B, T, d]
  torch::Tensor branch;  // drop(f_k(.)) as it meets the shortcut (after any rescaling)
  torch::Tensor output;  // x_k
  // What the sub-layer passes on, where that is not `output`: a hyper-connection stack's n
  // streams [B, T, n d] (`output` is then their sum, which no later computation reads, so it
  // has no gradient). Undefined elsewhere: `output` is passed on.
  torch::Tensor state;
  const torch::Tensor& passed_on() const { return state.defined() ? state : output; }
};

struct NormTrace {
  std::string name;     // e.g. "enc.0.self_attn.post_norm", "enc.final_norm"
  torch::Tensor input;  // what the LayerNorm normalizes   [B, T, d]
  torch::Tensor mean;   // per-token mean                  [B, T, 1]
  torch::Tensor std;    // per-token sqrt(var + eps)       [B, T, 1]
  torch::Tensor output;
  torch::Tensor gamma, beta;  // the LayerNorm's affine parameters [d]
};

// One attention sub-layer's probabilities, as an observer sees them. Present only while an
// observer is installed: attention then takes the explicit path (also where fused attention
// is on), so the probabilities exist; training without an observer is untouched.
struct AttentionTrace {
  torch::Tensor logits;  // q.k / sqrt(d_h) before any mask [B, H, T, S]
  torch::Tensor probs;   // softmax over the keys, masked keys 0 [B, H, T, S] (before dropout)
  torch::Tensor key_padding_mask;  // [B, S] true at padding; undefined when none
  bool causal = false;             // the future was hidden
};

class SublayerObserver {
 public:
  virtual ~SublayerObserver() = default;
  // Called with the branch output before it meets the shortcut; the returned tensor is used
  // instead (return `branch` unchanged to only watch).
  virtual torch::Tensor transform_branch(const SublayerId& id, torch::Tensor branch) {
    return branch;
  }
  // Called before layer `layer` (0-based) of a stack runs, with the layer's input state. A
  // defined tensor returned is used as the layer's output state and the layer is skipped
  // (layer linearization, methods.md s5.4); an undefined one runs the layer. The state is
  // x_{k-1} [B, T, d] in a residual stack, [o_{l-1} ; c_{l-1}] [B, T, 2d] in a depth-wise
  // LSTM stack (c_0 = 0), and the n streams [B, T, n d] in a hyper-connection stack (or
  // [B, T, d] before its first sub-layer copies the embedding into the streams).
  virtual torch::Tensor replace_layer(Stack stack, int layer, const torch::Tensor& state) {
    return {};
  }
  // Called with layer `layer`'s output state (same packing as replace_layer's input), after
  // it ran or was replaced; the returned tensor is used instead (return `state` to watch).
  virtual torch::Tensor layer_output(Stack stack, int layer, torch::Tensor state) { return state; }
  virtual void on_sublayer(const SublayerId& id, const SublayerTrace& trace) {}
  virtual void on_norm(const SublayerId* owner, const NormTrace& trace) {}
  virtual void on_attention(const SublayerId& id, const AttentionTrace& trace) {}
  // Hyper-connections (core/model/hyper_connection.h), before the sub-layer's on_sublayer: its
  // residual mixing M [B, T, n, n] and depth weights b [B, T, n]: new stream i =
  // sum_j M_ij old stream j + b_i branch.
  virtual void on_stream_mixing(const SublayerId& id, const torch::Tensor& mixing,
                                const torch::Tensor& write) {}
};

class DecodingCache;

// Shared by every module of one model; analysis code installs an observer here.
struct ModelHooks {
  SublayerObserver* observer = nullptr;
  // Set by TransformerImpl::decode for an incremental search step (core/model/decoding_cache.h):
  // attention then keeps and reads the past positions' keys and values there.
  DecodingCache* decoding = nullptr;
  // Recompute each layer of the residual stacks in backward (core/model/checkpointed_layer.h)
  // while training with gradients on; never while an observer is installed (it expects one
  // forward per call).
  bool checkpoint_layers = false;
  // Set by the trainer around an update's forward and backward: every layer checks it on the
  // way in and out and abandons the update when it is set (core/model/stop_point.h).
  const std::atomic<bool>* stop = nullptr;
};

// What the stacks call around each layer: the observer's replacement of layer `layer`
// (undefined: run it), and the layer's output as the observer wants it used (its stop point
// first, while the trainer has set one).
inline torch::Tensor replaced_layer(const ModelHooks* hooks, Stack stack, int layer,
                                    const torch::Tensor& state) {
  return hooks && hooks->observer ? hooks->observer->replace_layer(stack, layer, state)
                                  : torch::Tensor();
}
inline torch::Tensor observed_layer_output(const ModelHooks* hooks, Stack stack, int layer,
                                           torch::Tensor state) {
  if (hooks && hooks->stop) state = stop_point(hooks->stop, std::move(state));
  return hooks && hooks->observer ? hooks->observer->layer_output(stack, layer, std::move(state))
                                  : state;
}

}  // namespace fathom
