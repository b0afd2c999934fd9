#pragma once
// An encoder or decoder stack: embedded input in, final hidden states out. The stack
// connection method (registry.h) decides how layers are joined along depth.
#include <torch/torch.h>

namespace fathom {

class EncoderStack : public torch::nn::Module {
 public:
  // x [B, S, d] (embedded source); source_padding [B, S] bool, true at padding.
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& source_padding) = 0;
};

class DecoderStack : public torch::nn::Module {
 public:
  // y [B, T, d] (embedded target prefix); memory [B, S, d] (encoder output).
  // Self-attention is causal: position t sees positions <= t only.
  virtual torch::Tensor forward(const torch::Tensor& y, const torch::Tensor& memory,
                                const torch::Tensor& source_padding) = 0;
};

}  // namespace fathom
