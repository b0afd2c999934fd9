// Incremental decoding (core/model/decoding_cache.h): with a DecodingCache the decoder reads
// only the new token, attention the cached keys and values of the past. Checked against the
// decoder reading the whole prefix (the definition), step by step, for every stack kind whose
// layers could hold anything across positions besides attention -- residual styles, Admin,
// the depth-wise LSTM, hyper-connections, QK-norm and gated attention, DyT, a decoder-only
// model -- and through greedy and beam search, whose beams reorder the cache; refusals where
// the cache cannot apply.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/vocab.h"
#include "core/decode/search.h"
#include "core/model/decoding_cache.h"
#include "core/model/transformer.h"

namespace fathom {
namespace test_incremental_decoding {

constexpr int64_t kVocab = 17, kRows = 3, kSource = 6, kSteps = 7;

struct Variant {
  std::string name;
  std::function<void(ModelConfig&)> set;
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all{
      {"post", [](ModelConfig&) {}},
      {"pre", [](ModelConfig& m) { m.norm = "pre"; }},
      {"deepnorm", [](ModelConfig& m) { m.init = "deepnorm"; }},
      {"depthwise_lstm", [](ModelConfig& m) { m.connection = "depthwise_lstm"; }},
      {"hyper", [](ModelConfig& m) { m.norm = "pre", m.connection = "hyper", m.hc_streams = 4; }},
      {"mhc", [](ModelConfig& m) { m.norm = "pre", m.connection = "mhc", m.hc_streams = 4; }},
      {"qk_norm + gate", [](ModelConfig& m) { m.qk_norm = true, m.attention_gate = "headwise"; }},
      {"dyt", [](ModelConfig& m) { m.norm = "dyt"; }},
      {"decoder-only", [](ModelConfig& m) { m.arch = "decoder_only"; }},
      {"decoder-only depthwise_lstm",
       [](ModelConfig& m) { m.arch = "decoder_only", m.connection = "depthwise_lstm"; }},
  };
  return all;
}

RunConfig config_of(const Variant& v) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  v.set(c.model);
  return c;
}

// Parameters moved away from their init, so every part of the model matters to the logits.
Transformer perturbed_model(const Variant& v) {
  Transformer model = build_model(config_of(v), kVocab, 5);
  torch::NoGradGuard no_grad;
  torch::manual_seed(6);
  for (auto& p : model->parameters()) p.add_(0.3 * torch::randn_like(p));
  // eos's output row zeroed, so outputs run long enough for beams to reorder (no input here
  // holds eos, so only its logit changes).
  for (auto& p : model->named_parameters())
    if (p.key().find("embedding") != std::string::npos || p.key() == "output_projection")
      p.value()[kEosId].zero_();
  model->eval();
  return model;
}

struct Inputs {
  torch::Tensor source, memory, padding, target;  // target [kRows, kSteps], bos first
};

Inputs inputs(TransformerImpl& model) {
  torch::manual_seed(7);
  Inputs in;
  in.target = torch::randint(4, kVocab, {kRows, kSteps}, torch::kLong);
  in.target.select(1, 0).fill_(kBosId);
  if (is_decoder_only(model.config())) return in;
  in.source = torch::randint(4, kVocab, {kRows, kSource}, torch::kLong);
  in.source.index_put_({1, torch::indexing::Slice(4, torch::indexing::None)}, kPadId);
  in.memory = model.encode(in.source);
  in.padding = in.source.eq(kPadId);
  return in;
}

double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>() / std::max(1.0, b.abs().max().item<double>());
}

// The logits of every position, each read with the decoder over the prefix up to it.
std::vector<torch::Tensor> whole_prefix_logits(TransformerImpl& model, const Inputs& in) {
  std::vector<torch::Tensor> out;
  for (int64_t t = 0; t < kSteps; ++t)
    out.push_back(model.decode(in.target.slice(1, 0, t + 1), in.memory, in.padding).select(1, t));
  return out;
}

// The same positions through the cache: the first `prefill` tokens in one call, then one at a
// time.
std::vector<torch::Tensor> cached_logits(TransformerImpl& model, const Inputs& in,
                                         int64_t prefill) {
  DecodingCache cache;
  std::vector<torch::Tensor> out;
  const torch::Tensor first =
      model.decode(in.target.slice(1, 0, prefill), in.memory, in.padding, &cache);
  for (int64_t t = 0; t < prefill; ++t) out.push_back(first.select(1, t));
  for (int64_t t = prefill; t < kSteps; ++t) {
    EXPECT_EQ(cache.length(), t);
    out.push_back(
        model.decode(in.target.slice(1, t, t + 1), in.memory, in.padding, &cache).select(1, 0));
  }
  return out;
}

TEST(IncrementalDecoding, EachStepsLogitsAreTheWholePrefixs) {
  torch::NoGradGuard no_grad;
  for (const Variant& v : variants()) {
    SCOPED_TRACE(v.name);
    Transformer model = perturbed_model(v);
    const Inputs in = inputs(*model);
    const auto want = whole_prefix_logits(*model, in);
    for (int64_t prefill : {1, 3}) {
      const auto got = cached_logits(*model, in, prefill);
      ASSERT_EQ(got.size(), want.size());
      for (size_t t = 0; t < want.size(); ++t)
        EXPECT_LE(relative_difference(got[t], want[t]), 1e-5)
            << "position " << t << ", prefill " << prefill;
    }
    // Not vacuous: the logits depend on the earlier tokens (a cache that dropped the past would
    // differ from the whole prefix).
    const torch::Tensor last_alone =
        model->decode(in.target.slice(1, kSteps - 1, kSteps), in.memory, in.padding);
    EXPECT_GT(relative_difference(last_alone.select(1, 0), want.back()), 1e-3);
  }
}

// Beam search reorders the cache's rows at every step (a beam continues another row's
// prefix); greedy and beam outputs with the cache are those without it.
TEST(IncrementalDecoding, SearchesFindTheSameOutputsWithAndWithoutTheCache) {
  for (const Variant& v : variants()) {
    if (is_decoder_only(config_of(v).model)) continue;  // no search over a source
    SCOPED_TRACE(v.name);
    Transformer model = perturbed_model(v);
    const Inputs in = inputs(*model);
    for (int beam : {1, 4}) {
      SearchOptions options;
      options.beam = beam;
      options.incremental = false;
      const auto want = search(*model, in.source, options);
      options.incremental = true;
      EXPECT_EQ(search(*model, in.source, options), want) << "beam " << beam;
      size_t tokens = 0;
      for (const auto& row : want) tokens += row.size();
      EXPECT_GT(tokens, size_t(kRows * 4)) << "outputs too short to say anything";
    }
  }
}

TEST(IncrementalDecoding, RefusesTrainingModeAndSeveralTokensAfterTheFirstCall) {
  Transformer model = perturbed_model(variants()[0]);
  torch::NoGradGuard no_grad;
  const Inputs in = inputs(*model);
  DecodingCache cache;
  model->train();
  EXPECT_THROW(model->decode(in.target.slice(1, 0, 2), in.memory, in.padding, &cache),
               std::logic_error);
  model->eval();
  model->decode(in.target.slice(1, 0, 2), in.memory, in.padding, &cache);
  EXPECT_THROW(model->decode(in.target.slice(1, 2, 4), in.memory, in.padding, &cache),
               std::logic_error);
  EXPECT_EQ(model->hooks().decoding, nullptr) << "the cache stays installed after a call";
}

}  // namespace test_incremental_decoding
}  // namespace fathom
