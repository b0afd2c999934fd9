// Tests for the training pieces (core/train): label-smoothed loss, Adam / RAdam with decoupled
// weight decay, checkpoints and the divergence monitor. Expected
// values are computed here by hand (in double precision) from the formulas in methods.md s1
// and the papers, never read back from the code under test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <vector>

#include "base/config/config.h"
#include "base/util/error.h"
#include "core/model/transformer.h"
#include "core/train/batch_stream.h"
#include "core/train/checkpoint.h"
#include "core/train/checkpoint_checksum.h"
#include "core/train/divergence.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fathom;

namespace test_training_parts {

// log softmax of one row, by hand.
std::vector<double> log_softmax_row(const std::vector<double>& z) {
  double m = z[0];
  for (double v : z) m = std::max(m, v);
  double sum = 0;
  for (double v : z) sum += std::exp(v - m);
  std::vector<double> out;
  for (double v : z) out.push_back(v - m - std::log(sum));
  return out;
}

// The smoothed per-token loss: (1 - eps) * nll + eps / V * sum_v (-log p_v).
double smoothed_token_loss(const std::vector<double>& z, int64_t target, double eps) {
  const auto lp = log_softmax_row(z);
  double sum = 0;
  for (double v : lp) sum -= v;
  return (1 - eps) * (-lp[target]) + eps / z.size() * sum;
}

using fathom::testing::TempDir;

// ---------------------------------------------------------------- loss

// A 1 x 2 target with V = 3, logits written out: the smoothed sum, the unsmoothed nll and the
// token count against the hand formula. Fails if eps is spread over V-1 entries instead of V,
// the nll is smoothed, or a sum/mean is taken over the wrong axis.
TEST(Loss, LabelSmoothedMatchesHandComputation) {
  const std::vector<double> z0{1.0, 2.0, 0.5}, z1{0.2, -1.0, 3.0};
  const torch::Tensor logits =
      torch::tensor({{{1.0f, 2.0f, 0.5f}, {0.2f, -1.0f, 3.0f}}});  // [1, 2, 3]
  const torch::Tensor target = torch::tensor({{1, 2}}, torch::kInt64);
  const double eps = 0.1;
  LossSums sums = label_smoothed_loss(logits, target, eps);
  const double expected_smoothed =
      smoothed_token_loss(z0, 1, eps) + smoothed_token_loss(z1, 2, eps);
  const double expected_nll = -log_softmax_row(z0)[1] - log_softmax_row(z1)[2];
  EXPECT_NEAR(sums.smoothed.item<double>(), expected_smoothed, 1e-5);
  EXPECT_NEAR(sums.nll.item<double>(), expected_nll, 1e-5);
  EXPECT_EQ(sums.tokens, 2);
  // Hand numbers, to make the test self-evident: row 0, log Z = log(e^1 + e^2 + e^0.5).
  const double logZ0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5));
  EXPECT_NEAR(-log_softmax_row(z0)[1], logZ0 - 2.0, 1e-12);
  // eps = 0: smoothed == nll.
  LossSums plain = label_smoothed_loss(logits, target, 0.0);
  EXPECT_NEAR(plain.smoothed.item<double>(), expected_nll, 1e-5);
}

// Pad targets (id 0) contribute nothing, whatever their logits are. Fails if pads are counted
// in the sum or in the token count.
TEST(Loss, PadPositionsAreIgnored) {
  const std::vector<double> z0{1.0, 2.0, 0.5};
  torch::Tensor logits = torch::tensor({{{1.0f, 2.0f, 0.5f}, {9.0f, -4.0f, 3.0f}}});
  const torch::Tensor target = torch::tensor({{1, 0}}, torch::kInt64);
  LossSums sums = label_smoothed_loss(logits, target, 0.1);
  EXPECT_EQ(sums.tokens, 1);
  EXPECT_NEAR(sums.smoothed.item<double>(), smoothed_token_loss(z0, 1, 0.1), 1e-5);
  EXPECT_NEAR(sums.nll.item<double>(), -log_softmax_row(z0)[1], 1e-5);
}

