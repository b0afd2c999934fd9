// The deep-training methods of methods.md s3 against their papers' formulas: Admin profiling,
// profile reuse and fold-back (Liu et al. 2020), DeepNorm constants and gains (Wang et al.
// 2022), ReZero at initialization (Bachlechner et al. 2020), DS-Init bounds (Zhang et al.
// 2019), Lipschitz's sigma <= 1 claim (Xu et al. 2020, eq. 1), and per-kind parameter counts.
// Expected values are computed here from the formulas and from what observers see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/admin.h"
#include "core/model/deepnorm.h"
#include "core/model/init_helpers.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/prepared_state.h"
#include "db/store.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace test_methods {

db::NewRun named_run(const std::string& name) {
  db::NewRun run;
  run.name = name;
  return run;
}
namespace fs = std::filesystem;

constexpr int64_t kVocab = 30;

RunConfig small_config(const std::string& init, int N = 3, int M = 3) {
  RunConfig c;
  c.device = test_device_name();  // FATHOM_TEST_DEVICE
  c.model.d_model = 32;
  c.model.heads = 4;
  c.model.d_ff = 64;
  c.model.encoder_layers = N;
  c.model.decoder_layers = M;
  c.model.dropout = 0.1;
  c.model.init = init;
  c.data.task = "synthetic";
  c.data.synthetic.vocab = 12;
  c.data.synthetic.train_size = 200;
  c.data.synthetic.valid_size = 20;
  c.data.synthetic.test_size = 10;
  c.data.max_tokens = 512;
  return c;
}

// A real batch: the first training batch of the synthetic task, from the data pipeline.
Batch first_batch(const RunConfig& config) {
  Dataset data = load_dataset(config.data, "", "");
  BatchPlan plan = plan_batches(data.train, config.data.max_tokens);
  return collate(data.train, epoch_batches(plan, 1, 0).front());
}

// Random source/target with some padding at the end of row 0.
std::pair<torch::Tensor, torch::Tensor> random_inputs(int64_t seed) {
  torch::manual_seed(seed);
  torch::Tensor src = torch::randint(4, kVocab, {3, 7}, torch::kInt64);
  torch::Tensor tgt = torch::randint(4, kVocab, {3, 6}, torch::kInt64);
  src.index_put_({0, torch::indexing::Slice(5)}, 0);
  return {src, tgt};
}

double population_variance(const torch::Tensor& t) {
  return t.to(torch::kFloat64).var(/*unbiased=*/false).item<double>();
}

// Records what the sub-layers of a model see, keyed by (stack, index).
struct Recorder : SublayerObserver {
  std::map<std::pair<Stack, int>, SublayerTrace> traces;
  std::vector<NormTrace> norms;
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    traces[{id.stack, id.index}] = SublayerTrace{trace.input.detach().clone(),
                                                 trace.branch.detach().clone(),
                                                 trace.output.detach().clone(),
                                                 {}};
  }
  void on_norm(const SublayerId*, const NormTrace& trace) override { norms.push_back(trace); }
};

// ---------------------------------------------------------------- Admin profiling

