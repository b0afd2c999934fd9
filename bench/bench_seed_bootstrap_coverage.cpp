// How often the intervals over seeds hold what the seeds were drawn from: the LR sensitivity's
// 95 % interval (experiments/lr_sensitivity.h, bootstrap_sensitivity: rescaled draws, expanded
// ends) and the best rate's (experiments/grid_optimum.h, grid_optimum: the rates where the slope
// is within noise of zero, experiments/optimum_interval.h; its width in octaves, and how many
// reach no end of the grid and how often those hold it); the bootstraps of the slope of
// ln(best rate) on ln(depth) (experiments/lr_transfer.h) and of the exponent of the best depth
// against the budget (experiments/optimum_scaling.h). The curves: R rates, log-spaced by 2x, whose
// loss is a parabola in log rate (its vertex between two middle rates, `curvature` the loss one
// octave from it adds) plus Gaussian noise a seed; S seeds a rate. The true values:
// sensitivity_over at the noise-free losses, and the parabola's vertex (which the three points
// around the lowest noise-free mean give exactly). Over 1,000 curves each (a coverage's standard
// error ~0.7 %; 500 sweeps for the slope and the exponent, ~1 %), with the misses above and below,
// so too narrow and biased read apart.
//   build/bench/bench_seed_bootstrap_coverage
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <tuple>
#include <vector>

#include "bench/bench_program.h"
#include "experiments/grid_optimum.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/lr_transfer.h"
#include "experiments/optimum_scaling.h"

