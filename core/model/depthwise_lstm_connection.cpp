// `model.connection: depthwise_lstm` (Xu et al., "Transformer with Depth-Wise LSTM", s3.2-3.3;
// methods.md s4): the residual connections are replaced by an LSTM that steps over depth.
// Its hidden computation takes the FFN's place, so layers have no FFN sub-layer.
//   encoder layer l: a_l = drop(SelfAttn(LN(o_{l-1})))
//                    (o_l, c_l) = LSTM(a_l, o_{l-1}, c_{l-1})
//   decoder layer l: s_l = drop(SelfAttn(LN(o_{l-1})))                (causal)
//                    e_l = drop(EncAttn(LN(s_l + o_{l-1}), memory))     (s3.3: the sum)
//                    m_l = s_l + e_l ("add") | Linear_{2d->d}([s_l ; e_l]) ("concat")
//                    (o_l, c_l) = LSTM(m_l, o_{l-1}, c_{l-1})
//   o_0 = the embedding output, c_0 = 0; a final LayerNorm on each stack's output.
// Choices the paper leaves open (documented defaults, methods.md s4):
// - Attention always reads a LayerNorm of its input (pre-norm, one LN per attention, not
//   shared). model.norm and the init's sub-layer style are ignored by this connection: there
//   is no residual sum for a post/pre order to apply to.
// - Dropout (model.dropout) on every attention output before it is used (a_l, s_l, e_l: as a
//   residual branch is dropped before it meets the shortcut) and on the LSTM hidden h before
//   the cell update (as the FFN's output would be). The embeddings keep their own dropout;
//   the gates and the merge are not dropped. model.activation_dropout acts inside the "ffn"
//   hidden after the GeLU; model.attention_dropout on attention probabilities, as usual.
// - LayerNorms inside the LSTM (eqs. 3-8): one LN(d) per gate on its own pre-activation, and
//   the hidden's LN over its first layer's output (d for "lstm", d_ff for "ffn").
// - model.lstm.share: "gates" shares the packed gate Linear AND the three gate LNs across the
//   layers of a stack (encoder and decoder each have their own); "all" also shares the hidden
//   computation; "none" shares nothing. A shared module is registered once, by the stack
//   ("lstm_gates" / "lstm_hidden"; catalog "enc.lstm.gates"), and recorded once in the
//   catalog with owner layer 0 (its LNs report no owner); per-layer ones live in
//   "layer<l>_lstm" ("enc.<l>.lstm.gates"). The concat merge Linear is per layer.
// - Layer hooks (observer.h replace_layer / layer_output): a layer's state is the packed
//   [o ; c] (2d; c_0 = 0), so linearization maps (o_{l-1}, c_{l-1}) to (o_l, c_l).
// - Observers: each LSTM step is sub-layer {stack, l, Lstm, 2l+1 (enc) | 3l+2 (dec)} -- the
//   slot the FFN has in a residual stack. transform_branch() sees the LSTM input (a_l or m_l)
//   after dropout, and on_sublayer() reports {input o_{l-1}, branch that input, output o_l}.
//   Attention sub-layers are not reported (they meet no shortcut).
// Inits that rescale residual branches (admin, rezero, rezero_postln, deepnorm, or any init
// that brings its own sub-layer style) are rejected by check().
#include <algorithm>
#include <optional>

#include "base/config/config_io.h"
#include "base/config/config_schema.h"
#include "base/util/strings.h"
#include "core/model/attention.h"
#include "core/model/checkpointed_layer.h"
#include "core/model/depthwise_lstm_cell.h"
#include "core/model/dropout.h"
#include "core/model/registry.h"
#include "core/model/stack.h"