// Admin's profiling (methods.md s3): omega_1 = 1; omega_k^2 = Var[omega_{k-1} x_{k-2}] +
// Var[drop(f_{k-1})], so with LayerNorm outputs (variance 1) every omega_k^2 equals
// Var[x_0] + the running sum of the branch variances before k -- the paper's
// "1 + sum_{j<k} Var[f_j]" with the embedding's variance in place of 1. The variances are
// measured here by an observer during the same pass. Encoder and decoder are separate chains
// (each restarts at 1). Fails if r is not reset per stack, omega is set after (not before) the
// sub-layer, the variance is of the wrong tensor, or sqrt is missing.
TEST(Admin, ProfileFollowsTheRunningVarianceSum) {
  RunConfig config = small_config("admin", 4, 3);
  Transformer model = build_model(config, kVocab, 11);
  Batch batch = first_batch(config);
  Recorder recorder;
  model->hooks().observer = &recorder;
  torch::manual_seed(5);
  AdminProfile profile = profile_admin(*model, batch.src, batch.tgt_in);
  model->hooks().observer = nullptr;

  ASSERT_EQ(profile.encoder.size(), 8u);
  ASSERT_EQ(profile.decoder.size(), 9u);
  for (Stack stack : {Stack::Encoder, Stack::Decoder}) {
    SCOPED_TRACE(stack_name(stack));
    const auto& chain = stack == Stack::Encoder ? profile.encoder : profile.decoder;
    EXPECT_DOUBLE_EQ(chain[0], 1.0);
    const double x0_variance = population_variance(recorder.traces.at({stack, 0}).input);
    double branch_sum = 0;
    double recurrence = 1.0;  // r_k^2 by the exact recurrence, from the observed tensors
    for (size_t k = 1; k < chain.size(); ++k) {
      const SublayerTrace& previous = recorder.traces.at({stack, static_cast<int>(k) - 1});
      const double branch = population_variance(previous.branch);
      branch_sum += branch;
      recurrence = recurrence * population_variance(previous.input) + branch;
      EXPECT_NEAR(chain[k] * chain[k], recurrence, 1e-4 * recurrence) << "sub-layer " << k;
      // x_{k-1} for k >= 2 is a LayerNorm output (variance 1 up to LN's epsilon).
      EXPECT_NEAR(chain[k] * chain[k], x0_variance + branch_sum, 1e-3 * chain[k] * chain[k])
          << "sub-layer " << k;
    }
    // It grows: every branch adds variance.
    EXPECT_GT(chain.back(), chain[1]);
  }
  // The omegas of the model hold the profile, in every element.
  for (const auto& o : admin_omegas(*model)) {
    const auto& chain = o.id.stack == Stack::Encoder ? profile.encoder : profile.decoder;
    EXPECT_TRUE(torch::allclose(o.omega, torch::full_like(o.omega, chain[o.id.index])))
        << o.id.name();
  }
}

// A given profile is applied, not recomputed: a JSON file with made-up values (which no
// forward pass would produce) ends up exactly in the omegas; a profile of the wrong length or
// a missing file is an InputError at model.admin.profile. Fails if prepare_model profiles
// the batch regardless of model.admin.profile.
TEST(Admin, GivenProfileFileIsReusedNotRecomputed) {
  const fathom::testing::TempDir scratch;
  const fs::path dir = scratch.path();
  AdminProfile made_up{{1.0, 2.0, 3.0, 4.0}, {1.0, 1.5, 2.5, 3.5, 4.5, 5.5}};
  std::ofstream(dir / "profile.json") << made_up.to_json();

  RunConfig config = small_config("admin", 2, 2);
  config.model.admin.profile = "profile.json";
  config.source_file = (dir / "run.yaml").string();  // relative paths resolve against it
  Transformer model = build_model(config, kVocab, 3);
  Batch batch = first_batch(config);
  prepare_model(*model, InitContext{config, batch, {}});
  for (const auto& o : admin_omegas(*model)) {
    const auto& chain = o.id.stack == Stack::Encoder ? made_up.encoder : made_up.decoder;
    EXPECT_TRUE(torch::equal(o.omega, torch::full_like(o.omega, chain[o.id.index]))) << o.id.name();
  }

  RunConfig deeper = config;
  deeper.model.encoder_layers = 3;
  Transformer wrong = build_model(deeper, kVocab, 3);
  try {
    prepare_model(*wrong, InitContext{deeper, batch, {}});
    FAIL() << "a 2-layer profile was applied to a 3-layer encoder";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.admin.profile");
  }
  RunConfig missing = config;
  missing.model.admin.profile = "nowhere.json";
  EXPECT_THROW(prepare_model(*model, InitContext{missing, batch, {}}), InputError);
}

