// Tests for the Transformer (core/model): masks, the Post-LN / Pre-LN computation order against
// a hand-written reference built from plain tensor ops (methods.md s1-2), parameter counts
// against a hand formula, and the sub-layer observer hooks. Tiny models on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/model/embedding.h"
#include "core/model/observer.h"
#include "core/model/transformer.h"
#include "tests/support/model_reference.h"

using namespace fathom;

namespace test_model {

using namespace fathom::model_reference;

// The position table is the fairseq layout: sin on the first d/2 channels, cos on the rest,
// frequency of channel i = 10000^(-i/(d/2-1)). Checked entry by entry with std::sin/std::cos;
// a swapped half, a wrong exponent or an off-by-one in the position would fail.
TEST(Model, SinusoidalPositionsMatchTheFormula) {
  const int64_t d = 8, half = 4;
  torch::Tensor table = sinusoidal_positions(6, d);
  ASSERT_EQ(table.sizes(), (std::vector<int64_t>{6, d}));
  for (int64_t p = 0; p < 6; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double freq = std::pow(10000.0, -static_cast<double>(i) / (half - 1));
      EXPECT_NEAR(table[p][i].item<double>(), std::sin(p * freq), 1e-6);
      EXPECT_NEAR(table[p][half + i].item<double>(), std::cos(p * freq), 1e-6);
    }
}

// Causal mask: logits at positions < t cannot depend on the decoder input at t (or later);
// position t itself must. Fails if the mask is missing, off by one (hides t itself or shows
// t+1), or transposed. Run in eval mode with dropout 0.1 configured: eval must disable it.
TEST(Model, DecoderSelfAttentionIsCausal) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    Transformer model = build_model(tiny_config(norm, 2, 2, /*dropout=*/0.1), kVocab, 3);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor source = sample_source();
    const torch::Tensor target = sample_target_in();
    const torch::Tensor base = model->forward(source, target);
    const int64_t T = target.size(1);
    for (int64_t t = 1; t < T; ++t) {
      torch::Tensor changed = target.clone();
      changed[0][t] = (changed[0][t].item<int64_t>() + 5) % kVocab == 0
                          ? 1
                          : (changed[0][t].item<int64_t>() + 5) % kVocab;
      const torch::Tensor logits = model->forward(source, changed);
      // Row 0, positions before t: unchanged.
      EXPECT_LT(max_abs_diff(logits[0].slice(0, 0, t), base[0].slice(0, 0, t)), 1e-6)
          << "position < " << t << " saw the token at " << t;
      // Row 0, position t: changed.
      EXPECT_GT(max_abs_diff(logits[0][t], base[0][t]), 1e-4) << "position " << t;
      // Row 1 is another sentence: untouched.
      EXPECT_LT(max_abs_diff(logits[1], base[1]), 1e-6);
    }
  }
}

// Key padding: extra padding columns on the source change nothing for the real tokens, and
// whatever the memory holds at padded positions cannot reach the decoder. Fails if the
// key-padding mask is missing from encoder self-attention or from encoder attention.
TEST(Model, PaddedSourcePositionsAreInvisible) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    Transformer model = build_model(tiny_config(norm, 2, 2), kVocab, 4);
    perturb(model, 11);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor short_source = torch::tensor({{8, 6, 13, 3}}, torch::kInt64);
    const torch::Tensor long_source = torch::tensor({{8, 6, 13, 3, 0, 0, 0}}, torch::kInt64);
    const torch::Tensor target = torch::tensor({{2, 4, 9, 10}}, torch::kInt64);
    const torch::Tensor enc_short = model->encode(short_source);
    const torch::Tensor enc_long = model->encode(long_source);
    EXPECT_LT(max_abs_diff(enc_long.slice(1, 0, 4), enc_short), 1e-5);
    EXPECT_LT(
        max_abs_diff(model->forward(long_source, target), model->forward(short_source, target)),
        1e-5);

    // Overwrite the memory at the padded positions with large noise: logits unchanged.
    const torch::Tensor padding = long_source.eq(0);
    const torch::Tensor logits = model->decode(target, enc_long, padding);
    torch::Tensor noisy = enc_long.clone();
    noisy.slice(1, 4, 7).copy_(50 * torch::randn({1, 3, kD}));
    EXPECT_LT(max_abs_diff(model->decode(target, noisy, padding), logits), 1e-6);
    // Sanity: the same noise on a real position does change the logits.
    torch::Tensor noisy_real = enc_long.clone();
    noisy_real.slice(1, 0, 1).copy_(50 * torch::randn({1, 1, kD}));
    EXPECT_GT(max_abs_diff(model->decode(target, noisy_real, padding), logits), 1e-3);
  }
}