// Gradient of the smoothed loss w.r.t. the logits is softmax(z) - q with
// q = (1 - eps) onehot(y) + eps / V, and exactly zero at pad positions. Fails if the loss is
// detached, or the smoothing target is not the documented one.
TEST(Loss, GradientIsSoftmaxMinusSmoothedTarget) {
  const std::vector<std::vector<double>> z{{1.0, 2.0, 0.5}, {0.2, -1.0, 3.0}, {0.3, 0.1, -0.2}};
  torch::Tensor logits =
      torch::tensor({{{1.0f, 2.0f, 0.5f}, {0.2f, -1.0f, 3.0f}, {0.3f, 0.1f, -0.2f}}})
          .requires_grad_(true);
  const std::vector<int64_t> y{1, 2, 0};
  const torch::Tensor target = torch::tensor({{1, 2, 0}}, torch::kInt64);
  const double eps = 0.1;
  LossSums sums = label_smoothed_loss(logits, target, eps);
  sums.smoothed.backward();
  const torch::Tensor g = logits.grad();
  for (int t = 0; t < 3; ++t) {
    const auto lp = log_softmax_row(z[t]);
    for (int v = 0; v < 3; ++v) {
      const double expected =
          y[t] == 0 ? 0.0 : std::exp(lp[v]) - ((v == y[t] ? 1 - eps : 0.0) + eps / 3);
      EXPECT_NEAR(g[0][t][v].item<double>(), expected, 1e-6) << t << "," << v;
    }
  }
}

// ---------------------------------------------------------------- optimizers

TrainConfig optimizer_config(const std::string& name, double weight_decay = 0.0) {
  TrainConfig c;
  c.optimizer = name;
  c.betas = {0.9, 0.98};
  c.eps = 1e-8;
  c.weight_decay = weight_decay;
  return c;
}

// Hand Adam / RAdam in double precision, element-wise, with decoupled weight decay.
struct HandOptimizer {
  explicit HandOptimizer(bool rectified_) : rectified(rectified_) {}
  bool rectified;
  double b1 = 0.9, b2 = 0.98, eps = 1e-8, wd = 0.0;
  std::vector<double> p, m, v;
  int t = 0;

  void step(const std::vector<double>& g, double lr) {
    ++t;
    const double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
    // RAdam (Liu et al. 2019, Algorithm 2 with the >5 threshold of the reference code):
    const double rho_inf = 2 / (1 - b2) - 1;
    const double rho_t = rho_inf - 2 * t * std::pow(b2, t) / bc2;
    const bool adaptive = !rectified || rho_t > 5;
    const double r = rectified && adaptive ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                                       ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                                           : 1.0;
    for (size_t i = 0; i < p.size(); ++i) {
      p[i] *= 1 - lr * wd;  // decoupled: not part of the gradient
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      const double m_hat = m[i] / bc1, v_hat = v[i] / bc2;
      p[i] -= adaptive ? lr * r * m_hat / (std::sqrt(v_hat) + eps) : lr * m_hat;
    }
  }
};

void set_grad(torch::Tensor& p, const std::vector<double>& g) {
  p.mutable_grad() = torch::tensor(g, torch::kFloat64).to(torch::kFloat32);
}

void expect_params(const torch::Tensor& p, const std::vector<double>& expected, double tol,
                   const std::string& what) {
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(p[i].item<double>(), expected[i], tol) << what << " element " << i;
}

const std::vector<double> kStart{0.5, -1.0, 2.0, 0.0};
const std::vector<std::vector<double>> kGrads{
    {0.3, -0.2, 1.5, -0.7}, {0.1, 0.4, -0.5, -0.6}, {-0.2, 0.3, 0.8, 0.9}, {0.5, -0.1, 0.2, 0.4},
    {0.2, 0.2, -0.3, 0.1},  {-0.4, 0.6, 0.1, -0.2}, {0.3, -0.5, 0.7, 0.8}, {0.1, 0.1, 0.1, -0.9}};

