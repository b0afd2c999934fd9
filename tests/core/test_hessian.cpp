// The curvature machinery (core/train/hessian.h, core/train/sharpness.h; docs/curvature.md):
// the Lanczos iteration on matrices whose spectrum is known by construction, the preconditioned
// Hessian of a hand-worked 2 x 2 quadratic, Hessian-vector products against central finite
// differences of the gradient on every sub-layer style and connection (in float64), the
// extremes against a small model's Hessian written out, and Adam's step factors after one
// hand-computed update.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/batch.h"
#include "core/model/higher_order_grad.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/block_hessian.h"
#include "core/train/hessian.h"
#include "core/train/optimizer.h"
#include "core/train/sharpness.h"

namespace fathom {
namespace test_hessian {

// Q diag(eigenvalues) Q^T with Q a seeded random orthogonal matrix; its columns returned too.
std::pair<torch::Tensor, torch::Tensor> with_spectrum(const std::vector<double>& eigenvalues) {
  const auto n = static_cast<int64_t>(eigenvalues.size());
  torch::manual_seed(3);
  const torch::Tensor q = std::get<0>(torch::linalg_qr(torch::randn({n, n}, torch::kDouble)));
  const torch::Tensor d = torch::tensor(eigenvalues, torch::kDouble);
  return {q.matmul(torch::diag(d)).matmul(q.t()), q};
}

LinearOperator times(const torch::Tensor& a) {
  return [a](const TensorList& v) { return TensorList{a.matmul(v[0])}; };
}

// Forty eigenvalues spread over [-3, 2] with two outliers, 10 and -6: both extremes found, the
// largest converging first, and at every step the residual bound holds -- an eigenvalue of A
// (here the extreme one, the nearest) within the residual of each extreme Ritz value, which
// lies inside the spectrum.
TEST(Lanczos, FindsBothExtremesWithinTheirResiduals) {
  std::vector<double> spectrum{10.0, -6.0};
  for (int i = 0; i < 38; ++i) spectrum.push_back(-3.0 + 5.0 * i / 37.0);
  const auto [a, q] = with_spectrum(spectrum);
  const TensorList start{torch::ones({40}, torch::kDouble)};
  for (int steps : {3, 5, 8, 12}) {
    const ExtremeEigen e = extreme_eigenvalues(times(a), start, steps, 0.0);
    EXPECT_EQ(e.iterations, steps);
    EXPECT_LE(e.largest, 10.0 + 1e-12);
    EXPECT_GE(e.smallest, -6.0 - 1e-12);
    EXPECT_LE(10.0 - e.largest, e.largest_residual + 1e-12) << steps;
    EXPECT_LE(e.smallest + 6.0, e.smallest_residual + 1e-12) << steps;
    EXPECT_EQ(e.history.size(), static_cast<size_t>(steps));
  }
  const ExtremeEigen e = extreme_eigenvalues(times(a), start, 40, 1e-10);
  EXPECT_TRUE(e.converged);
  EXPECT_LT(e.iterations, 40);
  EXPECT_NEAR(e.largest, 10.0, 1e-9);
  EXPECT_NEAR(e.smallest, -6.0, 1e-6);
}

// A negative eigenvalue largest in magnitude (where power iteration would report -7) does not
// hide the largest, 3: on three dimensions three steps are exact.
TEST(Lanczos, TheLargestIsNotTheDominantOne) {
  const auto [a, q] = with_spectrum({-7.0, 3.0, 1.0});
  const ExtremeEigen e =
      extreme_eigenvalues(times(a), {torch::ones({3}, torch::kDouble)}, 10, 1e-12);
  EXPECT_TRUE(e.converged);
  EXPECT_LE(e.iterations, 3);
  EXPECT_NEAR(e.largest, 3.0, 1e-10);
  EXPECT_NEAR(e.smallest, -7.0, 1e-10);
}

// Run to the full dimension, the quadrature's nodes are A's eigenvalues and each weight the
// share of the unit start on that eigenvector, (q_j . s)^2 / |s|^2.
TEST(Lanczos, QuadratureWeightsAreTheStartsShareOnEachEigenvector) {
  const std::vector<double> spectrum{-2.0, 0.5, 1.0, 3.0, 7.0};  // ascending, like the nodes
  const auto [a, q] = with_spectrum(spectrum);
  const torch::Tensor s = torch::tensor({1.0, -2.0, 0.5, 3.0, 1.5}, torch::kDouble);
  const ExtremeEigen e = extreme_eigenvalues(times(a), {s}, 5, 0.0);
  ASSERT_EQ(e.ritz_values.size(), 5u);
  const torch::Tensor share = q.t().matmul(s).pow(2) / s.dot(s);
  for (int j = 0; j < 5; ++j) {
    EXPECT_NEAR(e.ritz_values[j], spectrum[j], 1e-9) << j;
    EXPECT_NEAR(e.ritz_weights[j], share[j].item<double>(), 1e-9) << j;
  }
}

// A start that is an eigenvector spans an invariant subspace: one product, exact.
TEST(Lanczos, StopsOnAnInvariantSubspaceAndRefusesAZeroStart) {
  const auto [a, q] = with_spectrum({4.0, 2.0, 1.0});
  const ExtremeEigen e = extreme_eigenvalues(times(a), {q.select(1, 1).clone()}, 10, 0.0);
  EXPECT_EQ(e.iterations, 1);
  EXPECT_TRUE(e.converged);
  EXPECT_NEAR(e.largest, 2.0, 1e-12);
  EXPECT_THROW(extreme_eigenvalues(times(a), {torch::zeros({3}, torch::kDouble)}, 4, 1e-3),
               std::invalid_argument);
  const ExtremeEigen zero = extreme_eigenvalues(times(torch::zeros({3, 3}, torch::kDouble)),
                                                {torch::ones({3}, torch::kDouble)}, 10, 1e-3);
  EXPECT_EQ(zero.largest, 0.0);
  EXPECT_EQ(zero.iterations, 1);
}

// f(w) = 1/2 w^T H w + c^T w has Hessian H everywhere. With H = [[2, 1], [1, 2]] and P =
// diag(1, 4) (D = P^-1 = diag(1, 1/4)), P^-1 H = [[2, 1], [1/4, 1/2]]: trace 5/2, determinant
// 3/4, eigenvalues (5/2 +- sqrt(25/4 - 3)) / 2, the larger 2.151388... -- and lambda_max(H) = 3.
TEST(LossHessian, QuadraticHasItsMatrixAndItsPreconditionedEigenvalue) {
  const torch::Tensor h = torch::tensor({2.0, 1.0, 1.0, 2.0}, torch::kDouble).view({2, 2});
  const torch::Tensor w = torch::tensor({0.3, -1.2}, torch::kDouble).requires_grad_(true);
  const torch::Tensor unused = torch::zeros({3}, torch::kDouble).requires_grad_(true);
  const LossHessian hessian(
      [&] {
        return 0.5 * w.dot(h.matmul(w)) + torch::tensor({1.0, -2.0}, torch::kDouble).dot(w);
      },
      {w, unused});
  const TensorList hv =
      hessian.apply({torch::tensor({1.0, 0.0}, torch::kDouble), torch::ones({3}, torch::kDouble)});
  EXPECT_TRUE(torch::allclose(hv[0], torch::tensor({2.0, 1.0}, torch::kDouble)));
  EXPECT_TRUE(torch::equal(hv[1], torch::zeros({3}, torch::kDouble)));  // unused: zero rows
  EXPECT_TRUE(torch::allclose(hessian.gradient()[0],
                              h.matmul(w.detach()) + torch::tensor({1.0, -2.0}, torch::kDouble)));
  const LinearOperator op = [&](const TensorList& v) { return hessian.apply(v); };
  const TensorList start{torch::tensor({1.0, 0.3}, torch::kDouble),
                         torch::zeros({3}, torch::kDouble)};
  const ExtremeEigen plain = extreme_eigenvalues(op, start, 10, 1e-13);
  EXPECT_NEAR(plain.largest, 3.0, 1e-9);
  EXPECT_NEAR(plain.smallest, 1.0, 1e-9);
  const TensorList d{torch::tensor({1.0, 0.25}, torch::kDouble), torch::ones({3}, torch::kDouble)};
  const ExtremeEigen pre = extreme_eigenvalues(preconditioned(op, d), start, 10, 1e-13);
  EXPECT_NEAR(pre.largest, (2.5 + std::sqrt(6.25 - 3.0)) / 2.0, 1e-9);
  EXPECT_NEAR(pre.smallest, (2.5 - std::sqrt(6.25 - 3.0)) / 2.0, 1e-9);
}

RunConfig model_config(const std::string& norm, const std::string& init,
                       const std::string& connection) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 24;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.norm = norm;
  c.model.init = init;
  c.model.connection = connection;
  if (connection == "hyper" || connection == "mhc") c.model.hc_streams = 2;
  return c;
}

// Two sentence pairs of different lengths: padding in both sides of the second.
Batch two_pairs() {
  return collate(std::vector<Example>{make_example({4, 5, 6, 7, 8}, {9, 10, 11, 5}),
                                      make_example({12, 4, 13}, {6, 14})},
                 {0, 1});
}

TensorList trainable(Transformer& model) {
  TensorList out;
  for (const auto& p : model->parameters())
    if (p.requires_grad()) out.push_back(p);
  return out;
}

TensorList gradient_at(Transformer& model, const Batch& batch) {
  const TensorList params = trainable(model);
  const torch::Tensor loss = training_objective(*model, batch, 0.1, 0.0);
  TensorList g = torch::autograd::grad({loss}, params, {}, false, false, true);
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = torch::zeros_like(params[i]);
  return g;
}

// (g(w + h v) - g(w - h v)) / 2h: the Hessian-vector product to O(h^2), from first
// derivatives alone (float64, h = 1e-5: about 1e-9 relative).
TensorList finite_difference_product(Transformer& model, const Batch& batch, const TensorList& v) {
  const TensorList params = trainable(model);
  const double h = 1e-5;
  auto shift = [&](double by) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) params[i].add_(v[i], by);
  };
  shift(h);
  const TensorList up = gradient_at(model, batch);
  shift(-2 * h);
  const TensorList down = gradient_at(model, batch);
  shift(h);
  TensorList out;
  for (size_t i = 0; i < up.size(); ++i) out.push_back((up[i] - down[i]) / (2 * h));
  return out;
}

