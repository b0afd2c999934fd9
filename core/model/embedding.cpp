#include "core/model/embedding.h"

#include <cmath>

#include "core/model/dropout.h"

namespace fathom {

torch::Tensor sinusoidal_positions(int64_t max_len, int64_t d_model) {
  const int64_t half = d_model / 2;
  const double step = std::log(10000.0) / std::max<int64_t>(half - 1, 1);
  auto frequencies = torch::exp(torch::arange(half, torch::kFloat64) * -step);
  auto angles = torch::arange(max_len, torch::kFloat64).unsqueeze(1) * frequencies.unsqueeze(0);
  auto table = torch::cat({torch::sin(angles), torch::cos(angles)}, 1);
  if (d_model % 2 == 1) table = torch::cat({table, torch::zeros({max_len, 1}, torch::kFloat64)}, 1);
  return table.to(torch::kFloat32);
}

TransformerEmbeddingImpl::TransformerEmbeddingImpl(torch::Tensor weight, double dropout)
    : weight_(std::move(weight)),
      dropout_(dropout),
      scale_(std::sqrt(static_cast<double>(weight_.size(1)))) {
  positions_ = register_buffer("positions", sinusoidal_positions(256, weight_.size(1)));
}

torch::Tensor TransformerEmbeddingImpl::forward(const torch::Tensor& tokens,
                                                int64_t first_position) {
  const int64_t end = first_position + tokens.size(1);
  if (end > positions_.size(0)) {
    // Longer than any input seen so far: extend the table (deterministic, not learned).
    positions_.set_data(sinusoidal_positions(2 * end, weight_.size(1)).to(positions_.device()));
  }
  torch::Tensor x = torch::embedding(weight_, tokens, /*padding_idx=*/0) * scale_ +
                    positions_.slice(0, first_position, end).unsqueeze(0);
  return fathom::dropout(x, dropout_, is_training());
}

}  // namespace fathom