// Adam (Kingma & Ba, decoupled decay off): one step and three steps vs the hand formulas and
// vs torch::optim::Adam with the same lr, betas and eps. After one step every element moves by
// ~lr * sign(g) (m_hat / sqrt(v_hat) = g / |g|). Fails with a missing or wrong bias
// correction, swapped betas, or eps in the wrong place at a visible scale.
TEST(Optimizer, AdamMatchesHandFormulaAndTorch) {
  const double lr = 0.01;
  torch::Tensor p = torch::tensor(kStart, torch::kFloat64).to(torch::kFloat32).requires_grad_(true);
  torch::Tensor q = p.detach().clone().requires_grad_(true);
  Optimizer ours({{"p", p}}, optimizer_config("adam"));
  torch::optim::Adam theirs(
      {q}, torch::optim::AdamOptions(lr).betas(std::make_tuple(0.9, 0.98)).eps(1e-8));
  HandOptimizer hand(false);
  hand.p = kStart;
  hand.m = hand.v = std::vector<double>(4, 0.0);

  for (int step = 0; step < 3; ++step) {
    set_grad(p, kGrads[step]);
    set_grad(q, kGrads[step]);
    ours.step(lr);
    theirs.step();
    hand.step(kGrads[step], lr);
    expect_params(p, hand.p, 1e-6, "hand, step " + std::to_string(step + 1));
    EXPECT_LT((p - q).abs().max().item<double>(), 1e-6) << "torch Adam, step " << step + 1;
    if (step == 0) {  // first Adam step: -lr * sign(g)
      for (size_t i = 0; i < kStart.size(); ++i)
        EXPECT_NEAR(p[i].item<double>(), kStart[i] - lr * (kGrads[0][i] > 0 ? 1 : -1), 1e-6);
    }
  }
  EXPECT_EQ(ours.steps(), 3);
  ours.zero_grad();
  EXPECT_EQ(p.grad().abs().max().item<double>(), 0.0);
}

// RAdam (Liu et al. 2019): while rho_t <= 5 (steps 1-5 with beta2 = 0.98) the update is
// bias-corrected momentum SGD, p -= lr * m_hat; from step 6 on the Adam step is scaled by
// r_t = sqrt((rho_t-4)(rho_t-2)rho_inf / ((rho_inf-4)(rho_inf-2)rho_t)). Eight steps vs the
// hand formula. Fails if the warm-up phase divides by sqrt(v), the threshold is off, or r_t is
// wrong.
TEST(Optimizer, RAdamMatchesHandFormula) {
  // The phase boundary, computed here: rho_5 < 5 < rho_6 for beta2 = 0.98.
  const double rho_inf = 2 / (1 - 0.98) - 1;
  auto rho = [&](int t) { return rho_inf - 2 * t * std::pow(0.98, t) / (1 - std::pow(0.98, t)); };
  ASSERT_LT(rho(5), 5.0);
  ASSERT_GT(rho(6), 5.0);

  const double lr = 0.01;
  torch::Tensor p = torch::tensor(kStart, torch::kFloat64).to(torch::kFloat32).requires_grad_(true);
  Optimizer ours({{"p", p}}, optimizer_config("radam"));
  HandOptimizer hand(true);
  hand.p = kStart;
  hand.m = hand.v = std::vector<double>(4, 0.0);
  for (int step = 0; step < 8; ++step) {
    set_grad(p, kGrads[step]);
    ours.step(lr);
    hand.step(kGrads[step], lr);
    expect_params(p, hand.p, 1e-6, "step " + std::to_string(step + 1));
    if (step == 0) {  // SGD with m_hat = g
      for (size_t i = 0; i < kStart.size(); ++i)
        EXPECT_NEAR(p[i].item<double>(), kStart[i] - lr * kGrads[0][i], 1e-7);
    }
  }
}

