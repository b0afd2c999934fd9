// Hyperparameter importance (experiments/hparam_importance.h) at the sizes a lab's sweeps
// reach: grids of 4 axes whose settings times 3 seeds make 1,200 to 120,000 runs. Prints the
// time of one decomposition and the process's peak memory after it, per size, so the growth
// with the number of runs shows side by side; under each, the same grid with a tenth of its
// settings without a value, which the fitted model predicts first. Grids of up to 2,000
// settings include the 200 draws of the shares' intervals.
//   build/bench/bench_importance
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "experiments/hparam_importance.h"

namespace fathom::bench::bench_importance {

namespace {

// Axes a (n_a values) x b x c x d, 3 seeds, value = effects + noise.
std::vector<fathom::experiments::TableRun> grid(int n_a, int n_b, int n_c, int n_d) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.1);
  std::vector<fathom::experiments::TableRun> runs;
  for (int a = 0; a < n_a; ++a)
    for (int b = 0; b < n_b; ++b)
      for (int c = 0; c < n_c; ++c)
        for (int d = 0; d < n_d; ++d)
          for (int s = 1; s <= 3; ++s) {
            fathom::experiments::TableRun r;
            r.status = "finished";
            r.axes = {{"train.lr", std::to_string(a)},
                      {"model.norm", std::to_string(b)},
                      {"model.encoder_layers", std::to_string(c)},
                      {"model.init", std::to_string(d)},
                      {"train.seed", std::to_string(s)}};
            r.metric = 0.3 * a + 0.1 * b * c + 0.05 * d + noise(rng);
            runs.push_back(std::move(r));
          }
  return runs;
}

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

// The same decomposition with every 10th setting's runs left without a value (diverged), so the
// missing settings are predicted by the fitted model (experiments/grid_completion.h) first.
double seconds_with_missing(std::vector<fathom::experiments::TableRun> runs) {
  for (size_t i = 0; i < runs.size(); ++i)
    if ((i / 3) % 10 == 0) runs[i].metric.reset();  // 3 seeds a setting
  const auto start = std::chrono::steady_clock::now();
  const auto h = fathom::experiments::hparam_importance(runs, "valid_loss");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%8s %10d %12.3f %14.1f   (%d predicted, R^2 %.3f, %d draws)\n", "", h.cells, seconds,
              peak_rss_kb() / 1024.0, h.filled, h.fit_r_squared, h.interval_draws);
  return seconds;
}

int bench_main(int, char**) {
  std::printf("%8s %10s %12s %14s\n", "runs", "settings", "seconds", "peak RSS MB");
  for (const int n : {5, 10, 20, 32}) {  // n x n x 4 x 4 settings
    const auto runs = grid(n, n, 4, 4);
    const auto start = std::chrono::steady_clock::now();
    const auto h = fathom::experiments::hparam_importance(runs, "valid_loss");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%8zu %10d %12.3f %14.1f   (top: %s %.1f %%, %d draws)\n", runs.size(), h.cells,
                seconds, peak_rss_kb() / 1024.0, h.terms.front().axes.front().c_str(),
                100 * h.terms.front().share, h.interval_draws);
    seconds_with_missing(runs);
  }
  return 0;
}

}  // namespace fathom::bench::bench_importance

FATHOM_BENCH_PROGRAM(bench_importance, "hyperparameter importance over 1,200-120,000 runs");
