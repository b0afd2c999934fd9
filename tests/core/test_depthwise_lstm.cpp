// Tests for `model.connection: depthwise_lstm` (Xu et al.; methods.md s4): the cell's gate,
// hidden and cell equations against plain double loops, the stacks' wiring against a
// composition of the model's own modules written from the spec, parameter sharing (one
// tensor), parameter counts against a closed form, causality, padding, observers, config
// checks and a few training steps. Tiny models on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/config/config.h"
#include "base/util/error.h"
#include "core/model/attention.h"
#include "core/model/depthwise_lstm_cell.h"
#include "core/model/embedding.h"
#include "core/model/observer.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"

using namespace fathom;

namespace test_depthwise_lstm {

constexpr int64_t kVocab = 20;
constexpr int kD = 16, kHeads = 2, kFf = 32;

RunConfig lstm_config(const std::string& hidden = "ffn", const std::string& merge = "add",
                      const std::string& share = "gates", int encoder_layers = 2,
                      int decoder_layers = 2, double dropout = 0.0) {
  RunConfig c;
  c.model.d_model = kD;
  c.model.heads = kHeads;
  c.model.d_ff = kFf;
  c.model.encoder_layers = encoder_layers;
  c.model.decoder_layers = decoder_layers;
  c.model.dropout = dropout;
  c.model.attention_dropout = 0.0;
  c.model.activation_dropout = 0.0;
  c.model.connection = "depthwise_lstm";
  c.model.lstm.hidden = hidden;
  c.model.lstm.merge = merge;
  c.model.lstm.share = share;
  return c;
}

// Moves every parameter away from its init (LN 1/0, biases 0) so misplaced ones show.
void perturb(Transformer& model, uint64_t seed) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed);
  for (auto& p : model->parameters()) p.add_(0.2 * torch::randn_like(p));
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

torch::Tensor sample_source() {
  return torch::tensor({{5, 9, 4, 11, 7, 3}, {8, 6, 13, 3, 0, 0}}, torch::kInt64);
}
torch::Tensor sample_target_in() {
  return torch::tensor({{2, 12, 5, 17, 9}, {2, 4, 4, 10, 0}}, torch::kInt64);
}

// A module of the model by its path, as the given type; fails loudly if missing.
template <typename Impl>
std::shared_ptr<Impl> module_at(Transformer& model, const std::string& path) {
  for (const auto& m : model->named_modules())
    if (m.key() == path) {
      auto typed = std::dynamic_pointer_cast<Impl>(m.value());
      if (!typed) throw std::runtime_error("module " + path + " has another type");
      return typed;
    }
  throw std::runtime_error("no module " + path);
}

// ---- plain double-loop versions of the equations (no torch ops) ----

using Vec = std::vector<double>;

