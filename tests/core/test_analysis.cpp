// The analyses of methods.md s5 (analysis/) against independent computations: the beta
// decomposition against the model's own outputs and against branch variances chosen by the
// test, sub-layer gradient norms against autograd, and w/sigma against LayerNorm inputs
// recomputed here (the output change: test_analysis_output_shift.cpp). Small models, real
// batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "analysis/beta.h"
#include "analysis/fit.h"
#include "analysis/grad_norms.h"
#include "analysis/ln_scale.h"
#include "analysis/output_shift.h"
#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "analysis/subject.h"
#include "core/data/dataset.h"
#include "core/model/admin.h"
#include "core/model/observed_eval.h"
#include "core/model/registry.h"
#include "core/train/layer_grad_norms.h"
#include "core/train/loss.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analysis {

// Moves every LayerNorm (and Admin omega) away from its initial 1/0, as training would.
void perturb_norms(TransformerImpl& model, uint64_t seed) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed);
  for (auto& n : model.catalog().norms) {
    n.norm->weight.copy_(torch::randn_like(n.norm->weight) * 0.5 + 1.0);
    n.norm->bias.copy_(torch::randn_like(n.norm->bias) * 0.3);
  }
  for (auto& e : model.catalog().extras) {
    if (e.kind == "omega") e.tensor.mul_(torch::rand_like(e.tensor) + 0.5);
    if (e.kind == "norms") e.tensor.add_(torch::randn_like(e.tensor) * 0.3);  // DyT gamma, beta
    if (e.name.find(".alpha") != std::string::npos) e.tensor.fill_(0.7);      // ReZero's 0 at init
  }
}

double masked_population_variance(const torch::Tensor& t, const torch::Tensor& mask) {
  return t.to(torch::kFloat64).index({mask}).var(false).item<double>();
}

const std::vector<std::pair<std::string, std::string>> kResidualMethods{
    {"post", "xavier"},    {"pre", "xavier"},         {"post", "admin"},  {"post", "deepnorm"},
    {"post", "lipschitz"}, {"post", "rezero_postln"}, {"peri", "xavier"}, {"mix", "xavier"},
    {"lns", "xavier"},     {"dyt", "xavier"}};

// Whether a stack of this style ends in a final LayerNorm that beta decomposes: Pre-LN-like
// styles do (mix ends in Pre-LN layers); post has none; DyT's final norm is not affine.
bool final_ln_row(const std::string& norm) {
  return norm == "pre" || norm == "peri" || norm == "lns" || norm == "mix";
}

// Every sub-layer output of the encoder and decoder as the model computes it (trace.output),
// and the final LayerNorms' outputs: the denominators of beta, recorded independently of the
// decomposition.
struct OutputRecorder : SublayerObserver {
  std::map<std::string, torch::Tensor> outputs;
  void on_sublayer(const SublayerId& id, const SublayerTrace& t) override {
    outputs[id.name()] = t.output.detach().to(torch::kFloat64);
  }
  void on_norm(const SublayerId*, const NormTrace& t) override {
    if (t.name.find("final_norm") != std::string::npos)
      outputs[t.name] = t.output.detach().to(torch::kFloat64);
  }
};

std::map<std::string, torch::Tensor> record_outputs(TransformerImpl& model, const Batch& batch) {
  OutputRecorder recorder;
  torch::NoGradGuard no_grad;
  model.eval();
  model.hooks().observer = &recorder;
  model.forward(batch.src, batch.tgt_in);
  model.hooks().observer = nullptr;
  return recorder.outputs;
}

