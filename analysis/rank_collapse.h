#pragma once
// Rank collapse (methods.md s5.10): how alike the tokens of a sentence become with depth, and
// whether the attention's queries and keys still learn. Pure self-attention maps every token
// of a sequence toward one direction, doubly exponentially in depth (Dong et al. 2021, arXiv
// 2103.03404); once they coincide, every query meets the same keys, the attention no longer
// depends on W_Q and W_K and their gradients vanish while W_V's do not (Noci et al. 2022, arXiv
// 2206.03126, s3). Both are read on one batch, dropout off, in one forward and backward of the
// label-smoothed training loss.
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/model/transformer.h"
#include "core/train/attention_grads.h"

namespace fathom::analysis {

struct TokenCosines {
  std::string stack;                   // "encoder" | "decoder"
  std::vector<std::string> positions;  // "enc.input", then every sub-layer in forward order
  std::vector<double> token_cosine;    // core/train/probe_observer.h token_cosine, one each
};

struct RankCollapse {
  std::vector<TokenCosines> stacks;  // encoder first, when there is one
  std::vector<ProjectionGrads> attention;
};

// Leaves no gradient behind (the model's are zeroed after reading).
RankCollapse rank_collapse(TransformerImpl& model, const Batch& batch, double label_smoothing);

}  // namespace fathom::analysis
