#pragma once
// Layer dependency beta_{i,j} (methods.md s5.1; Liu et al. 2020 s4.1, figures 7-8): the share
// of branch j (0 = the embedding) in stack output i, from the exact decomposition of the
// residual stream (stream_decomposition.h), as the paper defines it (s4.1, its Pre-LN example
// sqrt(Var[a_j]) / sqrt(Var[sum_k a_k])):
//   beta_{i,j} = std(component j at output i) / std(output i),
// output i = sum_k component k + the LayerNorm bias term (the model's actual output there),
// variances over every element of the non-pad positions of the batch (population variance).
// A row's squares sum to 1 only while its components are uncorrelated (at initialization),
// so each row also carries sum_j beta_{i,j}^2 and the bias term's share std(bias)/std(output)
// as diagnostics. Dropout is off (eval mode).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/stream_decomposition.h"
#include "core/data/batch.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct BetaRow {
  std::vector<double> beta;  // [labels], 0 where j > i
  double sum_sq = 0;         // sum_j beta_{i,j}^2
  double bias = 0;           // std(LayerNorm bias term) / std(output i)
};

struct BetaMatrix {
  std::vector<std::string> labels;        // columns: "enc.embed", "enc.0.self_attn", ...
  std::vector<std::string> rows;          // outputs: the sub-layers, in forward order
  std::vector<std::vector<double>> beta;  // [rows][labels], 0 where j > i
  std::vector<double> sum_sq;             // [rows] sum_j beta_{i,j}^2
  std::vector<double> bias;               // [rows] the LayerNorm bias term's share
  std::optional<BetaRow> final_row;       // after the stack's final LN (Pre-LN)
  std::string final_label;                // e.g. "enc.final_norm"
};

struct BetaResult {
  BetaMatrix encoder, decoder;
  std::string note;  // what the rows mean for a model whose norms are not LayerNorms (DyT)
  nlohmann::json to_json() const;
};

// What the decomposition may hold at once by default: its components of a chunk of the batch.
constexpr int64_t kBetaComponentBytes = int64_t{128} << 20;

// Runs the model on `batch` (eval mode, no gradients) in chunks of sentences whose components
// (float64; every sub-layer's, both stacks) take at most `component_bytes` -- one sentence a
// chunk at the least -- merging their moments, so that the result is the whole batch's, within
// float rounding, at any size (a 60-layer stack at d 512 holds ~0.5 MB a token unchunked).
// `transform` may rewrite branches (tests); `progress` draws a bar over the sentences on stderr.
// Throws std::invalid_argument for models without a residual stream.
BetaResult compute_beta(TransformerImpl& model, const Batch& batch,
                        StreamDecomposer::Transform transform = nullptr,
                        int64_t component_bytes = kBetaComponentBytes, bool progress = false);

}  // namespace fathom::analysis
