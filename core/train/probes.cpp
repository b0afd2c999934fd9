#include "core/train/probes.h"

#include <cmath>

#include "core/model/observed_eval.h"
#include "core/train/attention_grads.h"

namespace fathom {

TrainingProbes::TrainingProbes(TransformerImpl& model, Batch batch, AutocastSetting autocast,
                               std::vector<std::pair<std::string, torch::Tensor>> weights)
    : model_(model),
      batch_(std::move(batch)),
      autocast_(autocast),
      weights_(std::move(weights)),
      target_valid_(batch_.tgt_out.ne(TransformerImpl::kPad)) {}

std::vector<std::pair<std::string, torch::Tensor>> TrainingProbes::weight_matrices(
    const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& [name, tensor] : named_parameters)
    if (tensor.dim() >= 2) out.emplace_back(name, tensor);
  return out;
}

torch::Tensor TrainingProbes::logits(SublayerObserver* observer) {
  torch::NoGradGuard no_grad;
  ObservedEval eval(model_, observer);  // eval mode (no dropout: no random numbers drawn)
  torch::Tensor out;
  {
    AutocastScope autocast(autocast_);
    out = model_.forward(batch_.src, batch_.tgt_in);
  }
  return out.to(torch::kFloat).masked_fill(target_valid_.logical_not().unsqueeze(-1), 0);
}

void TrainingProbes::before_update() {
  logits_before_ = logits(nullptr);
  torch::NoGradGuard no_grad;
  weights_before_.clear();
  for (const auto& [name, w] : weights_) weights_before_.push_back(w.detach().clone());
}

void TrainingProbes::read_gradients() {
  gradient_ratio_.positions.clear();
  gradient_ratio_.values.clear();
  for (const ProjectionGrads& g : attention_projection_grads(model_.catalog())) {
    gradient_ratio_.positions.push_back(g.sublayer);
    gradient_ratio_.values.push_back(g.v > 0 ? static_cast<float>(g.q / g.v) : std::nanf(""));
  }
}

ProbeReading TrainingProbes::after_update() {
  ProbeObserver observer(batch_.src.ne(TransformerImpl::kPad), target_valid_);
  const torch::Tensor after = logits(&observer);
  ProbeReading reading;
  reading.per_position = observer.values();

  torch::NoGradGuard no_grad;
  // log Z over the real target tokens (the zeroed padding rows are left out).
  const torch::Tensor log_z = after.logsumexp(-1).masked_select(target_valid_);
  reading.log_z_mean = log_z.mean().item<double>();
  reading.log_z_max = log_z.max().item<double>();

  reading.output_change = std::nan("");
  if (logits_before_.defined()) {
    reading.output_change =
        ((after - logits_before_).norm() / logits_before_.norm()).item<double>();
    logits_before_ = torch::Tensor();
  }
  if (weights_before_.size() == weights_.size()) {
    ProbeValues ratio{"update.ratio", {}, {}};
    std::vector<torch::Tensor> ratios;
    for (size_t i = 0; i < weights_.size(); ++i) {
      ratio.positions.push_back(weights_[i].first);
      const torch::Tensor before = weights_before_[i].to(torch::kFloat);
      ratios.push_back((weights_[i].second.detach().to(torch::kFloat) - before).norm() /
                       before.norm());
    }
    const torch::Tensor all = torch::stack(ratios).to(torch::kCPU).contiguous();
    ratio.values.assign(all.data_ptr<float>(), all.data_ptr<float>() + all.numel());
    reading.per_position.push_back(std::move(ratio));
    weights_before_.clear();
  }
  if (!gradient_ratio_.positions.empty()) {  // a skipped fp16 update has none
    reading.per_position.push_back(gradient_ratio_);
    gradient_ratio_.positions.clear();
    gradient_ratio_.values.clear();
  }
  return reading;
}

}  // namespace fathom
