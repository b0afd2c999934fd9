#include "core/train/muon.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fathom {

torch::Tensor newton_schulz(const torch::Tensor& matrix, int steps) {
  const bool tall = matrix.size(0) > matrix.size(1);
  torch::Tensor x = tall ? matrix.t() : matrix;
  x = x / (x.norm() + 1e-7);
  for (int i = 0; i < steps; ++i) {
    const torch::Tensor gram = torch::mm(x, x.t());
    const torch::Tensor poly = kMuonB * gram + kMuonC * torch::mm(gram, gram);
    x = kMuonA * x + torch::mm(poly, x);
  }
  return tall ? x.t().contiguous() : x;
}

torch::Tensor orthogonalized_blocks(const torch::Tensor& matrix, int blocks) {
  if (blocks <= 1) return newton_schulz(matrix);
  std::vector<torch::Tensor> parts;
  for (const torch::Tensor& block : matrix.chunk(blocks, 0)) parts.push_back(newton_schulz(block));
  return torch::cat(parts, 0);
}

double muon_update_scale(const torch::Tensor& matrix, int blocks) {
  const double rows = static_cast<double>(matrix.size(0)) / std::max(1, blocks);
  return 0.2 * std::sqrt(std::max(rows, static_cast<double>(matrix.size(1))));
}

}  // namespace fathom
