// The output change vs depth (methods.md s5.2, analysis/output_shift.h) against hand-made
// perturbations -- random signs, the sign of the gradient, Adam's first step -- with the
// inputs fixed, and the shapes the Admin paper reports at initialization.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/fit.h"
#include "analysis/output_shift.h"
#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "analysis/subject.h"
#include "core/train/loss.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analysis_output_shift {

// Standardized encoder output of a model, computed here: (y - mean) / sqrt(var + 1e-5).
torch::Tensor standardized(TransformerImpl& model, const torch::Tensor& src) {
  torch::Tensor y = model.encode(src).to(torch::kFloat64);
  return (y - y.mean(-1, true)) / torch::sqrt(y.var(-1, false, true) + 1e-5);
}

// The weights methods.md s5.2 perturbs, chosen here from the parameters: every matrix (rank
// >= 2: not biases, LayerNorm parameters, omega) that is not an embedding -- x0 stays fixed.
std::vector<torch::Tensor> layer_matrices(TransformerImpl& model) {
  std::set<const void*> embeddings;
  for (const auto& e : model.catalog().embeddings)
    embeddings.insert(e.weight.unsafeGetTensorImpl());
  std::vector<torch::Tensor> out;
  for (auto& p : model.named_parameters())
    if (p.value().dim() >= 2 && !embeddings.count(p.value().unsafeGetTensorImpl()))
      out.push_back(p.value());
  return out;
}

// The squared change of the standardized encoder output, per non-pad token, after `step` moved
// `weights` (then put back).
double hand_shift(TransformerImpl& model, const Batch& batch, std::vector<torch::Tensor> weights,
                  const std::function<torch::Tensor(const torch::Tensor&)>& step) {
  torch::NoGradGuard no_grad;
  const torch::Tensor y0 = standardized(model, batch.src);
  std::vector<torch::Tensor> saved;
  for (auto& w : weights) saved.push_back(w.detach().clone());
  for (auto& w : weights) w.add_(step(w));
  const torch::Tensor y1 = standardized(model, batch.src);
  for (size_t i = 0; i < weights.size(); ++i) weights[i].copy_(saved[i]);
  return (y1 - y0).pow(2).sum(-1).index({non_pad(batch.src)}).mean().item<double>();
}

// output-shift's one subject: the config, with its vocabulary and first batch (the analysis
// builds its own model at each depth).
std::vector<Subject> config_subjects(const RunConfig& config, const Fixture& f) {
  Subject subject;
  subject.config = config;
  subject.vocab_size = f.vocab;
  subject.batch = f.batch;
  return {subject};
}

TEST(OutputShift, ZeroForZeroPerturbationAndGrowsWithEps) {
  for (const std::string perturb : {"random", "sign", "update"}) {
    SCOPED_TRACE(perturb);
    Fixture f = make(small_config("post", "xavier"));
    torch::Tensor before;
    {
      torch::NoGradGuard no_grad;
      f.model->eval();
      before = f.model->encode(f.batch.src).clone();
    }
    ShiftOptions o;
    o.perturb = perturb;
    o.eps = o.lr = 0;  // the step's size: eps (random, sign) or the learning rate (update)
    EXPECT_EQ(output_shift(*f.model, f.batch, o).mean, 0.0);
    std::vector<double> shifts;
    for (double eps : {1e-4, 1e-3, 1e-2}) {
      o.eps = o.lr = eps;
      shifts.push_back(output_shift(*f.model, f.batch, o).mean);
    }
    EXPECT_GT(shifts[0], 0.0);
    // Small perturbations act linearly on F, so the squared change scales with eps^2.
    EXPECT_GT(shifts[1] / shifts[0], 50.0);
    EXPECT_LT(shifts[1] / shifts[0], 200.0);
    EXPECT_GT(shifts[2], shifts[1]);
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(torch::equal(f.model->encode(f.batch.src), before)) << "parameters restored";
  }
}

