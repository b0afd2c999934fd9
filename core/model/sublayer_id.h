#pragma once
// Names for the places in a model that analyses look at: stacks, sub-layers, layer norms.
#include <string>

namespace fathom {

enum class Stack { Encoder, Decoder };
enum class SublayerKind { SelfAttention, EncoderAttention, FeedForward, Lstm };

// One sub-layer k of a stack. `index` is k-1: the 0-based position in forward order within
// its stack (encoder: 2 per layer; decoder: 3 per layer), as in methods.md's notation.
struct SublayerId {
  Stack stack = Stack::Encoder;
  int layer = 0;  // 0-based layer
  SublayerKind kind = SublayerKind::SelfAttention;
  int index = 0;  // 0-based sub-layer position in the stack

  std::string name() const;  // e.g. "enc.2.self_attn"
};

const char* stack_name(Stack stack);       // "enc" | "dec"
const char* kind_name(SublayerKind kind);  // "self_attn" | "enc_attn" | "ffn" | "lstm"

}  // namespace fathom
