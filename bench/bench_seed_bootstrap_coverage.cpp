// How often the bootstraps over seeds hold what the seeds were drawn from: the LR sensitivity's
// 95 % interval (experiments/lr_sensitivity.h, bootstrap_sensitivity: rescaled draws, expanded
// ends) and the best rate's (experiments/grid_optimum.h, grid_optimum: plain percentiles), each
// resampling every rate's seeds. Curves of R rates, log-spaced by 2x, whose loss is a parabola
// in log rate (its vertex between two middle rates, `curvature` the loss one octave from it
// adds) plus Gaussian noise a seed; S seeds a rate. The true values: sensitivity_over at the
// noise-free losses, and the parabola's vertex (which the three points around the lowest
// noise-free mean give exactly). Over 1,000 curves each (a coverage's standard error ~0.7 %),
// with the misses above and below, so too narrow and biased read apart.
//   build/bench/bench_seed_bootstrap_coverage
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

#include "bench/bench_program.h"
#include "experiments/grid_optimum.h"
#include "experiments/lr_sensitivity.h"

namespace fathom::bench::bench_seed_bootstrap_coverage {
namespace {

struct Curve {
  std::vector<double> rates, truth;
  std::vector<std::vector<double>> seeds;
  double best_rate = 0;  // the parabola's vertex
};

Curve curve(int rates, int seeds, double curvature, double noise, std::mt19937_64& random) {
  std::normal_distribution<double> normal(0, noise);
  Curve c;
  const double vertex = (rates - 1) / 2.0 + 0.3;  // in octaves from the first rate
  c.best_rate = 1e-4 * std::pow(2.0, vertex);
  for (int i = 0; i < rates; ++i) {
    c.rates.push_back(1e-4 * std::pow(2.0, i));
    const double loss = 2 + curvature * (i - vertex) * (i - vertex);
    c.truth.push_back(loss);
    std::vector<double> v;
    for (int s = 0; s < seeds; ++s) v.push_back(loss + normal(random));
    c.seeds.push_back(v);
  }
  return c;
}

}  // namespace

int bench_main(int, char**) {
  std::printf(
      "| rates x seeds | loss an octave off / seed noise | curves | LR sensitivity: interval "
      "holds the truth | above / below | median width / truth | best rate: holds the truth | "
      "above / below |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  constexpr int kCurves = 1000;
  for (const auto [rates, seeds, curvature, noise] : {std::tuple{6, 3, 0.02, 0.02},
                                                      {6, 3, 0.02, 0.005},
                                                      {6, 5, 0.02, 0.02},
                                                      {8, 3, 0.05, 0.02},
                                                      {6, 10, 0.02, 0.02}}) {
    std::mt19937_64 random(7);
    int held = 0, above = 0, below = 0, rate_held = 0, rate_above = 0, rate_below = 0;
    std::vector<double> widths;
    double truth = 0;
    for (int k = 0; k < kCurves; ++k) {
      const Curve c = curve(rates, seeds, curvature, noise, random);
      truth = experiments::sensitivity_over(c.rates, c.truth);
      const auto [lo, hi] = experiments::bootstrap_sensitivity(c.rates, c.seeds, 2000, 1000 + k);
      held += lo <= truth && truth <= hi;
      above += lo > truth;
      below += hi < truth;
      widths.push_back((hi - lo) / truth);
      const auto best = experiments::grid_optimum(c.rates, c.seeds, 2000, 1000 + k);
      if (!best.bracketed || std::isnan(best.ci_lo)) continue;  // counted as a miss
      rate_held += best.ci_lo <= c.best_rate && c.best_rate <= best.ci_hi;
      rate_above += best.ci_lo > c.best_rate;
      rate_below += best.ci_hi < c.best_rate;
    }
    std::sort(widths.begin(), widths.end());
    std::printf("| %d x %d | %.3f / %.3f | %d | %.1f %% | %d / %d | %.2f | %.1f %% | %d / %d |\n",
                rates, seeds, curvature, noise, kCurves, 100.0 * held / kCurves, above, below,
                widths[widths.size() / 2], 100.0 * rate_held / kCurves, rate_above, rate_below);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace fathom::bench::bench_seed_bootstrap_coverage

FATHOM_BENCH_PROGRAM(bench_seed_bootstrap_coverage,
                     "how often the seed bootstraps (LR sensitivity, best rate) hold the truth");
