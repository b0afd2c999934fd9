#pragma once
// The registries of model methods (base/util/registry.h): sub-layer connection styles (post, pre,
// ...), initializations (xavier, lipschitz, ...) and stack connections (residual, ...). Built-ins
// are registered once, explicitly, in core/model/builtin_methods.cpp; a new method is one new file
// with a register_* function plus one line there.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/normalization.h"
#include "base/util/registry.h"
#include "core/model/sublayer_connection.h"

namespace fathom {

class TransformerImpl;
class EncoderStack;
class DecoderStack;
struct Batch;
// How a sub-layer's branch meets its shortcut.
struct SublayerStyle {
  std::string doc;
  std::function<std::shared_ptr<SublayerConnection>(const ConnectionContext&)> make;
  NormalizationTraits normalization = {};  // what its norms are (base/config/normalization.h)
};

// What a data-dependent initialization (Admin's profiling) may read. The model knows no
// store: a tag of another stored run comes through `stored_tag`, null outside a stored run
// (e.g. an analysis of a config at initialization).
struct InitContext {
  const RunConfig& config;
  const Batch& first_batch;  // the run's first training batch, on the model's device
  // The value of tag `key` of stored run `run`; nullopt when it has none. Throws for an
  // unknown run.
  std::function<std::optional<std::string>(int64_t run, const std::string& key)> stored_tag;
};

// A file an initialization produced, to keep with the run as an artifact of `kind`.
struct PreparedFile {
  std::string kind, file_name, contents;
};

// What a data-dependent initialization computed and wants kept with the run (Admin: its
// profile as a tag and a JSON file). The trainer stores it (core/train/prepared_state.h).
struct PreparedState {
  std::map<std::string, std::string> tags;
  std::vector<PreparedFile> files;
};

// An initialization. It may require its own sub-layer style (Admin needs omega vectors).
struct InitMethod {
  std::string doc;
  std::string sublayer_style;                   // "" = use model.norm
  std::function<void(const RunConfig&)> check;  // config errors via config_error()
  std::function<void(TransformerImpl&)> apply;  // runs under NoGradGuard, seeded
  // Optional second phase on real data, run once before the first update (never on resume).
  std::function<PreparedState(TransformerImpl&, const InitContext&)> prepare;
};

// Everything a stack builder needs.
struct StackContext {
  const ModelConfig& config;
  std::string sublayer_style;
  std::shared_ptr<ModelHooks> hooks;
  ParameterCatalog& catalog;
  // Set by a connection that reuses the residual stacks with its own sub-layer connection
  // (hyper-connections, core/model/hyper_connection.h); unset: `sublayer_style` by name.
  std::function<std::shared_ptr<SublayerConnection>(const ConnectionContext&)> make_sublayer;
};

// How layers are connected along depth: residual (the standard) or, e.g., depth-wise LSTM.
struct StackConnection {
  std::string doc;
  std::function<std::shared_ptr<EncoderStack>(const StackContext&)> encoder;
  std::function<std::shared_ptr<DecoderStack>(const StackContext&)> decoder;
  std::function<void(const RunConfig&)> check;
};

// The residual stacks (core/model/residual_connection.cpp), for connections that reuse them.
std::shared_ptr<EncoderStack> make_residual_encoder(const StackContext& context);
std::shared_ptr<DecoderStack> make_residual_decoder(const StackContext& context);

struct MethodRegistry {
  Registry<SublayerStyle> sublayer_styles{"norm style"};
  Registry<InitMethod> inits{"init"};
  Registry<StackConnection> connections{"connection"};
};

// The registry with every built-in method (registered on first use, thread-safe).
const MethodRegistry& methods();

// The sub-layer style a config resolves to (the init's own style, else model.norm).
std::string resolve_sublayer_style(const ModelConfig& config);
// The decoder stack's: model.decoder_norm where set (a per-stack placement), else the above.
std::string resolve_decoder_sublayer_style(const ModelConfig& config);

// The styles `model.norm` may name: every registered style that no init brings as its own.
std::vector<std::string> norm_choices();

// For inits that bring their own Post-LN style (admin, deepnorm, rezero_postln): config errors
// unless model.norm is "post" (when `needs_post_norm`) and model.connection is "residual".
void require_residual_post_norm(const RunConfig& config, const std::string& init,
                                bool needs_post_norm = true);

// Checks model.init / model.connection names and each method's own rules; errors name the
// config file, line and key, with the closest registered name.
void check_model_methods(const RunConfig& config);

}  // namespace fathom
