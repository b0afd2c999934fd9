#pragma once
// What one probe forward pass sees inside the model (docs/probes.md): per attention sub-layer
// and head, the largest |q.k|/sqrt(d_h), the attention entropy and the mass on the first key;
// per sub-layer, the RMS of the residual stream after it, of its branch, the stream's largest
// |activation|, its kurtosis, its largest over median |activation|, the angle between the
// sub-layer's input and output, and the cosine between its tokens; with hyper-connections, the
// gains of the composite stream mixing up to each sub-layer. Padding is left out everywhere: padded
// queries and keys, and the future under a causal mask. Statistics stay on the device until
// values() reads them all at once.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "core/model/observer.h"

namespace fathom {

// The per-sub-layer statistics of issue 61's probes (docs/probes.md), each a 0-d float tensor on
// x's device. `tokens` [B, T, 1] is 1 at real tokens, 0 at padding; x, in, out [B, T, d] float.
// E[(x - mu)^4] / sigma^4 over every real token's features (He et al. 2024, outlier features).
torch::Tensor stream_kurtosis(const torch::Tensor& x, const torch::Tensor& tokens);
// max |x| / median |x| over real tokens and features (Sun et al. 2024, massive activations).
torch::Tensor max_over_median(const torch::Tensor& x, const torch::Tensor& tokens);
// The mean over real tokens of the angle between in_t and out_t, in degrees.
torch::Tensor mean_angle(const torch::Tensor& in, const torch::Tensor& out,
                         const torch::Tensor& tokens);
// Rank collapse (Dong et al. 2021, Noci et al. 2022): the cosine between two distinct real
// tokens of one sequence, x_i . x_j / (|x_i| |x_j|), averaged over the sequence's pairs, then
// over the sequences with two real tokens or more (NaN where none has). 1 when every token of
// a sequence points the same way; a zero vector's cosines count as 0.
torch::Tensor token_cosine(const torch::Tensor& x, const torch::Tensor& tokens);

// One probe's values in the order the forward pass met its positions.
struct ProbeValues {
  std::string probe;                   // attn.max_logit, attn.entropy, stream.rms, ...
  std::vector<std::string> positions;  // enc.0.self_attn.h0, ... or enc.0.self_attn, ...
  std::vector<float> values;
};

class ProbeObserver : public SublayerObserver {
 public:
  // `source_valid` [B, S] and `target_valid` [B, T]: true at real (non-pad) tokens.
  ProbeObserver(torch::Tensor source_valid, torch::Tensor target_valid);

  void on_attention(const SublayerId& id, const AttentionTrace& trace) override;
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override;
  void on_stream_mixing(const SublayerId& id, const torch::Tensor& mixing,
                        const torch::Tensor& write) override;

  // Every probe's values (one device-to-host copy per probe).
  std::vector<ProbeValues> values() const;

 private:
  struct Pending {
    std::string probe;
    std::vector<std::string> positions;
    std::vector<torch::Tensor> stats;  // each [n] or [] float, n positions
  };
  const torch::Tensor& valid_tokens(Stack stack) const {
    return stack == Stack::Encoder ? source_valid_ : target_valid_;
  }
  Pending& pending(const std::string& probe);
  void add(const std::string& probe, std::vector<std::string> positions, torch::Tensor stat);

  torch::Tensor source_valid_, target_valid_;
  std::vector<Pending> pending_;
  struct Composite {
    torch::Tensor product;  // [B, T, n, n]: the stack's mixings so far, last one leftmost
    int last_index = -1;
  };
  Composite composite_[2];  // encoder, decoder
};

}  // namespace fathom
