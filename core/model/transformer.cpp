#include "core/model/transformer.h"

#include <cmath>
#include <set>

#include "core/model/init_helpers.h"
#include "core/model/registry.h"

namespace fathom {

TransformerImpl::TransformerImpl(const ModelConfig& config, int64_t vocab_size)
    : config_(config), vocab_size_(vocab_size), hooks_(std::make_shared<ModelHooks>()) {
  const int d = config.d_model;
  const MethodRegistry& registry = methods();
  auto stack_of_style = [&](const std::string& style) {
    if (!registry.sublayer_styles.find(style))
      throw std::invalid_argument("unknown sub-layer style " + style);
    return StackContext{config_, style, hooks_, catalog_, nullptr};
  };
  const StackConnection* connection = registry.connections.find(config.connection);
  if (!connection) throw std::invalid_argument("unknown connection " + config.connection);
  const StackContext stack = stack_of_style(resolve_sublayer_style(config_));

  if (is_decoder_only(config)) {
    // One embedding, read by the stack and tied to the output projection.
    target_embedding_weight_ = register_parameter("embedding", torch::empty({vocab_size, d}));
    catalog_.embeddings.push_back({"embedding", target_embedding_weight_});
    output_weight_ = target_embedding_weight_;
    target_embedding_ =
        register_module("embed", TransformerEmbedding(target_embedding_weight_, config.dropout));
    language_model_ = register_module("decoder", connection->encoder(stack));
  } else {
    source_embedding_weight_ =
        register_parameter("source_embedding", torch::empty({vocab_size, d}));
    catalog_.embeddings.push_back({"source_embedding", source_embedding_weight_});
    if (config.share_embeddings) {
      target_embedding_weight_ = source_embedding_weight_;
    } else {
      target_embedding_weight_ =
          register_parameter("target_embedding", torch::empty({vocab_size, d}));
      catalog_.embeddings.push_back({"target_embedding", target_embedding_weight_});
    }
    if (config.tie_decoder_embeddings) {
      output_weight_ = target_embedding_weight_;
    } else {
      output_weight_ = register_parameter("output_projection", torch::empty({vocab_size, d}));
      catalog_.embeddings.push_back({"output_projection", output_weight_});
    }
    source_embedding_ = register_module(
        "source_embed", TransformerEmbedding(source_embedding_weight_, config.dropout));
    target_embedding_ = register_module(
        "target_embed", TransformerEmbedding(target_embedding_weight_, config.dropout));
    encoder_ = register_module("encoder", connection->encoder(stack));
    // model.decoder_norm: the decoder's own placement (Admin table 1's hybrid), else the same.
    decoder_ = register_module(
        "decoder", connection->decoder(stack_of_style(resolve_decoder_sublayer_style(config_))));
  }
  if (config.sigma_reparam)  // after every linear exists
    sigma_reparam_ = register_module("sigma_reparam", SigmaReparam(catalog_));
}

torch::Tensor TransformerImpl::encode(const torch::Tensor& source) {
  if (!encoder_) throw std::logic_error("a decoder-only model has no encoder");
  SigmaReparamScope reparam(sigma_reparam(), is_training());
  return encoder_->forward(source_embedding_(source), source.eq(kPad));
}

torch::Tensor TransformerImpl::decode(const torch::Tensor& target_in, const torch::Tensor& memory,
                                      const torch::Tensor& source_padding, DecodingCache* cache) {
  if (cache && is_training())
    throw std::logic_error("incremental decoding runs in eval mode (no dropout)");
  SigmaReparamScope reparam(sigma_reparam(), is_training());
  // The attention modules find the cache through the hooks for this call only.
  struct Scope {
    ModelHooks& hooks;
    ~Scope() { hooks.decoding = nullptr; }
  } scope{*hooks_};
  hooks_->decoding = cache;
  const torch::Tensor embedded = target_embedding_(target_in, cache ? cache->length() : 0);
  const torch::Tensor h = language_model_ ? language_model_->forward(embedded, torch::Tensor())
                                          : decoder_->forward(embedded, memory, source_padding);
  if (cache) cache->advance(target_in.size(1));
  return torch::matmul(h, output_weight_.t());
}

torch::Tensor TransformerImpl::language_model_states(const torch::Tensor& tokens) {
  if (!language_model_) throw std::logic_error("an encoder-decoder model has no single stack");
  SigmaReparamScope reparam(sigma_reparam(), is_training());
  return language_model_->forward(target_embedding_(tokens), torch::Tensor());
}

torch::Tensor TransformerImpl::forward(const torch::Tensor& source,
                                       const torch::Tensor& target_in) {
  SigmaReparamScope reparam(sigma_reparam(), is_training());  // one iteration for both stacks
  if (language_model_) return decode(target_in, torch::Tensor(), torch::Tensor());
  return decode(target_in, encode(source), source.eq(kPad));
}

std::map<std::string, int64_t> TransformerImpl::parameter_counts() const {
  std::map<std::string, int64_t> counts{{"embeddings", 0}, {"attention", 0}, {"ffn_lstm", 0},
                                        {"norms", 0},      {"omega", 0},     {"other", 0}};
  std::set<const void*> seen;  // a shared tensor (tied embeddings, shared gates) counts once
  auto add = [&](const torch::Tensor& t, const std::string& kind) {
    if (!t.defined() || !seen.insert(t.unsafeGetTensorImpl()).second) return;
    counts[kind] += t.numel();
  };
  for (const auto& e : catalog_.embeddings) add(e.weight, "embeddings");
  for (const auto& l : catalog_.linears) {
    std::string kind = "other";
    switch (l.role) {
      case LinearRole::AttentionQuery:
      case LinearRole::AttentionKeyValue:
      case LinearRole::AttentionQkv:
      case LinearRole::AttentionOutput:
      case LinearRole::AttentionGate:
        kind = "attention";
        break;
      case LinearRole::FfnIn:
      case LinearRole::FfnOut:
      case LinearRole::LstmGate:
      case LinearRole::LstmHidden:
        kind = "ffn_lstm";
        break;
      case LinearRole::Merge:
      case LinearRole::Other:
        kind = "other";
        break;
    }
    add(l.linear->weight, kind);
    add(l.linear->bias, kind);
  }
  for (const auto& n : catalog_.norms) {
    add(n.norm->weight, "norms");
    add(n.norm->bias, "norms");
  }
  for (const auto& e : catalog_.extras) add(e.tensor, e.kind);
  for (const auto& p : parameters()) add(p, "other");  // anything not in the catalog
  int64_t total = 0;
  for (const auto& [kind, n] : counts) total += n;
  counts["total"] = total;
  return counts;
}

Transformer build_model(const RunConfig& config, int64_t vocab_size, std::uint64_t seed) {
  check_model_methods(config);
  torch::manual_seed(seed);
  Transformer model(config.model, vocab_size);
  torch::NoGradGuard no_grad;
  methods().inits.find(config.model.init)->apply(*model);
  // Drawn after the method, so every other parameter is the method's own draw for this seed.
  if (config.model.embedding_init == "normal")
    normal_embeddings(model->catalog(), std::pow(config.model.d_model, -0.5));
  if (model->sigma_reparam()) model->sigma_reparam()->initialize();  // from the drawn weights
  return model;
}

PreparedState prepare_model(TransformerImpl& model, const InitContext& context) {
  const InitMethod* init = methods().inits.find(model.config().init);
  if (init && init->prepare) return init->prepare(model, context);
  return {};
}

}  // namespace fathom
