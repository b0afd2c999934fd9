#include "core/model/dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <cstdint>
#include <mutex>

namespace fathom {

namespace {

// SplitMix64's output for state `offset + (index + 1) * golden gamma`: the stream's index-th
// number, computed without the ones before it (each element on any thread).
inline uint64_t splitmix64_at(uint64_t offset, uint64_t index) {
  uint64_t z = offset + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Which elements a draw keeps: the top 32 bits below (1 - p) 2^32, probability 1 - p to 2^-32.
struct KeepDraw {
  uint64_t offset, threshold;
  explicit KeepDraw(double p)
      : offset(next_offset()), threshold(std::llround((1 - p) * 4294967296.0)) {}
  bool keeps(int64_t i) const {
    return (splitmix64_at(offset, static_cast<uint64_t>(i)) >> 32) < threshold;
  }
  static uint64_t next_offset() {
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    return generator.get<at::CPUGeneratorImpl>()->random64();
  }
};

constexpr int64_t kGrain = 1 << 15;

// out[i] = kept ? in[i] / (1 - p) : 0 in the type's math precision, kept[i] = the draw's keep
// where `draw` is given (the forward), else read from `kept` (the backward).
template <typename scalar_t>
void scale_kept(const scalar_t* in, bool* kept, const KeepDraw* draw, double scale, int64_t n,
                scalar_t* out) {
  using math_t = at::opmath_type<scalar_t>;
  const math_t s = static_cast<math_t>(scale);
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (draw) kept[i] = draw->keeps(i);
      // A multiply by s or 0 rather than a branch: the loop vectorizes (and a dropped inf or
      // NaN stays NaN, as under torch::dropout's mask multiply).
      out[i] = static_cast<scalar_t>(static_cast<math_t>(in[i]) * (kept[i] ? s : math_t(0)));
    }
  });
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The forward in one pass, saving the keep mask as one byte an element (torch::dropout saves
// a float mask on the CPU: four); the backward applies it to the gradient.
struct DropoutFunction : torch::autograd::Function<DropoutFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x_in, double p) {
    const torch::Tensor x = x_in.contiguous();
    torch::Tensor kept = torch::empty(x.sizes(), x.options().dtype(torch::kBool));
    torch::Tensor out = torch::empty_like(x);
    const KeepDraw draw(p);
    const double scale = 1.0 / (1.0 - p);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "dropout", [&] {
      scale_kept(x.data_ptr<scalar_t>(), kept.data_ptr<bool>(), &draw, scale, x.numel(),
                 out.data_ptr<scalar_t>());
    });
    ctx->save_for_backward({kept});
    ctx->saved_data["scale"] = scale;
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    torch::Tensor kept = ctx->get_saved_variables()[0];
    const torch::Tensor grad = grad_output[0].contiguous();
    torch::Tensor dx = torch::empty_like(grad);
    const double scale = ctx->saved_data["scale"].toDouble();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, grad.scalar_type(), "dropout", [&] {
      scale_kept<scalar_t>(grad.data_ptr<scalar_t>(), kept.data_ptr<bool>(), nullptr, scale,
                           grad.numel(), dx.data_ptr<scalar_t>());
    });
    return {dx, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor dropout_keep_mask(at::IntArrayRef sizes, const torch::TensorOptions& options,
                                double p) {
  if (p >= 1) return torch::zeros(sizes, options);
  if (!options.device().is_cpu()) return torch::empty(sizes, options).bernoulli_(1 - p).div_(1 - p);
  torch::Tensor mask = torch::empty(sizes, options);
  const KeepDraw draw(p);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, mask.scalar_type(), "dropout", [&] {
    scalar_t* out = mask.data_ptr<scalar_t>();
    const scalar_t scale = static_cast<scalar_t>(1.0 / (1.0 - p));
    at::parallel_for(0, mask.numel(), kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = draw.keeps(i) ? scale : scalar_t(0);
    });
  });
  return mask;
}

torch::Tensor dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p <= 0) return x;
  if (!x.is_cpu()) return torch::dropout(x, p, training);
  if (p >= 1) return x * 0;
  return DropoutFunction::apply(x, p);
}

}  // namespace fathom
