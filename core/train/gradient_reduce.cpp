#include "core/train/gradient_reduce.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/train/rank_group.h"

namespace fathom {
namespace {
constexpr size_t kReduceHeader = 4;  // smoothed, nll, stop, abandoned; then a flag per parameter
}  // namespace

std::vector<size_t> batches_of_rank(size_t batches, int rank, int world) {
  std::vector<size_t> mine;
  for (size_t i = static_cast<size_t>(rank); i < batches; i += static_cast<size_t>(world))
    mine.push_back(i);
  return mine;
}

std::string rank_balance_note(const TokenPairs& examples, const BatchPlan& plan,
                              int64_t update_tokens, int world) {
  if (world <= 1 || plan.empty()) return "";
  int64_t tokens = 0;
  for (std::uint32_t id : plan.order) tokens += examples.tgt_len(id);
  const double per_batch = static_cast<double>(tokens) / static_cast<double>(plan.size());
  // An update reads batches until it holds update_tokens: about this many.
  const int64_t batches =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(update_tokens / per_batch - 1e-9)));
  if (batches % world == 0) return "";
  const int64_t balanced = (batches / world + 1) * world;
  char text[400];
  std::snprintf(text, sizeof text,
                "note: an update of %lld target tokens takes about %lld batches (%.0f target "
                "tokens each): %d processes get %lld and %lld, and the lighter wait; "
                "train.update_tokens = %lld would give each %lld (docs/distributed.md)",
                static_cast<long long>(update_tokens), static_cast<long long>(batches), per_batch,
                world, static_cast<long long>((batches + world - 1) / world),
                static_cast<long long>(batches / world),
                static_cast<long long>(std::llround((balanced - 0.5) * per_batch)),
                static_cast<long long>(balanced / world));
  return text;
}

GradientReducer::GradientReducer(RankGroup& group, std::vector<torch::Tensor> parameters,
                                 int64_t bucket_bytes)
    : group_(group), parameters_(std::move(parameters)) {
  // Consecutive parameters of one dtype share a bucket until it holds bucket_bytes.
  int64_t bytes = 0;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const torch::Tensor& p = parameters_[i];
    const int64_t size = p.numel() * static_cast<int64_t>(p.element_size());
    const bool same_dtype =
        !buckets_.empty() && parameters_[buckets_.back().front()].scalar_type() == p.scalar_type();
    if (buckets_.empty() || !same_dtype || bytes + size > bucket_bytes) {
      buckets_.emplace_back();
      bytes = 0;
    }
    buckets_.back().push_back(i);
    bytes += size;
  }
}

GradientReducer::Totals GradientReducer::reduce(const torch::Tensor& smoothed,
                                                const torch::Tensor& nll, bool stop,
                                                bool abandoned) {
  const auto start = std::chrono::steady_clock::now();
  torch::NoGradGuard no_grad;
  const torch::Device device =
      parameters_.empty() ? torch::Device(torch::kCPU) : parameters_.front().device();
  // [smoothed, nll, stop, abandoned, has_grad of every parameter]: float64 holds the sums as
  // the device metrics keep them and the counts exactly.
  // Built on the host in one piece (not an indexed write per parameter on the device, hundreds
  // of small ops per update); only the two loss sums come from the device.
  std::vector<double> flags(kReduceHeader + parameters_.size(), 0.0);
  flags[2] = stop ? 1.0 : 0.0;
  flags[3] = abandoned ? 1.0 : 0.0;
  for (size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].grad().defined()) flags[kReduceHeader + i] = 1.0;
  torch::Tensor header = torch::tensor(flags, torch::kFloat64).to(device);
  if (smoothed.defined()) header.narrow(0, 0, 1).copy_(smoothed.reshape({1}));
  if (nll.defined()) header.narrow(0, 1, 1).copy_(nll.reshape({1}));

  std::vector<torch::Tensor> flat{header};
  for (const auto& bucket : buckets_) {
    std::vector<torch::Tensor> pieces;
    for (size_t i : bucket) {
      const torch::Tensor& p = parameters_[i];
      pieces.push_back(p.grad().defined() ? p.grad().reshape({-1}) : torch::zeros_like(p).view(-1));
    }
    flat.push_back(torch::cat(pieces));
  }
  group_.all_reduce_sum(flat);

  const torch::Tensor totals = header.cpu();
  const double* t = totals.data_ptr<double>();
  last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (t[3] > 0) return Totals{t[0], t[1], t[2] > 0, true};  // discarded: the sums are partial
  for (size_t b = 0; b < buckets_.size(); ++b) {
    int64_t offset = 0;
    for (size_t i : buckets_[b]) {
      torch::Tensor& p = parameters_[i];
      const int64_t n = p.numel();
      if (t[kReduceHeader + i] > 0) {  // some rank has a gradient: the sum is everyone's
        const torch::Tensor summed = flat[b + 1].narrow(0, offset, n).view(p.sizes());
        if (p.grad().defined())
          p.mutable_grad().copy_(summed);
        else
          p.mutable_grad() = summed.clone();
      }
      offset += n;
    }
  }
  last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Totals{t[0], t[1], t[2] > 0, false};
}

}  // namespace fathom
