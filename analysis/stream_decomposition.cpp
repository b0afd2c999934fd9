#include "analysis/stream_decomposition.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/model/transformer.h"

namespace fathom::analysis {
namespace {

torch::Tensor as_double(const torch::Tensor& t) { return t.detach().to(torch::kFloat64); }

// Float rounding of the model's float32 sums stays far below this; a shortcut that is not a
// per-unit scale (e.g. a gated one) lands far above it.
constexpr double kScaleTolerance = 1e-4;

}  // namespace

torch::Tensor non_pad(const torch::Tensor& tokens) { return tokens.ne(TransformerImpl::kPad); }

StreamDecomposer::StreamDecomposer(Callback callback, Transform transform)
    : callback_(std::move(callback)), transform_(std::move(transform)) {}

torch::Tensor StreamDecomposer::transform_branch(const SublayerId& id, torch::Tensor branch) {
  return transform_ ? transform_(id, std::move(branch)) : branch;
}

void StreamDecomposer::on_norm(const SublayerId* owner, const NormTrace& trace) {
  if (owner) {
    owned_norms_[{static_cast<int>(owner->stack), owner->index}] = trace;
    return;
  }
  // A stack's final LayerNorm (Pre-LN): it acts on the stream if it reads the last output.
  const Stack stack = trace.name.rfind("dec.", 0) == 0 ? Stack::Decoder : Stack::Encoder;
  StackStream& s = stream(stack);
  if (s.components.empty() || !s.last_output.defined() || !trace.input.is_same(s.last_output))
    return;
  apply_norm(s, trace);
  callback_(StreamStep{s.last_id, true, s.components, s.bias, trace.output});
}

void StreamDecomposer::apply_norm(StackStream& s, const NormTrace& norm) {
  const torch::Tensor scale = as_double(norm.gamma) / as_double(norm.std);  // [B, T, d]
  for (auto& c : s.components) c = (c - c.mean(-1, /*keepdim=*/true)) * scale;
  s.bias = (s.bias - s.bias.mean(-1, /*keepdim=*/true)) * scale + as_double(norm.beta);
}

void StreamDecomposer::on_sublayer(const SublayerId& id, const SublayerTrace& trace) {
  StackStream& s = stream(id.stack);
  const torch::Tensor x = as_double(trace.input), f = as_double(trace.branch);
  if (id.index == 0) {
    s.components = {x};
    s.bias = torch::zeros_like(x);
  }
  if (s.components.empty()) throw std::logic_error("stream decomposition: no embedding seen");

  // The LayerNorm on the stream, if any, is the one whose output is this sub-layer's output.
  const NormTrace* norm = nullptr;
  auto it = owned_norms_.find({static_cast<int>(id.stack), id.index});
  if (it != owned_norms_.end() && it->second.output.is_same(trace.output)) norm = &it->second;

  // Shortcut part of the sum (before any LayerNorm), and its per-unit scale of x_{k-1} by
  // least squares over all positions.
  const torch::Tensor sum = as_double(norm ? norm->input : trace.output);
  const torch::Tensor shortcut = sum - f;
  const torch::Tensor scale = (shortcut * x).sum(at::IntArrayRef{0, 1}) /
                              (x * x).sum(at::IntArrayRef{0, 1}).clamp_min(1e-300);  // [d]
  const double residual =
      (shortcut - scale * x).abs().max().item<double>() / (1.0 + sum.abs().max().item<double>());
  worst_scale_residual_ = std::max(worst_scale_residual_, residual);
  if (residual > kScaleTolerance)
    throw std::invalid_argument("sub-layer " + id.name() +
                                ": its shortcut is not a per-unit scale of its input; the "
                                "residual-stream decomposition does not apply");

  for (auto& c : s.components) c = c * scale;
  s.bias = s.bias * scale;
  s.components.push_back(f);
  if (norm) apply_norm(s, *norm);
  s.last_output = trace.output;
  s.last_id = id;
  callback_(StreamStep{id, false, s.components, s.bias, trace.output});
}

}  // namespace fathom::analysis
