#pragma once
// Registration functions of the built-in analyses, one per file, called from
// builtin_analyses.cpp.
#include "analysis/registry.h"

namespace fathom::analysis {

void register_beta(AnalysisRegistry& registry);          // beta.cpp
void register_output_shift(AnalysisRegistry& registry);  // output_shift.cpp
void register_grad_norms(AnalysisRegistry& registry);    // grad_norms.cpp
void register_ln_scale(AnalysisRegistry& registry);      // ln_scale.cpp
void register_linearize(AnalysisRegistry& registry);     // linearize.cpp

}  // namespace fathom::analysis