// `random`: W* = W + eps sign(n), n ~ N(0, 1) per element, on every weight matrix but the
// embeddings (rank >= 2 parameters: not biases, LayerNorm parameters or omega), averaged over
// draws. Applied here by hand with this test's own random signs: the analysis's draws and
// these differ, but for a small eps the shift is eps^2 ||J s||^2 for Rademacher s, whose mean
// over draws concentrates (thousands of weights), so both means agree to sampling error
// (measured: within 6 %; a wrong eps or sign scale would be off by a factor).
TEST(OutputShift, RandomPerturbationMatchesHandComputation) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    Fixture f = make(small_config(norm, "xavier"));
    const double eps = 1e-3;
    ShiftOptions o;
    o.perturb = "random";
    o.eps = eps;
    o.draws = 8;
    o.seed = 5;
    const ShiftResult measured = output_shift(*f.model, f.batch, o);

    Fixture g = make(small_config(norm, "xavier"));  // same seed: same parameters
    g.model->eval();
    torch::manual_seed(1234);
    double expected = 0;
    const int draws = 8;
    for (int d = 0; d < draws; ++d)
      expected +=
          hand_shift(*g.model, g.batch, layer_matrices(*g.model),
                     [&](const torch::Tensor& w) { return eps * torch::randn_like(w).sign(); }) /
          draws;
    EXPECT_NEAR(measured.mean, expected, 0.15 * expected);
    EXPECT_LT(measured.std, 0.3 * measured.mean);  // draws concentrate around the mean
  }
}

// The gradient of the label-smoothed loss per target token of `f`'s batch, left in .grad().
void loss_gradient(Fixture& f, double smoothing) {
  LossSums sums = label_smoothed_loss(f.model->forward(f.batch.src, f.batch.tgt_in),
                                      f.batch.tgt_out, smoothing);
  (sums.smoothed / static_cast<double>(sums.tokens)).backward();
}

// `sign` (the old `update`): W* = W - eps sign(dL/dW) on every matrix but the embeddings,
// applied here by hand.
TEST(OutputShift, SignPerturbationMatchesHandComputation) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    Fixture f = make(small_config(norm, "xavier"));
    f.model->eval();
    const double eps = 1e-3;
    ShiftOptions o;
    o.perturb = "sign";
    o.eps = eps;
    o.label_smoothing = 0.1;
    const double measured = output_shift(*f.model, f.batch, o).mean;

    Fixture g = make(small_config(norm, "xavier"));  // same seed: same parameters
    g.model->eval();
    loss_gradient(g, 0.1);
    const double expected =
        hand_shift(*g.model, g.batch, layer_matrices(*g.model), [&](const torch::Tensor& w) {
          return w.grad().defined() ? -eps * w.grad().sign() : torch::zeros_like(w);
        });
    EXPECT_NEAR(measured, expected, 1e-3 * expected);
  }
}

// `update`: the first Adam update from a fresh state, W* = W - lr g / (|g| + eps_adam) (bias
// correction makes m = g and v = g^2 after one step), at the config's learning rate; by hand.
// With eps_adam negligible it is `sign` at eps = lr.
TEST(OutputShift, UpdatePerturbationIsTheFirstAdamStep) {
  Fixture f = make(small_config("post", "xavier"));
  f.model->eval();
  ShiftOptions o;
  o.perturb = "update";
  o.lr = 5e-4;
  o.adam_eps = 1e-3;  // large enough to matter: |g| is often of that order here
  o.label_smoothing = 0.1;
  const double measured = output_shift(*f.model, f.batch, o).mean;

  Fixture g = make(small_config("post", "xavier"));
  g.model->eval();
  loss_gradient(g, 0.1);
  const double expected =
      hand_shift(*g.model, g.batch, layer_matrices(*g.model), [&](const torch::Tensor& w) {
        if (!w.grad().defined()) return torch::zeros_like(w);
        return -o.lr * w.grad() / (w.grad().abs() + o.adam_eps);
      });
  EXPECT_NEAR(measured, expected, 1e-3 * expected);

  o.adam_eps = 1e-30;
  ShiftOptions sign = o;
  sign.perturb = "sign";
  sign.eps = o.lr;
  EXPECT_NEAR(output_shift(*f.model, f.batch, o).mean, output_shift(*f.model, f.batch, sign).mean,
              1e-6 * expected);
}

