#include "core/train/checkpoint_average.h"

#include <torch/torch.h>

#include "base/util/error.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"

namespace fathom {

void average_checkpoints(const std::vector<std::string>& paths, TransformerImpl& model) {
  if (paths.empty()) throw std::invalid_argument("average_checkpoints: no checkpoints");
  torch::NoGradGuard no_grad;
  const auto parameters = model.parameters();
  std::vector<torch::Tensor> sums;
  for (const auto& path : paths) {
    load_checkpoint(path, model, nullptr, nullptr);  // the last leaves its buffers
    for (size_t i = 0; i < parameters.size(); ++i) {
      const torch::Tensor value = parameters[i].detach().to(torch::kFloat64);
      if (sums.size() <= i)
        sums.push_back(value.clone());
      else
        sums[i].add_(value);
    }
  }
  const double n = static_cast<double>(paths.size());
  for (size_t i = 0; i < parameters.size(); ++i)
    parameters[i].detach().copy_((sums[i] / n).to(parameters[i].scalar_type()));
}

}  // namespace fathom
