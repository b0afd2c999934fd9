#include "core/train/attention_grads.h"

#include <map>
#include <tuple>

namespace fathom {
namespace {

// Which of Q (0), K (1), V (2) a linear's first block is; -1 for no attention projection.
int first_projection(LinearRole role) {
  switch (role) {
    case LinearRole::AttentionQkv:
    case LinearRole::AttentionQuery:
      return 0;
    case LinearRole::AttentionKeyValue:
      return 1;
    default:
      return -1;
  }
}

}  // namespace

std::vector<ProjectionGrads> attention_projection_grads(const ParameterCatalog& catalog) {
  std::vector<ProjectionGrads> out;
  std::map<std::string, size_t> index;  // sub-layer -> its entry in out
  // (entry, 0 q | 1 k | 2 v, the norm on the device): read together at the end.
  std::vector<std::tuple<size_t, int, torch::Tensor>> norms;
  for (const LinearEntry& l : catalog.linears) {
    const int first = first_projection(l.role);
    if (first < 0) continue;
    const auto [at, added] = index.emplace(l.owner.name(), out.size());
    if (added) out.push_back(ProjectionGrads{l.owner.name()});
    const torch::Tensor grad = l.linear->weight.grad();
    if (!grad.defined()) continue;
    const std::vector<torch::Tensor> blocks = grad.chunk(l.blocks, 0);
    for (int b = 0; b < l.blocks && first + b < 3; ++b)
      norms.emplace_back(at->second, first + b, blocks[b].detach().to(torch::kFloat).norm());
  }
  if (norms.empty()) return out;
  std::vector<torch::Tensor> all;
  for (const auto& n : norms) all.push_back(std::get<2>(n));
  const torch::Tensor values = torch::stack(all).to(torch::kDouble).to(torch::kCPU).contiguous();
  for (size_t i = 0; i < norms.size(); ++i) {
    ProjectionGrads& g = out[std::get<0>(norms[i])];
    double* slots[3] = {&g.q, &g.k, &g.v};
    *slots[std::get<1>(norms[i])] = values.data_ptr<double>()[i];
  }
  return out;
}

}  // namespace fathom
