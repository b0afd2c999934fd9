#pragma once
// Adam (Kingma & Ba 2015) and RAdam (Liu et al. 2019, "On the Variance of the Adaptive
// Learning Rate and Beyond") with decoupled weight decay, Muon (core/train/muon.h) for the
// hidden layers' matrices beside Adam for the rest, and SGD with heavy-ball momentum -- one
// rate for every coordinate, the baseline of Zhang et al. 2024's "Why Transformers need Adam".
// Written out here (rather than torch::optim) because LibTorch has neither RAdam nor Muon and
// because the state must be saved in our checkpoints so that --resume continues the identical
// trajectory.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "base/config/config.h"
#include "core/model/depth_parameterization.h"
#include "core/model/parameter_catalog.h"
#include "core/train/fused_adamw.h"

namespace fathom {

class TensorChecksum;

class Optimizer {
 public:
  // One group: every parameter at the scheduled learning rate and train.eps.
  Optimizer(std::vector<std::pair<std::string, torch::Tensor>> named_parameters,
            const TrainConfig& config);
  // Groups with their own learning-rate and epsilon factors (model.parameterization,
  // core/model/depth_parameterization.h: parameter_groups()). With train.optimizer muon,
  // `matrices` are the parameters Muon updates (the others: Adam), each with the number of
  // matrices it stacks.
  struct Matrix {
    torch::Tensor weight;
    int blocks = 1;
  };
  Optimizer(const std::vector<ParameterGroup>& groups, const TrainConfig& config,
            const std::vector<Matrix>& matrices = {});

  // What each group uses: the learning rate of a step with scheduled rate `lr` is
  // lr * lr_scale; its Adam epsilon is eps (train.eps times the group's eps_scale).
  struct Group {
    std::string name;
    double lr_scale, eps;
    std::vector<std::string> parameters;
  };
  const std::vector<Group>& groups() const { return groups_; }

  // One update with learning rate `lr`, from the parameters' .grad().
  void step(double lr);
  void zero_grad();
  int64_t steps() const { return step_; }

  // Adam's and RAdam's adaptive updates go through LibTorch's fused AdamW kernel where it has
  // one (core/train/fused_adamw.h: 2.4+, CPU and CUDA) -- same formula, one pass over each
  // tensor instead of eight. use_fused_adamw(false): the foreach ops (side-by-side comparisons).
  void use_fused_adamw(bool on) { fused_adamw_ = on && fused_adamw_available(); }
  bool last_step_fused() const { return last_step_fused_; }

  // The matrices train.optimizer muon updates: every catalogued linear's weight -- attention
  // and FFN projections, the depth-wise LSTM's, gated attention's -- with its stacked blocks.
  static std::vector<Matrix> hidden_matrices(const ParameterCatalog& catalog);
  // The matrices `config`'s optimizer treats as such: hidden_matrices with train.optimizer muon,
  // none otherwise -- for the trainer and for whatever rebuilds its optimizer from a checkpoint.
  static std::vector<Matrix> matrices_for(const TrainConfig& config,
                                          const ParameterCatalog& catalog);

  // The diagonal preconditioner of the last update, as a step factor per coordinate: that
  // update moved parameter i by -lr * D_i * m_i (m the first moment, lr the scheduled rate),
  // D = lr_scale * r / ((1 - beta1^t) (sqrt(v / (1 - beta2^t)) + eps)), r RAdam's rectification
  // (1 for Adam; before it applies RAdam is momentum SGD: D = lr_scale / (1 - beta1^t); SGD's
  // heavy-ball buffer is (1 - beta1)^-1 times an average of gradients: D = lr_scale / (1 - beta1),
  // which puts its stability edge, lr lambda < 2 + 2 beta1, at the same threshold). So
  // D = P^-1 of Cohen et al. 2022's preconditioned sharpness (core/train/sharpness.h). One
  // tensor per entry of `params` (matched by identity; zeros for a parameter it does not
  // update); empty before the first update or where Muon updates a matrix (not diagonal).
  std::vector<torch::Tensor> diagonal_step_factors(const std::vector<torch::Tensor>& params) const;

  // `checksum` (when given) adds each moment tensor as written or as read
  // (core/train/checkpoint_checksum.h).
  void save(torch::serialize::OutputArchive& archive, TensorChecksum* checksum = nullptr) const;
  void load(torch::serialize::InputArchive& archive, TensorChecksum* checksum = nullptr);

 private:
  struct Slot {
    std::string name;
    // Muon and SGD: exp_avg is the momentum and exp_avg_sq undefined (no second moment).
    torch::Tensor param, exp_avg, exp_avg_sq;
    size_t group;
    int muon_blocks = 0;  // > 0: Muon updates it, a stack of this many matrices
  };
  struct Rectification {
    double factor;
    bool adaptive;
  };
  Rectification rectification(double t, double bias2) const;
  void step_group(size_t group, double lr, double rect, bool adaptive, double bias1, double bias2);
  void muon_step(Slot& slot, double lr);
  void sgd_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads,
                std::vector<torch::Tensor>& momenta, double lr);

  bool rectified_;  // RAdam
  bool sgd_;        // momentum SGD: exp_avg is the momentum buffer, exp_avg_sq undefined
  bool fused_adamw_ = fused_adamw_available();
  bool last_step_fused_ = false;
  double beta1_, beta2_, weight_decay_, muon_momentum_;
  std::vector<Group> groups_;
  int64_t step_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace fathom
