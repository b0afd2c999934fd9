#pragma once
// A Transformer written with plain tensor ops from a model's own parameter tensors (methods.md
// s1-2, docs/methods-notes.md): the reference that tests/core/test_model.cpp (encoder-decoder)
// and tests/core/test_decoder_only.cpp hold the model to. Tiny sizes, CPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/model/embedding.h"
#include "core/model/transformer.h"

namespace fathom::model_reference {

constexpr int64_t kVocab = 20;
constexpr int kD = 16, kHeads = 2, kFf = 32;

inline RunConfig tiny_config(const std::string& norm, int encoder_layers = 1,
                             int decoder_layers = 1, double dropout = 0.0) {
  RunConfig c;
  c.model.d_model = kD;
  c.model.heads = kHeads;
  c.model.d_ff = kFf;
  c.model.encoder_layers = encoder_layers;
  c.model.decoder_layers = decoder_layers;
  c.model.dropout = dropout;
  c.model.attention_dropout = 0.0;
  c.model.activation_dropout = 0.0;
  c.model.norm = norm;
  c.model.mix_ln_alpha = 0.5;  // mix: 2 layers split 1 Post-LN + 1 Pre-LN
  return c;
}

// Every sub-layer style model.norm may name (core/model/*_norm.cpp, ln_scaling.cpp).
inline const std::vector<std::string> kNorms{"post", "pre", "peri", "mix", "lns", "dyt"};

// Moves every parameter away from its initial value (LN gamma 1 / beta 0, biases 0, ...), so
// a reference that put a bias, gamma or beta in the wrong place cannot agree by accident.
inline void perturb(Transformer& model, uint64_t seed) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed);
  for (auto& p : model->parameters()) p.add_(0.2 * torch::randn_like(p));
}

// Named parameters; a missing name fails loudly and lists what exists.
class Params {
 public:
  explicit Params(Transformer& model) {
    for (const auto& p : model->named_parameters()) map_[p.key()] = p.value().detach();
  }
  torch::Tensor operator()(const std::string& name) const {
    auto it = map_.find(name);
    if (it == map_.end()) {
      std::string all;
      for (const auto& [k, v] : map_) all += "  " + k + "\n";
      ADD_FAILURE() << "no parameter '" << name << "'; parameters are:\n" << all;
      throw std::runtime_error("missing parameter " + name);
    }
    return it->second;
  }
  const std::map<std::string, torch::Tensor>& all() const { return map_; }

 private:
  std::map<std::string, torch::Tensor> map_;
};

// ---- the hand-written reference (plain tensor ops, no model modules) ----

inline torch::Tensor ref_linear(const torch::Tensor& x, const torch::Tensor& w,
                                const torch::Tensor& b) {
  return torch::matmul(x, w.t()) + b;
}

// LayerNorm over the last dimension, population variance, eps 1e-5 (torch's default).
inline torch::Tensor ref_ln(const torch::Tensor& x, const torch::Tensor& g,
                            const torch::Tensor& b) {
  torch::Tensor mu = x.mean(-1, true);
  torch::Tensor var = (x - mu).pow(2).mean(-1, true);
  return (x - mu) / torch::sqrt(var + 1e-5) * g + b;
}

// E[tokens] * sqrt(d) + sinusoidal positions.
inline torch::Tensor ref_embed(const torch::Tensor& E, const torch::Tensor& tokens) {
  const int64_t T = tokens.size(1);
  torch::Tensor x = E.index_select(0, tokens.reshape({-1})).view({tokens.size(0), T, E.size(1)});
  return x * std::sqrt(static_cast<double>(E.size(1))) +
         sinusoidal_positions(T, E.size(1)).unsqueeze(0);
}