// Admin s4.1: beta_{i,j} = std(component j) / std(output i), output i the model's own output
// there (recorded here, not the decomposition's sum): so beta_{i,j} * std(output i) is the
// component's std, whose sum of squares is sum_sq * var(output i).
TEST(Beta, RowsAreLowerTriangularAndDivideByTheActualOutputsStd) {
  for (const auto& [norm, init] : kResidualMethods) {
    SCOPED_TRACE(norm + "/" + init);
    Fixture f = make(small_config(norm, init));
    perturb_norms(*f.model, 5);
    BetaResult r = compute_beta(*f.model, f.batch);
    const auto outputs = record_outputs(*f.model, f.batch);
    double farthest_from_one = 0;  // over rows: |sum_j beta_{i,j}^2 - 1|
    for (const BetaMatrix* m : {&r.encoder, &r.decoder}) {
      const size_t sublayers = 6;  // 2N = 6 encoder and 3M = 6 decoder sub-layers
      ASSERT_EQ(m->rows.size(), sublayers);
      ASSERT_EQ(m->labels.size(), sublayers + 1);
      ASSERT_EQ(m->sum_sq.size(), sublayers);
      ASSERT_EQ(m->bias.size(), sublayers);
      EXPECT_EQ(m->final_row.has_value(), final_ln_row(norm));
      const torch::Tensor mask = non_pad(m == &r.encoder ? f.batch.src : f.batch.tgt_in);
      for (size_t i = 0; i < m->beta.size(); ++i) {
        double squares = 0;
        for (size_t j = 0; j < m->beta[i].size(); ++j) {
          squares += m->beta[i][j] * m->beta[i][j];
          if (j > i + 1) {
            EXPECT_EQ(m->beta[i][j], 0.0) << i << "," << j;
          }
        }
        EXPECT_NEAR(m->sum_sq[i], squares, 1e-12) << m->rows[i];
        farthest_from_one = std::max(farthest_from_one, std::abs(squares - 1));
        EXPECT_GT(m->beta[i][i + 1], 0.0) << m->rows[i];  // its own branch contributes
        // Uncorrelated components would give 1; perturbed LayerNorm biases and finite-sample
        // correlations move it, but not arbitrarily far at initialization.
        EXPECT_GT(m->sum_sq[i], 0.3) << m->rows[i];
        EXPECT_LT(m->sum_sq[i], 3.0) << m->rows[i];
        const double output_var = masked_population_variance(outputs.at(m->rows[i]), mask);
        EXPECT_GT(output_var, 0) << m->rows[i];
      }
    }
    // The paper's denominator is the output's own std, so correlated components (the perturbed
    // LayerNorm biases correlate them) move a row's squares off 1. The old denominator,
    // sqrt(sum_k var(component k)), made every row sum to exactly 1.
    EXPECT_GT(farthest_from_one, 0.02);
    EXPECT_EQ(r.encoder.labels.front(), "enc.embed");
    EXPECT_EQ(r.encoder.rows.at(3), "enc.1.ffn");
    EXPECT_EQ(r.decoder.rows.at(1), "dec.0.enc_attn");
  }
}

// The encoder's embedding output x0 (its first sub-layer's input), in float64.
torch::Tensor embedding_output(TransformerImpl& model, const Batch& batch) {
  struct EmbeddingRecorder : SublayerObserver {
    torch::Tensor embedding;
    void on_sublayer(const SublayerId& id, const SublayerTrace& t) override {
      if (id.stack == Stack::Encoder && id.index == 0) embedding = t.input.detach().clone();
    }
  } recorder;
  torch::NoGradGuard no_grad;
  model.eval();
  model.hooks().observer = &recorder;
  model.encode(batch.src);
  model.hooks().observer = nullptr;
  return recorder.embedding.to(torch::kFloat64);
}

// LayerNorm without its affine part, computed here: (x - mean) / sqrt(var + 1e-5) per token.
torch::Tensor standardize(const torch::Tensor& x) {
  return (x - x.mean(-1, true)) / torch::sqrt(x.var(-1, false, true) + 1e-5);
}

// A 1-layer Post-LN encoder worked by hand, with branches as correlated as they can be: the
// attention branch is forced to k * x0 (x0 the embedding) and the FFN branch to its own input
// x1. LN centres each component per token and divides all of them by the same per-token
// sigma, so with gamma = 1, beta = 0 and v = x0 - mean_token(x0):
//   x1 = LN(x0 + k x0): components v, k v (over sigma)  -> beta_1 = (1, k) / (1 + k)
//   x2 = LN(x1 + x1):   components in ratio 1 : k : 1+k  -> beta_2 = (1, k, 1 + k) / (2 (1 + k))
// With
// k = 2: (1/3, 2/3) and (1/6, 1/3, 1/2); row sums of squares 5/9 and 7/18, not 1. Dividing by
// sqrt(sum of variances) would give (1, 2)/sqrt(5) and (1, 2, 3)/sqrt(14).
TEST(Beta, PostLnWithCorrelatedBranchesMatchesTheHandWorkedValues) {
  Fixture f = make(small_config("post", "xavier", 1, 1));
  const double k = 2.0;
  const torch::Tensor x0 = embedding_output(*f.model, f.batch);
  const torch::Tensor x1 = standardize((1 + k) * x0).to(torch::kFloat32);
  BetaResult r = compute_beta(*f.model, f.batch, [&](const SublayerId& id, torch::Tensor b) {
    if (id.stack != Stack::Encoder) return b;
    return id.index == 0 ? (k * x0).to(torch::kFloat32) : x1;
  });
  const auto& row1 = r.encoder.beta.at(0);
  const auto& row2 = r.encoder.beta.at(1);
  EXPECT_NEAR(row1[0], 1.0 / 3, 1e-5);
  EXPECT_NEAR(row1[1], 2.0 / 3, 1e-5);
  EXPECT_NEAR(r.encoder.sum_sq[0], 5.0 / 9, 1e-5);
  EXPECT_NEAR(row2[0], 1.0 / 6, 1e-5);
  EXPECT_NEAR(row2[1], 1.0 / 3, 1e-5);
  EXPECT_NEAR(row2[2], 1.0 / 2, 1e-5);
  EXPECT_NEAR(r.encoder.sum_sq[1], 7.0 / 18, 1e-5);
  EXPECT_EQ(r.encoder.bias[0], 0.0);  // beta = 0 at init: no bias term
}

