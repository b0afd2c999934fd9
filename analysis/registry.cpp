#include "analysis/registry.h"

#include <stdexcept>

namespace fathom::analysis {

const Analysis& find_analysis(const std::string& name) { return analyses().at(name); }

}  // namespace fathom::analysis