namespace fathom::bench::bench_seed_bootstrap_coverage {
namespace {

struct Curve {
  std::vector<double> rates, truth;
  std::vector<std::vector<double>> seeds;
  double best_rate = 0;  // the parabola's vertex
};

// How often intervals held their truth, out of `tried` (an interval that could not be made --
// an optimum unbracketed -- counts as a miss), the misses above and below, the widths.
struct Tally {
  int tried = 0, held = 0, above = 0, below = 0;
  std::vector<double> widths;
  void add(double lo, double hi, double truth, double scale = 1) {
    ++tried;
    if (std::isnan(lo)) return;
    held += lo <= truth && truth <= hi;
    above += lo > truth;
    below += hi < truth;
    widths.push_back((hi - lo) / scale);
  }
  double held_percent() const { return 100.0 * held / tried; }
  double median_width() {
    if (widths.empty()) return 0;
    std::sort(widths.begin(), widths.end());
    return widths[widths.size() / 2];
  }
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

// A method's curves at depths 6, 12 and 24 whose best rate falls as depth^slope: the vertex
// `slope` octaves on per octave of depth, from 4.3 octaves above the first rate at 6 layers.
std::vector<std::pair<double, experiments::LrSensitivity>> transfer_curves(
    double slope, int seeds, double curvature, double noise, std::mt19937_64& random) {
  std::normal_distribution<double> normal(0, noise);
  std::vector<std::pair<double, experiments::LrSensitivity>> by_depth;
  for (const double depth : {6.0, 12.0, 24.0}) {
    const double vertex = 4.3 + slope * std::log2(depth / 6);
    experiments::LrCurve c;
    c.label = "method";
    for (int i = 0; i < 9; ++i) {
      experiments::LrPoint p;
      p.lr = 1e-4 * std::pow(2.0, i);
      for (int s = 0; s < seeds; ++s)
        p.values.push_back(2 + curvature * (i - vertex) * (i - vertex) + normal(random));
      c.points.push_back(p);
    }
    experiments::LrSensitivity at;
    at.curves.push_back(c);
    by_depth.emplace_back(depth, at);
  }
  return by_depth;
}

// One table: for each (seeds, curvature, noise, truth), 500 sweeps of `interval` (drawing its
// data from `random`) against the truth; `shape` the grid's size before the seeds ("3 x 9").
using SweepInterval = std::function<std::pair<double, double>(
    int seeds, double curvature, double noise, double truth, std::mt19937_64& random)>;
using Settings = std::vector<std::tuple<int, double, double, double>>;

void coverage_table(const char* head, const char* shape, unsigned seed, const Settings& settings,
                    const SweepInterval& interval) {
  std::printf("\n%s\n|---|---:|---:|---:|---:|---:|\n", head);
  constexpr int kExperiments = 500;
  for (const auto& [seeds, curvature, noise, truth] : settings) {
    std::mt19937_64 random(seed);
    Tally tally;
    for (int k = 0; k < kExperiments; ++k) {
      const auto [lo, hi] = interval(seeds, curvature, noise, truth, random);
      tally.add(lo, hi, truth);
    }
    std::printf("| %s x %d | %.3f / %.3f | %.2f | %.1f %% | %d / %d | %.3f |\n", shape, seeds,
                curvature, noise, truth, tally.held_percent(), tally.above, tally.below,
                tally.median_width());
    std::fflush(stdout);
  }
}

// One line's cells at four budgets an octave apart over depths 2..64 (an octave apart), its best
// depth growing as budget^exponent from 2.3 octaves above 2 at the first budget. Each (depth,
// seed) run is read at every budget: its loss there the curve's plus the run's own offset (shared
// by its budgets, as a training's luck is) plus that budget's noise.
std::vector<experiments::BudgetLine> scaling_lines(double exponent, int seeds, double curvature,
                                                   double noise, std::mt19937_64& random) {
  std::normal_distribution<double> offset(0, noise), wobble(0, noise / 2);
  constexpr int kDepths = 6;
  std::vector<std::vector<double>> run_offset(kDepths);
  for (auto& runs : run_offset)
    for (int s = 0; s < seeds; ++s) runs.push_back(offset(random));
  std::vector<experiments::BudgetLine> lines;
  for (int k = 0; k < 4; ++k) {
    experiments::BudgetLine line;
    line.budget = 1e10 * std::pow(2.0, k);
    const double vertex = 2.3 + exponent * k;
    for (int i = 0; i < kDepths; ++i) {
      line.xs.push_back(2 * std::pow(2.0, i));
      experiments::TableCell cell;
      for (int s = 0; s < seeds; ++s) {
        cell.values.push_back(3 - 0.1 * k + curvature * (i - vertex) * (i - vertex) +
                              run_offset[i][s] + wobble(random));
        cell.value_runs.push_back(100 * i + s);
      }
      cell.value = cell.values.front();  // any value: the fit reads `values`
      line.cells.push_back(cell);
    }
    lines.push_back(line);
  }
  return lines;
}

// An interval that could not be made, or one that reaches the grid's end: the optimum not
// placed inside the grid (experiments::AxisOptimum::inconclusive).
bool reaches_an_end(const experiments::GridOptimum& best, const std::vector<double>& rates) {
  return std::isnan(best.ci_lo) || best.ci_lo <= rates.front() * (1 + 1e-9) ||
         best.ci_hi >= rates.back() * (1 - 1e-9);
}

}  // namespace

int bench_main(int, char**) {
  std::printf(
      "| rates x seeds | loss an octave off / seed noise | curves | LR sensitivity: interval "
      "holds the truth | above / below | median width / truth | best rate: holds the truth | "
      "above / below | median width, octaves | inside the grid: curves, held |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  constexpr int kCurves = 1000;
  for (const auto& [rates, seeds, curvature, noise] : {std::tuple{6, 3, 0.02, 0.02},
                                                       {6, 3, 0.02, 0.005},
                                                       {6, 5, 0.02, 0.02},
                                                       {8, 3, 0.05, 0.02},
                                                       {6, 10, 0.02, 0.02}}) {
    std::mt19937_64 random(7);
    Tally sensitivity, best_rate, inside;  // inside: intervals that reach no end of the grid
    for (int k = 0; k < kCurves; ++k) {
      const Curve c = curve(rates, seeds, curvature, noise, random);
      const double truth = experiments::sensitivity_over(c.rates, c.truth);
      const auto [lo, hi] = experiments::bootstrap_sensitivity(c.rates, c.seeds, 2000, 1000 + k);
      sensitivity.add(lo, hi, truth, truth);
      const auto best = experiments::grid_optimum(c.rates, c.seeds, 2000, 1000 + k);
      // In octaves (log2), so its width reads as octaves of rate; unbracketed: NaN, a miss.
      best_rate.add(std::log2(best.ci_lo), std::log2(best.ci_hi), std::log2(c.best_rate));
      if (!reaches_an_end(best, c.rates))
        inside.add(std::log2(best.ci_lo), std::log2(best.ci_hi), std::log2(c.best_rate));
    }
    std::printf(
        "| %d x %d | %.3f / %.3f | %d | %.1f %% | %d / %d | %.2f | %.1f %% | %d / %d | %.2f | %d, "
        "%.1f %% |\n",
        rates, seeds, curvature, noise, kCurves, sensitivity.held_percent(), sensitivity.above,
        sensitivity.below, sensitivity.median_width(), best_rate.held_percent(), best_rate.above,
        best_rate.below, best_rate.median_width(), inside.tried,
        inside.tried ? inside.held_percent() : 0.0);
    std::fflush(stdout);
  }
  coverage_table(
      "| depths x rates x seeds | loss an octave off / seed noise | true slope | slope: interval "
      "holds it | above / below | median width |",
      "3 x 9", 11,
      {{3, 0.02, 0.02, -0.5}, {3, 0.05, 0.02, 0}, {5, 0.02, 0.02, -0.5}, {10, 0.02, 0.02, -0.5}},
      [](int seeds, double curvature, double noise, double slope, auto& random) {
        const auto t = experiments::lr_transfer(
            transfer_curves(slope, seeds, curvature, noise, random), "decoder_layers");
        return std::pair{t.slopes.front().ci_lo, t.slopes.front().ci_hi};
      });
  coverage_table(
      "| budgets x depths x seeds | loss an octave off / run noise | true exponent | exponent: "
      "interval holds it | above / below | median width |",
      "4 x 6", 13,
      {{3, 0.02, 0.02, 0.5}, {3, 0.05, 0.02, 0.25}, {5, 0.02, 0.02, 0.5}, {10, 0.02, 0.02, 0.5}},
      [](int seeds, double curvature, double noise, double exponent, auto& random) {
        const auto fit = experiments::optimum_scaling(
            "line", "layers", "compute", scaling_lines(exponent, seeds, curvature, noise, random),
            false);
        return std::pair{fit.ci_lo, fit.ci_hi};
      });
  return 0;
}

}  // namespace fathom::bench::bench_seed_bootstrap_coverage

FATHOM_BENCH_PROGRAM(
    bench_seed_bootstrap_coverage,
    "how often the intervals over seeds (LR sensitivity, best rate, transfer slope, "
    "scaling exponent) hold the truth");
