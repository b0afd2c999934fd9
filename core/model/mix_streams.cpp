#include "core/model/mix_streams.h"

#include <ATen/Parallel.h>

#include "core/model/higher_order_grad.h"

namespace fathom {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Tokens a thread takes at once: enough work to pay for a task at n = 4, d = 64.
constexpr int64_t kGrain = 32;

// row = sum_j weights[j * weight_stride] * lines[j], the n lines of length d.
template <typename T>
void weighted_sum(T* row, const T* weights, int64_t weight_stride, const T* lines, int64_t n,
                  int64_t d) {
  for (int64_t k = 0; k < d; ++k) row[k] = 0;
  for (int64_t j = 0; j < n; ++j) {
    const T w = weights[j * weight_stride];
    const T* line = lines + j * d;
    for (int64_t k = 0; k < d; ++k) row[k] += w * line[k];
  }
}

template <typename T>
void forward_tokens(const T* m, const T* s, T* out, int64_t tokens, int64_t n, int64_t d) {
  at::parallel_for(0, tokens, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const T* mt = m + t * n * n;
      const T* st = s + t * n * d;
      T* ot = out + t * n * d;
      for (int64_t i = 0; i < n; ++i) weighted_sum(ot + i * d, mt + i * n, 1, st, n, d);
    }
  });
}

// dM_ij = sum_k G_ik S_jk, dS_j = sum_i M_ij G_i, per token.
template <typename T>
void backward_tokens(const T* m, const T* s, const T* g, T* dm, T* ds, int64_t tokens, int64_t n,
                     int64_t d) {
  at::parallel_for(0, tokens, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const T* mt = m + t * n * n;
      const T* st = s + t * n * d;
      const T* gt = g + t * n * d;
      T* dmt = dm + t * n * n;
      T* dst = ds + t * n * d;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          T dot = 0;
          for (int64_t k = 0; k < d; ++k) dot += gt[i * d + k] * st[j * d + k];
          dmt[i * n + j] = dot;
        }
      for (int64_t j = 0; j < n; ++j) weighted_sum(dst + j * d, mt + j, n, gt, n, d);
    }
  });
}

struct MixStreamsFunction : torch::autograd::Function<MixStreamsFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& mix,
                               const torch::Tensor& streams) {
    const torch::Tensor m = mix.contiguous(), s = streams.contiguous();
    ctx->save_for_backward({m, s});
    torch::Tensor out = torch::empty_like(s);
    const int64_t n = s.size(-2), d = s.size(-1), tokens = s.numel() / (n * d);
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "mix_streams", [&] {
      forward_tokens(m.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                     tokens, n, d);
    });
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &m = saved[0], &s = saved[1];
    const torch::Tensor g = grad_output[0].contiguous();
    torch::Tensor dm = torch::empty_like(m), ds = torch::empty_like(s);
    const int64_t n = s.size(-2), d = s.size(-1), tokens = s.numel() / (n * d);
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "mix_streams_backward", [&] {
      backward_tokens(m.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), g.data_ptr<scalar_t>(),
                      dm.data_ptr<scalar_t>(), ds.data_ptr<scalar_t>(), tokens, n, d);
    });
    return {dm, ds};
  }
};

}  // namespace

torch::Tensor mix_streams(const torch::Tensor& mix, const torch::Tensor& streams) {
  // The loop needs one n x n matrix per token, in the streams' dtype, on the CPU.
  const bool fused =
      !higher_order_grad_needed() && streams.device().is_cpu() && mix.device().is_cpu() &&
      mix.scalar_type() == streams.scalar_type() &&
      (streams.scalar_type() == torch::kFloat || streams.scalar_type() == torch::kDouble) &&
      streams.dim() >= 2 && mix.dim() == streams.dim() && streams.numel() > 0 &&
      mix.sizes().slice(0, mix.dim() - 1) == streams.sizes().slice(0, mix.dim() - 1) &&
      mix.size(-1) == streams.size(-2);
  if (!fused) return mix.matmul(streams);
  return MixStreamsFunction::apply(mix, streams);
}

}  // namespace fathom
