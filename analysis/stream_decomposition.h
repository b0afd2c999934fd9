#pragma once
// The residual stream of a residual-connected stack as a sum of components, one per branch
// (methods.md s5.1; Liu et al. 2020 s4.1). x_0 = the embedding is component 0; sub-layer k
// scales every component by its shortcut scale (1, Admin's omega, DeepNorm's alpha) and adds
// its branch drop(f_k) as component k. A LayerNorm acting on the stream is affine once its
// per-token mean and sigma are known, so it is applied to each component on its own:
// c <- (c - mean_token(c)) * gamma / sigma. The LayerNorms' biases are carried as a separate
// `bias` term that belongs to no branch. Hence, at every output,
//   sum_j components[j] + bias == the model's output (up to float rounding).
//
// The shortcut scale is read off what the sub-layer reports (the LayerNorm input, or the
// output, minus the branch, against x_{k-1}), one value per hidden unit, so every residual
// style works without knowing its class; a style whose shortcut is not such a scale is
// rejected. Components are kept in float64.
//
// Hyper-connection stacks (core/model/hyper_connection.h) carry n streams: each component is
// kept per stream, [B, T, n, d]; sub-layer k mixes every component by its per-token M_k and
// adds b_k (x) drop(f_k) as component k (both reported by on_stream_mixing), and the embedding
// enters as n copies. The stream at each output is the streams' sum -- what the stack finally
// normalizes and outputs -- so the steps carry each component summed over the streams. The
// packed components must add up to the streams the sub-layer passes on, or the sub-layer is
// rejected.
#include <torch/torch.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "core/model/observer.h"

namespace fathom::analysis {

// The stream right after one sub-layer, or after a stack's final LayerNorm.
struct StreamStep {
  SublayerId id;  // for final_norm: the stack's last sub-layer
  bool final_norm = false;
  const std::vector<torch::Tensor>& components;  // [B, T, d] each; 0 = embedding
  const torch::Tensor& bias;                     // [B, T, d], the carried LayerNorm biases
  const torch::Tensor& output;                   // the model's own output at this point
};

class StreamDecomposer : public SublayerObserver {
 public:
  using Callback = std::function<void(const StreamStep&)>;
  // Optional branch rewrite (tests force branches to chosen values with it).
  using Transform = std::function<torch::Tensor(const SublayerId&, torch::Tensor)>;

  explicit StreamDecomposer(Callback callback, Transform transform = nullptr);

  torch::Tensor transform_branch(const SublayerId& id, torch::Tensor branch) override;
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override;
  void on_norm(const SublayerId* owner, const NormTrace& trace) override;
  void on_stream_mixing(const SublayerId& id, const torch::Tensor& mixing,
                        const torch::Tensor& write) override;

  // Largest |shortcut - scale * x_{k-1}| seen, relative to the stream's scale (diagnostic).
  double worst_scale_residual() const { return worst_scale_residual_; }

 private:
  struct StackStream {
    std::vector<torch::Tensor> components;
    std::vector<torch::Tensor> packed;  // hyper-connections: per stream [B, T, n, d]
    torch::Tensor mixing, write;        // the current sub-layer's, until its on_sublayer
    torch::Tensor bias;
    torch::Tensor last_output;  // identity check for the final LayerNorm
    SublayerId last_id;
  };
  StackStream& stream(Stack stack) { return streams_[static_cast<int>(stack)]; }
  static void apply_norm(StackStream& s, const NormTrace& norm);
  void add_hyper_sublayer(StackStream& s, const SublayerId& id, const SublayerTrace& trace);

  Callback callback_;
  Transform transform_;
  std::array<StackStream, 2> streams_;
  std::map<std::pair<int, int>, NormTrace> owned_norms_;  // (stack, index) -> its latest LN
  double worst_scale_residual_ = 0;
};

// Non-pad positions of a batch side: [B, T] bool.
torch::Tensor non_pad(const torch::Tensor& tokens);

}  // namespace fathom::analysis