// Dropout is active in train mode and off in eval mode (two eval passes agree exactly, two
// train passes do not). Fails if dropout ignores is_training() or is never applied.
TEST(Model, DropoutFollowsTrainEvalMode) {
  Transformer model = build_model(tiny_config("post", 1, 1, /*dropout=*/0.3), kVocab, 5);
  torch::NoGradGuard no_grad;
  model->train();
  const torch::Tensor a = model->forward(sample_source(), sample_target_in());
  const torch::Tensor b = model->forward(sample_source(), sample_target_in());
  EXPECT_GT(max_abs_diff(a, b), 1e-4);
  model->eval();
  const torch::Tensor c = model->forward(sample_source(), sample_target_in());
  const torch::Tensor d = model->forward(sample_source(), sample_target_in());
  EXPECT_TRUE(torch::equal(c, d));
}

// Post-LN (x_k = LN(x_{k-1} + f_k)) and Pre-LN (x_k = x_{k-1} + f_k(LN(x_{k-1})) + final LN)
// against the hand-written reference above, built only from the model's parameter tensors.
// Fails if a LayerNorm is in the wrong place, the final LN is missing or extra, Q/K/V are
// split in another order, the attention scale, heads, masks, embedding scale, positions or the
// tied output projection differ from methods.md s1-2. Parameters are perturbed first so that
// gamma/beta/biases matter. Run for 1+1, 2+2 and 3+3 layers (stacking order; lns's 1/sqrt(l)
// and mix's split need several layers), for every style of model.norm.
TEST(Model, MatchesHandWrittenReference) {
  for (const std::string& norm : kNorms) {
    for (int layers : {1, 2, 3}) {
      SCOPED_TRACE(norm + " layers " + std::to_string(layers));
      Transformer model = build_model(tiny_config(norm, layers, layers), kVocab, 7);
      perturb(model, 100 + layers);
      model->eval();
      torch::NoGradGuard no_grad;
      const Params P(model);
      const torch::Tensor source = sample_source(), target = sample_target_in();

      const torch::Tensor enc = model->encode(source);
      const torch::Tensor enc_ref = ref_encode(P, norm, layers, source);
      ASSERT_EQ(enc.sizes(), enc_ref.sizes());
      // Padded query rows are garbage by design but must still agree (same computation).
      EXPECT_LT(max_abs_diff(enc, enc_ref), 1e-5);

      const torch::Tensor logits = model->forward(source, target);
      const torch::Tensor logits_ref = ref_forward(P, norm, layers, layers, source, target);
      ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 5, kVocab}));
      EXPECT_LT(max_abs_diff(logits, logits_ref),
                1e-4 * (1 + logits_ref.abs().max().item<double>()));
    }
  }
}

// The two orders really differ (guards the reference test against a model that ignores
// model.norm): the same parameters give different encoder outputs under post and pre.
TEST(Model, PostAndPreDiffer) {
  Transformer post = build_model(tiny_config("post"), kVocab, 7);
  Transformer pre = build_model(tiny_config("pre"), kVocab, 7);
  torch::NoGradGuard no_grad;
  post->eval();
  pre->eval();
  EXPECT_GT(max_abs_diff(post->encode(sample_source()), pre->encode(sample_source())), 1e-3);
}