Vec values(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kFloat64).contiguous().reshape({-1});
  return Vec(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// y = W x + b for W stored row-major [out, in]; rows [row0, row0 + out).
Vec affine(const Vec& W, const Vec& b, const Vec& x, size_t row0, size_t out) {
  Vec y(out);
  for (size_t r = 0; r < out; ++r) {
    double s = b[row0 + r];
    for (size_t k = 0; k < x.size(); ++k) s += W[(row0 + r) * x.size() + k] * x[k];
    y[r] = s;
  }
  return y;
}

// Population variance, eps 1e-5 inside the square root (torch's LayerNorm default).
Vec layer_norm(const Vec& x, const Vec& gamma, const Vec& beta) {
  double mean = 0, var = 0;
  for (double v : x) mean += v;
  mean /= x.size();
  for (double v : x) var += (v - mean) * (v - mean);
  var /= x.size();
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = (x[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i];
  return y;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// Fills every parameter with a fixed, distinct pattern (no RNG): 0.6 sin(0.37 k + 1.1 i + 0.2).
void fill_deterministic(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  int i = 0;
  for (auto& p : module.parameters()) {
    torch::Tensor k = torch::arange(p.numel(), torch::kFloat64);
    p.copy_((k * 0.37 + (1.1 * i + 0.2)).sin().mul(0.6).view_as(p));
    ++i;
  }
}

// One step of the cell against eqs. 2-10 written as loops: z = [a ; o_prev]; each gate is
// sigmoid(LN_g(rows g of the packed W z + b)); h = GeLU(LN(W_1 z + b_1)) ("lstm") or
// W_2 GeLU(LN(W_1 z + b_1)) + b_2 ("ffn", LN over d_ff); c = fg c_prev + ig h; o = og c.
// Both with a given c_prev and with c_0 = 0 (undefined). Fails if z is concatenated in the
// other order, a gate takes the wrong rows or one LN over all 3d, a LN is missing, the GeLU
// is the tanh approximation, or the cell/output equations differ.
TEST(DepthwiseLstm, CellMatchesHandComputedEquations) {
  const int d = 4, f = 6;
  for (const std::string hidden : {"ffn", "lstm"}) {
    SCOPED_TRACE(hidden);
    ParameterCatalog catalog;
    LstmSpec spec{d, f, hidden, 0.0, 0.0, nullptr};
    DepthwiseLstmCell cell(spec, "t.0.lstm", SublayerId{Stack::Encoder, 0, SublayerKind::Lstm, 1},
                           catalog);
    cell->to(torch::kFloat64);
    fill_deterministic(*cell);
    cell->eval();

    const torch::Tensor a =
        torch::tensor({{0.3, -1.2, 0.8, 0.1}, {1.5, 0.4, -0.6, -0.9}}, torch::kFloat64);
    const torch::Tensor o_prev =
        torch::tensor({{-0.7, 0.2, 1.1, -0.3}, {0.05, -1.4, 0.9, 0.6}}, torch::kFloat64);
    const torch::Tensor c_prev =
        torch::tensor({{0.9, -0.5, 0.2, 1.3}, {-1.1, 0.7, 0.4, -0.2}}, torch::kFloat64);

    const Vec Wg = values(cell->gates()->linear()->weight);
    const Vec bg = values(cell->gates()->linear()->bias);
    const Vec W1 = values(cell->hidden()->fc1()->weight), b1 = values(cell->hidden()->fc1()->bias);
    const Vec g1 = values(cell->hidden()->norm()->norm()->weight);
    const Vec be1 = values(cell->hidden()->norm()->norm()->bias);
    const bool ffn = hidden == "ffn";
    const Vec W2 = ffn ? values(cell->hidden()->fc2()->weight) : Vec();
    const Vec b2 = ffn ? values(cell->hidden()->fc2()->bias) : Vec();

    for (bool with_c : {true, false}) {
      SCOPED_TRACE(with_c ? "c_prev given" : "c_0 = 0");
      torch::NoGradGuard no_grad;
      const LstmState got = cell(a, o_prev, with_c ? c_prev : torch::Tensor());
      ASSERT_EQ(got.output.sizes(), a.sizes());
      for (int r = 0; r < 2; ++r) {
        const Vec av = values(a[r]), ov = values(o_prev[r]), cv = values(c_prev[r]);
        Vec z = av;
        z.insert(z.end(), ov.begin(), ov.end());
        Vec gate[3];
        for (int g = 0; g < 3; ++g) {
          const Vec pre = affine(Wg, bg, z, g * d, d);
          const Vec ln = layer_norm(pre, values(cell->gates()->norm(g)->norm()->weight),
                                    values(cell->gates()->norm(g)->norm()->bias));
          for (double v : ln) gate[g].push_back(sigmoid(v));
        }
        Vec u = layer_norm(affine(W1, b1, z, 0, ffn ? f : d), g1, be1);
        for (double& v : u) v = gelu(v);
        const Vec h = ffn ? affine(W2, b2, u, 0, d) : u;
        for (int i = 0; i < d; ++i) {
          const double c = (with_c ? gate[1][i] * cv[i] : 0.0) + gate[0][i] * h[i];
          const double o = gate[2][i] * c;
          EXPECT_NEAR(got.cell[r][i].item<double>(), c, 1e-9) << "row " << r << " i " << i;
          EXPECT_NEAR(got.output[r][i].item<double>(), o, 1e-9) << "row " << r << " i " << i;
        }
      }
    }
  }
}

// The stacks' wiring, composed here from the model's own modules by methods.md s4:
// encoder a_l = SelfAttn(LN(o_{l-1})), (o_l, c_l) = LSTM(a_l, o_{l-1}, c_{l-1});
// decoder s_l = SelfAttn(LN(o_{l-1})) causal, e_l = EncAttn(LN(s_l + o_{l-1}), memory),
// m_l = s_l + e_l or Merge([s_l ; e_l]); o_0 = embeddings, c_0 = 0, final LN per stack, tied
// output projection. Fails if a LayerNorm reads the wrong tensor, the encoder attention
// query is not s_l + o_{l-1}, the merge or the state threading (c passed up) differs, or a
// final LN is missing. (The cell itself is checked by the test above.)
TEST(DepthwiseLstm, StacksFollowTheSpec) {
  for (const std::string merge : {"add", "concat"}) {
    SCOPED_TRACE(merge);
    const int N = 2, M = 2;
    Transformer model = build_model(lstm_config("ffn", merge, "gates", N, M, 0.1), kVocab, 7);
    perturb(model, 21);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor source = sample_source(), target = sample_target_in();
    const torch::Tensor pad = source.eq(0);
    auto norm = [&](const std::string& p) { return module_at<ObservedNormImpl>(model, p); };
    auto attn = [&](const std::string& p) { return module_at<MultiheadAttentionImpl>(model, p); };
    auto cell = [&](const std::string& p) { return module_at<DepthwiseLstmCellImpl>(model, p); };

    torch::Tensor o = module_at<TransformerEmbeddingImpl>(model, "source_embed")->forward(source);
    torch::Tensor c = torch::zeros_like(o);
    for (int l = 0; l < N; ++l) {
      const std::string L = "encoder.layer" + std::to_string(l);
      const torch::Tensor h = norm(L + "_self_attn_norm")->forward(o);
      const torch::Tensor a = attn(L + "_self_attn")->forward(h, h, pad, false);
      const LstmState next = cell(L + "_lstm")->forward(a, o, c);
      o = next.output, c = next.cell;
    }
    const torch::Tensor memory = norm("encoder.encoder_final_norm")->forward(o);
    EXPECT_LT(max_abs_diff(model->encode(source), memory), 1e-5);

    o = module_at<TransformerEmbeddingImpl>(model, "target_embed")->forward(target);
    c = torch::zeros_like(o);
    for (int l = 0; l < M; ++l) {
      const std::string L = "decoder.layer" + std::to_string(l);
      const torch::Tensor hs = norm(L + "_self_attn_norm")->forward(o);
      const torch::Tensor s = attn(L + "_self_attn")->forward(hs, hs, torch::Tensor(), true);
      const torch::Tensor he = norm(L + "_enc_attn_norm")->forward(s + o);
      const torch::Tensor e = attn(L + "_enc_attn")->forward(he, memory, pad, false);
      const torch::Tensor m = merge == "add" ? s + e
                                             : module_at<torch::nn::LinearImpl>(model, L + "_merge")
                                                   ->forward(torch::cat({s, e}, -1));
      const LstmState next = cell(L + "_lstm")->forward(m, o, c);
      o = next.output, c = next.cell;
    }
    const torch::Tensor y = norm("decoder.decoder_final_norm")->forward(o);
    const torch::Tensor E = model->named_parameters()["source_embedding"];
    const torch::Tensor expected = torch::matmul(y, E.t());
    EXPECT_LT(max_abs_diff(model->forward(source, target), expected),
              1e-5 * (1 + expected.abs().max().item<double>()));
  }
}

// Sharing: with `gates` every layer's cell uses one gate Linear and one set of gate LNs (same
// storage), registered once in parameters(), while hidden modules differ; `all` shares the
// hidden too; `none` shares nothing. Encoder and decoder never share with each other. No
// tensor appears twice in parameters() (the optimizer would step it twice).
TEST(DepthwiseLstm, SharedParametersAreOneTensor) {
  for (const std::string share : {"gates", "all", "none"}) {
    SCOPED_TRACE(share);
    const int N = 3, M = 2;
    Transformer model = build_model(lstm_config("ffn", "add", share, N, M), kVocab, 3);
    std::map<const void*, int> occurrences;
    for (const auto& p : model->parameters()) ++occurrences[p.data_ptr()];
    for (const auto& [ptr, n] : occurrences) EXPECT_EQ(n, 1);

    const bool gates_shared = share != "none", hidden_shared = share == "all";
    std::set<const void*> enc_gate_ptrs;
    const std::vector<std::pair<std::string, int>> stacks = {{"encoder", N}, {"decoder", M}};
    for (const auto& [stack, layers] : stacks) {
      std::set<const void*> gate_w, gate_ln, hidden_w, hidden_ln;
      for (int l = 0; l < layers; ++l) {
        auto cell =
            module_at<DepthwiseLstmCellImpl>(model, stack + ".layer" + std::to_string(l) + "_lstm");
        gate_w.insert(cell->gates()->linear()->weight.data_ptr());
        gate_ln.insert(cell->gates()->norm(1)->norm()->weight.data_ptr());
        hidden_w.insert(cell->hidden()->fc2()->weight.data_ptr());
        hidden_ln.insert(cell->hidden()->norm()->norm()->weight.data_ptr());
        for (const torch::Tensor& t :
             {cell->gates()->linear()->weight, cell->hidden()->fc1()->weight})
          EXPECT_EQ(occurrences.count(t.data_ptr()), 1u) << "not a model parameter";
      }
      const size_t distinct_gates = gates_shared ? 1 : layers;
      const size_t distinct_hidden = hidden_shared ? 1 : layers;
      EXPECT_EQ(gate_w.size(), distinct_gates) << stack;
      EXPECT_EQ(gate_ln.size(), distinct_gates) << stack;
      EXPECT_EQ(hidden_w.size(), distinct_hidden) << stack;
      EXPECT_EQ(hidden_ln.size(), distinct_hidden) << stack;
      if (stack == "encoder") {
        enc_gate_ptrs = gate_w;
      } else {
        for (const void* p : gate_w) EXPECT_EQ(enc_gate_ptrs.count(p), 0u) << "enc/dec share";
      }
    }
    // The catalog records a shared Linear once (an init must not draw it twice).
    std::set<const void*> seen;
    for (const auto& l : model->catalog().linears)
      EXPECT_TRUE(seen.insert(l.linear->weight.data_ptr()).second) << l.name;
  }
}

// parameter_counts() against a closed form, d = 8, d_ff = 16, N = 3, M = 2, V = 11, one
// embedding matrix (shared and tied):
//   attention per module A = 4d^2 + 4d (qkv 3d^2+3d, out d^2+d; enc-attn q d^2+d, kv 2d^2+2d)
//   gate set: Linear 2d->3d = 6d^2 + 3d (ffn_lstm) + three LN(d) = 6d (norms)
//   hidden ffn: 2d*f + f + f*d + d (ffn_lstm) + LN(d_ff) = 2f (norms)
//   hidden lstm: 2d*d + d (ffn_lstm) + LN(d) = 2d (norms)
//   per stack of L layers: gate sets = 1 (gates, all) or L (none); hidden sets = 1 (all) or L
//   pre-attention LNs: encoder 2d per layer, decoder 4d per layer; final LNs 2 * 2d
//   concat merge: M * (2d*d + d) ("other")
TEST(DepthwiseLstm, ParameterCountsMatchClosedForm) {
  const int64_t d = 8, f = 16, N = 3, M = 2, V = 11;
  for (const std::string hidden : {"ffn", "lstm"})
    for (const std::string merge : {"add", "concat"})
      for (const std::string share : {"gates", "all", "none"}) {
        SCOPED_TRACE(hidden + " " + merge + " " + share);
        RunConfig config = lstm_config(hidden, merge, share, N, M);
        config.model.d_model = d;
        config.model.d_ff = f;
        config.model.share_embeddings = true;
        config.model.tie_decoder_embeddings = true;
        Transformer model = build_model(config, V, 1);
        const auto counts = model->parameter_counts();

        const int64_t A = 4 * d * d + 4 * d;
        const int64_t gate_linear = 6 * d * d + 3 * d, gate_norms = 6 * d;
        const int64_t hidden_linear = hidden == "ffn" ? 2 * d * f + f + f * d + d : 2 * d * d + d;
        const int64_t hidden_norms = hidden == "ffn" ? 2 * f : 2 * d;
        auto gate_sets = [&](int64_t L) { return share == "none" ? L : 1; };
        auto hidden_sets = [&](int64_t L) { return share == "all" ? 1 : L; };
        int64_t ffn_lstm = 0, lstm_norms = 0;
        for (int64_t L : {N, M}) {
          ffn_lstm += gate_sets(L) * gate_linear + hidden_sets(L) * hidden_linear;
          lstm_norms += gate_sets(L) * gate_norms + hidden_sets(L) * hidden_norms;
        }
        const int64_t embeddings = V * d;
        const int64_t attention = N * A + M * 2 * A;
        const int64_t norms = N * 2 * d + M * 4 * d + 2 * 2 * d + lstm_norms;
        const int64_t other = merge == "concat" ? M * (2 * d * d + d) : 0;

        std::set<const void*> seen;
        int64_t unique = 0;
        for (const auto& p : model->parameters())
          if (seen.insert(p.unsafeGetTensorImpl()).second) unique += p.numel();

        EXPECT_EQ(counts.at("embeddings"), embeddings);
        EXPECT_EQ(counts.at("attention"), attention);
        EXPECT_EQ(counts.at("ffn_lstm"), ffn_lstm);
        EXPECT_EQ(counts.at("norms"), norms);
        EXPECT_EQ(counts.at("other"), other);
        EXPECT_EQ(counts.at("total"), embeddings + attention + ffn_lstm + norms + other);
        EXPECT_EQ(counts.at("total"), unique);
      }
}

// Logits at positions < t do not depend on the target token at t; position t does. Eval mode
// with dropout configured (eval must disable it). Fails if the decoder self-attention is not
// causal or the LSTM mixes positions.
TEST(DepthwiseLstm, DecoderIsCausal) {
  for (const std::string merge : {"add", "concat"}) {
    SCOPED_TRACE(merge);
    Transformer model = build_model(lstm_config("ffn", merge, "gates", 2, 2, 0.1), kVocab, 3);
    perturb(model, 5);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor source = sample_source(), target = sample_target_in();
    const torch::Tensor base = model->forward(source, target);
    for (int64_t t = 1; t < target.size(1); ++t) {
      torch::Tensor changed = target.clone();
      changed[0][t] = 1 + (changed[0][t].item<int64_t>() + 4) % (kVocab - 1);
      const torch::Tensor logits = model->forward(source, changed);
      EXPECT_LT(max_abs_diff(logits[0].slice(0, 0, t), base[0].slice(0, 0, t)), 1e-6) << t;
      EXPECT_GT(max_abs_diff(logits[0][t], base[0][t]), 1e-4) << t;
      EXPECT_LT(max_abs_diff(logits[1], base[1]), 1e-6);
    }
  }
}

// Padding columns on the source change nothing at real positions, and noise in the memory at
// padded positions cannot reach the decoder (while noise at a real position does).
TEST(DepthwiseLstm, PaddedSourcePositionsAreInvisible) {
  Transformer model = build_model(lstm_config("lstm", "concat", "none", 2, 2), kVocab, 4);
  perturb(model, 11);
  model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor short_source = torch::tensor({{8, 6, 13, 3}}, torch::kInt64);
  const torch::Tensor long_source = torch::tensor({{8, 6, 13, 3, 0, 0, 0}}, torch::kInt64);
  const torch::Tensor target = torch::tensor({{2, 4, 9, 10}}, torch::kInt64);
  const torch::Tensor enc_long = model->encode(long_source);
  EXPECT_LT(max_abs_diff(enc_long.slice(1, 0, 4), model->encode(short_source)), 1e-5);
  EXPECT_LT(max_abs_diff(model->forward(long_source, target), model->forward(short_source, target)),
            1e-5);
  const torch::Tensor padding = long_source.eq(0);
  const torch::Tensor logits = model->decode(target, enc_long, padding);
  torch::Tensor noisy = enc_long.clone();
  noisy.slice(1, 4, 7).copy_(50 * torch::randn({1, 3, kD}));
  EXPECT_LT(max_abs_diff(model->decode(target, noisy, padding), logits), 1e-6);
  torch::Tensor noisy_real = enc_long.clone();
  noisy_real.slice(1, 0, 1).copy_(50 * torch::randn({1, 1, kD}));
  EXPECT_GT(max_abs_diff(model->decode(target, noisy_real, padding), logits), 1e-3);
}

// Dropout acts in train mode (two passes differ) and not in eval mode (identical).
TEST(DepthwiseLstm, DropoutFollowsTrainEvalMode) {
  Transformer model = build_model(lstm_config("ffn", "add", "gates", 1, 1, 0.3), kVocab, 5);
  torch::NoGradGuard no_grad;
  model->train();
  EXPECT_GT(max_abs_diff(model->forward(sample_source(), sample_target_in()),
                         model->forward(sample_source(), sample_target_in())),
            1e-4);
  model->eval();
  EXPECT_TRUE(torch::equal(model->forward(sample_source(), sample_target_in()),
                           model->forward(sample_source(), sample_target_in())));
}

struct Record {
  SublayerId id;
  torch::Tensor input, branch, output;
};
class Recorder : public SublayerObserver {
 public:
  void on_sublayer(const SublayerId& id, const SublayerTrace& t) override {
    records.push_back({id, t.input, t.branch, t.output});
  }
  std::vector<Record> records;
};

// The observer sees one Lstm step per layer, in order, with ids {stack, l, Lstm, 2l+1 | 3l+2};
// each step's output is the next one's input; the first input is the embedding output and the
// last output, after the final LN, is the encoder output.
// An observer takes attention's explicit path (attention.cpp), so the encoder it watches is
// compared with one that takes it too: LibTorch 2.x's fused kernel agrees only to rounding (its
// CPU kernel in Debian 13's CUDA LibTorch: 2.4e-6 here).
TEST(DepthwiseLstm, ObserverSeesEveryLstmStep) {
  const int N = 3, M = 2;
  RunConfig config = lstm_config("ffn", "add", "gates", N, M);
  config.model.fused_attention = "off";
  Transformer model = build_model(config, kVocab, 9);
  perturb(model, 12);
  model->eval();
  torch::NoGradGuard no_grad;
  Recorder recorder;
  model->hooks().observer = &recorder;
  model->forward(sample_source(), sample_target_in());
  model->hooks().observer = nullptr;
  ASSERT_EQ(recorder.records.size(), static_cast<size_t>(N + M));
  for (int k = 0; k < N + M; ++k) {
    const SublayerId& id = recorder.records[k].id;
    const bool enc = k < N;
    const int l = enc ? k : k - N;
    EXPECT_EQ(id.stack, enc ? Stack::Encoder : Stack::Decoder);
    EXPECT_EQ(id.kind, SublayerKind::Lstm);
    EXPECT_EQ(id.layer, l);
    EXPECT_EQ(id.index, enc ? 2 * l + 1 : 3 * l + 2);
    if (k + 1 != N && k + 1 < N + M) {
      EXPECT_TRUE(torch::equal(recorder.records[k].output, recorder.records[k + 1].input)) << k;
    }
  }
  const torch::Tensor embedded =
      module_at<TransformerEmbeddingImpl>(model, "source_embed")->forward(sample_source());
  EXPECT_LT(max_abs_diff(recorder.records[0].input, embedded), 1e-6);
  const torch::Tensor memory = module_at<ObservedNormImpl>(model, "encoder.encoder_final_norm")
                                   ->forward(recorder.records[N - 1].output);
  EXPECT_LT(max_abs_diff(model->encode(sample_source()), memory), 1e-6);
}

// Config checks name the offending key: residual-only inits and unknown option values.
TEST(DepthwiseLstm, CheckRejectsSenselessCombinations) {
  const StackConnection* connection = methods().connections.find("depthwise_lstm");
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->check);
  EXPECT_NO_THROW(connection->check(lstm_config()));
  for (const std::string init : {"admin", "rezero", "rezero_postln", "deepnorm"}) {
    RunConfig c = lstm_config();
    c.model.init = init;
    try {
      connection->check(c);
      ADD_FAILURE() << init << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "model.init") << init;
    }
  }
  const std::vector<std::pair<std::string, std::function<void(RunConfig&)>>> bad = {
      {"model.lstm.hidden", [](RunConfig& c) { c.model.lstm.hidden = "gru"; }},
      {"model.lstm.merge", [](RunConfig& c) { c.model.lstm.merge = "mul"; }},
      {"model.lstm.share", [](RunConfig& c) { c.model.lstm.share = "some"; }}};
  for (const auto& [key, edit] : bad) {
    RunConfig c = lstm_config();
    edit(c);
    try {
      build_model(c, kVocab, 1);
      ADD_FAILURE() << key << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), key);
    }
  }
}

