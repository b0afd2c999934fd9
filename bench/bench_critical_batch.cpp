// The critical batch's bootstrap (experiments/critical_batch_interval.h), which `fathom export
// reach --fit-critical-batch`, a report's reach section and the Time to target tab run on every
// fit: 2,000 draws, each resampling every cell's runs and choosing each row's best again. Tables
// of B batch rows x R rates x S seeds made by S = 100 (1 + 400 / B) with 10 % noise, from the
// study's 4 x 6 x 3 (72 runs) to 16 x 32 x 32 (16,384); prints the fit's time and its interval
// per size, so the growth with the number of runs shows side by side; then how often the
// interval holds the B_crit the tables were made with, over 1,000 tables of a study's size.
//   build/bench/bench_critical_batch
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bench/bench_program.h"
#include "experiments/reach_text.h"

namespace fathom::bench::bench_critical_batch {
namespace {

experiments::ReachTable table(int rows, int rates, int seeds, uint64_t seed = 11) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, 0.1);
  experiments::ReachTable t;
  for (int r = 0; r < rows; ++r) {
    const double batch = 128.0 * std::pow(2.0, r * 5.0 / rows);  // 128 to 4096 tokens
    std::optional<size_t> best;
    for (int k = 0; k < rates; ++k) {
      experiments::ReachCell c;
      c.row = std::to_string(r);
      c.col = std::to_string(k);
      c.runs = c.reached = seeds;
      c.tokens_per_update = batch;
      // The rates' middle is fastest, 30 % slower at the ends.
      const double slow = 1 + 0.3 * std::abs(k - rates / 2.0) / (rates / 2.0);
      double sum = 0;
      for (int s = 0; s < seeds; ++s) {
        c.run_updates.push_back(100 * (1 + 400 / batch) * slow * (1 + noise(random)));
        c.run_b_simple.push_back(NAN);
        sum += c.run_updates.back();
      }
      c.updates = sum / seeds;
      t.cells.push_back(c);
      if (!best || c.updates < t.cells[*best].updates) best = t.cells.size() - 1;
    }
    t.best.push_back(*best);
  }
  return t;
}

}  // namespace

int bench_main(int, char**) {
  std::printf(
      "| rows x rates x seeds | runs | fit and 2,000 draws | B_crit | 95 %% interval |\n"
      "|---|---:|---:|---:|---|\n");
  for (const auto& [rows, rates, seeds] :
       {std::tuple{4, 6, 3}, {8, 8, 4}, {16, 16, 8}, {16, 32, 32}}) {
    const experiments::ReachTable t = table(rows, rates, seeds);
    const auto start = std::chrono::steady_clock::now();
    const auto fit = experiments::fit_best_cells(t);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!fit) return 1;
    std::printf("| %d x %d x %d | %d | %.3f s | %.0f | %.0f to %.0f |\n", rows, rates, seeds,
                rows * rates * seeds, s, fit->b_crit, fit->b_crit_lo, fit->b_crit_hi);
    std::fflush(stdout);
  }
  // How often the interval holds the B_crit the tables were made with (400), over 1,000 tables
  // each (a coverage's standard error ~0.7 %): the expanded percentile bootstrap's coverage at
  // a study's sizes, with one rate (no choice of the best) and with six (the best chosen among
  // them: biased low, but alike in every row, which moves S_min more than B_crit).
  std::printf(
      "\n| rows x rates x seeds | tables | interval holds B_crit 400 | median width |\n"
      "|---|---:|---:|---:|\n");
  for (const auto& [rows, rates, seeds] :
       {std::tuple{4, 1, 3}, {6, 1, 3}, {4, 1, 5}, {4, 6, 3}, {8, 6, 3}, {4, 6, 5}}) {
    int held = 0;
    std::vector<double> widths;
    constexpr int kTables = 1000;
    for (int k = 0; k < kTables; ++k) {
      const auto fit = experiments::fit_best_cells(table(rows, rates, seeds, 1000 + k));
      if (!fit) continue;
      held += fit->b_crit_lo <= 400 && 400 <= fit->b_crit_hi;
      widths.push_back(fit->b_crit_hi - fit->b_crit_lo);
    }
    std::sort(widths.begin(), widths.end());
    std::printf("| %d x %d x %d | %d | %.0f %% | %.0f |\n", rows, rates, seeds, kTables,
                100.0 * held / kTables, widths.empty() ? NAN : widths[widths.size() / 2]);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace fathom::bench::bench_critical_batch

FATHOM_BENCH_PROGRAM(bench_critical_batch,
                     "the critical batch's bootstrap over tables of 72-16,384 runs");
