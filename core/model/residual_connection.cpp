// The standard residual Transformer stacks (methods.md s1-2): encoder layers of
// self-attention + FFN, decoder layers of causal self-attention + encoder attention + FFN,
// each sub-layer wrapped by the configured sub-layer style (post, pre, admin, ...). A
// decoder-only model's stack is the encoder's kind of stack made causal (stack.h).
#include "core/model/attention.h"
#include "core/model/checkpointed_layer.h"
#include "core/model/feed_forward.h"
#include "core/model/registry.h"
#include "core/model/stack.h"

namespace fathom {
namespace {

std::shared_ptr<SublayerConnection> make_connection(const StackContext& s, const SublayerId& id,
                                                    int stack_layers, int stack_sublayers,
                                                    const std::string& name) {
  ConnectionContext c{s.config, id, stack_sublayers, stack_layers, name, s.hooks, s.catalog};
  if (s.make_sublayer) return s.make_sublayer(c);
  return methods().sublayer_styles.find(s.sublayer_style)->make(c);
}

// Layers of self-attention + FFN: the encoder, or a decoder-only model's causal stack.
class ResidualEncoder : public EncoderStack {
 public:
  explicit ResidualEncoder(const StackContext& s)
      : hooks_(s.hooks),
        stack_(self_attention_stack(s.config)),
        causal_(is_decoder_only(s.config)) {
    const auto& m = s.config;
    const int layers = stack_layers(s.config), sublayers = 2 * layers;
    for (int l = 0; l < layers; ++l) {
      const std::string mp = "layer" + std::to_string(l);  // module name (no dots allowed)
      SublayerId attn_id{stack_, l, SublayerKind::SelfAttention, 2 * l};
      SublayerId ffn_id{stack_, l, SublayerKind::FeedForward, 2 * l + 1};
      attention_.push_back(
          register_module(mp + "_self_attn", make_attention(m, attn_id, s.hooks, s.catalog)));
      attention_connection_.push_back(
          register_module(mp + "_self_attn_connection",
                          make_connection(s, attn_id, layers, sublayers, attn_id.name())));
      ffn_.push_back(register_module(
          mp + "_ffn",
          FeedForward(m.d_model, m.d_ff, m.activation_dropout, ffn_id, ffn_id.name(), s.catalog)));
      ffn_connection_.push_back(register_module(
          mp + "_ffn_connection", make_connection(s, ffn_id, layers, sublayers, ffn_id.name())));
    }
    // The last sub-layer decides: a Mix-LN stack ends in Pre-LN layers.
    const std::string stack = stack_name(stack_);
    if (auto norm =
            ffn_connection_.back()->make_final_norm({m, stack + ".final_norm", s.hooks, s.catalog}))
      final_norm_ = register_module(final_norm_module(stack_), norm);
  }

  torch::Tensor forward(const torch::Tensor& x_in, const torch::Tensor& padding) override {
    torch::Tensor x = x_in;
    for (size_t l = 0; l < attention_.size(); ++l) {
      const int index = static_cast<int>(l);
      if (torch::Tensor y = replaced_layer(hooks_.get(), stack_, index, x); y.defined()) {
        x = observed_layer_output(hooks_.get(), stack_, index, y);
        continue;
      }
      x = recomputes_layers(hooks_.get(), is_training())
              ? checkpointed_layer(
                    [this, l, padding](const torch::Tensor& in, const torch::Tensor&) {
                      return layer(l, in, padding);
                    },
                    x, torch::Tensor())
              : layer(l, x, padding);
      x = observed_layer_output(hooks_.get(), stack_, index, x);
    }
    return final_norm_ ? final_norm_->forward(x) : x;
  }

 private:
  torch::Tensor layer(size_t l, const torch::Tensor& x_in, const torch::Tensor& padding) {
    auto& attention = attention_[l];
    torch::Tensor x = attention_connection_[l]->forward(
        x_in, [&](const torch::Tensor& h) { return attention(h, h, padding, causal_); });
    auto& ffn = ffn_[l];
    return ffn_connection_[l]->forward(x, [&](const torch::Tensor& h) { return ffn(h); });
  }

