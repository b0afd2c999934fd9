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
  // A stack's final LayerNorm (Pre-LN): it acts on the stream if it reads the last output. A
  // hyper-connection stack sums its streams again for it (a tensor of its own): by value.
  const Stack stack = trace.name.rfind("dec.", 0) == 0 ? Stack::Decoder : Stack::Encoder;
  StackStream& s = stream(stack);
  if (s.components.empty() || !s.last_output.defined()) return;
  const bool reads_last = s.packed.empty() ? trace.input.is_same(s.last_output)
                                           : trace.input.sizes() == s.last_output.sizes() &&
                                                 torch::allclose(trace.input, s.last_output);
  if (!reads_last) return;
  apply_norm(s, trace);
  callback_(StreamStep{s.last_id, true, s.components, s.bias, trace.output});
}

void StreamDecomposer::apply_norm(StackStream& s, const NormTrace& norm) {
  const torch::Tensor scale = as_double(norm.gamma) / as_double(norm.std);  // [B, T, d]
  for (auto& c : s.components) c = (c - c.mean(-1, /*keepdim=*/true)) * scale;
  s.bias = (s.bias - s.bias.mean(-1, /*keepdim=*/true)) * scale + as_double(norm.beta);
}

void StreamDecomposer::on_stream_mixing(const SublayerId& id, const torch::Tensor& mixing,
                                        const torch::Tensor& write) {
  StackStream& s = stream(id.stack);
  s.mixing = as_double(mixing);
  s.write = as_double(write);
}

void StreamDecomposer::add_hyper_sublayer(StackStream& s, const SublayerId& id,
                                          const SublayerTrace& trace) {
  if (!s.mixing.defined())
    throw std::logic_error("stream decomposition: sub-layer " + id.name() +
                           " passed streams on but reported no mixing");
  const int64_t n = s.mixing.size(-1);
  const torch::Tensor f = as_double(trace.branch);
  if (id.index == 0) {  // the embedding, copied into the n streams (their sum is n x)
    const torch::Tensor x = as_double(trace.input) / static_cast<double>(n);
    s.packed = {x.unsqueeze(-2).expand({x.size(0), x.size(1), n, x.size(2)}).contiguous()};
    s.bias = torch::zeros_like(x);
  }
  if (s.packed.empty()) throw std::logic_error("stream decomposition: no embedding seen");
  for (auto& c : s.packed) c = torch::matmul(s.mixing, c);  // new_i = sum_j M_ij old_j
  s.packed.push_back(s.write.unsqueeze(-1) * f.unsqueeze(-2));
  s.mixing = s.write = torch::Tensor();

  // The components must rebuild the streams the sub-layer passes on.
  const torch::Tensor streams = as_double(trace.state).unflatten(-1, {n, f.size(-1)});
  torch::Tensor sum = torch::zeros_like(streams);
  for (const auto& c : s.packed) sum += c;
  const double residual =
      (sum - streams).abs().max().item<double>() / (1.0 + streams.abs().max().item<double>());
  worst_scale_residual_ = std::max(worst_scale_residual_, residual);
  if (residual > kScaleTolerance)
    throw std::invalid_argument("sub-layer " + id.name() +
                                ": its streams are not the mixed components plus its branch; the "
                                "stream decomposition does not apply");
  s.components.clear();
  for (const auto& c : s.packed) s.components.push_back(c.sum(-2));
  s.last_output = trace.output;
  s.last_id = id;
  callback_(StreamStep{id, false, s.components, s.bias, trace.output});
}

void StreamDecomposer::on_sublayer(const SublayerId& id, const SublayerTrace& trace) {
  StackStream& s = stream(id.stack);
  if (trace.state.defined()) return add_hyper_sublayer(s, id, trace);
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