// The profile is stored with the run (tag admin.profile) and another run reuses it by run id:
// the second run's omegas equal the first's even though its seed (and so its first forward
// pass) differs. Fails if the profile is not stored, or a run id is read as a file name.
TEST(Admin, ProfileStoredWithTheRunAndReusedByRunId) {
  const fathom::testing::TempDir scratch;
  const fs::path dir = scratch.path();
  {
    auto store = db::Store::open((dir / "runs.db").string());
    RunConfig config = small_config("admin", 2, 2);
    const int64_t first_run = store.create_run(named_run("admin-a"));
    Transformer a = build_model(config, kVocab, 1);
    Batch batch = first_batch(config);
    torch::manual_seed(1);
    RunFiles first_files(store, store.mark_running(first_run, "host", "cpu"), (dir / "a").string());
    keep_prepared_state(store, first_files,
                        prepare_model(*a, InitContext{config, batch, stored_tag_reader(store)}));
    const std::string stored = store.tags(first_run).at("admin.profile");
    // Under a name of its holder's (generation 1), recorded as the run's artifact.
    EXPECT_TRUE(fs::exists(dir / "a" / "admin_profile.g1.json"));
    EXPECT_EQ(first_files.current("admin_profile"), (dir / "a" / "admin_profile.g1.json").string());

    config.model.admin.profile = std::to_string(first_run);
    const int64_t second_run = store.create_run(named_run("admin-b"));
    Transformer b = build_model(config, kVocab, 2);
    torch::manual_seed(2);
    RunFiles second_files(store, store.mark_running(second_run, "host", "cpu"), "");
    keep_prepared_state(store, second_files,
                        prepare_model(*b, InitContext{config, batch, stored_tag_reader(store)}));
    const auto omegas_a = admin_omegas(*a), omegas_b = admin_omegas(*b);
    ASSERT_EQ(omegas_a.size(), omegas_b.size());
    for (size_t i = 0; i < omegas_a.size(); ++i)
      EXPECT_TRUE(torch::equal(omegas_a[i].omega, omegas_b[i].omega)) << omegas_a[i].id.name();
    EXPECT_EQ(store.tags(second_run).at("admin.profile"), stored);
    EXPECT_NE(store.tags(second_run).at("admin.profile_origin").find("reused"), std::string::npos);

    config.model.admin.profile = "999";  // no such run
    EXPECT_THROW(prepare_model(*b, InitContext{config, batch, stored_tag_reader(store)}),
                 InputError);
    // The model itself stores nothing: only keep_prepared_state writes.
    const auto untouched = store.tags(second_run).size();
    prepare_model(*b, InitContext{small_config("admin", 2, 2), batch, {}});
    EXPECT_EQ(store.tags(second_run).size(), untouched);
  }
}

// ---------------------------------------------------------------- Admin fold-back

// Admin Appendix C: the folded plain Post-LN model computes the same function. Omegas, LN
// parameters and biases are randomized first (as after training), so every fold rule is
// exercised: LN gamma and beta times omega, Q/K/V and FFN W1 input columns divided by omega,
// encoder-attention K/V untouched. Encoder outputs and decoder logits agree to float
// precision. Fails if any rule is missing or applied to the wrong sub-layer (e.g. scaling the
// LN of sub-layer k instead of k-1, or the encoder-attention K/V).
TEST(Admin, FoldBackGivesTheSameOutputs) {
  RunConfig config = small_config("admin", 3, 2);
  Transformer admin = build_model(config, kVocab, 21);
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(4);
    for (auto& o : admin_omegas(*admin))
      if (o.id.index > 0) o.omega.uniform_(0.5, 3.0);
    for (auto& n : admin->catalog().norms) {
      n.norm->weight.uniform_(0.5, 1.5);
      n.norm->bias.uniform_(-0.3, 0.3);
    }
    for (auto& l : admin->catalog().linears) l.linear->bias.uniform_(-0.2, 0.2);
  }
  Transformer folded = fold_admin(*admin);
  EXPECT_EQ(folded->config().init, "xavier");
  EXPECT_EQ(folded->parameter_counts().at("omega"), 0);
  for (const auto& p : folded->named_parameters())
    EXPECT_EQ(p.key().find("omega"), std::string::npos) << p.key();

  admin->eval();
  folded->eval();
  torch::NoGradGuard no_grad;
  for (int64_t seed : {1, 2, 3}) {
    auto [src, tgt] = random_inputs(seed);
    const torch::Tensor enc_a = admin->encode(src), enc_f = folded->encode(src);
    EXPECT_LT((enc_a - enc_f).abs().max().item<double>(), 1e-4);
    const torch::Tensor logits_a = admin->forward(src, tgt), logits_f = folded->forward(src, tgt);
    const double scale = logits_a.abs().max().item<double>();
    EXPECT_LT((logits_a - logits_f).abs().max().item<double>(), 1e-5 * std::max(scale, 1.0) * 10);
  }
  // Sanity: without folding (omega simply dropped) the outputs would differ.
  ModelConfig plain = config.model;
  plain.init = "xavier";
  Transformer dropped(plain, kVocab);
  auto source = admin->named_parameters();
  for (auto& p : dropped->named_parameters()) p.value().copy_(*source.find(p.key()));
  dropped->eval();
  auto [src, tgt] = random_inputs(1);
  EXPECT_GT((admin->forward(src, tgt) - dropped->forward(src, tgt)).abs().max().item<double>(),
            1e-2);
}

