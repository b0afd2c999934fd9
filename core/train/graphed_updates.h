#pragma once
// train.cuda_graphs: the trainer's forward, objective and backward of a batch replayed as a
// CUDA graph (core/train/graphed_pass.h), one graph per batch shape. Batch plans are fixed
// (core/data/batch_plan.h), so every shape comes back once an epoch: a shape met for the first time
// runs eagerly and is captured at the next update boundary (capture_pending), where the
// warm-ups' gradients are then zeroed with the update's. All graphs share one memory pool;
// replays run one at a time, their loss sums read (added to the device metrics) before the
// next.
//
// What the graph fixes: a stop request is served at the update's end, not inside its forward
// or backward; the objective is the one given here (train.label_smoothing, train.z_loss).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/data/batch_plan.h"
#include "core/model/autocast_scope.h"
#include "core/model/transformer.h"
#include "core/train/graphed_pass.h"
#include "core/train/loss.h"

namespace fathom {

class GraphedUpdates {
 public:
  // At most `max_graphs` shapes are captured; batches of other shapes run eagerly.
  GraphedUpdates(Transformer model, AutocastSetting autocast, double label_smoothing, double z_loss,
                 torch::Device device, size_t max_graphs = kGraphedShapesLimit);

  // Where `batch`'s shape has a graph: its objective divided by `tokens` (the update's) back-
  // propagated into the parameters' gradients, and its loss sums (the graph's outputs, valid
  // until the next replay). nullopt otherwise: the caller runs it eagerly, and the shape is
  // captured at the next capture_pending().
  std::optional<LossSums> replay(const Batch& batch, int64_t tokens);

  // Captures the shapes met since the last call, on their first batch. Between updates, before
  // the gradients are zeroed: the warm-up passes accumulate into them. A capture that fails
  // turns graphs off for the session (said once on stderr): training goes on eagerly.
  void capture_pending();
  // Captures `example`'s shape now (as capture_pending does each pending one; a benchmark's
  // one fixed batch). Throws where it fails.
  void capture(const Batch& example);

  // "12 shapes captured, 340 of 400 batches replayed" (for the session's end).
  std::string summary() const;
  int64_t replayed_batches() const { return replayed_; }
  int64_t batches() const { return batches_; }

 private:
  using Shape = std::tuple<int64_t, int64_t, int64_t>;  // rows, source and target length
  static Shape shape_of(const Batch& b);
  GraphedPass::Pass pass();

  Transformer model_;
  AutocastSetting autocast_;
  double label_smoothing_, z_loss_;
  torch::Device device_;
  size_t max_graphs_;
  bool off_ = false;  // a capture failed
  std::map<Shape, std::unique_ptr<GraphedPass>> graphs_;
  std::map<Shape, Batch> pending_;  // met, not captured yet: their first batch
  int64_t replayed_ = 0, batches_ = 0;
};

// "the plan's 2680 batches of 1668 shapes (...); at most 512 are captured, ..." -- said when a
// graphed session starts, before any capture: how many graphs the corpus makes (shapes beyond
// max_graphs run eagerly every time) and what the padding costs.
std::string batch_shapes_note(const BatchShapes& shapes, size_t batches, int64_t pad_multiple,
                              size_t max_graphs = kGraphedShapesLimit);

}  // namespace fathom
