#pragma once
// Named model sizes and their fixed synthetic batch for the training-step benchmarks
// (bench_train, bench_vs_reference), and the FLOP count of one training step.
// bench/reference/train_step.py keeps the same table (the driver passes every field to it).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/batch.h"
#include "core/data/vocab.h"

namespace fathom::bench {

struct TrainSize {
  std::string name;
  int d_model, heads, d_ff, encoder_layers, decoder_layers;
  int64_t vocab;
  int64_t rows, src_len, tgt_len;  // one batch: rows x src_len source, rows x tgt_len target
  const char* meant_for;           // "cpu" or "gpu" (the GPU sizes are too slow on 2 cores)
  // A decoder-only language model (model.arch): no encoder, no source (src_len 0), each row
  // tgt_len tokens of one sequence; decoder_layers is its one stack's depth.
  bool decoder_only = false;
};

// Token budget per batch: rows * max(src_len, tgt_len) = 2040 (tiny), 4096 (small), 8192 (the
// GPU sizes: 4096 leaves an H100 idle between kernels; fairseq's Transformer-big recipes use
// 3584-5120 tokens per GPU with gradient accumulation, i.e. more per update).
inline const std::vector<TrainSize>& train_sizes() {
  static const std::vector<TrainSize> sizes{
      {"tiny", 64, 4, 256, 2, 2, 40, 204, 10, 10, "cpu"},
      {"small", 256, 4, 1024, 3, 3, 8000, 256, 16, 16, "cpu"},
      {"base", 512, 8, 2048, 6, 6, 32000, 256, 32, 32, "gpu"},      // 6L-6L
      {"big", 1024, 16, 4096, 6, 6, 32000, 256, 32, 32, "gpu"},     // Transformer-big, 6L-6L
      {"deep18", 512, 8, 2048, 18, 18, 32000, 256, 32, 32, "gpu"},  // 18L-18L
      {"deep60", 512, 8, 2048, 60, 12, 32000, 256, 32, 32, "gpu"},  // 60L-12L
      // Decoder-only language models (issue 39): the same token budgets in one stack.
      {"lm-tiny", 64, 4, 256, 0, 4, 40, 102, 0, 20, "cpu", true},
      {"lm-small", 256, 4, 1024, 0, 6, 8000, 128, 0, 32, "cpu", true},
      {"lm-base", 512, 8, 2048, 0, 12, 32000, 128, 0, 64, "gpu", true},
  };
  return sizes;
}

inline TrainSize find_train_size(const std::string& name) {
  for (const auto& s : train_sizes())
    if (s.name == name) return s;
  std::string names;
  for (const auto& s : train_sizes()) names += (names.empty() ? "" : ", ") + s.name;
  throw std::invalid_argument("unknown size '" + name + "' (" + names + ")");
}

// Fathom's defaults (Post-LN, xavier, dropout 0.1, tied and shared embeddings) at this size.
inline RunConfig size_config(const TrainSize& s, const std::string& norm,
                             const std::string& fused_attention = "auto") {
  RunConfig config;
  config.model.fused_attention = fused_attention;
  config.model.d_model = s.d_model, config.model.heads = s.heads, config.model.d_ff = s.d_ff;
  if (s.decoder_only)
    config.model.arch = "decoder_only";  // encoder_layers stays at its default, unread
  else
    config.model.encoder_layers = s.encoder_layers;
  config.model.decoder_layers = s.decoder_layers;
  // "pre:hyper", "pre:mhc": a residual style after the norm, with Zhu et al.'s 4 streams;
  // "pre:depthwise_lstm": another connection, one stream.
  const auto colon = norm.find(':');
  config.model.norm = norm.substr(0, colon);
  if (colon != std::string::npos) {
    config.model.connection = norm.substr(colon + 1);
    const bool streams = config.model.connection == "hyper" || config.model.connection == "mhc";
    if (streams) config.model.hc_streams = 4;
  }
  return config;
}

// The benchmark batch: torch seed 0, then per row src_len-1 source (none for a decoder-only
// size) and tgt_len-1 target ids drawn from [4, vocab), eos appended (no padding).
// train_step.py draws the same ids.
inline Batch make_size_batch(const TrainSize& s) {
  torch::manual_seed(0);
  std::vector<Example> examples;
  auto ids = [](const torch::Tensor& t) {
    return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
  };
  for (int64_t i = 0; i < s.rows; ++i) {
    if (s.decoder_only) {  // one sequence, eos-ended, as core/data/lm_text.h makes them
      auto tgt = ids(torch::randint(4, s.vocab, {s.tgt_len - 1}, torch::kInt64));
      tgt.push_back(kEosId);
      examples.push_back(Example{{}, tgt});
      continue;
    }
    auto src = torch::randint(4, s.vocab, {s.src_len - 1}, torch::kInt64);
    auto tgt = torch::randint(4, s.vocab, {s.tgt_len - 1}, torch::kInt64);
    examples.push_back(make_example(ids(src), ids(tgt)));
  }
  std::vector<size_t> order(examples.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  return collate(examples, order);
}

// FLOPs of one training step per target token (multiply-add = 2 FLOPs; matrix products
// only: embeddings, LayerNorm, softmax, dropout, loss and optimizer are left out). With
// d = d_model, f = d_ff, S/T = source/target length, Le/Ld = encoder/decoder layers:
//   forward per source token  Le * (8d^2 + 4df + 4Sd)      encoder: Q/K/V/out, FFN, QK^T and PV
//                           + Ld * 4d^2                    decoder's K/V projections of the memory
//   forward per target token  Ld * (12d^2 + 4df + 4Td + 4Sd)  self Q/K/V/out, cross Q/out, FFN,
//                                                              self and cross QK^T, PV
//                           + 2dV                          output projection (tied embedding)
//   decoder-only (S = 0, no encoder, no cross-attention):
//   forward per target token  Ld * (8d^2 + 4df + 4Td) + 2dV
//   training = 3 * forward (backward: two products per forward product, for the input and the
//   weight gradients), divided by the batch's target tokens, which are also the tokens that
//   tokens/s counts (fairseq's wps). Attention is counted over the full T x T (causal) and
//   T x S score matrices, as computed. This is 2 * (non-embedding parameters touched per
//   token) + the attention terms + the output projection, times 3.
inline double train_flops_per_target_token(const TrainSize& s) {
  const double d = s.d_model, f = s.d_ff, S = double(s.src_len), T = double(s.tgt_len);
  const double Le = s.encoder_layers, Ld = s.decoder_layers, V = double(s.vocab);
  const double per_source = Le * (8 * d * d + 4 * d * f + 4 * S * d) + Ld * 4 * d * d;
  const double per_target = s.decoder_only
                                ? Ld * (8 * d * d + 4 * d * f + 4 * T * d) + 2 * d * V
                                : Ld * (12 * d * d + 4 * d * f + 4 * T * d + 4 * S * d) + 2 * d * V;
  const double forward = S * per_source + T * per_target;  // per row of the batch
  return 3 * forward / T;
}

}  // namespace fathom::bench
