#include "experiments/grid_completion.h"

#include <cstddef>

#include "base/metrics/least_squares.h"

namespace fathom::experiments {
namespace {

using fathom::SparseRow;

// The model's row for a setting, by its non-zero entries: 1, each axis's effect code (value
// v < L-1: the unit vector e_v; the last value: all -1, so each axis's effects sum to 0 over
// its values), then each pair's products of the two codes.
SparseRow design_row(const std::vector<int>& levels, const Setting& s) {
  std::vector<SparseRow> codes;  // per axis, indices within its block
  for (size_t i = 0; i < levels.size(); ++i) {
    SparseRow code;
    if (s[i] == levels[i] - 1)
      for (int v = 0; v < levels[i] - 1; ++v) code.index.push_back(v), code.value.push_back(-1);
    else
      code.index.push_back(s[i]), code.value.push_back(1);
    codes.push_back(code);
  }
  SparseRow row{{0}, {1.0}};
  int offset = 1;
  for (size_t i = 0; i < codes.size(); ++i) {
    for (size_t u = 0; u < codes[i].index.size(); ++u)
      row.index.push_back(offset + codes[i].index[u]), row.value.push_back(codes[i].value[u]);
    offset += levels[i] - 1;
  }
  for (size_t i = 0; i < codes.size(); ++i)
    for (size_t j = i + 1; j < codes.size(); ++j) {
      const int width = levels[j] - 1;  // the pair's block is (L_i - 1) x (L_j - 1), row-major
      for (size_t u = 0; u < codes[i].index.size(); ++u)
        for (size_t v = 0; v < codes[j].index.size(); ++v) {
          row.index.push_back(offset + codes[i].index[u] * width + codes[j].index[v]);
          row.value.push_back(codes[i].value[u] * codes[j].value[v]);
        }
      offset += (levels[i] - 1) * width;
    }
  return row;
}

double dot(const SparseRow& row, const std::vector<double>& beta) {
  double s = 0;
  for (size_t u = 0; u < row.index.size(); ++u)
    s += row.value[u] * beta[static_cast<size_t>(row.index[u])];
  return s;
}

}  // namespace

int second_order_parameters(const std::vector<int>& levels) {
  int p = 1;
  for (size_t i = 0; i < levels.size(); ++i) {
    p += levels[i] - 1;
    for (size_t j = i + 1; j < levels.size(); ++j) p += (levels[i] - 1) * (levels[j] - 1);
  }
  return p;
}

namespace {

std::vector<SparseRow> design_rows(const std::vector<int>& levels,
                                   const std::vector<Setting>& settings) {
  std::vector<SparseRow> rows;
  for (const auto& s : settings) rows.push_back(design_row(levels, s));
  return rows;
}

// The mean and main effects cheap, the interactions dear: the fit explains what it can by
// main effects and keeps undetermined interactions at the smallest size.
std::vector<double> unknown_weights(const std::vector<int>& levels) {
  int mains = 1;
  for (int l : levels) mains += l - 1;
  std::vector<double> weights(static_cast<size_t>(second_order_parameters(levels)), 1.0);
  for (int k = 0; k < mains; ++k) weights[static_cast<size_t>(k)] = 1e-9;
  return weights;
}

}  // namespace

GridCompleter::GridCompleter(std::vector<int> levels, std::vector<Setting> observed,
                             std::vector<Setting> missing)
    : missing_(std::move(missing)),
      missing_rows_(design_rows(levels, missing_)),
      fit_(design_rows(levels, observed), unknown_weights(levels)) {}

GridCompletion GridCompleter::fill(const std::vector<double>& y) const {
  const std::vector<double> beta = fit_.solve(y);
  GridCompletion out;
  double mean = 0, total = 0, residual = 0;
  for (double v : y) mean += v / static_cast<double>(y.size());
  const std::vector<SparseRow>& rows = fit_.rows();
  for (size_t r = 0; r < rows.size(); ++r) {
    const double e = y[r] - dot(rows[r], beta);
    residual += e * e;
    total += (y[r] - mean) * (y[r] - mean);
  }
  out.r_squared = total > 0 ? 1 - residual / total : 1;
  for (size_t m = 0; m < missing_.size(); ++m)
    out.filled[missing_[m]] = dot(missing_rows_[m], beta);
  return out;
}

GridCompletion complete_grid(const std::vector<int>& levels,
                             const std::map<Setting, double>& observed,
                             const std::vector<Setting>& missing) {
  std::vector<Setting> settings;
  std::vector<double> means;
  for (const auto& [s, m] : observed) settings.push_back(s), means.push_back(m);
  return GridCompleter(levels, settings, missing).fill(means);
}

}  // namespace fathom::experiments
