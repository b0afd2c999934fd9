#pragma once
// Fathom's own CPU kernels (the attention loop, the hyper-connection stream mixing, the
// Sinkhorn projection), the loss's reduced-precision node (core/train/token_losses.h) and
// LibTorch's fused attention compute their backward outside autograd:
// a gradient taken through them cannot be differentiated again, and LibTorch would not say so
// -- the second derivative through them would silently be zero. While a HigherOrderGradScope
// is alive on a thread, the model takes the plain tensor-op path of each (the same function),
// so Hessian-vector products (core/train/hessian.h) are exact.
namespace fathom {

// Whether this thread is inside a HigherOrderGradScope.
bool higher_order_grad_needed();

class HigherOrderGradScope {
 public:
  HigherOrderGradScope();
  ~HigherOrderGradScope();
  HigherOrderGradScope(const HigherOrderGradScope&) = delete;
  HigherOrderGradScope& operator=(const HigherOrderGradScope&) = delete;

 private:
  bool outer_;
};

}  // namespace fathom