// parameter_counts(): "total" is the number of distinct parameter elements, and matches a hand
// formula. Per encoder layer: self-attention 4d^2+4d (qkv 3d^2+3d, out d^2+d), FFN
// 2*d*d_ff + d_ff + d, two LNs 2*2d. Per decoder layer: two attentions 2*(4d^2+4d), FFN as
// above, three LNs 3*2d. Pre-LN adds one final LN (2d) per stack. Peri-LN doubles the LNs;
// DyT has gamma and beta where LN has them, plus one alpha per DyT. Embeddings: V*d once when
// shared and tied; 3*V*d with separate source, target and output matrices.
// Fails if a shared tensor is counted twice, or a module is missing/extra.
TEST(Model, ParameterCountsMatchHandFormula) {
  const int64_t d = kD, f = kFf, V = kVocab;
  const int64_t attention = 4 * d * d + 4 * d;
  const int64_t ffn = 2 * d * f + f + d;
  for (const std::string& norm : kNorms) {
    for (bool shared : {true, false}) {
      SCOPED_TRACE(norm + (shared ? " shared" : " separate"));
      const int64_t N = 2, M = 3;
      RunConfig config = tiny_config(norm, N, M);
      config.model.share_embeddings = shared;
      config.model.tie_decoder_embeddings = shared;
      Transformer model = build_model(config, V, 1);
      const auto counts = model->parameter_counts();

      std::set<const void*> seen;
      int64_t unique = 0;
      for (const auto& p : model->parameters())
        if (seen.insert(p.unsafeGetTensorImpl()).second) unique += p.numel();

      const int64_t embeddings = (shared ? 1 : 3) * V * d;
      // peri has two LNs per sub-layer; every style but post ends each stack with a final
      // norm (mix: its last layers are pre); dyt's gamma and beta count as norms, its alpha
      // (one scalar per DyT) on its own.
      const int64_t per_sublayer = (norm == "peri" ? 2 : 1) * 2 * d;
      const int64_t finals = norm == "post" ? 0 : 2;
      const int64_t norms = (N * 2 + M * 3) * per_sublayer + finals * 2 * d;
      const int64_t dyt_alphas = norm == "dyt" ? N * 2 + M * 3 + finals : 0;
      const int64_t expected =
          embeddings + N * (attention + ffn) + M * (2 * attention + ffn) + norms + dyt_alphas;
      EXPECT_EQ(counts.at("total"), unique);
      EXPECT_EQ(counts.at("total"), expected);
      EXPECT_EQ(counts.at("embeddings"), embeddings);
      EXPECT_EQ(counts.at("attention"), N * attention + M * 2 * attention);
      EXPECT_EQ(counts.at("ffn_lstm"), (N + M) * ffn);
      EXPECT_EQ(counts.at("norms"), norms);
      EXPECT_EQ(counts.count("dyt_alpha") ? counts.at("dyt_alpha") : 0, dyt_alphas);
      EXPECT_EQ(counts.at("other"), 0);
    }
  }
}

struct Record {
  SublayerId id;
  torch::Tensor input, branch, output;
};

// Records every sub-layer call; optionally multiplies every branch by `scale`.
class Recorder : public SublayerObserver {
 public:
  explicit Recorder(double scale = 1.0) : scale_(scale) {}
  torch::Tensor transform_branch(const SublayerId& id, torch::Tensor branch) override {
    return scale_ == 1.0 ? branch : branch * scale_;
  }
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    records.push_back({id, trace.input, trace.branch, trace.output});
  }
  std::vector<Record> records;

 private:
  double scale_;
};

