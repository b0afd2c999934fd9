// The built-in methods, registered once. A new method is one file defining its register_*
// function plus one line below (its declaration and its call sit together here, not in a header).
#include <algorithm>
#include <mutex>

#include "base/config/config_io.h"
#include "base/util/strings.h"
#include "core/model/depth_parameterization.h"
#include "core/model/hyper_connection.h"
#include "core/model/registry.h"

namespace fathom {

// One per file (core/model/<name>.cpp).
void register_post_norm(MethodRegistry& registry);            // sublayer_styles: post
void register_pre_norm(MethodRegistry& registry);             // sublayer_styles: pre
void register_peri_norm(MethodRegistry& registry);            // sublayer_styles: peri
void register_mix_norm(MethodRegistry& registry);             // sublayer_styles: mix
void register_ln_scaling(MethodRegistry& registry);           // sublayer_styles: lns
void register_dyt_norm(MethodRegistry& registry);             // sublayer_styles: dyt
void register_xavier_init(MethodRegistry& registry);          // inits: xavier
void register_lipschitz_init(MethodRegistry& registry);       // inits: lipschitz
void register_admin_init(MethodRegistry& registry);           // inits + sublayer_styles: admin
void register_rezero_init(MethodRegistry& registry);          // rezero, rezero_postln
void register_deepnorm_init(MethodRegistry& registry);        // inits + sublayer_styles: deepnorm
void register_ds_init(MethodRegistry& registry);              // inits: ds_init
void register_residual_connection(MethodRegistry& registry);  // connections: residual
void register_depthwise_lstm_connection(MethodRegistry& registry);  // connections: depthwise_lstm
void register_hyper_connection(MethodRegistry& registry);           // connections: hyper, mhc

const MethodRegistry& methods() {
  static MethodRegistry registry;
  static std::once_flag once;
  std::call_once(once, [] {
    register_post_norm(registry);
    register_pre_norm(registry);
    register_peri_norm(registry);
    register_mix_norm(registry);
    register_ln_scaling(registry);
    register_dyt_norm(registry);
    register_xavier_init(registry);
    register_lipschitz_init(registry);
    register_admin_init(registry);
    register_rezero_init(registry);
    register_deepnorm_init(registry);
    register_ds_init(registry);
    register_residual_connection(registry);
    register_depthwise_lstm_connection(registry);
    register_hyper_connection(registry);
  });
  return registry;
}

std::string resolve_sublayer_style(const ModelConfig& config) {
  const InitMethod* init = methods().inits.find(config.init);
  if (init && !init->sublayer_style.empty()) return init->sublayer_style;
  return config.norm;
}

std::string resolve_decoder_sublayer_style(const ModelConfig& config) {
  return config.decoder_norm.empty() ? resolve_sublayer_style(config) : config.decoder_norm;
}

std::vector<std::string> norm_choices() {
  std::vector<std::string> out;
  for (const auto& style : methods().sublayer_styles.names()) {
    bool owned = false;
    for (const auto& init : methods().inits.names())
      owned = owned || methods().inits.find(init)->sublayer_style == style;
    if (!owned) out.push_back(style);
  }
  return out;
}

namespace {
template <typename Entry>
// key is a const char*: a std::string temporary made for it would make GCC 13+ warn that the
// returned reference (into the registry) may dangle (-Wdangling-reference).
const Entry& require(const RunConfig& config, const Registry<Entry>& registry, const char* key,
                     const std::string& name) {
  if (const Entry* entry = registry.find(name)) return *entry;
  config_error(config, key, registry.unknown_name(name));
}
}  // namespace

void require_residual_post_norm(const RunConfig& config, const std::string& init,
                                bool needs_post_norm) {
  if (needs_post_norm && config.model.norm != "post")
    config_error(config, "model.norm", "init '" + init + "' is a Post-LN method; use norm: post");
  if (config.model.connection != "residual")
    config_error(config, "model.connection", "init '" + init + "' needs residual connections");
}

namespace {
// `key` (model.norm or model.decoder_norm) names a placement model.norm may name.
void check_norm_choice(const RunConfig& config, const char* key, const std::string& norm) {
  const auto choices = norm_choices();
  if (std::find(choices.begin(), choices.end(), norm) == choices.end())
    config_error(config, key, not_one_of(norm, choices));
}

// model.decoder_norm: a second LayerNorm placement for the decoder stack (Admin table 1's
// Post-LN encoder with a Pre-LN decoder). Only between LayerNorm placements, so that every
// analysis that asks whether a model's norms are LayerNorms has one answer for both stacks.
void check_decoder_norm(const RunConfig& config, const InitMethod& init) {
  const ModelConfig& m = config.model;
  if (m.decoder_norm.empty()) return;
  if (is_decoder_only(m))
    config_error(config, "model.decoder_norm",
                 "a decoder-only model has one stack; its placement is model.norm");
  if (!init.sublayer_style.empty())
    config_error(config, "model.decoder_norm",
                 "init '" + m.init +
                     "' brings its own sub-layer style to both stacks; leave "
                     "decoder_norm empty");
  check_norm_choice(config, "model.decoder_norm", m.decoder_norm);
  for (const auto& [key, style] :
       {std::pair{"model.norm", m.norm}, std::pair{"model.decoder_norm", m.decoder_norm}})
    if (!methods().sublayer_styles.find(style)->normalization.is_layer_norm)
      config_error(config, key,
                   "'" + style +
                       "' has no LayerNorm; a per-stack placement (decoder_norm) is "
                       "only between LayerNorm placements");
}
}  // namespace

void check_model_methods(const RunConfig& config) {
  const auto& init = require(config, methods().inits, "model.init", config.model.init);
  if (init.check) init.check(config);
  const auto& connection =
      require(config, methods().connections, "model.connection", config.model.connection);
  if (connection.check) connection.check(config);
  // model.norm names a placement; an init that brings its own style checks it itself.
  if (init.sublayer_style.empty()) check_norm_choice(config, "model.norm", config.model.norm);
  require(config, methods().sublayer_styles, "model.norm", resolve_sublayer_style(config.model));
  check_decoder_norm(config, init);
  check_parameterization(config);
  // model.hc_streams belongs to the hyper-connection stacks (core/model/hyper_connection.h).
  if (config.model.hc_streams > 0 && config.model.connection != "hyper" &&
      config.model.connection != "mhc")
    config_error(config, "model.hc_streams",
                 "is the stream count of connection hyper or mhc; connection '" +
                     config.model.connection + "' has one stream (leave hc_streams 0; " +
                     kStreamsInASweep + ")");
}

}  // namespace fathom