// The same first sub-layer with a LayerNorm bias b set by hand: with u = LN((1 + k) x0)
// without affine, the output is u + b and the components are u / (1 + k) and k u / (1 + k),
// so beta_{1,j} = std(c_j) / std(u + b) and the bias's share is std(b) / std(u + b), every
// variance over all elements of the non-pad positions (b broadcast over tokens).
TEST(Beta, LayerNormBiasCountsInTheOutputsStd) {
  Fixture f = make(small_config("post", "xavier", 1, 1));
  const double k = 2.0;
  torch::Tensor b;
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(4);
    for (auto& n : f.model->catalog().norms)
      if (n.name == "enc.0.self_attn.post_norm") {
        n.norm->bias.copy_(torch::randn_like(n.norm->bias) * 0.7);
        b = n.norm->bias.detach().to(torch::kFloat64).clone();
      }
  }
  ASSERT_TRUE(b.defined());
  const torch::Tensor x0 = embedding_output(*f.model, f.batch);
  const torch::Tensor u = standardize((1 + k) * x0);
  BetaResult r = compute_beta(*f.model, f.batch, [&](const SublayerId& id, torch::Tensor br) {
    return id.stack == Stack::Encoder && id.index == 0 ? (k * x0).to(torch::kFloat32) : br;
  });
  const torch::Tensor mask = non_pad(f.batch.src);
  const double out_std = std::sqrt(masked_population_variance(u + b, mask));
  const double u_std = std::sqrt(masked_population_variance(u, mask)) / (1 + k);
  const double b_std = std::sqrt(masked_population_variance(torch::zeros_like(u) + b, mask));
  EXPECT_NEAR(r.encoder.beta[0][0], u_std / out_std, 1e-5);
  EXPECT_NEAR(r.encoder.beta[0][1], k * u_std / out_std, 1e-5);
  EXPECT_NEAR(r.encoder.bias[0], b_std / out_std, 1e-5);
  EXPECT_GT(r.encoder.bias[0], 0.1);
}

// After training the branches are correlated: beta still divides by the actual output's std
// (checked against the model's own recorded outputs), and the rows' squares no longer sum to
// 1 -- which the sum-of-variances denominator would have hidden.
TEST(Beta, TrainedPostLnRowsUseTheOutputsStdAndTheirSquaresDriftFromOne) {
  Fixture f = make(small_config("post", "xavier", 3, 2));
  {
    torch::optim::Adam adam(f.model->parameters(), torch::optim::AdamOptions(2e-3));
    f.model->train();
    for (int step = 0; step < 150; ++step) {
      adam.zero_grad();
      LossSums sums =
          label_smoothed_loss(f.model->forward(f.batch.src, f.batch.tgt_in), f.batch.tgt_out, 0.1);
      (sums.smoothed / static_cast<double>(sums.tokens)).backward();
      adam.step();
    }
  }
  double worst = 0, drift = 0;
  StreamDecomposer decomposer([&](const StreamStep& step) {
    if (step.final_norm) return;
    const torch::Tensor mask =
        non_pad(step.id.stack == Stack::Encoder ? f.batch.src : f.batch.tgt_in);
    double squares = 0;
    const double out_var = masked_population_variance(step.output, mask);
    for (const auto& c : step.components) squares += masked_population_variance(c, mask);
    drift = std::max(drift, std::abs(squares / out_var - 1.0));
  });
  {
    torch::NoGradGuard no_grad;
    ObservedEval observed(*f.model, &decomposer);
    f.model->forward(f.batch.src, f.batch.tgt_in);
  }
  BetaResult r = compute_beta(*f.model, f.batch);
  const auto outputs = record_outputs(*f.model, f.batch);
  StreamDecomposer components([&](const StreamStep& step) {
    if (step.final_norm) return;
    const bool enc = step.id.stack == Stack::Encoder;
    const BetaMatrix& m = enc ? r.encoder : r.decoder;
    const torch::Tensor mask = non_pad(enc ? f.batch.src : f.batch.tgt_in);
    const size_t i = static_cast<size_t>(step.id.index);
    const double out_std = std::sqrt(masked_population_variance(outputs.at(step.id.name()), mask));
    for (size_t j = 0; j < step.components.size(); ++j) {
      const double expected =
          std::sqrt(masked_population_variance(step.components[j], mask)) / out_std;
      worst = std::max(worst, std::abs(m.beta[i][j] - expected));
    }
  });
  {
    torch::NoGradGuard no_grad;
    ObservedEval observed(*f.model, &components);
    f.model->forward(f.batch.src, f.batch.tgt_in);
  }
  EXPECT_LT(worst, 1e-5);
  EXPECT_GT(drift, 0.05);  // correlated branches: sum of variances != variance of the sum
  double max_dev = 0;
  for (const BetaMatrix* m : {&r.encoder, &r.decoder})
    for (double s : m->sum_sq) max_dev = std::max(max_dev, std::abs(s - 1.0));
  EXPECT_GT(max_dev, 0.05);
}

