// Attention's forward + backward on the CPU at each CPU size's shapes (bench/train_sizes.h),
// alternated round by round on the same inputs, median ms of each and their ratio:
// - "core": softmax(q k^T / sqrt(d) + masks) v alone, the explicit path's tensor ops (as
//   core/model/attention.cpp runs them) against Fathom's loop (core/model/cpu_attention.h),
//   and on LibTorch >= 2.0 against at::scaled_dot_product_attention too ("sdpa", x = sdpa /
//   loop);
// - "sub-layer": the whole attention module, projections included, model.fused_attention off
//   against on (LibTorch 1.x: the loop; 2.x: the fused call).
//   bench_attention [rounds=15] [threads=1]
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <torch/version.h>

#include "base/util/blas_setup.h"
#include "bench/bench_program.h"
#include "bench/train_sizes.h"
#include "core/model/attention.h"
#include "core/model/cpu_attention.h"

namespace fathom::bench::bench_attention {

namespace {

struct Case {
  std::string name;
  int64_t rows, T, S;
  int d_model, heads;
  bool self_attention, causal;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const TrainSize& s : train_sizes()) {
    if (std::string(s.meant_for) != "cpu") continue;
    if (!s.decoder_only)
      out.push_back({s.name + " encoder self", s.rows, s.src_len, s.src_len, s.d_model, s.heads,
                     true, false});
    out.push_back({s.name + " decoder self (causal)", s.rows, s.tgt_len, s.tgt_len, s.d_model,
                   s.heads, true, true});
    if (!s.decoder_only)
      out.push_back(
          {s.name + " cross", s.rows, s.tgt_len, s.src_len, s.d_model, s.heads, false, false});
  }
  // The sizes have d_head 16 or 64; the other heads counts of their widths fill in between.
  out.push_back({"tiny, 2 heads, decoder self", 204, 10, 10, 64, 2, true, true});
  out.push_back({"small, 8 heads, decoder self", 256, 16, 16, 256, 8, true, true});
  out.push_back({"lm-small, 8 heads", 128, 32, 32, 256, 8, true, true});
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ms of one forward + backward.
double time_once(MultiheadAttention& attention, const torch::Tensor& query,
                 const torch::Tensor& memory, const torch::Tensor& padding, bool causal) {
  const auto start = std::chrono::steady_clock::now();
  torch::Tensor out = attention(query, memory, padding, causal);
  out.sum().backward();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The explicit path's core, op for op as core/model/attention.cpp has it.
torch::Tensor explicit_core(torch::Tensor q, const torch::Tensor& k, const torch::Tensor& v,
                            const torch::Tensor& padding, bool causal) {
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), S = k.size(2), dh = q.size(3);
  q = q * (1.0 / std::sqrt(static_cast<double>(dh)));
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1));
  scores = scores.masked_fill(padding.view({B, 1, 1, S}), -INFINITY);
  if (causal) scores = scores.masked_fill(torch::ones({T, S}, torch::kBool).triu(1), -INFINITY);
  return torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({B, T, H * dh});
}

// LibTorch 2.x's fused call on the same inputs (its boolean mask marks the keys that take
// part); 1.x has none.
torch::Tensor fused_core(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& padding, bool causal) {
#if TORCH_VERSION_MAJOR >= 2
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), S = k.size(2), dh = q.size(3);
  torch::Tensor allowed = padding.logical_not().view({B, 1, 1, S});
  if (causal) allowed = allowed.logical_and(torch::ones({T, S}, torch::kBool).tril());
  return at::scaled_dot_product_attention(q, k, v, allowed, 0.0, false)
      .transpose(1, 2)
      .reshape({B, T, H * dh});
#else
  return torch::Tensor();
#endif
}
constexpr bool kHasFused = TORCH_VERSION_MAJOR >= 2;

template <typename F>
double time_core(F attention) {
  const auto start = std::chrono::steady_clock::now();
  attention().sum().backward();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  torch::set_num_threads(argc > 2 ? std::atoi(argv[2]) : 1);
  std::printf("threads %d, rounds %d, median ms of one forward + backward\n",
              torch::get_num_threads(), rounds);
  std::printf("%-30s %5s %3s %3s %6s | %-22s | %-14s | %-22s\n", "", "", "", "", "",
              "core: explicit  loop", "sdpa", "sub-layer: off    on");
  std::printf("%-30s %5s %3s %3s %6s | %8s %7s %5s | %8s %5s | %8s %7s %5s\n", "shape", "rows", "T",
              "S", "d_head", "ms", "ms", "x", "ms", "x", "ms", "ms", "x");
  for (const Case& c : cases()) {
    std::vector<MultiheadAttention> modules;
    for (FusedAttention fused : {FusedAttention::Off, FusedAttention::On}) {
      ParameterCatalog catalog;
      torch::manual_seed(1);
      modules.emplace_back(c.d_model, c.heads, 0.0, c.self_attention, SublayerId{}, "attn", catalog,
                           fused);
      modules.back()->train();
    }
    torch::manual_seed(2);
    const torch::Tensor query = torch::randn({c.rows, c.T, c.d_model}).requires_grad_();
    const torch::Tensor memory = torch::randn({c.rows, c.S, c.d_model}).requires_grad_();
    // Every fourth row padded in its last quarter, as batches of unequal lengths are.
    torch::Tensor padding = torch::zeros({c.rows, c.S}, torch::kBool);
    padding.index_put_({torch::indexing::Slice(0, torch::indexing::None, 4),
                        torch::indexing::Slice(c.S - c.S / 4, torch::indexing::None)},
                       true);
    const int64_t dh = c.d_model / c.heads;
    auto heads = [&](int64_t L) {
      return torch::randn({c.rows, L, c.heads, dh}).transpose(1, 2).requires_grad_();
    };
    const torch::Tensor q = heads(c.T), k = heads(c.S), v = heads(c.S);
    std::vector<double> times[5];
    for (int r = 0; r < rounds + 2; ++r) {
      const double t[5] = {
          time_core([&] { return explicit_core(q, k, v, padding, c.causal); }),
          time_core([&] { return attention_on_cpu(q, k, v, padding, c.causal, 0.0, true); }),
          kHasFused ? time_core([&] { return fused_core(q, k, v, padding, c.causal); }) : 0.0,
          time_once(modules[0], query, memory, padding, c.causal),
          time_once(modules[1], query, memory, padding, c.causal)};
      if (r >= 2)  // two warm-up rounds
        for (int m = 0; m < 5; ++m) times[m].push_back(t[m]);
    }
    double ms[5];
    for (int m = 0; m < 5; ++m) ms[m] = median(times[m]);
    char fused[32] = "       -     -";
    if (kHasFused) std::snprintf(fused, sizeof fused, "%8.3f %5.2f", ms[2], ms[2] / ms[1]);
    std::printf("%-30s %5ld %3ld %3ld %6ld | %8.3f %7.3f %5.2f | %s | %8.3f %7.3f %5.2f\n",
                c.name.c_str(), long(c.rows), long(c.T), long(c.S), long(dh), ms[0], ms[1],
                ms[0] / ms[1], fused, ms[3], ms[4], ms[3] / ms[4]);
  }
  return 0;
}

}  // namespace fathom::bench::bench_attention

FATHOM_BENCH_PROGRAM(bench_attention,
                     "attention forward + backward on the CPU: explicit ops, loop, fused");