// The observer sees every sub-layer once, in forward order: 2N encoder sub-layers (self-attn,
// FFN per layer) then 3M decoder sub-layers (self-attn, enc-attn, FFN), each output being the
// next one's input; the first input is the embedding and the last output is the stack output
// (before the final LN for pre). Fails if a connection does not report, reports twice, in the
// wrong order or with a wrong id, or reports tensors other than the ones on the residual path.
TEST(Model, ObserverSeesSublayersInOrder) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    const int N = 2, M = 2;
    Transformer model = build_model(tiny_config(norm, N, M), kVocab, 9);
    perturb(model, 12);
    model->eval();
    torch::NoGradGuard no_grad;
    Recorder recorder;
    model->hooks().observer = &recorder;
    const torch::Tensor logits = model->forward(sample_source(), sample_target_in());
    const torch::Tensor memory = model->encode(sample_source());
    model->hooks().observer = nullptr;
    // forward() then encode(): 2N + 3M + 2N records.
    ASSERT_EQ(recorder.records.size(), static_cast<size_t>(2 * N + 3 * M + 2 * N));
    const Params P(model);

    const SublayerKind enc_kinds[] = {SublayerKind::SelfAttention, SublayerKind::FeedForward};
    const SublayerKind dec_kinds[] = {SublayerKind::SelfAttention, SublayerKind::EncoderAttention,
                                      SublayerKind::FeedForward};
    for (int k = 0; k < 2 * N; ++k) {
      const SublayerId& id = recorder.records[k].id;
      EXPECT_EQ(id.stack, Stack::Encoder);
      EXPECT_EQ(id.index, k);
      EXPECT_EQ(id.layer, k / 2);
      EXPECT_EQ(id.kind, enc_kinds[k % 2]);
    }
    for (int k = 0; k < 3 * M; ++k) {
      const SublayerId& id = recorder.records[2 * N + k].id;
      EXPECT_EQ(id.stack, Stack::Decoder);
      EXPECT_EQ(id.index, k);
      EXPECT_EQ(id.layer, k / 3);
      EXPECT_EQ(id.kind, dec_kinds[k % 3]);
    }
    // Chaining within each stack.
    for (int k = 0; k + 1 < 2 * N; ++k)
      EXPECT_TRUE(torch::equal(recorder.records[k].output, recorder.records[k + 1].input)) << k;
    for (int k = 2 * N; k + 1 < 2 * N + 3 * M; ++k)
      EXPECT_TRUE(torch::equal(recorder.records[k].output, recorder.records[k + 1].input)) << k;
    // Residual arithmetic: pre: output = input + branch exactly.
    if (norm == "pre") {
      for (int k = 0; k < 2 * N + 3 * M; ++k)
        EXPECT_LT(max_abs_diff(recorder.records[k].output,
                               recorder.records[k].input + recorder.records[k].branch),
                  1e-6);
    }
    // Ends: the embeddings go in, the stack output comes out.
    EXPECT_LT(
        max_abs_diff(recorder.records[0].input, ref_embed(P("source_embedding"), sample_source())),
        1e-5);
    EXPECT_LT(max_abs_diff(recorder.records[2 * N].input,
                           ref_embed(P("source_embedding"), sample_target_in())),
              1e-5);
    torch::Tensor enc_last = recorder.records[2 * N - 1].output;
    if (norm == "pre")
      enc_last = ref_ln(enc_last, P("encoder.encoder_final_norm.ln.weight"),
                        P("encoder.encoder_final_norm.ln.bias"));
    EXPECT_LT(max_abs_diff(enc_last, memory), 1e-5);
  }
}

// With every branch multiplied by 0 through transform_branch, each sub-layer is the identity
// (pre: x + 0) or just its LayerNorm (post: LN(x + 0)). So the Pre-LN encoder output is
// final_norm(embedding) and the Post-LN encoder output is LN_{2N}(...LN_1(embedding)); the
// Pre-LN logits are final_norm(target embedding) @ E^T. Fails if the transformed branch is not
// what meets the shortcut, or if the shortcut/LN structure differs from methods.md s2.
TEST(Model, ZeroBranchObserverLeavesTheShortcut) {
  const int N = 2, M = 2;
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    Transformer model = build_model(tiny_config(norm, N, M), kVocab, 13);
    perturb(model, 14);
    model->eval();
    torch::NoGradGuard no_grad;
    const Params P(model);
    Recorder zero(0.0);
    model->hooks().observer = &zero;
    const torch::Tensor enc = model->encode(sample_source());
    const torch::Tensor logits = model->forward(sample_source(), sample_target_in());
    model->hooks().observer = nullptr;

    for (const auto& r : zero.records) EXPECT_EQ(r.branch.abs().max().item<double>(), 0.0);

    const torch::Tensor E = P("source_embedding");
    torch::Tensor expected = ref_embed(E, sample_source());
    if (norm == "pre") {
      expected = ref_ln(expected, P("encoder.encoder_final_norm.ln.weight"),
                        P("encoder.encoder_final_norm.ln.bias"));
      torch::Tensor y =
          ref_ln(ref_embed(E, sample_target_in()), P("decoder.decoder_final_norm.ln.weight"),
                 P("decoder.decoder_final_norm.ln.bias"));
      EXPECT_LT(max_abs_diff(logits, torch::matmul(y, E.t())), 1e-4);
    } else {
      for (int l = 0; l < N; ++l)
        for (const char* sub : {"_self_attn_connection", "_ffn_connection"}) {
          const std::string ln = "encoder.layer" + std::to_string(l) + sub + ".post_norm.ln";
          expected = ref_ln(expected, P(ln + ".weight"), P(ln + ".bias"));
        }
    }
    EXPECT_LT(max_abs_diff(enc, expected), 1e-5);
    // And the zeroed model really differs from the normal one.
    EXPECT_GT(max_abs_diff(enc, model->encode(sample_source())), 1e-3);
  }
}

}  // namespace test_model
