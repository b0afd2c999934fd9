#include "core/train/valid_samples.h"

#include <algorithm>
#include <vector>

#include "core/decode/lm_continue.h"
#include "core/model/transformer.h"
#include "core/train/evaluate.h"

namespace fathom {
namespace {

constexpr int kSampleTokens = 64;  // a language model's continuation, at most

nlohmann::json language_model_samples(TransformerImpl& model, const std::vector<Example>& first,
                                      const Vocab& vocab, const RunConfig& config, int64_t update,
                                      torch::Device device) {
  std::vector<std::vector<int64_t>> prompts, rests;
  for (const Example& e : first) {
    const size_t cut = prompt_length(e.tgt);
    prompts.emplace_back(e.tgt.begin(), e.tgt.begin() + cut);
    rests.emplace_back(e.tgt.begin() + cut, e.tgt.end());
  }
  const auto greedy = greedy_continuations(model, prompts, kSampleTokens, device);
  const int k = config.train.valid_sample_top_k;
  const auto sampled = k > 0 ? top_k_continuations(model, prompts, kSampleTokens, k,
                                                   sample_seed(config.train.seed, update), device)
                             : std::vector<std::vector<int64_t>>();
  nlohmann::json samples = nlohmann::json::array();
  for (size_t i = 0; i < first.size(); ++i) {
    nlohmann::json s = {{"source", vocab.decode(prompts[i])},
                        {"reference", vocab.decode(rests[i])},
                        {"hypothesis", vocab.decode(greedy[i])}};
    if (k > 0) s["sampled"] = vocab.decode(sampled[i]), s["top_k"] = k;
    samples.push_back(std::move(s));
  }
  return samples;
}

}  // namespace

std::uint64_t sample_seed(std::uint64_t train_seed, int64_t update) {
  // A splitmix64 step over the pair: nearby seeds and updates give unrelated streams.
  std::uint64_t z = train_seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(update);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

nlohmann::json validation_samples_json(TransformerImpl& model, const Dataset& data,
                                       const RunConfig& config, int64_t update,
                                       torch::Device device) {
  const size_t count =
      std::min<size_t>(static_cast<size_t>(config.train.valid_samples), data.valid.size());
  const std::vector<Example> first(data.valid.begin(), data.valid.begin() + count);
  const Vocab& vocab = *data.vocab;
  if (is_decoder_only(config.model))
    return language_model_samples(model, first, vocab, config, update, device);
  const SearchOptions greedy{1, config.eval.length_penalty, config.eval.max_len_a,
                             config.eval.max_len_b};
  const auto hypotheses = translate(model, first, vocab, greedy, config.data.max_tokens, device);
  nlohmann::json samples = nlohmann::json::array();
  for (size_t i = 0; i < count; ++i)
    samples.push_back({{"source", i < data.valid_source.size() ? data.valid_source[i] : ""},
                       {"reference", i < data.valid_target.size() ? data.valid_target[i] : ""},
                       {"hypothesis", hypotheses[i]}});
  return samples;
}

}  // namespace fathom
