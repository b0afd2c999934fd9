#pragma once
// Dynamic loss scaling for fp16 training (Micikevicius et al. 2018, "Mixed Precision
// Training"; the policy of PyTorch's torch.cuda.amp.GradScaler defaults,
// https://pytorch.org/docs/stable/amp.html#gradient-scaling). float16 gradients underflow
// below ~6e-8, so the loss is multiplied by a large scale before backward and the gradients
// divided by it before the update. When a gradient overflows (inf/nan) the update is skipped
// and the scale halved; after `growth_interval` clean updates in a row it is doubled.
// A skipped update is the scaler doing its job, not divergence.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace fathom {

class LossScaler {
 public:
  static constexpr double kInitialScale = 65536.0;  // 2^16, GradScaler's init_scale
  static constexpr int64_t kGrowthInterval = 2000;  // GradScaler's growth_interval

  explicit LossScaler(double scale = kInitialScale, int64_t clean_updates = 0)
      : scale_(scale), clean_updates_(clean_updates) {}

  // loss * scale, to call backward on.
  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }

  // Divides every defined gradient by the scale (exact: the scale is a power of two) and
  // says whether any gradient holds an inf or nan. Reads one flag from the device.
  bool unscale_and_find_non_finite(const std::vector<torch::Tensor>& parameters) const;

  // After each update: halve on a non-finite gradient (the update was skipped), double after
  // kGrowthInterval clean updates in a row.
  void update(bool found_non_finite);

  double scale_value() const { return scale_; }
  int64_t clean_updates() const { return clean_updates_; }  // since the last change

 private:
  double scale_;
  int64_t clean_updates_;
};

}  // namespace fathom