double relative_difference(const TensorList& a, const TensorList& b) {
  TensorList diff;
  for (size_t i = 0; i < a.size(); ++i) diff.push_back(a[i] - b[i]);
  return norm(diff) / norm(b);
}

Transformer double_model(const RunConfig& config) {
  check_model_methods(config);
  Transformer model = build_model(config, 20, 7);
  model->to(torch::kDouble);
  model->eval();
  return model;
}

// The product through double backward equals the finite difference on every sub-layer style,
// initialization family and connection -- so none of Fathom's own kernels (the CPU attention
// loop, the stream mixing, Sinkhorn) is left on the path whose second derivative autograd
// cannot see. Without the scope the attention loop's is missing, and the products disagree.
TEST(LossHessian, ProductsMatchFiniteDifferencesOnEveryMethod) {
  std::vector<RunConfig> configs;
  for (const std::string norm : {"post", "pre", "peri", "mix", "lns", "dyt"})
    configs.push_back(model_config(norm, "xavier", "residual"));
  configs.push_back(model_config("post", "admin", "residual"));
  configs.push_back(model_config("pre", "xavier", "depthwise_lstm"));
  configs.push_back(model_config("pre", "xavier", "hyper"));
  configs.push_back(model_config("pre", "xavier", "mhc"));
  RunConfig gated = model_config("post", "xavier", "residual");
  gated.model.attention_gate = "elementwise";
  gated.model.qk_norm = true;
  configs.push_back(gated);
  const Batch batch = two_pairs();
  for (const RunConfig& config : configs) {
    const std::string name = config.model.norm + "/" + config.model.init + "/" +
                             config.model.connection + "/" + config.model.attention_gate;
    Transformer model = double_model(config);
    TensorList v = random_direction(trainable(model), 11);
    const TensorList expected = finite_difference_product(model, batch, v);
    HigherOrderGradScope twice_differentiable;
    const LossHessian hessian([&] { return training_objective(*model, batch, 0.1, 0.0); },
                              trainable(model));
    EXPECT_LT(relative_difference(hessian.apply(v), expected), 1e-6) << name;
  }
  Transformer model = double_model(model_config("pre", "xavier", "residual"));
  TensorList v = random_direction(trainable(model), 11);
  const TensorList expected = finite_difference_product(model, batch, v);
  const LossHessian blind([&] { return training_objective(*model, batch, 0.1, 0.0); },
                          trainable(model));
  EXPECT_GT(relative_difference(blind.apply(v), expected), 1e-3);
}

