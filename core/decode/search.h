#pragma once
// Greedy and beam search over a trained model. The encoder runs once per batch; the decoder
// runs on each step's new token alone, attention reading the past positions' keys and values
// from a DecodingCache (core/model/decoding_cache.h), unless `incremental` is off: then it
// re-reads the whole prefix at every step (the same outputs, quadratic in their length).
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace fathom {

class TransformerImpl;

struct SearchOptions {
  int beam = 5;                 // 1: greedy
  double length_penalty = 1.0;  // final score = sum log p / length^penalty (fairseq)
  double max_len_a = 1.2;       // at most a * source length + b tokens (eos included)
  int max_len_b = 10;
  bool incremental = true;  // keys and values cached (false: the whole prefix every step)
};

// source [B, S] (pad-padded, eos-terminated) -> for each row the best output ids without
// bos, ending at (and without) eos. The model is put in eval mode for the call.
std::vector<std::vector<int64_t>> greedy_search(TransformerImpl& model, const torch::Tensor& source,
                                                const SearchOptions& options);
std::vector<std::vector<int64_t>> beam_search(TransformerImpl& model, const torch::Tensor& source,
                                              const SearchOptions& options);

// beam == 1 ? greedy_search : beam_search.
std::vector<std::vector<int64_t>> search(TransformerImpl& model, const torch::Tensor& source,
                                         const SearchOptions& options);

}  // namespace fathom
