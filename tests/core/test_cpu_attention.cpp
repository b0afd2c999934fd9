// Fathom's CPU attention loop (core/model/cpu_attention.h) against the formula written as tensor
// ops here -- softmax((q / sqrt(d)) k^T + masks) v, autograd through it -- in double: outputs
// and the gradients of q, k and v with each mask, strided inputs (the projections' views),
// attention dropout drawing the same numbers fathom::dropout draws, a row with no visible key,
// central finite differences, and the same bits on one thread as on two.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/model/cpu_attention.h"
#include "core/model/dropout.h"

namespace fathom {
namespace test_cpu_attention {

constexpr int64_t kB = 3, kH = 2, kT = 5, kS = 6, kDh = 4;

struct Inputs {
  torch::Tensor q, k, v;  // [B, H, L, d_head] views of [B, L, H * d_head] projections
  torch::Tensor padding;  // [B, S], true at padding
};

// As the attention module makes them: one packed [B, L, 3 * H * d_head] tensor split and
// viewed per head, so the rows are strided; keys padded at the end (row 1 two, row 2 three).
Inputs inputs(torch::Dtype dtype, int64_t T = kT, int64_t S = kS, int64_t B = kB) {
  torch::manual_seed(21);
  const auto opts = torch::dtype(dtype);
  auto heads = [&](const torch::Tensor& t, int64_t L) {
    return t.view({B, L, kH, kDh}).transpose(1, 2);
  };
  const torch::Tensor packed_q = torch::randn({B, T, 3 * kH * kDh}, opts);
  const torch::Tensor packed_kv = torch::randn({B, S, 2 * kH * kDh}, opts);
  Inputs in;
  in.q = heads(packed_q.slice(2, 0, kH * kDh), T).detach().requires_grad_();
  auto kv = packed_kv.chunk(2, -1);
  in.k = heads(kv[0], S).detach().requires_grad_();
  in.v = heads(kv[1], S).detach().requires_grad_();
  in.padding = torch::zeros({B, S}, torch::kBool);
  in.padding.index_put_({1, torch::indexing::Slice(S - 2, torch::indexing::None)}, true);
  in.padding.index_put_({2, torch::indexing::Slice(S - 3, torch::indexing::None)}, true);
  return in;
}

// The formula, independent of the loop: masked scores, softmax, the probabilities times
// `keep` (dropout's scaled keep mask, or none), times v; heads side by side.
torch::Tensor formula(const Inputs& in, bool padding, bool causal, const torch::Tensor& keep) {
  const int64_t B = in.q.size(0), T = in.q.size(2), S = in.k.size(2);
  torch::Tensor scores =
      torch::matmul(in.q / std::sqrt(static_cast<double>(kDh)), in.k.transpose(-2, -1));
  const double minus_inf = -std::numeric_limits<double>::infinity();
  if (padding) scores = scores.masked_fill(in.padding.view({B, 1, 1, S}), minus_inf);
  if (causal) scores = scores.masked_fill(torch::ones({T, S}, torch::kBool).triu(1), minus_inf);
  torch::Tensor probs = torch::softmax(scores, -1);
  if (keep.defined()) probs = probs * keep;
  return torch::matmul(probs, in.v).transpose(1, 2).reshape({B, T, kH * kDh});
}

struct Result {
  torch::Tensor out, dq, dk, dv;
};

// The output and the gradients of a fixed weighted sum of it.
template <typename F>
Result run(const Inputs& in, F attention) {
  for (const torch::Tensor& t : {in.q, in.k, in.v})
    if (t.grad().defined()) t.grad().zero_();
  Result r;
  r.out = attention();
  torch::manual_seed(22);
  (r.out * torch::randn(r.out.sizes(), r.out.options())).sum().backward();
  r.dq = in.q.grad().clone(), r.dk = in.k.grad().clone(), r.dv = in.v.grad().clone();
  return r;
}

double max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

void expect_close(const Result& got, const Result& want, double tolerance) {
  EXPECT_LE(max_difference(got.out, want.out), tolerance);
  EXPECT_LE(max_difference(got.dq, want.dq), tolerance);
  EXPECT_LE(max_difference(got.dk, want.dk), tolerance);
  EXPECT_LE(max_difference(got.dv, want.dv), tolerance);
  for (const torch::Tensor& g : {want.dq, want.dk, want.dv})
    EXPECT_GT(g.abs().max().item<double>(), 0.0) << "a zero gradient: the check says nothing";
}

TEST(CpuAttention, EqualsTheFormulaWithEachMaskInDoubleAndFloat) {
  for (torch::Dtype dtype : {torch::kDouble, torch::kFloat}) {
    const double tolerance = dtype == torch::kDouble ? 1e-12 : 2e-6;
    for (bool padding : {false, true})
      for (bool causal : {false, true}) {
        SCOPED_TRACE(std::string(dtype == torch::kDouble ? "double" : "float") +
                     (padding ? ", padding" : "") + (causal ? ", causal" : ""));
        // Causal self-attention has S = T; cross-attention a memory of another length.
        const Inputs in = causal ? inputs(dtype, kT, kT) : inputs(dtype);
        const Result want = run(in, [&] { return formula(in, padding, causal, {}); });
        const Result got = run(in, [&] {
          return attention_on_cpu(in.q, in.k, in.v, padding ? in.padding : torch::Tensor(), causal,
                                  0.0, true);
        });
        expect_close(got, want, tolerance);
      }
  }
}

// The masks must matter: padded keys (and, under the causal mask, later keys) may be changed
// at will without changing the output or receiving a gradient.
TEST(CpuAttention, MaskedKeysNeitherChangeTheOutputNorGetAGradient) {
  Inputs in = inputs(torch::kDouble, kT, kT);
  const Result before = run(in, [&] {
    return attention_on_cpu(in.q, in.k, in.v, in.padding.slice(1, 0, kT), true, 0.0, true);
  });
  // Row 2's last three keys are padded; query 0 of every row sees key 0 only.
  EXPECT_EQ(before.dk.select(0, 2).slice(1, kT - 3).abs().max().item<double>(), 0.0);
  EXPECT_EQ(before.dv.select(0, 2).slice(1, kT - 3).abs().max().item<double>(), 0.0);
  const torch::Tensor first_query = before.out.select(1, 0).view({kB, kH, kDh});
  const torch::Tensor first_value = in.v.select(2, 0).detach();  // softmax of one key is 1
  EXPECT_LE(max_difference(first_query, first_value), 1e-15);
}

// With dropout the loop draws its keep mask as the explicit path's fathom::dropout does
// (dropout_keep_mask of the probabilities' shape), so from one seed the two agree; the draws
// are checked to drop something, and the formula is given the same mask.
TEST(CpuAttention, DropoutDrawsWhatTheExplicitPathDraws) {
  const Inputs in = inputs(torch::kDouble);
  const double p = 0.3;
  torch::manual_seed(5);
  const torch::Tensor keep = dropout_keep_mask({kB, kH, kT, kS}, torch::kDouble, p);
  EXPECT_GT(keep.eq(0).sum().item<int64_t>(), 0);
  const Result want = run(in, [&] { return formula(in, true, false, keep); });
  const Result got = run(in, [&] {
    torch::manual_seed(5);
    return attention_on_cpu(in.q, in.k, in.v, in.padding, false, p, true);
  });
  expect_close(got, want, 1e-12);
  // Not training, or no dropout: nothing dropped.
  const Result eval = run(in, [&] { return formula(in, true, false, {}); });
  const Result off = run(in, [&] {
    return attention_on_cpu(in.q, in.k, in.v, in.padding, false, p, /*training=*/false);
  });
  expect_close(off, eval, 1e-12);
}

// A query row whose every key is padded attends to nothing: zeros and no gradient (the formula
// gives NaN there, which would poison the whole batch's gradient).
TEST(CpuAttention, ARowWithNoVisibleKeyGivesZeros) {
  Inputs in = inputs(torch::kDouble);
  in.padding.index_put_({0}, true);
  const Result got =
      run(in, [&] { return attention_on_cpu(in.q, in.k, in.v, in.padding, false, 0.0, true); });
  EXPECT_EQ(got.out.select(0, 0).abs().max().item<double>(), 0.0);
  EXPECT_TRUE(torch::isfinite(got.dq).all().item<bool>());
  EXPECT_EQ(got.dq.select(0, 0).abs().max().item<double>(), 0.0);
  const Result want = run(in, [&] { return formula(in, true, false, {}); });
  EXPECT_LE(max_difference(got.out.slice(0, 1), want.out.slice(0, 1)), 1e-12);
}

// The backward against central differences of the loop's own forward, every input element.
TEST(CpuAttention, GradientsMatchFiniteDifferences) {
  const Inputs in = inputs(torch::kDouble, kT, kT);
  torch::manual_seed(23);
  const torch::Tensor weights = torch::randn({kB, kT, kH * kDh}, torch::kDouble);
  auto loss = [&](const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
    return (attention_on_cpu(q, k, v, in.padding.slice(1, 0, kT), true, 0.0, true) * weights).sum();
  };
  loss(in.q, in.k, in.v).backward();
  torch::NoGradGuard no_grad;
  const double h = 1e-6;
  for (int which = 0; which < 3; ++which) {
    const torch::Tensor base = (which == 0   ? in.q
                                : which == 1 ? in.k
                                             : in.v)
                                   .detach()
                                   .clone(at::MemoryFormat::Contiguous);
    const torch::Tensor analytic = (which == 0 ? in.q : which == 1 ? in.k : in.v).grad();
    for (int64_t e = 0; e < base.numel(); ++e) {
      auto at = [&](double shift) {
        torch::Tensor moved = base.clone();
        moved.view({-1})[e] += shift;
        const torch::Tensor q = which == 0 ? moved : in.q.detach();
        const torch::Tensor k = which == 1 ? moved : in.k.detach();
        const torch::Tensor v = which == 2 ? moved : in.v.detach();
        return loss(q, k, v).item<double>();
      };
      const double numeric = (at(h) - at(-h)) / (2 * h);
      EXPECT_NEAR(analytic.reshape({-1})[e].item<double>(), numeric, 1e-7)
          << "input " << which << " element " << e;
    }
  }
}

// Each (row, head) is computed by one thread alone, so the thread count changes no bit (at this
// size the work is split: 128 (row, head) pairs of 32 x 32 x 4 products, 16 to a task).
TEST(CpuAttention, OneThreadAndTwoGiveTheSameBits) {
  const int threads = at::get_num_threads();
  const Inputs in = inputs(torch::kFloat, 32, 32, 64);
  std::vector<Result> results;
  for (int n : {1, 2}) {
    at::set_num_threads(n);
    results.push_back(run(in, [&] {
      torch::manual_seed(9);
      return attention_on_cpu(in.q, in.k, in.v, in.padding, false, 0.1, true);
    }));
  }
  at::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(results[0].out, results[1].out));
  EXPECT_TRUE(torch::equal(results[0].dq, results[1].dq));
  EXPECT_TRUE(torch::equal(results[0].dk, results[1].dk));
  EXPECT_TRUE(torch::equal(results[0].dv, results[1].dv));
}

}  // namespace test_cpu_attention
}  // namespace fathom
