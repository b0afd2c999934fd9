// Dropout's forward, and forward + backward, on the CPU at each CPU size's activation shapes
// (bench/train_sizes.h: the residual stream [rows, T, d_model], the FFN's hidden [rows, T, d_ff],
// the attention probabilities [rows, heads, T, T]): torch::dropout (bernoulli_, one element at a
// time on one thread in LibTorch's CPU kernel without MKL) against fathom::dropout
// (core/model/dropout.h: SplitMix64 by index, in parallel), alternated round by round; median ms of
// each and their ratio; the minor page faults per call of each. Both draw from the same default
// generator.
//   bench_dropout [rounds=15] [threads=0 (LibTorch's default)] [p=0.1]
// Run by hand (never in ctest).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/util/blas_setup.h"
#include "base/util/malloc_setup.h"
#include "bench/bench_program.h"
#include "bench/cpu_peak.h"
#include "bench/train_sizes.h"
#include "core/model/dropout.h"

namespace fathom::bench::bench_dropout {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
double milliseconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

long minor_faults() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

}  // namespace

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);
  keep_freed_memory();  // as the trainer (and bench_train) run: freed blocks stay in the heap
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 0;
  const double p = argc > 3 ? std::atof(argv[3]) : 0.1;
  if (threads > 0) torch::set_num_threads(threads);
  std::printf("threads %d  p %.2f  load average %s\n", torch::get_num_threads(), p,
              load_average().c_str());
  std::printf("%-7s %-10s %-9s %12s %12s %12s %8s %14s\n", "size", "tensor", "pass", "elements",
              "torch ms", "fathom ms", "x", "faults t / f");
  for (const TrainSize& size : train_sizes()) {
    if (std::string(size.meant_for) != "cpu" || size.decoder_only) continue;
    const int64_t rows = size.rows, T = size.tgt_len;
    const std::vector<std::pair<std::string, std::vector<int64_t>>> shapes{
        {"stream", {rows, T, size.d_model}},
        {"ffn", {rows, T, size.d_ff}},
        {"attention", {rows, size.heads, T, T}}};
    for (const auto& [name, shape] : shapes) {
      for (const bool backward : {false, true}) {
        const torch::Tensor x = torch::randn(shape).requires_grad_(backward);
        const torch::Tensor grad = torch::ones(shape);
        auto pass = [&](auto&& drop) {
          if (!backward) {
            torch::NoGradGuard no_grad;
            drop(x);
            return;
          }
          drop(x).backward(grad);
          x.mutable_grad().reset();
        };
        std::vector<double> theirs, ours;
        long faults_theirs = 0, faults_ours = 0;
        for (int r = 0; r < rounds + 1; ++r) {
          const long f0 = minor_faults();
          const double a = milliseconds(
              [&] { pass([&](const torch::Tensor& t) { return torch::dropout(t, p, true); }); });
          const long f1 = minor_faults();
          const double b = milliseconds(
              [&] { pass([&](const torch::Tensor& t) { return fathom::dropout(t, p, true); }); });
          const long f2 = minor_faults();
          if (r == 0) continue;  // warm-up
          theirs.push_back(a);
          ours.push_back(b);
          faults_theirs += f1 - f0;
          faults_ours += f2 - f1;
        }
        std::printf("%-7s %-10s %-9s %12ld %12.3f %12.3f %8.2f %7ld / %ld\n", size.name.c_str(),
                    name.c_str(), backward ? "fwd+bwd" : "forward", long(x.numel()), median(theirs),
                    median(ours), median(theirs) / median(ours), faults_theirs / rounds,
                    faults_ours / rounds);
      }
    }
  }
  return 0;
}

}  // namespace fathom::bench::bench_dropout

FATHOM_BENCH_PROGRAM(bench_dropout, "dropout forward (+ backward) at the CPU sizes' shapes");
