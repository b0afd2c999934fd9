#include "analysis/builtin_analyses.h"

#include <mutex>

namespace fathom::analysis {

const AnalysisRegistry& analyses() {
  static AnalysisRegistry registry;
  static std::once_flag once;
  std::call_once(once, [] {
    register_beta(registry);
    register_output_shift(registry);
    register_grad_norms(registry);
    register_ln_scale(registry);
    register_linearize(registry);
  });
  return registry;
}

}  // namespace fathom::analysis