// Admin is a Post-LN method on residual stacks; other settings are config errors.
TEST(Admin, RejectsPreNormAndOtherConnections) {
  RunConfig config = load_config_string("model:\n  init: admin\n  norm: pre\n", "a.yaml", ".");
  try {
    check_model_methods(config);
    FAIL() << "admin with norm: pre accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.norm");
    EXPECT_EQ(e.line(), 3);
  }
  for (const std::string init : {"deepnorm", "rezero_postln"}) {
    RunConfig c = small_config(init);
    c.model.norm = "pre";
    EXPECT_THROW(check_model_methods(c), InputError) << init;
  }
}

// ---------------------------------------------------------------- DeepNorm

// DeepNet's constants for an encoder-decoder (Wang et al. 2022), worked out by calculator:
// N = M = 6: N^4 M = 7776, 7776^(1/16) = 1.750541; encoder alpha = 0.81 * 1.750541 = 1.417938,
// beta = 0.87 / 1.750541 = 0.496989; decoder alpha = 18^(1/4) = 2.059767, beta = 72^(-1/4) =
// 0.343295. N = 18, M = 6: 18^4 * 6 = 629856, ^(1/16) = 2.303841.
TEST(DeepNorm, AlphaAndBetaForGivenDepths) {
  const auto enc = deepnorm_constants(Stack::Encoder, 6, 6);
  const auto dec = deepnorm_constants(Stack::Decoder, 6, 6);
  EXPECT_NEAR(enc.alpha, 1.417938, 1e-5);
  EXPECT_NEAR(enc.beta, 0.496989, 1e-5);
  EXPECT_NEAR(dec.alpha, 2.059767, 1e-5);
  EXPECT_NEAR(dec.beta, 0.343295, 1e-5);
  const auto deep = deepnorm_constants(Stack::Encoder, 18, 6);
  EXPECT_NEAR(deep.alpha, 0.81 * 2.303841, 1e-5);
  EXPECT_NEAR(deep.beta, 0.87 / 2.303841, 1e-5);
}