// x0, the first layer's input, stays fixed (methods.md s5.2): no embedding matrix is moved,
// not even as a tied output projection; every other Linear weight is. `inputs perturbed` (the
// analysis's behaviour before) moves the embeddings too, and then the output changes more.
TEST(OutputShift, TheInputsStayFixed) {
  for (const bool tied : {true, false}) {
    SCOPED_TRACE(tied ? "tied output projection" : "untied");
    RunConfig c = small_config("post", "xavier");
    c.model.tie_decoder_embeddings = tied;
    c.model.share_embeddings = tied;
    Fixture f = make(c);
    std::set<const void*> embeddings, moved, moved_with_inputs;
    for (const auto& e : f.model->catalog().embeddings)
      embeddings.insert(e.weight.unsafeGetTensorImpl());
    for (const auto& w : shift_weights(*f.model, false)) moved.insert(w.unsafeGetTensorImpl());
    for (const auto& w : shift_weights(*f.model, true))
      moved_with_inputs.insert(w.unsafeGetTensorImpl());
    for (const void* e : embeddings) {
      EXPECT_FALSE(moved.count(e));
      EXPECT_TRUE(moved_with_inputs.count(e));
    }
    for (const auto& w : layer_matrices(*f.model)) {
      EXPECT_TRUE(moved.count(w.unsafeGetTensorImpl()));
      EXPECT_TRUE(moved_with_inputs.count(w.unsafeGetTensorImpl()));
    }
    EXPECT_EQ(moved.size(), layer_matrices(*f.model).size());
    ShiftOptions o;
    const double fixed = output_shift(*f.model, f.batch, o).mean;
    o.perturb_inputs = true;
    EXPECT_GT(output_shift(*f.model, f.batch, o).mean, fixed);
  }
}

// --inits K: each depth's value is the mean over K models initialized with seeds
// train.seed .. train.seed+K-1 (each with its own draw seed), and its spread the population
// std of those K means; computed here one model at a time.
TEST(OutputShift, InitsAverageIndependentlyInitializedModels) {
  const RunConfig base = small_config("post", "xavier", 2, 2);
  Fixture f = make(base);
  std::vector<Subject> subjects = config_subjects(base, f);
  AnalysisParams params;
  params.depths = {1, 3};
  params.draws = 2;
  params.inits = 3;
  params.progress = false;
  const nlohmann::json result = find_analysis("output-shift").run(subjects, params);
  EXPECT_EQ(result["inits"], 3);
  const auto& config = result["configs"][0];
  for (size_t d = 0; d < params.depths.size(); ++d) {
    std::vector<double> means;
    for (uint64_t i = 0; i < 3; ++i) {
      RunConfig c = base;
      c.model.encoder_layers = params.depths[d];
      c.train.seed = base.train.seed + i;
      Transformer model = build_model(c, f.vocab, c.train.seed);
      prepare_model(*model, InitContext{c, f.batch, {}});
      ShiftOptions o;
      o.draws = 2;
      o.seed = c.train.seed;
      means.push_back(output_shift(*model, f.batch, o).mean);
    }
    const double mean = (means[0] + means[1] + means[2]) / 3;
    double var = 0;
    for (double m : means) var += (m - mean) * (m - mean) / 3;
    EXPECT_NEAR(config["shift"][d].get<double>(), mean, 1e-12 * mean);
    EXPECT_NEAR(config["shift_std"][d].get<double>(), std::sqrt(var), 1e-9 * mean);
    EXPECT_NE(means[0], means[1]) << "different seeds, different models";
  }
}

