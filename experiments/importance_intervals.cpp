#include "experiments/importance_intervals.h"

#include <algorithm>
#include <random>
#include <string>
#include <tuple>

namespace fathom::experiments {
namespace {

// Up to this many settings the shares get intervals: each draw decomposes the whole grid again
// (and refits the missing settings); the 200 draws take about 0.2 ms a setting
// (bench/bench_importance.cpp, docs/performance.md), so half a second at the limit.
constexpr int kIntervalSettings = 2000;
constexpr int kIntervalDraws = 200;

}  // namespace

// 95 % percentile intervals of each term's share and of the rest over draws that resample each
// setting's runs with replacement (a setting of one run stays as it is), the missing settings
// predicted anew from each draw's means. Deterministic: the draws' generator has a fixed seed.
void add_share_intervals(const Grid& g, const CellMeans& observed, const GridCompleter* completer,
                         HparamImportance& out) {
  size_t replicated = 0;  // settings with two runs or more: the ones a draw can move
  for (const auto& [c, m] : observed) replicated += g.values.at(c).size() > 1;
  if (out.total_variance <= 0) return;
  if (replicated == 0) {
    out.notes.push_back("no intervals: no setting has two runs to resample");
    return;
  }
  if (out.cells > kIntervalSettings) {
    out.notes.push_back("no intervals: over " + std::to_string(kIntervalSettings) +
                        " settings, the draws would take too long");
    return;
  }
  std::mt19937_64 random(20141);
  std::map<std::vector<std::string>, std::vector<double>> shares;
  std::vector<double> rest;
  for (int draw = 0; draw < kIntervalDraws; ++draw) {
    CellMeans mean;
    std::vector<double> in_order;
    for (const auto& [c, m] : observed) {
      const auto& values = g.values.at(c);
      std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
      double sum = 0;
      for (size_t k = 0; k < values.size(); ++k) sum += values[pick(random)];
      mean[c] = sum / static_cast<double>(values.size());
      in_order.push_back(mean[c]);
    }
    if (completer)
      for (const auto& [c, m] : completer->fill(in_order).filled) mean[c] = m;
    const Decomposition d = decompose(g, mean);
    for (const auto& t : d.terms) shares[t.axes].push_back(t.share);
    rest.push_back(d.higher_order_share);
  }
  const auto interval = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) { return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)]; };
    return std::pair{at(0.025), at(0.975)};
  };
  for (auto& t : out.terms) std::tie(t.share_lo, t.share_hi) = interval(shares.at(t.axes));
  std::tie(out.higher_order_lo, out.higher_order_hi) = interval(rest);
  out.interval_draws = kIntervalDraws;
  out.notes.push_back("[lo, hi]: 95 % interval of " + std::to_string(kIntervalDraws) +
                      " draws that resample each setting's runs (a setting of one run stays "
                      "fixed)" +
                      (completer ? ", the missing settings predicted anew in each" : ""));
  // Where some settings have one run, the intervals leave their noise out: say how many.
  if (replicated < observed.size())
    out.notes.push_back("only " + std::to_string(replicated) + " of the " +
                        std::to_string(observed.size()) +
                        " settings with a value have two runs or more: the intervals leave "
                        "out the seed noise of the others, and are narrower than it would make "
                        "them");
}

}  // namespace fathom::experiments
