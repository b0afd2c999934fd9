// The label-smoothed loss's forward + backward over [rows, vocab] logits, the step's largest
// tensor (8,192 target tokens and a 32k vocabulary: 1 GB a float32 pass): the reduced-precision
// node (core/train/token_losses.h) against the plain autograd formula, alternated round by
// round on the same logits; median ms of each, their ratio, and on CUDA the allocator's peak.
//   bench_loss [device=cpu] [rows=8192] [vocab=32000] [dtype=bf16|fp16] [rounds=20]
// Run by hand (never in ctest); the GPU lease runs it at the bench sizes (scripts/gpu/lease.sh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/cuda_memory.h"
#include "core/train/token_losses.h"

namespace fathom::bench::bench_loss {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int bench_main(int argc, char** argv) {
  const torch::Device device(argc > 1 ? argv[1] : "cpu");
  const int64_t rows = argc > 2 ? std::atoll(argv[2]) : 8192;
  const int64_t vocab = argc > 3 ? std::atoll(argv[3]) : 32000;
  const std::string dtype_name = argc > 4 ? argv[4] : "bf16";
  const int rounds = argc > 5 ? std::atoi(argv[5]) : 20;
  const torch::ScalarType dtype = dtype_name == "fp16" ? torch::kHalf : torch::kBFloat16;
  const double epsilon = 0.1;
  torch::manual_seed(1);
  const auto on = torch::TensorOptions().device(device);
  const torch::Tensor logits = (torch::randn({1, rows, vocab}, on) * 2).to(dtype).requires_grad_();
  torch::Tensor target = torch::randint(1, vocab, {1, rows}, on.dtype(torch::kInt64));
  target.masked_fill_(torch::rand({1, rows}, on).lt(0.05), 0);  // ~5 % pads
  const torch::Tensor keep = target.ne(0);
  const int index = device.is_cuda() ? device.index() < 0 ? 0 : device.index() : 0;
  auto sync = [&] {
    if (device.is_cuda()) torch::cuda::synchronize();
  };
  auto pass = [&](auto&& losses) {
    const TokenLosses l = losses(logits, target, epsilon);
    l.smoothed.masked_fill(keep.logical_not(), 0).sum().backward();
    logits.mutable_grad().reset();
  };
  std::vector<double> node_ms, autograd_ms;
  int64_t node_peak = 0, autograd_peak = 0;
  auto timed = [&](auto&& losses, std::vector<double>& ms, int64_t& peak) {
    sync();
    reset_cuda_peak(index);
    const auto start = std::chrono::steady_clock::now();
    pass(losses);
    sync();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    peak = std::max<int64_t>(peak, cuda_peak_allocated_bytes(index).value_or(0));
  };
  for (int r = 0; r <= rounds; ++r) {
    std::vector<double> warm;
    int64_t ignored = 0;
    // Round 0 warms both (kernels loaded, the allocator's blocks cached); alternated after.
    auto& a = r == 0 ? warm : node_ms;
    auto& b = r == 0 ? warm : autograd_ms;
    if (r % 2 == 0) {
      timed(token_losses, a, r == 0 ? ignored : node_peak);
      timed(token_losses_by_autograd, b, r == 0 ? ignored : autograd_peak);
    } else {
      timed(token_losses_by_autograd, b, autograd_peak);
      timed(token_losses, a, node_peak);
    }
  }
  const double MiB = 1024.0 * 1024.0;
  std::printf("device %s  logits [%ld, %ld] %s  rounds %d\n", device.str().c_str(), long(rows),
              long(vocab), dtype_name.c_str(), rounds);
  std::printf("%-10s %10s %10s %8s %22s\n", "pass", "node ms", "autograd ms", "x",
              "peak MiB node / autograd");
  std::printf("%-10s %10.3f %10.3f %8.2f", "fwd+bwd", median(node_ms), median(autograd_ms),
              median(autograd_ms) / median(node_ms));
  if (device.is_cuda() && cuda_peak_allocated_bytes(index))
    std::printf(" %11.0f / %.0f\n", node_peak / MiB, autograd_peak / MiB);
  else
    std::printf(" %22s\n", "n/a");
  return 0;
}

}  // namespace fathom::bench::bench_loss

FATHOM_BENCH_PROGRAM(bench_loss,
                     "the loss's forward + backward: reduced-precision node vs autograd");