// train.optimizer sgd is PyTorch's SGD with momentum (dampening 0): the same parameters as
// torch::optim::SGD over four steps, the first a plain step -lr g; its decay decoupled,
// p(1 - lr wd) - lr m, worked by hand for one element; and its step factor 1 / (1 - beta1).
TEST(Optimizer, SgdIsHeavyBallMomentumAsPyTorchs) {
  const double lr = 0.1;
  torch::Tensor p = torch::tensor(kStart, torch::kFloat64).to(torch::kFloat32).requires_grad_(true);
  torch::Tensor q = p.detach().clone().requires_grad_(true);
  Optimizer ours({{"p", p}}, optimizer_config("sgd"));
  torch::optim::SGD theirs({q}, torch::optim::SGDOptions(lr).momentum(0.9));
  for (int step = 0; step < 4; ++step) {
    set_grad(p, kGrads[step]);
    set_grad(q, kGrads[step]);
    ours.step(lr);
    theirs.step();
    EXPECT_LT((p - q).abs().max().item<double>(), 1e-6) << "step " << step + 1;
    if (step == 0)
      for (size_t i = 0; i < kStart.size(); ++i)
        EXPECT_NEAR(p[i].item<double>(), kStart[i] - lr * kGrads[0][i], 1e-6);
  }
  const auto factors = ours.diagonal_step_factors({p});
  ASSERT_EQ(factors.size(), 1u);
  EXPECT_NEAR(factors[0][0].item<double>(), 10.0, 1e-5);  // 1 / (1 - 0.9)

  // Two steps at lr 0.5, wd 0.1, gradients 1 then 2 from 2.0: 2(0.95) - 0.5 = 1.4; the buffer
  // 0.9 + 2 = 2.9, so 1.4(0.95) - 0.5(2.9) = -0.12.
  torch::Tensor w = torch::tensor({2.0f}).requires_grad_(true);
  Optimizer decayed({{"w", w}}, optimizer_config("sgd", 0.1));
  for (float g : {1.0f, 2.0f}) {
    w.mutable_grad() = torch::tensor({g});
    decayed.step(0.5);
  }
  EXPECT_NEAR(w.item<double>(), -0.12, 1e-6);
}

