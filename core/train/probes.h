#pragma once
// The training probes (docs/probes.md): every train.probe_every updates, what happens inside
// the layers, read on one fixed batch of validation pairs (the same tokens each time) in eval
// mode with dropout off, under the run's autocast. Around probed update t:
//   before_update()  F(x, W_t-1): the output logits, and a copy of every weight matrix;
//   after_update()   one observed forward with W_t: per attention head the largest
//                    |q.k|/sqrt(d_h), the entropy and the mass on the first key, per sub-layer
//                    the stream's and the branch's RMS, the stream's largest |activation|, its
//                    kurtosis and largest over median |activation|, the angle between the
//                    sub-layer's input and output, and the cosine between its tokens
//                    (probe_observer.h);
//                    log Z of the output logits (mean and max over target tokens); per weight
//                    matrix ||W_t - W_t-1|| / ||W_t-1||; and Admin's relative output change
//                    |F(x, W_t) - F(x, W_t-1)| / |F(x, W_t-1)| (Liu et al. 2020, s4.2);
//   read_gradients() between them, on the update's own gradient (before clipping): per
//                    attention sub-layer |dL/dW_Q| / |dL/dW_V| (attention_grads.h).
// The probe passes run without gradients and draw no random numbers: training with probes is
// the same computation as without (tests/core/test_probes.cpp checks the losses agree).
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "core/data/batch.h"
#include "core/model/autocast_scope.h"
#include "core/model/transformer.h"
#include "core/train/probe_observer.h"

namespace fathom {

struct ProbeReading {
  std::vector<ProbeValues> per_position;  // attn.*, stream.*, branch.rms, update.ratio
  double log_z_mean = 0, log_z_max = 0;
  double output_change = 0;  // NaN when before_update() was not called for this update
};

class TrainingProbes {
 public:
  // `batch` on the model's device. `weights`: the matrices update.ratio follows (name, tensor).
  TrainingProbes(TransformerImpl& model, Batch batch, AutocastSetting autocast,
                 std::vector<std::pair<std::string, torch::Tensor>> weights);

  void before_update();
  // The update's gradient, read after its backward (and fp16's unscaling), before clipping.
  void read_gradients();
  ProbeReading after_update();

  // The model's weight matrices (parameters with two or more dimensions), as named.
  static std::vector<std::pair<std::string, torch::Tensor>> weight_matrices(
      const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters);

 private:
  torch::Tensor logits(SublayerObserver* observer);  // [B, T, V] float, padding zeroed

  TransformerImpl& model_;
  Batch batch_;
  AutocastSetting autocast_;
  std::vector<std::pair<std::string, torch::Tensor>> weights_;
  torch::Tensor target_valid_;   // [B, T] bool
  torch::Tensor logits_before_;  // F(x, W_t-1)
  std::vector<torch::Tensor> weights_before_;
  ProbeValues gradient_ratio_{"attn.grad_q_over_v", {}, {}};  // read_gradients()'s, until read
};

}  // namespace fathom
