#include "core/train/graphed_updates.h"

#include <cstdio>
#include <exception>
#include <utility>

#include "core/train/objective.h"

namespace fathom {

GraphedUpdates::GraphedUpdates(Transformer model, AutocastSetting autocast, double label_smoothing,
                               double z_loss, torch::Device device, size_t max_graphs)
    : model_(std::move(model)),
      autocast_(autocast),
      label_smoothing_(label_smoothing),
      z_loss_(z_loss),
      device_(device),
      max_graphs_(max_graphs) {}

GraphedUpdates::Shape GraphedUpdates::shape_of(const Batch& b) {
  return {b.src.size(0), b.src.size(1), b.tgt_in.size(1)};
}

// The eager step's forward_backward (core/train/training_session.cpp) for one batch, reading
// the update's token count from the graph's scalar input: the same float division.
GraphedPass::Pass GraphedUpdates::pass() {
  return [this](const Batch& b, const torch::Tensor& tokens) {
    ObjectiveSums step;
    {
      AutocastScope autocast(autocast_);
      step = objective_sums(model_->forward(b.src, b.tgt_in), b.tgt_out, label_smoothing_, z_loss_,
                            /*count_tokens=*/false);
    }
    (step.objective / tokens).backward();
    return std::vector<torch::Tensor>{step.loss.smoothed.detach(), step.loss.nll.detach()};
  };
}

std::optional<LossSums> GraphedUpdates::replay(const Batch& batch, int64_t tokens) {
  ++batches_;
  if (off_) return std::nullopt;
  const Shape shape = shape_of(batch);
  const auto graph = graphs_.find(shape);
  if (graph == graphs_.end()) {
    if (graphs_.size() + pending_.size() < max_graphs_) pending_.emplace(shape, batch);
    return std::nullopt;
  }
  const std::vector<torch::Tensor>& out = graph->second->replay(batch, static_cast<double>(tokens));
  ++replayed_;
  LossSums sums;
  sums.smoothed = out[0];
  sums.nll = out[1];
  return sums;
}

void GraphedUpdates::capture(const Batch& example) {
  // The graphs accumulate into the gradients where they are: every one must exist first.
  for (auto& p : model_->parameters())
    if (p.requires_grad() && !p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
  const GraphedPass* pool = graphs_.empty() ? nullptr : graphs_.begin()->second.get();
  graphs_.emplace(shape_of(example),
                  std::make_unique<GraphedPass>(pass(), example, device_, 2, pool));
}

void GraphedUpdates::capture_pending() {
  if (off_ || pending_.empty()) return;
  try {
    for (const auto& [shape, batch] : pending_) capture(batch);
  } catch (const std::exception& e) {
    off_ = true;
    graphs_.clear();
    std::fprintf(stderr, "train.cuda_graphs: %s; training on without graphs\n", e.what());
  }
  pending_.clear();
}

std::string batch_shapes_note(const BatchShapes& shapes, size_t batches, int64_t pad_multiple,
                              size_t max_graphs) {
  std::string note = "the plan's " + describe_batch_shapes(shapes, batches, pad_multiple);
  if (shapes.distinct > max_graphs)
    note += "; at most " + std::to_string(max_graphs) +
            " are captured, the others run eagerly every time: a larger data.pad_to_multiple "
            "(8 or 16) makes fewer";
  return note;
}

std::string GraphedUpdates::summary() const {
  return std::to_string(graphs_.size()) + " shapes captured, " + std::to_string(replayed_) +
         " of " + std::to_string(batches_) + " batches replayed" +
         (off_ ? " (capture failed)" : "");
}

}  // namespace fathom