// SGD keeps one buffer: its checkpoint holds the momentum and no second moment, and resumes to
// the same steps; a checkpoint from before (both moments written, the second zeros) still loads,
// its checksum read over every tensor it was written with.
TEST(Optimizer, SgdSavesOnlyItsMomentumAndReadsOlderCheckpoints) {
  torch::Tensor p = torch::tensor(kStart, torch::kFloat64).to(torch::kFloat32).requires_grad_(true);
  Optimizer sgd({{"p", p}}, optimizer_config("sgd"));
  set_grad(p, kGrads[0]);
  sgd.step(0.1);
  torch::serialize::OutputArchive out;
  TensorChecksum written;
  sgd.save(out, &written);
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  const std::vector<std::string> keys = in.keys();
  EXPECT_NE(std::find(keys.begin(), keys.end(), archive_key("optimizer_exp_avg", "p")), keys.end());
  EXPECT_EQ(std::find(keys.begin(), keys.end(), archive_key("optimizer_exp_avg_sq", "p")),
            keys.end());
  torch::Tensor q = p.detach().clone().requires_grad_(true);
  Optimizer resumed({{"p", q}}, optimizer_config("sgd"));
  TensorChecksum read;
  resumed.load(in, &read);
  EXPECT_EQ(read.value(), written.value());
  set_grad(p, kGrads[1]);
  set_grad(q, kGrads[1]);
  sgd.step(0.1);
  resumed.step(0.1);
  EXPECT_TRUE(torch::equal(p, q));  // the momentum came back

  // The older layout: the momentum and a second moment of zeros, both in the checksum.
  torch::serialize::OutputArchive old;
  TensorChecksum old_sum;
  old.write("optimizer_step", torch::tensor(int64_t{1}, torch::kInt64));
  const torch::Tensor momentum = torch::tensor(kGrads[0], torch::kFloat64).to(torch::kFloat32);
  for (const auto& [prefix, t] : {std::pair{"optimizer_exp_avg", momentum},
                                  {"optimizer_exp_avg_sq", torch::zeros_like(momentum)}}) {
    old.write(archive_key(prefix, "p"), t, /*is_buffer=*/true);
    old_sum.add(archive_key(prefix, "p"), t);
  }
  std::stringstream old_bytes;
  old.save_to(old_bytes);
  torch::serialize::InputArchive old_in;
  old_in.load_from(old_bytes);
  torch::Tensor r = torch::tensor(kStart, torch::kFloat64).to(torch::kFloat32).requires_grad_(true);
  Optimizer from_old({{"r", r}}, optimizer_config("sgd"));
  TensorChecksum old_read;
  EXPECT_THROW(from_old.load(old_in, &old_read), std::exception);  // another parameter's name
  torch::serialize::InputArchive again;
  old_bytes.seekg(0);
  again.load_from(old_bytes);
  Optimizer matching({{"p", r}}, optimizer_config("sgd"));
  TensorChecksum matched;
  matching.load(again, &matched);
  EXPECT_EQ(matched.value(), old_sum.value());
}

// Decoupled weight decay (AdamW style): p <- p * (1 - lr * wd) - lr * adam_update, with the
// decay kept out of m and v. Checked over three steps against the hand formula; a zero
// gradient for an element still decays it on the first step (plain AdamW). Fails if the decay
// is added to the gradient (L2) instead.
TEST(Optimizer, DecoupledWeightDecay) {
  for (const std::string name : {"adam", "radam"}) {
    SCOPED_TRACE(name);
    const double lr = 0.05, wd = 0.1;
    torch::Tensor p =
        torch::tensor(kStart, torch::kFloat64).to(torch::kFloat32).requires_grad_(true);
    Optimizer ours({{"p", p}}, optimizer_config(name, wd));
    HandOptimizer hand(name == "radam");
    hand.wd = wd;
    hand.p = kStart;
    hand.m = hand.v = std::vector<double>(4, 0.0);
    for (int step = 0; step < 3; ++step) {
      set_grad(p, kGrads[step]);
      ours.step(lr);
      hand.step(kGrads[step], lr);
      expect_params(p, hand.p, 1e-6, "step " + std::to_string(step + 1));
    }
  }
  // L2 would differ: with wd in the gradient, Adam's first step is still lr * sign(g + wd p).
  // Decoupled: p(1 - lr wd) - lr sign(g). Element 2: 2.0 * (1 - 0.005) - 0.05 = 1.94.
  torch::Tensor p = torch::tensor({2.0f}).requires_grad_(true);
  Optimizer adamw({{"p", p}}, optimizer_config("adam", 0.1));
  p.mutable_grad() = torch::tensor({1.5f});
  adamw.step(0.05);
  EXPECT_NEAR(p.item<double>(), 1.94, 1e-6);
}

// ---------------------------------------------------------------- checkpoints

RunConfig tiny_run(int d_model = 16, int encoder_layers = 1) {
  RunConfig c;
  c.model.d_model = d_model;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = encoder_layers;
  c.model.decoder_layers = 1;
  c.model.dropout = 0.0;
  c.train.optimizer = "adam";
  return c;
}

std::vector<std::pair<std::string, torch::Tensor>> named(Transformer& model) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : model->named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