// The shapes the Admin paper reports at initialization (s4.2, figure 4, Theorem 2; methods.md
// s6): with random sign perturbations of the layer weights, Post-LN's output change grows
// linearly in the encoder depth N, Pre-LN's logarithmically -- so Post-LN's grows far more
// from N = 1 to 24, fits a line better than a log, and Pre-LN the other way round. Averaged over
// 4 initializations (one init's curve wanders with its random matrices). Measured with seeds 1,
// 5, 9: Post-LN R^2 0.92-1.00 linear vs 0.68-0.84 log, growth 46x; Pre-LN 0.91-0.98 log vs
// 0.89-0.93 linear, growth 8x.
TEST(OutputShift, PostLnGrowsLinearlyAndPreLnLogarithmically) {
  std::map<std::string, nlohmann::json> curves;
  for (const std::string norm : {"post", "pre"}) {
    RunConfig c = small_config(norm, "xavier", 1, 1);
    c.model.d_model = 64;  // configs/depth/base.yaml's width: at d 32 one curve still wanders
    c.model.d_ff = 256;
    c.data.synthetic.vocab = 16;
    c.train.seed = 1;
    std::vector<Subject> subjects = config_subjects(c, make(c));
    AnalysisParams params;
    params.depths = {1, 2, 4, 8, 16, 24};
    params.draws = 2;
    params.inits = 4;
    params.progress = false;
    curves[norm] = find_analysis("output-shift").run(subjects, params)["configs"][0];
    std::cout << norm << ": shift " << curves[norm]["shift"].dump() << " linear r2 "
              << curves[norm]["linear"]["r2"] << " log r2 " << curves[norm]["log"]["r2"] << "\n";
  }
  auto growth = [&](const std::string& norm) {
    return curves[norm]["shift"].back().get<double>() / curves[norm]["shift"][0].get<double>();
  };
  auto r2 = [&](const std::string& norm, const char* fit) {
    return curves[norm][fit]["r2"].get<double>();
  };
  EXPECT_GT(growth("post"), 2 * growth("pre"));
  EXPECT_GT(r2("post", "linear"), r2("post", "log"));
  EXPECT_GT(r2("pre", "log"), r2("pre", "linear"));
}

// Hyper-connections at initialization (dynamic weights 0) keep their n streams equal: each
// sub-layer reads one of them (hyper's one-hot read; mHC's equal reads, a scale its Pre-LN
// removes), adds its branch to every stream with weight 1 and mixes equal streams into
// themselves (identity; mHC's uniform doubly stochastic matrix), and the stack's output is the
// final LayerNorm of n times the Pre-LN stream. Their Linear weights are drawn as Pre-LN's, and
// output-shift perturbs Linear weights only (never the hc.* connection weights, as never
// Admin's omega), so the curve must be Pre-LN's, to LayerNorm's eps.
TEST(OutputShift, HyperConnectionsAtInitializationShiftAsPreLn) {
  std::map<std::string, std::vector<double>> shifts;
  for (const std::string connection : {"residual", "hyper", "mhc"}) {
    RunConfig c = small_config("pre", "xavier", 1, 1);
    c.model.connection = connection;
    if (connection != "residual") c.model.hc_streams = 3;
    std::vector<Subject> subjects = config_subjects(c, make(c));
    AnalysisParams params;
    params.depths = {1, 3};
    params.draws = 1;
    params.progress = false;
    const nlohmann::json result = find_analysis("output-shift").run(subjects, params);
    for (const auto& v : result["configs"][0]["shift"])
      shifts[connection].push_back(v.get<double>());
  }
  for (const std::string connection : {"hyper", "mhc"})
    for (size_t i = 0; i < 2; ++i) {
      const double pre = shifts["residual"][i];
      EXPECT_GT(pre, 0.0);
      EXPECT_NEAR(shifts[connection][i], pre, 1e-3 * pre) << connection << " depth index " << i;
    }
}

TEST(OutputShift, LineFitRecoversLineAndLog) {
  const std::vector<double> n{1, 2, 4, 8, 16};
  std::vector<double> lin, lg;
  for (double x : n) lin.push_back(3 * x + 1), lg.push_back(2 * std::log(x) + 0.5);
  LineFit a = fit_line(n, lin);
  EXPECT_NEAR(a.a, 3, 1e-12);
  EXPECT_NEAR(a.b, 1, 1e-12);
  EXPECT_NEAR(a.r2, 1, 1e-12);
  std::vector<double> logn;
  for (double x : n) logn.push_back(std::log(x));
  EXPECT_NEAR(fit_line(logn, lg).r2, 1, 1e-12);
  EXPECT_LT(fit_line(n, lg).r2, 0.95);  // a log curve is not a line in N
}

}  // namespace test_analysis_output_shift
}  // namespace fathom::analysis
