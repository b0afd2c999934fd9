#pragma once
// An encoder or decoder stack: embedded input in, final hidden states out. The stack
// connection method (registry.h) decides how layers are joined along depth.
//
// A decoder-only model (model.arch: decoder_only) has one stack, the decoder, made of the
// encoder's kind of layer -- self-attention and FFN, 2 sub-layers a layer -- with a causal
// mask: a connection builds it with its `encoder` builder, which reads model.arch.
#include <torch/torch.h>

#include <string>

#include "base/config/config.h"
#include "core/model/sublayer_id.h"

namespace fathom {

class EncoderStack : public torch::nn::Module {
 public:
  // x [B, S, d] (embedded source); source_padding [B, S] bool, true at padding (undefined: no
  // padding mask, as a decoder-only stack is called: its causal mask hides right padding).
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& source_padding) = 0;
};

class DecoderStack : public torch::nn::Module {
 public:
  // y [B, T, d] (embedded target prefix); memory [B, S, d] (encoder output).
  // Self-attention is causal: position t sees positions <= t only.
  virtual torch::Tensor forward(const torch::Tensor& y, const torch::Tensor& memory,
                                const torch::Tensor& source_padding) = 0;
};

// What an `encoder` builder builds: the encoder, or a decoder-only model's decoder.
inline Stack self_attention_stack(const ModelConfig& m) {
  return is_decoder_only(m) ? Stack::Decoder : Stack::Encoder;
}
// Its layer count, and the module name of its final norm.
inline int stack_layers(const ModelConfig& m) {
  return is_decoder_only(m) ? m.decoder_layers : m.encoder_layers;
}
inline std::string final_norm_module(Stack stack) {
  return stack == Stack::Encoder ? "encoder_final_norm" : "decoder_final_norm";
}

}  // namespace fathom
