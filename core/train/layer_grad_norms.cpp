#include "core/train/layer_grad_norms.h"

#include <cctype>
#include <cmath>

namespace fathom {

std::string parameter_layer(const std::string& name) {
  for (const auto& [prefix, stack] :
       {std::pair<std::string, std::string>{"encoder.layer", "enc."}, {"decoder.layer", "dec."}}) {
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
  // Summed on the device in float64 and read in one transfer (not one read per parameter).
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> squares;
  for (const auto& [name, p] : named_parameters) {
    if (!p.grad().defined()) continue;
    torch::Tensor square = p.grad().to(torch::kFloat64).pow(2).sum();
    torch::Tensor& sum = squares[parameter_layer(name)];
    sum = sum.defined() ? sum + square : square;
  }
  std::map<std::string, double> norms;
  if (squares.empty()) return norms;
  std::vector<torch::Tensor> stacked;
  for (const auto& [layer, sum] : squares) stacked.push_back(sum);
  const torch::Tensor host = torch::stack(stacked).cpu();
  const double* value = host.data_ptr<double>();
  for (const auto& [layer, sum] : squares) norms[layer] = std::sqrt(*value++);
  return norms;
}

}  // namespace fathom
