#pragma once
// Incremental decoding: the keys and values of the positions decoded so far, kept per attention
// module, so that each search step runs the decoder on the new token alone instead of the
// whole prefix (what fairseq calls the incremental state). Everything in a decoder layer but
// attention works token by token, so attention is the only place that needs the past; the
// sinusoidal positions need only the count of cached positions.
#include <torch/torch.h>

#include <functional>
#include <map>
#include <utility>

namespace fathom {

class DecodingCache {
 public:
  using KeysValues = std::pair<torch::Tensor, torch::Tensor>;  // [B, H, L, d_head] each

  // Positions decoded so far (the next token's position).
  int64_t length() const { return length_; }
  // After a decoder call on `positions` new tokens (TransformerImpl::decode).
  void advance(int64_t positions) { length_ += positions; }

  // Causal self-attention of `module`: the new positions' keys and values appended to the
  // cached ones; returns all of them.
  KeysValues append(const void* module, const torch::Tensor& keys, const torch::Tensor& values);
  // Attention over the encoder output of `module`: its keys and values are those of the same
  // memory at every step, computed by `compute` at the first.
  KeysValues memory(const void* module, const std::function<KeysValues()>& compute);

  // Beam search's reordering: row i continues row rows[i] ([rows] int64 on the cache's device).
  // Only the self-attention past moves: a row's parent is a beam of the same sentence, whose
  // memory keys and values are the same (as the search's repeated encoder output is not
  // reordered either).
  void reorder(const torch::Tensor& rows);

 private:
  std::map<const void*, KeysValues> self_, memory_;
  int64_t length_ = 0;
};

}  // namespace fathom
