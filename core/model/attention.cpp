#include "core/model/attention.h"

#include <torch/version.h>

#include <cmath>

#include "base/config/config.h"
#include "core/model/cpu_attention.h"
#include "core/model/decoding_cache.h"
#include "core/model/dropout.h"
#include "core/model/higher_order_grad.h"

namespace fathom {

MultiheadAttention make_attention(const ModelConfig& config, const SublayerId& id,
                                  std::shared_ptr<ModelHooks> hooks, ParameterCatalog& catalog) {
  return MultiheadAttention(config.d_model, config.heads, config.attention_dropout,
                            id.kind != SublayerKind::EncoderAttention, id, id.name(), catalog,
                            config.fused_attention == "on"     ? FusedAttention::On
                            : config.fused_attention == "auto" ? FusedAttention::Auto
                                                               : FusedAttention::Off,
                            std::move(hooks), config.qk_norm,
                            attention_gate_kind(config.attention_gate));
}

MultiheadAttentionImpl::MultiheadAttentionImpl(int d_model, int heads, double attention_dropout,
                                               bool self_attention, const SublayerId& owner,
                                               const std::string& name, ParameterCatalog& catalog,
                                               FusedAttention fused,
                                               std::shared_ptr<ModelHooks> hooks, bool qk_norm,
                                               AttentionGateKind gate)
    : d_model_(d_model),
      heads_(heads),
      attention_dropout_(attention_dropout),
      self_attention_(self_attention),
      fused_(fused),
      owner_(owner),
      hooks_(std::move(hooks)) {
  if (self_attention) {
    qkv_ = register_module("qkv", torch::nn::Linear(d_model, 3 * d_model));
    catalog.linears.push_back({name + ".qkv", qkv_, LinearRole::AttentionQkv, owner, 3});
  } else {
    q_ = register_module("q", torch::nn::Linear(d_model, d_model));
    kv_ = register_module("kv", torch::nn::Linear(d_model, 2 * d_model));
    catalog.linears.push_back({name + ".q", q_, LinearRole::AttentionQuery, owner, 1});
    catalog.linears.push_back({name + ".kv", kv_, LinearRole::AttentionKeyValue, owner, 2});
  }
  out_ = register_module("out", torch::nn::Linear(d_model, d_model));
  catalog.linears.push_back({name + ".out", out_, LinearRole::AttentionOutput, owner, 1});
  if (qk_norm) qk_norm_ = register_module("qk_norm", QkNorm(d_model / heads, name, catalog));
  if (gate != AttentionGateKind::None)
    gate_ = register_module("gate", AttentionGate(gate, d_model, heads, owner, name, catalog));
}

torch::Tensor MultiheadAttentionImpl::project_out(const torch::Tensor& query,
                                                  const torch::Tensor& context) {
  // Gated attention gates the heads' outputs before they are mixed (Qiu et al. 2025).
  return out_(gate_ ? gate_(query, context) : context);
}

DecodingCache::KeysValues MultiheadAttentionImpl::memory_heads_of(
    const std::function<DecodingCache::KeysValues()>& compute) {
  DecodingCache* cache = hooks_ ? hooks_->decoding : nullptr;
  return cache ? cache->memory(this, compute) : compute();
}

bool MultiheadAttentionImpl::with_cached_past(torch::Tensor& k, torch::Tensor& v) {
  DecodingCache* cache = hooks_ ? hooks_->decoding : nullptr;
  if (!cache) return true;
  const int64_t past = cache->length(), added = k.size(2);
  if (past > 0 && added != 1)
    throw std::logic_error("incremental decoding: one token a step after the first call, got " +
                           std::to_string(added));
  std::tie(k, v) = cache->append(this, k, v);
  // Positions 0..added-1 from the start keep the causal mask; one new token sees every key.
  return past == 0;
}

// Fathom's CPU loop (core/model/cpu_attention.h) computes the same function as the explicit
// path. LibTorch 1.x has no fused call, and the loop was 1.6-6.5x the explicit path's core
// at every CPU size (bench_attention); on 2.x it was 1.6-2.0x scaled_dot_product_attention's
// CPU kernel at d_head 16, 1.0-1.6x at 32, 0.84-0.97x at 64 (docs/performance.md), so `auto`
// takes it there up to d_head 32 and `on` means the fused call.
bool MultiheadAttentionImpl::takes_cpu_loop(const torch::Tensor& q,
                                            const SublayerObserver* observer) const {
  if (fused_ == FusedAttention::Off || observer || higher_order_grad_needed() ||
      !attention_on_cpu_applies(q))
    return false;
  constexpr int64_t kLargestLoopHeadOn2x = 32;
  return TORCH_VERSION_MAJOR < 2 ||
         (fused_ == FusedAttention::Auto && q.size(-1) <= kLargestLoopHeadOn2x);
}

torch::Tensor MultiheadAttentionImpl::forward(const torch::Tensor& query,
                                              const torch::Tensor& memory,
                                              const torch::Tensor& key_padding_mask, bool causal) {
  const int64_t B = query.size(0), T = query.size(1);
  const int64_t head_dim = d_model_ / heads_;
  // [B, L, d] -> [B, H, L, d/H]
  auto heads = [&](const torch::Tensor& t) {
    return t.view({B, t.size(1), heads_, head_dim}).transpose(1, 2);
  };
  torch::Tensor q, k, v;
  if (self_attention_) {
    auto parts = qkv_(query).chunk(3, -1);
    q = heads(parts[0]), k = heads(parts[1]), v = heads(parts[2]);
  } else {
    q = heads(q_(query));
    auto memory_heads = [&] {
      auto parts = kv_(memory).chunk(2, -1);
      return DecodingCache::KeysValues{heads(parts[0]), heads(parts[1])};
    };
    std::tie(k, v) = memory_heads_of(memory_heads);
  }
  if (self_attention_ && causal) causal = with_cached_past(k, v);
  const int64_t S = k.size(2);
  if (qk_norm_) std::tie(q, k) = qk_norm_(q, k);  // token by token: the cache keeps k before it
  SublayerObserver* observer = hooks_ ? hooks_->observer : nullptr;
  if (takes_cpu_loop(q, observer))
    return project_out(query, attention_on_cpu(q, k, v, key_padding_mask, causal,
                                               attention_dropout_, is_training()));
#if TORCH_VERSION_MAJOR >= 2
  const bool cpu_bf16 = q.is_cpu() && q.scalar_type() == torch::kBFloat16;  // autocast's output
  if ((fused_ == FusedAttention::On || (fused_ == FusedAttention::Auto && !cpu_bf16)) &&
      !observer && !higher_order_grad_needed()) {
    // Same function: softmax(q k^T / sqrt(d/H) + mask) v, its default scale. A boolean
    // attn_mask marks the keys that *take part* (the opposite of key_padding_mask).
    c10::optional<torch::Tensor> allowed;
    if (key_padding_mask.defined()) {
      allowed = key_padding_mask.logical_not().view({B, 1, 1, S});
      if (causal)  // is_causal cannot be combined with a mask: fold the causal mask in
        allowed = allowed->logical_and(
            torch::ones({T, S}, torch::dtype(torch::kBool).device(q.device())).tril());
    }
    const double dropout = is_training() ? attention_dropout_ : 0.0;
    torch::Tensor context = at::scaled_dot_product_attention(
        q, k, v, allowed, dropout, /*is_causal=*/causal && !key_padding_mask.defined());
    return project_out(query, context.transpose(1, 2).reshape({B, T, d_model_}));
  }
#endif
  q = q * (1.0 / std::sqrt(static_cast<double>(head_dim)));

  const torch::Tensor logits = torch::matmul(q, k.transpose(-2, -1));  // [B, H, T, S]
  torch::Tensor scores = logits;
  if (key_padding_mask.defined())
    scores = scores.masked_fill(key_padding_mask.view({B, 1, 1, S}),
                                -std::numeric_limits<float>::infinity());
  if (causal) {
    auto future = torch::ones({T, S}, torch::dtype(torch::kBool).device(scores.device())).triu(1);
    scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
  }
  // Softmax in float32 also under autocast (its CUDA op list does the same; the CPU one may
  // not), as the probabilities of long rows lose too much in 16 bits.
  // (Float64 stays float64: a double model's derivatives are compared at that precision.)
  const bool wide = scores.scalar_type() == torch::kFloat || scores.scalar_type() == torch::kDouble;
  torch::Tensor probs = wide ? torch::softmax(scores, -1)
                             : torch::softmax(scores, -1, torch::kFloat).to(scores.scalar_type());
  if (observer)
    observer->on_attention(owner_, AttentionTrace{logits, probs, key_padding_mask, causal});
  if (attention_dropout_ > 0) probs = fathom::dropout(probs, attention_dropout_, is_training());
  torch::Tensor context = torch::matmul(probs, v).transpose(1, 2).reshape({B, T, d_model_});
  return project_out(query, context);
}

}  // namespace fathom
