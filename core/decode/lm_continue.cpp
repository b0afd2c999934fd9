#include "core/decode/lm_continue.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/data/vocab.h"
#include "core/model/decoding_cache.h"
#include "core/model/transformer.h"

namespace fathom {

namespace {

// Each prompt continued one token at a time, `choose` picking the next id from the last
// position's logits [V] (on the CPU), until eos or `max_new` tokens; eval mode for the call.
template <typename Choose>
std::vector<std::vector<int64_t>> continuations(TransformerImpl& model,
                                                const std::vector<std::vector<int64_t>>& prompts,
                                                int max_new, torch::Device device, Choose choose) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  std::vector<std::vector<int64_t>> out;
  for (const auto& prompt : prompts) {
    std::vector<int64_t> sequence{kBosId};
    sequence.insert(sequence.end(), prompt.begin(), prompt.end());
    std::vector<int64_t> added;
    DecodingCache cache;  // the prompt at the first step, then one token a step
    for (int step = 0; step < max_new; ++step) {
      const std::vector<int64_t> unread(sequence.begin() + cache.length(), sequence.end());
      const torch::Tensor input = torch::tensor(unread, torch::kInt64).view({1, -1}).to(device);
      const torch::Tensor logits = model.decode(input, torch::Tensor(), torch::Tensor(), &cache);
      const int64_t next = choose(logits[0][-1].to(torch::kCPU, torch::kFloat32));
      if (next == kEosId) break;
      added.push_back(next);
      sequence.push_back(next);
    }
    out.push_back(std::move(added));
  }
  model.train(was_training);
  return out;
}

}  // namespace

std::vector<std::vector<int64_t>> greedy_continuations(
    TransformerImpl& model, const std::vector<std::vector<int64_t>>& prompts, int max_new,
    torch::Device device) {
  return continuations(model, prompts, max_new, device,
                       [](const torch::Tensor& logits) { return logits.argmax().item<int64_t>(); });
}

std::vector<std::vector<int64_t>> top_k_continuations(
    TransformerImpl& model, const std::vector<std::vector<int64_t>>& prompts, int max_new, int k,
    std::uint64_t seed, torch::Device device) {
  if (k < 1) throw std::invalid_argument("top-k sampling needs k >= 1, got " + std::to_string(k));
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  return continuations(model, prompts, max_new, device, [&](const torch::Tensor& logits) {
    const auto [values, ids] = logits.topk(std::min<int64_t>(k, logits.size(0)));
    const torch::Tensor drawn = torch::multinomial(torch::softmax(values, 0), 1, false, generator);
    return ids[drawn.item<int64_t>()].item<int64_t>();
  });
}

size_t prompt_length(const std::vector<int64_t>& sequence) {
  const size_t body = sequence.empty() ? 0 : sequence.size() - 1;  // without the final eos
  const auto eos = std::find(sequence.begin(), sequence.begin() + body, kEosId);
  if (eos != sequence.begin() + body) return static_cast<size_t>(eos - sequence.begin()) + 1;
  return std::max<size_t>(1, body / 2);
}

}  // namespace fathom
