#include "core/decode/lm_continue.h"

#include <algorithm>

#include "core/data/vocab.h"
#include "core/model/transformer.h"

namespace fathom {

std::vector<std::vector<int64_t>> greedy_continuations(
    TransformerImpl& model, const std::vector<std::vector<int64_t>>& prompts, int max_new,
    torch::Device device) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  std::vector<std::vector<int64_t>> out;
  for (const auto& prompt : prompts) {
    std::vector<int64_t> sequence{kBosId};
    sequence.insert(sequence.end(), prompt.begin(), prompt.end());
    std::vector<int64_t> added;
    for (int step = 0; step < max_new; ++step) {
      const torch::Tensor input = torch::tensor(sequence, torch::kInt64).view({1, -1}).to(device);
      const torch::Tensor logits = model.decode(input, torch::Tensor(), torch::Tensor());
      const int64_t next = logits[0][-1].argmax().item<int64_t>();
      if (next == kEosId) break;
      added.push_back(next);
      sequence.push_back(next);
    }
    out.push_back(std::move(added));
  }
  model.train(was_training);
  return out;
}

size_t prompt_length(const std::vector<int64_t>& sequence) {
  const size_t body = sequence.empty() ? 0 : sequence.size() - 1;  // without the final eos
  const auto eos = std::find(sequence.begin(), sequence.begin() + body, kEosId);
  if (eos != sequence.begin() + body) return static_cast<size_t>(eos - sequence.begin()) + 1;
  return std::max<size_t>(1, body / 2);
}

}  // namespace fathom