const torch::Tensor& batch_source() {
  static const torch::Tensor t = torch::tensor({{5, 9, 4, 11, 3}, {8, 6, 3, 0, 0}}, torch::kInt64);
  return t;
}
const torch::Tensor& batch_target_in() {
  static const torch::Tensor t = torch::tensor({{2, 12, 5, 17}, {2, 4, 4, 0}}, torch::kInt64);
  return t;
}
const torch::Tensor& batch_target_out() {
  static const torch::Tensor t = torch::tensor({{12, 5, 17, 3}, {4, 4, 3, 0}}, torch::kInt64);
  return t;
}

void train_step(Transformer& model, Optimizer& optimizer, double lr) {
  optimizer.zero_grad();
  LossSums sums = label_smoothed_loss(model->forward(batch_source(), batch_target_in()),
                                      batch_target_out(), 0.1);
  (sums.smoothed / static_cast<double>(sums.tokens)).backward();
  optimizer.step(lr);
}

bool same_parameters(Transformer& a, Transformer& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  if (pa.size() != pb.size()) return false;
  for (const auto& p : pa)
    if (!torch::equal(p.value(), pb[p.key()])) return false;
  return true;
}

// Round trip: after save_checkpoint and load_checkpoint into a model built with another seed,
// parameters are identical, the trainer state comes back, and the optimizer's moments and step
// count too: one more identical update on both gives identical parameters. Fails if any
// parameter, moment or the step counter is not saved/restored (the bias correction would
// differ).
TEST(Checkpoint, RoundTripContinuesIdentically) {
  TempDir dir;
  const std::string path = dir.file("sub/ckpt.pt");
  const RunConfig config = tiny_run();
  Transformer a = build_model(config, 20, 1);
  Optimizer opt_a(named(a), config.train);
  for (int i = 1; i <= 3; ++i) train_step(a, opt_a, 1e-3);
  TrainerState state;
  state.update = 3;
  state.epoch = 2;
  state.batch_in_epoch = 17;
  state.first_loss = 4.25;
  state.validation.best = 3.5;
  state.validation.best_update = 40;
  state.validation.improved = 3.625;  // train.patience_min_delta's reference, older
  state.validation.improved_update = 30;
  state.validation.validations_since_best = 2;
  state.loss_scale = 1024.0;  // the fp16 loss scaler, mid-run
  state.loss_scale_clean_updates = 17;
  save_checkpoint(path, *a, &opt_a, state, "model:\n  d_model: 16\n");
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  Transformer b = build_model(config, 20, 2);
  ASSERT_FALSE(same_parameters(a, b));
  Optimizer opt_b(named(b), config.train);
  TrainerState loaded;
  load_checkpoint(path, *b, &opt_b, &loaded);
  EXPECT_TRUE(same_parameters(a, b));
  EXPECT_EQ(opt_b.steps(), 3);
  EXPECT_EQ(loaded.update, 3);
  EXPECT_EQ(loaded.epoch, 2);
  EXPECT_EQ(loaded.batch_in_epoch, 17);
  EXPECT_DOUBLE_EQ(loaded.first_loss, 4.25);
  EXPECT_DOUBLE_EQ(loaded.validation.best, 3.5);
  EXPECT_EQ(loaded.validation.best_update, 40);
  EXPECT_EQ(loaded.validation.validations_since_best, 2);
  EXPECT_DOUBLE_EQ(loaded.validation.improved, 3.625);
  EXPECT_EQ(loaded.validation.improved_update, 30);
  EXPECT_EQ(loaded.loss_scale, 1024.0);
  EXPECT_EQ(loaded.loss_scale_clean_updates, 17);
  EXPECT_EQ(checkpoint_config(path), "model:\n  d_model: 16\n");

  // Continue both: identical.
  train_step(a, opt_a, 1e-3);
  train_step(b, opt_b, 1e-3);
  EXPECT_TRUE(same_parameters(a, b));
  // Control: an optimizer that was not restored (fresh moments, step 0) diverges from them.
  Transformer c = build_model(config, 20, 3);
  load_checkpoint(path, *c, nullptr, nullptr);
  Optimizer opt_c(named(c), config.train);
  train_step(c, opt_c, 1e-3);
  EXPECT_FALSE(same_parameters(a, c));
}