// The whole Hessian as a matrix, column j = H e_j over the parameters flattened in order,
// checked symmetric and returned symmetrized.
torch::Tensor written_out(const LossHessian& hessian, const TensorList& params) {
  int64_t n = 0;
  for (const auto& p : params) n += p.numel();
  EXPECT_LT(n, 1500);  // small enough to write out
  torch::Tensor h = torch::zeros({n, n}, torch::kDouble);
  TensorList unit;
  for (const auto& p : params) unit.push_back(torch::zeros_like(p));
  int64_t column = 0;
  for (auto& u : unit)
    for (int64_t i = 0; i < u.numel(); ++i, ++column) {
      u.view(-1)[i] = 1.0;
      TensorList parts;
      for (const auto& t : hessian.apply(unit)) parts.push_back(t.reshape(-1));
      h.select(1, column).copy_(torch::cat(parts));
      u.view(-1)[i] = 0.0;
    }
  EXPECT_TRUE(torch::allclose(h, h.t(), 1e-8, 1e-8))
      << (h - h.t()).abs().max().item<double>() << " " << h.abs().max().item<double>();
  return 0.5 * (h + h.t());
}

// A 1 + 1-layer model of width 4, in float64 and eval mode: small enough to write out.
Transformer tiny_double_model() {
  RunConfig config = model_config("post", "xavier", "residual");
  config.model.d_model = 4;
  config.model.heads = 1;
  config.model.d_ff = 4;
  config.model.encoder_layers = 1;
  config.model.decoder_layers = 1;
  check_model_methods(config);
  Transformer model = build_model(config, 16, 7);
  model->to(torch::kDouble);
  model->eval();
  return model;
}

