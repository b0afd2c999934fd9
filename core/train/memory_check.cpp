#include "core/train/memory_check.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "base/config/config_io.h"

namespace fathom {
namespace {

std::string gibibytes(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
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
  f.state_bytes = 16 * f.parameters;
  // Each sub-layer keeps at least its input, its branch and (FFN) its inner activation per
  // token; the batch holds up to data.max_tokens tokens on each side.
  const double per_token_layer = 4 * (4 * d + ff);
  const double layer_equivalents = encoders + (is_decoder_only(m) ? 1.0 : 2.0) * decoders;
  if (config.train.checkpoint_activations) {
    // Recomputed layers keep only their input (d floats a token) until backward reaches them,
    // then one layer's activations at a time: counting every layer's would refuse the deep
    // models checkpointing exists for.
    f.activation_bytes = config.data.max_tokens * (4 * d * layer_equivalents + per_token_layer * 2);
  } else {
    f.activation_bytes = config.data.max_tokens * per_token_layer * layer_equivalents;
  }
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
  cannot_fit(config, f, f.bytes(), "with their gradients, Adam's state and one batch's activations",
             available);
}

void check_weights_fit(const RunConfig& config, double available) {
  const ModelFootprint f = estimate_footprint(config);
  if (4 * f.parameters <= available) return;
  cannot_fit(config, f, 4 * f.parameters, "as float32 weights alone", available);
}

}  // namespace fathom