// A few Adam steps on one fixed batch reduce the label cross entropy clearly, for the default
// options and for the other ones (lstm hidden, concat merge, no sharing).
TEST(DepthwiseLstm, TrainingStepsReduceTheLoss) {
  const torch::Tensor source = sample_source();
  const torch::Tensor target_in = sample_target_in();
  const torch::Tensor target_out =
      torch::tensor({{12, 5, 17, 9, 3}, {4, 4, 10, 3, 0}}, torch::kInt64);
  const std::vector<std::tuple<std::string, std::string, std::string>> options = {
      {"ffn", "add", "gates"}, {"lstm", "concat", "none"}, {"ffn", "concat", "all"}};
  for (const auto& [hidden, merge, share] : options) {
    SCOPED_TRACE(hidden + " " + merge + " " + share);
    Transformer model = build_model(lstm_config(hidden, merge, share, 2, 2, 0.0), kVocab, 17);
    model->train();
    torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(3e-3));
    auto loss_now = [&] {
      const torch::Tensor logits = model->forward(source, target_in);
      return torch::nn::functional::cross_entropy(
          logits.reshape({-1, kVocab}), target_out.reshape({-1}),
          torch::nn::functional::CrossEntropyFuncOptions().ignore_index(0));
    };
    const double first = loss_now().item<double>();
    for (int step = 0; step < 40; ++step) {
      adam.zero_grad();
      torch::Tensor loss = loss_now();
      loss.backward();
      adam.step();
    }
    const double last = loss_now().item<double>();
    EXPECT_TRUE(std::isfinite(last));
    EXPECT_LT(last, 0.5 * first) << "first " << first << " last " << last;
  }
}

}  // namespace test_depthwise_lstm
