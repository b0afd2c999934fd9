// `init: ds_init` (Zhang et al. 2019, "Improving Deep Transformer with Depth-Scaled
// Initialization and Merged Attention"): the Glorot bound of every Linear in layer l (1-based,
// counted per stack) multiplied by alpha / sqrt(l), alpha = model.ds_init_alpha. Embeddings,
// biases and LayerNorms as `xavier`. Works with any norm placement (the paper uses Post-LN).
#include <cmath>

#include "base/config/config_io.h"
#include "core/model/init_helpers.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"

namespace fathom {

void register_ds_init(MethodRegistry& registry) {
  InitMethod method;
  method.doc = "Zhang et al. 2019: Glorot bound * alpha / sqrt(layer), layer 1-based per stack";
  method.check = [](const RunConfig& config) {
    if (!(config.model.ds_init_alpha > 0))
      config_error(config, "model.ds_init_alpha", "must be > 0");
  };
  method.apply = [](TransformerImpl& model) {
    methods().inits.find("xavier")->apply(model);
    const double alpha = model.config().ds_init_alpha;
    for (auto& l : model.catalog().linears)
      xavier_linear(l, alpha / std::sqrt(static_cast<double>(l.owner.layer + 1)));
  };
  registry.inits.add("ds_init", std::move(method));
}

}  // namespace fathom
