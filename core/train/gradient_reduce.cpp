#include "core/train/gradient_reduce.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>

namespace fathom {
namespace {
// smoothed, nll, stop, abandoned, late (a gradient changed after its bucket left), the rank's
// noise-scale reading (3 values: core/train/noise_scale_monitor.h); then a flag per parameter:
// has a gradient
constexpr size_t kReduceHeader = 8;
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
                                 Options options)
    : group_(group), parameters_(std::move(parameters)), overlap_(options.overlap) {
  // Last parameters first (the backward finishes the top of the model first); consecutive
  // ones of one dtype share a bucket until it holds bucket_bytes.
  bucket_of_.resize(parameters_.size());
  int64_t bytes = 0;
  for (size_t k = parameters_.size(); k-- > 0;) {
    const torch::Tensor& p = parameters_[k];
    const int64_t size = p.numel() * static_cast<int64_t>(p.element_size());
    const bool same_dtype =
        !buckets_.empty() && parameters_[buckets_.back().front()].scalar_type() == p.scalar_type();
    if (buckets_.empty() || !same_dtype || bytes + size > options.bucket_bytes) {
      buckets_.emplace_back();
      bytes = 0;
    }
    buckets_.back().push_back(k);
    bucket_of_[k] = buckets_.size() - 1;
    bytes += size;
  }
  hooked_in_bucket_.assign(buckets_.size(), 0);
  flat_.resize(buckets_.size());
  pending_.resize(buckets_.size());
  if (!overlap_) return;
  // A leaf's AccumulateGrad node runs once per backward, after adding the batch's gradient
  // to .grad: its post hook is the moment the gradient is final (in the last backward).
  for (size_t k = 0; k < parameters_.size(); ++k) {
    if (!parameters_[k].requires_grad()) continue;  // never has a gradient: nothing to wait for
    std::shared_ptr<torch::autograd::Node> accumulator =
        torch::autograd::impl::grad_accumulator(parameters_[k]);
    if (!accumulator) continue;
    hook_keys_.push_back(
        accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [this, k](const torch::autograd::variable_list& outputs,
                      const torch::autograd::variable_list&) {
              on_gradient_final(k);
              return outputs;
            })));
    accumulators_.push_back(std::move(accumulator));
    ++hooked_in_bucket_[bucket_of_[k]];
  }
}

GradientReducer::~GradientReducer() {
  for (size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hook_keys_[i]);
}

void GradientReducer::start_overlap() {
  if (!overlap_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = true;
  final_.assign(parameters_.size(), false);
  missing_ = hooked_in_bucket_;
  launch_ready_buckets();  // a bucket of parameters without gradients is ready at once
}

void GradientReducer::on_gradient_final(size_t parameter) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_) return;      // an earlier batch's backward: the gradient is not final yet
  if (final_[parameter]) {  // accumulated twice in one backward (a parameter used in a
    late_ = true;           // nested backward too): its bucket may have left without it
    return;
  }
  final_[parameter] = true;
  --missing_[bucket_of_[parameter]];
  launch_ready_buckets();
}

void GradientReducer::launch_ready_buckets() {
  while (launched_ < buckets_.size() && missing_[launched_] == 0) launch(launched_);
}

void GradientReducer::launch(size_t bucket) {
  if (!first_launch_) first_launch_ = Clock::now();
  torch::NoGradGuard no_grad;
  flat_[bucket] = flatten(bucket);
  pending_[bucket] = group_.start_all_reduce_sum(flat_[bucket]);
  ++launched_;
}

torch::Tensor GradientReducer::flatten(size_t bucket) const {
  std::vector<torch::Tensor> pieces;
  for (size_t i : buckets_[bucket]) {
    const torch::Tensor& p = parameters_[i];
    pieces.push_back(p.grad().defined() ? p.grad().reshape({-1}) : torch::zeros_like(p).view(-1));
  }
  return torch::cat(pieces);
}

void GradientReducer::reduce_all_again() {
  torch::NoGradGuard no_grad;
  for (size_t b = 0; b < buckets_.size(); ++b) flat_[b] = flatten(b);
  group_.all_reduce_sum(flat_);
}

GradientReducer::Totals GradientReducer::reduce(const torch::Tensor& smoothed,
                                                const torch::Tensor& nll, bool stop, bool abandoned,
                                                const torch::Tensor& noise) {
  const auto start = Clock::now();
  torch::NoGradGuard no_grad;
  const torch::Device device =
      parameters_.empty() ? torch::Device(torch::kCPU) : parameters_.front().device();
  // [smoothed, nll, stop, abandoned, late, noise reading (3), has_grad of every parameter]:
  // float64 holds the sums as the device metrics keep them and the counts exactly.
  // Built on the host in one piece (not an indexed write per parameter on the device, hundreds
  // of small ops per update); only the two loss sums come from the device.
  std::vector<double> flags(kReduceHeader + parameters_.size(), 0.0);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    if (first_launch_)  // buckets the backward started: reducing while it still ran
      last_overlap_seconds_ = std::chrono::duration<double>(start - *first_launch_).count();
    else
      last_overlap_seconds_ = 0;
    while (launched_ < buckets_.size()) launch(launched_);  // what the backward did not start
    flags[4] = late_ ? 1.0 : 0.0;
  }
  flags[2] = stop ? 1.0 : 0.0;
  flags[3] = abandoned ? 1.0 : 0.0;
  for (size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].grad().defined()) flags[kReduceHeader + i] = 1.0;
  torch::Tensor header = torch::tensor(flags, torch::kFloat64).to(device);
  if (smoothed.defined()) header.narrow(0, 0, 1).copy_(smoothed.reshape({1}));
  if (nll.defined()) header.narrow(0, 1, 1).copy_(nll.reshape({1}));
  if (noise.defined()) header.narrow(0, 5, 3).copy_(noise.reshape({3}));
  const RankGroup::PendingReduction header_sum = group_.start_all_reduce_sum(header);
  for (auto& wait : pending_) wait();
  header_sum();
  first_launch_.reset();
  launched_ = 0;
  late_ = false;
  pending_.assign(buckets_.size(), nullptr);

  const torch::Tensor totals = header.cpu();
  const double* t = totals.data_ptr<double>();
  if (t[4] > 0) {  // some rank's gradient changed after its bucket left: every rank redoes it
    reduce_all_again();
    if (overlap_ && group_.leads())
      std::fprintf(stderr,
                   "note: a parameter's gradient is accumulated twice in one backward; the "
                   "gradients are reduced after the backward from now on\n");
    overlap_ = false;  // every rank read the same header
  }
  last_seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
  if (t[3] > 0) return Totals{t[0], t[1], t[2] > 0, true};  // discarded: the sums are partial
  for (size_t b = 0; b < buckets_.size(); ++b) {
    int64_t offset = 0;
    for (size_t i : buckets_[b]) {
      torch::Tensor& p = parameters_[i];
      const int64_t n = p.numel();
      if (t[kReduceHeader + i] > 0) {  // some rank has a gradient: the sum is everyone's
        const torch::Tensor summed = flat_[b].narrow(0, offset, n).view(p.sizes());
        if (p.grad().defined())
          p.mutable_grad().copy_(summed);
        else
          p.mutable_grad() = summed.clone();
      }
      offset += n;
    }
  }
  last_seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
  return Totals{t[0], t[1], t[2] > 0, false, t[5], t[6], t[7]};
}

}  // namespace fathom