// Multi-head attention written per head with explicit slices. key_padding [B, S] bool (true =
// padding) or undefined; causal hides keys s > t.
inline torch::Tensor ref_attention(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& wo,
                                   const torch::Tensor& bo, const torch::Tensor& key_padding,
                                   bool causal, int heads) {
  const int64_t B = q.size(0), T = q.size(1), S = k.size(1), d = q.size(2);
  const int64_t dh = d / heads;
  torch::Tensor mask = torch::zeros({B, T, S}, torch::kBool);
  if (key_padding.defined()) mask = mask | key_padding.view({B, 1, S}).expand({B, T, S});
  if (causal) {
    torch::Tensor future = torch::zeros({T, S}, torch::kBool);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t s = t + 1; s < S; ++s) future[t][s] = true;
    mask = mask | future.unsqueeze(0);
  }
  std::vector<torch::Tensor> contexts;
  for (int h = 0; h < heads; ++h) {
    torch::Tensor qh = q.slice(2, h * dh, (h + 1) * dh);
    torch::Tensor kh = k.slice(2, h * dh, (h + 1) * dh);
    torch::Tensor vh = v.slice(2, h * dh, (h + 1) * dh);
    torch::Tensor scores = torch::bmm(qh, kh.transpose(1, 2)) / std::sqrt(static_cast<double>(dh));
    scores = scores.masked_fill(mask, -INFINITY);
    contexts.push_back(torch::bmm(torch::softmax(scores, -1), vh));
  }
  return ref_linear(torch::cat(contexts, 2), wo, bo);
}

inline torch::Tensor ref_self_attention(const Params& P, const std::string& m,
                                        const torch::Tensor& x, const torch::Tensor& key_padding,
                                        bool causal) {
  torch::Tensor w = P(m + ".qkv.weight"), b = P(m + ".qkv.bias");
  torch::Tensor q = ref_linear(x, w.slice(0, 0, kD), b.slice(0, 0, kD));
  torch::Tensor k = ref_linear(x, w.slice(0, kD, 2 * kD), b.slice(0, kD, 2 * kD));
  torch::Tensor v = ref_linear(x, w.slice(0, 2 * kD, 3 * kD), b.slice(0, 2 * kD, 3 * kD));
  return ref_attention(q, k, v, P(m + ".out.weight"), P(m + ".out.bias"), key_padding, causal,
                       kHeads);
}

inline torch::Tensor ref_cross_attention(const Params& P, const std::string& m,
                                         const torch::Tensor& y, const torch::Tensor& memory,
                                         const torch::Tensor& key_padding) {
  torch::Tensor wkv = P(m + ".kv.weight"), bkv = P(m + ".kv.bias");
  torch::Tensor q = ref_linear(y, P(m + ".q.weight"), P(m + ".q.bias"));
  torch::Tensor k = ref_linear(memory, wkv.slice(0, 0, kD), bkv.slice(0, 0, kD));
  torch::Tensor v = ref_linear(memory, wkv.slice(0, kD, 2 * kD), bkv.slice(0, kD, 2 * kD));
  return ref_attention(q, k, v, P(m + ".out.weight"), P(m + ".out.bias"), key_padding, false,
                       kHeads);
}

inline torch::Tensor ref_ffn(const Params& P, const std::string& m, const torch::Tensor& x) {
  return ref_linear(torch::relu(ref_linear(x, P(m + ".fc1.weight"), P(m + ".fc1.bias"))),
                    P(m + ".fc2.weight"), P(m + ".fc2.bias"));
}

// DyT (arXiv 2503.10622): gamma * tanh(alpha * x) + beta, from the module `m`'s parameters.
inline torch::Tensor ref_dyt(const Params& P, const std::string& m, const torch::Tensor& x) {
  return torch::tanh(P(m + ".alpha") * x) * P(m + ".weight") + P(m + ".bias");
}

// The order `norm` gives 1-based layer l of a stack of L layers: mix is post in its first
// floor(0.5 L) layers (tiny_config's mix_ln_alpha) and pre after.
inline std::string layer_order(const std::string& norm, int l, int L) {
  if (norm != "mix") return norm;
  return l <= static_cast<int>(std::floor(0.5 * L)) ? "post" : "pre";
}