namespace fathom {
namespace {

LstmSpec lstm_spec(const StackContext& s) {
  const auto& m = s.config;
  return {m.d_model, m.d_ff, m.lstm.hidden, m.dropout, m.activation_dropout, s.hooks};
}

// What the encoder and decoder share: the per-stack LSTM modules, dropout and the observer.
class LstmStackParts {
 public:
  // `first` is the stack's layer-0 LSTM step: the catalog owner of shared modules.
  LstmStackParts(torch::nn::Module& stack, const StackContext& s, const SublayerId& first)
      : spec_(lstm_spec(s)),
        hooks_(s.hooks),
        dropout_(s.config.dropout),
        stack_name_(stack_name(first.stack)) {
    const std::string& share = s.config.lstm.share;
    const size_t before = s.catalog.linears.size();
    if (share == "gates" || share == "all")
      gates_ = stack.register_module(
          "lstm_gates", LstmGates(spec_, stack_name_ + ".lstm.gates", first, true, s.catalog));
    if (share == "all")
      hidden_ = stack.register_module(
          "lstm_hidden", LstmHidden(spec_, stack_name_ + ".lstm.hidden", first, true, s.catalog));
    // A shared linear runs once in every layer: make_cell counts them.
    for (size_t i = before; i < s.catalog.linears.size(); ++i) {
      s.catalog.linears[i].applications = 0;
      shared_linears_.push_back(i);
    }
  }

  DepthwiseLstmCell make_cell(const StackContext& s, int layer, const SublayerId& id) {
    for (size_t i : shared_linears_) ++s.catalog.linears[i].applications;
    return DepthwiseLstmCell(spec_, stack_name_ + "." + std::to_string(layer) + ".lstm", id,
                             s.catalog, gates_, hidden_);
  }

  torch::Tensor drop(const torch::Tensor& x, bool training) const {
    return dropout_ > 0 ? fathom::dropout(x, dropout_, training) : x;
  }

  // The observer's replacement of layer l's whole step (attention included), which maps the
  // packed state [o_{l-1} ; c_{l-1}] to [o_l ; c_l] (observer.h); nullopt: run the layer.
  std::optional<LstmState> replaced(Stack stack, int l, const LstmState& below) const {
    if (!hooks_ || !hooks_->observer) return std::nullopt;
    const torch::Tensor y = replaced_layer(hooks_.get(), stack, l, packed(below));
    if (!y.defined()) return std::nullopt;
    return observed(stack, l, unpack(y));
  }
  // Layer l's output state as the observer wants it used.
  LstmState observed(Stack stack, int l, LstmState state) const {
    if (hooks_ && hooks_->stop) state.output = stop_point(hooks_->stop, std::move(state.output));
    if (!hooks_ || !hooks_->observer) return state;
    return unpack(observed_layer_output(hooks_.get(), stack, l, packed(state)));
  }

  // layer(below, memory) -> the layer's state (memory: the decoder's encoder output),
  // recomputed in backward where the stack checkpoints its layers
  // (train.checkpoint_activations): the state packed into one tensor for checkpointed_layer,
  // the memory passed through so that its gradient reaches the encoder. Layer 0's state has
  // no cell yet (c_0 = 0 is the cell's own default), and stays so. A template, so the plain
  // path calls the layer without wrapping it in a std::function.
  template <typename Layer>
  LstmState run_layer(const Layer& layer, const LstmState& below, const torch::Tensor& memory,
                      bool training) const {
    if (!recomputes_layers(hooks_.get(), training)) return layer(below, memory);
    const bool has_cell = below.cell.defined();
    return unpack(checkpointed_layer(
        [layer, has_cell](const torch::Tensor& x, const torch::Tensor& m) {
          return packed(layer(has_cell ? unpack(x) : LstmState{x, torch::Tensor()}, m));
        },
        has_cell ? packed(below) : below.output, memory));
  }

  // One LSTM step, with the LSTM input shown to the observer first.
  LstmState step(DepthwiseLstmCell& cell, const SublayerId& id, torch::Tensor input,
                 const LstmState& below) {
    SublayerObserver* observer = hooks_ ? hooks_->observer : nullptr;
    if (observer) input = observer->transform_branch(id, input);
    LstmState next = cell(input, below.output, below.cell);
    if (observer) observer->on_sublayer(id, SublayerTrace{below.output, input, next.output, {}});
    return next;
  }

 private:
  static torch::Tensor packed(const LstmState& s) {
    return torch::cat({s.output, s.cell.defined() ? s.cell : torch::zeros_like(s.output)}, -1);
  }
  static LstmState unpack(const torch::Tensor& y) {
    auto halves = y.chunk(2, -1);
    return {halves[0], halves[1]};
  }

