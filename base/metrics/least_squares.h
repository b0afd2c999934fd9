#pragma once
// Least squares with a weighted ridge, made exact by iterated Tikhonov refinement: the beta
// minimising |y - X beta|^2 that, among all such minimisers, has the least sum_k w_k beta_k^2.
// Each step solves (X'X + lambda W) d = X'(y - X beta) by one Cholesky factorisation and adds d;
// the fit converges to least squares while the directions the data leave free stay at the
// smallest weighted norm (Engl, Hanke & Neubauer 1996, "Regularization of Inverse Problems",
// s5.1). Dense, for the tens to hundreds of unknowns of a sweep's ANOVA model.
#include <vector>

namespace fathom {

// A row of X by its non-zero entries (a sweep's ANOVA rows are mostly zeros).
struct SparseRow {
  std::vector<int> index;
  std::vector<double> value;
};

// rows: X's rows written whole (each of the same length p); y: one value per row; weights: p
// entries > 0. Throws std::invalid_argument on mismatched sizes or a weight <= 0.
std::vector<double> min_norm_least_squares(const std::vector<std::vector<double>>& rows,
                                           const std::vector<double>& y,
                                           const std::vector<double>& weights);

// The same for one X and many y (a bootstrap refits the same design): X'X + lambda W factored
// once.
class MinNormLeastSquares {
 public:
  MinNormLeastSquares(std::vector<SparseRow> rows, std::vector<double> weights);
  std::vector<double> solve(const std::vector<double>& y) const;
  const std::vector<SparseRow>& rows() const { return rows_; }

 private:
  std::vector<SparseRow> rows_;
  std::vector<std::vector<double>> factor_;  // Cholesky factor, lower triangle
};

}  // namespace fathom
