#pragma once
// Greedy continuation of a prompt by a decoder-only model (model.arch: decoder_only): the
// language model's counterpart of search.h, for the samples a run keeps at each validation.
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

// Where a language-model sample's prompt ends in `sequence` (eos-terminated ids): after the
// first eos inside it (a synthetic pair's source, as_language_model in core/data/lm_text.h),
// else at its middle (at least one token).
size_t prompt_length(const std::vector<int64_t>& sequence);

}  // namespace fathom