  LstmSpec spec_;
  std::shared_ptr<ModelHooks> hooks_;
  double dropout_;
  std::string stack_name_;
  LstmGates gates_{nullptr};
  LstmHidden hidden_{nullptr};
  std::vector<size_t> shared_linears_;  // their catalog entries (applications: the layers)
};

// Layers of self-attention + LSTM step: the encoder, or a decoder-only model's causal stack.
class LstmEncoder : public EncoderStack {
 public:
  explicit LstmEncoder(const StackContext& s)
      : parts_(*this, s, {self_attention_stack(s.config), 0, SublayerKind::Lstm, 1}),
        stack_(self_attention_stack(s.config)),
        causal_(is_decoder_only(s.config)) {
    const auto& m = s.config;
    for (int l = 0; l < stack_layers(m); ++l) {
      const std::string mp = "layer" + std::to_string(l);  // module name (no dots allowed)
      SublayerId attn_id{stack_, l, SublayerKind::SelfAttention, 2 * l};
      lstm_id_.push_back({stack_, l, SublayerKind::Lstm, 2 * l + 1});
      norm_.push_back(register_module(
          mp + "_self_attn_norm",
          ObservedNorm(m.d_model, attn_id.name() + ".pre_norm", s.hooks, s.catalog, &attn_id)));
      attention_.push_back(
          register_module(mp + "_self_attn", make_attention(m, attn_id, s.hooks, s.catalog)));
      cell_.push_back(register_module(mp + "_lstm", parts_.make_cell(s, l, lstm_id_.back())));
    }
    final_norm_ =
        register_module(final_norm_module(stack_),
                        ObservedNorm(m.d_model, std::string(stack_name(stack_)) + ".final_norm",
                                     s.hooks, s.catalog));
  }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding) override {
    LstmState state{x, torch::Tensor()};  // o_0 = embeddings, c_0 = 0
    for (size_t l = 0; l < cell_.size(); ++l) {
      const int index = static_cast<int>(l);
      if (auto replaced = parts_.replaced(stack_, index, state)) {
        state = *replaced;
        continue;
      }
      const auto layer = [this, l, padding](const LstmState& below, const torch::Tensor&) {
        const torch::Tensor h = norm_[l](below.output);
        const torch::Tensor a = parts_.drop(attention_[l](h, h, padding, causal_), is_training());
        return parts_.step(cell_[l], lstm_id_[l], a, below);
      };
      state = parts_.observed(stack_, index,
                              parts_.run_layer(layer, state, torch::Tensor(), is_training()));
    }
    return final_norm_(state.output);
  }

 private:
  LstmStackParts parts_;
  std::vector<SublayerId> lstm_id_;
  std::vector<ObservedNorm> norm_;
  std::vector<MultiheadAttention> attention_;
  std::vector<DepthwiseLstmCell> cell_;
  ObservedNorm final_norm_{nullptr};
  Stack stack_;
  bool causal_;
};

class LstmDecoder : public DecoderStack {
 public:
  explicit LstmDecoder(const StackContext& s)
      : parts_(*this, s, {Stack::Decoder, 0, SublayerKind::Lstm, 2}) {
    const auto& m = s.config;
    for (int l = 0; l < m.decoder_layers; ++l) {
      const std::string p = "dec." + std::to_string(l);
      const std::string mp = "layer" + std::to_string(l);
      SublayerId self_id{Stack::Decoder, l, SublayerKind::SelfAttention, 3 * l};
      SublayerId cross_id{Stack::Decoder, l, SublayerKind::EncoderAttention, 3 * l + 1};
      lstm_id_.push_back({Stack::Decoder, l, SublayerKind::Lstm, 3 * l + 2});
      self_norm_.push_back(register_module(
          mp + "_self_attn_norm",
          ObservedNorm(m.d_model, self_id.name() + ".pre_norm", s.hooks, s.catalog, &self_id)));
      self_attention_.push_back(
          register_module(mp + "_self_attn", make_attention(m, self_id, s.hooks, s.catalog)));
      cross_norm_.push_back(register_module(
          mp + "_enc_attn_norm",
          ObservedNorm(m.d_model, cross_id.name() + ".pre_norm", s.hooks, s.catalog, &cross_id)));
      cross_attention_.push_back(
          register_module(mp + "_enc_attn", make_attention(m, cross_id, s.hooks, s.catalog)));
      if (m.lstm.merge == "concat") {
        merge_.push_back(
            register_module(mp + "_merge", torch::nn::Linear(2 * m.d_model, m.d_model)));
        s.catalog.linears.push_back(
            {p + ".merge", merge_.back(), LinearRole::Merge, lstm_id_.back(), 1});
      }
      cell_.push_back(register_module(mp + "_lstm", parts_.make_cell(s, l, lstm_id_.back())));
    }
    final_norm_ = register_module("decoder_final_norm",
                                  ObservedNorm(m.d_model, "dec.final_norm", s.hooks, s.catalog));
  }

