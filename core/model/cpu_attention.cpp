#include "core/model/cpu_attention.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/model/dropout.h"
#include "core/model/small_gemm.h"

// The per-head loops are compiled once per instruction set and picked at run time (GCC and
// Clang's target_clones): the build targets plain x86-64, whose 4-float vectors leave the loop
// behind LibTorch's BLAS at d_head = 64. Instruction sets, not "arch=" clones: GCC inlines
// nothing into a function of another arch (each vector access became a call).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define FATHOM_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FATHOM_SIMD_CLONES
#endif
#define FATHOM_INLINE inline __attribute__((always_inline))

namespace fathom {
namespace {

// One (row, head) pair's [L, d_head] matrix inside a [B, H, L, d_head] tensor whose last
// dimension is contiguous.
template <typename T>
struct HeadRows {
  const T* data;
  int64_t row_stride;
  const T* row(int64_t i) const { return data + i * row_stride; }
};

// Sizes and masks shared by the forward and the backward.
struct Shape {
  int64_t B, H, T, S, dh;
  const bool* padding;  // [B, S], true at padding; null when none
  bool causal;
  double scale;
  // Whether key j is visible to query i of row b.
  bool visible(int64_t b, int64_t i, int64_t j) const {
    return !(causal && j > i) && !(padding && padding[b * S + j]);
  }
};

using small_gemm::kTileCols;
using small_gemm::kTileRows;
using small_gemm::padded;
using small_gemm::Scalars;

// One head's matrices, padded with zeros for small_gemm::multiply (rows to kTileRows, columns
// to kTileCols). Only the valid region is written per head, so the padding stays zero.
template <typename T>
struct HeadScratch {
  int64_t Tr, Sr, Dc, Sc;  // padded rows of T and S, padded columns of d_head and S
  std::vector<T> q, k, v, kt, vt, grad_out;  // [Tr|Sr x Dc], kt and vt [d_head x Sc]
  std::vector<T> probs, dropped, scores;     // [Tr x Sc]: P, P * keep, scores or dP / dS
  std::vector<T> result;                     // [max(Tr, Sr) x Dc]: a product before it is stored

