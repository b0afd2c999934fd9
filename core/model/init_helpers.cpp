#include "core/model/init_helpers.h"

#include <cmath>

namespace fathom {

double xavier_bound(int64_t fan_in, int64_t fan_out, double gain) {
  return gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
}

void reset_norms(ParameterCatalog& catalog) {
  for (auto& n : catalog.norms) {
    n.norm->weight.fill_(1.0);
    n.norm->bias.zero_();
  }
}

void zero_linear_biases(ParameterCatalog& catalog) {
  for (auto& l : catalog.linears)
    if (l.linear->bias.defined()) l.linear->bias.zero_();
}

void normal_embeddings(ParameterCatalog& catalog, double std) {
  for (auto& e : catalog.embeddings) {
    e.weight.normal_(0.0, std);
    e.weight[0].zero_();
  }
}

void uniform_embeddings(ParameterCatalog& catalog, double bound) {
  for (auto& e : catalog.embeddings) {
    e.weight.uniform_(-bound, bound);
    e.weight[0].zero_();
  }
}

void xavier_linear(LinearEntry& entry, double gain_multiplier) {
  torch::Tensor& w = entry.linear->weight;
  const int64_t fan_in = w.size(1);
  const int64_t fan_out = w.size(0) / entry.blocks;
  const bool attention_input = entry.role == LinearRole::AttentionQuery ||
                               entry.role == LinearRole::AttentionKeyValue ||
                               entry.role == LinearRole::AttentionQkv;
  const double gain = (attention_input ? 1.0 / std::sqrt(2.0) : 1.0) * gain_multiplier;
  // Packed matrices (Q/K/V, depth-wise LSTM gates) are initialized as their separate blocks.
  const bool packed = attention_input || entry.role == LinearRole::LstmGate;
  const int64_t block_out = packed ? fan_out : w.size(0);
  const double bound = xavier_bound(fan_in, block_out, gain);
  w.uniform_(-bound, bound);
}

}  // namespace fathom
