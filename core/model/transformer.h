#pragma once
// The Transformer: encoder-decoder (methods.md s1) or decoder-only (model.arch: one causal
// stack, a language model). The method under study -- sub-layer style,
// initialization, stack connection -- comes from the registry (registry.h) by config name.
#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>

#include "base/config/config.h"
#include "core/model/decoding_cache.h"
#include "core/model/embedding.h"
#include "core/model/observer.h"
#include "core/model/parameter_catalog.h"
#include "core/model/sigma_reparam.h"
#include "core/model/stack.h"

namespace fathom {

class TransformerImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kPad = 0;

  // Builds the modules; parameters are NOT initialized yet (see build_model()).
  TransformerImpl(const ModelConfig& config, int64_t vocab_size);

  // source [B, S], target_in [B, T] (int64) -> logits [B, T, V]. A decoder-only model
  // (model.arch) reads target_in alone: `source` is ignored.
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target_in);

  // source [B, S] -> encoder output [B, S, d]. Throws std::logic_error in a decoder-only model.
  torch::Tensor encode(const torch::Tensor& source);
  // -> logits [B, T, V] of the decoder reading target_in against `memory` (decoder-only:
  // `memory` and `source_padding` are ignored). With `cache` (incremental decoding, eval
  // mode): target_in holds only the tokens after the cache's positions -- the whole prefix at
  // the first call, one token at each later one -- and the logits are theirs; the cache then
  // holds them too (core/model/decoding_cache.h).
  torch::Tensor decode(const torch::Tensor& target_in, const torch::Tensor& memory,
                       const torch::Tensor& source_padding, DecodingCache* cache = nullptr);
  // Decoder-only: tokens [B, T] -> the stack's output [B, T, d], the states the tied output
  // projection reads (decode() = these times the embedding^T). Throws std::logic_error in an
  // encoder-decoder model.
  torch::Tensor language_model_states(const torch::Tensor& tokens);

  const ModelConfig& config() const { return config_; }
  int64_t vocab_size() const { return vocab_size_; }
  ParameterCatalog& catalog() { return catalog_; }
  ModelHooks& hooks() { return *hooks_; }
  // model.sigma_reparam: every linear layer's spectral reparametrization; null when off.
  SigmaReparamImpl* sigma_reparam() { return sigma_reparam_ ? sigma_reparam_.get() : nullptr; }

  // Parameter counts by kind (embeddings, attention, ffn, norms, other) and "total";
  // shared tensors are counted once.
  std::map<std::string, int64_t> parameter_counts() const;

 private:
  ModelConfig config_;
  int64_t vocab_size_;
  std::shared_ptr<ModelHooks> hooks_;
  ParameterCatalog catalog_;
  torch::Tensor source_embedding_weight_, target_embedding_weight_, output_weight_;
  TransformerEmbedding source_embedding_{nullptr}, target_embedding_{nullptr};
  std::shared_ptr<EncoderStack> encoder_;
  std::shared_ptr<DecoderStack> decoder_;
  std::shared_ptr<EncoderStack> language_model_;  // model.arch: decoder_only (stack.h)
  SigmaReparam sigma_reparam_{nullptr};
};
TORCH_MODULE(Transformer);

// Builds and initializes a model: torch's RNG is seeded with `seed` first, so the same
// config and seed give the same parameters on CPU. Throws InputError for unknown methods.
Transformer build_model(const RunConfig& config, int64_t vocab_size, std::uint64_t seed);

struct InitContext;
struct PreparedState;
// The init's data-dependent phase (e.g. Admin profiling) on the first training batch; a no-op
// for inits without one. Call once after build_model() and before training or analysis.
PreparedState prepare_model(TransformerImpl& model, const InitContext& context);

}  // namespace fathom