// Loading into a model of another shape, or from a missing file, is an InputError naming the
// file. Fails if a mismatched checkpoint is silently copied or crashes with a torch error.
TEST(Checkpoint, ShapeMismatchAndMissingFileAreInputErrors) {
  TempDir dir;
  const std::string path = dir.file("ckpt.pt");
  Transformer a = build_model(tiny_run(), 20, 1);
  save_checkpoint(path, *a, nullptr, TrainerState{}, "");

  Transformer wider = build_model(tiny_run(32), 20, 1);
  try {
    load_checkpoint(path, *wider, nullptr, nullptr);
    FAIL() << "wider model loaded";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.field(), "source_embedding");  // names the first mismatching parameter
  }
  Transformer deeper = build_model(tiny_run(16, 2), 20, 1);
  EXPECT_THROW(load_checkpoint(path, *deeper, nullptr, nullptr), InputError);
  Transformer other_vocab = build_model(tiny_run(), 24, 1);
  EXPECT_THROW(load_checkpoint(path, *other_vocab, nullptr, nullptr), InputError);
  Transformer same = build_model(tiny_run(), 20, 1);
  EXPECT_THROW(load_checkpoint(dir.file("missing.pt"), *same, nullptr, nullptr), InputError);
  // An optimizer state asked for but not saved (model-only checkpoint) is an InputError too.
  Optimizer opt(named(same), tiny_run().train);
  EXPECT_THROW(load_checkpoint(path, *same, &opt, nullptr), InputError);
}

// ---------------------------------------------------------------- divergence

// Non-finite loss or gradient norm is always divergence; the ratio rule compares with the
// first loss seen (or the one restored from a checkpoint) and is off when factor <= 0. Fails if
// NaN slips through a comparison (NaN > x is false), or the first loss is overwritten later.
TEST(Divergence, NonFiniteAndRatioRules) {
  DivergenceMonitor monitor(10.0);
  EXPECT_TRUE(monitor.check(NAN, 1.0).has_value());
  EXPECT_TRUE(monitor.check(INFINITY, 1.0).has_value());
  EXPECT_TRUE(monitor.check(2.0, INFINITY).has_value());
  EXPECT_TRUE(monitor.check(2.0, NAN).has_value());
  EXPECT_TRUE(std::isnan(monitor.first_loss()));  // non-finite updates set no reference
  EXPECT_FALSE(monitor.check(2.0, 1.0).has_value());
  EXPECT_DOUBLE_EQ(monitor.first_loss(), 2.0);
  EXPECT_FALSE(monitor.check(19.9, 1.0).has_value());
  EXPECT_FALSE(monitor.check(1.0, 1.0).has_value());
  EXPECT_DOUBLE_EQ(monitor.first_loss(), 2.0);  // still the first
  auto reason = monitor.check(20.5, 1.0);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("first loss"), std::string::npos) << *reason;

  DivergenceMonitor off(0.0);
  EXPECT_FALSE(off.check(1.0, 1.0).has_value());
  EXPECT_FALSE(off.check(1e6, 1.0).has_value());
  EXPECT_TRUE(off.check(NAN, 1.0).has_value());

  DivergenceMonitor resumed(10.0, 3.0);  // first loss restored from a checkpoint
  EXPECT_FALSE(resumed.check(29.0, 1.0).has_value());
  EXPECT_TRUE(resumed.check(31.0, 1.0).has_value());
}

// 23 pairs of 1-5 source and 1-3 target tokens: batches of a 12-token budget differ in size.
std::vector<Example> uneven_examples() {
  std::vector<Example> examples;
  for (int i = 0; i < 23; ++i)
    examples.push_back(make_example(std::vector<std::int64_t>(1 + i % 5, 4 + i % 7),
                                    std::vector<std::int64_t>(1 + i % 3, 5 + i % 6)));
  return examples;
}