// The DeepNorm sub-layer computes LN(alpha x + f) with its stack's alpha (checked against the
// observed input, branch and output), and the init is Xavier with the value, attention-output
// and FFN weights multiplied by beta while Q and K keep Xavier's values (same seed, so the
// weights are comparable element by element). Fails with alpha on the branch, the wrong
// stack's constants, or beta applied to Q/K.
TEST(DeepNorm, SublayerUsesAlphaAndInitUsesBeta) {
  RunConfig config = small_config("deepnorm", 3, 2);
  config.model.dropout = 0.0;
  Transformer deep = build_model(config, kVocab, 8);
  RunConfig xavier_config = config;
  xavier_config.model.init = "xavier";
  Transformer xavier = build_model(xavier_config, kVocab, 8);

  Recorder recorder;
  deep->hooks().observer = &recorder;
  auto [src, tgt] = random_inputs(3);
  deep->eval();
  torch::NoGradGuard no_grad;
  deep->forward(src, tgt);
  deep->hooks().observer = nullptr;
  ASSERT_EQ(recorder.traces.size(), 6u + 6u);
  for (const auto& [key, trace] : recorder.traces) {
    const double alpha = deepnorm_constants(key.first, 3, 2).alpha;
    const torch::Tensor expected = torch::layer_norm(alpha * trace.input + trace.branch, {32});
    EXPECT_LT((expected - trace.output).abs().max().item<double>(), 1e-4)
        << stack_name(key.first) << " " << key.second;
  }

  const auto& xavier_linears = xavier->catalog().linears;
  ASSERT_EQ(xavier_linears.size(), deep->catalog().linears.size());
  const int d = 32;
  int checked = 0;
  for (const auto& l : deep->catalog().linears) {
    const double beta = deepnorm_constants(l.owner.stack, 3, 2).beta;
    const torch::Tensor w = l.linear->weight;
    ASSERT_EQ(xavier_linears[checked].name, l.name);
    const torch::Tensor x = xavier_linears[checked].linear->weight;
    SCOPED_TRACE(l.name);
    if (l.role == LinearRole::AttentionQkv || l.role == LinearRole::AttentionKeyValue) {
      const int64_t v_start = (l.blocks - 1) * d;
      EXPECT_TRUE(torch::allclose(w.narrow(0, v_start, d), beta * x.narrow(0, v_start, d)));
      EXPECT_TRUE(torch::equal(w.narrow(0, 0, v_start), x.narrow(0, 0, v_start)));
    } else if (l.role == LinearRole::AttentionQuery) {
      EXPECT_TRUE(torch::equal(w, x));
    } else {
      EXPECT_TRUE(torch::allclose(w, beta * x));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3 * 4 + 2 * 7);
}

// ---------------------------------------------------------------- ReZero

// ReZero at initialization (alpha = 0): every sub-layer passes its input through unchanged, so
// the encoder output is the embedding path itself and there is no LayerNorm anywhere;
// rezero_postln's sub-layers reduce to LN(x). One gradient step moves alpha off zero.
// Fails if alpha starts non-zero, multiplies the shortcut, or a LayerNorm is left in `rezero`.
TEST(ReZero, IdentityAtInitialization) {
  RunConfig config = small_config("rezero", 2, 2);
  Transformer model = build_model(config, kVocab, 5);
  EXPECT_TRUE(model->catalog().norms.empty());
  Recorder recorder;
  model->hooks().observer = &recorder;
  model->eval();
  auto [src, tgt] = random_inputs(4);
  torch::Tensor memory;
  {
    torch::NoGradGuard no_grad;
    memory = model->encode(src);
    model->decode(tgt, memory, src.eq(0));
  }
  model->hooks().observer = nullptr;
  ASSERT_EQ(recorder.traces.size(), 4u + 6u);
  for (const auto& [key, trace] : recorder.traces)
    EXPECT_TRUE(torch::equal(trace.input, trace.output));
  EXPECT_TRUE(torch::equal(memory, recorder.traces.at({Stack::Encoder, 0}).input));

  // One backward pass: the decoder's alphas receive gradient. The encoder's do not yet: with
  // every decoder alpha at 0 the encoder-attention branch is multiplied by 0, so no gradient
  // reaches the encoder until the decoder alphas move (ReZero's known warm-up order).
  model->train();
  torch::Tensor logits = model->forward(src, tgt);
  logits.pow(2).mean().backward();
  int alphas = 0;
  for (const auto& p : model->named_parameters())
    if (p.key().find("alpha") != std::string::npos) {
      ++alphas;
      const double grad = p.value().grad().abs().item<double>();
      if (p.key().rfind("decoder.", 0) == 0) {
        EXPECT_GT(grad, 0.0) << p.key();
      } else {
        EXPECT_EQ(grad, 0.0) << p.key();
      }
    }
  EXPECT_EQ(alphas, 4 + 6);

  RunConfig post = small_config("rezero_postln", 2, 2);
  Transformer post_model = build_model(post, kVocab, 5);
  Recorder post_recorder;
  post_model->hooks().observer = &post_recorder;
  post_model->eval();
  torch::NoGradGuard no_grad;
  post_model->forward(src, tgt);
  post_model->hooks().observer = nullptr;
  for (const auto& [key, trace] : post_recorder.traces)
    EXPECT_LT((trace.output - torch::layer_norm(trace.input, {32})).abs().max().item<double>(),
              1e-5);
}

// ---------------------------------------------------------------- DS-Init

// DS-Init: layer l's (1-based, per stack) Linear weights stay within alpha/sqrt(l) times the
// Xavier bound (attention inputs with fairseq's 1/sqrt(2) per block) and reach it. Fails if
// the layer index is 0-based (division by zero) or the depth scaling is missing or squared.
TEST(DsInit, GlorotBoundShrinksWithDepth) {
  RunConfig config = small_config("ds_init", 4, 4);
  config.model.ds_init_alpha = 0.8;
  Transformer model = build_model(config, kVocab, 6);
  int checked = 0;
  for (const auto& l : model->catalog().linears) {
    const torch::Tensor w = l.linear->weight;
    const bool input = l.role == LinearRole::AttentionQkv || l.role == LinearRole::AttentionQuery ||
                       l.role == LinearRole::AttentionKeyValue;
    const int64_t fan_out = input ? 32 : w.size(0);
    const double xavier = std::sqrt(6.0 / (w.size(1) + fan_out)) / (input ? std::sqrt(2.0) : 1.0);
    const double bound = xavier * 0.8 / std::sqrt(l.owner.layer + 1.0);
    const double max = w.abs().max().item<double>();
    EXPECT_LE(max, bound * (1 + 1e-6)) << l.name;
    EXPECT_GT(max, 0.95 * bound) << l.name;
    ++checked;
  }
  EXPECT_EQ(checked, 4 * 4 + 4 * 7);
}

// ---------------------------------------------------------------- Lipschitz (Xu et al. eq. 1)

// The sigma each Post-LN LayerNorm divides by, on a real batch at initialization (dropout
// off): sigma = std(x_{k-1} + f_k), mean over tokens. Xu et al. eq. 1 asks for sigma <= 1 so
// that w/sigma >= 1 does not shrink the residual. That holds literally only where the
// shortcut is the embedding: elsewhere x_{k-1} is a LayerNorm output of variance 1, so
// sigma^2 = 1 + Var[f_k] + 2 Cov > 1 under any init. What the Lipschitz bounds do guarantee
// is a small Var[f_k]: a U(+-1/sqrt(fan_in)) Linear maps variance v to v/3, so an attention
// branch (value, then output projection) adds at most 1/9 and an FFN branch about 1/18:
// sigma <= sqrt(1 + 1/9) = 1.054 for independent terms. Asserted: embedding-input LNs
// <= 1, every LN <= 1.1 (the bound plus room for the shortcut/branch correlation), and every
// LN below xavier's at the same place. Fails with Glorot bounds, fan_out, or d_ff-wide fc2
// bounds mixed up (Var[f] grows), as the xavier column shows.
struct SigmaRecorder : SublayerObserver {
  std::vector<std::pair<std::string, double>> sigmas;  // mean per-token sigma per post-norm
  void on_norm(const SublayerId*, const NormTrace& trace) override {
    sigmas.emplace_back(trace.name, trace.std.mean().item<double>());
  }
};

std::vector<std::pair<std::string, double>> post_norm_sigmas(const std::string& init) {
  RunConfig config = small_config(init, 6, 6);
  config.model.d_model = 64;
  config.model.d_ff = 256;
  Transformer model = build_model(config, 40, 9);
  Batch batch = first_batch(config);
  SigmaRecorder recorder;
  model->hooks().observer = &recorder;
  model->eval();
  torch::NoGradGuard no_grad;
  model->forward(batch.src, batch.tgt_in);
  model->hooks().observer = nullptr;
  return recorder.sigmas;
}

TEST(Lipschitz, PostNormSigmaAtInitialization) {
  const auto lipschitz = post_norm_sigmas("lipschitz");
  const auto xavier = post_norm_sigmas("xavier");
  ASSERT_EQ(lipschitz.size(), 12u + 18u);
  ASSERT_EQ(xavier.size(), lipschitz.size());
  double max_lipschitz = 0, max_xavier = 0;
  for (size_t i = 0; i < lipschitz.size(); ++i) {
    const auto& [name, sigma] = lipschitz[i];
    max_lipschitz = std::max(max_lipschitz, sigma);
    max_xavier = std::max(max_xavier, xavier[i].second);
  }
  std::printf("  max sigma: lipschitz %.4f xavier %.4f\n", max_lipschitz, max_xavier);
  for (size_t i = 0; i < lipschitz.size(); ++i) {
    const auto& [name, sigma] = lipschitz[i];
    const bool reads_embedding =
        name == "enc.0.self_attn.post_norm" || name == "dec.0.self_attn.post_norm";
    EXPECT_LE(sigma, reads_embedding ? 1.0 : 1.1) << name;
    EXPECT_LT(sigma, xavier[i].second) << name;
  }
}

// ---------------------------------------------------------------- parameter counts

// Parameter counts by kind against closed forms (d = 32, d_ff = 64, N = 3, M = 2, V = 30,
// shared and tied embeddings): attention 4d^2+4d per self-attention (packed QKV + output) and
// per encoder attention (q + packed kv + output); FFN 2 d d_ff + d_ff + d; 2d per LayerNorm;
// Admin adds one d-vector per sub-layer except the first of each stack (fixed at 1);
// ReZero one scalar per sub-layer and no LayerNorm. Fails if omega or alpha are missing from
// the counts, counted twice, or counted under another kind.
TEST(ParameterCounts, ByKindForEachMethod) {
  const int64_t d = 32, ff = 64, N = 3, M = 2, V = kVocab;
  const int64_t attention = 4 * d * d + 4 * d, ffn = 2 * d * ff + ff + d, norm = 2 * d;
  const int64_t embeddings = V * d;
  struct Expected {
    std::string init, norm_style;
    int64_t norms, omega, other;
  };
  const std::vector<Expected> cases{
      {"xavier", "post", (2 * N + 3 * M) * norm, 0, 0},
      {"xavier", "pre", (2 * N + 3 * M + 2) * norm, 0, 0},
      {"admin", "post", (2 * N + 3 * M) * norm, (2 * N - 1 + 3 * M - 1) * d, 0},
      {"rezero", "post", 0, 0, 2 * N + 3 * M},
      {"rezero_postln", "post", (2 * N + 3 * M) * norm, 0, 2 * N + 3 * M},
      {"deepnorm", "post", (2 * N + 3 * M) * norm, 0, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.init + "/" + c.norm_style);
    RunConfig config = small_config(c.init, N, M);
    config.model.norm = c.norm_style;
    Transformer model = build_model(config, V, 1);
    const auto counts = model->parameter_counts();
    EXPECT_EQ(counts.at("embeddings"), embeddings);
    EXPECT_EQ(counts.at("attention"), (N + 2 * M) * attention);
    EXPECT_EQ(counts.at("ffn_lstm"), (N + M) * ffn);
    EXPECT_EQ(counts.at("norms"), c.norms);
    EXPECT_EQ(counts.at("omega"), c.omega);
    EXPECT_EQ(counts.at("other"), c.other);
    int64_t elements = 0;
    for (const auto& p : model->parameters()) elements += p.numel();
    EXPECT_EQ(counts.at("total"), elements);
  }
}

}  // namespace test_methods
}  // namespace fathom
