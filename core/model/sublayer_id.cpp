#include "core/model/sublayer_id.h"

namespace fathom {

const char* stack_name(Stack stack) { return stack == Stack::Encoder ? "enc" : "dec"; }

const char* kind_name(SublayerKind kind) {
  switch (kind) {
    case SublayerKind::SelfAttention:
      return "self_attn";
    case SublayerKind::EncoderAttention:
      return "enc_attn";
    case SublayerKind::FeedForward:
      return "ffn";
    case SublayerKind::Lstm:
      return "lstm";
  }
  return "?";
}

std::string SublayerId::name() const {
  return std::string(stack_name(stack)) + "." + std::to_string(layer) + "." + kind_name(kind);
}

}  // namespace fathom
