// Tests for core/train/training_flops.h: the forward FLOP rates of a model against the closed
// form of Kaplan et al. 2020 (section 2.1) written out by hand for the encoder-decoder and the
// decoder-only Transformer, a shared module counted once per layer it runs in (compute, not
// parameters), a gate's projection, hyper-connections' stream products, and a batch's training
// FLOPs summed row by row.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/batch.h"
#include "core/data/example.h"
#include "core/data/token_pairs.h"
#include "core/model/transformer.h"
#include "core/train/training_flops.h"

using namespace fathom;

namespace test_training_flops {

constexpr int64_t kVocab = 20;
constexpr double kD = 16, kF = 32;

RunConfig plain(int encoder_layers, int decoder_layers) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = encoder_layers;
  c.model.decoder_layers = decoder_layers;
  return c;
}

FlopRates rates_of(const RunConfig& c) {
  Transformer model = build_model(c, kVocab, 1);
  return forward_flop_rates(*model);
}

// Per layer, forward, multiply-add = 2: encoder Q, K, V, output (4 d^2 weights) and the FFN
// (2 d f) read source tokens; the decoder's self-attention (4 d^2), its cross-attention's Q and
// output (2 d^2) and FFN (2 d f) read target tokens, the cross-attention's K and V (2 d^2)
// source tokens; QK^T and PV cost 2 d each per query-key pair; the tied output projection
// 2 d V per target token.
TEST(TrainingFlops, AnEncoderDecoderFollowsTheHandCount) {
  const double le = 2, ld = 3, d = kD, f = kF, v = kVocab;
  const FlopRates r = rates_of(plain(2, 3));
  EXPECT_DOUBLE_EQ(r.per_source, le * (8 * d * d + 4 * d * f) + ld * 4 * d * d);
  EXPECT_DOUBLE_EQ(r.per_target, ld * (12 * d * d + 4 * d * f) + 2 * d * v);
  EXPECT_DOUBLE_EQ(r.source_pairs, le * 4 * d);
  EXPECT_DOUBLE_EQ(r.target_pairs, ld * 4 * d);
  EXPECT_DOUBLE_EQ(r.cross_pairs, ld * 4 * d);
}

TEST(TrainingFlops, ADecoderOnlyModelHasTargetTermsOnly) {
  RunConfig c = plain(0, 4);
  c.model.arch = "decoder_only";
  const FlopRates r = rates_of(c);
  const double ld = 4, d = kD, f = kF, v = kVocab;
  EXPECT_DOUBLE_EQ(r.per_source, 0);
  EXPECT_DOUBLE_EQ(r.per_target, ld * (8 * d * d + 4 * d * f) + 2 * d * v);
  EXPECT_DOUBLE_EQ(r.target_pairs, ld * 4 * d);
  EXPECT_DOUBLE_EQ(r.source_pairs + r.cross_pairs, 0);
}

// The depth-wise LSTM's shared gates are one parameter tensor that every layer runs: sharing
// changes the parameters, not the compute.
TEST(TrainingFlops, ASharedModuleCostsOncePerLayerItRunsIn) {
  RunConfig shared = plain(3, 2), own = plain(3, 2);
  for (RunConfig* c : {&shared, &own}) c->model.connection = "depthwise_lstm";
  shared.model.lstm.share = "all";
  own.model.lstm.share = "none";
  Transformer a = build_model(shared, kVocab, 1), b = build_model(own, kVocab, 1);
  ASSERT_LT(a->parameter_counts().at("total"), b->parameter_counts().at("total"));
  const FlopRates ra = forward_flop_rates(*a), rb = forward_flop_rates(*b);
  EXPECT_DOUBLE_EQ(ra.per_source, rb.per_source);
  EXPECT_DOUBLE_EQ(ra.per_target, rb.per_target);
  EXPECT_DOUBLE_EQ(ra.source_pairs, rb.source_pairs);
  // Each of the 3 encoder layers' LSTM step (gates 2d -> 3d, hidden 2d -> f -> d: 6 d^2 +
  // 3 d f weights) in place of the FFN (2 d f): 2 (6 d^2 + d f) more per source token.
  const FlopRates residual = rates_of(plain(3, 2));
  const double d = kD, f = kF;
  EXPECT_DOUBLE_EQ(ra.per_source - residual.per_source, 3 * (2 * 6 * d * d + 2 * d * f));
}

