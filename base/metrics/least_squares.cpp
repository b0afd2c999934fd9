#include "base/metrics/least_squares.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace fathom {
namespace {

using Matrix = std::vector<std::vector<double>>;

// In place: the lower triangle L of A = L L' (A symmetric positive definite).
void cholesky(Matrix& a) {
  const size_t n = a.size();
  for (size_t j = 0; j < n; ++j) {
    double d = a[j][j];
    for (size_t k = 0; k < j; ++k) d -= a[j][k] * a[j][k];
    if (!(d > 0)) throw std::invalid_argument("least squares: the system is not positive definite");
    a[j][j] = std::sqrt(d);
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i][j];
      for (size_t k = 0; k < j; ++k) s -= a[i][k] * a[j][k];
      a[i][j] = s / a[j][j];
    }
  }
}

// Solves L L' x = b with L from cholesky().
std::vector<double> solve_factored(const Matrix& l, std::vector<double> b) {
  const size_t n = l.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < i; ++k) b[i] -= l[i][k] * b[k];
    b[i] /= l[i][i];
  }
  for (size_t i = n; i-- > 0;) {
    for (size_t k = i + 1; k < n; ++k) b[i] -= l[k][i] * b[k];
    b[i] /= l[i][i];
  }
  return b;
}

}  // namespace

std::vector<double> min_norm_least_squares(const std::vector<std::vector<double>>& rows,
                                           const std::vector<double>& y,
                                           const std::vector<double>& weights) {
  std::vector<SparseRow> sparse;
  for (const auto& r : rows) {
    if (r.size() != weights.size())
      throw std::invalid_argument("least squares: a row of the wrong length");
    SparseRow s;
    for (size_t i = 0; i < r.size(); ++i)
      if (r[i] != 0) s.index.push_back(static_cast<int>(i)), s.value.push_back(r[i]);
    sparse.push_back(std::move(s));
  }
  return MinNormLeastSquares(std::move(sparse), weights).solve(y);
}

MinNormLeastSquares::MinNormLeastSquares(std::vector<SparseRow> rows, std::vector<double> weights)
    : rows_(std::move(rows)) {
  const size_t p = weights.size();
  for (const auto& r : rows_)
    for (int i : r.index)
      if (i < 0 || static_cast<size_t>(i) >= p)
        throw std::invalid_argument("least squares: an index outside the unknowns");
  for (double w : weights)
    if (!(w > 0)) throw std::invalid_argument("least squares: a weight <= 0");
  Matrix a(p, std::vector<double>(p, 0.0));  // X'X, lower triangle
  for (const auto& r : rows_)
    for (size_t u = 0; u < r.index.size(); ++u)
      for (size_t v = 0; v < r.index.size(); ++v)
        if (r.index[v] <= r.index[u])
          a[static_cast<size_t>(r.index[u])][static_cast<size_t>(r.index[v])] +=
              r.value[u] * r.value[v];
  // lambda small beside X'X's scale, so each refinement step removes most of what is left.
  double scale = 0;
  for (size_t i = 0; i < p; ++i) scale += a[i][i];
  const double lambda = 1e-6 * (scale > 0 ? scale / static_cast<double>(p) : 1.0);
  for (size_t i = 0; i < p; ++i) a[i][i] += lambda * weights[i];
  cholesky(a);
  factor_ = std::move(a);
}

std::vector<double> MinNormLeastSquares::solve(const std::vector<double>& y) const {
  if (y.size() != rows_.size()) throw std::invalid_argument("least squares: rows and y differ");
  const size_t p = factor_.size();
  std::vector<double> beta(p, 0.0);
  for (int step = 0; step < 50; ++step) {
    std::vector<double> gradient(p, 0.0);  // X'(y - X beta)
    for (size_t r = 0; r < rows_.size(); ++r) {
      const SparseRow& row = rows_[r];
      double residual = y[r];
      for (size_t u = 0; u < row.index.size(); ++u)
        residual -= row.value[u] * beta[static_cast<size_t>(row.index[u])];
      for (size_t u = 0; u < row.index.size(); ++u)
        gradient[static_cast<size_t>(row.index[u])] += row.value[u] * residual;
    }
    const std::vector<double> d = solve_factored(factor_, gradient);
    double moved = 0, size = 0;
    for (size_t i = 0; i < p; ++i) {
      beta[i] += d[i];
      moved += d[i] * d[i];
      size += beta[i] * beta[i];
    }
    if (moved <= 1e-28 * (size + 1e-300)) break;
  }
  return beta;
}

}  // namespace fathom
