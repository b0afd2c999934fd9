#pragma once
// The curvature of a loss (docs/curvature.md): Hessian-vector products by differentiating the
// gradient once more (Pearlmutter 1994, "Fast exact multiplication by the Hessian"), and the
// extreme eigenvalues of a symmetric operator by the Lanczos iteration.
//
// A vector is a list of tensors shaped like the parameters it goes with; products and norms
// over it accumulate in float64.
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace fathom {

using TensorList = std::vector<torch::Tensor>;

double dot(const TensorList& a, const TensorList& b);
double norm(const TensorList& a);

// The Hessian of `objective()`, a scalar computed from `params` (each requiring grad), at the
// parameters as they are now. The objective is evaluated once here, its gradient kept with its
// graph; each apply() is one more backward pass through that graph. The caller makes the
// objective twice differentiable (core/model/higher_order_grad.h).
class LossHessian {
 public:
  LossHessian(const std::function<torch::Tensor()>& objective, TensorList params);
  // H v: v shaped like the parameters. A parameter the objective does not reach has a zero
  // gradient and zero rows of H.
  TensorList apply(const TensorList& v) const;
  // The gradient at the parameters (detached; zeros where unused).
  TensorList gradient() const;
  // H_ii v: the product with the diagonal block of parameter i alone (v shaped like it), one
  // backward through parameter i's gradient to parameter i -- the operator whose spectrum is
  // that block's (core/train/block_hessian.h). Zeros where the objective does not reach it.
  torch::Tensor apply_within(size_t i, const torch::Tensor& v) const;

 private:
  TensorList params_;
  TensorList grads_;          // with their graph; undefined for an unused parameter
  std::vector<size_t> used_;  // indices of the parameters with a gradient
};

using LinearOperator = std::function<TensorList(const TensorList&)>;

// The extreme eigenvalues of a symmetric operator A by the Lanczos iteration (Lanczos 1950;
// Golub & Van Loan, "Matrix computations", s10.1): after k products, the eigenvalues of the
// k x k tridiagonal T_k (the Ritz values) approximate A's spectrum from inside, the largest and
// smallest first and fastest -- much faster than power iteration where the top eigenvalues lie
// close together, and both signs at once. Each Ritz value theta with T's unit eigenvector s has
// ||A y - theta y|| = beta_{k+1} |s_k| for its Ritz vector y, so some eigenvalue of A lies within
// that residual of theta: the iteration stops once the largest's residual is at most
// `tolerance` of |theta|, after `max_iterations` products, or on an invariant subspace
// (beta = 0, T's eigenvalues then exact). Three vectors are kept, never the basis: no
// reorthogonalization beyond the current vector, so late iterations can repeat a converged
// Ritz value -- which leaves the extremes and their residuals valid.
struct ExtremeEigen {
  double largest = NAN, smallest = NAN;                    // the extreme Ritz values
  double largest_residual = NAN, smallest_residual = NAN;  // their residual norms
  int iterations = 0;                                      // products of the operator
  bool converged = false;                                  // the largest's residual test
  std::vector<double> history;  // the largest Ritz value after each product
  // The last T_k's eigenvalues, ascending, and the squared first components of their unit
  // eigenvectors: the nodes and weights of the Gauss quadrature that T_k makes of the start's
  // spectral measure -- the weights sum to 1, and over a random start they estimate the
  // spectral density (stochastic Lanczos quadrature; Golub & Meurant 1994, Ubaru et al. 2017).
  std::vector<double> ritz_values, ritz_weights;
};
ExtremeEigen extreme_eigenvalues(const LinearOperator& op, TensorList start, int max_iterations,
                                 double tolerance);

// The symmetric operator D^1/2 A D^1/2 for a diagonal D >= 0 (one tensor per parameter): it
// has the eigenvalues of D A, so the iteration on it finds those of the preconditioned
// Hessian P^-1 H with D = P^-1 (Cohen et al. 2022).
LinearOperator preconditioned(LinearOperator a, const TensorList& diagonal);

// A list of standard normal tensors shaped like `like`, drawn from a generator of its own
// seeded with `seed` (the global generator is left untouched), on their device.
TensorList random_direction(const TensorList& like, std::uint64_t seed);

}  // namespace fathom
