#pragma once
// train.noise_scale: the gradient noise scale B_simple over training, from the gradients an
// update computes anyway (base/metrics/noise_scale_window.h; methods.md s5.12). The small
// gradient: in one process the update's first batch, read after its backward (an update of one
// batch gives no reading); in a data-parallel run each rank's share, read before the ranks'
// reduction and summed over the ranks in it. The big gradient: the update's, whose norm the
// clipping takes anyway. The cost: one norm over the gradients per update.
//
// Nothing is read from the device but at read(): per update, the two estimates are made and
// summed on the device, as DeviceMetrics does with the losses.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "base/metrics/noise_scale_window.h"

namespace fathom {

class NoiseScaleMonitor {
 public:
  // world: the run's processes (1: one process, or a one-rank group).
  NoiseScaleMonitor(std::vector<torch::Tensor> parameters, torch::Device device, int world = 1);

  // Before an update's first forward: its target tokens (every rank's), and the loss scale its
  // backward multiplies by (1 without loss scaling).
  void begin_update(int64_t update_tokens, double loss_scale);
  // After the backward of the position-th of this process's `count` batches of the update
  // (`tokens` target tokens). One process: the first of at least two batches is the small
  // gradient. A rank of several: its whole share is, read after its last batch.
  void after_batch(size_t position, size_t count, int64_t tokens);
  // A rank's reading for the ranks' reduction, float64 on the device: [|g_share|^2, 1 / B_share,
  // 1], or zeros for a rank without a batch this update; undefined in a world of one.
  torch::Tensor share_reading() const;
  // The reduction's sums of every rank's share_reading() (nothing in a world of one).
  void set_ranks_reading(double sq_sum, double inverse_tokens_sum, double readers);
  // Closes the update with its gradient's norm before clipping. An update without a small
  // gradient, or whose small gradient is the whole update, adds nothing.
  void end_update(const torch::Tensor& grad_norm);

  // The window's sums (one transfer), and a new window.
  NoiseScaleWindow window() const;
  void reset();
  // A resumed run continues its checkpoint's window.
  void restore(const NoiseScaleWindow& window);

 private:
  torch::Tensor squared_norm() const;  // sum of |grad|^2 over the parameters, float64
  std::vector<torch::Tensor> parameters_;
  torch::Device device_;
  int world_;
  double update_tokens_ = 0, loss_scale_ = 1;
  int64_t share_tokens_ = 0;
  torch::Tensor small_sq_;       // mean |g_small|^2 (float64 scalar); undefined: none yet
  double small_inv_tokens_ = 0;  // mean 1 / B_small
  torch::Tensor sums_;           // [sum tr, sum tr^2, sum |G|^2, sum (|G|^2)^2]
  int64_t updates_ = 0;
};

}  // namespace fathom
