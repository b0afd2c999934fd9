#include "core/train/hessian.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fathom {

double dot(const TensorList& a, const TensorList& b) {
  if (a.empty()) return 0;
  // Summed on the device, read once: one read per tensor would stall a GPU a thousand times.
  torch::Tensor sum = torch::zeros({}, a[0].options().dtype(torch::kFloat64));
  for (size_t i = 0; i < a.size(); ++i)
    sum += (a[i].to(torch::kFloat64) * b[i].to(torch::kFloat64)).sum();
  return sum.item<double>();
}

double norm(const TensorList& a) { return std::sqrt(dot(a, a)); }

namespace {

TensorList scaled(const TensorList& a, double factor) {
  TensorList out;
  out.reserve(a.size());
  for (const auto& t : a) out.push_back(t * factor);
  return out;
}

}  // namespace

LossHessian::LossHessian(const std::function<torch::Tensor()>& objective, TensorList params)
    : params_(std::move(params)) {
  torch::AutoGradMode grad_on(true);
  const torch::Tensor loss = objective();
  grads_ = torch::autograd::grad({loss}, params_, /*grad_outputs=*/{}, /*retain_graph=*/true,
                                 /*create_graph=*/true, /*allow_unused=*/true);
  for (size_t i = 0; i < grads_.size(); ++i)
    if (grads_[i].defined() && grads_[i].requires_grad()) used_.push_back(i);
}

TensorList LossHessian::apply(const TensorList& v) const {
  if (v.size() != params_.size())
    throw std::invalid_argument("a Hessian-vector product needs one tensor per parameter");
  TensorList out(params_.size());
  if (!used_.empty()) {
    TensorList outputs, directions;
    for (size_t i : used_) {
      outputs.push_back(grads_[i]);
      directions.push_back(v[i].to(grads_[i].dtype()));
    }
    // d/dw (g(w) . v) = H v: one backward through the gradient's graph, kept for the next one.
    const TensorList products =
        torch::autograd::grad(outputs, params_, directions, /*retain_graph=*/true,
                              /*create_graph=*/false, /*allow_unused=*/true);
    for (size_t i = 0; i < products.size(); ++i)
      if (products[i].defined()) out[i] = products[i].detach();
  }
  for (size_t i = 0; i < out.size(); ++i)  // a parameter the objective does not reach
    if (!out[i].defined()) out[i] = torch::zeros_like(params_[i]);
  return out;
}

torch::Tensor LossHessian::apply_within(size_t i, const torch::Tensor& v) const {
  if (i >= params_.size()) throw std::out_of_range("no such parameter in the Hessian");
  if (!grads_[i].defined() || !grads_[i].requires_grad()) return torch::zeros_like(params_[i]);
  // d/dw_i (g_i(w) . v): only parameter i's gradient is differentiated, only to parameter i.
  const TensorList product =
      torch::autograd::grad({grads_[i]}, {params_[i]}, {v.to(grads_[i].dtype())},
                            /*retain_graph=*/true, /*create_graph=*/false, /*allow_unused=*/true);
  return product[0].defined() ? product[0].detach() : torch::zeros_like(params_[i]);
}

TensorList LossHessian::gradient() const {
  TensorList out;
  for (size_t i = 0; i < params_.size(); ++i)
    out.push_back(grads_[i].defined() ? grads_[i].detach() : torch::zeros_like(params_[i]));
  return out;
}

namespace {

// x - c y, elementwise over the lists.
TensorList minus(const TensorList& x, double c, const TensorList& y) {
  TensorList out;
  out.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i) out.push_back(x[i] - c * y[i]);
  return out;
}

// The tridiagonal matrix with `diagonal` and `off` (one shorter), its eigenvalues ascending
// and their unit eigenvectors as columns.
std::pair<torch::Tensor, torch::Tensor> tridiagonal_eigen(const std::vector<double>& diagonal,
                                                          const std::vector<double>& off) {
  const auto k = static_cast<int64_t>(diagonal.size());
  torch::Tensor t = torch::zeros({k, k}, torch::kFloat64);
  auto a = t.accessor<double, 2>();
  for (int64_t i = 0; i < k; ++i) {
    a[i][i] = diagonal[i];
    if (i + 1 < k) a[i][i + 1] = a[i + 1][i] = off[i];
  }
  auto [values, vectors] = torch::linalg_eigh(t);
  return {values, vectors};
}

}  // namespace

ExtremeEigen extreme_eigenvalues(const LinearOperator& op, TensorList start, int max_iterations,
                                 double tolerance) {
  const double start_norm = norm(start);
  if (!(start_norm > 0)) throw std::invalid_argument("the Lanczos iteration needs a nonzero start");
  ExtremeEigen result;
  TensorList q = scaled(start, 1.0 / start_norm), previous;
  std::vector<double> alphas, betas;
  double beta = 0;
  for (int j = 0; j < max_iterations; ++j) {
    TensorList w = op(q);
    ++result.iterations;
    if (j > 0) w = minus(w, beta, previous);
    double alpha = dot(w, q);
    w = minus(w, alpha, q);
    const double again = dot(w, q);  // a second pass against q: rounding leaves some of it
    w = minus(w, again, q);
    alpha += again;
    alphas.push_back(alpha);
    const double next_beta = norm(w);
    const auto [values, vectors] = tridiagonal_eigen(alphas, betas);
    const int64_t k = values.size(0);
    result.largest = values[k - 1].item<double>();
    result.smallest = values[0].item<double>();
    result.largest_residual = next_beta * std::abs(vectors[k - 1][k - 1].item<double>());
    result.smallest_residual = next_beta * std::abs(vectors[k - 1][0].item<double>());
    result.history.push_back(result.largest);
    const auto vec = vectors.accessor<double, 2>();
    const auto val = values.accessor<double, 1>();
    result.ritz_values.resize(k);
    result.ritz_weights.resize(k);
    for (int64_t i = 0; i < k; ++i) {
      result.ritz_values[i] = val[i];
      result.ritz_weights[i] = vec[0][i] * vec[0][i];
    }
    if (!std::isfinite(next_beta) || !std::isfinite(result.largest)) return result;  // diverged
    const double scale = std::max(std::abs(result.largest), std::abs(result.smallest));
    if (!(next_beta > 1e-12 * scale)) {  // an invariant subspace: T's eigenvalues are A's
      result.converged = true;
      return result;
    }
    if (result.largest_residual <= tolerance * std::abs(result.largest)) {
      result.converged = true;
      return result;
    }
    betas.push_back(next_beta);
    previous = std::move(q);
    q = scaled(w, 1.0 / next_beta);
    beta = next_beta;
  }
  return result;
}

LinearOperator preconditioned(LinearOperator a, const TensorList& diagonal) {
  TensorList root;
  for (const auto& d : diagonal) root.push_back(d.sqrt());
  auto times_root = [root](const TensorList& v) {
    TensorList out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(v[i] * root[i].to(v[i].dtype()));
    return out;
  };
  return
      [a = std::move(a), times_root](const TensorList& v) { return times_root(a(times_root(v))); };
}

TensorList random_direction(const TensorList& like, std::uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  TensorList out;
  for (const auto& t : like) {
    const torch::Tensor draw =
        at::randn(t.sizes(), generator, torch::TensorOptions().dtype(torch::kFloat32));
    out.push_back(draw.to(t.device(), t.scalar_type()));
  }
  return out;
}

}  // namespace fathom
