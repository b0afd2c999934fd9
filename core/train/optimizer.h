#pragma once
// Adam (Kingma & Ba 2015) and RAdam (Liu et al. 2019, "On the Variance of the Adaptive
// Learning Rate and Beyond") with decoupled weight decay. Written out here (rather than
// torch::optim) because LibTorch has no RAdam and because the state must be saved in our
// checkpoints so that --resume continues the identical trajectory.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "base/config/config.h"

namespace fathom {

class Optimizer {
 public:
  Optimizer(std::vector<std::pair<std::string, torch::Tensor>> named_parameters,
            const TrainConfig& config);

  // One update with learning rate `lr`, from the parameters' .grad().
  void step(double lr);
  void zero_grad();
  int64_t steps() const { return step_; }

  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

 private:
  struct Slot {
    std::string name;
    torch::Tensor param, exp_avg, exp_avg_sq;
  };
  bool rectified_;  // RAdam
  double beta1_, beta2_, eps_, weight_decay_;
  int64_t step_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace fathom
