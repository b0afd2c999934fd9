#include "core/train/sharpness.h"

#include <algorithm>

#include "core/model/higher_order_grad.h"
#include "core/model/observed_eval.h"
#include "core/train/objective.h"

namespace fathom {

torch::Tensor training_objective(TransformerImpl& model, const Batch& batch, double label_smoothing,
                                 double z_loss) {
  const ObjectiveSums sums = objective_sums(model.forward(batch.src, batch.tgt_in), batch.tgt_out,
                                            label_smoothing, z_loss);
  return sums.objective / static_cast<double>(std::max<int64_t>(sums.loss.tokens, 1));
}

double adaptive_stability_threshold(double beta1) { return (2.0 + 2.0 * beta1) / (1.0 - beta1); }

SharpnessTracker::SharpnessTracker(TransformerImpl& model, Batch batch, SharpnessOptions options)
    : model_(model), batch_(std::move(batch)), options_(options) {
  for (const auto& p : model.parameters())
    if (p.requires_grad()) params_.push_back(p);
}

SharpnessReading SharpnessTracker::measure(const TensorList& step_factors, int64_t update) const {
  ObservedEval eval(model_, nullptr);  // dropout off; the training flag restored after
  HigherOrderGradScope twice_differentiable;
  const LossHessian hessian(
      [&] { return training_objective(model_, batch_, options_.label_smoothing, options_.z_loss); },
      params_);
  const std::uint64_t seed = options_.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(update);
  const LinearOperator h = [&](const TensorList& v) { return hessian.apply(v); };
  const TensorList start = random_direction(params_, seed);
  SharpnessReading reading;
  reading.sharpness = extreme_eigenvalues(h, start, options_.max_iterations, options_.tolerance);
  if (!step_factors.empty())
    reading.preconditioned = extreme_eigenvalues(preconditioned(h, step_factors), start,
                                                 options_.max_iterations, options_.tolerance);
  return reading;
}

}  // namespace fathom
