#pragma once
// The training loss's sharpness while a model trains (docs/curvature.md): every
// train.sharpness_every updates, on one fixed batch of training pairs (the first
// train.sharpness_sentences, the same tokens each time), in eval mode (dropout off), in float32
// without autocast:
//   sharpness                 lambda_max(H), H the Hessian of the training objective (label-
//                             smoothed cross entropy per target token, plus the z-loss if on)
//                             with respect to every trainable parameter;
//   preconditioned sharpness  lambda_max(P^-1 H), P^-1 = diag(D) the step factors of the
//                             update just made (Optimizer::diagonal_step_factors), Adam and
//                             RAdam only. Cohen et al. 2022 (arXiv 2207.14484): Adam with rate
//                             eta and beta1 is stable on a quadratic while
//                             eta * lambda_max(P^-1 H) < (2 + 2 beta1) / (1 - beta1) (38 at
//                             0.9), and full-batch training hovers there (the adaptive edge of
//                             stability); Gilmer et al. 2022 (arXiv 2110.04369) tie the failure
//                             of unstable Transformer configurations to early high curvature.
// Each is the largest Ritz value of the Lanczos iteration on exact Hessian-vector products
// (core/train/hessian.h), from a direction seeded by (train.seed, update). The passes draw
// nothing from the global generator and leave the model and its gradients as they were:
// training with the sharpness is the same computation as without it.
#include <cstdint>
#include <optional>

#include "core/data/batch.h"
#include "core/model/transformer.h"
#include "core/train/hessian.h"

namespace fathom {

// The objective training minimises, per target token, on `batch` (pad excluded).
torch::Tensor training_objective(TransformerImpl& model, const Batch& batch, double label_smoothing,
                                 double z_loss);

struct SharpnessReading {
  ExtremeEigen sharpness;                      // of H
  std::optional<ExtremeEigen> preconditioned;  // of P^-1 H
  int products() const {
    return sharpness.iterations + (preconditioned ? preconditioned->iterations : 0);
  }
};

struct SharpnessOptions {
  double label_smoothing = 0.1;
  double z_loss = 0;
  int max_iterations = 20;  // Hessian-vector products per eigenvalue, at most
  double tolerance = 1e-3;  // the largest Ritz value's residual, relative, that ends it
  std::uint64_t seed = 1;
};

class SharpnessTracker {
 public:
  // `batch` on the model's device. H is over every trainable parameter of the model.
  SharpnessTracker(TransformerImpl& model, Batch batch, SharpnessOptions options);

  // The parameters H is over, in the model's order: what step factors are given for.
  const TensorList& parameters() const { return params_; }

  // At the parameters as they are now. `step_factors`: D, one tensor per parameters() entry;
  // empty: no preconditioned sharpness. `update` seeds the start direction.
  SharpnessReading measure(const TensorList& step_factors, int64_t update) const;

 private:
  TransformerImpl& model_;
  Batch batch_;
  TensorList params_;
  SharpnessOptions options_;
};

// Adam's stability threshold on eta * lambda_max(P^-1 H) for momentum beta1 (Cohen et al. 2022):
// (2 + 2 beta1) / (1 - beta1); 2 (gradient descent's) at beta1 = 0.
double adaptive_stability_threshold(double beta1);

}  // namespace fathom