// One sub-layer of 1-based layer l (of L), each style by its formula (docs/methods-notes.md):
//   post: LN(x + f(x))            pre: x + f(LN(x))           peri: x + LN(f(LN(x)))
//   lns:  x + f(LN(x) / sqrt(l))  dyt: x + f(DyT(x))
template <typename F>
inline torch::Tensor ref_sublayer(const Params& P, const std::string& norm, int l, int L,
                                  const std::string& connection, const torch::Tensor& x, F f) {
  const std::string order = layer_order(norm, l, L);
  auto ln = [&](const std::string& module, const torch::Tensor& v) {
    const std::string m = connection + "." + module + ".ln";
    return ref_ln(v, P(m + ".weight"), P(m + ".bias"));
  };
  if (order == "post") return ln("post_norm", x + f(x));
  if (order == "pre") return x + f(ln("pre_norm", x));
  if (order == "peri") return x + ln("output_norm", f(ln("input_norm", x)));
  if (order == "lns") return x + f(ln("pre_norm", x) / std::sqrt(static_cast<double>(l)));
  if (order == "dyt") return x + f(ref_dyt(P, connection + ".pre_norm", x));
  ADD_FAILURE() << "no reference for norm " << norm;
  return x;
}

// The stack's final normalization: none after a Post-LN last layer, DyT for dyt, LN otherwise.
inline torch::Tensor ref_final(const Params& P, const std::string& norm, int L,
                               const std::string& m, const torch::Tensor& x) {
  const std::string order = layer_order(norm, L, L);
  if (order == "post") return x;
  if (order == "dyt") return ref_dyt(P, m, x);
  return ref_ln(x, P(m + ".ln.weight"), P(m + ".ln.bias"));
}

inline torch::Tensor ref_encode(const Params& P, const std::string& norm, int layers,
                                const torch::Tensor& source) {
  torch::Tensor pad = source.eq(0);
  torch::Tensor x = ref_embed(P("source_embedding"), source);
  for (int l = 0; l < layers; ++l) {
    const std::string L = "encoder.layer" + std::to_string(l);
    x = ref_sublayer(P, norm, l + 1, layers, L + "_self_attn_connection", x,
                     [&](const torch::Tensor& h) {
                       return ref_self_attention(P, L + "_self_attn", h, pad, false);
                     });
    x = ref_sublayer(P, norm, l + 1, layers, L + "_ffn_connection", x,
                     [&](const torch::Tensor& h) { return ref_ffn(P, L + "_ffn", h); });
  }
  return ref_final(P, norm, layers, "encoder.encoder_final_norm", x);
}

// Logits with shared + tied embeddings: h @ E^T.
inline torch::Tensor ref_forward(const Params& P, const std::string& norm, int enc_layers,
                                 int dec_layers, const torch::Tensor& source,
                                 const torch::Tensor& target_in) {
  torch::Tensor memory = ref_encode(P, norm, enc_layers, source);
  torch::Tensor pad = source.eq(0);
  torch::Tensor E = P("source_embedding");
  torch::Tensor y = ref_embed(E, target_in);
  for (int l = 0; l < dec_layers; ++l) {
    const std::string L = "decoder.layer" + std::to_string(l);
    y = ref_sublayer(P, norm, l + 1, dec_layers, L + "_self_attn_connection", y,
                     [&](const torch::Tensor& h) {
                       return ref_self_attention(P, L + "_self_attn", h, torch::Tensor(), true);
                     });
    y = ref_sublayer(P, norm, l + 1, dec_layers, L + "_enc_attn_connection", y,
                     [&](const torch::Tensor& h) {
                       return ref_cross_attention(P, L + "_enc_attn", h, memory, pad);
                     });
    y = ref_sublayer(P, norm, l + 1, dec_layers, L + "_ffn_connection", y,
                     [&](const torch::Tensor& h) { return ref_ffn(P, L + "_ffn", h); });
  }
  y = ref_final(P, norm, dec_layers, "decoder.decoder_final_norm", y);
  return torch::matmul(y, E.t());
}

// Two source rows, the second padded; two target prefixes (bos = 2 first).
inline torch::Tensor sample_source() {
  return torch::tensor({{5, 9, 4, 11, 7, 3}, {8, 6, 13, 3, 0, 0}}, torch::kInt64);
}
inline torch::Tensor sample_target_in() {
  return torch::tensor({{2, 12, 5, 17, 9}, {2, 4, 4, 10, 0}}, torch::kInt64);
}

inline double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

}  // namespace fathom::model_reference
