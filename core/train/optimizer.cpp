#include "core/train/optimizer.h"

#include <cmath>

#include "core/train/checkpoint.h"

namespace fathom {

Optimizer::Optimizer(std::vector<std::pair<std::string, torch::Tensor>> named_parameters,
                     const TrainConfig& config)
    : rectified_(config.optimizer == "radam"),
      beta1_(config.betas[0]),
      beta2_(config.betas[1]),
      eps_(config.eps),
      weight_decay_(config.weight_decay) {
  for (auto& [name, p] : named_parameters)
    slots_.push_back({name, p, torch::zeros_like(p), torch::zeros_like(p)});
}

void Optimizer::zero_grad() {
  for (auto& s : slots_)
    if (s.param.grad().defined()) s.param.mutable_grad().zero_();
}

void Optimizer::step(double lr) {
  torch::NoGradGuard no_grad;
  ++step_;
  const double t = static_cast<double>(step_);
  const double bias1 = 1.0 - std::pow(beta1_, t);
  const double bias2 = 1.0 - std::pow(beta2_, t);

  // RAdam: the variance rectification term r_t, applied once the approximated SMA length
  // rho_t exceeds 5 (as PyTorch's RAdam); before that, un-adapted momentum SGD.
  double rect = 1.0;
  bool adaptive = true;
  if (rectified_) {
    const double rho_inf = 2.0 / (1.0 - beta2_) - 1.0;
    const double rho_t = rho_inf - 2.0 * t * std::pow(beta2_, t) / bias2;
    adaptive = rho_t > 5.0;
    if (adaptive)
      rect = std::sqrt((rho_t - 4.0) * (rho_t - 2.0) * rho_inf /
                       ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t));
  }

  for (auto& s : slots_) {
    const torch::Tensor& grad = s.param.grad();
    if (!grad.defined()) continue;
    if (weight_decay_ > 0) s.param.mul_(1.0 - lr * weight_decay_);
    s.exp_avg.mul_(beta1_).add_(grad, 1.0 - beta1_);
    s.exp_avg_sq.mul_(beta2_).addcmul_(grad, grad, 1.0 - beta2_);
    if (adaptive) {
      torch::Tensor denom = (s.exp_avg_sq.sqrt() / std::sqrt(bias2)).add_(eps_);
      s.param.addcdiv_(s.exp_avg, denom, -lr * rect / bias1);
    } else {
      s.param.add_(s.exp_avg, -lr / bias1);
    }
  }
}

void Optimizer::save(torch::serialize::OutputArchive& archive) const {
  archive.write("optimizer_step", torch::tensor(step_, torch::kInt64));
  for (const auto& s : slots_) {
    archive.write(archive_key("optimizer_exp_avg", s.name), s.exp_avg, /*is_buffer=*/true);
    archive.write(archive_key("optimizer_exp_avg_sq", s.name), s.exp_avg_sq, /*is_buffer=*/true);
  }
}

void Optimizer::load(torch::serialize::InputArchive& archive) {
  torch::NoGradGuard no_grad;
  torch::Tensor step;
  archive.read("optimizer_step", step);
  step_ = step.item<int64_t>();
  for (auto& s : slots_) {
    torch::Tensor m, v;
    archive.read(archive_key("optimizer_exp_avg", s.name), m, /*is_buffer=*/true);
    archive.read(archive_key("optimizer_exp_avg_sq", s.name), v, /*is_buffer=*/true);
    s.exp_avg.copy_(m);
    s.exp_avg_sq.copy_(v);
  }
}

}  // namespace fathom