// Reading ahead on a background thread must not change what the trainer sees: the same
// batches in the same order, across epoch boundaries, with the stream position (what a
// checkpoint stores) of the batch handed out, also when started mid-epoch (resume).
TEST(BatchStream, PrefetchingGivesTheSameBatchesAndPositions) {
  const TokenPairs pairs = TokenPairs::from_examples(uneven_examples());
  const BatchPlan plan = plan_batches(pairs, 12);
  ASSERT_GT(plan.size(), 3u);
  for (int64_t start : {0, 2}) {
    BatchStream plain(pairs, plan, /*seed=*/9, /*epoch=*/1, start);
    PrefetchingBatchStream ahead(BatchStream(pairs, plan, 9, 1, start), torch::kCPU);
    EXPECT_EQ(ahead.epoch(), 1);
    EXPECT_EQ(ahead.position(), start);
    for (size_t i = 0; i < 3 * plan.size(); ++i) {
      const Batch expected = plain.next();
      const Batch got = ahead.next();
      EXPECT_EQ(got.ids, expected.ids) << i;
      EXPECT_TRUE(torch::equal(got.src, expected.src)) << i;
      EXPECT_TRUE(torch::equal(got.tgt_in, expected.tgt_in)) << i;
      EXPECT_TRUE(torch::equal(got.tgt_out, expected.tgt_out)) << i;
      EXPECT_EQ(got.tgt_tokens, expected.tgt_tokens) << i;
      EXPECT_EQ(ahead.epoch(), plain.epoch()) << i;
      EXPECT_EQ(ahead.position(), plain.position()) << i;
    }
  }
}

// A data-parallel rank's stream collates only the batches it trains on: within each update
// (batches until update_tokens target tokens), every second one for 2 ranks, starting at its
// rank; the others come with their ids and token counts only, so every rank groups the same
// updates. Through the prefetching reader, across epochs.
TEST(BatchStream, ARankCollatesOnlyItsShareOfEachUpdate) {
  const TokenPairs pairs = TokenPairs::from_examples(uneven_examples());
  const BatchPlan plan = plan_batches(pairs, 12);
  const int64_t update_tokens = 13;  // batches hold up to 12: updates of 2 or 3 batches
  for (int rank : {0, 1}) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    BatchStream plain(pairs, plan, /*seed=*/9, /*epoch=*/0, 0);
    BatchStream dealt(pairs, plan, 9, 0, 0);
    dealt.collate_only_rank_share(update_tokens, rank, 2);
    PrefetchingBatchStream ahead(std::move(dealt), torch::kCPU);
    int64_t odd_updates = 0;
    for (int u = 0; u < static_cast<int>(3 * plan.size()); ++u) {
      UpdateCursor update(update_tokens);
      while (!update.complete()) {
        const Batch expected = plain.next();
        const Batch got = ahead.next();
        const bool mine = update.batches % 2 == rank;
        EXPECT_EQ(got.ids, expected.ids) << u;
        EXPECT_EQ(got.tgt_tokens, expected.tgt_tokens) << u;
        EXPECT_EQ(got.src_tokens, expected.src_tokens) << u;
        ASSERT_EQ(got.src.defined(), mine) << "update " << u << " batch " << update.batches;
        if (mine) {
          EXPECT_TRUE(torch::equal(got.src, expected.src)) << u;
          EXPECT_TRUE(torch::equal(got.tgt_out, expected.tgt_out)) << u;
        }
        update.add(expected.tgt_tokens);
      }
      odd_updates += update.batches % 2;
    }
    EXPECT_GT(odd_updates, 0);  // some updates of 3 batches: the share is per update
  }
}

}  // namespace test_training_parts
