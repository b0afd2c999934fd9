// The built-in analyses, registered once. A new analysis is one file defining its register_*
// function plus its declaration and call here (no header to edit).
#include <mutex>

#include "analysis/registry.h"

namespace fathom::analysis {

void register_beta(AnalysisRegistry& registry);           // beta.cpp
void register_output_shift(AnalysisRegistry& registry);   // output_shift.cpp
void register_grad_norms(AnalysisRegistry& registry);     // grad_norms.cpp
void register_ln_scale(AnalysisRegistry& registry);       // ln_scale.cpp
void register_linearize(AnalysisRegistry& registry);      // linearize.cpp
void register_layer_skip(AnalysisRegistry& registry);     // layer_skip.cpp
void register_sharpness(AnalysisRegistry& registry);      // sharpness.cpp
void register_rank_collapse(AnalysisRegistry& registry);  // rank_collapse.cpp
void register_block_hessian(AnalysisRegistry& registry);  // block_hessian.cpp
void register_noise_scale(AnalysisRegistry& registry);    // noise_scale.cpp

const AnalysisRegistry& analyses() {
  static AnalysisRegistry registry{"analysis"};
  static std::once_flag once;
  std::call_once(once, [] {
    register_beta(registry);
    register_output_shift(registry);
    register_grad_norms(registry);
    register_ln_scale(registry);
    register_linearize(registry);
    register_layer_skip(registry);
    register_sharpness(registry);
    register_rank_collapse(registry);
    register_block_hessian(registry);
    register_noise_scale(registry);
  });
  return registry;
}

}  // namespace fathom::analysis
