#include "core/model/mix_streams.h"

#include <ATen/Parallel.h>

#include "core/model/higher_order_grad.h"

namespace fathom {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Tokens a thread takes at once: enough work to pay for a task at n = 4, d = 64.
constexpr int64_t kTokensPerTask = 32;

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

// sum_k a[k] b[k] in eight running sums: one running sum is a chain of dependent adds the
// compiler may not reorder, so it would not vectorise (the mixing's backward spent most of its
// time there). A fixed order: the same bits on every run.
template <typename T>
T dot(const T* a, const T* b, int64_t d) {
  T lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 8 <= d; k += 8)
    for (int l = 0; l < 8; ++l) lanes[l] += a[k + l] * b[k + l];
  T sum = 0;
  for (; k < d; ++k) sum += a[k] * b[k];
  for (int l = 0; l < 8; ++l) sum += lanes[l];
  return sum;
}

// ---- the read: out = sum_j r_j h_j, per token ----

template <typename T>
void read_forward(const T* r, const T* s, T* out, int64_t tokens, int64_t n, int64_t d) {
  at::parallel_for(0, tokens, kTokensPerTask, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t)
      weighted_sum(out + t * d, r + t * n, 1, s + t * n * d, n, d);
  });
}

// dr_j = g . h_j, dh_j = r_j g.
template <typename T>
void read_backward(const T* r, const T* s, const T* g, T* dr, T* ds, int64_t tokens, int64_t n,
                   int64_t d) {
  at::parallel_for(0, tokens, kTokensPerTask, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const T* gt = g + t * d;
      for (int64_t j = 0; j < n; ++j) {
        const T* sj = s + (t * n + j) * d;
        T* dsj = ds + (t * n + j) * d;
        const T rj = r[t * n + j];
        dr[t * n + j] = dot(gt, sj, d);
        for (int64_t k = 0; k < d; ++k) dsj[k] = rj * gt[k];
      }
    }
  });
}

// ---- the mixing and the write: new_i = sum_j M_ij h_j + w_i f, per token ----

template <typename T>
void mix_forward(const T* m, const T* s, const T* w, const T* f, T* out, int64_t tokens, int64_t n,
                 int64_t d) {
  at::parallel_for(0, tokens, kTokensPerTask, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const T* st = s + t * n * d;
      const T* ft = f + t * d;
      for (int64_t i = 0; i < n; ++i) {
        T* row = out + (t * n + i) * d;
        weighted_sum(row, m + (t * n + i) * n, 1, st, n, d);
        const T wi = w[t * n + i];
        for (int64_t k = 0; k < d; ++k) row[k] += wi * ft[k];
      }
    }
  });
}

// dM_ij = G_i . h_j, dh_j = sum_i M_ij G_i, dw_i = G_i . f, df = sum_i w_i G_i.
template <typename T>
void mix_backward(const T* m, const T* s, const T* w, const T* f, const T* g, T* dm, T* ds, T* dw,
                  T* df, int64_t tokens, int64_t n, int64_t d) {
  at::parallel_for(0, tokens, kTokensPerTask, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const T* mt = m + t * n * n;
      const T* st = s + t * n * d;
      const T* gt = g + t * n * d;
      const T* ft = f + t * d;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) dm[(t * n + i) * n + j] = dot(gt + i * d, st + j * d, d);
        dw[t * n + i] = dot(gt + i * d, ft, d);
      }
      for (int64_t j = 0; j < n; ++j) weighted_sum(ds + (t * n + j) * d, mt + j, n, gt, n, d);
      weighted_sum(df + t * d, w + t * n, 1, gt, n, d);
    }
  });
}

// [.., n, d] -> [.., d]: the shape of one stream.
std::vector<int64_t> one_stream_shape(const torch::Tensor& streams) {
  std::vector<int64_t> shape = streams.sizes().vec();
  shape.erase(shape.end() - 2);
  return shape;
}