// A Pre-LN hyper-connection model (`connection` hyper or mhc, 3 streams, N encoder and 2
// decoder layers) whose hc.* weights are moved off their initial values, so that the streams
// differ (at initialization they stay equal).
Fixture streams_apart(const std::string& connection, int N) {
  RunConfig c = small_config("pre", "xavier", N, 2);
  c.model.connection = connection;
  c.model.hc_streams = 3;
  Fixture f = make(c);
  torch::NoGradGuard no_grad;
  torch::manual_seed(5);
  for (auto& e : f.model->catalog().extras)
    if (e.kind == "hc") e.tensor.add_(torch::randn_like(e.tensor) * 0.3);
  return f;
}

// The decomposition of one forward pass, every step's components (and bias) summed against the
// model's own output there: the steps seen, how many after a final LayerNorm, and the largest
// difference (absolute, and relative to the output's largest value).
struct SumBack {
  int steps = 0, finals = 0;
  double worst = 0, worst_relative = 0;
};
SumBack decompose(TransformerImpl& model, const Batch& batch) {
  SumBack r;
  StreamDecomposer decomposer([&](const StreamStep& step) {
    ++r.steps;
    r.finals += step.final_norm;
    torch::Tensor sum = step.bias.clone();
    for (const auto& c : step.components) sum += c;
    EXPECT_EQ(step.components.size(), static_cast<size_t>(step.id.index + 2));
    const torch::Tensor output = step.output.to(torch::kFloat64);
    const double diff = (sum - output).abs().max().item<double>();
    r.worst = std::max(r.worst, diff);
    r.worst_relative = std::max(r.worst_relative, diff / output.abs().max().item<double>());
  });
  torch::NoGradGuard no_grad;
  model.eval();
  model.hooks().observer = &decomposer;
  model.forward(batch.src, batch.tgt_in);
  model.hooks().observer = nullptr;
  return r;
}

TEST(Beta, ComponentsSumBackToTheModelsOutput) {
  for (const auto& [norm, init] : kResidualMethods) {
    SCOPED_TRACE(norm + "/" + init);
    Fixture f = make(small_config(norm, init));
    perturb_norms(*f.model, 7);
    const SumBack r = decompose(*f.model, f.batch);
    EXPECT_EQ(r.steps, 6 + 6 + (final_ln_row(norm) ? 2 : 0));
    EXPECT_EQ(r.finals, final_ln_row(norm) ? 2 : 0);
    EXPECT_LT(r.worst, 1e-4);
  }
}

// Pre-LN with every branch forced to iid unit-variance noise: output i is the embedding plus
// i independent unit-variance components, so beta_{i,j}^2 = v_j / (v_0 + i) with v_0 the
// embedding's variance (measured here from the embedding itself) and v_j = 1 for j >= 1.
TEST(Beta, PreLnWithEqualBranchVariancesGivesOneOverI) {
  Fixture f = make(small_config("pre", "xavier", 6, 2));
  const torch::Tensor x0 = embedding_output(*f.model, f.batch);
  const torch::Tensor mask = non_pad(f.batch.src);
  const double v0 = masked_population_variance(x0, mask);
  torch::manual_seed(11);
  BetaResult r = compute_beta(
      *f.model, f.batch, [](const SublayerId&, torch::Tensor b) { return torch::randn_like(b); });
  for (size_t i = 1; i <= r.encoder.rows.size(); ++i) {
    const auto& row = r.encoder.beta[i - 1];
    const double expected = 1.0 / (v0 + static_cast<double>(i));
    EXPECT_NEAR(row[i] * row[i], expected, 0.06 * expected) << "output " << i;
    EXPECT_NEAR(row[0] * row[0], v0 * expected, 0.06 * v0 * expected) << "output " << i;
  }
}

