#pragma once
// One attention map of one sentence as a heatmap (`fathom attention --plot`, the desktop app's
// attention view): queries down, keys across, every token labelled, colours on the probabilities'
// own 0..1 so heads and layers compare.
#include <string>
#include <vector>

#include "plot/figure.h"

namespace fathom::plot {

// probs[head][query][key] -> [query][key] of head `head` (0-based), or the mean of the heads
// for head -1. std::out_of_range for a head the map has not.
std::vector<std::vector<double>> attention_of(
    const std::vector<std::vector<std::vector<double>>>& probs, int head);

struct AttentionAxes {
  std::vector<std::string> queries, keys;  // the tokens
  bool encoder = false;                    // an encoder map: the source against itself
  bool source_keys = false;                // keys are the source (encoder maps, cross-attention)
};

// The map named `name` ("dec.5.enc_attn") of head `head` (-1: the mean of the heads).
Heatmap attention_figure(const std::string& name,
                         const std::vector<std::vector<std::vector<double>>>& probs, int head,
                         const AttentionAxes& axes);

}  // namespace fathom::plot
