#include "core/model/sigma_reparam.h"

#include <string>

namespace fathom {
namespace {

namespace F = torch::nn::functional;

// [blocks, rows, in] x [blocks, in] -> [blocks, rows]
torch::Tensor block_mv(const torch::Tensor& w3, const torch::Tensor& x) {
  return torch::bmm(w3, x.unsqueeze(2)).squeeze(2);
}

torch::Tensor unit_rows(const torch::Tensor& x) {
  return F::normalize(x, F::NormalizeFuncOptions().dim(1));
}

}  // namespace

SigmaReparamImpl::SigmaReparamImpl(ParameterCatalog& catalog) {
  for (size_t i = 0; i < catalog.linears.size(); ++i) {
    const LinearEntry& entry = catalog.linears[i];
    const std::string index = std::to_string(i);
    const torch::Tensor& w = entry.linear->weight;
    Layer layer{entry.linear, w, entry.blocks,
                register_parameter("gamma_" + index, torch::ones({entry.blocks})),
                register_buffer("u_" + index, torch::zeros({entry.blocks, w.size(1)}))};
    catalog.extras.push_back({entry.name + ".sigma_gamma", layer.gamma, "other"});
    layers_.push_back(layer);
  }
}

void SigmaReparamImpl::initialize() {
  torch::NoGradGuard no_grad;
  for (Layer& l : layers_) {
    const torch::Tensor w3 = l.weight.to(torch::kFloat).view({l.blocks, -1, l.weight.size(1)});
    for (int64_t b = 0; b < l.blocks; ++b) {
      // W = U S V^T: the top right singular vector is V's first column.
      const auto svd = torch::svd(w3[b]);
      l.u[b].copy_(std::get<2>(svd).select(1, 0));
    }
  }
}

void SigmaReparamImpl::apply(bool training) {
  if (depth_++ > 0) return;
  for (Layer& l : layers_) {
    const torch::Tensor w3 = l.weight.view({l.blocks, -1, l.weight.size(1)});
    torch::Tensor v, u;
    {
      torch::NoGradGuard no_grad;
      const torch::Tensor w = w3.detach();
      v = unit_rows(block_mv(w, l.u));
      if (training) l.u.copy_(unit_rows(block_mv(w.transpose(1, 2), v)));
      u = l.u.clone();  // backward reads u after the next forward moved the buffer
    }
    const torch::Tensor sigma = (v * block_mv(w3, u)).sum(1);  // [blocks], gradient through W
    const torch::Tensor scale = (l.gamma / sigma).view({l.blocks, 1, 1});
    l.linear->weight = (w3 * scale).view_as(l.weight);
  }
}

void SigmaReparamImpl::restore() {
  if (--depth_ > 0) return;
  for (Layer& l : layers_) l.linear->weight = l.weight;
}

}  // namespace fathom