// On a model small enough to write its Hessian out -- column j is H e_j -- the Lanczos extremes
// are the explicit matrix's largest and smallest eigenvalues (LibTorch's eigvalsh).
TEST(Sharpness, ExtremesAreThoseOfTheHessianWrittenOut) {
  Transformer model = tiny_double_model();
  const Batch batch = two_pairs();
  const TensorList params = trainable(model);
  SharpnessOptions options;
  options.max_iterations = 300;
  options.tolerance = 1e-9;
  const SharpnessReading reading = SharpnessTracker(*model, batch, options).measure({}, 1);
  ASSERT_TRUE(reading.sharpness.converged) << reading.sharpness.iterations;
  EXPECT_FALSE(reading.preconditioned.has_value());

  HigherOrderGradScope twice_differentiable;
  const LossHessian hessian([&] { return training_objective(*model, batch, 0.1, 0.0); }, params);
  const torch::Tensor h = written_out(hessian, params);
  const int64_t n = h.size(0);
  const torch::Tensor eigenvalues = torch::linalg_eigvalsh(h);
  const double largest = eigenvalues[n - 1].item<double>(),
               smallest = eigenvalues[0].item<double>();
  EXPECT_NEAR(reading.sharpness.largest, largest, 1e-6 * std::abs(largest));
  EXPECT_NEAR(reading.sharpness.smallest, smallest, 1e-3 * std::abs(smallest));
  EXPECT_GT(largest, 0);
}

// Every weight matrix is a block, the packed projections split into their matrices, each
// element of them in exactly one block; and each block's Lanczos run, taken as many steps as
// the block has parameters, has the spectrum of its principal sub-matrix of the Hessian
// written out: the extremes its eigenvalues', and the quadrature's first moments those of the
// start: sum w = 1, sum w theta = v'Hv / v'v, sum w theta^2 = |Hv|^2 / v'v (Gauss quadrature
// with k nodes is exact up to degree 2k - 1).
TEST(BlockHessian, EachBlockHasTheSpectrumOfItsPartOfTheHessianWrittenOut) {
  Transformer model = tiny_double_model();
  const Batch batch = two_pairs();
  const TensorList params = trainable(model);
  HigherOrderGradScope twice_differentiable;
  const LossHessian hessian([&] { return training_objective(*model, batch, 0.1, 0.0); }, params);
  const torch::Tensor h = written_out(hessian, params);
  std::vector<int64_t> offset{0};  // where each parameter starts in h
  int64_t matrices = 0;
  for (const auto& p : params) {
    offset.push_back(offset.back() + p.numel());
    if (p.dim() >= 2) matrices += p.numel();
  }
  const std::vector<HessianBlock> blocks = hessian_blocks(model->catalog(), params);
  std::set<std::string> names;
  int64_t covered = 0;
  for (const auto& b : blocks) {
    EXPECT_TRUE(names.insert(b.name).second) << b.name;
    covered += b.size;
  }
  EXPECT_EQ(covered, matrices);
  for (const std::string name : {"source_embedding", "enc.0.self_attn.q", "enc.0.self_attn.k",
                                 "enc.0.self_attn.v", "enc.0.ffn.fc1", "dec.0.enc_attn.q",
                                 "dec.0.enc_attn.k", "dec.0.enc_attn.v", "dec.0.self_attn.out"})
    EXPECT_EQ(names.count(name), 1u) << name;

  for (size_t i = 0; i < blocks.size(); ++i) {
    const HessianBlock& b = blocks[i];
    const torch::Tensor& p = params[b.parameter];
    const int64_t cols = p.numel() / p.size(0);
    const int64_t start = offset[b.parameter] + b.first_row * cols;
    const torch::Tensor sub = h.narrow(0, start, b.size).narrow(1, start, b.size);
    const torch::Tensor eigenvalues = torch::linalg_eigvalsh(sub);
    const ExtremeEigen e = block_spectrum(hessian, b, params, static_cast<int>(b.size), 5 + i);
    const double scale = eigenvalues.abs().max().item<double>();
    EXPECT_NEAR(e.largest, eigenvalues[-1].item<double>(), 1e-6 * scale) << b.name;
    EXPECT_NEAR(e.smallest, eigenvalues[0].item<double>(), 1e-6 * scale) << b.name;

    const torch::Tensor v =
        random_direction({p.narrow(0, b.first_row, b.rows)}, 5 + i)[0].reshape(-1);
    const torch::Tensor hv = sub.matmul(v);
    const double vv = v.dot(v).item<double>();
    double w0 = 0, w1 = 0, w2 = 0;
    for (size_t j = 0; j < e.ritz_values.size(); ++j) {
      w0 += e.ritz_weights[j];
      w1 += e.ritz_weights[j] * e.ritz_values[j];
      w2 += e.ritz_weights[j] * e.ritz_values[j] * e.ritz_values[j];
    }
    EXPECT_NEAR(w0, 1.0, 1e-9) << b.name;
    EXPECT_NEAR(w1, v.dot(hv).item<double>() / vv, 1e-8 * scale) << b.name;
    EXPECT_NEAR(w2, hv.dot(hv).item<double>() / vv, 1e-8 * scale * scale) << b.name;
  }
}