  explicit HeadScratch(int64_t T_, int64_t S, int64_t dh)
      : Tr(padded(T_, kTileRows)),
        Sr(padded(S, kTileRows)),
        Dc(padded(dh, kTileCols)),
        Sc(padded(S, kTileCols)),
        q(Tr * Dc),
        k(Sr * Dc),
        v(Sr * Dc),
        kt(dh * Sc),
        vt(dh * Sc),
        grad_out(Tr * Dc),
        probs(Tr * Sc),
        dropped(Tr * Sc),
        scores(Tr * Sc),
        result(std::max(Tr, Sr) * Dc) {}
};

// rows x d_head of `m` into `to` (row stride Dc), times `scale`.
template <typename T>
FATHOM_INLINE void copy_rows(const HeadRows<T>& m, int64_t rows, int64_t dh, T scale,
                             std::vector<T>& to, int64_t Dc) {
  for (int64_t j = 0; j < rows; ++j)
    for (int64_t c = 0; c < dh; ++c) to[j * Dc + c] = m.row(j)[c] * scale;
}

// rows x d_head of `m` transposed into `to` (d_head x Sc).
template <typename T>
FATHOM_INLINE void copy_transposed(const HeadRows<T>& m, int64_t rows, int64_t dh,
                                   std::vector<T>& to, int64_t Sc) {
  for (int64_t j = 0; j < rows; ++j)
    for (int64_t c = 0; c < dh; ++c) to[c * Sc + j] = m.row(j)[c];
}

template <typename T>
FATHOM_INLINE void forward_head(const Shape& s, int64_t b, int64_t h, const HeadRows<T>& q,
                                const HeadRows<T>& k, const HeadRows<T>& v, const T* keep, T* probs,
                                T* out, HeadScratch<T>& w) {
  // Scores (q_i / sqrt(d_head)) . k_j, the explicit path's order of scaling.
  copy_rows<T>(q, s.T, s.dh, static_cast<T>(s.scale), w.q, w.Dc);
  copy_transposed<T>(k, s.S, s.dh, w.kt, w.Sc);
  copy_rows<T>(v, s.S, s.dh, T(1), w.v, w.Dc);
  small_gemm::multiply<T>(w.Tr, w.Sc, s.dh, {w.q.data(), w.Dc, 1}, w.kt.data(), w.Sc,
                          w.scores.data(), w.Sc);
  for (int64_t i = 0; i < s.T; ++i) {
    const T* z = w.scores.data() + i * w.Sc;
    T* p = w.probs.data() + i * w.Sc;
    T top = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < s.S; ++j)
      if (s.visible(b, i, j)) top = std::max(top, z[j]);
    T sum = 0;
    for (int64_t j = 0; j < s.S; ++j) {
      // A row with no visible key attends to nothing: zeros.
      p[j] = s.visible(b, i, j) ? std::exp(z[j] - top) : T(0);
      sum += p[j];
    }
    const T inv = sum > 0 ? T(1) / sum : T(0);
    for (int64_t j = 0; j < s.S; ++j) p[j] *= inv;
    std::copy(p, p + s.S, probs + i * s.S);
    if (keep)
      for (int64_t j = 0; j < s.S; ++j) w.dropped[i * w.Sc + j] = p[j] * keep[i * s.S + j];
  }
  const T* weights = keep ? w.dropped.data() : w.probs.data();
  small_gemm::multiply<T>(w.Tr, w.Dc, s.S, {weights, w.Sc, 1}, w.v.data(), w.Dc, w.result.data(),
                          w.Dc);
  for (int64_t i = 0; i < s.T; ++i)
    std::copy(w.result.data() + i * w.Dc, w.result.data() + i * w.Dc + s.dh,
              out + (b * s.T + i) * s.H * s.dh + h * s.dh);
}

// grad_out [B, T, H * d_head]; this (b, h)'s parts of dq, dk, dv [B, L, H, d_head] written.
template <typename T>
FATHOM_INLINE void backward_head(const Shape& s, int64_t b, int64_t h, const HeadRows<T>& q,
                                 const HeadRows<T>& k, const HeadRows<T>& v, const T* keep,
                                 const T* probs, const T* grad_out, T* dq, T* dk, T* dv,
                                 HeadScratch<T>& w) {
  const int64_t row_step = s.H * s.dh;  // between tokens in [B, L, H, d_head]
  copy_rows<T>(q, s.T, s.dh, T(1), w.q, w.Dc);
  copy_rows<T>(k, s.S, s.dh, T(1), w.k, w.Dc);
  copy_transposed<T>(v, s.S, s.dh, w.vt, w.Sc);
  copy_rows<T>({grad_out + b * s.T * row_step + h * s.dh, row_step}, s.T, s.dh, T(1), w.grad_out,
               w.Dc);
  for (int64_t i = 0; i < s.T; ++i)
    for (int64_t j = 0; j < s.S; ++j) {
      w.probs[i * w.Sc + j] = probs[i * s.S + j];
      if (keep) w.dropped[i * w.Sc + j] = probs[i * s.S + j] * keep[i * s.S + j];
    }
  const T* weights = keep ? w.dropped.data() : w.probs.data();  // P' = P * keep multiplied v
  auto store = [&](const std::vector<T>& from, int64_t rows, T* to) {
    for (int64_t i = 0; i < rows; ++i)
      std::copy(from.data() + i * w.Dc, from.data() + i * w.Dc + s.dh,
                to + (b * rows + i) * row_step + h * s.dh);
  };
  // dV = P'^T dO.
  small_gemm::multiply<T>(w.Sr, w.Dc, s.T, {weights, 1, w.Sc}, w.grad_out.data(), w.Dc,
                          w.result.data(), w.Dc);
  store(w.result, s.S, dv);
  // dP' = dO V^T; through the dropout and the softmax: dS_ij = P_ij (dP_ij - sum_k P_ik dP_ik),
  // times the scores' scale.
  small_gemm::multiply<T>(w.Tr, w.Sc, s.dh, {w.grad_out.data(), w.Dc, 1}, w.vt.data(), w.Sc,
                          w.scores.data(), w.Sc);
  const T scale = static_cast<T>(s.scale);
  for (int64_t i = 0; i < s.T; ++i) {
    T* d = w.scores.data() + i * w.Sc;
    const T* p = w.probs.data() + i * w.Sc;
    T dot = 0;
    for (int64_t j = 0; j < s.S; ++j) {
      if (keep) d[j] *= keep[i * s.S + j];
      dot += p[j] * d[j];
    }
    for (int64_t j = 0; j < s.S; ++j) d[j] = p[j] * (d[j] - dot) * scale;
  }
  // dQ = dS K; dK = dS^T Q.
  small_gemm::multiply<T>(w.Tr, w.Dc, s.S, {w.scores.data(), w.Sc, 1}, w.k.data(), w.Dc,
                          w.result.data(), w.Dc);
  store(w.result, s.T, dq);
  small_gemm::multiply<T>(w.Sr, w.Dc, s.T, {w.scores.data(), 1, w.Sc}, w.q.data(), w.Dc,
                          w.result.data(), w.Dc);
  store(w.result, s.S, dk);
}

// One call's tensors as raw pointers and strides, for the per-instruction-set loops.
template <typename T>
struct Planes {
  const T *q, *k, *v;
  int64_t q_stride[3], k_stride[3], v_stride[3];  // batch, head, row
  const T* keep;                                  // [B, H, T, S] or null
  T* probs;                                       // [B, H, T, S]
  T* out;                                         // forward: [B, T, H * d_head]
  const T* grad;    // backward: the output's gradient, [B, T, H * d_head]
  T *dq, *dk, *dv;  // backward: [B, L, H, d_head]