// Post-LN at init: the last sub-layer's own branch dominates its output (Admin s4.1), while
// the embedding's share has decayed.
TEST(Beta, PostLnOutputsRelyOnTheirOwnBranch) {
  Fixture f = make(small_config("post", "xavier", 6, 2));
  BetaResult r = compute_beta(*f.model, f.batch);
  const auto& last = r.encoder.beta.back();
  EXPECT_GT(last[12], last[0]);
  EXPECT_GT(last[12], last[6]);
}

// Admin at initialization (Admin s4.1 and s4.3, figures 7-8): omega is profiled so that each
// sub-layer's own branch gets a share of its output like Pre-LN's, which falls with depth as
// 1/(v0 + i) (v0: the embedding's variance in units of a branch's; the forced-branch test
// above), while Post-LN's stays large at every depth. Measured here on the models' own branches.
TEST(Beta, AdminOwnBranchShareFallsLikePreLn) {
  std::map<std::string, std::vector<double>> share;  // beta_{i,i}^2 by sub-layer i
  for (const auto& [norm, init] : std::vector<std::pair<std::string, std::string>>{
           {"post", "admin"}, {"pre", "xavier"}, {"post", "xavier"}}) {
    Fixture f = make(small_config(norm, init, 6, 2));
    const auto& beta = compute_beta(*f.model, f.batch).encoder.beta;
    for (size_t i = 1; i <= beta.size(); ++i)
      share[init == "admin" ? "admin" : norm].push_back(beta[i - 1][i] * beta[i - 1][i]);
  }
  for (const auto& [method, s] : share) {
    std::cout << method << " beta_ii^2:";
    for (double v : s) std::cout << " " << v;
    std::cout << "\n";
  }
  // Means over the first and the last 4 of the 12 sub-layers (attention and FFN alternate,
  // with different branch variances, so single rows zigzag). Measured: Admin 0.139 -> 0.077,
  // Pre-LN 0.132 -> 0.081, Post-LN 0.218 -> 0.309.
  auto mean = [&](const std::string& method, size_t from) {
    const auto& s = share.at(method);
    return (s[from] + s[from + 1] + s[from + 2] + s[from + 3]) / 4;
  };
  EXPECT_LT(mean("admin", 8), 0.7 * mean("admin", 0));  // falls with depth
  EXPECT_LT(mean("pre", 8), 0.7 * mean("pre", 0));
  EXPECT_GT(mean("post", 8), mean("post", 0));               // Post-LN's does not
  EXPECT_LT(mean("admin", 8), 0.5 * mean("post", 8));        // deep down, far below Post-LN's
  EXPECT_NEAR(mean("admin", 8) / mean("pre", 8), 1.0, 0.5);  // and like Pre-LN's
}

// Hyper-connection stacks (hyper, mHC; 3 streams, their mixing parameters moved so that the
// streams differ): at every sub-layer the components summed over the streams, and after the
// final LayerNorm the normalized ones, add up to the model's own output there.
TEST(Beta, HyperConnectionComponentsSumBackToTheModelsOutput) {
  for (const std::string connection : {"hyper", "mhc"}) {
    SCOPED_TRACE(connection);
    Fixture f = streams_apart(connection, 3);
    perturb_norms(*f.model, 7);
    const SumBack r = decompose(*f.model, f.batch);
    EXPECT_EQ(r.steps, 6 + 6 + 2);
    EXPECT_EQ(r.finals, 2);
    EXPECT_LT(r.worst_relative, 1e-5);
  }
}

