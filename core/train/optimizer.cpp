#include "core/train/optimizer.h"

#include <algorithm>
#include <cmath>

#include "core/train/checkpoint.h"
#include "core/train/checkpoint_checksum.h"
#include "core/train/muon.h"

namespace fathom {

Optimizer::Optimizer(std::vector<std::pair<std::string, torch::Tensor>> named_parameters,
                     const TrainConfig& config)
    : Optimizer(std::vector<ParameterGroup>{{"all", 1.0, 1.0, std::move(named_parameters)}},
                config) {}

Optimizer::Optimizer(const std::vector<ParameterGroup>& groups, const TrainConfig& config,
                     const std::vector<Matrix>& matrices)
    : rectified_(config.optimizer == "radam"),
      sgd_(config.optimizer == "sgd"),
      beta1_(config.betas[0]),
      beta2_(config.betas[1]),
      weight_decay_(config.weight_decay),
      muon_momentum_(config.muon_momentum) {
  auto muon_blocks = [&](const torch::Tensor& p) {
    for (const auto& m : matrices)
      if (m.weight.is_same(p)) return std::max(1, m.blocks);
    return 0;
  };
  for (const auto& g : groups) {
    Group group{g.name, g.lr_scale, config.eps * g.eps_scale, {}};
    for (const auto& [name, p] : g.parameters) {
      group.parameters.push_back(name);
      // SGD and a Muon matrix keep one buffer (the momentum); only Adam's family a second.
      const int blocks = muon_blocks(p);
      const torch::Tensor second = sgd_ || blocks > 0 ? torch::Tensor() : torch::zeros_like(p);
      slots_.push_back({name, p, torch::zeros_like(p), second, groups_.size(), blocks});
    }
    groups_.push_back(std::move(group));
  }
}

void Optimizer::zero_grad() {
  std::vector<torch::Tensor> grads;
  for (auto& s : slots_)
    if (s.param.grad().defined()) grads.push_back(s.param.mutable_grad());
  if (!grads.empty()) at::_foreach_zero_(grads);  // one op for all (see step)
}

void Optimizer::step(double lr) {
  torch::NoGradGuard no_grad;
  ++step_;
  const double t = static_cast<double>(step_);
  const double bias1 = 1.0 - std::pow(beta1_, t);
  const double bias2 = 1.0 - std::pow(beta2_, t);

  const Rectification r = rectification(t, bias2);
  last_step_fused_ = false;
  for (size_t g = 0; g < groups_.size(); ++g) step_group(g, lr, r.factor, r.adaptive, bias1, bias2);
}

// RAdam: the variance rectification term r_t, applied once the approximated SMA length rho_t
// exceeds 5 (as PyTorch's RAdam); before that, un-adapted momentum SGD. Adam: always 1.
Optimizer::Rectification Optimizer::rectification(double t, double bias2) const {
  if (!rectified_) return {1.0, true};
  const double rho_inf = 2.0 / (1.0 - beta2_) - 1.0;
  const double rho_t = rho_inf - 2.0 * t * std::pow(beta2_, t) / bias2;
  if (rho_t <= 5.0) return {1.0, false};
  return {std::sqrt((rho_t - 4.0) * (rho_t - 2.0) * rho_inf /
                    ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t)),
          true};
}

// One group's update at learning rate lr * lr_scale with the group's epsilon.
void Optimizer::step_group(size_t group, double lr_in, double rect, bool adaptive, double bias1,
                           double bias2) {
  const double lr = lr_in * groups_[group].lr_scale, eps = groups_[group].eps;
  // One multi-tensor (foreach) op per stage over every parameter with a gradient, as
  // PyTorch's Adam does by default: on CUDA each stage is a few kernel launches instead of one
  // per parameter (a 60-layer model has over 1000 tensors; per parameter, the update took 4x
  // PyTorch's time on an H200, docs/gpu.md). On the CPU the foreach ops loop over the same
  // per-tensor ops, so the numbers are bit-identical to the loop they replace. Where LibTorch
  // has the fused AdamW kernel (2.4+), one call does all the stages in one pass.
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  for (auto& s : slots_) {
    if (s.group != group || !s.param.grad().defined()) continue;
    if (s.muon_blocks > 0) {
      muon_step(s, lr);
      continue;
    }
    params.push_back(s.param);
    grads.push_back(s.param.grad());
    exp_avgs.push_back(s.exp_avg);
    exp_avg_sqs.push_back(s.exp_avg_sq);
  }
  if (params.empty()) return;
  if (sgd_) {
    sgd_step(params, grads, exp_avgs, lr);
    return;
  }
  if (fused_adamw_ && adaptive && fused_adamw_accepts(params, grads)) {
    // RAdam's rectified step is AdamW's at lr * rect; dividing the decay by rect keeps its
    // factor 1 - lr wd (rect > 0 wherever the update is adaptive).
    fused_adamw_step(params, grads, exp_avgs, exp_avg_sqs, step_, lr * rect, beta1_, beta2_,
                     weight_decay_ / rect, eps);
    last_step_fused_ = true;
    return;
  }
  if (weight_decay_ > 0) at::_foreach_mul_(params, 1.0 - lr * weight_decay_);
  at::_foreach_mul_(exp_avgs, beta1_);
  at::_foreach_add_(exp_avgs, grads, 1.0 - beta1_);
  at::_foreach_mul_(exp_avg_sqs, beta2_);
  at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1.0 - beta2_);
  if (adaptive) {
    std::vector<torch::Tensor> denoms = at::_foreach_sqrt(exp_avg_sqs);
    at::_foreach_div_(denoms, std::sqrt(bias2));
    at::_foreach_add_(denoms, eps);
    at::_foreach_addcdiv_(params, exp_avgs, denoms, -lr * rect / bias1);
  } else {
    at::_foreach_add_(params, exp_avgs, -lr / bias1);
  }
}