  HeadRows<T> rows(const T* base, const int64_t* stride, int64_t b, int64_t h) const {
    return {base + b * stride[0] + h * stride[1], stride[2]};
  }
};

// (row, head) pairs begin..end-1 forward, or backward.
template <typename T>
FATHOM_INLINE void run_range(const Shape& s, const Planes<T>& p, bool backward, int64_t begin,
                             int64_t end) {
  HeadScratch<T> scratch(s.T, s.S, s.dh);
  for (int64_t bh = begin; bh < end; ++bh) {
    const int64_t b = bh / s.H, h = bh % s.H, plane = bh * s.T * s.S;
    const HeadRows<T> q = p.rows(p.q, p.q_stride, b, h), k = p.rows(p.k, p.k_stride, b, h),
                      v = p.rows(p.v, p.v_stride, b, h);
    const T* keep = p.keep ? p.keep + plane : nullptr;
    if (backward)
      backward_head<T>(s, b, h, q, k, v, keep, p.probs + plane, p.grad, p.dq, p.dk, p.dv, scratch);
    else
      forward_head<T>(s, b, h, q, k, v, keep, p.probs + plane, p.out, scratch);
  }
}

FATHOM_SIMD_CLONES void run_float(const Shape& s, const Planes<float>& p, bool backward,
                                  int64_t begin, int64_t end) {
  run_range(s, p, backward, begin, end);
}
FATHOM_SIMD_CLONES void run_double(const Shape& s, const Planes<double>& p, bool backward,
                                   int64_t begin, int64_t end) {
  run_range(s, p, backward, begin, end);
}
void run_chunk(const Shape& s, const Planes<float>& p, bool backward, int64_t begin, int64_t end) {
  run_float(s, p, backward, begin, end);
}
void run_chunk(const Shape& s, const Planes<double>& p, bool backward, int64_t begin, int64_t end) {
  run_double(s, p, backward, begin, end);
}

// q, k, v and the optional keep mask of a call, as pointers.
template <typename T>
Planes<T> planes_of(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                    const torch::Tensor& keep, const torch::Tensor& probs) {
  Planes<T> p{};
  p.q = q.data_ptr<T>(), p.k = k.data_ptr<T>(), p.v = v.data_ptr<T>();
  for (int d = 0; d < 3; ++d) {
    p.q_stride[d] = q.stride(d), p.k_stride[d] = k.stride(d), p.v_stride[d] = v.stride(d);
  }
  p.keep = keep.numel() ? keep.data_ptr<T>() : nullptr;
  p.probs = probs.data_ptr<T>();
  return p;
}

// Enough (row, head) pairs per task that a thread's start is paid for.
int64_t grain(const Shape& s) {
  return std::max<int64_t>(1, 65536 / std::max<int64_t>(1, s.T * s.S * s.dh));
}

torch::Tensor last_dim_contiguous(const torch::Tensor& t) {
  return t.stride(3) == 1 ? t : t.contiguous();
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct CpuAttentionFunction : torch::autograd::Function<CpuAttentionFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& q_in,
                               const torch::Tensor& k_in, const torch::Tensor& v_in,
                               const torch::Tensor& padding, bool causal, torch::Tensor keep) {
    const torch::Tensor q = last_dim_contiguous(q_in), k = last_dim_contiguous(k_in),
                        v = last_dim_contiguous(v_in);
    const Shape s = shape_of(q, k, padding, causal);
    torch::Tensor probs = torch::empty({s.B, s.H, s.T, s.S}, q.options());
    torch::Tensor out = torch::empty({s.B, s.T, s.H * s.dh}, q.options());
    AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "attention_on_cpu", [&] {
      Planes<scalar_t> p = planes_of<scalar_t>(q, k, v, keep, probs);
      p.out = out.data_ptr<scalar_t>();
      at::parallel_for(0, s.B * s.H, grain(s),
                       [&](int64_t begin, int64_t end) { run_chunk(s, p, false, begin, end); });
    });
    ctx->save_for_backward({q, k, v, probs, keep, padding});
    ctx->saved_data["causal"] = causal;
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &probs = saved[3],
                        &keep = saved[4], &padding = saved[5];
    const Shape s = shape_of(q, k, padding, ctx->saved_data["causal"].toBool());
    const torch::Tensor grad = grad_output[0].contiguous();
    // Written per (b, h) into disjoint slices of [B, L, H, d_head], returned as the
    // [B, H, L, d_head] view the inputs had.
    torch::Tensor dq = torch::empty({s.B, s.T, s.H, s.dh}, q.options());
    torch::Tensor dk = torch::empty({s.B, s.S, s.H, s.dh}, q.options());
    torch::Tensor dv = torch::empty({s.B, s.S, s.H, s.dh}, q.options());
    AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "attention_on_cpu_backward", [&] {
      Planes<scalar_t> p = planes_of<scalar_t>(q, k, v, keep, probs);
      p.grad = grad.data_ptr<scalar_t>();
      p.dq = dq.data_ptr<scalar_t>(), p.dk = dk.data_ptr<scalar_t>(),
      p.dv = dv.data_ptr<scalar_t>();
      at::parallel_for(0, s.B * s.H, grain(s),
                       [&](int64_t begin, int64_t end) { run_chunk(s, p, true, begin, end); });
    });
    return {dq.transpose(1, 2), dk.transpose(1, 2), dv.transpose(1, 2),
            torch::Tensor(),    torch::Tensor(),    torch::Tensor()};
  }

  static Shape shape_of(const torch::Tensor& q, const torch::Tensor& k,
                        const torch::Tensor& padding, bool causal) {
    const int64_t dh = q.size(3);
    return {q.size(0), q.size(1),
            q.size(2), k.size(2),
            dh,        padding.numel() ? padding.data_ptr<bool>() : nullptr,
            causal,    1.0 / std::sqrt(static_cast<double>(dh))};
  }
};

}  // namespace

bool attention_on_cpu_applies(const torch::Tensor& q) {
  return q.device().is_cpu() &&
         (q.scalar_type() == torch::kFloat || q.scalar_type() == torch::kDouble);
}

torch::Tensor attention_on_cpu(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& key_padding_mask,
                               bool causal, double dropout, bool training) {
  TORCH_CHECK(attention_on_cpu_applies(q), "attention_on_cpu: a CPU float or double tensor");
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "attention_on_cpu: [B, H, L, d]");
  // Absent masks travel as empty tensors (LibTorch 1.13's Function::apply refuses undefined
  // ones).
  const torch::Tensor padding = key_padding_mask.defined()
                                    ? key_padding_mask.to(torch::kBool).contiguous()
                                    : torch::empty({0}, torch::kBool);
  // The dropout's keep mask, drawn as the explicit path's fathom::dropout draws it for the
  // probabilities (core/model/dropout.h): the same numbers for a given seed.
  torch::Tensor keep = torch::empty({0}, q.options());
  if (training && dropout > 0)
    keep = dropout_keep_mask({q.size(0), q.size(1), q.size(2), k.size(2)}, q.options(), dropout);
  return CpuAttentionFunction::apply(q, k, v, padding, causal, keep);
}

}  // namespace fathom