// At initialization a hyper-connection model keeps its streams equal and computes the Pre-LN
// model's function (OutputShift.HyperConnectionsAtInitializationShiftAsPreLn): every component,
// summed over the n streams, is n times the Pre-LN one, so every beta row is Pre-LN's.
TEST(Beta, HyperConnectionsAtInitializationGiveThePreLnRows) {
  RunConfig pre = small_config("pre", "xavier", 3, 2);
  const BetaResult expected = [&] {
    Fixture f = make(pre);
    return compute_beta(*f.model, f.batch);
  }();
  for (const std::string connection : {"hyper", "mhc"}) {
    SCOPED_TRACE(connection);
    RunConfig c = pre;
    c.model.connection = connection;
    c.model.hc_streams = 4;
    Fixture f = make(c);
    const BetaResult got = compute_beta(*f.model, f.batch);
    for (const auto& [want, have] :
         {std::pair(&expected.encoder, &got.encoder), std::pair(&expected.decoder, &got.decoder)}) {
      ASSERT_EQ(have->rows, want->rows);
      ASSERT_TRUE(have->final_row && want->final_row);
      for (size_t i = 0; i < want->beta.size(); ++i)
        for (size_t j = 0; j < want->beta[i].size(); ++j)
          EXPECT_NEAR(have->beta[i][j], want->beta[i][j], 1e-4) << want->rows[i] << " " << j;
      for (size_t j = 0; j < want->final_row->beta.size(); ++j)
        EXPECT_NEAR(have->final_row->beta[j], want->final_row->beta[j], 1e-4) << "final " << j;
    }
  }
}

// compute_beta holds the components of a chunk of sentences at a time (kBetaComponentBytes);
// at one sentence a chunk it must still give the whole batch's shares: std(component j) /
// std(output i) computed here over the whole batch at once, from one decomposition of it and
// the model's own outputs (record_outputs), never merged across chunks.
TEST(Beta, ABatchTakenASentenceAtATimeGivesTheWholeBatchsShares) {
  std::vector<std::pair<std::string, Fixture>> models;
  for (const auto& [norm, init] :
       {std::pair("post", "xavier"), std::pair("pre", "xavier"), std::pair("post", "admin")})
    models.emplace_back(std::string(norm) + "/" + init, make(small_config(norm, init)));
  models.emplace_back("hyper", streams_apart("hyper", 3));
  for (auto& [name, f] : models) {
    SCOPED_TRACE(name);
    perturb_norms(*f.model, 11);
    ASSERT_GE(f.batch.rows(), 4);
    const torch::Tensor masks[2] = {non_pad(f.batch.src), non_pad(f.batch.tgt_in)};
    std::map<std::string, std::vector<double>> component_std;  // output -> std of each part
    {
      torch::NoGradGuard no_grad;
      StreamDecomposer whole([&](const StreamStep& step) {
        const int s = static_cast<int>(step.id.stack);
        const std::string key = step.final_norm
                                    ? (s == 0 ? "enc" : "dec") + std::string(".final_norm")
                                    : step.id.name();
        for (const auto& c : step.components)
          component_std[key].push_back(std::sqrt(masked_population_variance(c, masks[s])));
      });
      ObservedEval observed(*f.model, &whole);
      f.model->forward(f.batch.src, f.batch.tgt_in);
    }
    const auto outputs = record_outputs(*f.model, f.batch);
    const BetaResult r = compute_beta(*f.model, f.batch, nullptr, /*component_bytes=*/1);
    int checked = 0;
    for (int s = 0; s < 2; ++s) {
      const BetaMatrix& m = s == 0 ? r.encoder : r.decoder;
      auto expect_row = [&](const std::string& output, const std::vector<double>& row) {
        const double output_std =
            std::sqrt(masked_population_variance(outputs.at(output), masks[s]));
        const auto& parts = component_std.at(output);
        for (size_t j = 0; j < parts.size(); ++j, ++checked)
          EXPECT_NEAR(row.at(j), parts[j] / output_std, 1e-5) << output << " " << j;
      };
      for (size_t i = 0; i < m.rows.size(); ++i) expect_row(m.rows[i], m.beta[i]);
      if (m.final_row) expect_row(m.final_label, m.final_row->beta);
    }
    EXPECT_GT(checked, 40);
  }
}

TEST(Beta, DepthwiseLstmIsRejected) {
  RunConfig c = small_config("pre", "xavier", 2, 2);
  c.model.connection = "depthwise_lstm";
  Fixture f = make(c);
  EXPECT_THROW(compute_beta(*f.model, f.batch), std::invalid_argument);
}

