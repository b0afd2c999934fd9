#pragma once
// Continuations of a prompt by a decoder-only model (model.arch: decoder_only), greedy or top-k
// sampled: the language model's counterpart of search.h, for the samples a run keeps at each
// validation.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace fathom {

class TransformerImpl;

// For each prompt (ids without bos or eos): the ids the model adds, most likely first, until
// eos (not included) or `max_new` tokens. One sequence at a time; eval mode for the call, the
// training mode restored; no random numbers drawn.
std::vector<std::vector<int64_t>> greedy_continuations(
    TransformerImpl& model, const std::vector<std::vector<int64_t>>& prompts, int max_new,
    torch::Device device);

// The same continuations with each token drawn from the softmax over the `k` most likely ones
// (top-k sampling; Fan et al. 2018), from a generator of its own seeded with `seed` (so the
// caller's random stream is left alone and the same seed gives the same text); k = 1 is greedy.
std::vector<std::vector<int64_t>> top_k_continuations(
    TransformerImpl& model, const std::vector<std::vector<int64_t>>& prompts, int max_new, int k,
    std::uint64_t seed, torch::Device device);

// Where a language-model sample's prompt ends in `sequence` (eos-terminated ids): after the
// first eos inside it (a synthetic pair's source, as_language_model in core/data/lm_text.h),
// else at its middle (at least one token).
size_t prompt_length(const std::vector<int64_t>& sequence);

}  // namespace fathom
