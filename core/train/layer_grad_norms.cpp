#include "core/train/layer_grad_norms.h"

#include <cctype>
#include <cmath>

namespace fathom {

std::string parameter_layer(const std::string& name) {
  for (const auto& [prefix, stack] : {std::pair<std::string, std::string>{"encoder.layer", "enc."},
                                      {"decoder.layer", "dec."}}) {
    if (name.rfind(prefix, 0) != 0) continue;
    size_t end = prefix.size();
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end > prefix.size()) return stack + name.substr(prefix.size(), end - prefix.size());
  }
  if (name.find("embedding") != std::string::npos) return "embed";
  return "other";
}

std::map<std::string, double> layer_grad_norms(
    const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters) {
  std::map<std::string, double> squares;
  for (const auto& [name, p] : named_parameters) {
    if (!p.grad().defined()) continue;
    squares[parameter_layer(name)] += p.grad().to(torch::kFloat64).pow(2).sum().item<double>();
  }
  for (auto& [layer, value] : squares) value = std::sqrt(value);
  return squares;
}

}  // namespace fathom
