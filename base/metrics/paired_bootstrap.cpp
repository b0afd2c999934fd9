#include "base/metrics/paired_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace fathom {
namespace {

// Mean and half the 95 % percentile interval of the scores (the 1/40th from each end).
void summarize_draws(std::vector<double> scores, BootstrapScore& out) {
  std::sort(scores.begin(), scores.end());
  const size_t n = scores.size();
  const size_t lower = n / 40, upper = n - lower - 1;
  double sum = 0;
  for (double s : scores) sum += s;
  out.mean = sum / static_cast<double>(n);
  out.ci = 0.5 * (scores[upper] - scores[lower]);
}

}  // namespace

void draw_segments(std::vector<size_t>& drawn, size_t block_length, std::mt19937_64& random) {
  const size_t n = drawn.size();
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  if (block_length <= 1) {  // kept apart: the single draws every stored p was computed with
    for (size_t& k : drawn) k = pick(random);
    return;
  }
  const size_t length = std::min(block_length, n);
  for (size_t start = 0; start < n; start += length) {
    const size_t first = pick(random);
    for (size_t j = 0; j < length && start + j < n; ++j) drawn[start + j] = (first + j) % n;
  }
}

PairedBootstrap paired_bootstrap(size_t segments, std::pair<double, double> whole,
                                 const PairedScorer& score, int samples, uint64_t seed,
                                 size_t block_length) {
  if (segments == 0) throw std::invalid_argument("paired bootstrap: no segments");
  if (samples < 1) throw std::invalid_argument("paired bootstrap: no draws");
  PairedBootstrap out;
  out.samples = samples;
  out.block_length = std::clamp<size_t>(block_length, 1, segments);
  out.baseline.score = whole.first;
  out.system.score = whole.second;
  out.difference = whole.second - whole.first;

  std::mt19937_64 random(seed);
  std::vector<size_t> drawn(segments);
  std::vector<double> base_scores, sys_scores, differences;
  for (int s = 0; s < samples; ++s) {
    draw_segments(drawn, out.block_length, random);
    const auto [base, sys] = score(drawn);
    base_scores.push_back(base);
    sys_scores.push_back(sys);
    differences.push_back(sys - base);  // signed: centred below
  }
  summarize_draws(base_scores, out.baseline);
  summarize_draws(sys_scores, out.system);
  {
    std::vector<double> sorted = differences;
    std::sort(sorted.begin(), sorted.end());
    const size_t lower = sorted.size() / 40, upper = sorted.size() - lower - 1;
    out.difference_low = sorted[lower];
    out.difference_high = sorted[upper];
  }

  // Under the null hypothesis the draws' differences scatter around zero: shift them by their
  // mean (Efron & Tibshirani's shift method; Koehn 2004) and count how often chance alone
  // gives a difference at least as far from zero as the real one, either way. Taking |d| before
  // centring (as this did until issue 56) folds the distribution and rejected 10 % of true
  // nulls at 0.05. sacreBLEU counts only larger ones, which calls a system significantly
  // different from itself.
  double mean_difference = 0;
  for (double d : differences) mean_difference += d;
  mean_difference /= samples;
  const double real = std::fabs(out.difference);
  int as_large = 0;
  for (double d : differences) as_large += std::fabs(d - mean_difference) >= real ? 1 : 0;
  out.p = (as_large + 1.0) / (samples + 1.0);
  return out;
}

}  // namespace fathom
