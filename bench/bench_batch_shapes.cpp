// How many distinct batch shapes a training plan collates to -- each one CUDA graph under
// train.cuda_graphs, which captures at most 512 (core/train/graphed_updates.h) -- and what
// data.pad_to_multiple trades for fewer: the padding it adds and the batches it makes, at the
// sizes users train (100k to 4.5M pairs, WMT14 En-Fr's), by token budget and multiple. Lengths
// are drawn to resemble a 32k-BPE news corpus: source log-normal around 25 ids (sigma 0.6), the
// target the source times log-normal(0.08, 0.15), both capped at 250 (data.max_len), eos
// included. Only lengths exist: planning and counting shapes read nothing else.
//   bench_batch_shapes [sizes=100000,1000000,4500000] [budgets=4096,25000] [multiples=1,8,16,32]
// Prints per row the plan's batches, its distinct shapes, the share of batches replayed (their
// shape among the first 512 the first epoch meets), the padding (positions beyond the longer
// sides' tokens), the plan's time, and the shapes and positions as ratios to the first multiple.
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "core/data/batch.h"
#include "core/data/token_pairs.h"

namespace fathom::bench::bench_batch_shapes {

namespace {

// The lengths of `n` pairs in a TokenPairs layout of their own (no ids: nothing reads them).
struct LengthsOnly {
  std::vector<std::uint32_t> src, tgt;
  std::vector<std::uint64_t> offsets;
  std::uint32_t token = 0;
};

TokenPairs news_like_pairs(long n) {
  auto store = std::make_shared<LengthsOnly>();
  std::mt19937_64 rng(11);
  std::normal_distribution<double> source(std::log(25.0), 0.6), ratio(0.08, 0.15);
  auto capped = [](double x) {
    return static_cast<std::uint32_t>(std::clamp(std::lround(x), 1L, 250L) + 1);  // + eos
  };
  for (long i = 0; i < n; ++i) {
    const double s = std::exp(source(rng));
    store->src.push_back(capped(s));
    store->tgt.push_back(capped(s * std::exp(ratio(rng))));
  }
  store->offsets.assign(store->src.size(), 0);
  TokenPairs::Layout layout;
  layout.tokens = &store->token;
  layout.width = 4;
  layout.offsets = store->offsets.data();
  layout.src_lens = store->src.data();
  layout.tgt_lens = store->tgt.data();
  layout.pairs = store->src.size();
  return TokenPairs(layout, store);
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = parse_size_list(argc > 1 ? argv[1] : "100000,1000000,4500000");
  const auto budgets = parse_size_list(argc > 2 ? argv[2] : "4096,25000");
  const auto multiples = parse_size_list(argc > 3 ? argv[3] : "1,8,16,32");
  std::printf("%9s %8s %8s %9s %8s %10s %10s %9s %12s %12s\n", "pairs", "budget", "multiple",
              "batches", "shapes", "graphed %", "padding %", "plan s", "shapes/m=1",
              "positions/m=1");
  for (long n : sizes) {
    const TokenPairs pairs = news_like_pairs(n);
    for (long budget : budgets) {
      double shapes_1 = 0, positions_1 = 0;
      for (long m : multiples) {
        const auto start = std::chrono::steady_clock::now();
        const BatchPlan plan = plan_batches(pairs, budget, m);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const BatchShapes shapes = batch_shapes(pairs, plan);
        const double padding = shapes.padding_percent();
        if (m == multiples.front()) {
          shapes_1 = static_cast<double>(shapes.distinct);
          positions_1 = static_cast<double>(shapes.padded_positions);
        }
        std::printf("%9ld %8ld %8ld %9zu %8zu %10.1f %10.1f %9.3f %12.3f %12.3f\n", n, budget, m,
                    plan.size(), shapes.distinct,
                    100.0 * replayable_share(shapes, epoch_order(plan, /*seed=*/1, /*epoch=*/0)),
                    padding, seconds, static_cast<double>(shapes.distinct) / shapes_1,
                    static_cast<double>(shapes.padded_positions) / positions_1);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace fathom::bench::bench_batch_shapes

FATHOM_BENCH_PROGRAM(bench_batch_shapes,
                     "distinct batch shapes (CUDA graphs) and padding by data.pad_to_multiple");