  torch::Tensor forward(const torch::Tensor& y, const torch::Tensor& memory,
                        const torch::Tensor& padding) override {
    LstmState state{y, torch::Tensor()};
    for (size_t l = 0; l < cell_.size(); ++l) {
      const int index = static_cast<int>(l);
      if (auto replaced = parts_.replaced(Stack::Decoder, index, state)) {
        state = *replaced;
        continue;
      }
      const auto layer = [this, l, padding](const LstmState& below, const torch::Tensor& mem) {
        const torch::Tensor o = below.output;
        const torch::Tensor hs = self_norm_[l](o);
        const torch::Tensor s = parts_.drop(
            self_attention_[l](hs, hs, torch::Tensor(), /*causal=*/true), is_training());
        const torch::Tensor e = parts_.drop(
            cross_attention_[l](cross_norm_[l](s + o), mem, padding, false), is_training());
        const torch::Tensor merged = merge_.empty() ? s + e : merge_[l](torch::cat({s, e}, -1));
        return parts_.step(cell_[l], lstm_id_[l], merged, below);
      };
      state = parts_.observed(Stack::Decoder, index,
                              parts_.run_layer(layer, state, memory, is_training()));
    }
    return final_norm_(state.output);
  }

 private:
  LstmStackParts parts_;
  std::vector<SublayerId> lstm_id_;
  std::vector<ObservedNorm> self_norm_, cross_norm_;
  std::vector<MultiheadAttention> self_attention_, cross_attention_;
  std::vector<torch::nn::Linear> merge_;
  std::vector<DepthwiseLstmCell> cell_;
  ObservedNorm final_norm_{nullptr};
};

// The schema rejects a bad option when a config is read; this also covers configs built in
// code, with the schema's own list of choices.
void check_choice(const RunConfig& config, const std::string& key, const std::string& value) {
  const std::vector<std::string>& allowed = find_field(key)->choices;
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    config_error(config, key, "'" + value + "' is not one of: " + join(allowed, ", "));
}

void check_depthwise_lstm(const RunConfig& config) {
  const ModelConfig& m = config.model;
  // Inits with their own sub-layer style (admin, rezero, deepnorm, ...) scale or gate
  // residual branches; with no residual shortcut they mean nothing.
  const InitMethod* init = methods().inits.find(m.init);
  if (init && !init->sublayer_style.empty())
    config_error(config, "model.init",
                 "init '" + m.init +
                     "' works on residual branches and needs model.connection: residual; "
                     "depthwise_lstm has no residual shortcut (use xavier or lipschitz)");
  // post and pre are accepted and ignored (the LSTM's own LayerNorms are fixed, see above);
  // a style that changes the normalization itself would be silently dropped, so say so.
  if (m.norm != "post" && m.norm != "pre")
    config_error(config, "model.norm",
                 "norm '" + m.norm +
                     "' acts on residual sub-layers; depthwise_lstm keeps the "
                     "paper's LayerNorms (use post or pre, both mean the same here)");
  if (!m.decoder_norm.empty())
    config_error(config, "model.decoder_norm",
                 "depthwise_lstm keeps the paper's LayerNorms in both stacks; a per-stack "
                 "placement means nothing here");
  check_choice(config, "model.lstm.hidden", m.lstm.hidden);
  check_choice(config, "model.lstm.merge", m.lstm.merge);
  check_choice(config, "model.lstm.share", m.lstm.share);
}

}  // namespace

void register_depthwise_lstm_connection(MethodRegistry& registry) {
  registry.connections.add(
      "depthwise_lstm",
      {"depth-wise LSTM over layers instead of residual shortcuts (Xu et al.; no FFN sub-layer)",
       [](const StackContext& s) { return std::make_shared<LstmEncoder>(s); },
       [](const StackContext& s) { return std::make_shared<LstmDecoder>(s); },
       check_depthwise_lstm});
}

}  // namespace fathom