struct ReadStreamsFunction : torch::autograd::Function<ReadStreamsFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& read,
                               const torch::Tensor& streams) {
    const torch::Tensor r = read.contiguous(), s = streams.contiguous();
    ctx->save_for_backward({r, s});
    const int64_t n = s.size(-2), d = s.size(-1), tokens = s.numel() / (n * d);
    torch::Tensor out = torch::empty(one_stream_shape(s), s.options());
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "read_streams", [&] {
      read_forward(r.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), tokens,
                   n, d);
    });
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &r = saved[0], &s = saved[1];
    const torch::Tensor g = grad_output[0].contiguous();
    torch::Tensor dr = torch::empty_like(r), ds = torch::empty_like(s);
    const int64_t n = s.size(-2), d = s.size(-1), tokens = s.numel() / (n * d);
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "read_streams_backward", [&] {
      read_backward(r.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), g.data_ptr<scalar_t>(),
                    dr.data_ptr<scalar_t>(), ds.data_ptr<scalar_t>(), tokens, n, d);
    });
    return {dr, ds};
  }
};

struct MixStreamsFunction : torch::autograd::Function<MixStreamsFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& mix,
                               const torch::Tensor& streams, const torch::Tensor& write,
                               const torch::Tensor& branch) {
    const torch::Tensor m = mix.contiguous(), s = streams.contiguous(), w = write.contiguous(),
                        f = branch.contiguous();
    ctx->save_for_backward({m, s, w, f});
    torch::Tensor out = torch::empty_like(s);
    const int64_t n = s.size(-2), d = s.size(-1), tokens = s.numel() / (n * d);
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "mix_streams", [&] {
      mix_forward(m.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                  f.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), tokens, n, d);
    });
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &m = saved[0], &s = saved[1], &w = saved[2], &f = saved[3];
    const torch::Tensor g = grad_output[0].contiguous();
    torch::Tensor dm = torch::empty_like(m), ds = torch::empty_like(s), dw = torch::empty_like(w),
                  df = torch::empty_like(f);
    const int64_t n = s.size(-2), d = s.size(-1), tokens = s.numel() / (n * d);
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "mix_streams_backward", [&] {
      mix_backward(m.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                   f.data_ptr<scalar_t>(), g.data_ptr<scalar_t>(), dm.data_ptr<scalar_t>(),
                   ds.data_ptr<scalar_t>(), dw.data_ptr<scalar_t>(), df.data_ptr<scalar_t>(),
                   tokens, n, d);
    });
    return {dm, ds, dw, df};
  }
};

// Whether the loops take `streams` [.., n, d] with `per_token` tensors whose leading sizes are
// its tokens': on a CPU, in float or double, all of one dtype, outside a HigherOrderGradScope.
bool loops_take(const torch::Tensor& streams, const std::vector<torch::Tensor>& per_token) {
  if (higher_order_grad_needed() || !streams.device().is_cpu() || streams.dim() < 2 ||
      streams.numel() == 0 ||
      (streams.scalar_type() != torch::kFloat && streams.scalar_type() != torch::kDouble))
    return false;
  const auto tokens = streams.sizes().slice(0, streams.dim() - 2);
  for (const torch::Tensor& t : per_token)
    if (!t.device().is_cpu() || t.scalar_type() != streams.scalar_type() ||
        t.dim() < static_cast<int64_t>(tokens.size()) ||
        t.sizes().slice(0, tokens.size()) != tokens)
      return false;
  return true;
}

}  // namespace

torch::Tensor read_streams(const torch::Tensor& read, const torch::Tensor& streams) {
  const bool fused = loops_take(streams, {read}) && read.dim() == streams.dim() - 1 &&
                     read.size(-1) == streams.size(-2);
  if (!fused) return (read.unsqueeze(-1) * streams).sum(-2);
  return ReadStreamsFunction::apply(read, streams);
}

torch::Tensor mix_streams(const torch::Tensor& mix, const torch::Tensor& streams,
                          const torch::Tensor& write, const torch::Tensor& branch) {
  const int64_t n = streams.dim() >= 2 ? streams.size(-2) : 0;
  const bool fused = loops_take(streams, {mix, write, branch}) && mix.dim() == streams.dim() &&
                     mix.size(-1) == n && mix.size(-2) == n && write.dim() == streams.dim() - 1 &&
                     write.size(-1) == n && branch.dim() == streams.dim() - 1 &&
                     branch.size(-1) == streams.size(-1);
  if (!fused) return mix.matmul(streams) + write.unsqueeze(-1) * branch.unsqueeze(-2);
  return MixStreamsFunction::apply(mix, streams, write, branch);
}

}  // namespace fathom