// ||dL/dx_k|| against autograd on a 1+1-layer model. Pre-LN: x_k = x_{k-1} + f_k + delta_k
// with a zero delta_k injected as the branch's rewrite, so dL/d delta_k = dL/dx_k exactly.
// Post-LN: autograd.grad of the loss with respect to the recorded outputs.
TEST(GradNorms, EqualAutogradOnATinyModel) {
  for (const std::string norm : {"pre", "post"}) {
    SCOPED_TRACE(norm);
    Fixture f = make(small_config(norm, "xavier", 1, 1));
    const auto norms = sublayer_grad_norms(*f.model, f.batch, 0.1);
    ASSERT_EQ(norms.size(), 5u);

    struct Injector : SublayerObserver {
      bool inject = false;
      std::vector<torch::Tensor> deltas, outputs;
      torch::Tensor transform_branch(const SublayerId&, torch::Tensor b) override {
        if (!inject) return b;
        deltas.push_back(torch::zeros_like(b).requires_grad_(true));
        return b + deltas.back();
      }
      void on_sublayer(const SublayerId&, const SublayerTrace& t) override {
        outputs.push_back(t.output);
      }
    } injector;
    injector.inject = norm == "pre";
    f.model->eval();
    f.model->hooks().observer = &injector;
    LossSums sums =
        label_smoothed_loss(f.model->forward(f.batch.src, f.batch.tgt_in), f.batch.tgt_out, 0.1);
    f.model->hooks().observer = nullptr;
    const torch::Tensor loss = sums.smoothed / static_cast<double>(sums.tokens);
    const auto grads =
        torch::autograd::grad({loss}, norm == "pre" ? injector.deltas : injector.outputs);
    for (size_t k = 0; k < norms.size(); ++k) {
      const double expected = grads[k].norm().item<double>();
      EXPECT_NEAR(norms[k].norm, expected, 1e-5 * expected + 1e-12) << norms[k].id.name();
    }
    EXPECT_EQ(grad_norm_group(norms[0].id), "enc_attn");
    EXPECT_EQ(grad_norm_group(norms[1].id), "enc_ffn");
    EXPECT_EQ(grad_norm_group(norms[2].id), "dec_self_attn");
    EXPECT_EQ(grad_norm_group(norms[3].id), "dec_enc_attn");
    EXPECT_EQ(grad_norm_group(norms[4].id), "dec_ffn");
    for (const auto& p : f.model->parameters()) {
      if (p.grad().defined()) {
        EXPECT_EQ(p.grad().abs().sum().item<double>(), 0.0);
      }
    }
  }
}

// A hyper-connection stack passes n streams on; their sum (the trace's output) feeds no later
// computation, so the norm is of dL/dH_k over the packed streams [B, T, n d]. Each layer's last
// sub-layer against autograd of a zero added to the layer's output state (the stacks'
// layer_output hook: independent of the sub-layer trace); every norm positive and finite (all
// were 0 when the sum was read). Streams set apart by random mixing parameters.
TEST(GradNorms, HyperConnectionsReportTheGradientOfTheStreams) {
  for (const std::string connection : {"hyper", "mhc"}) {
    SCOPED_TRACE(connection);
    Fixture f = streams_apart(connection, 2);
    const RunConfig& c = f.config;
    const auto norms = sublayer_grad_norms(*f.model, f.batch, 0.1);
    ASSERT_EQ(norms.size(), 10u);  // 2 x (attn, ffn), then 2 x (self, cross, ffn)
    for (const auto& n : norms) {
      EXPECT_TRUE(std::isfinite(n.norm)) << n.id.name();
      EXPECT_GT(n.norm, 0.0) << n.id.name();
    }

    struct LayerStates : SublayerObserver {
      std::vector<torch::Tensor> deltas;
      torch::Tensor layer_output(Stack, int, torch::Tensor state) override {
        deltas.push_back(torch::zeros_like(state).requires_grad_(true));
        return state + deltas.back();
      }
    } states;
    f.model->eval();
    f.model->hooks().observer = &states;
    LossSums sums =
        label_smoothed_loss(f.model->forward(f.batch.src, f.batch.tgt_in), f.batch.tgt_out, 0.1);
    f.model->hooks().observer = nullptr;
    const auto grads =
        torch::autograd::grad({sums.smoothed / static_cast<double>(sums.tokens)}, states.deltas);
    ASSERT_EQ(grads.size(), 4u);  // the encoder's 2 layers, then the decoder's
    const size_t last_of_layer[4] = {1, 3, 6, 9};
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(grads[k].size(-1), 3 * c.model.d_model);
      const double expected = grads[k].norm().item<double>();
      EXPECT_NEAR(norms[last_of_layer[k]].norm, expected, 1e-5 * expected + 1e-12)
          << norms[last_of_layer[k]].id.name();
    }
  }
}

