#pragma once
// Multi-head scaled dot-product attention (Vaswani et al. 2017) with key-padding and causal
// masks. Self-attention packs Q, K, V into one [3d, d] projection (one matmul); attention
// over the encoder output has a [d, d] query and a packed [2d, d] key/value projection.
// With `fused` and LibTorch >= 2.0 the score/softmax/weighted-sum part is one call to
// at::scaled_dot_product_attention (flash / memory-efficient kernels on CUDA); the same
// function, it just never materializes the probabilities. On the CPU in float32 or float64,
// Fathom's own loop (core/model/cpu_attention.h, one autograd node) where it is faster:
// always on LibTorch 1.x, up to d_head 32 under `auto` on 2.x (takes_cpu_loop).
#include <torch/torch.h>

#include <memory>

#include "core/model/attention_gate.h"
#include "core/model/decoding_cache.h"
#include "core/model/observer.h"
#include "core/model/parameter_catalog.h"
#include "core/model/qk_norm.h"

namespace fathom {

struct ModelConfig;

// model.fused_attention. Auto: the fused call except under bf16 on the CPU, where LibTorch
// 2.6's kernel was slower than the explicit path (tiny model: a step 95 ms against 53 ms, small
// 967 against 689; in float32 it was faster, 54 against 90 ms; docs/performance.md); the CPU
// loop where it is faster still (takes_cpu_loop). On: the fused call (1.x: the loop) wherever
// it applies. Off: the explicit path.
enum class FusedAttention { Off, Auto, On };

class MultiheadAttentionImpl : public torch::nn::Module {
 public:
  MultiheadAttentionImpl(int d_model, int heads, double attention_dropout, bool self_attention,
                         const SublayerId& owner, const std::string& name,
                         ParameterCatalog& catalog, FusedAttention fused = FusedAttention::Off,
                         std::shared_ptr<ModelHooks> hooks = nullptr, bool qk_norm = false,
                         AttentionGateKind gate = AttentionGateKind::None);

  // query [B, T, d]; memory [B, S, d] (ignored for self-attention, which attends to query);
  // key_padding_mask [B, S] bool, true at padding (may be undefined); causal hides the future.
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& memory,
                        const torch::Tensor& key_padding_mask, bool causal);

 private:
  // The output projection of the heads' outputs [B, T, d], gated first where a gate exists.
  torch::Tensor project_out(const torch::Tensor& query, const torch::Tensor& context);
  // Incremental decoding (hooks' DecodingCache): the memory's keys and values once per search,
  // and a causal self-attention's new keys and values appended to the past's (k and v become
  // all of them); returns whether the causal mask is still needed. Without a cache: compute()
  // and true.
  DecodingCache::KeysValues memory_heads_of(
      const std::function<DecodingCache::KeysValues()>& compute);
  bool with_cached_past(torch::Tensor& k, torch::Tensor& v);
  // Whether the heads' q take Fathom's CPU loop rather than LibTorch's fused call or the
  // explicit path.
  bool takes_cpu_loop(const torch::Tensor& q, const SublayerObserver* observer) const;

  int d_model_, heads_;
  double attention_dropout_;
  bool self_attention_;
  FusedAttention fused_;  // LibTorch's scaled_dot_product_attention where it exists (>= 2.0)
  SublayerId owner_;
  std::shared_ptr<ModelHooks> hooks_;           // an installed observer sees the probabilities
  torch::nn::Linear qkv_{nullptr};              // self-attention
  torch::nn::Linear q_{nullptr}, kv_{nullptr};  // encoder attention
  torch::nn::Linear out_{nullptr};
  QkNorm qk_norm_{nullptr};      // model.qk_norm (core/model/qk_norm.h)
  AttentionGate gate_{nullptr};  // model.attention_gate (core/model/attention_gate.h)
};
TORCH_MODULE(MultiheadAttention);

// The attention of sub-layer `id` as every stack builds it: self-attention unless `id` is an
// encoder attention, named id.name(), fused as model.fused_attention says, with QK-LayerNorm
// where model.qk_norm says, gated where model.attention_gate says, watched through `hooks`.
MultiheadAttention make_attention(const ModelConfig& config, const SublayerId& id,
                                  std::shared_ptr<ModelHooks> hooks, ParameterCatalog& catalog);

}  // namespace fathom