TEST(TrainingFlops, AnElementwiseAttentionGateAddsItsProjection) {
  RunConfig gated = plain(2, 2);
  gated.model.attention_gate = "elementwise";  // d -> d per attention sub-layer
  const FlopRates g = rates_of(gated), r = rates_of(plain(2, 2));
  const double d = kD;
  EXPECT_DOUBLE_EQ(g.per_source - r.per_source, 2 * 2 * d * d);  // 2 encoder self-attentions
  EXPECT_DOUBLE_EQ(g.per_target - r.per_target, 4 * 2 * d * d);  // 2 self + 2 cross
}

// Hyper-connections' products beyond the linears, per token and sub-layer, counted from the
// shapes the forward pass multiplies (core/model/hyper_connection.cpp): the dynamic weights
// LN(H) [n, d] x [d, n + 2], the read a [n] . H [n, d], the mixing M [n, n] x H [n, d], the write
// b [n] x f [d]. Against the same Pre-LN model with one residual stream (the stream norm and the
// static weights are no products), for both variants and two stream counts.
TEST(TrainingFlops, HyperConnectionsAddTheirStreamProductsPerSublayer) {
  for (const std::string variant : {"hyper", "mhc"})
    for (const int n : {1, 4}) {
      SCOPED_TRACE(variant + " n=" + std::to_string(n));
      RunConfig base = plain(2, 3);
      base.model.norm = "pre";
      RunConfig hc = base;
      hc.model.connection = variant;
      hc.model.hc_streams = n;
      const FlopRates h = rates_of(hc), r = rates_of(base);
      const double d = kD, macs = n * d * (n + 2) + n * d + n * n * d + n * d;
      EXPECT_DOUBLE_EQ(h.per_source - r.per_source, 2 * 2 * 2 * macs);  // 2 layers x 2 sub-layers
      EXPECT_DOUBLE_EQ(h.per_target - r.per_target, 3 * 3 * 2 * macs);  // 3 layers x 3
      EXPECT_DOUBLE_EQ(h.source_pairs, r.source_pairs);
      EXPECT_DOUBLE_EQ(h.target_pairs, r.target_pairs);
      EXPECT_DOUBLE_EQ(h.cross_pairs, r.cross_pairs);
    }
  RunConfig lm = plain(0, 2);  // decoder-only: every sub-layer reads target tokens
  lm.model.arch = "decoder_only";
  lm.model.norm = "pre";
  RunConfig hc_lm = lm;
  hc_lm.model.connection = "hyper";
  hc_lm.model.hc_streams = 4;
  const double d = kD, n = 4;
  EXPECT_DOUBLE_EQ(rates_of(hc_lm).per_target - rates_of(lm).per_target,
                   2 * 2 * 2 * (2 * n * n + 4 * n) * d);
  EXPECT_DOUBLE_EQ(rates_of(hc_lm).per_source, 0);
}

// Three rows of different lengths: 3 x the forward sum over rows, pad positions left out, and
// the same from a batch another rank trains on (count_only: no tensors).
TEST(TrainingFlops, ABatchCostsItsRowsSummedOverTheirOwnLengths) {
  const std::vector<Example> examples = {make_example({5, 6, 7}, {5, 6}),
                                         make_example({5, 6, 7, 8, 9, 10}, {5, 6, 7, 8}),
                                         make_example({5}, {5, 6, 7, 8, 9, 10, 11})};
  const TokenPairs pairs = TokenPairs::from_examples(examples);
  const std::vector<size_t> ids = {0, 1, 2};
  const Batch b = collate(pairs, ids, /*pad_multiple=*/8);
  const FlopRates r{100, 1000, 3, 7, 11};
  double expected = 0;
  for (const Example& e : examples) {
    const double s = e.src.size(), t = e.tgt.size();  // eos included, pads not
    expected += 3 * (100 * s + 1000 * t + 3 * s * s + 7 * t * t + 11 * s * t);
  }
  EXPECT_DOUBLE_EQ(training_flops(r, b), expected);
  EXPECT_DOUBLE_EQ(training_flops(r, count_only(pairs, ids)), expected);
}

}  // namespace test_training_flops
