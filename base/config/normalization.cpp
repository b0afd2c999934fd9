#include "base/config/normalization.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace fathom {

std::string NormalizationTraits::scales_key() const {
  std::string key = name;
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return key;
}

const std::vector<NormalizationTraits>& scale_normalizations() {
  static const std::vector<NormalizationTraits> all = {
      // Dynamic Tanh (arXiv 2503.10622): alpha scales the input of its tanh.
      {/*is_layer_norm=*/false, "DyT", "DyT(x) = gamma tanh(alpha x) + beta", "dyt_alpha", "alpha"},
  };
  return all;
}

const NormalizationTraits& scale_normalization(const std::string& name) {
  for (const auto& traits : scale_normalizations())
    if (traits.name == name) return traits;
  throw std::logic_error("no normalization named " + name);
}

}  // namespace fathom
