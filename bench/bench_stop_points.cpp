// What the stop points of a training update cost (core/model/stop_point.h): a training forward
// and backward with ModelHooks::stop set (one atomic load per layer each way, and a gradient
// hook on each layer's output) against the same step without, alternated, median of N steps.
// The worst case is a deep model of small layers, where a layer's own work is least.
//   build/bench/bench_stop_points [--layers 48] [--d 64] [--tokens 512] [--steps 30]
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "bench/bench_program.h"
#include "core/model/stop_point.h"
#include "core/model/transformer.h"

namespace fathom::bench::bench_stop_points {

namespace {

int flag_value(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int bench_main(int argc, char** argv) {
  const int layers = flag_value(argc, argv, "--layers", 48);
  const int d = flag_value(argc, argv, "--d", 64);
  const int tokens = flag_value(argc, argv, "--tokens", 512);
  const int steps = flag_value(argc, argv, "--steps", 30);
  torch::set_num_threads(1);
  fathom::RunConfig c;
  c.model.d_model = d;
  c.model.heads = 4;
  c.model.d_ff = 2 * d;
  c.model.encoder_layers = layers;
  c.model.decoder_layers = layers;
  fathom::Transformer model = fathom::build_model(c, 100, 1);
  model->train();
  const int64_t len = 16, rows = std::max(1, tokens / 16);
  const torch::Tensor src = torch::randint(4, 100, {rows, len}, torch::kLong);
  const torch::Tensor tgt = torch::randint(4, 100, {rows, len}, torch::kLong);
  std::atomic<bool> stop{false};
  auto step = [&](bool with_points) {
    model->hooks().stop = with_points ? &stop : nullptr;
    model->zero_grad();
    const auto start = std::chrono::steady_clock::now();
    model->forward(src, tgt).sum().backward();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  step(false), step(true);  // warm-up
  std::vector<double> plain, checked;
  for (int i = 0; i < steps; ++i) {
    plain.push_back(step(false));
    checked.push_back(step(true));
  }
  // The stop point alone: the check and the hook it registers, on a layer-sized output.
  const torch::Tensor leaf = torch::zeros({rows, len, d}, torch::requires_grad());
  const int calls = 20000;
  const auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) fathom::stop_point(&stop, leaf * 1.0);
  const double with_op =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const auto begin_plain = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) (void)(leaf * 1.0);
  const double op_only =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_plain).count();
  std::printf("one stop point (check + gradient hook): %.2f us\n",
              (with_op - op_only) * 1e6 / calls);
  const double p = median(plain), k = median(checked);
  std::printf(
      "%d+%d layers, d %d, %lld tokens, 1 thread, median of %d steps: without %.2f ms, with stop "
      "points %.2f ms (%+.2f %%, %+.1f us a layer)\n",
      layers, layers, d, static_cast<long long>(rows * len), steps, p * 1e3, k * 1e3,
      100 * (k - p) / p, (k - p) * 1e6 / (2 * layers));
  return 0;
}

}  // namespace fathom::bench::bench_stop_points

FATHOM_BENCH_PROGRAM(bench_stop_points, "what a training update's stop points cost it");
