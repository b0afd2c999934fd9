#pragma once
// Fathom's training step as the trainer runs it (forward, label-smoothed loss, backward,
// global-norm clip, Adam), timed in three parts, on one fixed batch. Options: the forward under
// bf16 autocast (train.precision: bf16) and activation checkpointing
// (train.checkpoint_activations).
#include <sys/resource.h>

#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/train_sizes.h"
#include "core/model/autocast_scope.h"
#include "core/model/transformer.h"
#include "core/train/grad_clip.h"
#include "core/train/graphed_updates.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "core/train/precision.h"

namespace fathom::bench {

struct StepTimes {
  int steps = 0;
  int64_t tokens = 0;                                      // target tokens (non-pad) processed
  double forward = 0, backward = 0, update = 0;            // seconds, summed over the steps
  double loss = std::numeric_limits<double>::quiet_NaN();  // of the last step
  long minor_faults = 0;  // page faults of this process during the steps
  double total() const { return forward + backward + update; }
  double tokens_per_s() const { return total() > 0 ? tokens / total() : 0.0; }
  double ms(double seconds) const { return steps ? 1000 * seconds / steps : 0.0; }
};

class FathomStep {
 public:
  // The trainer's plan (core/train/precision.h) for `precision` (fp32, bf16 or tf32) on
  // `device`. fp16 is left out: the step has no loss scaler.
  static PrecisionPlan plan_for(const std::string& precision, torch::Device device) {
    if (precision != "fp32" && precision != "bf16" && precision != "tf32")
      throw std::invalid_argument("precision: fp32, bf16 or tf32, got '" + precision + "'");
    RunConfig config;
    config.train.precision = precision;
    return plan_precision(config, device);
  }
  // The autocast a step runs under at `precision`.
  static AutocastSetting autocast_for(const std::string& precision, torch::Device device) {
    return plan_for(precision, device).autocast;
  }

  FathomStep(const TrainSize& size, const std::string& norm, torch::Device device,
             const std::string& precision = "fp32", bool checkpoint = false,
             const std::string& fused_attention = "auto", const std::string& optimizer = "adam")
      : device_(device),
        model_(build_model(size_config(size, norm, fused_attention), size.vocab, /*seed=*/1)) {
    const PrecisionPlan plan = plan_for(precision, device);
    autocast_ = plan.autocast;
    tf32_.emplace(plan);  // tf32: the products' switch on while the step lives, as a run's
    model_->to(device);
    model_->train();
    model_->hooks().checkpoint_layers = checkpoint;
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto& p : model_->named_parameters()) {
      named.emplace_back(p.key(), p.value());
      params_.push_back(p.value());
    }
    TrainConfig train = size_config(size, norm).train;
    // adam (as the trainer: LibTorch's fused AdamW kernel where it has one,
    // core/train/fused_adamw.h) | adam-foreach (never the kernel) | muon
    if (optimizer != "adam" && optimizer != "adam-foreach" && optimizer != "muon")
      throw std::invalid_argument("optimizer: adam, adam-foreach or muon, got '" + optimizer + "'");
    train.optimizer = optimizer == "muon" ? "muon" : "adam";
    optimizer_ = std::make_unique<Optimizer>(
        std::vector<ParameterGroup>{{"all", 1.0, 1.0, named}}, train,
        optimizer == "muon" ? Optimizer::hidden_matrices(model_->catalog())
                            : std::vector<Optimizer::Matrix>{});
    if (optimizer == "adam-foreach") optimizer_->use_fused_adamw(false);
    batch_ = make_size_batch(size).to(device);  // after build_model: seeds as train_step.py
  }

  // The forward, loss and backward as one CUDA graph, as train.cuda_graphs replays them
  // (issue 62; core/train/graphed_updates.h), captured here; the step's time is then the
  // forward's, the backward's 0.
  void use_graph(bool on) {
    graphs_.reset();
    if (!on) return;
    graphs_ = std::make_unique<GraphedUpdates>(model_, autocast_, /*label_smoothing=*/0.1,
                                               /*z_loss=*/0.0, device_);
    graphs_->capture(batch_);  // its warm-ups' gradients are zeroed with each step's
  }
  bool graphed() const { return graphs_ != nullptr; }

  StepTimes run(int steps) {
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    StepTimes out;
    const long faults = page_faults_so_far();
    for (int i = 0; i < steps; ++i) {
      sync();
      auto t0 = Clock::now();
      optimizer_->zero_grad();
      torch::Tensor loss;
      int64_t tokens = batch_.tgt_tokens;
      Clock::time_point t1, t2;
      if (graphs_) {
        loss = graphs_->replay(batch_, tokens).value().smoothed / static_cast<double>(tokens);
        sync();
        t1 = t2 = Clock::now();
      } else {
        LossSums sums;
        {
          AutocastScope autocast(autocast_);
          sums = label_smoothed_loss(model_->forward(batch_.src, batch_.tgt_in), batch_.tgt_out,
                                     /*epsilon=*/0.1);
        }
        tokens = sums.tokens;
        loss = sums.smoothed / static_cast<double>(sums.tokens);
        sync();
        t1 = Clock::now();
        loss.backward();
        sync();
        t2 = Clock::now();
      }
      clip_grad_norm_on_device(params_, 1e9);  // as the trainer: the norm, nothing clipped
      optimizer_->step(1e-4);
      sync();
      auto t3 = Clock::now();
      out.forward += seconds(t0, t1);
      out.backward += seconds(t1, t2);
      out.update += seconds(t2, t3);
      out.tokens += tokens;
      out.loss = loss.item<double>();
      if (first_loss_ != first_loss_) first_loss_ = out.loss;  // NaN until the first step
      ++out.steps;
    }
    out.minor_faults = page_faults_so_far() - faults;
    return out;
  }

  double first_loss() const { return first_loss_; }
  Transformer& model() { return model_; }
  // Whether the last update went through LibTorch's fused AdamW kernel.
  bool fused_update() const { return optimizer_->last_step_fused(); }

 private:
  static long page_faults_so_far() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
  }
  void sync() const {
    if (device_.is_cuda()) torch::cuda::synchronize();
  }

  torch::Device device_;
  AutocastSetting autocast_;
  std::optional<Tf32Scope> tf32_;
  Transformer model_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<Optimizer> optimizer_;
  Batch batch_;
  std::unique_ptr<GraphedUpdates> graphs_;  // use_graph(true)
  double first_loss_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace fathom::bench
