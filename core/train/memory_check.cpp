#include "core/train/memory_check.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <torch/version.h>

#include "base/config/config_io.h"

namespace fathom {
namespace {

std::string gibibytes(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// The longest side of a pair a batch may hold: data.max_len, or less where the task makes its
// sentences shorter (the synthetic task's longest source, a language model's block), at most
// one batch's tokens.
double longest_pair(const RunConfig& config) {
  const DataConfig& data = config.data;
  int longest = data.max_len;
  if (data.task == "synthetic") longest = std::min(longest, data.synthetic.max_len);
  if (data.task == "lm" && data.lm_block > 0) longest = std::min(longest, data.lm_block);
  return std::min(longest, data.max_tokens);
}

// The explicit attention path keeps the probabilities; LibTorch 2's fused attention
// (model.fused_attention, core/model/attention.h) may not, so none are counted where it can run.
bool keeps_attention_probabilities(const ModelConfig& m) {
#if TORCH_VERSION_MAJOR >= 2
  return m.fused_attention == "off";
#else
  (void)m;
  return true;
#endif
}

}  // namespace

ModelFootprint estimate_footprint(const RunConfig& config) {
  const ModelConfig& m = config.model;
  // Doubles throughout: the point is to catch values whose products overflow an int.
  const double d = m.d_model, ff = m.d_ff;
  const double attention = 4 * d * d + 4 * d, ffn = 2 * d * ff + d + ff, norm = 2 * d;
  const double encoder_layer = attention + ffn + 2 * norm;
  // A decoder-only model's layers are the encoder's kind (model.arch).
  const double decoder_layer = is_decoder_only(m) ? encoder_layer : 2 * attention + ffn + 3 * norm;
  const double encoders = encoder_layer_count(m), decoders = m.decoder_layers;
  const double vocab =
      config.data.task == "synthetic" ? config.data.synthetic.vocab + 4.0 : config.data.vocab.size;
  ModelFootprint f;
  f.parameters = encoders * encoder_layer + decoders * decoder_layer + vocab * d;
  // Weights and gradients, Adam's two moments; SGD (and Muon, at least) keeps one buffer.
  const bool one_buffer = config.train.optimizer == "sgd" || config.train.optimizer == "muon";
  f.state_bytes = (one_buffer ? 12 : 16) * f.parameters;
  // Each sub-layer keeps at least its input, its branch and (FFN) its inner activation per
  // token; the batch holds up to data.max_tokens tokens on each side.
  const double per_token_layer = 4 * (4 * d + ff);
  const double layer_equivalents = encoders + (is_decoder_only(m) ? 1.0 : 2.0) * decoders;
  // Attention probabilities, kept for the backward of the softmax and of probs x V: batch x
  // heads x tgt x src floats an attention -- with batches of the longest pairs the data
  // allows, heads x max_tokens x that length. Encoder layers have one attention (self),
  // decoder layers two (self, cross); a decoder-only model's layers one.
  const double probs_per_attention = 4.0 * m.heads * config.data.max_tokens * longest_pair(config);
  const double attentions_per_decoder_layer = is_decoder_only(m) ? 1.0 : 2.0;
  if (config.train.checkpoint_activations) {
    // Recomputed layers keep only their input (d floats a token) until backward reaches them,
    // then one layer's activations at a time: counting every layer's would refuse the deep
    // models checkpointing exists for.
    f.activation_bytes = config.data.max_tokens * (4 * d * layer_equivalents + per_token_layer * 2);
    f.attention_bytes = probs_per_attention * (decoders > 0 ? attentions_per_decoder_layer : 1.0);
  } else {
    f.activation_bytes = config.data.max_tokens * per_token_layer * layer_equivalents;
    f.attention_bytes = probs_per_attention * (encoders + attentions_per_decoder_layer * decoders);
  }
  if (!keeps_attention_probabilities(m)) f.attention_bytes = 0;
  return f;
}

double host_memory_bytes() {
  double bytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    bytes = std::min(bytes, static_cast<double>(limit.rlim_cur));
  return bytes;
}

namespace {

// The error of a model whose `needed` bytes (`what` they hold) exceed `available`.
[[noreturn]] void cannot_fit(const RunConfig& config, const ModelFootprint& f, double needed,
                             const std::string& what, double available) {
  const ModelConfig& m = config.model;
  char params[32];
  std::snprintf(params, sizeof params, "%.3g", f.parameters);
  // The key that makes the model big, so the error points at the line to fix.
  const int encoder_layers = encoder_layer_count(m);
  const std::string key = encoder_layers >= m.decoder_layers && encoder_layers > 64
                              ? "model.encoder_layers"
                          : m.decoder_layers > 64 ? "model.decoder_layers"
                          : m.d_model >= m.d_ff   ? "model.d_model"
                                                  : "model.d_ff";
  config_error(config, key,
               "this model cannot fit: model.encoder_layers " + std::to_string(encoder_layers) +
                   ", model.decoder_layers " + std::to_string(m.decoder_layers) +
                   ", model.d_model " + std::to_string(m.d_model) + " and model.d_ff " +
                   std::to_string(m.d_ff) + " make at least " + params + " parameters, which " +
                   what + " need at least " + gibibytes(needed) + "; this machine has " +
                   gibibytes(available));
}

}  // namespace

void check_model_fits(const RunConfig& config, double available) {
  const ModelFootprint f = estimate_footprint(config);
  if (f.bytes() <= available) return;
  cannot_fit(config, f, f.bytes(),
             "with their gradients, Adam's state and one batch's activations and attention "
             "probabilities",
             available);
}

void check_weights_fit(const RunConfig& config, double available) {
  const ModelFootprint f = estimate_footprint(config);
  if (4 * f.parameters <= available) return;
  cannot_fit(config, f, 4 * f.parameters, "as float32 weights alone", available);
}

}  // namespace fathom