// SGD with heavy-ball momentum as PyTorch's torch.optim.SGD (dampening 0, no Nesterov):
// m <- beta1 m + g (m = g at the first update), W <- W (1 - lr wd) - lr m; the decay decoupled.
void Optimizer::sgd_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads,
                         std::vector<torch::Tensor>& momenta, double lr) {
  if (weight_decay_ > 0) at::_foreach_mul_(params, 1.0 - lr * weight_decay_);
  at::_foreach_mul_(momenta, beta1_);
  at::_foreach_add_(momenta, grads);
  at::_foreach_add_(params, momenta, -lr);
}

std::vector<Optimizer::Matrix> Optimizer::matrices_for(const TrainConfig& config,
                                                       const ParameterCatalog& catalog) {
  return config.optimizer == "muon" ? hidden_matrices(catalog) : std::vector<Matrix>{};
}

std::vector<Optimizer::Matrix> Optimizer::hidden_matrices(const ParameterCatalog& catalog) {
  std::vector<Matrix> matrices;
  for (const LinearEntry& entry : catalog.linears)
    if (entry.role != LinearRole::Other) matrices.push_back({entry.linear->weight, entry.blocks});
  return matrices;
}

// Muon (Liu et al. 2025, algorithm 1, with Nesterov momentum as Jordan et al.'s reference):
// M <- mu M + G; W <- W (1 - lr wd) - lr 0.2 sqrt(max(rows, cols)) NS(G + mu M).
void Optimizer::muon_step(Slot& s, double lr) {
  const torch::Tensor& grad = s.param.grad();
  s.exp_avg.mul_(muon_momentum_).add_(grad);
  const torch::Tensor direction = grad.add(s.exp_avg, muon_momentum_);
  const torch::Tensor update = orthogonalized_blocks(direction, s.muon_blocks);
  if (weight_decay_ > 0) s.param.mul_(1.0 - lr * weight_decay_);
  s.param.add_(update, -lr * muon_update_scale(s.param, s.muon_blocks));
}

void Optimizer::save(torch::serialize::OutputArchive& archive, TensorChecksum* checksum) const {
  archive.write("optimizer_step", torch::tensor(step_, torch::kInt64));
  for (const auto& s : slots_)
    for (const auto& [prefix, moment] :
         {std::pair{"optimizer_exp_avg", &s.exp_avg}, {"optimizer_exp_avg_sq", &s.exp_avg_sq}}) {
      if (!moment->defined()) continue;  // no second moment (SGD, a Muon matrix)
      const std::string key = archive_key(prefix, s.name);
      archive.write(key, *moment, /*is_buffer=*/true);
      if (checksum) checksum->add(key, *moment);
    }
}

void Optimizer::load(torch::serialize::InputArchive& archive, TensorChecksum* checksum) {
  torch::NoGradGuard no_grad;
  torch::Tensor step;
  archive.read("optimizer_step", step);
  step_ = step.item<int64_t>();
  for (auto& s : slots_)
    for (const auto& [prefix, moment] :
         {std::pair{"optimizer_exp_avg", &s.exp_avg}, {"optimizer_exp_avg_sq", &s.exp_avg_sq}}) {
      const std::string key = archive_key(prefix, s.name);
      torch::Tensor saved;
      if (!moment->defined()) {
        // A checkpoint from before SGD and Muon matrices dropped their unused second moment
        // holds it (zeros): read it for the checksum it was written into, and let it go.
        if (archive.try_read(key, saved, /*is_buffer=*/true) && checksum) checksum->add(key, saved);
        continue;
      }
      archive.read(key, saved, /*is_buffer=*/true);
      if (checksum) checksum->add(key, saved);
      moment->copy_(saved);
    }
}

}  // namespace fathom
