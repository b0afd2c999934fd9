// Mix-LN (Li et al. 2024, arXiv 2412.13795): Post-LN in the first floor(alpha * L) layers of
// a stack and Pre-LN in the remaining ones, alpha = model.mix_ln_alpha (the paper's default
// 0.25), L the stack's layer count; encoder and decoder are split on their own. A layer is
// exactly the registered `post` or `pre` style, so its parameters carry the same names. The
// stack ends with Pre-LN's final LayerNorm whenever its last layer is Pre-LN (alpha < 1).
#include <cmath>

#include "core/model/registry.h"

namespace fathom {
namespace {

// Layers [0, post_layers) of a stack of `layers` are Post-LN.
int mix_ln_post_layers(double alpha, int layers) {
  // The small epsilon keeps alpha * L = 1.5 - 1e-16 style rounding from losing a layer.
  return static_cast<int>(std::floor(alpha * layers + 1e-9));
}

}  // namespace

void register_mix_norm(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "mix", {"Post-LN in the first floor(model.mix_ln_alpha * L) layers, Pre-LN in the rest "
              "(Mix-LN, arXiv 2412.13795)",
              [](const ConnectionContext& c) {
                const bool post =
                    c.id.layer < mix_ln_post_layers(c.config.mix_ln_alpha, c.stack_layers);
                return methods().sublayer_styles.find(post ? "post" : "pre")->make(c);
              }});
}

}  // namespace fathom
