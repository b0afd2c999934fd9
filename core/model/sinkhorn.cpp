#include "core/model/sinkhorn.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/model/higher_order_grad.h"

namespace fathom {
namespace {

// The n lines of an n x n row-major matrix: its rows (line stride n, element stride 1) or its
// columns (1, n).
struct Lines {
  int64_t n, line_stride, element_stride;
  int64_t at(int64_t line, int64_t element) const {
    return line * line_stride + element * element_stride;
  }
};
Lines rows_of(int64_t n) { return {n, n, 1}; }
Lines columns_of(int64_t n) { return {n, 1, n}; }

// Each line divided by its sum.
void normalize(double* m, const Lines& lines) {
  for (int64_t l = 0; l < lines.n; ++l) {
    double sum = 0;
    for (int64_t e = 0; e < lines.n; ++e) sum += m[lines.at(l, e)];
    const double inv = 1.0 / sum;  // one division a line, not n
    for (int64_t e = 0; e < lines.n; ++e) m[lines.at(l, e)] *= inv;
  }
}

// Back through y = x / s, s the sum of x's line: dx = (dy - sum_k dy_k y_k) / s, `grad` from
// dy to dx in place.
void normalize_backward(double* grad, const double* x, const double* y, const Lines& lines) {
  for (int64_t l = 0; l < lines.n; ++l) {
    double sum = 0, dot = 0;
    for (int64_t e = 0; e < lines.n; ++e) {
      sum += x[lines.at(l, e)];
      dot += grad[lines.at(l, e)] * y[lines.at(l, e)];
    }
    const double inv = 1.0 / sum;
    for (int64_t e = 0; e < lines.n; ++e) grad[lines.at(l, e)] = (grad[lines.at(l, e)] - dot) * inv;
  }
}

// One n x n matrix, row-major, in double. `trace` (when given) receives, per iteration, the
// matrix after its row step (B) and after its column step (A'), 2 n^2 values an iteration.
template <typename T>
void sinkhorn_one(const T* logits, int64_t n, int iterations, double* out, double* trace) {
  const int64_t nn = n * n;
  // exp after subtracting the largest logit: the result does not change when the whole
  // matrix is scaled, and exp cannot overflow.
  double top = -INFINITY;
  for (int64_t k = 0; k < nn; ++k) top = std::max(top, static_cast<double>(logits[k]));
  for (int64_t k = 0; k < nn; ++k) out[k] = std::exp(static_cast<double>(logits[k]) - top);
  for (int t = 0; t < iterations; ++t) {
    normalize(out, rows_of(n));
    if (trace) std::copy(out, out + nn, trace + 2 * t * nn);
    normalize(out, columns_of(n));
    if (trace) std::copy(out, out + nn, trace + (2 * t + 1) * nn);
  }
}

// The gradient of one matrix's logits from the output's gradient `grad` (overwritten), going
// back through the iterations recorded in `trace` from `start` = exp(logits - max).
void sinkhorn_one_backward(double* grad, const double* start, const double* trace, int64_t n,
                           int iterations) {
  const int64_t nn = n * n;
  for (int t = iterations - 1; t >= 0; --t) {
    const double* before = t > 0 ? trace + (2 * t - 1) * nn : start;  // A_t
    const double* rows_done = trace + 2 * t * nn;                     // B_t = A_t / row sums
    const double* after = trace + (2 * t + 1) * nn;                   // B_t / column sums
    normalize_backward(grad, rows_done, after, columns_of(n));
    normalize_backward(grad, before, rows_done, rows_of(n));
  }
  // Through exp (the subtracted maximum moves every logit alike, which changes nothing).
  for (int64_t k = 0; k < nn; ++k) grad[k] *= start[k];
}

template <typename T>
void forward_all(const torch::Tensor& logits, torch::Tensor& out, int iterations) {
  const int64_t n = logits.size(-1), nn = n * n,
                matrices = logits.numel() / std::max<int64_t>(nn, 1);
  const T* in = logits.data_ptr<T>();
  T* res = out.data_ptr<T>();
  at::parallel_for(0, matrices, 64, [&](int64_t begin, int64_t end) {
    std::vector<double> m(nn);
    for (int64_t k = begin; k < end; ++k) {
      sinkhorn_one(in + k * nn, n, iterations, m.data(), nullptr);
      for (int64_t e = 0; e < nn; ++e) res[k * nn + e] = static_cast<T>(m[e]);
    }
  });
}

template <typename T>
void backward_all(const torch::Tensor& logits, const torch::Tensor& grad_out,
                  torch::Tensor& grad_in, int iterations) {
  const int64_t n = logits.size(-1), nn = n * n,
                matrices = logits.numel() / std::max<int64_t>(nn, 1);
  const T* in = logits.data_ptr<T>();
  const T* g = grad_out.data_ptr<T>();
  T* res = grad_in.data_ptr<T>();
  at::parallel_for(0, matrices, 64, [&](int64_t begin, int64_t end) {
    std::vector<double> start(nn), last(nn), grad(nn), trace(2 * iterations * nn);
    for (int64_t k = begin; k < end; ++k) {
      sinkhorn_one(in + k * nn, n, 0, start.data(), nullptr);  // exp(logits - max)
      sinkhorn_one(in + k * nn, n, iterations, last.data(), trace.data());
      for (int64_t e = 0; e < nn; ++e) grad[e] = static_cast<double>(g[k * nn + e]);
      sinkhorn_one_backward(grad.data(), start.data(), trace.data(), n, iterations);
      for (int64_t e = 0; e < nn; ++e) res[k * nn + e] = static_cast<T>(grad[e]);
    }
  });
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct SinkhornFunction : torch::autograd::Function<SinkhornFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& logits,
                               int64_t iterations) {
    const torch::Tensor in = logits.contiguous();
    ctx->save_for_backward({in});
    ctx->saved_data["iterations"] = iterations;
    torch::Tensor out = torch::empty_like(in);
    AT_DISPATCH_FLOATING_TYPES(in.scalar_type(), "sinkhorn_knopp", [&] {
      forward_all<scalar_t>(in, out, static_cast<int>(iterations));
    });
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    const torch::Tensor in = ctx->get_saved_variables()[0];
    const int iterations = static_cast<int>(ctx->saved_data["iterations"].toInt());
    const torch::Tensor grad = grad_output[0].contiguous();
    torch::Tensor grad_in = torch::empty_like(in);
    AT_DISPATCH_FLOATING_TYPES(in.scalar_type(), "sinkhorn_knopp_backward",
                               [&] { backward_all<scalar_t>(in, grad, grad_in, iterations); });
    return {grad_in, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor sinkhorn_knopp_ops(const torch::Tensor& logits, int iterations) {
  torch::Tensor m = (logits - logits.amax({-2, -1}, true)).exp();
  for (int t = 0; t < iterations; ++t) {
    m = m / m.sum(-1, true);  // rows
    m = m / m.sum(-2, true);  // columns
  }
  return m;
}

torch::Tensor sinkhorn_knopp(const torch::Tensor& logits, int iterations) {
  const bool fused =
      !higher_order_grad_needed() && logits.device().is_cpu() &&
      (logits.scalar_type() == torch::kFloat || logits.scalar_type() == torch::kDouble);
  if (!fused) return sinkhorn_knopp_ops(logits, iterations);
  return SinkhornFunction::apply(logits, static_cast<int64_t>(iterations));
}

}  // namespace fathom
