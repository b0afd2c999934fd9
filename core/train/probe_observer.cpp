#include "core/train/probe_observer.h"

#include <algorithm>
#include <cmath>

#include "core/model/hyper_connection.h"

namespace fathom {

torch::Tensor stream_kurtosis(const torch::Tensor& x, const torch::Tensor& tokens) {
  // One population over every real token's d features: E[(x - mu)^4] / sigma^4, 3 for a
  // Gaussian stream, large when a few features carry outliers (He et al. 2024, arXiv 2405.19279).
  const torch::Tensor n = tokens.sum() * x.size(-1);
  const torch::Tensor mu = (x * tokens).sum() / n;
  const torch::Tensor centred = (x - mu) * tokens;
  const torch::Tensor m2 = centred.pow(2).sum() / n;
  return (centred.pow(4).sum() / n) / (m2 * m2);
}

torch::Tensor max_over_median(const torch::Tensor& x, const torch::Tensor& tokens) {
  // Massive activations (Sun et al. 2024, arXiv 2402.17762): the largest |x| over the
  // median |x|, over real tokens and features; the lower median of an even count.
  const torch::Tensor a = x.abs().masked_select(tokens.to(torch::kBool).expand_as(x));
  return a.max() / a.median();
}

torch::Tensor mean_angle(const torch::Tensor& in, const torch::Tensor& out,
                         const torch::Tensor& tokens) {
  // The angle between a sub-layer's input and output per token, in degrees, averaged over the
  // real tokens: near 0 where the sub-layer hardly turns the stream (a lazy layer, Sun et al.
  // 2025), 90 where its output is orthogonal to its input. A zero vector counts as 90.
  // In float64: acos is steep near 1, where float32 rounding alone reads a few hundredths
  // of a degree.
  const torch::Tensor cosine =
      torch::cosine_similarity(in.to(torch::kDouble), out.to(torch::kDouble), -1, 1e-12)
          .clamp(-1.0, 1.0);
  const torch::Tensor w = tokens.squeeze(-1).to(torch::kDouble);
  return ((torch::acos(cosine) * w).sum() / w.sum() * (180.0 / std::acos(-1.0))).to(torch::kFloat);
}

torch::Tensor token_cosine(const torch::Tensor& x, const torch::Tensor& tokens) {
  // With u_t = x_t / |x_t| (0 at padding and at a zero vector), the sum over the ordered pairs
  // i != j of u_i . u_j is |sum_t u_t|^2 - sum_t |u_t|^2, the last the count of real nonzero
  // tokens: one pass over x, no T x T matrix. The per-sequence sums in float64: near 1 the
  // difference cancels most of their digits.
  const torch::Tensor xf = x.to(torch::kFloat);
  const torch::Tensor norm = xf.norm(2, -1, true);  // [B, T, 1]
  const torch::Tensor scale = (tokens.to(torch::kFloat) / norm).masked_fill(norm == 0, 0);
  const torch::Tensor sum = (xf * scale).sum(1).to(torch::kDouble);  // [B, d]
  const torch::Tensor units = (scale != 0).sum(std::vector<int64_t>{1, 2}).to(torch::kDouble);
  const torch::Tensor n = tokens.to(torch::kDouble).sum(std::vector<int64_t>{1, 2});  // [B]
  const torch::Tensor pairs_sum = sum.pow(2).sum(-1) - units;
  const torch::Tensor counted = (n >= 2).to(torch::kDouble);
  const torch::Tensor per_sequence = pairs_sum / (n * (n - 1)).clamp_min(1);
  return ((per_sequence * counted).sum() / counted.sum()).to(torch::kFloat);
}

ProbeObserver::ProbeObserver(torch::Tensor source_valid, torch::Tensor target_valid)
    : source_valid_(std::move(source_valid)), target_valid_(std::move(target_valid)) {}

ProbeObserver::Pending& ProbeObserver::pending(const std::string& probe) {
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const Pending& p) { return p.probe == probe; });
  if (it != pending_.end()) return *it;
  pending_.push_back(Pending{probe, {}, {}});
  return pending_.back();
}

void ProbeObserver::add(const std::string& probe, std::vector<std::string> positions,
                        torch::Tensor stat) {
  Pending& p = pending(probe);
  for (auto& position : positions) p.positions.push_back(std::move(position));
  p.stats.push_back(stat.reshape({-1}));
}

