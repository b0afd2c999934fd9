#include "plot/attention_figure.h"

#include <algorithm>
#include <stdexcept>

namespace fathom::plot {

std::vector<std::vector<double>> attention_of(
    const std::vector<std::vector<std::vector<double>>>& probs, int head) {
  if (head >= 0) return probs.at(static_cast<size_t>(head));
  if (probs.empty()) return {};
  std::vector<std::vector<double>> mean = probs.front();
  for (auto& row : mean) std::fill(row.begin(), row.end(), 0.0);
  for (const auto& h : probs)
    for (size_t q = 0; q < mean.size(); ++q)
      for (size_t k = 0; k < mean[q].size(); ++k)
        mean[q][k] += h.at(q).at(k) / static_cast<double>(probs.size());
  return mean;
}

Heatmap attention_figure(const std::string& name,
                         const std::vector<std::vector<std::vector<double>>>& probs, int head,
                         const AttentionAxes& axes) {
  Heatmap h;
  h.title = name + (head < 0 ? ", mean of the heads" : ", head " + std::to_string(head + 1));
  h.values = attention_of(probs, head);
  h.row_labels = axes.queries;
  h.col_labels = axes.keys;
  h.vmin = 0;
  h.vmax = 1;
  h.colour_title = "attention";
  h.y_label = axes.encoder ? "source (query)" : "target (query: the token it predicts)";
  h.x_label = axes.source_keys ? "source (key)" : "target so far (key)";
  h.label_every_cell = true;
  return h;
}

}  // namespace fathom::plot