  std::vector<MultiheadAttention> attention_;
  std::vector<FeedForward> ffn_;
  std::vector<std::shared_ptr<SublayerConnection>> attention_connection_, ffn_connection_;
  std::shared_ptr<NormLayer> final_norm_;
  std::shared_ptr<ModelHooks> hooks_;
  Stack stack_;
  bool causal_;
};

class ResidualDecoder : public DecoderStack {
 public:
  explicit ResidualDecoder(const StackContext& s) : hooks_(s.hooks) {
    const auto& m = s.config;
    const int sublayers = 3 * m.decoder_layers;
    for (int l = 0; l < m.decoder_layers; ++l) {
      const std::string mp = "layer" + std::to_string(l);
      SublayerId self_id{Stack::Decoder, l, SublayerKind::SelfAttention, 3 * l};
      SublayerId cross_id{Stack::Decoder, l, SublayerKind::EncoderAttention, 3 * l + 1};
      SublayerId ffn_id{Stack::Decoder, l, SublayerKind::FeedForward, 3 * l + 2};
      self_attention_.push_back(
          register_module(mp + "_self_attn", make_attention(m, self_id, s.hooks, s.catalog)));
      self_connection_.push_back(register_module(
          mp + "_self_attn_connection",
          make_connection(s, self_id, m.decoder_layers, sublayers, self_id.name())));
      cross_attention_.push_back(
          register_module(mp + "_enc_attn", make_attention(m, cross_id, s.hooks, s.catalog)));
      cross_connection_.push_back(register_module(
          mp + "_enc_attn_connection",
          make_connection(s, cross_id, m.decoder_layers, sublayers, cross_id.name())));
      ffn_.push_back(register_module(
          mp + "_ffn",
          FeedForward(m.d_model, m.d_ff, m.activation_dropout, ffn_id, ffn_id.name(), s.catalog)));
      ffn_connection_.push_back(
          register_module(mp + "_ffn_connection",
                          make_connection(s, ffn_id, m.decoder_layers, sublayers, ffn_id.name())));
    }
    if (auto norm =
            ffn_connection_.back()->make_final_norm({m, "dec.final_norm", s.hooks, s.catalog}))
      final_norm_ = register_module("decoder_final_norm", norm);
  }

  torch::Tensor forward(const torch::Tensor& y_in, const torch::Tensor& memory,
                        const torch::Tensor& padding) override {
    torch::Tensor y = y_in;
    for (size_t l = 0; l < self_attention_.size(); ++l) {
      const int index = static_cast<int>(l);
      if (torch::Tensor replaced = replaced_layer(hooks_.get(), Stack::Decoder, index, y);
          replaced.defined()) {
        y = observed_layer_output(hooks_.get(), Stack::Decoder, index, replaced);
        continue;
      }
      y = recomputes_layers(hooks_.get(), is_training())
              ? checkpointed_layer(
                    [this, l, padding](const torch::Tensor& in, const torch::Tensor& mem) {
                      return layer(l, in, mem, padding);
                    },
                    y, memory)
              : layer(l, y, memory, padding);
      y = observed_layer_output(hooks_.get(), Stack::Decoder, index, y);
    }
    return final_norm_ ? final_norm_->forward(y) : y;
  }

 private:
  torch::Tensor layer(size_t l, const torch::Tensor& y_in, const torch::Tensor& memory,
                      const torch::Tensor& padding) {
    auto& self_attention = self_attention_[l];
    torch::Tensor y = self_connection_[l]->forward(y_in, [&](const torch::Tensor& h) {
      return self_attention(h, h, torch::Tensor(), /*causal=*/true);
    });
    auto& cross_attention = cross_attention_[l];
    y = cross_connection_[l]->forward(
        y, [&](const torch::Tensor& h) { return cross_attention(h, memory, padding, false); });
    auto& ffn = ffn_[l];
    return ffn_connection_[l]->forward(y, [&](const torch::Tensor& h) { return ffn(h); });
  }

  std::vector<MultiheadAttention> self_attention_, cross_attention_;
  std::vector<FeedForward> ffn_;
  std::vector<std::shared_ptr<SublayerConnection>> self_connection_, cross_connection_,
      ffn_connection_;
  std::shared_ptr<NormLayer> final_norm_;
  std::shared_ptr<ModelHooks> hooks_;
};

}  // namespace

std::shared_ptr<EncoderStack> make_residual_encoder(const StackContext& context) {
  return std::make_shared<ResidualEncoder>(context);
}
std::shared_ptr<DecoderStack> make_residual_decoder(const StackContext& context) {
  return std::make_shared<ResidualDecoder>(context);
}

void register_residual_connection(MethodRegistry& registry) {
  registry.connections.add("residual",
                           {"identity shortcuts around every sub-layer (the standard Transformer)",
                            make_residual_encoder, make_residual_decoder, nullptr});
}

}  // namespace fathom