void ProbeObserver::on_attention(const SublayerId& id, const AttentionTrace& trace) {
  const torch::Tensor logits = trace.logits.to(torch::kFloat);  // [B, H, T, S]
  const torch::Tensor probs = trace.probs.to(torch::kFloat);
  const int64_t B = logits.size(0), H = logits.size(1), T = logits.size(2), S = logits.size(3);
  const torch::Tensor queries = valid_tokens(id.stack).view({B, 1, T, 1});
  torch::Tensor seen = queries;  // the (query, key) pairs the softmax weighs
  if (trace.key_padding_mask.defined())
    seen = seen.logical_and(trace.key_padding_mask.logical_not().view({B, 1, 1, S}));
  if (trace.causal)
    seen = seen.logical_and(
        torch::ones({T, S}, torch::dtype(torch::kBool).device(logits.device())).tril());
  const torch::Tensor max_logit =
      logits.abs().masked_fill(seen.logical_not(), 0).amax(std::vector<int64_t>{0, 2, 3});
  // H(p) = -sum_s p log p per query (masked keys have p = 0 and add nothing), averaged over
  // the real queries of the batch.
  const torch::Tensor row_entropy = -(probs * probs.clamp_min(1e-30).log()).sum(-1);  // [B,H,T]
  const torch::Tensor weight = queries.view({B, 1, T}).to(torch::kFloat);
  const torch::Tensor entropy =
      (row_entropy * weight).sum(std::vector<int64_t>{0, 2}) / weight.sum();
  std::vector<std::string> heads;
  for (int64_t h = 0; h < H; ++h) heads.push_back(id.name() + ".h" + std::to_string(h));
  // Attention sinks: the probability on key position 0 (the first source token, or the
  // decoder's bos), averaged over the real queries (Xiao et al. 2024; Sun et al. 2024).
  const torch::Tensor first_key =
      (probs.select(-1, 0) * weight).sum(std::vector<int64_t>{0, 2}) / weight.sum();
  add("attn.max_logit", heads, max_logit);
  add("attn.entropy", heads, entropy);
  add("attn.first_key_mass", heads, first_key);
}

void ProbeObserver::on_sublayer(const SublayerId& id, const SublayerTrace& trace) {
  const torch::Tensor tokens = valid_tokens(id.stack).unsqueeze(-1).to(torch::kFloat);  // [B,T,1]
  auto rms = [&](const torch::Tensor& x) {
    const torch::Tensor xf = x.to(torch::kFloat);
    return ((xf * xf * tokens).sum() / (tokens.sum() * xf.size(-1))).sqrt();
  };
  const std::string name = id.name();
  add("stream.rms", {name}, rms(trace.output));
  add("stream.max_abs", {name}, (trace.output.to(torch::kFloat).abs() * tokens).max());
  if (trace.branch.defined()) add("branch.rms", {name}, rms(trace.branch));
  const torch::Tensor x = trace.output.to(torch::kFloat);
  add("stream.kurtosis", {name}, stream_kurtosis(x, tokens));
  add("stream.max_over_median", {name}, max_over_median(x, tokens));
  add("stream.token_cosine", {name}, token_cosine(x, tokens));
  if (trace.input.defined() && trace.input.sizes() == trace.output.sizes())
    add("stream.angle", {name}, mean_angle(trace.input.to(torch::kFloat), x, tokens));
}

void ProbeObserver::on_stream_mixing(const SublayerId& id, const torch::Tensor& mixing,
                                     const torch::Tensor&) {
  // The composite P_k = M_k .. M_1 of the stack's residual mixings up to this sub-layer, per
  // token; its gains (hyper_connection.h: max abs row sum forward, column sum backward), the
  // largest over the real tokens -- the quantity mHC bounds by 1.
  Composite& c = composite_[id.stack == Stack::Encoder ? 0 : 1];
  const torch::Tensor m = mixing.to(torch::kFloat);
  c.product = c.product.defined() && id.index > c.last_index ? m.matmul(c.product) : m;
  c.last_index = id.index;
  const MixingGain gain = mixing_gain(c.product);  // [B, T]
  const torch::Tensor real = valid_tokens(id.stack);
  add("hc.gain", {id.name()}, gain.forward.masked_select(real).max());
  add("hc.gain_backward", {id.name()}, gain.backward.masked_select(real).max());
}

std::vector<ProbeValues> ProbeObserver::values() const {
  std::vector<ProbeValues> out;
  for (const Pending& p : pending_) {
    const torch::Tensor all = torch::cat(p.stats).to(torch::kCPU).contiguous();
    const float* data = all.data_ptr<float>();
    out.push_back(ProbeValues{p.probe, p.positions, std::vector<float>(data, data + all.numel())});
  }
  return out;
}

}  // namespace fathom
