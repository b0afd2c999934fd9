#pragma once
// Token embedding * sqrt(d) + sinusoidal positions, then dropout (methods.md s1).
#include <torch/torch.h>

namespace fathom {

// Sinusoidal position table [max_len, d]: sin on the first d/2 channels, cos on the rest
// (the fairseq layout), frequencies 10000^(-i/(d/2-1)).
torch::Tensor sinusoidal_positions(int64_t max_len, int64_t d_model);

class TransformerEmbeddingImpl : public torch::nn::Module {
 public:
  // `weight` is a [V, d] parameter owned by the model (it may be shared between the source,
  // the target and the output projection).
  TransformerEmbeddingImpl(torch::Tensor weight, double dropout);
  // [B, T] int64 -> [B, T, d]; the tokens stand at positions first_position.. (incremental
  // decoding feeds one token at a time).
  torch::Tensor forward(const torch::Tensor& tokens, int64_t first_position = 0);

 private:
  torch::Tensor weight_;
  torch::Tensor positions_;  // buffer, grown on demand
  double dropout_;
  double scale_;
};
TORCH_MODULE(TransformerEmbedding);

}  // namespace fathom