// After one Adam update with gradient g: m = (1 - b1) g, v = (1 - b2) g^2, so with the bias
// corrections D = 1 / ((1 - b1)(|g| + eps)), and the update moved w by -lr * D * m. RAdam's
// first updates are momentum SGD: D = 1 / (1 - b1). No factors before an update, or with Muon.
TEST(Optimizer, StepFactorsOfAdamsFirstUpdateAreWorkedByHand) {
  TrainConfig config;
  config.betas = {0.9, 0.98};
  config.eps = 1e-8;
  config.weight_decay = 0;
  const torch::Tensor w = torch::tensor({1.0, 2.0, 3.0}, torch::kDouble).requires_grad_(true);
  const torch::Tensor g = torch::tensor({0.5, -2.0, 1e-9}, torch::kDouble);
  Optimizer adam({{"w", w}}, config);
  EXPECT_TRUE(adam.diagonal_step_factors({w}).empty());
  w.mutable_grad() = g.clone();
  const torch::Tensor before = w.detach().clone();
  adam.step(0.01);
  const torch::Tensor d = adam.diagonal_step_factors({w}).at(0);
  const torch::Tensor expected = 1.0 / (0.1 * (g.abs() + 1e-8));
  EXPECT_TRUE(torch::allclose(d, expected, 1e-12)) << d;
  EXPECT_TRUE(torch::allclose(w.detach() - before, -0.01 * d * (0.1 * g), 1e-12, 1e-15));
  const torch::Tensor other = torch::zeros({2}, torch::kDouble);
  EXPECT_TRUE(torch::equal(adam.diagonal_step_factors({other}).at(0), other));

  config.optimizer = "radam";
  const torch::Tensor u = torch::tensor({1.0}, torch::kDouble).requires_grad_(true);
  Optimizer radam({{"u", u}}, config);
  u.mutable_grad() = torch::tensor({3.0}, torch::kDouble);
  radam.step(0.01);
  EXPECT_NEAR(radam.diagonal_step_factors({u}).at(0).item<double>(), 1.0 / 0.1, 1e-12);

  const torch::Tensor m = torch::ones({2, 2}, torch::kDouble).requires_grad_(true);
  config.optimizer = "muon";
  Optimizer muon({ParameterGroup{"all", 1.0, 1.0, {{"m", m}}}}, config, {{m, 1}});
  m.mutable_grad() = torch::ones({2, 2}, torch::kDouble);
  muon.step(0.01);
  EXPECT_TRUE(muon.diagonal_step_factors({m}).empty());
}

TEST(Sharpness, AdamsThresholdIsThirtyEightAtBetaOneNineTenths) {
  EXPECT_NEAR(adaptive_stability_threshold(0.9), 38.0, 1e-12);
  EXPECT_EQ(adaptive_stability_threshold(0.0), 2.0);  // gradient descent's 2 / eta
}

}  // namespace test_hessian
}  // namespace fathom