// w/sigma from the LayerNorm inputs, recomputed here: sigma_t = sqrt(mean_d (z - mean)^2 +
// 1e-5) per non-pad token, value = mean_t mean_d |w_d| / sigma_t, for LayerNorms with random
// (partly negative) weights.
TEST(LnScale, MatchesHandComputationOnPostLnNorms) {
  Fixture f = make(small_config("post", "xavier", 2, 1));
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(4);
    for (auto& n : f.model->catalog().norms)
      n.norm->weight.copy_(torch::randn_like(n.norm->weight));
  }
  struct Inputs : SublayerObserver {
    std::map<std::string, std::pair<torch::Tensor, torch::Tensor>> seen;  // name -> z, gamma
    std::map<std::string, int> stack;
    void on_norm(const SublayerId* owner, const NormTrace& t) override {
      seen[t.name] = {t.input.detach().clone(), t.gamma.detach().clone()};
      stack[t.name] = owner ? static_cast<int>(owner->stack) : -1;
    }
  } inputs;
  {
    torch::NoGradGuard no_grad;
    f.model->eval();
    f.model->hooks().observer = &inputs;
    f.model->forward(f.batch.src, f.batch.tgt_in);
    f.model->hooks().observer = nullptr;
  }
  const auto scales = ln_scales(*f.model, f.batch);
  ASSERT_EQ(scales.size(), 2u * 2 + 3u * 1);  // every sub-layer of a Post-LN model
  const torch::Tensor masks[2] = {non_pad(f.batch.src), non_pad(f.batch.tgt_in)};
  for (const auto& s : scales) {
    ASSERT_TRUE(inputs.seen.count(s.name)) << s.name;
    const auto& [z64, gamma] = inputs.seen[s.name];
    const torch::Tensor z = z64.to(torch::kFloat64);
    const torch::Tensor centered = z - z.mean(-1, true);
    const torch::Tensor sigma = torch::sqrt(centered.pow(2).mean(-1) + 1e-5);  // [B, T]
    const torch::Tensor ratio =
        gamma.to(torch::kFloat64).abs().mean() / sigma.index({masks[inputs.stack[s.name]]});
    EXPECT_NEAR(s.w_over_sigma, ratio.mean().item<double>(), 1e-5) << s.name;
    EXPECT_NEAR(s.min, ratio.min().item<double>(), 1e-5) << s.name;
    EXPECT_NEAR(s.max, ratio.max().item<double>(), 1e-5) << s.name;
  }
}

TEST(LnScale, PreLnHasNoPostLnNorms) {
  Fixture f = make(small_config("pre", "xavier", 2, 1));
  EXPECT_TRUE(ln_scales(*f.model, f.batch).empty());
}

TEST(GradNormLogging, ParametersGroupByLayer) {
  EXPECT_EQ(parameter_layer("encoder.layer3_ffn.w1.weight"), "enc.3");
  EXPECT_EQ(parameter_layer("decoder.layer12_self_attn_connection.post_norm.ln.bias"), "dec.12");
  EXPECT_EQ(parameter_layer("source_embedding"), "embed");
  EXPECT_EQ(parameter_layer("decoder.decoder_final_norm.ln.weight"), "other");
}

// Each layer's norm is the L2 norm of the gradients of the parameters under its module prefix,
// recomputed here from the parameter names; together they make up the global norm.
TEST(GradNormLogging, LayerNormsPartitionTheGlobalNorm) {
  Fixture f = make(small_config("post", "xavier", 2, 2));
  f.model->eval();
  LossSums sums =
      label_smoothed_loss(f.model->forward(f.batch.src, f.batch.tgt_in), f.batch.tgt_out, 0.1);
  (sums.smoothed / static_cast<double>(sums.tokens)).backward();
  std::vector<std::pair<std::string, torch::Tensor>> named;
  double total = 0, enc1 = 0;
  for (const auto& p : f.model->named_parameters()) {
    named.emplace_back(p.key(), p.value());
    if (!p.value().grad().defined()) continue;
    const double sq = p.value().grad().to(torch::kFloat64).pow(2).sum().item<double>();
    total += sq;
    if (p.key().rfind("encoder.layer1_", 0) == 0) enc1 += sq;
  }
  const auto norms = layer_grad_norms(named);
  double sum = 0;
  for (const auto& [layer, n] : norms) sum += n * n;
  EXPECT_NEAR(sum, total, 1e-9 * total);
  ASSERT_TRUE(norms.count("enc.1"));
  EXPECT_NEAR(norms.at("enc.1"), std::sqrt(enc1), 1e-9);
  for (const char* layer : {"enc.0", "dec.0", "dec.1", "embed"})
    EXPECT_TRUE(norms.count(layer)) << layer;
}

}  // namespace test_analysis
}  // namespace fathom::analysis
